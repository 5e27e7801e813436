# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model cache directories: the allowed-root rules, PV references, orphans, creation and removal on a real tmp tree,
and the selection of a node's directories from the plan (fixtures/hostpath_plan.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest
import yaml
from ansible.errors import AnsibleFilterError
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.testing import patch_module_args

from ansible_collections.ai_platform.serving.plugins.filter import plan as plan_filters
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.select import PlanRecordsError
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cache as mc

ROOT = "/var/lib/hostpath/models"


@pytest.mark.parametrize("path", [
    ROOT + "/qwen3", ROOT + "/qwen3/", ROOT + "/a/b",
])
def test_paths_below_the_root_are_allowed(path):
    assert mc.path_problem(path, ROOT) is None
    assert mc.path_problem(path, ROOT + "/") is None


@pytest.mark.parametrize("path, why", [
    (ROOT, "the allowed root itself"),
    (ROOT + "/", "the allowed root itself"),
    ("/var/lib/hostpath", "outside the allowed root"),
    ("/var/lib/hostpath/models-other/x", "outside the allowed root"),
    ("/etc", "outside the allowed root"),
    ("/", "outside the allowed root"),
    (ROOT + "/../../../etc", "not normalised"),
    (ROOT + "/x/../..", "not normalised"),
    (ROOT + "/..", "not normalised"),
    (ROOT + "/./x", "not normalised"),
    (ROOT + "//x", "not normalised"),
    ("var/lib/hostpath/models/x", "not absolute"),
    ("", "not a path"),
    (None, "not a path"),
])
def test_paths_outside_or_tricky_are_refused(path, why):
    problem = mc.path_problem(path, ROOT)
    assert problem and why in problem


@pytest.mark.parametrize("root", ["/", "", "relative/root", "/var/../etc", "//"])
def test_bad_roots_are_refused(root):
    assert mc.root_problem(root)
    with pytest.raises(mc.CacheDirError):
        mc.path_problem(ROOT + "/x", root)


def test_symlinks_are_refused_by_the_resolved_rule():
    links = {ROOT + "/evil": "/etc"}

    def realpath(path):
        for link, target in links.items():
            if path == link or path.startswith(link + "/"):
                return target + path[len(link):]
        return path

    def islink(path):
        return path in links

    assert "symlink" in mc.resolved_problem(ROOT + "/evil", ROOT, realpath, islink)
    assert "outside the allowed root" in mc.resolved_problem(ROOT + "/evil/sub", ROOT, realpath, islink)
    assert mc.resolved_problem(ROOT + "/good", ROOT, realpath, islink) is None


def test_a_symlinked_root_is_followed_consistently():
    def realpath(path):
        return path.replace("/var/lib/hostpath", "/data/hostpath", 1)
    assert mc.resolved_problem(ROOT + "/qwen3", ROOT, realpath, lambda p: False) is None


def pv(name, path, nodes=None, kind="hostPath", phase="Bound"):
    spec = {kind: {"path": path}}
    if nodes is not None:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": nodes}]}]}}
    return {"metadata": {"name": name}, "spec": spec, "status": {"phase": phase}}


def claim(slug, namespace=None):
    return {"metadata": {"name": slug + "-model", "namespace": namespace or "llm-d-" + slug,
                         "labels": {"ai-platform.serving/slug": slug}}}


