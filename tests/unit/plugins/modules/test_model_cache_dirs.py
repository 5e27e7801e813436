# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_cache_dirs with create: the module's entry point on a real tmp tree (one call, every directory)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest

from ansible_collections.ai_platform.serving.plugins.modules import model_cache_dirs
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main


def run(capsys, check_mode=False, diff=False, **args):
    """main() with these arguments; the JSON it printed, with ``failed`` when it failed."""
    return run_main(model_cache_dirs.main, capsys, args, check_mode, diff)


def attributes():
    return dict(owner=str(os.getuid()), group=str(os.getgid()), mode="0755", setype="container_file_t")


@pytest.fixture
def root(tmp_path):
    return tmp_path / "models"


def test_creates_every_directory_in_one_call_then_changes_nothing(capsys, root):
    create = [dict(path=str(root / "a"), claim="a-model"), dict(path=str(root / "b") + "/", claim="b-model"),
              dict(path=str(root / "a"), claim="a-model")]
    out = run(capsys, diff=True, root=str(root), create=create, **attributes())
    assert out["changed"] is True and out["created"] == [str(root / "a"), str(root / "b")], out
    assert [(e["claim"], e["status"]) for e in out["ensured"]] == [("a-model", "created"), ("b-model", "created")]
    assert [d["after_header"] for d in out["diff"]] == [str(root / "a"), str(root / "b")]
    assert out["selinux_enabled"] is False
    for name in ("a", "b"):
        assert stat.S_IMODE(os.stat(str(root / name)).st_mode) == 0o755
    out = run(capsys, root=str(root), create=create, **attributes())
    assert out["changed"] is False and out["created"] == [] and "diff" not in out, out


def test_check_mode_creates_nothing(capsys, root):
    out = run(capsys, check_mode=True, root=str(root), create=[dict(path=str(root / "a"), claim="a-model")],
              **attributes())
    assert out["changed"] is True and out["created"] == [str(root / "a")], out
    assert not root.exists()


def test_refuses_before_creating_anything(capsys, root, tmp_path):
    outside = tmp_path / "elsewhere" / "c"
    create = [dict(path=str(root / "a"), claim="a-model"), dict(path=str(outside), claim="c-model")]
    out = run(capsys, root=str(root), create=create, **attributes())
    assert out["failed"] is True
    assert out["msg"].startswith("refused, nothing was created: c-model: %s is outside the allowed root %s; "
                                 "set hostpathDir to a directory below %s" % (outside, root, root)), out["msg"]
    assert not root.exists() and not outside.exists()


def test_an_unknown_owner_fails_naming_it(capsys, root):
    out = run(capsys, root=str(root), create=[dict(path=str(root / "a"))], owner="no-such-user-x")
    assert out["failed"] is True and "owner no-such-user-x is no user on this node" in out["msg"], out
    assert not root.exists()


def test_create_and_remove_are_exclusive(capsys, root):
    out = run(capsys, root=str(root), create=[dict(path=str(root / "a"))], remove=[str(root / "b")])
    assert out["failed"] is True and "mutually exclusive" in out["msg"], out
