# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack_render's entry point without a cluster (cluster_checks false), its helm a STAND-IN script.

The stand-in helm (not the real one: tests/integration/render runs the real helm and charts) prints, for the
modelservice release, a decode Deployment built from the values' decode.containers, and fails with an
``Error:`` line when the values ask it to, or prints the values' ``raw`` text as the manifests; it answers
``version --short`` as a Helm 3.19 and records every argv it was given.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys
import time

import pytest
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat, render, stacks, state
from ansible_collections.ai_platform.serving.plugins.modules import serving_stack_render
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main

STANDIN_HELM = r'''#!%s
import json, sys
argv = sys.argv[1:]
with open(%r, "a") as log:
    log.write(json.dumps(argv) + "\n")
if argv[:2] == ["version", "--short"]:  # the probe (Helm 3: no plugin path asked)
    print("v3.19.5+gstandin")
    sys.exit(0)
values = json.load(open(argv[argv.index("--values") + 1]))
if values.get("fail"):
    sys.stderr.write("Pulled: x\nError: template: chart/templates/x.yaml:3: %%s\n" %% values["fail"])
    sys.exit(1)
if values.get("raw"):  # what an extraObjects template (rendered through tpl) writes, as it wrote it
    sys.stdout.write(values["raw"])
    sys.exit(0)
if argv[1].startswith("ms-"):
    containers = values.get("decode", {}).get("containers", [])
    print("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %%s-decode}\nspec:\n  replicas: 1\n"
          "  template:\n    spec: %%s" %% (argv[1], json.dumps({"containers": containers})))
    if values.get("monitor"):
        print("---\napiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata: {name: %%s-decode}" %% argv[1])
else:
    print("---\napiVersion: v1\nkind: Service\nmetadata: {name: %%s}" %% argv[1])
'''
RECORD = {"name": "Qwen3-0.6B", "slug": "q", "namespace": "llm-d-q",
          "names": {"infra_release": "infra-q", "gaie_release": "gaie-q", "ms_release": "ms-q"},
          "values_files": {"gaie": "m/gaie-q/values.yaml", "ms": "m/ms-q/values.yaml"},
          "storage": {"mode": "harbor", "pvc": "q-model", "pv": "q-model-pv", "hostpath_node": "n1"}}
CHARTS = {"infra": {"ref": "llm-d-infra", "version": "v1.3.0"}, "gaie": {"ref": "inferencepool", "version": "v1.2.0"},
          "modelservice": {"ref": "llm-d-modelservice", "version": "v0.4.12"}}


@pytest.fixture
def helm(tmp_path):
    path = tmp_path / "helm"
    log = tmp_path / "argv.log"
    path.write_text(STANDIN_HELM % (sys.executable, str(log)))
    os.chmod(str(path), 0o755)
    return str(path), log


def specs(decode_security=None, fail=None):
    container = {"name": "vllm", "image": "i:1"}
    if decode_security:
        container["securityContext"] = decode_security
    ms = {"decode": {"containers": [container]}}
    if fail:
        ms["fail"] = fail
    return {"q": {"values": {"infra": {}, "gaie": {}, "modelservice": ms}}}


def run(capsys, standin, **args):
    args = dict(dict(records=[RECORD], charts=CHARTS, helm_binary=standin[0], cluster_checks=False, chart_dir="/charts",
                     pod_security={"enforce": "baseline"}, kube_version="1.33.13"), **args)
    return run_main(serving_stack_render.main, capsys, args, check_mode=True)


def test_renders_every_release_once_and_returns_the_pod_specs(capsys, helm):
    result = run(capsys, helm, specs=specs(), return_manifests=True)
    assert not result.get("failed"), result
    assert sorted(result["rendered"]) == ["q/gaie", "q/infra", "q/modelservice"]
    (pod,) = result["pods"]["q"]["modelservice"]
    assert pod["kind"] == "Deployment" and pod["spec"]["containers"][0]["name"] == "vllm"
    assert "kind: Deployment" in result["manifests"]["q"]["modelservice"]
    argvs = [json.loads(line) for line in helm[1].read_text().splitlines()]
    assert sorted(a[1] for a in argvs) == ["gaie-q", "infra-q", "ms-q"]
    ms = [a for a in argvs if a[1] == "ms-q"][0]
    assert ms[2] == "/charts/llm-d-modelservice-v0.4.12.tgz" and ms[ms.index("--kube-version") + 1] == "1.33.13"
    assert result["changed"] is False and result["kube_version"] == "1.33.13"
    # no cluster read: the GPU check says it was not made only when a pod asks for GPUs (none here)
    assert result["warnings_found"] == []


