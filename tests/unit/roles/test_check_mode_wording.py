# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Lines that report a removal say what would happen under --check (the modules behind them change nothing then,
and report what they would remove): the message of each task, read from its file, rendered by Ansible's own
templating (the text trusted as a task file's is) with ansible_check_mode true and false."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template  # ansible-core 2.19+, the oldest the collection supports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PRUNED = {"key": "qwen3-0-6b", "value": {"dropped": ["sha256:old"], "kept": ["sha256:new"]}}
# (file, play or None, task name, variables, {check mode: wanted message})
CASES = {
    "pruned revisions": (
        "roles/serving_stack/tasks/present.yml", None, "Report the pruned revisions", {"item": PRUNED},
        {False: "qwen3-0-6b: removed sha256:old from its claim; kept sha256:new",
         True: "qwen3-0-6b: would remove sha256:old from its claim; would keep sha256:new"}),
    "recover": (
        "playbooks/recover.yml", 0, "Show what was deleted",
        {"recover_model": "Qwen3-0.6B", "recover_removed": {"removed": ["Job llm-d-x/x-model-pull", "PVC llm-d-x/x"]}},
        {False: "Qwen3-0.6B: deleted Job llm-d-x/x-model-pull, PVC llm-d-x/x",
         True: "Qwen3-0.6B: would delete Job llm-d-x/x-model-pull, PVC llm-d-x/x"}),
}


def task_message(path, play, name):
    with open(os.path.join(ROOT, path)) as handle:
        tasks = yaml.safe_load(handle)
    if play is not None:
        tasks = tasks[play]["tasks"]
    found = []

    def walk(items):
        for task in items or []:
            if task.get("name") == name:
                found.append(task)
            for key in ("block", "rescue", "always"):
                walk(task.get(key))
    walk(tasks)
    assert len(found) == 1, (path, name, len(found))
    return found[0]["ansible.builtin.debug"]["msg"]


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("check_mode", [False, True])
def test_a_removal_line_says_would_under_check(case, check_mode):
    path, play, name, variables, wanted = CASES[case]
    templar = Templar(loader=DataLoader(), variables=dict(variables, ansible_check_mode=check_mode))
    message = templar.template(trust_as_template(task_message(path, play, name)))
    assert " ".join(message.split()) == wanted[check_mode]
