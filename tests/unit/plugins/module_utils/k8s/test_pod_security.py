"""Pod Security: the pull Job and the clear Job pass "restricted"; resource limits (the namespace labels and the
clear Job's filter: tests/unit/plugins/filter/test_pod_security.py, test_claims.py)."""

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import embedder_record

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests, pull_script
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import namespaces
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security as ps

DIGEST = "sha256:" + "a" * 64


@pytest.fixture
def record(tmp_path):
    return embedder_record(tmp_path)


def test_pull_job_passes_restricted(record):
    job = manifests.job_manifest(record, DIGEST, expected_size=10)
    pod = job["spec"]["template"]["spec"]
    assert ps.restricted_problems(pod) == []
    assert pod["securityContext"]["runAsUser"] == 65532 and pod["securityContext"]["fsGroup"] == 65532
    container = pod["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    limits = container["resources"]["limits"]
    assert limits["cpu"] and limits["ephemeral-storage"] and limits["memory"]
    assert job["spec"]["activeDeadlineSeconds"] == manifests.DEFAULT_DEADLINE_SECONDS
    env = dict((e["name"], e["value"]) for e in container["env"])
    assert env["DOCKER_CONFIG"] == "/etc/aips/registry" and env["HOME"] == "/tmp" and env["TMPDIR"] == "/tmp"
    assert env["AIPS_REGISTRY_CONFIG"] == "/etc/aips/registry/config.json"
    mounts = dict((m["mountPath"], m["name"]) for m in container["volumeMounts"])
    assert mounts["/tmp"] == "scratch" and not any(path.startswith("/root") for path in mounts)
    volumes = dict((v["name"], v) for v in pod["volumes"])
    assert volumes["scratch"] == {"name": "scratch", "emptyDir": {"sizeLimit": "64Mi"}}


def test_pull_job_uid_and_deadline_are_options(record):
    job = manifests.job_manifest(record, DIGEST, uid=1000, active_deadline_seconds=60)
    assert job["spec"]["activeDeadlineSeconds"] == 60
    ctx = job["spec"]["template"]["spec"]["securityContext"]
    assert (ctx["runAsUser"], ctx["runAsGroup"], ctx["fsGroup"]) == (1000, 1000, 1000)
    with pytest.raises(ValueError, match="root is refused"):
        manifests.job_manifest(record, DIGEST, uid=0)


def test_the_script_reads_the_registry_config_off_root():
    assert "--registry-config \"$AIPS_REGISTRY_CONFIG\"" in pull_script.PULL_SCRIPT
    assert "/root" not in pull_script.PULL_SCRIPT


@pytest.mark.parametrize("change, expected", [
    (lambda p: p.update(hostNetwork=True), "hostNetwork is true"),
    (lambda p: p["volumes"].append({"name": "h", "hostPath": {"path": "/"}}), "volume h is of type hostPath"),
    (lambda p: p["securityContext"].pop("runAsNonRoot") and p["containers"][0]["securityContext"].pop(
        "runAsNonRoot"), "does not set runAsNonRoot"),
    (lambda p: p["securityContext"].pop("seccompProfile") and p["containers"][0]["securityContext"].pop(
        "seccompProfile"), "seccomp"),
    (lambda p: p["containers"][0]["securityContext"].update(allowPrivilegeEscalation=True),
     "allowPrivilegeEscalation"),
    (lambda p: p["containers"][0]["securityContext"].update(capabilities={"drop": ["NET_RAW"]}), "drop ALL"),
    (lambda p: p["containers"][0]["securityContext"].update(capabilities={"drop": ["ALL"], "add": ["SYS_ADMIN"]}),
     "adds capabilities"),
    (lambda p: p["containers"][0]["securityContext"].update(privileged=True), "is privileged"),
    (lambda p: p["securityContext"].update(runAsUser=0), "uid 0"),
])
def test_restricted_problems_sees_each_rule(record, change, expected):
    pod = manifests.clear_job_manifest(record)["spec"]["template"]["spec"]
    change(pod)
    assert any(expected in problem for problem in ps.restricted_problems(pod)), ps.restricted_problems(pod)


def test_limits_are_added_and_never_below_the_request():
    merged = ps.with_limits({"requests": {"cpu": "4", "memory": "2Gi"}}, manifests.DEFAULT_RESOURCES)
    assert merged["limits"]["cpu"] == "4" and merged["limits"]["memory"] == "2Gi"
    assert merged["limits"]["ephemeral-storage"] == "256Mi" and merged["requests"]["ephemeral-storage"] == "16Mi"
    given = ps.with_limits({"limits": {"cpu": "1"}}, manifests.DEFAULT_RESOURCES)
    assert given["limits"]["cpu"] == "1"


def test_claim_users_ignores_finished_pods_and_the_collections_jobs():
    def pod(name, phase, claim, job=None):
        labels = {"job-name": job} if job else {}
        return {"metadata": {"name": name, "namespace": "ns", "labels": labels}, "status": {"phase": phase},
                "spec": {"volumes": [{"name": "m", "persistentVolumeClaim": {"claimName": claim}}]}}
    pods = [pod("decode-1", "Running", "e-model"), pod("old", "Succeeded", "e-model"),
            pod("other", "Running", "x-model"), pod("pull", "Running", "e-model", job="e-model-pull")]
    assert claims.claim_users(pods, "e-model", skip_jobs=("e-model-pull",)) == ["ns/decode-1"]


def test_namespace_definitions_one_per_namespace_with_labels():
    records = [{"namespace": "llm-d-a"}, {"namespace": "shared"}, {"namespace": "shared"}]
    defs = namespaces.definitions(records, ps.namespace_labels({"enforce": "baseline"}))
    assert [d["metadata"]["name"] for d in defs] == ["llm-d-a", "shared"]
    assert defs[0] == {"apiVersion": "v1", "kind": "Namespace", "metadata": {
        "name": "llm-d-a", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}}}
    assert namespaces.definitions([], {}) == []
    with pytest.raises(KeyError):
        namespaces.definitions([{"slug": "a"}], {})