def test_a_pod_the_enforced_level_refuses_fails_naming_both_knobs(capsys, helm):
    result = run(capsys, helm, specs=specs({"capabilities": {"add": ["SYS_NICE"]}}))
    assert result["failed"] is True
    (problem,) = result["problems"]
    assert "Pod Security baseline (enforced on namespace llm-d-q)" in problem
    assert "aips_pod_security to {enforce: privileged}" in problem
    assert "serving_stack_values_policy_allow with {model: q, rule: added-capabilities" in problem
    assert problem in result["msg"]


def test_privileged_enforcement_admits_it(capsys, helm):
    result = run(capsys, helm, specs=specs({"capabilities": {"add": ["SYS_NICE"]}}),
                 pod_security={"enforce": "privileged"})
    assert not result.get("failed"), result


def test_a_render_failure_names_model_chart_version_and_helms_error(capsys, helm):
    result = run(capsys, helm, specs=specs(fail="decode.containers: image of container is required"))
    assert result["failed"] is True
    (failure,) = result["failures"]
    assert failure.startswith("Qwen3-0.6B: release modelservice of chart llm-d-modelservice (llm-d-modelservice "
                              "v0.4.12) does not render with helm template: Error: template: chart/templates/x.yaml:3: "
                              "decode.containers: image of container is required")
    assert "Pulled:" not in failure and "q/modelservice" not in result["rendered"]


def test_rendered_manifests_are_read_under_the_yaml_limits(capsys, helm):
    """issue 27: an extraObjects template can write YAML anchors into the manifests; an alias bomb there is a render
    failure naming model, chart and the limit, in well under 2 s, never expanded."""
    manifest = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n" + "".join(
        "  " + line + "\n" for line in alias_bomb(levels=9).splitlines())
    values = specs()
    values["q"]["values"]["modelservice"]["raw"] = manifest
    started = time.monotonic()
    result = run(capsys, helm, specs=values)
    assert time.monotonic() - started < 2
    assert result["failed"] is True
    (failure,) = result["failures"]
    assert failure.startswith("Qwen3-0.6B: release modelservice of chart llm-d-modelservice (llm-d-modelservice "
                              "v0.4.12) does not render with helm template: Error: the rendered manifests are refused: "
                              "it has more than 1000000 nodes once its aliases are expanded (an alias bomb)"), failure
    assert "lol" not in failure and "q/modelservice" not in result["rendered"]


def test_only_the_selected_releases_render_and_none_selected_renders_nothing(capsys, helm):
    result = run(capsys, helm, specs=specs(), select={"modelservice": ["q"]})
    assert result["rendered"] == ["q/modelservice"]
    result = run(capsys, helm, specs=specs(), select={"infra": [], "gaie": [], "modelservice": []})
    assert result["rendered"] == [] and not result.get("failed")


def test_a_missing_helm_is_a_render_failure(capsys, tmp_path):
    result = run(capsys, (str(tmp_path / "no-helm"), None), specs=specs(), select={"gaie": ["q"]})
    assert result["failed"] is True and "cannot run" in result["failures"][0]


class Done(Exception):
    pass


class FakeModule(object):
    """The AnsibleK8SModule surface execute_module uses."""

    def __init__(self, params):
        self.params = params
        self.warnings = []
        self.result = None

    def warn(self, text):
        self.warnings.append(text)

    def exit_json(self, **result):
        self.result = result
        raise Done()

    def fail_json(self, **result):
        self.result = dict(result, failed=True)
        raise Done()


class FakeClient(object):
    """Nodes and CRDs as the cluster serves them; ``forbidden`` makes the node list fail as without RBAC."""

    class Inner(object):
        version = {"kubernetes": {"major": "1", "minor": "33+"}}

    def __init__(self, nodes, crds=(), forbidden=False):
        self.client = self.Inner()
        self.nodes, self.crds, self.forbidden = nodes, set(crds), forbidden

    def resource(self, kind, api_version):
        return kind

    def get(self, resource, name=None):
        if resource == "Node":
            if self.forbidden:
                raise RuntimeError("nodes is forbidden")
            return {"items": self.nodes}
        if name not in self.crds:
            # kubernetes' NotFoundError wraps an ApiException; the module only catches it by class
            raise serving_stack_render.NotFoundError.__new__(serving_stack_render.NotFoundError)
        return {"metadata": {"name": name}}


def cluster_params(standin, specs_, **extra):
    params = dict((key, spec.get("default")) for key, spec in serving_stack_render.argspec().items())
    params.update(records=[RECORD], charts=CHARTS, helm_binary=standin[0], chart_dir="/charts", specs=specs_,
                  pod_security={"enforce": "baseline"}, kube_version="", workers=2, marks={})
    params.update(extra)
    return params


