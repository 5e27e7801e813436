"""The values policy: every rule, the allow-list, and the repo's own models pass it."""

from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import schema as plan_schema
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values_policy as vp

REPO = Path(__file__).resolve().parents[5]
RECORD = {"name": "Qwen3-0.6B", "slug": "qwen3-0-6b", "model_artifacts_uri": None,
          "values_files": {"gaie": "models/generative/Qwen3-0.6B/gaie-qwen3-0-6b/values.yaml",
                           "ms": "models/generative/Qwen3-0.6B/ms-qwen3-0-6b/values.yaml"},
          "storage": {"mode": "none"}}
CLAIMED = dict(RECORD, model_artifacts_uri="pvc+hf://qwen3-0-6b-model/hub/Qwen/Qwen3-0.6B",
               storage={"mode": "harbor", "pvc": "qwen3-0-6b-model"})
MS = "models/generative/Qwen3-0.6B/ms-qwen3-0-6b/values.yaml"
GAIE = "models/generative/Qwen3-0.6B/gaie-qwen3-0-6b/values.yaml"


def container(**security):
    return {"decode": {"containers": [{"name": "vllm", "securityContext": security}]}}


# (id, chart, values, rule, key)
CASES = [
    ("privileged", "ms", container(privileged=True), "privileged", "decode.containers[0].securityContext.privileged"),
    ("escalation", "ms", container(allowPrivilegeEscalation=True), "privilege-escalation",
     "decode.containers[0].securityContext.allowPrivilegeEscalation"),
    ("host-network", "ms", {"decode": {"extraConfig": {"hostNetwork": True}}}, "host-namespaces",
     "decode.extraConfig.hostNetwork"),
    ("host-pid", "ms", {"prefill": {"extraConfig": {"hostPID": True}}}, "host-namespaces", "prefill.extraConfig.hostPID"),
    ("host-ipc", "gaie", {"inferenceExtension": {"hostIPC": True}}, "host-namespaces", "inferenceExtension.hostIPC"),
    ("host-port", "ms", {"decode": {"containers": [{"name": "vllm", "ports": [{"containerPort": 8200,
                                                                              "hostPort": 8200}]}]}},
     "host-ports", "decode.containers[0].ports[0].hostPort"),
    ("host-path", "ms", {"decode": {"volumes": [{"name": "dev", "hostPath": {"path": "/dev"}}]}}, "host-path",
     "decode.volumes[0].hostPath"),
    ("host-path-gaie", "gaie", {"inferenceExtension": {"volumes": [{"name": "x", "hostPath": {"path": "/"}}]}},
     "host-path", "inferenceExtension.volumes[0].hostPath"),
    ("capabilities", "ms", container(capabilities={"add": ["SYS_ADMIN"]}), "added-capabilities",
     "decode.containers[0].securityContext.capabilities.add"),
    ("seccomp-unconfined", "ms", container(seccompProfile={"type": "Unconfined"}), "seccomp-unconfined",
     "decode.containers[0].securityContext.seccompProfile.type"),
    ("seccomp-unconfined-pod", "gaie", {"inferenceExtension": {"podSecurityContext": {"seccompProfile": {
        "type": "Unconfined"}}}}, "seccomp-unconfined", "inferenceExtension.podSecurityContext.seccompProfile.type"),
    ("read-only-false", "ms", {"modelArtifacts": {"uri": "hf://Qwen/Qwen3-0.6B", "readOnly": False}},
     "writable-model-mount", "modelArtifacts.readOnly"),
    # issue 27: what Helm renders with the deploy's credentials
    ("extra-objects", "ms", {"extraObjects": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]},
     "extra-objects", "extraObjects[0]"),
    ("cluster-admin-binding", "ms", {"extraObjects": [{
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding", "metadata": {"name": "own"},
        "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"}}]},
     "privileged-objects", "extraObjects[0]"),
    ("secret-object", "ms", {"extraObjects": [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}]},
     "privileged-objects", "extraObjects[0]"),
    ("object-template-of-a-role", "ms", {"extraObjects": ["apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n"]},
     "privileged-objects", "extraObjects[0]"),
    ("object-in-another-namespace", "ms", {"extraObjects": [{
        "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "kube-system"}}]},
     "privileged-objects", "extraObjects[0]"),
    ("helm-lookup", "ms", {"decode": {"extraConfig": {"annotations": {
        "a": "{{ (lookup \"v1\" \"Secret\" \"kube-system\" \"x\").data }}"}}}},
     "helm-lookup", "decode.extraConfig.annotations.a"),
    ("helm-lookup-in-a-list", "gaie", {"inferenceExtension": {"flags": ["{{- lookup \"v1\" \"Secret\" \"\" \"\" }}"]}},
     "helm-lookup", "inferenceExtension.flags[0]"),
    # a nested tpl renders a lookup built from pieces: no "lookup" in the text (audit gap 9)
    ("helm-lookup-built-by-tpl", "ms", {"decode": {"extraConfig": {"annotations": {
        "a": "{{ tpl (print \"{{ (look\" \"up \\\"v1\\\" \\\"Secret\\\" \\\"kube-system\\\" \\\"x\\\").data }}\") . }}"}}}},
     "helm-lookup", "decode.extraConfig.annotations.a"),
    ("helm-lookup-from-base64-by-tpl", "gaie", {"inferenceExtension": {"flags": [
        "{{- tpl (b64dec \"e3sgbG9va3VwICJ2MSIgIlNlY3JldCIgIiIgIiIgfX0=\") . }}"]}},
     "helm-lookup", "inferenceExtension.flags[0]"),
    ("toleration-without-key", "ms", {"decode": {"tolerations": [{"operator": "Exists"}]}},
     "tolerate-everything", "decode.tolerations[0]"),
    ("other-claim-volume", "ms", {"decode": {"volumes": [{"name": "o", "persistentVolumeClaim": {
        "claimName": "other-model-model", "readOnly": True}}]}}, "other-claims", "decode.volumes[0].persistentVolumeClaim.claimName"),
    ("other-claim-uri", "ms", {"modelArtifacts": {"uri": "pvc://shared/qwen"}}, "other-claims", "modelArtifacts.uri"),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_every_rule_names_model_file_key_and_fix(case):
    chart, values, rule, key = case[1:]
    files = {chart: values}
    problems = vp.policy_problems(RECORD, files)
    assert len(problems) == 1, problems
    message = problems[0]
    where = GAIE if chart == "gaie" else MS
    assert message.startswith("Qwen3-0.6B: %s: %s = " % (where, key)), message
    assert "(%s: " % rule in message and "Fix: remove it" in message
    assert "{model: qwen3-0-6b, rule: %s, key: %s, reason: <why>}" % (rule, key) in message


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_allow_list_excuses_exactly_the_named_key(case):
    chart, values, rule, key = case[1:]
    allow = [{"model": "qwen3-0-6b", "rule": rule, "key": key, "reason": "site exception"}]
    assert vp.policy_problems(RECORD, {chart: values}, {"values_policy_allow": allow}) == []
    other_key = [dict(allow[0], key=key + ".other")]
    assert len(vp.policy_problems(RECORD, {chart: values}, {"values_policy_allow": other_key})) == 1
    other_model = [dict(allow[0], model="another-model")]
    assert len(vp.policy_problems(RECORD, {chart: values}, {"values_policy_allow": other_model})) == 1
    every = [{"model": "*", "rule": rule, "reason": "lab"}]
    assert vp.policy_problems(RECORD, {chart: values}, {"values_policy_allow": every}) == []


def test_safe_values_pass():
    safe = {"decode": {"containers": [{"name": "vllm", "securityContext": {
        "privileged": False, "allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"], "add": []}},
        "ports": [{"containerPort": 8200, "hostPort": 0}]}],
        "extraConfig": {"hostNetwork": False}},
        "modelArtifacts": {"readOnly": True}}
    assert vp.policy_problems(RECORD, {"ms": safe, "gaie": {}}) == []


def test_site_infra_values_are_checked_too():
    problems = vp.policy_problems(RECORD, {}, {"infra_values": {"gateway": {"hostNetwork": True}}})
    assert problems and problems[0].startswith("Qwen3-0.6B: serving_stack_infra_values: gateway.hostNetwork = True")


def test_writable_claim_volume_of_the_model():
    values = {"decode": {"volumes": [{"name": "w", "persistentVolumeClaim": {"claimName": "qwen3-0-6b-model"}}]}}
    problems = vp.policy_problems(CLAIMED, {"ms": values})
    assert len(problems) == 1 and "writable-model-mount" in problems[0]
    values["decode"]["volumes"][0]["persistentVolumeClaim"]["readOnly"] = True
    assert vp.policy_problems(CLAIMED, {"ms": values}) == []


def test_claim_served_read_only_false_is_reported_once_by_stack_values():
    values = {"modelArtifacts": {"readOnly": False}}
    assert vp.policy_problems(CLAIMED, {"ms": values}) == []
    assert len(sv.modelservice_problems(CLAIMED, values)) == 1


@pytest.mark.parametrize("allow, expected", [
    ("nope", "must be a list"),
    (["x"], "is not a mapping"),
    ([{"model": "m", "rule": "root", "reason": "r"}], "rule 'root' is not a policy rule"),
    ([{"rule": "privileged", "reason": "r"}], "has no model"),
    ([{"model": "m", "rule": "privileged"}], "has no reason"),
    ([{"model": "m", "rule": "privileged", "reason": "r", "keys": "a"}], "unknown fields ['keys']"),
])
def test_a_bad_allow_list_is_a_problem_and_excuses_nothing(allow, expected):
    problems = vp.policy_problems(RECORD, {"ms": container(privileged=True)}, {"values_policy_allow": allow})
    assert any(expected in p for p in problems), problems
    assert any("refused by the values policy" in p for p in problems)


def test_rule_ids_are_documented_in_the_role():
    text = (REPO / "roles" / "serving_stack" / "meta" / "argument_specs.yml").read_text()
    for rule in vp.RULES:
        assert rule in text
    # and each is a choice of the allow-list's rule, in every entry point (the render's spec entry point checks it)
    for name, entry in yaml.safe_load(text)["argument_specs"].items():
        allow = entry["options"]["serving_stack_values_policy_allow"]["options"]["rule"]
        assert sorted(allow["choices"]) == sorted(vp.RULES), name


def test_the_repos_models_pass_the_policy():
    settings = {"cloud_provider": "on-prem", "kubeconfig": "/k", "harbor_hostname": "harbor.harbor.svc.cluster.local",
                "harbor_user": "robot$k8s-puller", "harbor_token": "t", "models_dir": str(REPO / "models")}
    checked = 0
    for category in ("generative", "embedder"):
        for folder in sorted((REPO / "models" / category).iterdir()):
            slugs = [p.name[len("ms-"):] for p in folder.iterdir() if p.name.startswith("ms-")]
            if not slugs:
                continue
            record = {"name": folder.name, "slug": slugs[0], "model_artifacts_uri": None, "storage": {}}
            files = dict((chart, yaml.safe_load((folder / ("%s-%s" % (chart, slugs[0])) / "values.yaml").read_text()))
                         for chart in ("gaie", "ms"))
            assert vp.policy_problems(record, files, settings) == [], folder
            checked += 1
    assert checked > 0
    assert plan_schema.CATEGORIES == ("generative", "embedder")


BASELINE = {"enforce": "baseline", "warn": "restricted", "audit": "restricted"}


@pytest.mark.parametrize("values,key,rule", [
    (container(capabilities={"add": ["SYS_NICE"]}), "decode.containers[0].securityContext.capabilities.add",
     "added-capabilities"),
    ({"decode": {"volumes": [{"name": "shm", "hostPath": {"path": "/dev/shm"}}]}}, "decode.volumes[0].hostPath",
     "host-path"),
    (container(seccompProfile={"type": "Unconfined"}), "decode.containers[0].securityContext.seccompProfile.type",
     "seccomp-unconfined"),
    (container(privileged=True), "decode.containers[0].securityContext.privileged", "privileged"),
    ({"decode": {"extraConfig": {"hostNetwork": True}}}, "decode.extraConfig.hostNetwork", "host-namespaces"),
], ids=["sys-nice", "host-path", "unconfined", "privileged", "host-network"])
def test_a_key_pod_security_refuses_too_names_both_knobs(values, key, rule):
    (message,) = vp.policy_problems(RECORD, {"ms": values}, {"pod_security": BASELINE})
    assert message.startswith("Qwen3-0.6B: %s: %s = " % (MS, key)), message
    assert "and by Pod Security baseline, the level the model namespaces enforce (aips_pod_security)" in message
    assert "allow it for this model in serving_stack_values_policy_allow with {model: qwen3-0-6b, rule: %s, key: %s, " \
           "reason: <why>}" % (rule, key) in message
    assert "set aips_pod_security to {enforce: privileged, audit: restricted, warn: restricted}" in message
    assert "either one alone does not deploy" in message


def test_with_both_fixes_applied_the_policy_passes():
    values = container(capabilities={"add": ["SYS_NICE"]})
    allow = [{"model": "qwen3-0-6b", "rule": "added-capabilities",
              "key": "decode.containers[0].securityContext.capabilities.add", "reason": "NUMA pinning"}]
    settings = {"pod_security": dict(BASELINE, enforce="privileged"), "values_policy_allow": allow}
    assert vp.policy_problems(RECORD, {"ms": values}, settings) == []


def test_a_key_the_enforced_level_admits_names_only_the_allow_list():
    # allowPrivilegeEscalation: baseline admits it; a capability in baseline's set too
    for values in (container(allowPrivilegeEscalation=True), container(capabilities={"add": ["CHOWN"]})):
        (message,) = vp.policy_problems(RECORD, {"ms": values}, {"pod_security": BASELINE})
        assert "aips_pod_security" not in message and vp.ALLOW_VARIABLE in message
    (message,) = vp.policy_problems(RECORD, {"ms": container(allowPrivilegeEscalation=True)},
                                    {"pod_security": {"enforce": "restricted"}})
    assert "set aips_pod_security to {enforce: baseline}" in message


@pytest.mark.parametrize("rule,value,level", [
    ("added-capabilities", ["SYS_NICE"], "privileged"), ("added-capabilities", ["CHOWN", "KILL"], "baseline"),
    ("added-capabilities", ["NET_BIND_SERVICE"], "restricted"), ("host-path", {"path": "/"}, "privileged"),
    ("privilege-escalation", True, "baseline"), ("writable-model-mount", False, "restricted"),
    ("seccomp-unconfined", "Unconfined", "privileged"),
])
def test_pod_security_fix_levels(rule, value, level):
    fix = vp.pod_security_fix(rule, value, {"enforce": "restricted"})
    if level == "restricted":
        assert fix is None
    else:
        assert fix[:2] == ("restricted", level)
    assert vp.pod_security_fix(rule, value, {"enforce": "privileged"}) is None
    assert vp.pod_security_fix(rule, value, None) is None


def test_refused_honours_the_allow_list():
    values = container(privileged=True)
    key = "decode.containers[0].securityContext.privileged"
    assert vp.refused(RECORD, "privileged", key, values, "modelservice", [])
    assert not vp.refused(RECORD, "privileged", key, values, "modelservice",
                          [{"model": "*", "rule": "privileged", "reason": "lab"}])
    assert not vp.refused(RECORD, "host-path", key, values, "modelservice", [])


@pytest.mark.parametrize("text, shown", [
    ('{{ (lookup "v1" "Secret" "" "").data }}', "<a template calling lookup>"),
    ('{{ tpl (print "{{ look" "up \\"v1\\" \\"Secret\\" \\"\\" \\"\\" }}") . }}', "<a template calling tpl>"),
    ('{{tpl .Values.x .}}', "<a template calling tpl>"),
])
def test_a_template_calling_lookup_or_tpl_is_shown_by_what_it_calls(text, shown):
    problems = vp.policy_problems(RECORD, {"ms": {"decode": {"extraConfig": {"annotations": {"a": text}}}}})
    assert len(problems) == 1 and "decode.extraConfig.annotations.a = '%s' is refused" % shown in problems[0], problems
    assert text not in problems[0] and "\"Secret\"" not in problems[0]  # the template is never echoed


@pytest.mark.parametrize("text", ["plain tpl and lookup words, no template", "{{ .Release.Name }}-templates",
                                  "{{ include \"x.labels\" . }}"])
def test_templates_without_lookup_or_tpl_pass(text):
    assert vp.policy_problems(RECORD, {"ms": {"decode": {"extraConfig": {"annotations": {"a": text}}}}}) == []
