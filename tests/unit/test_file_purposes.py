# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every plugin, module_utils file, role, playbook and script says what it owns (issue 28): scripts/layout.py
prints the tree from those purpose lines, and its check finds none missing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _load_layout():
    spec = importlib.util.spec_from_file_location("aips_layout_script", os.path.join(ROOT, "scripts", "layout.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


layout = _load_layout()


def test_no_covered_file_lacks_a_purpose():
    assert layout.missing(ROOT) == []


def test_every_plugin_file_and_role_is_covered():
    """The check is only as good as what it walks: every non-empty Python file under plugins/ and every role."""
    covered = {"%s/%s" % (folder, name) for folder, name, _purpose in layout.entries(ROOT)}
    expected = set()
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "plugins")):
        for name in files:
            path = os.path.join(folder, name)
            if name.endswith(".py") and os.path.getsize(path) and "__pycache__" not in path:
                expected.add(os.path.relpath(path, ROOT).replace(os.sep, "/"))
    for name in os.listdir(os.path.join(ROOT, "roles")):
        if os.path.isdir(os.path.join(ROOT, "roles", name)):
            expected.add("roles/%s/" % name)
    assert expected - covered == set()
    assert "scripts/layout.py" in covered
    assert "playbooks/site.yml" in covered


def test_repository_tree_fits_the_width():
    lines = layout.render(layout.entries(ROOT))
    assert [line for line in lines if len(line) > layout.WIDTH] == []
    assert "plugins/module_utils/stack/" in lines


def _write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


LICENCE = "# -*- coding: utf-8 -*-\n# Copyright: (c) 2026, someone\n# GNU General Public License v3.0+\n"


@pytest.fixture
def tree(tmp_path):
    root = str(tmp_path)
    utils = os.path.join(root, "plugins", "module_utils", "pkg")
    _write(os.path.join(utils, "__init__.py"), "")
    _write(os.path.join(utils, "owned.py"),
           LICENCE + '"""Owns the widgets, e.g. the blue ones.\n\nMore about them."""\n\nX = 1\n')
    _write(os.path.join(utils, "bare.py"), LICENCE + "\nX = 1  # a comment below code is no purpose\n")
    _write(os.path.join(utils, "long.py"), '"""%s."""\n' % " ".join(["word"] * 60))
    _write(os.path.join(root, "plugins", "modules", "thing.py"),
           "#!/usr/bin/python\n" + LICENCE + 'DOCUMENTATION = r"""\nmodule: thing\nshort_description: Make a thing\n"""\n')
    _write(os.path.join(root, "roles", "good", "meta", "argument_specs.yml"),
           "---\nargument_specs:\n  other:\n    short_description: Not this one\n"
           "  main:\n    short_description: Apply the good things\n")
    _write(os.path.join(root, "roles", "nospec", "tasks", "main.yml"), "---\n- name: X\n  ansible.builtin.debug:\n")
    _write(os.path.join(root, "playbooks", "go.yml"),
           "---\n# Run the good role on every host.\n#   ansible-playbook playbooks/go.yml\n- hosts: all\n")
    _write(os.path.join(root, "scripts", "run.sh"), "#!/usr/bin/env bash\n# Run the thing. Then stop.\nset -e\n")
    return root


def test_fixture_missing_purposes_are_reported(tree):
    assert layout.missing(tree) == ["roles/nospec/", "plugins/module_utils/pkg/bare.py"]


def test_fixture_purposes_are_printed(tree):
    lines = layout.render(layout.entries(tree))
    assert "plugins/module_utils/pkg/" in lines
    assert "  owned.py  Owns the widgets, e.g. the blue ones." in lines
    assert "  bare.py   (no purpose line)" in lines
    assert "  thing.py  Make a thing" in lines
    assert "  good/    Apply the good things" in lines
    assert "  go.yml  Run the good role on every host." in lines
    assert "  run.sh  Run the thing." in lines
    assert not any("__init__" in line for line in lines)
    long_line = [line for line in lines if line.startswith("  long.py")][0]
    assert len(long_line) <= layout.WIDTH and long_line.endswith("word...")


def test_check_exit_status(tree, capsys):
    assert layout.main(["--check"], root=tree) == 1
    out = capsys.readouterr().out
    assert "no purpose line: plugins/module_utils/pkg/bare.py" in out
    assert "no purpose line: roles/nospec/" in out
    os.remove(os.path.join(tree, "plugins", "module_utils", "pkg", "bare.py"))
    _write(os.path.join(tree, "roles", "nospec", "meta", "argument_specs.yml"),
           "---\nargument_specs:\n  main:\n    short_description: Now it says\n")
    assert layout.main(["--check"], root=tree) == 0
    assert layout.main(["--bogus"], root=tree) == 2
