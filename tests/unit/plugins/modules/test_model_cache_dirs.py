# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_cache_dirs with create, or with the plan records of a node: the module's entry point on a real tmp tree
(one call, every directory)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.modules import model_cache_dirs
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "module_utils", "storage", "fixtures")


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


# records: the plan itself; the module selects this node's directories and checks the root.

FIXTURE_ROOT = "/var/lib/hostpath/models"


def plan_for(root):
    """fixtures/hostpath_plan.yml (gpu-node-1: two models, cpu-node-1: one, two without a node) below ``root``."""
    with open(os.path.join(FIXTURES, "hostpath_plan.yml")) as handle:
        plan = yaml.safe_load(handle)
    for record in plan:
        if record["storage"]["hostpath_dir"]:
            record["storage"]["hostpath_dir"] = record["storage"]["hostpath_dir"].replace(FIXTURE_ROOT, str(root), 1)
    return plan


def test_records_create_only_this_nodes_directories_then_change_nothing(capsys, root):
    plan = plan_for(root)
    out = run(capsys, root=str(root), records=plan, node="gpu-node-1", state="present", **attributes())
    assert out["changed"] is True, out
    assert [(e["path"], e["claim"], e["status"]) for e in out["ensured"]] == [
        (str(root / "qwen3-0-6b-rke2"), "qwen3-0-6b-rke2-model", "created"),
        (str(root / "big" / "qwen3-8b"), "qwen3-8b-rke2-model", "created")]
    assert sorted(os.listdir(str(root))) == ["big", "qwen3-0-6b-rke2"]
    assert stat.S_IMODE(os.stat(str(root / "big" / "qwen3-8b")).st_mode) == 0o755
    out = run(capsys, root=str(root), records=plan, node="gpu-node-1", **attributes())  # state unset: present
    assert out["changed"] is False and out["created"] == [], out


def test_records_check_mode_creates_nothing(capsys, root):
    out = run(capsys, check_mode=True, root=str(root), records=plan_for(root), node="cpu-node-1", state="present",
              **attributes())
    assert out["changed"] is True and out["created"] == [str(root / "all-minilm-l6-v2-rke2")], out
    assert not root.exists()


@pytest.mark.parametrize("state", ["present", "absent"])
def test_records_with_no_record_for_this_node_change_nothing(capsys, root, state):
    os.makedirs(str(root / "qwen3-0-6b-rke2"))
    out = run(capsys, root=str(root), records=plan_for(root), node="cpu-node-2", state=state, **attributes())
    assert out["changed"] is False and "failed" not in out, out
    assert out.get("ensured", out.get("removed")) == [], out
    assert os.listdir(str(root)) == ["qwen3-0-6b-rke2"]


def test_records_absent_removes_this_nodes_directories_but_not_one_a_volume_uses(capsys, root):
    for name in ("qwen3-0-6b-rke2", "big/qwen3-8b", "all-minilm-l6-v2-rke2"):
        os.makedirs(str(root / name))
    (root / "qwen3-0-6b-rke2" / "weights").write_text("x" * 10)
    volume = {"metadata": {"name": "qwen3-8b-rke2-model-pv"}, "spec": {"hostPath": {"path": str(root / "big" / "qwen3-8b")}}}
    out = run(capsys, root=str(root), records=plan_for(root), node="gpu-node-1", state="absent", volumes=[volume])
    assert out["changed"] is True and out["freed_bytes"] == 10, out
    assert [e["path"] for e in out["removed"]] == [str(root / "qwen3-0-6b-rke2")]
    assert [e["path"] for e in out["kept"]] == [str(root / "big" / "qwen3-8b")]
    assert (root / "big" / "qwen3-8b").is_dir() and (root / "all-minilm-l6-v2-rke2").is_dir()
    assert not (root / "qwen3-0-6b-rke2").exists()


@pytest.mark.parametrize("state, done", [("present", "created"), ("absent", "removed")])
def test_records_outside_the_root_fail_one_message_each_before_anything(capsys, root, tmp_path, state, done):
    plan = plan_for(root)
    outside = tmp_path / "elsewhere" / "c"
    plan[0]["storage"]["hostpath_dir"] = str(outside)
    plan[2]["storage"]["hostpath_dir"] = str(root)
    os.makedirs(str(outside))
    out = run(capsys, root=str(root) + "/", records=plan, node="gpu-node-1", state=state, **attributes())
    assert out["failed"] is True
    assert out["refused"] == [
        "qwen3-0-6b-rke2-model: hostpathDir %s is not below hostpath_dirs_allowed_root %s; move the directory "
        "under it or widen hostpath_dirs_allowed_root." % (outside, root),
        "qwen3-8b-rke2-model: hostpathDir %s is not below hostpath_dirs_allowed_root %s; move the directory "
        "under it or widen hostpath_dirs_allowed_root." % (root, root)], out
    assert out["msg"] == "refused, nothing was %s: %s" % (done, " ".join(out["refused"]))
    assert outside.is_dir() and not root.exists()


@pytest.mark.parametrize("records, message", [
    (None, "hostpath_dirs: no model plan was built (hostpath_dirs_plan is unset and so is aips_plan)"),
    ("not-a-plan", "hostpath_dirs_plan must be the list of ai_platform.serving.model_plan records; got 'not-a-plan'"),
    ([{"slug": "a"}], "hostpath_dirs_plan[0] is not an ai_platform.serving.model_plan record"),
])
def test_records_that_are_no_plan_fail_as_the_plan_check_does(capsys, root, records, message):
    out = run(capsys, root=str(root), records=records, node="gpu-node-1", state="present", **attributes())
    assert out["failed"] is True and out["msg"].startswith(message), out
    assert not root.exists()


@pytest.mark.parametrize("args, message", [
    (dict(create=[dict(path="/x/a")]), "mutually exclusive: create|remove|records"),
    (dict(remove=["/x/a"]), "mutually exclusive: create|remove|records"),
])
def test_records_exclude_the_lists(capsys, root, args, message):
    out = run(capsys, root=str(root), records=[], node="n", **args)
    assert out["failed"] is True and message in out["msg"], out


def test_records_need_the_node(capsys, root):
    out = run(capsys, root=str(root), records=[], state="present")
    assert out["failed"] is True and "missing parameter(s) required by 'records': node" in out["msg"], out
