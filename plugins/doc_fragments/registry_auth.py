# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: the registry credentials (username, password) of the registry modules."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """Registry credentials (module_utils.args_common.registry_auth_argspec; TLS in registry_tls)."""

    DOCUMENTATION = r"""
options:
  username:
    description: Registry user (for Harbor a robot account).
    type: str
  password:
    description: Its password or robot token. Never logged.
    type: str
"""
