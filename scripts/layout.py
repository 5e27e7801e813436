# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Print the collection's tree of plugins, roles, playbooks and scripts, one line per file saying what it owns.

A file's purpose is taken from the file itself, so it cannot drift from a list kept elsewhere:

- a Python file: the first sentence of its module docstring, else its ``DOCUMENTATION``'s
  ``short_description`` (modules, lookups), else the first line of its header comment;
- a role: the ``short_description`` of the ``main`` entry point of ``meta/argument_specs.yml``;
- a playbook, task file or shell script: the first sentence of its header comment.

An empty ``__init__.py`` owns nothing (ansible-test's empty-init sanity test keeps those of module_utils
empty) and is left out. ``python scripts/layout.py --check`` lists every covered file without a purpose
and exits 1 when there is one; tests/unit/test_file_purposes.py runs the same check.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os
import re
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDTH = 120
# (folder, recurse, what a covered file's name ends with), in the order a reader follows one run:
# playbooks, their task files, the roles, the plugins the roles call, the shared Python, the tooling.
COVERED = (
    ("playbooks", False, (".yml",)),
    ("playbooks/tasks", False, (".yml",)),
    ("roles", False, None),
    ("plugins/modules", False, (".py",)),
    ("plugins/action", False, (".py",)),
    ("plugins/filter", False, (".py",)),
    ("plugins/lookup", False, (".py",)),
    ("plugins/plugin_utils", False, (".py",)),
    ("plugins/doc_fragments", False, (".py",)),
    ("plugins/module_utils", True, (".py",)),
    ("scripts", False, ("",)),
)
BOILERPLATE = re.compile(r"^(-\*- coding|copyright|gnu general public license|spdx-license-identifier)", re.I)
NOT_AN_END = ("e.g.", "i.e.", "etc.", "vs.")


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def first_sentence(text):
    """The first sentence of a docstring or comment paragraph, on one line, with reST markup dropped.

    Only the first paragraph counts (up to a blank line or an indented line such as a command example).
    A sentence ends at a full stop followed by a space or the end; ``e.g.`` and the like do not end one.
    """
    lines = []
    for line in text.strip().splitlines():
        if not line.strip() or (lines and line.startswith("  ")):
            break
        lines.append(line.strip())
    paragraph = " ".join(lines)
    paragraph = re.sub(r":[a-z]+:`([^`]*)`", r"\1", paragraph)
    paragraph = paragraph.replace("``", "`")
    for match in re.finditer(r"\.(?=\s|$)", paragraph):
        end = match.end()
        if not paragraph[:end].lower().endswith(NOT_AN_END):
            return paragraph[:end]
    return paragraph


def _header_comment(text):
    """The comment paragraph a file opens with, after a shebang, a YAML document marker and licence lines."""
    lines = []
    for line in text.splitlines():
        stripped = line.strip()
        if not lines and (stripped == "---" or not stripped):
            continue
        if not stripped.startswith("#"):
            break
        body = stripped.lstrip("#")
        if not lines and (stripped.startswith("#!") or BOILERPLATE.match(body.strip())):
            continue
        if not body.strip():
            if lines:
                break
            continue
        lines.append(body[1:] if body.startswith(" ") else body)
    return "\n".join(lines)


def python_purpose(path):
    """A Python file's purpose: module docstring, else DOCUMENTATION's short_description, else header comment."""
    text = _read(path)
    tree = ast.parse(text, filename=path)
    docstring = ast.get_docstring(tree)
    if docstring and docstring.strip():
        return first_sentence(docstring)
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "DOCUMENTATION" for t in node.targets):
            if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
                doc = yaml.safe_load(node.value.value) or {}
                if isinstance(doc, dict) and doc.get("short_description"):
                    return str(doc["short_description"]).strip()
    comment = _header_comment(text)
    return first_sentence(comment) if comment else None


def role_purpose(role_dir):
    """A role's purpose: the short_description of its main entry point (else the first entry point that has one)."""
    path = os.path.join(role_dir, "meta", "argument_specs.yml")
    if not os.path.isfile(path):
        return None
    specs = (yaml.safe_load(_read(path)) or {}).get("argument_specs") or {}
    for name in ["main"] + sorted(specs):
        entry = specs.get(name) or {}
        if entry.get("short_description"):
            return str(entry["short_description"]).strip()
    return None


def text_purpose(path):
    """A playbook's, task file's or shell script's purpose: the first sentence of its header comment."""
    comment = _header_comment(_read(path))
    return first_sentence(comment) if comment else None


def entries(root=ROOT):
    """Every covered file as (folder, name, purpose or None), in output order; a role is one entry."""
    found = []
    for top, recurse, suffixes in COVERED:
        base = os.path.join(root, top)
        if not os.path.isdir(base):
            continue
        for folder, dirs, files in os.walk(base):
            dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_"))) if recurse else []
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            if suffixes is None:  # roles: one entry per role directory
                for name in sorted(os.listdir(folder)):
                    if os.path.isdir(os.path.join(folder, name)) and not name.startswith("."):
                        found.append((rel, name + "/", role_purpose(os.path.join(folder, name))))
                continue
            for name in sorted(files):
                path = os.path.join(folder, name)
                if name.startswith(".") or not name.endswith(suffixes) or not os.path.isfile(path):
                    continue
                if name == "__init__.py" and not _read(path).strip():
                    continue
                purpose = python_purpose(path) if name.endswith(".py") else text_purpose(path)
                found.append((rel, name, purpose))
    return found


def missing(root=ROOT):
    """Relative paths of the covered files (and roles) that have no purpose line."""
    return ["%s/%s" % (folder, name) for folder, name, purpose in entries(root) if not purpose]


def _fit(line):
    if len(line) <= WIDTH:
        return line
    cut = line[:WIDTH - 3].rsplit(" ", 1)[0].rstrip(" ,;:")
    return cut + "..."


def render(found):
    """The tree as lines: a folder heading, then one line per file with its purpose, none over WIDTH."""
    lines = []
    groups = []
    for folder, name, purpose in found:
        if not groups or groups[-1][0] != folder:
            groups.append((folder, []))
        groups[-1][1].append((name, purpose))
    for folder, items in groups:
        if lines:
            lines.append("")
        lines.append(folder + "/")
        width = max(len(name) for name, _purpose in items)
        for name, purpose in items:
            lines.append(_fit("  %-*s  %s" % (width, name, purpose or "(no purpose line)")))
    return lines


def main(argv=None, root=ROOT):
    args = sys.argv[1:] if argv is None else argv
    if args not in ([], ["--check"]):
        print("usage: python scripts/layout.py [--check]", file=sys.stderr)
        return 2
    found = entries(root)
    if args == ["--check"]:
        lacking = ["%s/%s" % (folder, name) for folder, name, purpose in found if not purpose]
        for path in lacking:
            print("no purpose line: %s" % path)
        if lacking:
            print("%d covered file(s) lack a purpose line: give each a one-line module docstring "
                  "(Python) or header comment" % len(lacking))
            return 1
        print("every covered file and role has a purpose line (%d)" % len(found))
        return 0
    for line in render(found):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
