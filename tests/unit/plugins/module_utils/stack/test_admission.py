# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The admission check of rendered releases: Pod Security messages and their fixes, monitors, GPUs of a node."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import admission, pod_standards
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values_policy as vp

MS = "models/generative/Qwen3-0.6B/ms-qwen3-0-6b/values.yaml"
GAIE = "models/generative/Qwen3-0.6B/gaie-qwen3-0-6b/values.yaml"
RECORD = {"name": "Qwen3-0.6B", "slug": "qwen3-0-6b", "namespace": "llm-d-qwen3-0-6b",
          "model_artifacts_uri": "pvc+hf://qwen3-0-6b-model/hub/Qwen/Qwen3-0.6B",
          "values_files": {"gaie": GAIE, "ms": MS},
          "storage": {"mode": "harbor", "pvc": "qwen3-0-6b-model", "pv": "qwen3-0-6b-model-pv",
                      "hostpath_node": "gpu-node-1"}}
DEFAULT_LEVELS = {"enforce": "baseline", "warn": "restricted", "audit": "restricted"}
KEY = "decode.containers[0].securityContext.capabilities.add"


def deployment(name, pod, replicas=1):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"a": "b"}}, "spec": pod}}}


def decode_with(security=None, volumes=None, gpus=None, replicas=1, pod_security_context=None):
    container = {"name": "vllm", "image": "vllm/vllm-openai:v0.14.1"}
    if security is not None:
        container["securityContext"] = security
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": str(gpus)}}
    pod = {"containers": [container], "volumes": [{"name": "model-storage", "persistentVolumeClaim": {
        "claimName": "qwen3-0-6b-model", "readOnly": True}}] + (volumes or [])}
    if pod_security_context:
        pod["securityContext"] = pod_security_context
    return {"modelservice": [deployment("ms-qwen3-0-6b-llm-d-modelservice-decode", pod, replicas)], "gaie": [],
            "infra": []}


SYS_NICE_VALUES = {"modelservice": {"decode": {"containers": [
    {"name": "vllm", "securityContext": {"capabilities": {"add": ["SYS_NICE"]}}}]}}}


def test_sys_nice_refused_by_both_names_both_knobs_model_file_and_key():
    (message,) = admission.admission_problems(RECORD, decode_with({"capabilities": {"add": ["SYS_NICE"]}}),
                                              DEFAULT_LEVELS, SYS_NICE_VALUES, [])
    assert message.startswith("Qwen3-0.6B: modelservice release renders Deployment "
                              "ms-qwen3-0-6b-llm-d-modelservice-decode with containers[0].securityContext."
                              "capabilities.add = ['SYS_NICE'], which Pod Security baseline"), message
    assert "namespace llm-d-qwen3-0-6b" in message
    assert "It comes from %s: %s." % (MS, KEY) in message
    assert "serving_stack_values_policy_allow with {model: qwen3-0-6b, rule: added-capabilities, key: %s, " \
           "reason: <why>}" % KEY in message
    assert "aips_pod_security to {enforce: privileged, audit: restricted, warn: restricted}" in message
    assert "either one alone does not deploy" in message


def test_sys_nice_allowed_by_the_policy_names_only_the_pod_security_knob():
    allow = [{"model": "qwen3-0-6b", "rule": "added-capabilities", "key": KEY, "reason": "vLLM NUMA pinning"}]
    (message,) = admission.admission_problems(RECORD, decode_with({"capabilities": {"add": ["SYS_NICE"]}}),
                                              DEFAULT_LEVELS, SYS_NICE_VALUES, allow)
    assert "aips_pod_security to {enforce: privileged" in message
    assert vp.ALLOW_VARIABLE not in message
    assert "Fix: remove it from %s, or set aips_pod_security" % MS in message


