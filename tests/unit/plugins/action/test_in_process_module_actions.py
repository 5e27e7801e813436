# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The actions of the registry modules (chart_archive, image_archive, harbor_project) and of the node directories
(model_cache_dirs): over a local connection their module's main() runs in the playbook's process
(plugin_utils/in_process.py) with the same result as the module process, check mode and diff included; any other
connection, become or a task environment runs the module as a process. The tools are scripted stand-ins here
(a shell script answering skopeo's manifest reads); helm and skopeo themselves run in the lab's tests."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import importlib
import json
import os
import stat
from unittest import mock

import pytest
from ansible.playbook.task import Task

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.oci_archive import HELM_CHART_LAYER
from ansible_collections.ai_platform.serving.plugins.plugin_utils import in_process
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main

MODULES = ("chart_archive", "image_archive", "harbor_project", "model_cache_dirs")


def action_module(name):
    return importlib.import_module("ansible_collections.ai_platform.serving.plugins.action." + name)


def module_main(name):
    return importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules." + name).main


def action(name, args, transport="local", check_mode=False, diff=False, become=False, environment=None):
    task = Task()
    task.args = dict(args)
    task.become = become
    task.environment = environment
    connection = mock.MagicMock(transport=transport)
    return action_module(name).ActionModule(task, connection, mock.MagicMock(check_mode=check_mode, diff=diff),
                                            loader=None, templar=None, shared_loader_obj=None)


def in_process_result(name, args, check_mode=False, diff=False):
    """The action's result over a local connection; the module process must not be asked for."""
    act = action(name, args, check_mode=check_mode, diff=diff)
    with mock.patch.object(act, "_execute_module", side_effect=AssertionError("a module process was started")):
        result = act.run(task_vars={})
    assert runner.MODULE_CLASS == []
    return result


def process_result(name, capsys, args, check_mode=False, diff=False):
    """What the module prints as a module process (AnsibleModule), without the invocation Ansible strips."""
    result = run_main(module_main(name), capsys, dict(args, _ansible_module_name="ai_platform.serving." + name),
                      check_mode, diff)
    result.pop("invocation", None)
    return result


@pytest.mark.parametrize("name", MODULES)
def test_each_module_has_its_in_process_action_without_the_kubernetes_client(name, monkeypatch):
    cls = action_module(name).ActionModule
    assert issubclass(cls, in_process.InProcessModuleAction)
    assert cls.MODULE == name and cls.KUBERNETES is False
    monkeypatch.setattr(in_process, "HAS_KUBERNETES", False)  # these modules do not need it
    assert action(name, {}).in_process() is True


@pytest.mark.parametrize("name", MODULES)
@pytest.mark.parametrize("how", [dict(transport="ssh"), dict(become=True),
                                 dict(environment=[{"HTTPS_PROXY": "http://proxy:3128"}])])
def test_anything_but_this_machine_as_this_user_runs_the_module_process(name, how):
    args = {"state": "present", "root": "/var/lib/hostpath/models"}
    act = action(name, args, **how)
    with mock.patch.object(in_process, "run_in_process", side_effect=AssertionError("ran in-process")):
        with mock.patch.object(act, "_execute_module", return_value={"changed": False, "from": "module"}) as execute:
            result = act.run(task_vars={"a": 1})
    assert result["from"] == "module"
    execute.assert_called_once_with(module_name="ai_platform.serving." + name, module_args=args, task_vars={"a": 1})


# model_cache_dirs: real directories under a tmp root, the same calls both ways.

def cache_args(root):
    return dict(root=str(root), create=[dict(path=str(root / "a"), claim="a-model"), dict(path=str(root / "b"))],
                owner=str(os.getuid()), group=str(os.getgid()), mode="0750", setype="container_file_t")


def rooted(result, root):
    """The result with the tmp root's path replaced, to compare two runs on two roots."""
    return json.loads(json.dumps(result).replace(str(root), "ROOT"))


def test_model_cache_dirs_creates_checks_and_diffs_as_the_module_process(tmp_path, capsys):
    mine, theirs = tmp_path / "in-process", tmp_path / "process"
    for check_mode, diff in ((True, True), (False, True), (False, False)):
        here = in_process_result("model_cache_dirs", cache_args(mine), check_mode, diff)
        there = process_result("model_cache_dirs", capsys, cache_args(theirs), check_mode, diff)
        assert rooted(here, mine) == rooted(there, theirs)
        if check_mode:
            assert here["changed"] is True and not mine.exists()
    assert here["changed"] is False and here["created"] == []
    assert stat.S_IMODE(os.stat(str(mine / "a")).st_mode) == 0o750


def test_model_cache_dirs_fixes_a_mode_with_ansible_modules_own_helper(tmp_path, capsys):
    for root in (tmp_path / "in-process", tmp_path / "process"):
        (root / "a").mkdir(parents=True)
        (root / "a").chmod(0o700)
    here = in_process_result("model_cache_dirs", cache_args(tmp_path / "in-process"), diff=True)
    there = process_result("model_cache_dirs", capsys, cache_args(tmp_path / "process"), diff=True)
    assert rooted(here, tmp_path / "in-process") == rooted(there, tmp_path / "process")
    assert here["ensured"][0]["changed"] == ["mode"]
    assert here["diff"][1]["before"] == {"mode": "0700"} or here["diff"][0]["before"] == {"mode": "0700"}


@pytest.mark.parametrize("args", [
    dict(root="relative/models"),                                               # the module's own refusal
    dict(root="/srv/models", create=[dict(path="/srv/models/a")], remove=["/srv/models/b"]),  # mutually exclusive
    dict(root="/srv/models", records=[]),                                       # required_by: node
    dict(root="/srv/models", unknown=1),                                        # not in the spec
])
def test_model_cache_dirs_refuses_as_the_module_process(args, capsys):
    here = in_process_result("model_cache_dirs", args)
    there = process_result("model_cache_dirs", capsys, args)
    assert here["failed"] is True
    assert here["msg"] == there["msg"]


def test_a_helper_failure_carries_the_exception_as_a_traceback(tmp_path):
    """AnsibleModule's helpers fail with exception=<the exception>: in-process it becomes the formatted traceback."""
    in_process.ControllerModule.bind("ai_platform.serving.model_cache_dirs", {"root": "/srv"}, False, False)
    module = in_process.ControllerModule(dict(root=dict(type="str")))
    with pytest.raises(in_process.ModuleExit) as done:
        try:
            os.lchown(str(tmp_path / "missing"), 0, -1)
        except OSError as exc:
            module.fail_json(path=str(tmp_path / "missing"), msg="chown failed", exception=exc)
    result = done.value.result
    assert result["failed"] is True and result["msg"] == "chown failed"
    assert "FileNotFoundError" in result["exception"] and "Traceback" in result["exception"]


# The registry modules against a scripted skopeo: what a no-op upload run asks (is the tag already there?).

def fake_skopeo(tmp_path, manifest, fail_with=None):
    """A skopeo whose `inspect --raw` prints ``manifest`` (or fails with ``fail_with`` on stderr)."""
    path = tmp_path / "fake-skopeo"
    with open(str(tmp_path / "manifest.json"), "wb") as handle:
        handle.write(manifest)
    body = 'echo "%s" >&2; exit 1' % fail_with if fail_with else 'cat "%s"' % (tmp_path / "manifest.json")
    path.write_text('#!/bin/sh\ncase "$1" in inspect) %s ;; *) echo "unexpected: $*" >&2; exit 2 ;; esac\n' % body)
    path.chmod(0o755)
    return str(path)


def chart_archives(tmp_path):
    charts = []
    for name in ("infra", "gaie"):
        archive = tmp_path / ("%s-1.0.0.tgz" % name)
        archive.write_bytes(b"chart " + name.encode())
        charts.append(dict(name=name, version="1.0.0", archive=str(archive),
                           repository="harbor.example/charts"))
    return charts


def test_chart_archive_push_check_is_the_module_process_s(tmp_path, capsys):
    """Both charts already in the registry (their layer digest matches): unchanged, checked side by side in threads."""
    charts = chart_archives(tmp_path)
    digest = "sha256:" + hashlib.sha256(b"chart infra").hexdigest()
    manifest = json.dumps({"layers": [{"mediaType": HELM_CHART_LAYER, "digest": digest}]}).encode()
    args = dict(state="pushed", charts=charts, destination=str(tmp_path), username="robot$pusher",
                password="s3cret-token", skopeo_path=fake_skopeo(tmp_path, manifest), helm_path="/nonexistent/helm")
    results = {}
    for check_mode in (True, False):
        results[check_mode] = in_process_result("chart_archive", args, check_mode=check_mode)
        assert results[check_mode] == process_result("chart_archive", capsys, args, check_mode=check_mode)
    # infra's layer matches; gaie's differs: check mode pushes nothing, a real run would (its archive is no chart)
    assert [c["changed"] for c in results[True]["charts"]] == [False, True] and "failed" not in results[True]
    assert results[True]["charts"][0]["manifest_digest"] == "sha256:" + hashlib.sha256(manifest).hexdigest()
    assert results[False]["failed"] is True and "gaie-1.0.0.tgz is not a Helm chart package" in results[False]["msg"]


def test_chart_archive_failures_and_masking_are_the_module_process_s(tmp_path, capsys):
    args = dict(state="pushed", charts=chart_archives(tmp_path), destination=str(tmp_path), username="robot$pusher",
                password="s3cret-token",
                skopeo_path=fake_skopeo(tmp_path, b"", fail_with="unauthorized: s3cret-token rejected"),
                helm_path="/nonexistent/helm")
    here = in_process_result("chart_archive", args)
    there = process_result("chart_archive", capsys, args)
    assert here == there
    assert here["failed"] is True and "2 of 2 charts failed" in here["msg"]
    assert "s3cret-token" not in json.dumps(here)
    missing = dict(state="pushed", name="infra", version="1.0.0")
    assert in_process_result("chart_archive", missing) == process_result("chart_archive", capsys, missing)


def test_image_archive_push_check_is_the_module_process_s(tmp_path, capsys):
    archive = tmp_path / "sim.tar"
    archive.write_bytes(b"oci archive")
    args = dict(state="pushed", archive=str(archive), destination="harbor.example/images/sim:v1",
                username="robot$pusher", password="s3cret-token", skopeo_path=fake_skopeo(tmp_path, b'{"layers": []}'))
    for check_mode in (True, False):
        here = in_process_result("image_archive", args, check_mode=check_mode)
        assert here == process_result("image_archive", capsys, args, check_mode=check_mode)
    assert here["changed"] is False and here["digest"] == here["previous_digest"]
    deprecated = dict(args, tls_verify=False)  # the deprecated alias: the module process shows it, in-process returns it
    here = in_process_result("image_archive", deprecated)
    assert [d["msg"] for d in here.pop("deprecations")] == [
        "Alias 'tls_verify' is deprecated. See the module docs for more information"]
    there = process_result("image_archive", capsys, deprecated)
    there.pop("deprecations", None)  # ansible-core 2.19's module process returns it too, 2.21's shows it
    assert here == there


def test_harbor_project_failure_is_the_module_process_s_with_the_password_masked(capsys):
    """An unreachable Harbor: the same failure both ways; a no_log value is masked wherever it shows."""
    args = dict(url="https://127.0.0.1:1", projects=["models"], username="admin", password="127.0.0.1")
    here = in_process_result("harbor_project", args, check_mode=True)
    there = process_result("harbor_project", capsys, args, check_mode=True)
    assert here == there
    assert here["failed"] is True and here["created"] == [] and "********" in here["msg"]
