# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PVC/PV/Job builders from plan records (fixtures/pull_job/records.yml), marker parsing, preflight, claims."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_job

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "pull_job")
DIGEST = "sha256:" + "a" * 64


@pytest.fixture
def records():
    with open(os.path.join(FIXTURES, "records.yml")) as handle:
        return yaml.safe_load(handle)


def test_on_prem_pv_is_static_hostpath_pinned_to_node(records):
    pv = pull_job.pv_manifest(records["on_prem"])
    assert pv["metadata"]["name"] == "all-minilm-l6-v2-rke2-model-pv"
    spec = pv["spec"]
    assert spec["hostPath"] == {"path": "/var/lib/hostpath/models/all-minilm-l6-v2-rke2", "type": "Directory"}
    assert spec["accessModes"] == ["ReadWriteOnce"] and spec["capacity"] == {"storage": "5Gi"}
    assert spec["claimRef"]["name"] == "all-minilm-l6-v2-rke2-model"
    assert spec["claimRef"]["namespace"] == "llm-d-all-minilm-l6-v2-rke2"
    expr = spec["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]
    assert expr == {"key": "kubernetes.io/hostname", "operator": "In", "values": ["cpu-node-1"]}
    assert spec["persistentVolumeReclaimPolicy"] == "Retain"


def test_cloud_has_no_pv_and_claim_uses_storage_class(records):
    assert pull_job.pv_manifest(records["cloud"]) is None
    pvc = pull_job.pvc_manifest(records["cloud"])
    assert pvc["spec"]["storageClassName"] == "hyperdisk-balanced"
    assert "volumeName" not in pvc["spec"]
    del records["cloud"]["storage"]["storage_class"]
    assert "storageClassName" not in pull_job.pvc_manifest(records["cloud"])["spec"]


def test_on_prem_claim_binds_to_its_pv(records):
    pvc = pull_job.pvc_manifest(records["on_prem"])
    assert pvc["metadata"] == {"name": "all-minilm-l6-v2-rke2-model", "namespace": "llm-d-all-minilm-l6-v2-rke2",
                               "labels": pull_job.labels(records["on_prem"])}
    assert pvc["spec"]["volumeName"] == "all-minilm-l6-v2-rke2-model-pv"
    assert pvc["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert pvc["spec"]["resources"]["requests"]["storage"] == "5Gi"
    assert pvc["spec"]["storageClassName"] == ""


def test_job_matches_the_seed(records):
    job = pull_job.job_manifest(records["on_prem"], DIGEST, expected_size=123)
    spec = job["spec"]
    assert job["metadata"]["name"] == "all-minilm-l6-v2-rke2-model-pull"
    assert spec["backoffLimit"] == 3 and spec["ttlSecondsAfterFinished"] == 86400
    pod = spec["template"]["spec"]
    assert pod["restartPolicy"] == "Never" and pod["automountServiceAccountToken"] is False
    container = pod["containers"][0]
    assert container["workingDir"] == "/model-cache/hub"
    assert container["image"] == "harbor.harbor.svc.cluster.local/images-infra/oras-project/oras:v1.3.1"
    assert container["resources"]["requests"]
    mounts = dict((m["name"], m) for m in container["volumeMounts"])
    assert mounts["model-cache"]["mountPath"] == "/model-cache"
    # off /root: the pod runs as a non-root uid (issue 13)
    assert mounts["docker-config"] == {"name": "docker-config", "mountPath": "/etc/aips/registry", "readOnly": True}
    volumes = dict((v["name"], v) for v in pod["volumes"])
    assert volumes["docker-config"]["secret"] == {
        "secretName": "harbor-creds", "items": [{"key": ".dockerconfigjson", "path": "config.json"}]}
    assert volumes["model-cache"]["persistentVolumeClaim"]["claimName"] == "all-minilm-l6-v2-rke2-model"
    assert pod["imagePullSecrets"] == [{"name": "harbor-creds"}]
    assert pod["tolerations"] == records["on_prem"]["tolerations"]
    # pinned to the hostPath node, not to the model's nodes
    assert pod["affinity"] == records["on_prem"]["storage"]["job_affinity"]
    env = dict((e["name"], e["value"]) for e in container["env"])
    assert env["AIPS_PINNED_REFERENCE"] == "harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2@" + DIGEST
    assert env["AIPS_DIGEST"] == DIGEST and env["AIPS_MARKER"] == "/model-cache/.pulled"
    assert env["AIPS_EXPECTED_SIZE"] == "123"
    rule = spec["podFailurePolicy"]["rules"][0]
    assert rule["action"] == "FailJob" and rule["onExitCodes"]["values"] == [42]
    assert job["metadata"]["annotations"][pull_job.ANNOTATION_DIGEST] == DIGEST


def test_cloud_job_without_token_mounts_no_secret_and_follows_model_nodes(records):
    job = pull_job.job_manifest(records["cloud"], DIGEST)
    pod = job["spec"]["template"]["spec"]
    assert "imagePullSecrets" not in pod and "tolerations" not in pod
    assert [v["name"] for v in pod["volumes"]] == ["model-cache", "scratch"]
    assert pod["affinity"] == records["cloud"]["affinity"]
    assert pod["containers"][0]["image"] == "ghcr.io/oras-project/oras:v1.3.1"
    assert "affinity" not in pull_job.job_manifest(records["cloud"], DIGEST, follow_model_affinity=False)[
        "spec"]["template"]["spec"]


def test_job_needs_a_digest(records):
    with pytest.raises(pull_job.StorageError, match="manifest digest"):
        pull_job.job_manifest(records["on_prem"], None)
    with pytest.raises(pull_job.StorageError, match="not harbor"):
        pull_job.job_manifest(records["claim"], DIGEST)


def test_spec_hash_tracks_the_spec(records):
    one = pull_job.job_manifest(records["on_prem"], DIGEST)
    same = pull_job.job_manifest(copy.deepcopy(records["on_prem"]), DIGEST)
    other = pull_job.job_manifest(records["on_prem"], "sha256:" + "b" * 64)
    key = pull_job.ANNOTATION_SPEC_HASH
    assert one["metadata"]["annotations"][key] == same["metadata"]["annotations"][key]
    assert one["metadata"]["annotations"][key] != other["metadata"]["annotations"][key]


def test_job_action(records):
    wanted = pull_job.job_manifest(records["on_prem"], DIGEST)
    assert pull_job.job_action(None, wanted)[0] == "create"
    live = copy.deepcopy(wanted)
    live["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    assert pull_job.job_action(live, wanted)[0] == "keep"
    live["status"] = {"conditions": [{"type": "Failed", "status": "True"}]}
    assert pull_job.job_action(live, wanted)[0] == "replace"
    assert pull_job.job_action(live, wanted, replace_failed=False)[0] == "keep"
    moved = pull_job.job_manifest(records["on_prem"], "sha256:" + "b" * 64)
    action, why = pull_job.job_action(wanted, moved)
    assert action == "replace" and "immutable" in why


def test_parse_marker_and_annotations():
    text = ("digest=%s\nreference=h/r@%s\nsize=12\nfiles=3\npulled_at=2026-12-02T11:00:00Z\n"
            "architectures=BertModel,Other\nmodel_type=bert\ntorch_dtype=\ntransformers_version=4.8.2\n"
            "garbage line\n" % (DIGEST, DIGEST))
    marker = pull_job.parse_marker(text)
    assert marker["size"] == 12 and marker["files"] == 3
    assert marker["architectures"] == ["BertModel", "Other"]
    annotations = pull_job.pvc_annotations(marker)
    assert annotations["ai-platform.serving/digest"] == DIGEST
    assert annotations["ai-platform.serving/architectures"] == "BertModel,Other"
    assert annotations["ai-platform.serving/transformers-version"] == "4.8.2"
    assert "ai-platform.serving/torch-dtype" not in annotations
    back = pull_job.annotations_marker(annotations)
    assert back["digest"] == DIGEST and back["size"] == 12 and back["architectures"] == ["BertModel", "Other"]
    assert pull_job.model_metadata(marker) == {"architectures": ["BertModel", "Other"], "model_type": "bert",
                                               "torch_dtype": None, "transformers_version": "4.8.2"}
    assert pull_job.parse_marker("") == {}


def test_claim_pull_record_and_reset(records):
    claim = {"metadata": {"labels": pull_job.labels(records["on_prem"]),
                          "annotations": {"ai-platform.serving/digest": DIGEST, "ai-platform.serving/pulled-at": "t",
                                          "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}
    assert pull_job.claim_pull_record(claim) == {"slug": "all-minilm-l6-v2-rke2", "digest": DIGEST, "pulled_at": "t"}
    assert pull_job.claim_pull_record({}) == {}
    patch = pull_job.claim_reset_patch(records["on_prem"])
    assert (patch["kind"], patch["metadata"]["name"], patch["metadata"]["namespace"]) == (
        "PersistentVolumeClaim", "all-minilm-l6-v2-rke2-model", "llm-d-all-minilm-l6-v2-rke2")
    # every annotation pvc_annotations writes, and nothing else
    marker = dict((key, "x") for key in pull_job.ANNOTATED_KEYS)
    assert patch["metadata"]["annotations"] == dict((key, None) for key in pull_job.pvc_annotations(marker))
    assert len(patch["metadata"]["annotations"]) == 13


def test_clear_job_is_named_by_the_plan(records):
    job = pull_job.clear_job_manifest(records["on_prem"])
    assert job["metadata"]["name"] == "all-minilm-l6-v2-rke2-model-clear"
    assert job["metadata"]["labels"] == job["spec"]["template"]["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "ai_platform.serving", "app.kubernetes.io/component": "model-cache",
        "ai-platform.serving/slug": "all-minilm-l6-v2-rke2"}


@pytest.mark.parametrize("storage,artifact,headroom,fits", [
    (5 * 1024 ** 3, 91618941, 10, True),
    (100, 90, 10, True),       # 90 + 9 = 99
    (100, 91, 10, False),      # 91 + 10% rounded up = 101
    (1024 ** 3, 1024 ** 3, 10, False),
    (1024 ** 3, 1024 ** 3, 0, True),
])
def test_preflight_arithmetic(storage, artifact, headroom, fits):
    problem = pull_job.preflight_problem("m", "x", storage, artifact, headroom)
    assert (problem is None) == fits


def test_preflight_message_suggests_a_size():
    problem = pull_job.preflight_problem("m", "1Gi", 1024 ** 3, 2 * 1024 ** 3, 10)
    assert "storageSize 1Gi" in problem and "at least 3Gi" in problem and "nothing was created" in problem


def test_claim_problems(records):
    record = records["claim"]
    missing = pull_job.claim_problems(record, None)
    assert len(missing) == 1 and "llm-d-llama/model-storage does not exist" in missing[0]
    assert "never creates" in missing[0]
    bound_rwo = {"spec": {"accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Bound",
                                                                        "accessModes": ["ReadWriteOnce"]}}
    assert pull_job.claim_problems(record, bound_rwo, replicas=1) == []
    problems = pull_job.claim_problems(record, bound_rwo, replicas=2)
    assert len(problems) == 1 and "ReadWriteOnce" in problems[0] and "2 serving replicas" in problems[0]
    rox = {"spec": {"accessModes": ["ReadOnlyMany"]}, "status": {"phase": "Bound", "accessModes": ["ReadOnlyMany"]}}
    assert pull_job.claim_problems(record, rox, replicas=4) == []
    pending = {"spec": {"accessModes": ["ReadOnlyMany"]}, "status": {"phase": "Pending"}}
    assert "Pending, not Bound" in pull_job.claim_problems(record, pending)[0]


def test_conflicts(records):
    pvc = pull_job.pvc_manifest(records["on_prem"])
    live = copy.deepcopy(pvc)
    assert pull_job.pvc_conflicts(pvc, live) == []
    live["spec"]["storageClassName"] = "local-path"
    assert "storageClassName" in pull_job.pvc_conflicts(pvc, live)[0]
    pv = pull_job.pv_manifest(records["on_prem"])
    live_pv = copy.deepcopy(pv)
    assert pull_job.pv_conflicts(pv, live_pv) == []
    live_pv["spec"]["hostPath"]["path"] = "/elsewhere"
    assert "hostPath" in pull_job.pv_conflicts(pv, live_pv)[0]


def test_pull_script_is_valid_sh():
    proc = subprocess.run([shutil.which("sh"), "-n", "-c", pull_job.PULL_SCRIPT], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr


def test_pull_script_has_no_kubelet_variable_references():
    """Kubernetes expands $(NAME) in commands for env NAMEs, and $$ to $: neither may appear by accident."""
    import re
    names = re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", pull_job.PULL_SCRIPT)
    assert not [n for n in names if n.startswith("AIPS_")]
    assert "$$" not in pull_job.PULL_SCRIPT


V1, V2, V3 = ("sha256:" + c * 64 for c in "123")


def revisions_annotations(served, *digests):
    revisions = [{"digest": d, "commit": d[7:47], "pulled_at": "t%d" % i, "tag": "h/p/m:v%d" % i}
                 for i, d in enumerate(digests)]
    return pull_job.pvc_annotations({"digest": served, "revisions": revisions})


def test_revision_lines_of_the_termination_message_become_one_annotation_and_back():
    marker = pull_job.parse_marker("status=ok\ndigest=%s\nrevision=%s c2 t2 h/p/m:v2\nrevision=%s c1 t1 h/p/m:v1\n"
                                   % (V2, V2, V1))
    assert marker["revisions"] == [{"digest": V2, "commit": "c2", "pulled_at": "t2", "tag": "h/p/m:v2"},
                                   {"digest": V1, "commit": "c1", "pulled_at": "t1", "tag": "h/p/m:v1"}]
    annotations = pull_job.pvc_annotations(marker)
    assert pull_job.claim_revisions(annotations) == marker["revisions"]
    assert pull_job.annotations_marker(annotations)["revisions"] == marker["revisions"]
    assert pull_job.claim_pull_record({"metadata": {"annotations": annotations}})["revisions"] == marker["revisions"]
    assert pull_job.claim_revisions({pull_job.ANNOTATION_REVISIONS: "not json"}) == []


def test_the_served_revision_and_the_newest_kept_ones_stay():
    annotations = revisions_annotations(V3, V3, V2, V1)
    assert pull_job.revisions_to_keep(annotations, 1) == ([V3, V2], [V1])
    assert pull_job.revisions_to_keep(annotations, 0) == ([V3], [V2, V1])
    assert pull_job.revisions_to_keep(annotations, 5) == ([V3, V2, V1], [])
    # after a rollback the served one is not the newest pull: it is kept all the same
    assert pull_job.revisions_to_keep(revisions_annotations(V1, V3, V1, V2), 0) == ([V1], [V3, V2])


def test_rollback_goes_to_the_newest_revision_pulled_before_the_served_one_or_the_named_one():
    # revisions_annotations numbers pulled_at t0, t1, ... in the order given: V1 is the oldest pull here
    annotations = revisions_annotations(V3, V1, V2, V3)
    assert pull_job.rollback_target(annotations)[0]["digest"] == V2
    assert pull_job.rollback_target(annotations, V1) == (dict(pull_job.claim_revisions(annotations)[0], kept=True), None)
    assert pull_job.rollback_target(annotations, "sha256:" + "9" * 64) == ({"digest": "sha256:" + "9" * 64,
                                                                           "kept": False}, None)
    # rolled back to V2: a second rollback goes further back (V1), not forward to V3
    assert pull_job.rollback_target(revisions_annotations(V2, V1, V2, V3))[0]["digest"] == V1
    target, note = pull_job.rollback_target(revisions_annotations(V1, V1, V2, V3))
    assert target is None and "keeps no revision pulled before the served one" in note


def pod_on(node, claim, phase="Running", job=None):
    labels = {"job-name": job} if job else {}
    return {"metadata": {"namespace": "ns", "name": "p-" + node, "labels": labels},
            "spec": {"nodeName": node, "volumes": [{"persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": phase}}


def test_a_single_node_cloud_claim_in_use_pins_its_jobs_to_the_serving_pods_node(records):
    cloud = copy.deepcopy(records["cloud"])
    claim = cloud["storage"]["pvc"]
    pods = [pod_on("n2", claim), pod_on("n1", "other"), pod_on("n3", claim, job=cloud["storage"]["pull_job"])]
    assert pull_job.claim_holder_node(cloud, pods, [cloud["storage"]["pull_job"]]) == "n2"
    assert pull_job.claim_holder_node(cloud, [pod_on("n2", claim, phase="Succeeded")]) is None
    job = pull_job.job_manifest(cloud, DIGEST, holder_node="n2")
    plain = pull_job.job_manifest(cloud, DIGEST)
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]
    # where the serving pods run is not part of the Job's identity: a finished Job is not replaced for it
    assert job["metadata"]["annotations"] == plain["metadata"]["annotations"]
    prune = pull_job.prune_job_manifest(cloud, [V2], holder_node="n2")
    assert prune["metadata"]["name"] == cloud["storage"]["prune_job"]
    assert prune["spec"]["template"]["spec"]["affinity"] == job["spec"]["template"]["spec"]["affinity"]
    env = dict((e["name"], e["value"]) for e in prune["spec"]["template"]["spec"]["containers"][0]["env"])
    assert env["AIPS_KEEP"] == V2
    # RWX claims and hostPath claims (pinned by the plan) need no holder
    rwx = copy.deepcopy(cloud)
    rwx["storage"]["access_mode"] = "ReadWriteMany"
    assert pull_job.claim_holder_node(rwx, pods) is None
    assert pull_job.claim_holder_node(records["on_prem"], [pod_on("n2", records["on_prem"]["storage"]["pvc"])]) is None


def test_only_claims_that_keep_too_much_are_pruned_and_their_annotation_keeps_the_rest(records):
    from ansible_collections.ai_platform.serving.plugins.module_utils.storage import revisions as model_revisions
    record = records["on_prem"]
    full = {"metadata": {"namespace": record["namespace"], "name": record["storage"]["pvc"],
                         "annotations": revisions_annotations(V3, V3, V2, V1)}}
    found = model_revisions.plan_prunes([record, records["claim"]], [full], 1)
    assert [(r["slug"], kept, dropped) for r, _a, kept, dropped in found] == [(record["slug"], [V3, V2], [V1])]
    assert model_revisions.plan_prunes([record], [full], 2) == []
    patch = model_revisions.kept_revisions_patch(record, full["metadata"]["annotations"], [V3, V2])
    assert [r["digest"] for r in pull_job.claim_revisions(patch["metadata"]["annotations"])] == [V3, V2]


def test_a_kept_jobs_old_revision_list_does_not_undo_a_prune():
    reported = revisions_annotations(V2, V2, V1)
    reported[pull_job.naming.annotation_key("pulled_at")] = "t"
    pruned = dict(reported, **{pull_job.ANNOTATION_REVISIONS: revisions_annotations(V2, V2)[
        pull_job.ANNOTATION_REVISIONS]})
    assert pull_job.settled_annotations(reported, pruned) == pruned
    # a new pull (another digest or time) reports what the claim holds now
    older = dict(pruned, **{pull_job.naming.annotation_key("pulled_at"): "t0"})
    assert pull_job.settled_annotations(reported, older) == reported
    assert pull_job.settled_annotations(reported, {}) == reported
