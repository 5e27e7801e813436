# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The references family (plugins/filter/references.py), its filters imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import references

DIGEST = "sha256:" + "e" * 64


def test_filter_map():
    assert sorted(references.FilterModule().filters()) == ["parse_oci_reference", "pinned_reference"]


def test_parse_oci_reference():
    assert references.parse_oci_reference("h.io/p/n:t")["tag"] == "t"
    with pytest.raises(AnsibleFilterError, match="parse_oci_reference: 'x': "):
        references.parse_oci_reference("x")


def test_pinned_reference():
    assert references.pinned_reference("h.io/p/n:t", DIGEST) == "h.io/p/n@" + DIGEST
    with pytest.raises(AnsibleFilterError, match="pinned_reference: 'latest' is not a manifest digest"):
        references.pinned_reference("h.io/p/n:t", "latest")
