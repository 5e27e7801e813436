# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one recursive mapping merge (Ansible's combine(recursive=true)) that the stack values, the admission check and
the lock file use."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import admission, mappings, render
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import lock


def test_mappings_merge_key_by_key_and_anything_else_is_replaced():
    base = {"a": {"b": [1, 2], "c": 1}, "d": 1}
    assert mappings.merged(base, {"a": {"b": [3]}, "d": {"e": 1}}) == {"a": {"b": [3], "c": 1}, "d": {"e": 1}}
    assert base == {"a": {"b": [1, 2], "c": 1}, "d": 1}


@pytest.mark.parametrize("base, override, expected", [
    ({"a": {"x": 1}}, {"a": None}, {"a": None}),            # null replaces a mapping, it does not remove it
    ({"a": {"x": 1}}, {"a": "s"}, {"a": "s"}),              # a scalar over a mapping
    ({"a": 1}, {"a": {"x": 1}}, {"a": {"x": 1}}),           # a mapping over a scalar
    ({"a": {"b": {"c": 1, "d": 2}}}, {"a": {"b": {"d": 3, "e": 4}}}, {"a": {"b": {"c": 1, "d": 3, "e": 4}}}),
    ({"a": [{"x": 1}]}, {"a": [{"y": 2}]}, {"a": [{"y": 2}]}),  # lists are not merged item by item
    (None, {"a": 1}, {"a": 1}),
    ({"a": 1}, None, {"a": 1}),
    (None, None, {}),
])
def test_merged(base, override, expected):
    assert mappings.merged(base, override) == expected


def test_keys_keep_the_base_order_then_the_new_keys():
    assert list(mappings.merged({"z": 1, "a": {"y": 1, "b": 1}}, {"c": 1, "a": {"a": 1}, "z": 2})) == ["z", "a", "c"]
    assert list(mappings.merged({"a": {"y": 1, "b": 1}}, {"a": {"a": 1}})["a"]) == ["y", "b", "a"]


def test_the_result_shares_nothing_with_the_arguments():
    base = {"kept": {"list": [1]}, "merged": {"x": {"deep": 1}}}
    override = {"merged": {"y": {"deep": 2}}, "new": {"list": [2]}}
    result = mappings.merged(base, override)
    result["kept"]["list"].append(9)
    result["merged"]["x"]["deep"] = 9
    result["merged"]["y"]["deep"] = 9
    result["new"]["list"].append(9)
    assert base == {"kept": {"list": [1]}, "merged": {"x": {"deep": 1}}}
    assert override == {"merged": {"y": {"deep": 2}}, "new": {"list": [2]}}


def test_the_stack_and_the_lock_file_use_this_merge():
    assert render.merged is mappings.merged and admission.merged is mappings.merged
    assert lock.mappings is mappings
