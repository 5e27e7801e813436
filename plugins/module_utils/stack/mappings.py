# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One recursive mapping merge (Ansible's combine(recursive=true)) for stack values and the lock file.

Pure, and importing nothing of the collection, so sync/lock.py uses it too without loading the rest of stack/.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy


def merged(base, override):
    """``base`` with ``override`` merged in as Ansible's ``combine(recursive=true)`` does: mappings merged key by
    key, anything else (lists included) replaced; None stands for an empty mapping. A new mapping, sharing nothing
    with either argument, which are not changed."""
    result = dict((key, copy.deepcopy(value)) for key, value in (base or {}).items())
    for key, value in (override or {}).items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result