def test_the_named_fix_admits_the_pods():
    """Both knobs as the message names them: the policy finds nothing left and Pod Security admits the pod."""
    allow = [{"model": "qwen3-0-6b", "rule": "added-capabilities", "key": KEY, "reason": "vLLM NUMA pinning"}]
    levels = dict(DEFAULT_LEVELS, enforce="privileged")
    assert admission.admission_problems(RECORD, decode_with({"capabilities": {"add": ["SYS_NICE"]}}), levels,
                                        SYS_NICE_VALUES, allow) == []
    files = {"ms": SYS_NICE_VALUES["modelservice"]}
    assert vp.policy_problems(RECORD, files, {"values_policy_allow": allow, "pod_security": levels}) == []


@pytest.mark.parametrize("security,volumes,values,check,key,rule", [
    (None, [{"name": "shm", "hostPath": {"path": "/dev/shm"}}],
     {"decode": {"volumes": [{"name": "shm", "hostPath": {"path": "/dev/shm"}}]}},
     "host-path", "decode.volumes[0].hostPath", "host-path"),
    ({"seccompProfile": {"type": "Unconfined"}}, None,
     {"decode": {"containers": [{"name": "vllm", "securityContext": {"seccompProfile": {"type": "Unconfined"}}}]}},
     "seccomp", "decode.containers[0].securityContext.seccompProfile.type", "seccomp-unconfined"),
    ({"privileged": True}, None,
     {"decode": {"containers": [{"name": "vllm", "securityContext": {"privileged": True}}]}},
     "privileged", "decode.containers[0].securityContext.privileged", "privileged"),
], ids=["host-path", "seccomp-unconfined", "privileged"])
def test_each_baseline_refusal_names_its_key_and_both_knobs(security, volumes, values, check, key, rule):
    rendered = decode_with(security, volumes)
    (message,) = admission.admission_problems(RECORD, rendered, DEFAULT_LEVELS, {"modelservice": values}, [])
    assert "It comes from %s: %s." % (MS, key) in message, message
    assert "rule: %s, key: %s" % (rule, key) in message and "aips_pod_security to {enforce: privileged" in message


def test_a_key_the_chart_renders_names_the_level_only():
    (message,) = admission.admission_problems(RECORD, decode_with({"privileged": True}), DEFAULT_LEVELS,
                                              {"modelservice": {}}, [])
    assert "No values key sets it (the chart renders it)" in message
    assert vp.ALLOW_VARIABLE not in message and "aips_pod_security to {enforce: privileged" in message


def test_restricted_enforced_names_baseline_as_the_fix():
    levels = {"enforce": "restricted"}
    problems = admission.admission_problems(RECORD, decode_with(), levels, {"modelservice": {}}, [])
    assert problems and all("aips_pod_security to {enforce: baseline}" in p for p in problems)
    assert any("allowPrivilegeEscalation" in p for p in problems)


def test_no_enforce_label_is_privileged():
    assert admission.enforce_level({"warn": "restricted"}) == "privileged"
    assert admission.admission_problems(RECORD, decode_with({"privileged": True}), {"warn": "restricted"}) == []


def test_pod_templates_of_every_workload_kind():
    pod = {"containers": [{"name": "c"}]}
    docs = [
        {"kind": "Pod", "metadata": {"name": "p", "annotations": {"x": "y"}}, "spec": pod},
        deployment("d", pod, 3),
        {"kind": "StatefulSet", "metadata": {"name": "s"}, "spec": {"template": {"spec": pod}}},
        {"kind": "Job", "metadata": {"name": "j"},
         "spec": {"template": {"metadata": {"annotations": {"a": "1"}}, "spec": pod}}},
        {"kind": "CronJob", "metadata": {"name": "cj"}, "spec": {"jobTemplate": {"spec": {"template": {"spec": pod}}}}},
        {"kind": "LeaderWorkerSet", "metadata": {"name": "l"}, "spec": {"replicas": 2, "leaderWorkerTemplate": {
            "leaderTemplate": {"spec": pod}, "workerTemplate": {"spec": pod}}}},
        {"kind": "Service", "metadata": {"name": "svc"}, "spec": {}},
        None,
    ]
    found = [(kind, name, annotations, replicas) for kind, name, _spec, annotations, replicas
             in admission.pod_templates(docs)]
    assert found == [("Pod", "p", {"x": "y"}, 1), ("Deployment", "d", {}, 3), ("StatefulSet", "s", {}, 1),
                     ("Job", "j", {"a": "1"}, 1), ("CronJob", "cj", {}, 1), ("LeaderWorkerSet", "l", {}, 2),
                     ("LeaderWorkerSet", "l", {}, 2)]


