# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Counts the module calls of a playbook run for benchmarks/site_rerun.py (not part of the collection).

A module call is a task (or loop item) that ran and is not one of the controller-only actions below
(set_fact, debug, assert, fail, includes, ...), which start no module process. Enabled by site_rerun.py with
ANSIBLE_CALLBACK_PLUGINS=benchmarks/callback_plugins and ANSIBLE_CALLBACKS_ENABLED=module_calls; writes
{"calls": N, "by_task": {task: n}} to the file named by AIPS_MODULE_CALLS_FILE at the end of the run.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: module_calls
type: aggregate
short_description: Count the module calls of a run (benchmarks only)
description: Writes the number of module calls, by task, to the file named by AIPS_MODULE_CALLS_FILE.
requirements:
  - enabled in ANSIBLE_CALLBACKS_ENABLED
"""

import json
import os
from collections import Counter

from ansible.plugins.callback import CallbackBase

CONTROLLER_ONLY = frozenset(
    "ansible.builtin.%s" % name for name in (
        "set_fact", "debug", "assert", "fail", "include_tasks", "import_tasks", "include_role", "import_role",
        "include_vars", "meta", "add_host", "group_by", "set_stats", "pause", "validate_argument_spec",
        "noop")) | frozenset(("set_fact", "debug", "assert", "fail", "include_tasks", "import_tasks",
                              "include_role", "import_role", "include_vars", "meta", "validate_argument_spec")) \
    | frozenset(("ai_platform.serving.model_plan", "model_plan"))  # its action plugin builds the plan in-process


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "module_calls"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self, *args, **kwargs):
        super(CallbackModule, self).__init__(*args, **kwargs)
        self.calls = Counter()

    def _count(self, result):
        task = result._task
        if task.action in CONTROLLER_ONLY:
            return
        self.calls["%s (%s)" % (task.get_name(), task.action)] += 1

    def _ran(self, result, item=False):
        if not item and result._result.get("results") is not None:
            return  # a loop: its items were counted
        self._count(result)

    def v2_runner_on_ok(self, result):
        self._ran(result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._ran(result)

    def v2_runner_item_on_ok(self, result):
        self._ran(result, item=True)

    def v2_runner_item_on_failed(self, result):
        self._ran(result, item=True)

    def v2_playbook_on_stats(self, stats):
        path = os.environ.get("AIPS_MODULE_CALLS_FILE")
        if path:
            with open(path, "w") as handle:
                json.dump({"calls": sum(self.calls.values()), "by_task": dict(self.calls)}, handle, indent=1,
                          sort_keys=True)
