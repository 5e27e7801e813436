# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module's main() run in the test process with given arguments, and the JSON result it printed."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

import pytest
from ansible.module_utils.testing import patch_module_args


def run_main(main, capsys, args, check_mode=False, diff=False):
    """``main()`` with ``args`` (check and diff mode as given); the result it printed (``failed`` when it failed)."""
    args = dict(args, _ansible_check_mode=check_mode, _ansible_diff=diff)
    with patch_module_args(args):
        with pytest.raises(SystemExit):
            main()
    return json.loads(capsys.readouterr().out)
