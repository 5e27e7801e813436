"""A role run without a plan fails naming what to do; an empty plan is a plan of no models (no cluster needed)."""

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT


def play(tmp_path, role, extra=None):
    playbook = tmp_path / "play.yml"
    playbook.write_text("- hosts: localhost\n  gather_facts: false\n  roles:\n    - ai_platform.serving.%s\n" % role)
    variables = dict(extra or {}, ansible_python_interpreter=sys.executable)
    args = ["ansible-playbook", "-i", "localhost,", "-c", "local", str(playbook), "-e", json.dumps(variables)]
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    proc = subprocess.run(args, env=env, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("role", ["hostpath_dirs", "model_storage", "serving_stack"])
def test_a_role_without_a_plan_fails_and_says_what_to_do(tmp_path, role):
    rc, out = play(tmp_path, role, {"hostpath_dirs_node_name": "n1"})
    assert rc != 0, out
    assert "%s: no model plan was built" % role in out and "playbooks/site.yml" in out, out
    assert "changed=0" in out, out


@pytest.mark.parametrize("role", ["model_storage", "serving_stack"])
def test_an_empty_plan_handles_no_model(tmp_path, role):
    rc, out = play(tmp_path, role, {"%s_plan" % role: []})
    assert rc == 0 and "failed=0" in out, out
