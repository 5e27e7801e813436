# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_pull_wait on the controller: runs the module, and meanwhile prints the pulls' progress
(plugins/plugin_utils/pull_progress.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.action import ActionBase

from ansible_collections.ai_platform.serving.plugins.plugin_utils.pull_progress import add_progress, watch


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset()  # the module validates its own arguments

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        watcher, targets = watch(self._task.args, self._play_context.check_mode)
        try:
            result.update(self._execute_module(module_name="ai_platform.serving.model_pull_wait",
                                               module_args=self._task.args, task_vars=task_vars))
        finally:
            if watcher is not None:
                watcher.stop()
        if watcher is not None:
            add_progress(result, targets, watcher)
        return result
