# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""renamed_variables in the playbook's own process: it reads the task's variables (which old names the play
sets), something a module process never sees, and returns a deprecation per old name set
(plugins/plugin_utils/renamed_variables.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.modules import renamed_variables
from ansible_collections.ai_platform.serving.plugins.plugin_utils.controller_action import ControllerAction
from ansible_collections.ai_platform.serving.plugins.plugin_utils.renamed_variables import renamed_deprecations


class ActionModule(ControllerAction):

    def argspec(self):
        return renamed_variables.argspec()

    def act(self, result, params, task_vars):
        try:
            found, deprecations = renamed_deprecations(params["renamed"], task_vars, params["version"])
        except ValueError as exc:
            result.update(failed=True, msg=str(exc))
            return
        result.update(changed=False, deprecated=found)
        if deprecations:
            result["deprecations"] = list(result.get("deprecations") or []) + deprecations
