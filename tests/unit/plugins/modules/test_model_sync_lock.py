# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_sync_lock's entry point on a real lock file: one read, written only when its text changes, check mode and
diff, as a module process and in the playbook's process (its action plugin)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import stat

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.modules import model_sync_lock
from ansible_collections.ai_platform.serving.plugins.plugin_utils import in_process
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "sync",
                        "fixtures", "lock")


def fixture_text(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


def run(capsys, check_mode=False, diff=False, **args):
    """main() with these arguments; the JSON it printed."""
    return run_main(model_sync_lock.main, capsys, args, check_mode, diff)


@pytest.fixture
def given():
    return yaml.safe_load(fixture_text("inputs.yml"))


@pytest.fixture
def lock_file(tmp_path):
    path = tmp_path / "models.lock.yml"
    shutil.copy(os.path.join(FIXTURES, "before.models.lock.yml"), str(path))
    return path


def test_writes_the_merge_then_changes_nothing(capsys, given, lock_file):
    args = dict(lock_file=str(lock_file), registry=given["registry"], results=given["results"],
                sections=given["sections"])
    out = run(capsys, diff=True, **args)
    assert out["changed"] is True and out["lock_file"] == str(lock_file), out
    assert lock_file.read_text(encoding="utf-8") == fixture_text("expected.models.lock.yml")
    assert out["diff"]["before"] == fixture_text("before.models.lock.yml")
    assert out["diff"]["after"] == fixture_text("expected.models.lock.yml")
    assert out["models"] == yaml.safe_load(fixture_text("expected.models.lock.yml"))["models"]
    assert stat.S_IMODE(os.stat(str(lock_file)).st_mode) == 0o644
    written = os.stat(str(lock_file)).st_mtime_ns
    out = run(capsys, **args)
    assert out["changed"] is False and "diff" not in out, out
    assert os.stat(str(lock_file)).st_mtime_ns == written


def test_check_mode_reports_the_change_and_writes_nothing(capsys, given, lock_file):
    out = run(capsys, check_mode=True, diff=True, lock_file=str(lock_file), registry=given["registry"],
              results=given["results"])
    assert out["changed"] is True and out["diff"]["after"] != out["diff"]["before"], out
    assert lock_file.read_text(encoding="utf-8") == fixture_text("before.models.lock.yml")


def test_a_missing_lock_file_is_created(capsys, tmp_path):
    path = tmp_path / "models.lock.yml"
    out = run(capsys, diff=True, lock_file=str(path), registry="harbor.example")
    assert out["changed"] is True and out["models"] == {} and out["diff"]["before"] == "", out
    assert path.read_text(encoding="utf-8") == fixture_text("expected.empty.models.lock.yml")


def test_only_the_mode_differs(capsys, tmp_path):
    path = tmp_path / "models.lock.yml"
    path.write_text(fixture_text("expected.empty.models.lock.yml"), encoding="utf-8")
    os.chmod(str(path), 0o600)
    out = run(capsys, lock_file=str(path), registry="harbor.example")
    assert out["changed"] is True and stat.S_IMODE(os.stat(str(path)).st_mode) == 0o644, out
    assert run(capsys, lock_file=str(path), registry="harbor.example")["changed"] is False


def test_an_unusable_lock_file_fails_naming_it(capsys, tmp_path):
    path = tmp_path / "models.lock.yml"
    path.write_text("- not\n- a mapping\n")
    out = run(capsys, lock_file=str(path), registry="harbor.example")
    assert out["failed"] is True and str(path) in out["msg"] and "not a mapping" in out["msg"], out
    assert path.read_text() == "- not\n- a mapping\n"


def test_in_the_playbooks_process_it_is_the_same_module(given, lock_file):
    args = dict(lock_file=str(lock_file), registry=given["registry"], results=given["results"],
                sections=given["sections"])
    out = in_process.run_in_process("model_sync_lock", args, check_mode=False, diff=True)
    assert out["changed"] is True and "failed" not in out, out
    assert out["diff"]["after"] == fixture_text("expected.models.lock.yml")
    assert lock_file.read_text(encoding="utf-8") == fixture_text("expected.models.lock.yml")
    assert in_process.run_in_process("model_sync_lock", args)["changed"] is False
