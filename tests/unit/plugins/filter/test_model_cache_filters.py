# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model cache filters, imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import model_cache


def test_filter_map():
    assert sorted(model_cache.FilterModule().filters()) == ["claim_fate", "claim_pull_record", "human_bytes", "model_claim_reset",
                                                            "revision_line", "rollback_target"]


def test_claim_pull_record_and_reset_check_their_input():
    claim = {"metadata": {"labels": {"ai-platform.serving/slug": "m"},
                          "annotations": {"ai-platform.serving/model-type": "bert"}}}
    assert model_cache.claim_pull_record(claim) == {"slug": "m", "model_type": "bert"}
    with pytest.raises(AnsibleFilterError, match="claim_pull_record: expects a claim object"):
        model_cache.claim_pull_record("m-model")
    with pytest.raises(AnsibleFilterError, match="model_claim_reset: .*not harbor"):
        model_cache.model_claim_reset({"slug": "m", "storage": {"mode": "claim"}})
    with pytest.raises(AnsibleFilterError, match="model_claim_reset: expects a plan record"):
        model_cache.model_claim_reset({"slug": "m", "storage": {"mode": "harbor"}})


def test_claim_fate():
    claim = {"metadata": {"name": "m-model", "namespace": "llm-d-m"}, "spec": {"volumeName": "pvc-1"}}
    volume = {"spec": {"persistentVolumeReclaimPolicy": "Retain", "storageClassName": "local-path",
                       "capacity": {"storage": "1Gi"}}}
    fate = model_cache.claim_fate(claim, volume)
    assert fate["policy"] == "Retain" and fate["pv"] == "pvc-1" and "by hand" in fate["message"]
    assert model_cache.claim_fate(None)["message"].startswith("no claim")
    with pytest.raises(AnsibleFilterError, match="volume must be an object"):
        model_cache.claim_fate(claim, "pvc-1")


def test_human_bytes():
    assert model_cache.human_bytes(92274688) == "88.0 MiB"
    assert model_cache.human_bytes("2048") == "2.0 KiB"
    with pytest.raises(AnsibleFilterError, match="number of bytes"):
        model_cache.human_bytes("lots")


def test_revision_line_names_digest_tag_commit_and_time():
    line = model_cache.revision_line({"digest": "sha256:ab", "tag": "h/p/m:v2", "commit": "0123456789abcdef",
                                      "pulled_at": "2026-12-03T10:00:00Z"})
    assert line == "sha256:ab (h/p/m:v2, commit 0123456789ab, pulled 2026-12-03T10:00:00Z)"
    assert model_cache.revision_line({"digest": "sha256:ab"}) == "sha256:ab (no tag recorded, commit ?, pulled ?)"
    with pytest.raises(AnsibleFilterError, match="revision_line: expects"):
        model_cache.revision_line("sha256:ab")
