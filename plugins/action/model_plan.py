# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_plan in the playbook's own process: the options checked against the module's argument spec, then the
plan built where the playbook runs (the module's documented place: delegate_to localhost). It reads files only,
so a module process of its own (about half a second of every run) buys nothing. Shared logic:
plugins/module_utils/plan/task.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import task
from ansible_collections.ai_platform.serving.plugins.plugin_utils.controller_action import ControllerAction


class ActionModule(ControllerAction):
    argspec = staticmethod(task.argspec)
    task_result = staticmethod(task.plan_result)
