# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The names family (plugins/filter/names.py), its filters imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import names


def test_filter_map():
    assert sorted(names.FilterModule().filters()) == [
        "label_selectors", "model_slug", "resource_name", "resource_names", "slug_from_folders"]


def test_model_slug():
    assert names.model_slug("qwen3-0-6b") == "qwen3-0-6b"
    with pytest.raises(AnsibleFilterError, match="lowercase"):
        names.model_slug("Qwen3")


def test_slug_from_folders():
    assert names.slug_from_folders(["gaie-m-rke2", "ms-m-rke2"]) == "m-rke2"
    with pytest.raises(AnsibleFilterError, match="different slugs"):
        names.slug_from_folders(["gaie-a", "ms-b"])
    with pytest.raises(AnsibleFilterError, match="list of folder names"):
        names.slug_from_folders("gaie-a")
    with pytest.raises(AnsibleFilterError, match="lowercase"):
        names.slug_from_folders(["gaie-A", "ms-A"])


@pytest.mark.parametrize("kind, name", [
    ("namespace", "llm-d-m"), ("infra_release", "infra-m"), ("gaie_release", "gaie-m"), ("ms_release", "ms-m"),
    ("gateway", "infra-m-inference-gateway"), ("httproute", "llm-d-m"), ("pvc", "m-model"), ("pv", "m-model-pv"),
    ("pull_job", "m-model-pull"), ("clear_job", "m-model-clear"), ("prune_job", "m-model-prune"),
    ("embeddings_service", "ms-m-embeddings"), ("gateway_service", "llmd-gateway-m"),
    ("gateway_defaults", "gateway-defaults-m"), ("epp_service", "gaie-m-epp"),
])
def test_resource_name(kind, name):
    assert names.resource_name("m", kind) == name
    assert names.resource_names("m")[kind] == name


def test_label_selectors():
    assert names.label_selectors("managed") == ["app.kubernetes.io/managed-by=ai_platform.serving"]
    assert names.label_selectors("model_cache") == ["app.kubernetes.io/component=model-cache",
                                                    "app.kubernetes.io/managed-by=ai_platform.serving"]
    with pytest.raises(AnsibleFilterError, match="unknown selection 'pods'; use one of managed, model_cache"):
        names.label_selectors("pods")


def test_resource_name_overrides_and_errors():
    assert names.resource_name("m", "namespace", namespace="team") == "team"
    assert names.resource_name("m", "gateway", release_name="gw") == "gw-inference-gateway"
    with pytest.raises(AnsibleFilterError, match="unknown kind 'svc'"):
        names.resource_name("m", "svc")