def gpu_specs(replicas_gpus):
    spec = specs()
    spec["q"]["values"]["modelservice"]["decode"]["containers"][0]["resources"] = {
        "limits": {"nvidia.com/gpu": replicas_gpus}}
    return spec


def test_with_a_cluster_the_version_the_node_gpus_and_the_crds_are_read(helm):
    module = FakeModule(cluster_params(helm, gpu_specs(2)))
    node = {"metadata": {"name": "n1"}, "status": {"allocatable": {"nvidia.com/gpu": "1"}}}
    with pytest.raises(Done):
        serving_stack_render.execute_module(module, FakeClient([node]))
    assert not module.result.get("failed"), module.result
    assert module.result["kube_version"] == "1.33"
    (warning,) = module.result["warnings_found"]
    assert "node n1, which offers 1 nvidia.com/gpu but the releases ask for 2" in warning
    assert module.warnings == [warning]


def test_an_unreadable_node_list_is_a_warning_and_the_gpu_check_is_not_made(helm):
    module = FakeModule(cluster_params(helm, gpu_specs(1)))
    with pytest.raises(Done):
        serving_stack_render.execute_module(module, FakeClient([], forbidden=True))
    assert not module.result.get("failed"), module.result
    assert any("could not list the nodes" in w for w in module.warnings)
    assert any("could not check the node's allocatable" in w for w in module.result["warnings_found"])


def test_a_monitor_whose_crd_the_cluster_lacks_fails_naming_the_switch(helm):
    spec = specs()
    spec["q"]["values"]["modelservice"]["monitor"] = True
    module = FakeModule(cluster_params(helm, spec))
    with pytest.raises(Done):
        serving_stack_render.execute_module(module, FakeClient([]))
    assert module.result["failed"] is True
    (problem,) = module.result["problems"]
    assert "PodMonitor ms-q-decode" in problem and "serving_stack_monitors: false" in problem
    module = FakeModule(cluster_params(helm, spec))
    with pytest.raises(Done):
        serving_stack_render.execute_module(module, FakeClient([], crds=["podmonitors.monitoring.coreos.com"]))
    assert not module.result.get("failed"), module.result


def test_the_chart_registry_tls_options_and_the_deprecated_chart_ca_file(capsys, helm):
    result = run(capsys, helm, specs=specs(), chart_ca_file="/etc/pki/harbor-ca.crt", registry_validate_certs=False)
    assert not result.get("failed"), result
    # the deprecation, from the argument spec (a module's deprecations gather in the process, once per message)
    checked = ArgumentSpecValidator(serving_stack_render.argspec()).validate(
        dict(records=[], specs={}, charts={}, chart_ca_file="/etc/pki/harbor-ca.crt"))
    assert checked.validated_parameters["registry_ca_file"] == "/etc/pki/harbor-ca.crt"
    assert [(d["version"], d["collection_name"]) for d in checked._deprecations] == [("2.0.0", "ai_platform.serving")]
    assert "'chart_ca_file'" in checked._deprecations[0]["msg"]
    argvs = [json.loads(line) for line in helm[1].read_text().splitlines()]
    assert len(argvs) == 3 and all(a.count("--insecure-skip-tls-verify") == 1 for a in argvs)
    result = run(capsys, helm, specs=specs(), registry_ca_file="/etc/pki/harbor-ca.crt")
    assert not result.get("failed"), result
    assert not any("--insecure-skip-tls-verify" in line for line in helm[1].read_text().splitlines()[3:])


# issue 28: serving_stack_info's release items and Helm probe are all the render needs (no records, no charts, no probe)
SCRIPT = os.path.join(ROOT, "roles", "serving_stack", "files", "gateway_placement.py")
PLUGINS = os.path.join(ROOT, "roles", "serving_stack", "files", "helm4-plugins")
HELM3 = helm_compat.handed(dict(helm=dict(version="v3.19.5+gstandin", major=3, list_args=helm_compat.list_all_args(3),
                                          apply=helm_compat.apply_options(3)),
                                post_renderer=helm_compat.post_renderer(3, SCRIPT, PLUGINS)))


def info_items(specs_):
    """The release items serving_stack_info returns (stack/state.py:release_items), every release of RECORD due."""
    plan = {"deploy": dict((chart, ["q"]) for chart, _key in stacks.charts()),
            "marks": dict((chart, {"global": {"aipsChartMark": chart}}) for chart, _key in stacks.charts()),
            "digests": {"q": dict((name, "d-" + name) for name in RECORD["names"].values())}}
    return state.release_items([RECORD], specs_, CHARTS, plan, [], helm_compat.apply_options(3), SCRIPT)


