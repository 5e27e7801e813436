# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The serving_stack_spec action in the playbook's process: its options checked against the module's argument spec,
the task's result returned, its warnings as Ansible warnings, its failure once."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

import pytest

from ansible.errors import AnsibleActionFail
from ansible.playbook.task import Task

from ansible_collections.ai_platform.serving.plugins.action import serving_stack_spec as action
from ansible_collections.ai_platform.serving.tests.unit.plugins.module_utils.stack.test_spec_task import (
    CHARTS, repo_records)


def run(**args):
    task = Task()
    task.args = args
    module = action.ActionModule(task, mock.MagicMock(), mock.MagicMock(check_mode=False), loader=None, templar=None,
                                 shared_loader_obj=None)
    return module.run(task_vars={})


@pytest.fixture(scope="module")
def records():
    return repo_records()


def test_the_records_specs_and_charts_come_back(records):
    result = run(plan=records, charts=CHARTS, cloud_provider="cloud", pod_uid="1000", pod_security_context="true")
    assert not result.get("failed"), result
    assert result["records"] == records and result["charts"] == CHARTS and result["changed"] is False
    assert sorted(result["specs"]) == sorted(r["slug"] for r in records)
    # the options are typed as the argument spec says: "true" is true, a string uid is an int
    decode = result["specs"]["qwen3-0-6b-rke2"]["values"]["modelservice"]["decode"]
    assert decode["extraConfig"]["securityContext"]["runAsUser"] == 1000
    assert "warnings" not in result


def test_without_specs_only_the_records(records):
    result = run(plan=records, models=["all-minilm-l6-v2-rke2"], specs=False)
    assert [r["slug"] for r in result["records"]] == ["all-minilm-l6-v2-rke2"] and result["specs"] == {}


def test_the_warnings_are_ansible_warnings(records):
    outcome = mock.Mock(return_value=(dict(changed=False, records=[]), ["w1", "w2"]))
    with mock.patch.object(action.ActionModule, "task_result", staticmethod(outcome)):
        result = run(plan=[])
    assert outcome.call_args[0][0]["plan"] == []
    assert result["warnings"] == ["w1", "w2"]


def test_a_problem_fails_the_task_once(records):
    result = run(plan=None)
    assert result["failed"] is True and result["msg"].startswith("serving_stack: no model plan was built")
    result = run(plan=records, charts={})
    assert result["failed"] is True and result["msg"].startswith("serving_stack_charts.infra.ref is not set (got None)")


def test_an_option_the_argument_spec_refuses_fails_before_anything_is_read(records):
    called = mock.Mock()
    with mock.patch.object(action.ActionModule, "task_result", staticmethod(called)):
        with pytest.raises(AnsibleActionFail, match="value of cloud_provider must be one of: cloud, on-prem, got: moon"):
            run(plan=records, cloud_provider="moon")
    assert not called.called
