# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pod security family (plugins/filter/pod_security.py), its filter imported as a plain function."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import pod_security as flt


def test_filter_map():
    assert sorted(flt.FilterModule().filters()) == ["pod_security_labels"]


def test_namespace_labels():
    assert flt.pod_security_labels({"enforce": "restricted", "warn": "restricted", "enforce-version": "v1.33"}) == {
        "pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/enforce-version": "v1.33"}
    assert flt.pod_security_labels({}) == {} and flt.pod_security_labels(None) == {}


@pytest.mark.parametrize("levels, expected", [
    ({"enforce": "strict"}, "level 'strict'"), ({"enfore": "restricted"}, "mode 'enfore'"), ("restricted", "mapping"),
])
def test_bad_levels_fail(levels, expected):
    with pytest.raises(AnsibleFilterError, match="pod_security_labels: .*" + expected):
        flt.pod_security_labels(levels)
