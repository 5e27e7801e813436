# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The serving pods' secure defaults (securityContext, probes, requests) on the repo's real values files, each
only where the values set none, each off by its switch."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import pod_defaults as pd
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security

REPO = Path(__file__).resolve().parents[5]
HARBOR = "harbor.harbor.svc.cluster.local"
ON = {"pod_security_context": True, "pod_uid": 65532, "pod_probes": True, "pod_probe_path": "/health",
      "pod_requests": {"cpu": "100m", "memory": "1Gi"}}


@pytest.fixture(scope="module")
def recs():
    settings = {
        "cloud_provider": "on-prem", "kubeconfig": "/k", "harbor_hostname": HARBOR, "harbor_user": "robot$p",
        "harbor_token": "t0ken", "gpu_toleration": {}, "models_dir": str(REPO / "models"),
        "models": {"generative": [{"name": "Qwen3-0.6B-rke2", "enabled": True, "nodeSelector": {}},
                                  {"name": "sim-qwen3-lab", "enabled": True, "nodeSelector": {}}],
                   "embedder": [{"name": "all-MiniLM-L6-v2-rke2", "enabled": True, "nodeSelector": {},
                                 "modelSource": {"harborRef": HARBOR + "/ai-models/all-minilm-l6-v2:v1",
                                                 "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                                                 "storageSize": "1Gi", "hostpathNode": "node-1"}}]},
    }
    found, problems = plan.build_plan(settings)
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    return dict((r["slug"], r) for r in found)


def ms(record, **settings):
    files = dict((chart, yaml.safe_load(Path(record["values_files"][chart]).read_text())) for chart in ("gaie", "ms"))
    return sv.stack_spec(record, files["gaie"], files["ms"], settings)["values"]["modelservice"]


def test_vllm_gets_a_restricted_context_probes_on_the_proxy_target_port_and_requests(recs):
    decode = ms(recs["qwen3-0-6b-rke2"], **ON)["decode"]
    assert decode["extraConfig"]["securityContext"] == {
        "runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532, "seccompProfile": {"type": "RuntimeDefault"}}
    vllm = decode["containers"][0]
    extra = vllm["extraConfig"]
    assert extra["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]},
                                        "runAsNonRoot": True, "seccompProfile": {"type": "RuntimeDefault"}}
    # vllmServe behind the routing proxy listens on routing.proxy.targetPort (the chart's 8200)
    for probe in pd.PROBE_KEYS:
        assert extra[probe]["httpGet"] == {"path": "/health", "port": 8200}
    assert extra["startupProbe"]["periodSeconds"] * extra["startupProbe"]["failureThreshold"] == 1800
    assert vllm["resources"] == {"requests": {"cpu": "100m", "memory": "1Gi"}}
    # the plan's own settings are still there (the claim mount, the offline switch, placement and pull secret)
    assert decode["extraConfig"]["imagePullSecrets"] == [{"name": "harbor-creds"}]


def test_the_pod_passes_the_restricted_container_rules(recs):
    decode = ms(recs["qwen3-0-6b-rke2"], **ON)["decode"]
    pod_spec = {"securityContext": decode["extraConfig"]["securityContext"],
                "containers": [dict(name=c["name"], securityContext=c["extraConfig"]["securityContext"])
                               for c in decode["containers"]]}
    assert pod_security.restricted_problems(pod_spec) == []


def test_the_values_own_probes_resources_and_contexts_are_kept(recs):
    rec = recs["all-minilm-l6-v2-rke2"]
    container = ms(rec, **ON)["decode"]["containers"][0]
    # its own readinessProbe (tcpSocket): no probe added; its own resources: no requests added
    assert container["extraConfig"]["readinessProbe"] == {"tcpSocket": {"port": 8200}, "periodSeconds": 2,
                                                          "failureThreshold": 150}
    assert "startupProbe" not in container["extraConfig"] and "livenessProbe" not in container["extraConfig"]
    assert container["resources"] == {"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"memory": "4Gi"}}
    assert container["extraConfig"]["securityContext"]["capabilities"] == {"drop": ["ALL"]}

    own = {"decode": {"podSecurityContext": {"runAsUser": 1000},
                      "containers": [{"name": "s", "modelCommand": "vllmServe",
                                      "securityContext": {"runAsUser": 1001}, "livenessProbe": {"exec": {}}}]}}
    out = pd.apply(own, True, 65532, True, "/health", {"cpu": "1"})["decode"]
    assert "securityContext" not in out.get("extraConfig", {})
    assert out["containers"][0]["securityContext"] == {"runAsUser": 1001}
    assert not any(p in out["containers"][0].get("extraConfig", {}) for p in pd.PROBE_KEYS + ("securityContext",))
    assert out["containers"][0]["resources"] == {"requests": {"cpu": "1"}}


def test_the_lab_sim_is_probed_on_its_own_port(recs):
    container = ms(recs["sim-qwen3-lab"], **ON)["decode"]["containers"][0]
    assert container["extraConfig"]["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8200}


@pytest.mark.parametrize("values, role, port", [
    ({"decode": {}}, "decode", 8200),                                           # chart defaults: proxy on
    ({"routing": {"proxy": {"enabled": False}, "servicePort": 9000}}, "decode", 9000),
    ({"routing": {"servicePort": 8001}}, "prefill", 8001),                      # prefill listens on servicePort
])
def test_the_chart_port_rule_for_vllm_serve(values, role, port):
    assert pd.server_port(values, role, {"name": "vllm", "modelCommand": "vllmServe"}) == port


def test_a_custom_container_without_a_port_gets_no_probe():
    assert pd.server_port({}, "decode", {"name": "x", "modelCommand": "custom", "command": ["srv"]}) is None
    assert pd.server_port({}, "decode", {"name": "x", "args": ["--port=7000"]}) == 7000
    out = pd.apply({"decode": {"containers": [{"name": "x", "command": ["srv"]}]}}, probes_on=True)
    assert out["decode"]["containers"][0] == {"name": "x", "command": ["srv"]}


def test_each_switch_turns_its_default_off(recs):
    rec = recs["qwen3-0-6b-rke2"]
    off = ms(rec)
    assert off == ms(rec, pod_security_context=False, pod_probes=False, pod_requests={})
    assert "securityContext" not in off["decode"]["extraConfig"]
    only_requests = ms(rec, pod_requests={"cpu": "2"})["decode"]["containers"][0]
    assert only_requests["resources"] == {"requests": {"cpu": "2"}} and "extraConfig" not in only_requests
    only_probes = ms(rec, pod_probes=True)["decode"]
    assert "securityContext" not in only_probes["extraConfig"]
    assert set(only_probes["containers"][0]["extraConfig"]) == set(pd.PROBE_KEYS)


def test_a_skipped_role_and_root_are_refused():
    values = {"prefill": {"create": False, "containers": [{"name": "p"}]}}
    assert pd.apply(copy.deepcopy(values), True, 65532, True) == values
    with pytest.raises(ValueError, match="serving_stack_pod_uid"):
        pd.apply({"decode": {}}, True, 0)
