# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sources family (plugins/filter/sources.py), its filters imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import sources
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import DEFAULT_HOSTPATH_ROOT


def test_filter_map():
    assert sorted(sources.FilterModule().filters()) == [
        "hostpath_root", "human_bytes", "parse_pvc_uri", "pvc_hf_uri", "quantity_bytes"]


def test_source_filters():
    assert sources.pvc_hf_uri("m", "hub/o/n") == "pvc+hf://m-model/hub/o/n"
    assert sources.parse_pvc_uri("pvc://ns:c/p")["namespace"] == "ns"
    assert sources.quantity_bytes("1Ki") == 1024
    for function, args in ((sources.parse_pvc_uri, ("pvc://c",)), (sources.quantity_bytes, ("1GB",)),
                           (sources.pvc_hf_uri, ("BAD", "hub/o/n")), (sources.pvc_hf_uri, ("m", "o/n"))):
        with pytest.raises(AnsibleFilterError):
            function(*args)


def test_hostpath_root_has_one_default():
    assert sources.hostpath_root("") == sources.hostpath_root(None) == DEFAULT_HOSTPATH_ROOT
    assert sources.hostpath_root("/srv/models") == "/srv/models"
    with pytest.raises(AnsibleFilterError, match="hostpath_root"):
        sources.hostpath_root(["/srv"])


def test_human_bytes():
    assert sources.human_bytes(92274688) == "88.0 MiB"
    assert sources.human_bytes("2048") == "2.0 KiB"
    with pytest.raises(AnsibleFilterError, match="number of bytes"):
        sources.human_bytes("lots")
