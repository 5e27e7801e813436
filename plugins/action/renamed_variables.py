# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""renamed_variables in the playbook's own process: it reads the task's variables (which old names the play
sets), something a module process never sees, and returns a deprecation per old name set
(plugins/plugin_utils/renamed_variables.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.action import ActionBase

from ansible_collections.ai_platform.serving.plugins.modules.renamed_variables import argspec
from ansible_collections.ai_platform.serving.plugins.plugin_utils.renamed_variables import renamed_deprecations


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=argspec())
        try:
            found, deprecations = renamed_deprecations(params["renamed"], task_vars or {}, params["version"])
        except ValueError as exc:
            result.update(failed=True, msg=str(exc))
            return result
        result.update(changed=False, deprecated=found)
        if deprecations:
            result["deprecations"] = list(result.get("deprecations") or []) + deprecations
        return result
