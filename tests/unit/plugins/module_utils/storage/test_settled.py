# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which models a run must pull at all (storage/settled.py), on the records of fixtures/records.yml and
the live objects of fixtures/settled/live.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import artifacts, manifests, pull_marker, settled

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
DIGEST = "sha256:" + "a" * 64
OTHER = "sha256:" + "b" * 64
OPTIONS = dict(concurrency=4, verify=False, resources=None, uid=65532, active_deadline_seconds=14400)


def _load(*path):
    with open(os.path.join(FIXTURES, *path)) as handle:
        return yaml.safe_load(handle)


def _merge(base, extra):
    merged = copy.deepcopy(base)
    for key, value in (extra or {}).items():
        merged[key] = _merge(merged.get(key) or {}, value) if isinstance(value, dict) else value
    return merged


@pytest.fixture
def live_fx():
    return _load("settled", "live.yml")


@pytest.fixture
def record():
    return _load("records.yml")["on_prem"]


def _live(record, live_fx, digest=DIGEST, job="job_complete", options=None):
    job_obj = manifests.job_manifest(record, digest, **(options or OPTIONS))
    return {
        "pvc": _merge(manifests.pvc_manifest(record), live_fx["claim"]),
        "pv": manifests.pv_manifest(record),
        "job": _merge(job_obj, live_fx[job]) if job else None,
    }


def _settle(record, live, digest=DIGEST, options=None):
    wanted = manifests.job_manifest(record, digest, **(options or OPTIONS))
    return settled.settle(record, digest, wanted, live)


def test_recorded_pull_with_its_complete_job_is_settled(record, live_fx):
    assert _settle(record, _live(record, live_fx)) == (True, settled.SETTLED)


def test_result_of_a_settled_model_comes_from_the_claim(record, live_fx):
    result = settled.settled_result(_live(record, live_fx)["pvc"])
    # the fixture's claim was annotated before model-files was: its files 14 counted refs/main
    assert result["digest"] == DIGEST and result["size"] == 91652410 and result["files"] == 13
    assert result["reused"] is True and result["pull_seconds"] == 0
    assert result["metadata"]["architectures"] == ["BertModel"] and result["metadata"]["model_type"] == "bert"
    assert result["marker"]["revisions"][0]["digest"] == DIGEST


def test_storage_result_of_a_settled_model_has_the_shape_of_a_pulled_one(record, live_fx):
    """The role publishes model_storage_results of settled models from this alone (one step for all models)."""
    pvc = _live(record, live_fx)["pvc"]
    held = settled.settled_result(pvc)
    entry = settled.storage_result(record, held, settled.SETTLED, settled.claim_annotations(pvc))
    assert sorted(entry) == sorted(["pvc", "namespace", "reference", "digest", "size", "files", "metadata",
                                    "pull_duration", "pull_seconds", "verify_seconds", "fetched_bytes",
                                    "fetched_files", "reused_files", "reused", "job", "claim_annotations"])
    # the claim's annotations as read, so that serving_stack need not read the claim again
    assert entry["claim_annotations"] == pvc["metadata"]["annotations"]
    assert entry["claim_annotations"] is not pvc["metadata"]["annotations"]
    assert (entry["fetched_bytes"], entry["fetched_files"], entry["reused_files"]) == (0, 0, 13)
    assert (entry["pvc"], entry["namespace"]) == (record["storage"]["pvc"], record["namespace"])
    assert entry["reference"] == record["storage"]["oci"]["reference"]
    assert (entry["digest"], entry["size"], entry["files"]) == (DIGEST, 91652410, 13)
    assert entry["metadata"]["model_type"] == "bert" and entry["reused"] is True and entry["pull_duration"] is None
    assert entry["job"] == {"pvc": "present", "pv": "present", "job": "kept", "job_reason": settled.SETTLED}
    cloud = _load("records.yml")["cloud"]
    assert "pv" not in settled.storage_result(cloud, held, "why")["job"]
    assert settled.storage_result(cloud, held, "why")["claim_annotations"] == {}


def test_missing_objects_need_the_pull_path(record, live_fx):
    live = _live(record, live_fx)
    for kind, why in (("pvc", "no claim"), ("pv", "no PersistentVolume"), ("job", "no pull Job exists")):
        broken = dict(live, **{kind: None})
        done, reason = _settle(record, broken)
        assert not done and reason.startswith(why), (kind, reason)


def test_a_moved_tag_needs_a_pull(record, live_fx):
    done, reason = _settle(record, _live(record, live_fx), digest=OTHER)
    assert not done and DIGEST in reason and OTHER in reason


