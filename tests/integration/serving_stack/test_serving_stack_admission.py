# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 26 on the lab: a values file asking for SYS_NICE is refused before any change, naming both knobs, and with
the fix the refusal names applied its pods are admitted by the real PodSecurity admission and become Ready.

The generative model (the lab's inference-sim STAND-IN behind the real llm-d charts, from the lab registry's OCI
copies) gets `decode.containers[0].securityContext.capabilities.add: [SYS_NICE]`. The model namespaces enforce
the default Pod Security level (baseline), which refuses SYS_NICE, and the values policy refuses added
capabilities: first run, refused by the plan's values policy naming aips_values_policy_allow and aips_pod_security, no
namespace made; with only the allow-list entry, refused by the render before deploy (helm template of the real
chart, the rendered pod against baseline), still no namespace; with both fixes as the message names them, the
namespace enforces privileged, the API server admits the pods (no FailedCreate), they carry SYS_NICE and are Ready.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.tests.support.playbook import flat

KEY = "decode.containers[0].securityContext.capabilities.add"
ENTRY = re.compile(r"\{model: ([^,]+), rule: ([^,]+), key: ([^,]+), reason: <why>\}")
LEVELS = re.compile(r"set aips_pod_security to \{([^}]*)\}")


def sys_nice(values):
    container = values["decode"]["containers"][0]
    container.setdefault("securityContext", {}).setdefault("capabilities", {})["add"] = ["SYS_NICE"]


def generative_only(stack):
    return {"generative": [{"name": stack.names["generative"], "enabled": True,
                            "nodeSelector": {"kubernetes.io/hostname": stack.lab["AIPS_LAB_NODE"]}}], "embedder": []}


def named_fix(text):
    entry, levels = ENTRY.search(text), LEVELS.search(text)
    assert entry and levels, text[-4000:]
    model, rule, key = entry.groups()
    return ([{"model": model, "rule": rule, "key": key, "reason": "lab test of issue 26"}],
            dict(part.strip().split(": ", 1) for part in levels.group(1).split(",")))


def test_sys_nice_is_refused_naming_both_knobs_and_after_the_fix_its_pods_are_admitted_and_ready(stack_factory):
    stack = stack_factory()
    stack.placed = True
    stack.edit_values("generative", "ms", sys_nice)
    namespace = stack.namespace("generative")
    models = generative_only(stack)

    refused = stack.site("--tags", "serving", aips_models=models)
    assert refused.rc != 0, str(refused)
    text = flat(refused.output).replace('\\"', '"')
    assert ("Gen-%s: %s: %s = ['SYS_NICE'] is refused by the values policy (added-capabilities: "
            % (stack.suffix, stack.values_file("generative", "ms"), KEY)) in text, str(refused)
    assert "and by Pod Security baseline, the level the model namespaces enforce (aips_pod_security)" in text
    assert "aips_values_policy_allow with {model: %s, rule: added-capabilities, key: %s, reason: <why>}" % (
        stack.slug("generative"), KEY) in text
    assert "set aips_pod_security to {enforce: privileged, audit: restricted, warn: restricted}" in text
    assert stack.kube.get("namespace", namespace) is None, "nothing may be created"
    allow, pod_security = named_fix(text)

    # the allow-list entry alone: the render before deploy refuses the real chart's pod, before any change
    half = stack.site("--tags", "serving", aips_models=models, serving_stack_values_policy_allow=allow)
    assert half.rc != 0, str(half)
    half_text = flat(half.output).replace('\\"', '"')
    assert "Gen-%s: modelservice release renders Deployment" % stack.suffix in half_text, str(half)
    assert "which Pod Security baseline (enforced on namespace %s) refuses" % namespace in half_text
    assert "set aips_pod_security to {enforce: privileged" in half_text
    assert stack.kube.get("namespace", namespace) is None, "nothing may be created"

    # both fixes as named: admitted for real and Ready (helm --wait returned, and the pods say so)
    fixed = stack.site("--tags", "serving", aips_models=models, serving_stack_values_policy_allow=allow,
                       aips_pod_security=pod_security)
    assert fixed.rc == 0, str(fixed)
    labels = stack.kube.get("namespace", namespace)["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "privileged", labels
    pods = stack.kube.pods(namespace, "llm-d.ai/role=decode")
    assert pods, stack.kube.run("get", "all", "-n", namespace, check=False).stdout
    for found in pods:
        vllm = [c for c in found["spec"]["containers"] if c["name"] == "vllm"][0]
        assert vllm["securityContext"]["capabilities"]["add"] == ["SYS_NICE"], vllm
        ready = [c for c in found["status"].get("conditions") or [] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True", found["status"]
    for replica_set in stack.kube.list("replicasets", namespace, "llm-d.ai/role=decode"):
        refusals = [e for e in stack.kube.events(namespace, "ReplicaSet", replica_set["metadata"]["name"])
                    if e.get("reason") == "FailedCreate"]
        assert not refusals, refusals
