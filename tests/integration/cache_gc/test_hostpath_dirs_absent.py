# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""hostpath_dirs with hostpath_dirs_state=absent on this machine (no cluster needed)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess

from plan_cases import ROOT, make_models_tree

PLAYBOOK = os.path.join(ROOT, "tests", "integration", "hostpath_dirs", "playbook.yml")


def source(node, hostpath_dir=None):
    spec = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/m:v1", "modelUri": "hub/org/m",
            "storageSize": "1Gi", "hostpathNode": node}
    if hostpath_dir:
        spec["hostpathDir"] = hostpath_dir
    return spec


def run(tmp_path, models_dir, root, models, **extra):
    extra_vars = dict(aips_models=models, aips_models_dir=models_dir, aips_hostpath_root=root, **extra)
    vars_file = tmp_path / "vars.json"
    vars_file.write_text(json.dumps(extra_vars))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    proc = subprocess.run(["ansible-playbook", "-i", "localhost,", PLAYBOOK, "-e", "@%s" % vars_file],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def test_absent_removes_this_nodes_directories_but_not_one_a_volume_uses(tmp_path):
    folders = {"embedder/A": ["gaie-a", "ms-a"], "embedder/B": ["gaie-b", "ms-b"], "generative/C": ["gaie-c", "ms-c"]}
    models_dir = make_models_tree(tmp_path, {"folders": folders})
    root = str(tmp_path / "root")
    models = {"embedder": [{"name": "A", "enabled": True, "modelSource": source("node-1")},
                           {"name": "B", "enabled": True, "modelSource": source("node-2")}],
              "generative": [{"name": "C", "enabled": True, "modelSource": source("node-1", root + "/custom/c")}]}
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
