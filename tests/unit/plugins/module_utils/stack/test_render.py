# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Render before deploy: the helm template calls, the failure message, the checks over rendered manifests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import render

RECORD = {"name": "Qwen3-0.6B", "slug": "q", "namespace": "llm-d-q",
          "names": {"infra_release": "infra-q", "gaie_release": "gaie-q", "ms_release": "ms-q"},
          "values_files": {"gaie": "models/generative/Q/gaie-q/values.yaml", "ms": "models/generative/Q/ms-q/values.yaml"},
          "storage": {"mode": "none"}}
OTHER = dict(RECORD, slug="r", name="R", names={"infra_release": "infra-r", "gaie_release": "gaie-r",
                                                "ms_release": "ms-r"})
SPECS = {"q": {"values": {"infra": {"a": 1}, "gaie": {"b": {"c": 1}}, "modelservice": {}}},
         "r": {"values": {"infra": {}, "gaie": {}, "modelservice": {"d": 2}}}}
CHARTS = {"infra": {"ref": "oci://harbor.example/charts/llm-d-infra", "version": "v1.3.0"},
          "gaie": {"ref": "oci://harbor.example/charts/inferencepool@sha256:" + "a" * 64, "version": ""},
          "modelservice": {"ref": "llm-d-modelservice", "repo": "https://llm-d-incubation.github.io/llm-d-modelservice/",
                           "version": "v0.4.12"}}


def test_every_release_or_only_the_selected_ones_with_the_marks():
    everything = render.releases([RECORD, OTHER], SPECS)
    assert [(r["slug"], chart, name) for r, chart, name, _v in everything] == [
        ("q", "infra", "infra-q"), ("q", "gaie", "gaie-q"), ("q", "modelservice", "ms-q"),
        ("r", "infra", "infra-r"), ("r", "gaie", "gaie-r"), ("r", "modelservice", "ms-r")]
    marks = {"gaie": {"global": {"aipsChartMark": "m"}, "b": {"e": 2}}}
    selected = render.releases([RECORD, OTHER], SPECS, {"gaie": ["q"], "modelservice": ["r"], "infra": []}, marks)
    assert [(r["slug"], chart, values) for r, chart, _n, values in selected] == [
        ("q", "gaie", {"b": {"c": 1, "e": 2}, "global": {"aipsChartMark": "m"}}), ("r", "modelservice", {"d": 2})]
    assert SPECS["q"]["values"]["gaie"] == {"b": {"c": 1}}


def test_nothing_selected_renders_nothing():
    assert render.releases([RECORD], SPECS, {"infra": [], "gaie": [], "modelservice": []}) == []


def test_template_argv_as_release_yml_installs():
    argv = render.template_argv("helm", RECORD, "infra", "infra-q", CHARTS["infra"], "/t/v.json", "1.33",
                                post_renderer="/p/gateway_placement.py")
    assert argv == ["helm", "template", "infra-q", "oci://harbor.example/charts/llm-d-infra", "--namespace", "llm-d-q",
                    "--kube-version", "1.33", "--values", "/t/v.json", "--version", "v1.3.0",
                    "--post-renderer", "/p/gateway_placement.py"]
    pinned = render.template_argv("helm", RECORD, "gaie", "gaie-q", CHARTS["gaie"], "/t/v.json", "",
                                  post_renderer="/p/gateway_placement.py")
    assert pinned[3] == CHARTS["gaie"]["ref"] and "--version" not in pinned and "--post-renderer" not in pinned
    assert pinned[pinned.index("--kube-version") + 1] == render.DEFAULT_KUBE_VERSION
    repo = render.template_argv("helm", RECORD, "modelservice", "ms-q", CHARTS["modelservice"], "/v", "1.33")
    assert repo[-4:] == ["--version", "v0.4.12", "--repo", CHARTS["modelservice"]["repo"]]
    assert "--insecure-skip-tls-verify" not in argv + pinned + repo


