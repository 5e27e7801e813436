# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model cache filters, imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import model_cache


def test_filter_map():
    assert sorted(model_cache.FilterModule().filters()) == ["claim_fate", "human_bytes"]


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