def bare(items):
    """The items as an older serving_stack_info returned them: neither plan_record nor chart fields."""
    return [dict((k, v) for k, v in item.items() if k not in ("plan_record", "ref", "repo", "version")) for item in items]


@pytest.fixture
def no_probe(monkeypatch):
    def probe(*_args, **_kwargs):
        raise AssertionError("helm was probed although the module was given serving_stack_info's probe")
    monkeypatch.setattr(serving_stack_render.helm_compat, "probe", probe)


def argv_log(helm):
    """The stand-in's argvs, each values file by its name (the scratch directory differs per run)."""
    argvs = [json.loads(line) for line in helm[1].read_text().splitlines()]
    return [[os.path.basename(arg) if index and argv[index - 1] == "--values" else arg
             for index, arg in enumerate(argv)] for argv in argvs]


@pytest.mark.parametrize("specs_, outcome", [
    (specs(), "rendered"),
    (specs({"capabilities": {"add": ["SYS_NICE"]}}), "problems"),    # its message names the values policy entry too
    (specs(fail="decode.containers: image of container is required"), "failures"),
], ids=["renders", "refused-pod", "render-failure"])
def test_the_info_items_and_probe_render_as_records_charts_and_a_probe_do(capsys, helm, monkeypatch, specs_, outcome):
    items = info_items(specs_)
    assert all(item["plan_record"] == render.record_part(RECORD) for item in items)
    common = dict(post_renderer=SCRIPT, post_renderer_plugins=PLUGINS, return_manifests=True)
    before = run(capsys, helm, releases=bare(items), **common)           # records and charts; the probe runs
    probed = argv_log(helm)
    assert probed[0] == ["version", "--short"] and len(probed) == 4
    helm[1].write_text("")
    with monkeypatch.context() as patched:
        patched.setattr(serving_stack_render.helm_compat, "probe", lambda *a, **k: pytest.fail("helm probed again"))
        after = run(capsys, helm, releases=items, helm=HELM3, records=None, charts=None, **common)
    # the oldest ansible-core of the support matrix returns the options given as ``invocation``: they differ here
    assert dict(after, invocation=None) == dict(before, invocation=None)
    handed = argv_log(helm)
    assert sorted(handed) == sorted(probed[1:])                          # the same helm template calls, no probe
    infra = [a for a in handed if a[1] == "infra-q"][0]
    assert infra[infra.index("--post-renderer") + 1] == SCRIPT
    assert before[outcome] and bool(before.get("failed")) is (outcome != "rendered")


def test_a_probe_made_for_another_post_renderer_fails_before_any_render(capsys, helm, no_probe):
    other = dict(HELM3, post_renderer=dict(arg="/elsewhere/gateway_placement.py", env={}))
    result = run(capsys, helm, releases=info_items(specs()), helm=other, post_renderer=SCRIPT, records=None,
                 charts=None)
    assert result["failed"] is True
    assert result["msg"].startswith("helm: the given helm probe was made for another post-renderer")
    assert "leave helm out to probe" in result["msg"] and not helm[1].exists()


def test_items_without_plan_record_still_need_records_and_charts(capsys, helm):
    result = run(capsys, helm, releases=bare(info_items(specs())), records=None, charts=None)
    assert result["failed"] is True and "not among the records" in result["msg"]
    result = run(capsys, helm, specs=specs(), records=None, charts=None)
    assert result["failed"] is True and result["msg"].startswith("give releases (serving_stack_info's render)")


def test_with_a_cluster_the_info_items_carry_the_hostpath_node_the_gpu_check_reads(helm, no_probe):
    node = {"metadata": {"name": "n1"}, "status": {"allocatable": {"nvidia.com/gpu": "1"}}}
    module = FakeModule(cluster_params(helm, gpu_specs(2)))
    with pytest.raises(Done):
        serving_stack_render.execute_module(module, FakeClient([node]))
    # FakeModule has no run_command: a probe could not run; the given one stands for it
    handed = FakeModule(cluster_params(helm, None, records=None, charts=None, releases=info_items(gpu_specs(2)),
                                       helm=HELM3, post_renderer=SCRIPT, post_renderer_plugins=PLUGINS))
    with pytest.raises(Done):
        serving_stack_render.execute_module(handed, FakeClient([node]))
    assert not handed.result.get("failed"), handed.result
    assert handed.result["warnings_found"] == module.result["warnings_found"] != []
    assert handed.result["pods"]["q"]["modelservice"] == module.result["pods"]["q"]["modelservice"]