def test_values_key_matches_by_field_tail_and_value():
    values = {"decode": {"containers": [{"name": "a", "securityContext": {"capabilities": {"add": ["CHOWN"]}}},
                                        {"name": "b", "securityContext": {"capabilities": {"add": ["SYS_NICE"]}}}]},
              "prefill": {"extraConfig": {"hostNetwork": True}}}
    assert admission.values_key(values, "containers[0].securityContext.capabilities.add", ["SYS_NICE"]) == \
        "decode.containers[1].securityContext.capabilities.add"
    assert admission.values_key(values, "hostNetwork", True) == "prefill.extraConfig.hostNetwork"
    assert admission.values_key(values, "containers[0].securityContext.privileged", True) is None


MONITORS = [{"apiVersion": "monitoring.coreos.com/v1", "kind": "PodMonitor", "metadata": {"name": "ms-decode"}}]
EPP_MONITOR = [{"apiVersion": "monitoring.coreos.com/v1", "kind": "ServiceMonitor", "metadata": {"name": "epp"}}]


def test_monitors_without_their_crd_are_refused_naming_the_switch():
    rendered = {"modelservice": MONITORS, "gaie": EPP_MONITOR}
    problems = admission.monitor_problems(RECORD, rendered, set())
    assert len(problems) == 2
    assert "PodMonitor ms-decode" in problems[1] and "podmonitors.monitoring.coreos.com" in problems[1]
    assert all("serving_stack_monitors: false" in p for p in problems)
    assert admission.monitor_problems(RECORD, rendered, {"podmonitors.monitoring.coreos.com",
                                                         "servicemonitors.monitoring.coreos.com"}) == []


def test_monitors_unchecked_without_a_cluster_warn():
    (warning,) = admission.monitor_warnings(RECORD, {"modelservice": MONITORS})
    assert "could not check" in warning and "serving_stack_monitors: false" in warning
    assert admission.monitor_warnings(RECORD, {"modelservice": []}) == []


def test_monitors_off_sets_the_charts_switches_and_keeps_the_rest():
    values = {"decode": {"replicas": 2, "monitoring": {"podmonitor": {"enabled": True, "interval": "5s"}}}}
    off = admission.monitors_off("modelservice", values)
    assert off["decode"] == {"replicas": 2, "monitoring": {"podmonitor": {"enabled": False, "interval": "5s"}}}
    assert off["prefill"]["monitoring"]["podmonitor"]["enabled"] is False
    assert values["decode"]["monitoring"]["podmonitor"]["enabled"] is True  # not changed in place
    gaie = admission.monitors_off("gaie", {})
    assert gaie["inferenceExtension"]["monitoring"]["prometheus"]["enabled"] is False
    assert admission.monitors_off("infra", {"a": 1}) == {"a": 1}


def test_gpus_beyond_the_hostpath_node_warn_with_the_count():
    rendered = decode_with(gpus=2, replicas=8)
    (warning,) = admission.gpu_warnings(RECORD, rendered, {"gpu-node-1": 4})
    assert "node gpu-node-1, which offers 4 nvidia.com/gpu but the releases ask for 16" in warning
    assert "6 pod(s) will stay Pending" in warning
    assert admission.gpu_warnings(RECORD, rendered, {"gpu-node-1": 16}) == []


