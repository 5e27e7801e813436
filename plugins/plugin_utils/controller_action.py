# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the action plugins that do their whole job in the playbook's process share (no connection, no module
process): the options checked against the module's argument spec, then the action's own step."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.plugins.action import ActionBase


class ControllerAction(ActionBase):
    """Subclasses give ``argspec()`` (the module's) and either ``act(result, params, task_vars)``, which fills
    ``result``, or ``task_result(params)``, the shared task's ``(outcome, warnings)``: the outcome goes into the
    result, the warnings are shown as Ansible warnings."""

    TRANSFERS_FILES = False
    _requires_connection = False
    _supports_check_mode = True
    _supports_async = False

    def argspec(self):
        raise NotImplementedError

    def task_result(self, params):
        raise NotImplementedError

    def act(self, result, params, task_vars):
        outcome, warnings = self.task_result(params)
        result.update(outcome)
        if warnings:
            result["warnings"] = list(result.get("warnings") or []) + warnings

    def run(self, tmp=None, task_vars=None):
        result = super(ControllerAction, self).run(tmp, task_vars)
        del tmp  # not used
        _validation, params = self.validate_argument_spec(argument_spec=self.argspec())
        self.act(result, params, task_vars or {})
        return result