def test_template_argv_skips_the_tls_check_only_when_told():
    argv = render.template_argv("helm", RECORD, "gaie", "gaie-q", CHARTS["gaie"], "/t/v.json", "1.33",
                                validate_certs=False)
    assert argv[-1] == "--insecure-skip-tls-verify" and argv.count("--insecure-skip-tls-verify") == 1


def test_a_chart_dir_renders_the_carried_archive():
    source, extra = render.chart_source(CHARTS["modelservice"], "/charts")
    assert (source, extra) == ("/charts/llm-d-modelservice-v0.4.12.tgz", [])
    assert render.chart_source({"ref": "oci://h/p/inferencepool@sha256:ab", "version": "v1.2.0"}, "/c")[0] == \
        "/c/inferencepool-v1.2.0.tgz"


def test_a_render_failure_names_model_chart_version_and_helms_error():
    stderr = ("Pulled: harbor.example/charts/inferencepool:v1.2.0\nDigest: sha256:ab\n"
              "Error: values don't meet the specifications of the schema(s) in the following chart(s):\n"
              "inferencepool:\n- inferenceExtension: Additional property sidecar2 is not allowed\n")
    message = render.failure_message(RECORD, "gaie", {"ref": "oci://harbor.example/charts/inferencepool",
                                                      "version": "v1.2.0"}, stderr)
    assert message.startswith("Qwen3-0.6B: release gaie of chart inferencepool (oci://harbor.example/charts/"
                              "inferencepool v1.2.0) does not render with helm template: Error: values don't meet")
    assert "Additional property sidecar2 is not allowed" in message and "Pulled:" not in message
    assert "Nothing was installed" in message and "models/generative/Q/gaie-q/values.yaml" in message
    assert "(pinned by digest)" in render.failure_message(RECORD, "gaie", CHARTS["gaie"], "")


def test_node_gpus_by_name_and_hostname_label():
    nodes = [{"metadata": {"name": "n1", "labels": {"kubernetes.io/hostname": "gpu-1"}},
              "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "4"}}},
             {"metadata": {"name": "n2"}, "status": {"allocatable": {"cpu": "4"}}}]
    assert render.node_gpus(nodes) == {"n1": 8, "gpu-1": 8, "n2": 0}


def _rendered(security=None, monitors=False):
    container = {"name": "vllm"}
    if security:
        container["securityContext"] = security
    docs = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ms-q-decode"},
             "spec": {"replicas": 1, "template": {"spec": {"containers": [container]}}}}]
    if monitors:
        docs.append({"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": {"name": "m"}})
    return {"q": {"infra": [], "gaie": [], "modelservice": docs}}


def test_checks_collect_admission_and_monitor_problems():
    levels = {"enforce": "baseline"}
    problems, warnings = render.checks([RECORD, OTHER], _rendered({"privileged": True}, True), {}, levels,
                                       crds=set(), allocatable={})
    assert len(problems) == 2 and "Pod Security baseline" in problems[0] and "PodMonitor m" in problems[1]
    assert warnings == []
    problems, warnings = render.checks([RECORD], _rendered(monitors=True), {}, levels)
    assert problems == [] and len(warnings) == 1 and "could not check" in warnings[0]
    assert render.monitor_crds(_rendered(monitors=True)) == ["podmonitors.monitoring.coreos.com"]


def test_the_crds_read_are_the_monitors_and_the_inference_apis():
    rendered = {"q": {"router": [{"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool",
                                  "metadata": {"name": "router-q"}}]}}
    assert render.monitor_crds(rendered) == ["inferencemodelrewrites.llm-d.ai", "inferenceobjectives.llm-d.ai",
                                             "inferencepools.inference.networking.k8s.io"]
    problems, _warnings = render.checks([dict(RECORD, slug="q")], rendered, {}, {"enforce": "privileged"},
                                        crds={"inferencepools.inference.networking.k8s.io"}, allocatable={})
    assert len(problems) == 2 and all("llm-d.ai" in p for p in problems), problems
