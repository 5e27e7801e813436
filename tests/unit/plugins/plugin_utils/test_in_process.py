# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A cluster module run in the playbook's process (plugin_utils/in_process.py): the same validation, check mode,
no_log masking, warnings and failures as the module process, through the module's own main() and run_module."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import sys
import types

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner
from ansible_collections.ai_platform.serving.plugins.plugin_utils import in_process

NAME = "ansible_collections.ai_platform.serving.plugins.modules.aips_probe"
ARGSPEC = dict(
    records=dict(type="list", elements="dict", default=[]),
    token=dict(type="str", default="", no_log=True),
    mode=dict(type="str", default="read", choices=["read", "write"], aliases=["how"]),
)


@pytest.fixture()
def probe():
    """A module whose main() is what the collection's cluster modules do (run_module), stopping before the client
    (before_client) with what it saw, or failing, warning or crashing as its options say."""
    module = types.ModuleType(NAME)

    def before_client(mod):
        if mod.params["mode"] == "write" and mod.params["records"] == [{"fail": True}]:
            mod.fail_json(msg="cannot write with token %s" % mod.params["token"])
        if mod.params["records"] == [{"crash": True}]:
            raise KeyError("slug %s" % mod.params["token"])
        mod.warn("a warning")
        mod.exit_json(changed=mod.params["mode"] == "write", params=mod.params, check_mode=mod.check_mode,
                      diff_mode=mod._diff, echoed="token %s" % mod.params["token"])

    module.main = lambda: runner.run_module(ARGSPEC, lambda mod, client: None, before_client=before_client)
    sys.modules[NAME] = module
    yield "aips_probe"
    del sys.modules[NAME]


def test_options_are_validated_with_defaults_and_aliases(probe):
    result = in_process.run_in_process(probe, {"how": "write"}, check_mode=True, diff=True)
    assert result["params"]["mode"] == "write"
    assert result["params"]["records"] == []
    assert result["changed"] is True
    assert result["check_mode"] is True and result["diff_mode"] is True
    assert result["warnings"] == ["a warning"]
    assert "failed" not in result


def test_no_log_values_are_masked_in_the_result(probe):
    result = in_process.run_in_process(probe, {"token": "s3cret-value"})
    assert "s3cret-value" not in repr(result)
    assert result["echoed"] == "token ********"


def test_a_failure_carries_the_modules_message_masked(probe):
    result = in_process.run_in_process(probe, {"mode": "write", "records": [{"fail": True}], "token": "s3cret-value"})
    assert result["failed"] is True
    assert result["msg"] == "cannot write with token ********"


@pytest.mark.parametrize("args, message", [
    ({"mode": "delete"}, "value of mode must be one of: read, write, got: delete"),
    ({"unknown": 1}, "Unsupported parameters for (ai_platform.serving.aips_probe) module: unknown."),
    ({"records": "not-a-list-of-dicts"}, "records"),
])
def test_bad_options_fail_as_the_module_would(probe, args, message):
    result = in_process.run_in_process(probe, args)
    assert result["failed"] is True
    assert message in result["msg"]


def test_a_crash_fails_the_task_with_its_traceback(probe):
    result = in_process.run_in_process(probe, {"records": [{"crash": True}], "token": "s3cret-value"})
    assert result["failed"] is True
    assert "aips_probe failed in the playbook's process: KeyError" in result["msg"]
    assert "s3cret-value" not in repr(result)  # the message and the traceback masked like a result
    assert "Traceback" in result["exception"]


def test_a_main_that_returns_without_exiting_fails(probe):
    sys.modules[NAME].main = lambda: None
    result = in_process.run_in_process(probe, {})
    assert result["failed"] is True
    assert "returned without exit_json or fail_json" in result["msg"]


def test_the_module_class_is_restored_after_each_call(probe):
    in_process.run_in_process(probe, {"records": [{"crash": True}]})
    in_process.run_in_process(probe, {})
    assert runner.MODULE_CLASS == []


