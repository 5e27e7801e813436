# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module_utils ValueError becomes the filter's own error, named after the filter."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def _parse(value):
    if value != "ok":
        raise ValueError("not ok")
    return 1


def test_filter_call_returns_the_result_or_names_the_filter_and_the_value():
    assert filter_call("f", _parse, "ok") == 1
    with pytest.raises(AnsibleFilterError, match="^f: not ok$"):
        filter_call("f", _parse, "bad")
    with pytest.raises(AnsibleFilterError, match="^f: 'bad': not ok$"):
        filter_call("f", _parse, "bad", show_value=True)
