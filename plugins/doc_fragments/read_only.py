# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: the check_mode and diff_mode attributes of a module that only reads."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """Attributes of a module that only reads."""

    DOCUMENTATION = r"""
attributes:
  check_mode:
    support: full
    description: Only reads.
  diff_mode:
    support: none
    description: Nothing changes.
"""
