# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role's renamed variables are wired the same way (issue 28, one name per TLS/CA option): the role's first
task warns of each old name (module renamed_variables, release 2.0.0), its defaults derive the new variable from the
old one, meta/argument_specs.yml documents both (the old one as deprecated, with no default), and nothing else in
the role, nor anywhere in the repository outside the role, the changelog and the plays that keep the old names
working, reads the old name. A run on localhost: tests/integration/plan/test_roles_old_variable_names.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLES = sorted(os.listdir(os.path.join(ROOT, "roles")))
# Besides the role: the plays that take a role's variables without running the role keep the old names working
# themselves; the README names them as old; the tests of the renames set them.
ELSEWHERE = {"playbooks/load.yml", "playbooks/render.yml", "README.md", "plugins/modules/renamed_variables.py",
             "tests/integration/plan/test_roles_old_variable_names.py",
             "tests/unit/plugins/plugin_utils/test_renamed_variables.py"}


def _yaml(*path):
    with open(os.path.join(ROOT, *path)) as handle:
        return yaml.safe_load(handle)


def renamed_of(role):
    """(the renamed_variables task's ``renamed``, its ``version``) of the role's tasks/main.yml, or None."""
    tasks = _yaml("roles", role, "tasks", "main.yml")
    calls = [task["ai_platform.serving.renamed_variables"] for task in tasks
             if "ai_platform.serving.renamed_variables" in task]
    if not calls:
        return None
    assert tasks[0].get("ai_platform.serving.renamed_variables") is not None, "%s: not the first task" % role
    return calls[0]["renamed"], calls[0]["version"]


RENAMED = dict((role, renamed_of(role)) for role in ROLES if renamed_of(role))


def test_the_roles_with_renamed_variables():
    assert sorted(RENAMED) == ["harbor_upload", "model_sync", "serving_stack"]
    assert set(version for _renamed, version in RENAMED.values()) == {"2.0.0"}


@pytest.mark.parametrize("role", sorted(RENAMED))
def test_defaults_derive_the_new_name_from_the_old(role):
    defaults = _yaml("roles", role, "defaults", "main.yml")
    for old, new in RENAMED[role][0].items():
        assert old not in defaults, "%s: an old name in the defaults would always warn" % old
        assert re.match(r"^\{\{ %s \| default\([^)]*\) \}\}$" % old, str(defaults[new])), (new, defaults[new])


@pytest.mark.parametrize("role", sorted(RENAMED))
def test_argument_specs_document_both_names(role):
    options = _yaml("roles", role, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    for old, new in RENAMED[role][0].items():
        assert new in options and "default" in options[new], new
        assert "default" not in options[old], old
        assert options[old]["type"] == options[new]["type"], old
        text = " ".join(options[old]["description"])
        assert text.startswith("Deprecated, removed in 2.0.0") and "C(%s)" % new in text, text


@pytest.mark.parametrize("role", sorted(RENAMED))
def test_only_the_derivation_and_the_warning_read_an_old_name(role):
    """git grep over the repository: an old name appears only where it is kept working or documented as old."""
    allowed = {"roles/%s/%s" % (role, path) for path in
               ("tasks/main.yml", "defaults/main.yml", "meta/argument_specs.yml", "README.md")}
    for old in RENAMED[role][0]:
        files = subprocess.run(["git", "grep", "-lw", old], cwd=ROOT, capture_output=True, text=True,
                               check=False).stdout.split()
        stray = [path for path in files if path not in allowed | ELSEWHERE and not path.startswith("changelogs/")]
        assert stray == [], (old, stray)
