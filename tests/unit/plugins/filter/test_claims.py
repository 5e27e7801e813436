# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The claims family (plugins/filter/claims.py), its filters imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.tests.support.plan_cases import embedder_record

from ansible_collections.ai_platform.serving.plugins.filter import claims
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security as ps
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker


@pytest.fixture
def record(tmp_path):
    return embedder_record(tmp_path)


def test_filter_map():
    assert sorted(claims.FilterModule().filters()) == ["claim_fate", "claim_pull_record", "claim_users",
                                                       "model_claim_reset", "model_clear_job", "rollback_target"]


def test_claim_pull_record_and_reset_check_their_input():
    claim = {"metadata": {"labels": {"ai-platform.serving/slug": "m"},
                          "annotations": {"ai-platform.serving/model-type": "bert"}}}
    assert claims.claim_pull_record(claim) == {"slug": "m", "model_type": "bert"}
    with pytest.raises(AnsibleFilterError, match="claim_pull_record: expects a claim object"):
        claims.claim_pull_record("m-model")
    with pytest.raises(AnsibleFilterError, match="model_claim_reset: .*not harbor"):
        claims.model_claim_reset({"slug": "m", "storage": {"mode": "claim"}})
    with pytest.raises(AnsibleFilterError, match="model_claim_reset: expects a plan record"):
        claims.model_claim_reset({"slug": "m", "storage": {"mode": "harbor"}})


def test_claim_fate():
    claim = {"metadata": {"name": "m-model", "namespace": "llm-d-m"}, "spec": {"volumeName": "pvc-1"}}
    volume = {"spec": {"persistentVolumeReclaimPolicy": "Retain", "storageClassName": "local-path",
                       "capacity": {"storage": "1Gi"}}}
    fate = claims.claim_fate(claim, volume)
    assert fate["policy"] == "Retain" and fate["pv"] == "pvc-1" and "by hand" in fate["message"]
    assert claims.claim_fate(None)["message"].startswith("no claim")
    with pytest.raises(AnsibleFilterError, match="volume must be an object"):
        claims.claim_fate(claim, "pvc-1")


def test_claim_pull_record_gives_each_kept_revision_as_a_line_of_the_cache_listing():
    revisions = [{"digest": "sha256:ab", "tag": "h/p/m:v2", "commit": "0123456789abcdef",
                  "pulled_at": "2026-12-03T10:00:00Z"}, {"digest": "sha256:cd"}]
    claim = {"metadata": {"annotations": pull_marker.pvc_annotations({"revisions": revisions})}}
    assert claims.claim_pull_record(claim)["revision_lines"] == [
        "sha256:ab (h/p/m:v2, commit 0123456789ab, pulled 2026-12-03T10:00:00Z)",
        "sha256:cd (no tag recorded, commit ?, pulled ?)"]
    assert "revision_lines" not in claims.claim_pull_record({"metadata": {}})


def test_rollback_target_names_the_revision_or_why_none():
    digest = "sha256:" + "b" * 64
    assert claims.rollback_target({"metadata": {}}, digest) == {"revision": {"digest": digest, "kept": False},
                                                                "note": None}
    none = claims.rollback_target({"metadata": {"annotations": {}}})
    assert none["revision"] is None and "nothing to roll back to" in none["note"]
    with pytest.raises(AnsibleFilterError, match="rollback_target: expects a claim object"):
        claims.rollback_target("m-model")


def test_claim_users_checks_its_input():
    pods = [{"metadata": {"name": "decode-1", "namespace": "ns", "labels": {}}, "status": {"phase": "Running"},
             "spec": {"volumes": [{"name": "m", "persistentVolumeClaim": {"claimName": "e-model"}}]}},
            {"metadata": {"name": "pull", "namespace": "ns", "labels": {"job-name": "e-model-pull"}},
             "status": {"phase": "Running"},
             "spec": {"volumes": [{"name": "m", "persistentVolumeClaim": {"claimName": "e-model"}}]}}]
    assert claims.claim_users(pods, "e-model", ["e-model-pull"]) == ["ns/decode-1"]
    assert claims.claim_users(pods, "e-model") == ["ns/decode-1", "ns/pull"]
    with pytest.raises(AnsibleFilterError, match="claim_users: expects a list of pods or workloads, got dict"):
        claims.claim_users({}, "e-model")


def test_clear_job_passes_restricted_and_keeps_placement(record):
    job = claims.model_clear_job(record)
    assert job["metadata"]["name"] == "e-model-clear" and job["metadata"]["namespace"] == "llm-d-e"
    pod = job["spec"]["template"]["spec"]
    assert ps.restricted_problems(pod) == []
    assert pod["affinity"] == record["storage"]["job_affinity"]
    assert pod["tolerations"] == record["tolerations"]
    assert pod["volumes"] == [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "e-model"}}]
    assert job["spec"]["activeDeadlineSeconds"] == 600
    assert pod["containers"][0]["resources"]["limits"]["ephemeral-storage"]


def test_clear_job_options_and_errors(record):
    job = claims.model_clear_job(record, uid="1000", active_deadline_seconds="60")
    assert job["spec"]["activeDeadlineSeconds"] == 60
    assert job["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == 1000
    with pytest.raises(AnsibleFilterError, match="model_clear_job: "):
        claims.model_clear_job(record, uid=0)
    with pytest.raises(AnsibleFilterError, match="model_clear_job: "):
        claims.model_clear_job(record, uid="many")
