# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The PV, claim, pull and clear Job manifests built from plan records (fixtures/records.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_marker
from ansible_collections.ai_platform.serving.tests.support.storage_records import DIGEST, load_records


@pytest.fixture
def records():
    return load_records()


def test_on_prem_pv_is_static_hostpath_pinned_to_node(records):
    pv = manifests.pv_manifest(records["on_prem"])
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
    assert manifests.pv_manifest(records["cloud"]) is None
    pvc = manifests.pvc_manifest(records["cloud"])
    assert pvc["spec"]["storageClassName"] == "hyperdisk-balanced"
    assert "volumeName" not in pvc["spec"]
    del records["cloud"]["storage"]["storage_class"]
    assert "storageClassName" not in manifests.pvc_manifest(records["cloud"])["spec"]


def test_on_prem_claim_binds_to_its_pv(records):
    pvc = manifests.pvc_manifest(records["on_prem"])
    assert pvc["metadata"] == {"name": "all-minilm-l6-v2-rke2-model", "namespace": "llm-d-all-minilm-l6-v2-rke2",
                               "labels": manifests.labels(records["on_prem"])}
    assert pvc["spec"]["volumeName"] == "all-minilm-l6-v2-rke2-model-pv"
    assert pvc["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert pvc["spec"]["resources"]["requests"]["storage"] == "5Gi"
    assert pvc["spec"]["storageClassName"] == ""


def test_job_matches_the_seed(records):
    job = manifests.job_manifest(records["on_prem"], DIGEST, expected_size=123)
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
    assert job["metadata"]["annotations"][pull_marker.ANNOTATION_DIGEST] == DIGEST


def test_cloud_job_without_token_mounts_no_secret_and_follows_model_nodes(records):
    job = manifests.job_manifest(records["cloud"], DIGEST)
    pod = job["spec"]["template"]["spec"]
    assert "imagePullSecrets" not in pod and "tolerations" not in pod
    assert [v["name"] for v in pod["volumes"]] == ["model-cache", "scratch"]
    assert pod["affinity"] == records["cloud"]["affinity"]
    assert pod["containers"][0]["image"] == "ghcr.io/oras-project/oras:v1.3.1"
    assert "affinity" not in manifests.job_manifest(records["cloud"], DIGEST, follow_model_affinity=False)[
        "spec"]["template"]["spec"]


def test_job_needs_a_digest(records):
    with pytest.raises(manifests.StorageError, match="manifest digest"):
        manifests.job_manifest(records["on_prem"], None)
    with pytest.raises(manifests.StorageError, match="not harbor"):
        manifests.job_manifest(records["claim"], DIGEST)


def test_job_keeps_oras_on_http1_unless_http2_is_allowed(records):
    def env(job):
        return dict((e["name"], e["value"]) for e in job["spec"]["template"]["spec"]["containers"][0]["env"])
    one_connection_per_blob = manifests.job_manifest(records["on_prem"], DIGEST)
    assert env(one_connection_per_blob)["GODEBUG"] == "http2client=0"
    multiplexed = manifests.job_manifest(records["on_prem"], DIGEST, http2=True)
    assert "GODEBUG" not in env(multiplexed)
    key = manifests.ANNOTATION_SPEC_HASH   # a changed setting replaces the Job (Jobs are immutable)
    assert one_connection_per_blob["metadata"]["annotations"][key] != multiplexed["metadata"]["annotations"][key]


def test_spec_hash_tracks_the_spec(records):
    one = manifests.job_manifest(records["on_prem"], DIGEST)
    same = manifests.job_manifest(copy.deepcopy(records["on_prem"]), DIGEST)
    other = manifests.job_manifest(records["on_prem"], "sha256:" + "b" * 64)
    key = manifests.ANNOTATION_SPEC_HASH
    assert one["metadata"]["annotations"][key] == same["metadata"]["annotations"][key]
    assert one["metadata"]["annotations"][key] != other["metadata"]["annotations"][key]


def test_job_action(records):
    wanted = manifests.job_manifest(records["on_prem"], DIGEST)
    assert manifests.job_action(None, wanted)[0] == "create"
    live = copy.deepcopy(wanted)
    live["status"] = {"conditions": [{"type": "Complete", "status": "True"}]}
    assert manifests.job_action(live, wanted)[0] == "keep"
    live["status"] = {"conditions": [{"type": "Failed", "status": "True"}]}
    assert manifests.job_action(live, wanted)[0] == "replace"
    assert manifests.job_action(live, wanted, replace_failed=False)[0] == "keep"
    moved = manifests.job_manifest(records["on_prem"], "sha256:" + "b" * 64)
    action, why = manifests.job_action(wanted, moved)
    assert action == "replace" and "immutable" in why


def test_clear_job_is_named_by_the_plan(records):
    job = manifests.clear_job_manifest(records["on_prem"])
    assert job["metadata"]["name"] == "all-minilm-l6-v2-rke2-model-clear"
    assert job["metadata"]["labels"] == job["spec"]["template"]["metadata"]["labels"] == {
        "app.kubernetes.io/managed-by": "ai_platform.serving", "app.kubernetes.io/component": "model-cache",
        "ai-platform.serving/slug": "all-minilm-l6-v2-rke2"}


def test_a_job_is_placed_on_the_claims_holder_without_a_second_build(records):
    record = records["on_prem"]
    job = manifests.job_manifest(record, DIGEST)
    placed = manifests.placed(job, "gpu-node-2")
    assert placed["spec"]["template"]["spec"]["affinity"] == manifests.holder_affinity("gpu-node-2")
    assert placed["metadata"] == job["metadata"]  # the spec hash is the unplaced one
    assert "gpu-node-2" not in repr(job)  # a copy
    assert manifests.placed(job, None) == job
    assert manifests.job_manifest(record, DIGEST, holder_node="gpu-node-2") == placed