def test_gpus_not_checked_without_a_cluster_and_a_missing_node():
    rendered = decode_with(gpus=1, replicas=2)
    (unread,) = admission.gpu_warnings(RECORD, rendered, None)
    assert "could not check" in unread and "must offer 2 GPUs" in unread
    (missing,) = admission.gpu_warnings(RECORD, rendered, {"other": 8})
    assert "has no node gpu-node-1" in missing


def test_no_gpu_warning_off_a_hostpath_claim_or_without_gpus():
    cloud = dict(RECORD, storage={"mode": "harbor", "pvc": "qwen3-0-6b-model", "pv": None})
    assert admission.gpu_warnings(cloud, decode_with(gpus=8, replicas=8), {}) == []
    assert admission.gpu_warnings(RECORD, decode_with(replicas=8), {"gpu-node-1": 0}) == []


def test_init_containers_count_by_their_largest():
    pod = {"initContainers": [{"name": "i", "resources": {"limits": {"nvidia.com/gpu": 4}}}],
           "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": "1"}}}]}
    total, parts = admission.gpu_demand({"modelservice": [deployment("d", pod, 2)]})
    assert total == 8 and parts == [("Deployment/d", 2, 4)]


def test_every_policy_rule_with_a_pod_security_check_is_a_policy_rule():
    assert set(admission.POLICY_RULES.values()) <= set(vp.RULES)
    assert set(admission.POLICY_RULES) <= set(pod_standards.CHECKS)


def test_records_are_not_changed():
    record = copy.deepcopy(RECORD)
    admission.admission_problems(record, decode_with({"privileged": True}), DEFAULT_LEVELS, {}, [])
    assert record == RECORD


POOL = {"apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool", "metadata": {"name": "router-q"}}
OBJECTIVE = {"apiVersion": "llm-d.ai/v1alpha2", "kind": "InferenceObjective", "metadata": {"name": "chat"}}
ALL_CRDS = {"inferencepools.inference.networking.k8s.io", "inferenceobjectives.llm-d.ai",
            "inferencemodelrewrites.llm-d.ai"}


@pytest.mark.parametrize("chart", ["router", "router_gateway"])
def test_a_router_release_needs_the_pool_crd_and_the_llm_d_crds_its_epp_watches(chart):
    rendered = {chart: [POOL, OBJECTIVE]}
    assert [crd for _what, crd in admission.stack_crds(chart, rendered[chart])] == [
        "inferencepools.inference.networking.k8s.io", "inferenceobjectives.llm-d.ai",
        "inferencemodelrewrites.llm-d.ai"]
    assert admission.crd_problems(RECORD, rendered, ALL_CRDS) == []
    problems = admission.crd_problems(RECORD, rendered, {"inferencepools.inference.networking.k8s.io"})
    assert len(problems) == 2
    assert "renders InferenceObjective chat, but the cluster has no CRD inferenceobjectives.llm-d.ai" in problems[0]
    assert "watches inferencemodelrewrites" in problems[1] and "llm-d-router v0.10.0" in problems[1]
    problems = admission.crd_problems(RECORD, {chart: [POOL]}, set(ALL_CRDS) - {POOL_CRD})
    assert len(problems) == 1 and "InferencePool router-q" in problems[0] and "GAIE v1.5.0" in problems[0]
    assert problems[0].startswith(RECORD["name"] + ": %s release renders" % chart)


POOL_CRD = "inferencepools.inference.networking.k8s.io"


def test_the_seeds_pool_chart_needs_the_pool_crd_only():
    rendered = {"gaie": [dict(POOL, metadata={"name": "gaie-q"})], "modelservice": []}
    assert admission.crd_problems(RECORD, rendered, {POOL_CRD}) == []
    assert [crd for _w, crd in admission.stack_crds("gaie", rendered["gaie"])] == [POOL_CRD]
    assert "gaie release renders InferencePool gaie-q" in admission.crd_problems(RECORD, rendered, set())[0]
