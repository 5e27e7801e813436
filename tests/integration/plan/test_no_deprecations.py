# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The playbooks run clean on both ends of the support matrix (issue 32): no deprecation that ansible-core or a
Python library prints in a plan run on the repo's example inventories.

The integration stage runs this on the newest end (ansible-core 2.21); the oldest stage of scripts/test.sh runs it,
with test_plan_playbook.py, on ansible-core 2.19 and Python 3.11. What ansible-core 2.20 and 2.21 changed in
templating (the data tagging of 2.19 carried on, Jinja's native types, broken conditionals, implicit string
conversions) shows up here as a deprecation warning or an error before it breaks a site.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT, chart_lock_file

DEPRECATION = re.compile(r"\[DEPRECATION WARNING\]|DeprecationWarning|is deprecated", re.I)


def run(playbook, inventory, *extra):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0",
               ANSIBLE_DEPRECATION_WARNINGS="1", AIPS_HARBOR_TOKEN="example-token")
    proc = subprocess.run(["ansible-playbook", "-i", os.path.join(ROOT, "inventory", inventory),
                           os.path.join(ROOT, "playbooks", playbook)] + list(extra),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("inventory", ["cloud", "rke2"])
def test_the_plan_runs_without_a_deprecation(tmp_path, inventory):
    rc, output = run("plan.yml", inventory, "-e", "aips_plan_output=%s" % (tmp_path / "plan.yml"),
                     "-e", "aips_lock_file=%s" % chart_lock_file(tmp_path))
    assert rc == 0, output
    found = [line for line in output.splitlines() if DEPRECATION.search(line)]
    assert found == [], "\n".join(found)
    version = subprocess.run(["ansible-playbook", "--version"], capture_output=True, text=True, check=True).stdout
    assert re.match(r"ansible-playbook \[core 2\.(19|2[01])\.", version), version
