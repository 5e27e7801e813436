# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack_spec in the playbook's own process: the options checked against the module's argument spec, then
the records selected and every model's stack computed where the playbook runs. It reads the values files of the
models tree only, so a module process of its own buys nothing, and the specs it returns (tens of kilobytes a model)
are not serialised to one and back. Shared logic: plugins/module_utils/stack/spec_task.py.

The role variables come in as named options, as model_plan's do, not read from task_vars: the argument spec types
and documents each one, the task in roles/serving_stack/tasks/spec.yml shows every input, and the action works the
same from any play (playbooks/render.yml) without knowing the role's variable names."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import spec_task
from ansible_collections.ai_platform.serving.plugins.plugin_utils.controller_action import ControllerAction


class ActionModule(ControllerAction):
    argspec = staticmethod(spec_task.argspec)
    task_result = staticmethod(spec_task.spec_result)
