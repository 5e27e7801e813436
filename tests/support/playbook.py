# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-playbook runs of the tests: a playbook, or one role of the collection on localhost."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import sys
import uuid

from ansible_collections.ai_platform.serving.tests.support import ROOT

RECAP_RE = re.compile(r"^\S+\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)
ROLE_PLAY = ("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
             "    - name: Apply the role\n      ansible.builtin.include_role:\n"
             "        name: ai_platform.serving.%s\n        tasks_from: %s\n")


class Run(object):
    """One ansible-playbook run: rc, output, the last recap's counts, and the results file when asked for one."""

    def __init__(self, proc, results_path=None):
        self.rc = proc.returncode
        self.output = proc.stdout + proc.stderr
        recap = RECAP_RE.findall(proc.stdout)
        self.ok, self.changed, self.unreachable, self.failed = (
            [int(x) for x in recap[-1]] if recap else (None, None, None, None))
        self.results = None
        if results_path and os.path.exists(results_path):
            with open(results_path) as handle:
                self.results = json.load(handle)

    def __repr__(self):
        return "rc=%s changed=%s failed=%s\n%s" % (self.rc, self.changed, self.failed, self.output[-8000:])

    __str__ = __repr__


def playbook_argv(playbook, variables, workdir, verbosity=0, check=False, inventory="localhost,", extra_args=()):
    """The command line of a run; ``variables`` go through a file (mode 0600), never argv."""
    extra = os.path.join(str(workdir), "vars-%s.json" % uuid.uuid4().hex[:6])
    with open(extra, "w") as handle:
        json.dump(variables, handle)
    os.chmod(extra, 0o600)
    argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", inventory,
            "-e", "@" + extra, "-e", "ansible_python_interpreter=%s" % sys.executable, playbook]
    if verbosity:
        argv.append("-" + "v" * verbosity)
    if check:
        argv.append("--check")
    argv.extend(extra_args)
    return argv


def playbook_env(env=None):
    """os.environ with ``env`` (the lab's variables, say) and this checkout's ansible.cfg."""
    merged = dict(os.environ, **(env or {}))
    merged.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    return merged


def ansible_playbook(env, playbook, variables, workdir, verbosity=0, check=False, inventory="localhost,",
                     extra_args=()):
    """Run ``playbook`` with ``variables`` and ``env`` added to the environment; a Run."""
    argv = playbook_argv(playbook, variables, workdir, verbosity, check, inventory, extra_args)
    proc = subprocess.run(argv, cwd=ROOT, env=playbook_env(env), capture_output=True, text=True, check=False)
    return Run(proc, variables.get("aips_test_results"))


def run_role(env, workdir, role, variables, tasks_from="main", verbosity=0, check=False):
    """Apply one role of the collection (``tasks_from`` its task file) on localhost."""
    playbook = os.path.join(str(workdir), "play-%s.yml" % role)
    with open(playbook, "w") as handle:
        handle.write(ROLE_PLAY % (role, tasks_from))
    return ansible_playbook(env, playbook, variables, workdir, verbosity=verbosity, check=check)


def flat(text):
    """Output with runs of whitespace folded, so wrapped messages match."""
    return " ".join(text.split())
