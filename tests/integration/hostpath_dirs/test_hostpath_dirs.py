"""hostpath_dirs through ansible-playbook on this machine (a real node filesystem): present and absent."""

import json
import os
import stat
import subprocess

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT, make_models_tree

PLAYBOOK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "playbook.yml")


def source(node, hostpath_dir=None):
    spec = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/m:v1", "modelUri": "hub/org/m",
            "storageSize": "1Gi", "hostpathNode": node}
    if hostpath_dir:
        spec["hostpathDir"] = hostpath_dir
    return spec


@pytest.fixture
def tree(tmp_path):
    folders = {"embedder/A": ["gaie-a", "ms-a"], "embedder/B": ["gaie-b", "ms-b"], "generative/C": ["gaie-c", "ms-c"]}
    return tmp_path, make_models_tree(tmp_path, {"folders": folders}), str(tmp_path / "root")


def run(tmp_path, models_dir, root, models, *args, **extra):
    """playbook.yml with these variables (``extra`` too); ``args`` go to ansible-playbook."""
    extra_vars = dict(aips_models=models, aips_models_dir=models_dir, aips_hostpath_root=root, **extra)
    vars_file = tmp_path / "vars.json"
    vars_file.write_text(json.dumps(extra_vars))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", PLAYBOOK, "-e", "@%s" % vars_file] + list(args),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def models_for(root):
    return {"embedder": [
        {"name": "A", "enabled": True, "modelSource": source("node-1")},
        {"name": "B", "enabled": True, "modelSource": source("node-2")},
    ], "generative": [
        {"name": "C", "enabled": True, "modelSource": source("node-1", root + "/custom/c")},
    ]}


def test_creates_only_this_nodes_directories_and_is_idempotent(tree):
    tmp_path, models_dir, root = tree
    rc, out = run(tmp_path, models_dir, root, models_for(root))
    assert rc == 0, out
    for path in (root + "/a", root + "/custom/c"):
        mode = os.stat(path).st_mode
        assert stat.S_ISDIR(mode) and stat.S_IMODE(mode) == 0o755, path
    assert not os.path.exists(root + "/b"), "node-2's directory must not be created on node-1"
    rc, out = run(tmp_path, models_dir, root, models_for(root))
    assert rc == 0 and "changed=0" in out, out


@pytest.mark.parametrize("state", ["present", "absent"])
def test_a_node_with_no_model_changes_nothing(tree, state):
    tmp_path, models_dir, root = tree
    models = {"embedder": [{"name": "B", "enabled": True, "modelSource": source("node-2")}], "generative": []}
    os.makedirs(os.path.join(root, "b"))   # node-2's: not this node's to remove
    rc, out = run(tmp_path, models_dir, root, models, hostpath_dirs_state=state)
    assert rc == 0 and "changed=0" in out and "failed=0" in out, out
    assert os.listdir(root) == ["b"]


def test_check_mode_creates_nothing(tree):
    tmp_path, models_dir, root = tree
    rc, out = run(tmp_path, models_dir, root, models_for(root), "--check")
    assert rc == 0, out
    assert not os.path.exists(root)


def test_refuses_a_directory_outside_the_allowed_root(tree):
    tmp_path, models_dir, root = tree
    outside = str(tmp_path / "elsewhere" / "c")
    models = {"generative": [{"name": "C", "enabled": True, "modelSource": source("node-1", outside)}]}
    # the plan refuses it first when it shares the root; here the plan's root is wider than the role's
    rc, out = run(tmp_path, models_dir, str(tmp_path), models, "-e", "hostpath_dirs_allowed_root=%s" % root)
    assert rc != 0
    assert "c-model: hostpathDir %s is not below hostpath_dirs_allowed_root %s" % (outside, root) in out
    assert not os.path.exists(outside)


def test_absent_removes_this_nodes_directories_but_not_one_a_volume_uses(tree):
    tmp_path, models_dir, root = tree
    models = models_for(root)
    rc, out = run(tmp_path, models_dir, root, models)
    assert rc == 0, out
    with open(os.path.join(root, "a", ".pulled"), "w") as handle:
        handle.write("digest=sha256:%s\n" % ("1" * 64))
    os.makedirs(os.path.join(root, "b"))   # node-2's: not this node's to remove
    volume = {"metadata": {"name": "c-model-pv"}, "spec": {"hostPath": {"path": root + "/custom/c"}}}

    rc, out = run(tmp_path, models_dir, root, models, hostpath_dirs_state="absent", hostpath_dirs_volumes=[volume])
    assert rc == 0, out
    assert not os.path.exists(os.path.join(root, "a"))
    assert os.path.isdir(os.path.join(root, "b")) and os.path.isdir(os.path.join(root, "custom", "c"))
    assert "kept PV c-model-pv" in " ".join(out.split()), out

    rc, out = run(tmp_path, models_dir, root, models, hostpath_dirs_state="absent", hostpath_dirs_volumes=[volume])
    assert rc == 0 and "changed=0" in out, out


def test_absent_never_follows_a_symlinked_model_directory(tmp_path):
    models_dir = make_models_tree(tmp_path, {"folders": {"embedder/A": ["gaie-a", "ms-a"]}})
    root = str(tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious").write_text("keep me")
    os.makedirs(root)
    os.symlink(str(outside), os.path.join(root, "a"))
    models = {"embedder": [{"name": "A", "enabled": True, "modelSource": source("node-1")}], "generative": []}
    rc, out = run(tmp_path, models_dir, root, models, hostpath_dirs_state="absent")
    assert rc != 0 and "is a symlink (never followed)" in out and "nothing was removed" in out, out
    assert os.path.islink(os.path.join(root, "a")) and (outside / "precious").read_text() == "keep me"


def test_present_never_creates_through_a_symlink_and_shows_the_diff(tmp_path):
    models_dir = make_models_tree(tmp_path, {"folders": {"embedder/A": ["gaie-a", "ms-a"],
                                                         "generative/C": ["gaie-c", "ms-c"]}})
    root = str(tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    os.makedirs(root)
    os.symlink(str(outside), os.path.join(root, "a"))
    models = {"embedder": [{"name": "A", "enabled": True, "modelSource": source("node-1")}],
              "generative": [{"name": "C", "enabled": True, "modelSource": source("node-1")}]}
    rc, out = run(tmp_path, models_dir, root, models)
    assert rc != 0, out
    assert "refused, nothing was created: a-model: %s/a is a symlink (never followed)" % root in out, out
    assert os.listdir(str(outside)) == [] and not os.path.exists(os.path.join(root, "c"))

    os.unlink(os.path.join(root, "a"))
    os.makedirs(os.path.join(root, "a"), mode=0o700)
    os.chmod(os.path.join(root, "a"), 0o700)
    rc, out = run(tmp_path, models_dir, root, models, "--diff")
    assert rc == 0 and "changed=1" in out, out
    assert "-    \"mode\": \"0700\"" in out and "+    \"mode\": \"0755\"" in out, out
    assert "+    \"state\": \"directory\"" in out, out