def test_a_claim_without_record_needs_a_pull(record, live_fx):
    live = _live(record, live_fx)
    live["pvc"]["metadata"]["annotations"] = {}
    assert _settle(record, live) == (False, "the claim records no pull")


def test_a_claim_from_another_repository_needs_the_pull_path(record, live_fx):
    live = _live(record, live_fx)
    live["pvc"]["metadata"]["annotations"][pull_marker.ANNOTATION_REFERENCE] = "harbor.example/other/model@" + DIGEST
    done, reason = _settle(record, live)
    assert not done and "another artifact" in reason


def test_claim_or_pv_off_plan_goes_the_pull_path_which_names_the_difference(record, live_fx):
    live = _live(record, live_fx)
    live["pvc"]["spec"]["accessModes"] = ["ReadWriteMany"]
    assert _settle(record, live) == (False, "the claim differs from the plan")
    live = _live(record, live_fx)
    live["pv"]["spec"]["hostPath"]["path"] = "/elsewhere"
    assert _settle(record, live) == (False, "the PersistentVolume differs from the plan")


def test_a_changed_job_setting_replaces_the_job(record, live_fx):
    live = _live(record, live_fx)
    done, reason = _settle(record, live, options=dict(OPTIONS, concurrency=8))
    assert not done and "spec changed" in reason


@pytest.mark.parametrize("job,why", [("job_failed", "previous Job failed"), ("job_running", "not completed")])
def test_a_failed_or_running_job_is_not_settled(record, live_fx, job, why):
    done, reason = _settle(record, _live(record, live_fx, job=job))
    assert not done and why in reason


def test_cloud_record_has_no_pv_to_find_and_must_hold_the_pinned_digest(live_fx):
    cloud = _load("records.yml")["cloud"]
    pinned = cloud["storage"]["oci"]["digest"]
    live = _live(cloud, live_fx, digest=pinned)
    live["pvc"]["spec"].pop("volumeName")
    annotations = live["pvc"]["metadata"]["annotations"]
    annotations[pull_marker.ANNOTATION_DIGEST] = pinned
    annotations[pull_marker.ANNOTATION_REFERENCE] = manifests.pinned_reference(cloud, pinned)
    live["pv"] = None
    assert _settle(cloud, live, digest=pinned) == (True, settled.SETTLED)


def test_index_and_live_objects(record, live_fx):
    live = _live(record, live_fx)
    claims = settled.index_objects([live["pvc"], {"metadata": {"name": "other", "namespace": "x"}}])
    volumes = settled.index_objects([live["pv"], {"metadata": {}}])
    jobs = settled.index_objects([live["job"]])
    assert settled.live_objects(record, claims, volumes, jobs) == live
    assert settled.live_objects(record, {}, {}, {}) == {"pvc": None, "pv": None, "job": None}


def test_lock_entry(live_fx):
    reference = "harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:v1"
    entry = artifacts.lock_entry(live_fx["lock"], "models.lock.yml", reference)
    assert entry == {"digest": DIGEST, "size": 91652410, "file_count": 14, "source": "lock",
                     "repo_id": "sentence-transformers/all-MiniLM-L6-v2",
                     "revision": "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"}
    assert artifacts.lock_entry(live_fx["lock"], "models.lock.yml", reference, DIGEST) == entry
    assert artifacts.lock_entry(live_fx["lock"], "models.lock.yml", reference + "x") is None
    assert artifacts.lock_entry({}, "models.lock.yml", reference) is None
    with pytest.raises(artifacts.LockError, match="the reference pins " + OTHER):
        artifacts.lock_entry(live_fx["lock"], "models.lock.yml", reference, OTHER)


def test_the_resolver_takes_the_lock_entries_the_plan_read_and_reads_no_file(live_fx, tmp_path, monkeypatch):
    """model_storage_state with ``locked`` (aips_plan_artifacts.models): the lock file is not read again."""
    reference = sorted(live_fx["lock"]["models"])[0]

    def read_again(path):
        raise AssertionError("read " + path)
    monkeypatch.setattr(artifacts, "read_lock", read_again)
    absent = str(tmp_path / "models.lock.yml")  # not even there: nothing reads it
    resolver = artifacts.Resolver(lock_file=absent, require_lock=True, locked=live_fx["lock"]["models"])
    resolved = resolver.resolve(reference)
    assert dict((k, resolved[k]) for k in resolved if k != "pinned_reference") == artifacts.lock_entry(
        live_fx["lock"], absent, reference)
    with pytest.raises(artifacts.distribution.ArtifactError, match="is not pinned: the lock file %s" % absent):
        resolver.resolve(reference.rsplit(":", 1)[0] + ":not-locked")
    # without a lock file the entries are not used
    assert artifacts.Resolver(locked=live_fx["lock"]["models"]).lock == {}
