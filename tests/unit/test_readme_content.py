# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The README's "Included content" table lists exactly what ``ansible-doc -l`` lists for the collection (roles,
modules, filters, lookups) and every playbook in playbooks/: a plugin added without its line, or a line left for a
plugin that is gone, fails here. Its "Variables" table has a row for every collection-wide default
(group_vars/all/main.yml) and names no variable group_vars/all does not define."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PREFIX = "ai_platform.serving."
KINDS = ("role", "module", "filter", "lookup")


def readme_table():
    """``{kind: set of names}`` from the table under "## Included content" (a cell may name several: `a` / `b`)."""
    with open(os.path.join(ROOT, "README.md")) as handle:
        text = handle.read()
    section = text.split("\n## Included content\n", 1)[1].split("\n#", 1)[0]
    found = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 3 or cells[0] in ("kind", "") or set(cells[0]) <= set("-"):
            continue
        names = re.findall(r"`([^`]+)`", cells[1])
        assert names, "README table row without a name: %s" % line
        found.setdefault(cells[0], set()).update(
            name if name.startswith((PREFIX, "playbooks/")) else PREFIX + name for name in names)
    return found


def ansible_doc(kind):
    binary = os.path.join(os.path.dirname(sys.executable), "ansible-doc")
    assert os.access(binary, os.X_OK), "ansible-doc is not beside %s (run scripts/setup.sh)" % sys.executable
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"))
    proc = subprocess.run([binary, "-t", kind, "-l", "ai_platform.serving", "--json"], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout))


@pytest.mark.parametrize("kind", KINDS)
def test_the_readme_lists_what_ansible_doc_lists(kind):
    listed = ansible_doc(kind)
    assert listed, "ansible-doc lists no %s of the collection: is it on the collections path?" % kind
    table = readme_table().get(kind, set())
    assert sorted(listed - table) == [], "in ansible-doc, missing from the README's table"
    assert sorted(table - listed) == [], "in the README's table, unknown to ansible-doc"


def test_the_readme_lists_every_playbook():
    playbooks = set("playbooks/" + name for name in os.listdir(os.path.join(ROOT, "playbooks"))
                    if name.endswith(".yml"))
    assert readme_table().get("playbook") == playbooks


def readme_variables():
    """The variables named in the first cell of the rows of the table under "## Variables" (a cell may name
    several: `a` / `b`)."""
    with open(os.path.join(ROOT, "README.md")) as handle:
        text = handle.read()
    lines = text.split("\n## Variables\n", 1)[1].splitlines()
    start = [i for i, line in enumerate(lines) if line.startswith("| variable |")][0]
    found = set()
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        names = re.findall(r"`([^`]+)`", line.strip().strip("|").split("|")[0])
        assert names, "README variables row without a name: %s" % line
        found.update(names)
    return found


def group_vars(name):
    with open(os.path.join(ROOT, "group_vars", "all", name)) as handle:
        return set(yaml.safe_load(handle))


def test_every_collection_wide_default_has_a_row_in_the_readmes_variables_table():
    """Issue 26 (aips_keep_revisions had no row): a key added to group_vars/all/main.yml needs its row."""
    defaults = group_vars("main.yml")
    assert "aips_keep_revisions" in defaults
    assert sorted(defaults - readme_variables()) == [], "in group_vars/all/main.yml, missing from the README's table"


def test_the_readmes_variables_table_names_only_variables_group_vars_all_defines():
    known = group_vars("main.yml") | group_vars("images.yml")
    assert sorted(readme_variables() - known) == [], "in the README's variables table, defined nowhere in group_vars/all"
