# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the roles against a real registry on loopback.

Self-contained: each session starts Debian's docker-registry (CNCF distribution)
with TLS from a fresh CA and htpasswd auth on 127.0.0.1 (lab_registry.py), so
the registry log and a byte-counting relay show exactly what was sent. The
tools are real too: oras, helm and skopeo are looked up in $AIPS_ORAS / $AIPS_HELM /
$AIPS_SKOPEO or on PATH (``eval "$(lab/lab env)"`` puts the lab's builds there);
a missing one makes the tests error, never skip.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)

import hub_fixture  # noqa: E402
import lab_registry  # noqa: E402

RECAP_RE = re.compile(r"^\S+\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def find_tool(name, env):
    path = os.environ.get(env) or shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError("%s not found (set %s or put it on PATH; see tests/integration/registry/README.md)"
                           % (name, env))
    return path


@pytest.fixture(scope="session")
def tools():
    return dict(oras=find_tool("oras", "AIPS_ORAS"), helm=find_tool("helm", "AIPS_HELM"),
                skopeo=find_tool("skopeo", "AIPS_SKOPEO"),
                registry=find_tool("docker-registry", "AIPS_REGISTRY_BIN"))


@pytest.fixture(scope="session")
def registry(tmp_path_factory, tools):
    reg = lab_registry.Registry(str(tmp_path_factory.mktemp("registry")))
    reg.start()
    yield reg
    reg.stop()


@pytest.fixture(scope="session")
def minilm_hub(tmp_path_factory):
    hub = str(tmp_path_factory.mktemp("hf") / "hub")
    hub_fixture.build_hub_cache(hub_fixture.minilm_dir(), hub, hub_fixture.MINILM_REPO, hub_fixture.MINILM_COMMIT)
    return hub


class PlaybookRun:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.output = proc.stdout + proc.stderr
        recap = RECAP_RE.findall(proc.stdout)
        self.ok, self.changed, self.unreachable, self.failed = (
            [int(x) for x in recap[-1]] if recap else (None, None, None, None))

    def __repr__(self):
        return "rc=%s changed=%s failed=%s\n%s" % (self.rc, self.changed, self.failed, self.output[-6000:])


def make_runner(workdir, tools):
    """Run one role of the collection on localhost with the given variables (from a file, not argv)."""
    def run(role, variables, tasks_from="main", verbosity=0, check=False):
        playbook = workdir / ("play-%s.yml" % role)
        playbook.write_text(
            "- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
            "    - name: Apply the role\n      ansible.builtin.include_role:\n"
            "        name: ai_platform.serving.%s\n        tasks_from: %s\n" % (role, tasks_from))
        extra = workdir / "vars.json"
        extra.write_text(json.dumps(variables))
        argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                "-e", "@%s" % extra, "-e", "ansible_python_interpreter=%s" % sys.executable, str(playbook)]
        if verbosity:
            argv.append("-" + "v" * verbosity)
        if check:
            argv.append("--check")
        env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                   ANSIBLE_FORCE_COLOR="0")
        return PlaybookRun(subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, check=False, text=True))
    return run


@pytest.fixture
def run_role(tmp_path, tools):
    return make_runner(tmp_path, tools)


@pytest.fixture(scope="module")
def module_run_role(tmp_path_factory, tools):
    """run_role for module-scoped fixtures (tests may be spread over xdist workers)."""
    return make_runner(tmp_path_factory.mktemp("plays"), tools)