def test_every_cluster_module_has_its_in_process_action():
    """Each module built on run_module or args_common.module_class gets the action of the same name (model_pull_wait has its own, which shows
    progress); a new one without it would silently cost a Python process per call."""
    import glob
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(in_process.__file__)))
    using = set()
    for path in glob.glob(os.path.join(root, "modules", "*.py")):
        with open(path) as handle:
            text = handle.read()
        if re.search(r"^\s+run_module\(", text, re.M) or "module_class()(" in text:
            using.add(os.path.basename(path)[:-3])
    assert using, "no module uses run_module: the layout changed"
    # the registry and node modules, which build their module from args_common.module_class
    assert {"chart_archive", "image_archive", "harbor_project", "model_cache_dirs", "model_sync_lock"} <= using
    for name in sorted(using - {"model_pull_wait"}):
        action = os.path.join(root, "action", name + ".py")
        assert os.path.exists(action), "%s uses run_module but has no in-process action (plugins/action/%s.py)" % (
            name, name)
        with open(action) as handle:
            assert 'MODULE = "%s"' % name in handle.read()


class _Task(object):
    def __init__(self, become=False, environment=None):
        self.become = become
        self.environment = [{}] if environment is None else environment


class _Connection(object):
    def __init__(self, transport):
        self.transport = transport


@pytest.mark.parametrize("transport, task, expected", [
    ("local", _Task(), True),
    ("ssh", _Task(), False),                                  # another host: the module goes there
    ("local", _Task(become=True), False),                     # another user: a process of its own
    ("local", _Task(environment=[{"HTTPS_PROXY": "http://proxy:3128"}]), False),  # the task's environment
])
def test_in_process_only_where_it_is_the_same_as_a_module_process(transport, task, expected):
    action = in_process.InProcessModuleAction.__new__(in_process.InProcessModuleAction)
    action._connection, action._task = _Connection(transport), task
    assert action.in_process() is (expected and in_process.HAS_KUBERNETES)


@pytest.mark.parametrize("has_kubernetes", [True, False])
def test_only_the_cluster_modules_need_the_kubernetes_client(monkeypatch, has_kubernetes):
    monkeypatch.setattr(in_process, "HAS_KUBERNETES", has_kubernetes)
    action = in_process.InProcessModuleAction.__new__(in_process.InProcessModuleAction)
    action._connection, action._task = _Connection("local"), _Task()
    assert action.in_process() is has_kubernetes
    action.KUBERNETES = False  # a registry or node module
    assert action.in_process() is True


def _controller_module(args=None):
    in_process.ControllerModule.bind("ai_platform.serving.aips_probe", args or {}, False, False)
    return in_process.ControllerModule(ARGSPEC)


def test_run_command_returns_rc_and_text_with_the_environment_update(tmp_path):
    module = _controller_module()
    rc, out, err = module.run_command(["sh", "-c", 'printf "%s %s" "$AIPS_PROBE" "$(cat)"; echo oops >&2; exit 3'],
                                      data="from stdin", environ_update={"AIPS_PROBE": "set"}, cwd=str(tmp_path))
    assert (rc, out, err) == (3, "set from stdin", "oops\n")


def test_run_command_expands_the_home_directory_and_fails_with_check_rc(monkeypatch):
    monkeypatch.setenv("HOME", "/tmp/aips-home")
    module = _controller_module()
    assert module.run_command(["echo", "~/x"])[1] == "/tmp/aips-home/x\n"
    with pytest.raises(in_process.ModuleExit) as done:
        module.run_command(["sh", "-c", "echo bad >&2; exit 1"], check_rc=True)
    assert done.value.result["failed"] is True and done.value.result["rc"] == 1 and done.value.result["msg"] == "bad"
    assert module.run_command(["/nonexistent/aips-binary"])[0] == 2


class _TaggedInt(int):
    """Stands for Ansible's tagged int (a templated value is a subclass of its plain type)."""


class _TaggedStr(str):
    pass


def test_the_module_sees_plain_types_as_a_module_process_does(probe):
    """A port templated from the inventory arrives as a subclass of int; through JSON it is an int, so a comparison
    with what the API server returns (type and value, stack/live_state.py:differs) finds no difference."""
    args = {"records": [{"port": _TaggedInt(443), "host": _TaggedStr("harbor"), "nested": [{"n": _TaggedInt(1)}]}]}
    result = in_process.run_in_process(probe, args)
    record = result["params"]["records"][0]
    assert [type(value) for value in (record["port"], record["host"], record["nested"][0]["n"])] == [int, str, int]
    assert record == {"port": 443, "host": "harbor", "nested": [{"n": 1}]}
