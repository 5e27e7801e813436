# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pull marker, the claim annotations recording a pull, the revisions a claim keeps and the rollback target."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_marker
from ansible_collections.ai_platform.serving.tests.support.storage_records import DIGEST, V1, V2, V3, load_records, revisions_annotations


@pytest.fixture
def records():
    return load_records()


def test_parse_marker_and_annotations():
    text = ("digest=%s\nreference=h/r@%s\nsize=12\nfiles=3\npulled_at=2026-12-02T11:00:00Z\n"
            "architectures=BertModel,Other\nmodel_type=bert\ntorch_dtype=\ntransformers_version=4.8.2\n"
            "garbage line\n" % (DIGEST, DIGEST))
    marker = pull_marker.parse_marker(text)
    assert marker["size"] == 12 and marker["files"] == 3
    assert marker["architectures"] == ["BertModel", "Other"]
    annotations = pull_marker.pvc_annotations(marker)
    assert annotations["ai-platform.serving/digest"] == DIGEST
    assert annotations["ai-platform.serving/architectures"] == "BertModel,Other"
    assert annotations["ai-platform.serving/transformers-version"] == "4.8.2"
    assert "ai-platform.serving/torch-dtype" not in annotations
    # a marker written before model_files=: its files= counted refs/main, the claim shows the model's files
    assert annotations["ai-platform.serving/files"] == annotations["ai-platform.serving/model-files"] == "2"
    back = pull_marker.annotations_marker(annotations)
    assert back["digest"] == DIGEST and back["size"] == 12 and back["architectures"] == ["BertModel", "Other"]
    assert back["files"] == 2
    assert pull_marker.model_metadata(marker) == {"architectures": ["BertModel", "Other"], "model_type": "bert",
                                                  "torch_dtype": None, "transformers_version": "4.8.2"}
    assert pull_marker.parse_marker("") == {}


def test_claim_pull_record_and_reset(records):
    claim = {"metadata": {"labels": manifests.labels(records["on_prem"]),
                          "annotations": {"ai-platform.serving/digest": DIGEST, "ai-platform.serving/pulled-at": "t",
                                          "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}
    assert pull_marker.claim_pull_record(claim) == {"slug": "all-minilm-l6-v2-rke2", "digest": DIGEST, "pulled_at": "t"}
    assert pull_marker.claim_pull_record({}) == {}
    patch = manifests.claim_reset_patch(records["on_prem"])
    assert (patch["kind"], patch["metadata"]["name"], patch["metadata"]["namespace"]) == (
        "PersistentVolumeClaim", "all-minilm-l6-v2-rke2-model", "llm-d-all-minilm-l6-v2-rke2")
    # every annotation pvc_annotations writes, and nothing else
    marker = dict((key, "x") for key in pull_marker.ANNOTATED_KEYS)
    assert patch["metadata"]["annotations"] == dict((key, None) for key in pull_marker.pvc_annotations(marker))
    assert len(patch["metadata"]["annotations"]) == 17 and "ai-platform.serving/model-files" in patch["metadata"]["annotations"]
    assert "ai-platform.serving/fetched-bytes" in patch["metadata"]["annotations"]


def test_revision_lines_of_the_termination_message_become_one_annotation_and_back():
    marker = pull_marker.parse_marker("status=ok\ndigest=%s\nrevision=%s c2 t2 h/p/m:v2\nrevision=%s c1 t1 h/p/m:v1\n"
                                      % (V2, V2, V1))
    assert marker["revisions"] == [{"digest": V2, "commit": "c2", "pulled_at": "t2", "tag": "h/p/m:v2"},
                                   {"digest": V1, "commit": "c1", "pulled_at": "t1", "tag": "h/p/m:v1"}]
    annotations = pull_marker.pvc_annotations(marker)
    assert pull_marker.claim_revisions(annotations) == marker["revisions"]
    assert pull_marker.annotations_marker(annotations)["revisions"] == marker["revisions"]
    assert pull_marker.claim_pull_record({"metadata": {"annotations": annotations}})["revisions"] == marker["revisions"]
    assert pull_marker.claim_revisions({pull_marker.ANNOTATION_REVISIONS: "not json"}) == []


def test_the_served_revision_and_the_newest_kept_ones_stay():
    annotations = revisions_annotations(V3, V3, V2, V1)
    assert pull_marker.revisions_to_keep(annotations, 1) == ([V3, V2], [V1])
    assert pull_marker.revisions_to_keep(annotations, 0) == ([V3], [V2, V1])
    assert pull_marker.revisions_to_keep(annotations, 5) == ([V3, V2, V1], [])
    # after a rollback the served one is not the newest pull: it is kept all the same
    assert pull_marker.revisions_to_keep(revisions_annotations(V1, V3, V1, V2), 0) == ([V1], [V3, V2])


def test_rollback_goes_to_the_newest_revision_pulled_before_the_served_one_or_the_named_one():
    # revisions_annotations numbers pulled_at t0, t1, ... in the order given: V1 is the oldest pull here
    annotations = revisions_annotations(V3, V1, V2, V3)
    assert pull_marker.rollback_target(annotations)[0]["digest"] == V2
    assert pull_marker.rollback_target(annotations, V1) == (dict(pull_marker.claim_revisions(annotations)[0], kept=True), None)
    assert pull_marker.rollback_target(annotations, "sha256:" + "9" * 64) == ({"digest": "sha256:" + "9" * 64,
                                                                              "kept": False}, None)
    # rolled back to V2: a second rollback goes further back (V1), not forward to V3
    assert pull_marker.rollback_target(revisions_annotations(V2, V1, V2, V3))[0]["digest"] == V1
    target, note = pull_marker.rollback_target(revisions_annotations(V1, V1, V2, V3))
    assert target is None and "keeps no revision pulled before the served one" in note
    # the knobs a role reads (issue 26: it named model_storage_keep_revisions, which no role reads)
    assert "aips_keep_revisions" in note and "serving_stack_keep_revisions" in note
    assert "model_storage_keep_revisions" not in note


def test_a_kept_jobs_old_revision_list_does_not_undo_a_prune():
    reported = revisions_annotations(V2, V2, V1)
    reported[naming.annotation_key("pulled_at")] = "t"
    pruned = dict(reported, **{pull_marker.ANNOTATION_REVISIONS: revisions_annotations(V2, V2)[
        pull_marker.ANNOTATION_REVISIONS]})
    assert pull_marker.settled_annotations(reported, pruned) == pruned
    # a new pull (another digest or time) reports what the claim holds now
    older = dict(pruned, **{naming.annotation_key("pulled_at"): "t0"})
    assert pull_marker.settled_annotations(reported, older) == reported
    assert pull_marker.settled_annotations(reported, {}) == reported
