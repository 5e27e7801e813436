# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack_render's entry point without a cluster (cluster_checks false), its helm a STAND-IN script.

The stand-in helm (not the real one: tests/integration/render runs the real helm and charts) prints, for the
modelservice release, a decode Deployment built from the values' decode.containers, and fails with an
``Error:`` line when the values ask it to; it records every argv it was given.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import pytest
from ansible.module_utils.testing import patch_module_args

from ansible_collections.ai_platform.serving.plugins.modules import serving_stack_render

STANDIN_HELM = r'''#!%s
import json, sys
argv = sys.argv[1:]
with open(%r, "a") as log:
    log.write(json.dumps(argv) + "\n")
values = json.load(open(argv[argv.index("--values") + 1]))
if values.get("fail"):
    sys.stderr.write("Pulled: x\nError: template: chart/templates/x.yaml:3: %%s\n" %% values["fail"])
    sys.exit(1)
if argv[1].startswith("ms-"):
    containers = values.get("decode", {}).get("containers", [])
    print("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %%s-decode}\nspec:\n  replicas: 1\n"
          "  template:\n    spec: %%s" %% (argv[1], json.dumps({"containers": containers})))
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


def run(capsys, helm, **args):
    args = dict(dict(records=[RECORD], charts=CHARTS, helm_binary=helm[0], cluster_checks=False, chart_dir="/charts",
                     pod_security={"enforce": "baseline"}, kube_version="1.33.13", _ansible_check_mode=True), **args)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            serving_stack_render.main()
    return json.loads(capsys.readouterr().out)


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


def test_only_the_selected_releases_render_and_none_selected_renders_nothing(capsys, helm):
    result = run(capsys, helm, specs=specs(), select={"modelservice": ["q"]})
    assert result["rendered"] == ["q/modelservice"]
    result = run(capsys, helm, specs=specs(), select={"infra": [], "gaie": [], "modelservice": []})
    assert result["rendered"] == [] and not result.get("failed")


def test_a_missing_helm_is_a_render_failure(capsys, tmp_path):
    result = run(capsys, (str(tmp_path / "no-helm"), None), specs=specs(), select={"gaie": ["q"]})
    assert result["failed"] is True and "cannot run" in result["failures"][0]