def test_pv_paths_and_nodes():
    assert mc.pv_path(pv("a", ROOT + "/a/")) == ROOT + "/a"
    assert mc.pv_path(pv("a", ROOT + "/a", kind="local")) == ROOT + "/a"
    assert mc.pv_path({"spec": {"nfs": {"path": "/x"}}}) is None
    assert mc.pv_nodes(pv("a", "/x", ["n1", "n2"])) == ["n1", "n2"]
    assert mc.pv_nodes(pv("a", "/x")) is None
    other = {"spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["z"]}]}]}}}}
    assert mc.pv_nodes(other) is None


def test_references_count_pvs_of_this_node_or_of_any_node():
    refs = mc.references([pv("a", ROOT + "/a", ["n1"]), pv("b", ROOT + "/b", ["n2"]), pv("c", ROOT + "/c")],
                         [claim("d")], node="n1")
    assert sorted(refs["paths"]) == [ROOT + "/a", ROOT + "/c"]
    assert "PV a (Bound)" in refs["paths"][ROOT + "/a"]
    assert list(refs["slugs"]) == ["d"]
    everywhere = mc.references([pv("b", ROOT + "/b", ["n2"])], [], node=None)
    assert list(everywhere["paths"]) == [ROOT + "/b"]


@pytest.mark.parametrize("ref, kept", [
    (ROOT + "/a", True),           # the directory itself
    (ROOT + "/a/hub", True),       # a PV on a sub-path
    (ROOT, True),                  # a PV on the whole root
    (ROOT + "/ab", False),         # a sibling with a common prefix
    ("/elsewhere/a", False),
])
def test_keep_reason_on_overlap_only(ref, kept):
    refs = mc.references([pv("x", ref)], [])
    assert bool(mc.keep_reason(ROOT + "/a", refs)) is kept


def test_classify():
    refs = mc.references([pv("a-model-pv", ROOT + "/a")], [claim("b")])
    entries = [dict(path=ROOT + "/a", kind="directory"), dict(path=ROOT + "/b", kind="directory"),
               dict(path=ROOT + "/c", kind="directory"), dict(path=ROOT + "/l", kind="symlink")]
    got = dict((e["path"].rsplit("/", 1)[1], e["status"]) for e in (mc.classify(x, refs) for x in entries))
    assert got == {"a": "referenced", "b": "claimed", "c": "orphan", "l": "skipped"}


def test_claim_fate_follows_the_reclaim_policy():
    pvc = {"metadata": {"name": "m-model", "namespace": "llm-d-m"}, "spec": {"volumeName": "pvc-123"}}
    volume = {"spec": {"persistentVolumeReclaimPolicy": "Delete", "storageClassName": "standard",
                       "capacity": {"storage": "10Gi"}}}
    fate = mc.claim_fate(pvc, volume)
    assert fate["policy"] == "Delete" and "provisioner deletes" in fate["message"]
    volume["spec"]["persistentVolumeReclaimPolicy"] = "Retain"
    fate = mc.claim_fate(pvc, volume)
    assert fate["policy"] == "Retain" and "stays Released" in fate["message"] and "pvc-123" in fate["message"]
    assert "no volume" in mc.claim_fate({"metadata": {}, "spec": {}}, None)["message"]
    assert "gone" in mc.claim_fate(pvc, None)["message"]
    assert mc.claim_fate(None, None)["message"].startswith("no claim")


def test_human_bytes():
    assert mc.human_bytes(0) == "0 B"
    assert mc.human_bytes(1536) == "1.5 KiB"
    assert mc.human_bytes(88 * 1024 * 1024) == "88.0 MiB"


def _model_dir(root, slug, digest="sha256:" + "a" * 64, size=1000):
    path = root / slug
    (path / "hub" / "models--o--n" / "snapshots" / "r").mkdir(parents=True)
    (path / "hub" / "models--o--n" / "snapshots" / "r" / "model.bin").write_bytes(b"x" * size)
    (path / ".pulled").write_text("digest=%s\nreference=h/p/n:v1\nsize=%d\nfiles=1\npulled_at=2026-01-02T03:04:05Z\n"
                                  % (digest, size))
    return path


def test_scan_describes_dirs_markers_and_symlinks(tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    _model_dir(root, "alpha", size=4096)
    (root / "empty").mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep me")
    os.symlink(str(outside), str(root / "link"))
    entries = dict((e["slug"], e) for e in mc.scan(str(root)))
    alpha = entries["alpha"]
    assert alpha["kind"] == "directory" and alpha["bytes"] == 4096 + len((root / "alpha" / ".pulled").read_text())
    assert alpha["digest"] == "sha256:" + "a" * 64 and alpha["pulled_at"] == "2026-01-02T03:04:05Z"
    assert alpha["files"] == 2 and alpha["marker"] is True and alpha["pulling"] is False
    assert entries["empty"]["bytes"] == 0 and entries["empty"]["digest"] is None
    assert entries["link"]["kind"] == "symlink" and entries["link"]["target"] == str(outside)
    assert mc.scan(str(tmp_path / "absent")) == []


def test_remove_only_inside_the_root_and_never_through_a_symlink(tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    target = _model_dir(root, "alpha")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep me")
    os.symlink(str(outside), str(root / "link"))
    os.symlink(str(outside), str(target / "hub" / "escape"))
    with pytest.raises(mc.CacheDirError, match="symlink"):
        mc.remove(str(root / "link"), str(root))
    with pytest.raises(mc.CacheDirError, match="outside"):
        mc.remove(str(outside), str(root))
    with pytest.raises(mc.CacheDirError, match="not normalised"):
        mc.remove(str(root / "alpha" / ".." / ".." / "outside"), str(root))
    with pytest.raises(mc.CacheDirError, match="allowed root itself"):
        mc.remove(str(root), str(root))
    with pytest.raises(mc.CacheDirError, match="outside the allowed root"):
        mc.remove(str(root / "link" / "sub"), str(root))
    mc.remove(str(target), str(root))
    assert not target.exists()
    assert (outside / "precious").read_text() == "keep me"   # the symlink inside was not followed
    assert os.path.islink(str(root / "link"))


# Creation (hostpath_dirs): a real AnsibleModule's file-attribute helpers on a tmp tree.

def node_module(check_mode=False, diff=False):
    """An AnsibleModule as the node runs it (check mode and diff as asked), for its set_*_if_different helpers."""
    with patch_module_args({"_ansible_check_mode": check_mode, "_ansible_diff": diff}):
        return AnsibleModule(argument_spec={}, supports_check_mode=True)


def mine(mode="0755"):
    """Attributes this test's user can always set: its own uid and gid."""
    return dict(owner=os.getuid(), group=os.getgid(), mode=mode, setype="container_file_t")


def mode_of(path):
    return stat.S_IMODE(os.lstat(str(path)).st_mode)


def test_create_then_idempotent(tmp_path):
    root = tmp_path / "models"
    wanted = [(str(root / "alpha"), "alpha-model"), (str(root / "custom" / "beta"), "beta-model")]
    results, diffs = mc.ensure_dirs(node_module(), wanted, str(root), mine())
    assert [(r["path"], r["claim"], r["status"], r["created"]) for r in results] == [
        (str(root / "alpha"), "alpha-model", "created", True), (str(root / "custom" / "beta"), "beta-model", "created", True)]
    for path in (root / "alpha", root / "custom", root / "custom" / "beta"):
        assert path.is_dir() and mode_of(path) == 0o755, path
        assert os.lstat(str(path)).st_uid == os.getuid()
    assert [d["after"]["state"] for d in diffs] == ["directory", "directory"]
    assert diffs[0]["before"] == {"state": "absent"} and diffs[0]["before_header"] == str(root / "alpha")

    results, diffs = mc.ensure_dirs(node_module(), wanted, str(root), mine())
    assert [r["status"] for r in results] == ["unchanged", "unchanged"] and diffs == []
    assert all(r["changed"] == [] and r["created"] is False for r in results)


def test_a_changed_mode_is_set_and_shown_in_the_diff(tmp_path):
    root = tmp_path / "models"
    (root / "alpha").mkdir(parents=True)
    os.chmod(str(root / "alpha"), 0o700)
    results, diffs = mc.ensure_dirs(node_module(diff=True), [(str(root / "alpha"), "alpha-model")], str(root), mine())
    assert results[0]["status"] == "changed" and results[0]["changed"] == ["mode"]
    assert diffs[0]["before"] == {"mode": "0700"} and diffs[0]["after"] == {"mode": "0755"}
    assert mode_of(root / "alpha") == 0o755


def test_check_mode_reports_and_changes_nothing(tmp_path):
    root = tmp_path / "models"
    (root / "alpha").mkdir(parents=True)
    os.chmod(str(root / "alpha"), 0o700)
    wanted = [(str(root / "alpha"), "alpha-model"), (str(root / "beta"), "beta-model")]
    results, diffs = mc.ensure_dirs(node_module(check_mode=True), wanted, str(root), mine())
    assert [(r["status"], r["changed"]) for r in results] == [("changed", ["mode"]), ("created", ["group", "mode", "owner"])]
    assert diffs[1]["after"] == dict(state="directory", owner=os.getuid(), group=os.getgid(), mode="0755")
    assert mode_of(root / "alpha") == 0o700 and not (root / "beta").exists()
    # a missing root is not created either
    results = mc.ensure_dirs(node_module(check_mode=True), [(str(tmp_path / "none" / "x"), None)],
                             str(tmp_path / "none"), mine())[0]
    assert results[0]["status"] == "created" and not (tmp_path / "none").exists()


def test_a_missing_root_is_created_with_the_mode_only(tmp_path):
    root = tmp_path / "new" / "models"
    results = mc.ensure_dirs(node_module(), [(str(root / "alpha"), None)], str(root), mine(mode="0750"))[0]
    assert results[0]["status"] == "created" and mode_of(root / "alpha") == 0o750 and mode_of(root) == 0o750


def test_setype_changes_nothing_where_selinux_is_disabled(tmp_path):
    module = node_module()
    if module.selinux_enabled():
        pytest.fail("this test needs a host with SELinux disabled (the lab and CI machines)")
    root = tmp_path / "models"
    (root / "alpha").mkdir(parents=True)
    os.chmod(str(root / "alpha"), 0o755)
    results, diffs = mc.ensure_dirs(module, [(str(root / "alpha"), None)], str(root),
                                    dict(owner=None, group=None, mode=None, setype="container_file_t"))
    assert results[0]["status"] == "unchanged" and diffs == []


def test_refusals_name_the_claim_why_and_what_to_do(tmp_path):
    root = tmp_path / "models"
    (root / "plain").mkdir(parents=True)
    (root / "file").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(str(outside), str(root / "link"))
    wanted = [(str(root / "plain" / "ok"), "ok-model"), (str(outside / "a"), "a-model"), (str(root), "root-model"),
              (str(root / "link"), "link-model"), (str(root / "link" / "sub"), "sub-model"),
              (str(root / "file"), "file-model"), (str(root / "file" / "sub"), None),
              (str(root / "plain" / ".." / "link"), "dots-model")]
    found = mc.refusals(wanted, str(root))
    assert len(found) == 7, found
    assert found[0].startswith("a-model: %s is outside the allowed root %s; set hostpathDir to a directory below"
                               % (outside / "a", root))
    assert found[1].startswith("root-model: %s is the allowed root itself" % root)
    assert found[2].startswith("link-model: %s is a symlink (never followed); replace the symlink" % (root / "link"))
    assert found[3].startswith("sub-model: %s lies below %s, which is a symlink (never followed)"
                               % (root / "link" / "sub", root / "link"))
    assert found[4].startswith("file-model: %s is a file, not a directory; move that file away" % (root / "file"))
    assert found[5].startswith("%s lies below %s, which is a file, not a directory" % (root / "file" / "sub", root / "file"))
    assert found[6].startswith("dots-model: ") and "not normalised" in found[6]
    assert not (outside / "a").exists() and os.listdir(str(outside)) == []


def test_a_symlinked_root_is_allowed_for_creation(tmp_path):
    real = tmp_path / "data" / "models"
    real.mkdir(parents=True)
    os.symlink(str(real), str(tmp_path / "models"))
    assert mc.refusals([(str(tmp_path / "models" / "a"), None)], str(tmp_path / "models")) == []


def test_owner_and_group_lookups():
    assert mc.owner_id("65532") == 65532 and mc.owner_id(0) == 0 and mc.owner_id(None) is None
    assert mc.owner_id("root") == 0 and mc.group_id("root") == 0 and mc.group_id("65532") == 65532
    with pytest.raises(mc.CacheDirError, match="owner no-such-user-x is no user on this node"):
        mc.owner_id("no-such-user-x")
    with pytest.raises(mc.CacheDirError, match="group no-such-group-x is no group on this node"):
        mc.group_id("no-such-group-x")


def test_missing_parts_stop_at_the_root(tmp_path):
    root = tmp_path / "models"
    (root / "a").mkdir(parents=True)
    assert mc.missing_parts(str(root / "a" / "b" / "c"), str(root)) == [str(root / "a" / "b"), str(root / "a" / "b" / "c")]
    assert mc.missing_parts(str(root / "a"), str(root)) == []
    assert mc.missing_parts(str(tmp_path / "new" / "x"), str(tmp_path / "new")) == [str(tmp_path / "new" / "x")]


# From the plan (records): this node's directories, the plan check, the allowed root.

def plan_fixture():
    with open(os.path.join(os.path.dirname(__file__), "fixtures", "hostpath_plan.yml")) as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize("node, wanted", [
    ("gpu-node-1", [(ROOT + "/qwen3-0-6b-rke2", "qwen3-0-6b-rke2-model"),
                    (ROOT + "/big/qwen3-8b", "qwen3-8b-rke2-model")]),
    ("cpu-node-1", [(ROOT + "/all-minilm-l6-v2-rke2", "all-minilm-l6-v2-rke2-model")]),
    ("cpu-node-2", []),
])
def test_node_dirs_keeps_this_nodes_hostpath_records_in_plan_order(node, wanted):
    assert mc.node_dirs(plan_fixture(), node) == wanted


def test_node_dirs_skips_records_without_a_node_even_for_an_empty_node_name():
    # the dynamic claim and the cloud record have hostpath_node null: no node name selects them
    assert mc.node_dirs(plan_fixture(), None) == [] and mc.node_dirs(plan_fixture(), "") == []
    assert mc.node_dirs([], "gpu-node-1") == []


def test_node_dirs_keeps_a_shared_directory_once_with_its_first_claim():
    plan = plan_fixture()
    plan[2]["storage"]["hostpath_dir"] = plan[0]["storage"]["hostpath_dir"] + "/"
    assert mc.node_dirs(plan, "gpu-node-1") == [(ROOT + "/qwen3-0-6b-rke2", "qwen3-0-6b-rke2-model")]


@pytest.mark.parametrize("plan, message", [
    (None, "hostpath_dirs: no model plan was built (hostpath_dirs_plan is unset and so is aips_plan): run the role "
           "after the plan, as playbooks/site.yml does"),
    ({"slug": "a"}, "hostpath_dirs_plan must be the list of ai_platform.serving.model_plan records; got {'slug': 'a'}"),
    ("qwen3", "hostpath_dirs_plan must be the list of ai_platform.serving.model_plan records; got 'qwen3'"),
    ([{"slug": "a", "names": {}}], "hostpath_dirs_plan[0] is not an ai_platform.serving.model_plan record (it "
                                   "needs slug, names and storage)"),
    (["a"], "hostpath_dirs_plan[0] is not an ai_platform.serving.model_plan record"),
])
def test_node_dirs_fails_as_the_plan_records_filter_does(plan, message):
    with pytest.raises(PlanRecordsError) as caught:
        mc.node_dirs(plan, "gpu-node-1")
    assert str(caught.value).startswith(message)
    with pytest.raises(AnsibleFilterError) as filtered:
        plan_filters.plan_records(plan, [], "hostpath_dirs")
    assert str(filtered.value) == str(caught.value)


@pytest.mark.parametrize("path, below", [
    (ROOT + "/a", True), (ROOT + "/a/b", True), (ROOT + "/a/", True),
    (ROOT, False), (ROOT + "/", False), (ROOT + "//a", False), (ROOT + "-other/a", False),
    ("/var/lib/hostpath", False), ("/etc/a", False), (None, False), ("", False),
])
def test_below_root_is_strictly_below(path, below):
    assert mc.below_root(path, ROOT) is below
    assert mc.below_root(path, ROOT + "/") is below


def test_outside_root_names_claim_dir_root_and_fix_per_directory():
    plan = plan_fixture()
    plan[0]["storage"]["hostpath_dir"] = "/srv/models/qwen3"
    plan[2]["storage"]["hostpath_dir"] = ROOT
    wanted = mc.node_dirs(plan, "gpu-node-1")
    assert mc.outside_root(wanted, ROOT + "/") == [
        "qwen3-0-6b-rke2-model: hostpathDir /srv/models/qwen3 is not below hostpath_dirs_allowed_root %s; move the "
        "directory under it or widen hostpath_dirs_allowed_root." % ROOT,
        "qwen3-8b-rke2-model: hostpathDir %s is not below hostpath_dirs_allowed_root %s; move the directory under "
        "it or widen hostpath_dirs_allowed_root." % (ROOT, ROOT),
    ]
    assert mc.outside_root(mc.node_dirs(plan_fixture(), "gpu-node-1"), ROOT) == []
