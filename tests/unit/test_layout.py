# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The YAML of roles/, molecule/ and playbooks/ holds no copied block (issue 16): no run of more than
MAX_SHARED normalised lines appears in two files, or twice in one file. Normalised: indentation and
trailing blanks dropped; blank lines, comment lines and document markers skipped.

Not scanned: symlinks (one file under two names, not a copy) and the per-model Helm values under a
``models/`` folder (model data in the users' format, one complete values file per model).

Run as a script to list every copied block: ``python tests/unit/test_layout.py [max_shared]``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import sys

MAX_SHARED = 8
SCANNED = ("roles", "molecule", "playbooks")
SUFFIXES = (".yml", ".yaml", ".yml.j2", ".yaml.j2")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def yaml_files(root=ROOT):
    """Relative paths of the scanned YAML files, sorted."""
    found = []
    for top in SCANNED:
        for folder, dirs, files in os.walk(os.path.join(root, top)):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in files:
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if not name.endswith(SUFFIXES) or os.path.islink(path):
                    continue
                if name in ("values.yaml", "values.yml") and "/models/" in "/" + rel:
                    continue
                found.append(rel)
    return sorted(found)


def normalised(text):
    """(line, line number) for every line that counts."""
    lines = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if line and not line.startswith("#") and line not in ("---", "..."):
            lines.append((line, number))
    return lines


def copied_blocks(texts, max_shared=MAX_SHARED):
    """Every maximal run of more than max_shared normalised lines found at two places.

    texts: {name: text}. Returns sorted tuples (length, (name, first, last), (name, first, last)) with
    1-based line numbers of the original texts; the first place sorts before the second.
    """
    window = max_shared + 1
    lines = dict((name, normalised(text)) for name, text in texts.items())
    starts = {}
    for name in sorted(lines):
        for k in range(len(lines[name]) - window + 1):
            key = tuple(entry[0] for entry in lines[name][k:k + window])
            starts.setdefault(key, []).append((name, k))
    matches = set()
    for places in starts.values():
        for i, one in enumerate(places):
            for other in places[i + 1:]:
                if one[0] != other[0] or other[1] - one[1] >= window:
                    matches.add((one, other))
    blocks = []
    for one, other in sorted(matches):
        previous = ((one[0], one[1] - 1), (other[0], other[1] - 1))
        if previous in matches:
            continue  # inside a longer run found from its first window
        length = window
        while ((one[0], one[1] + length - window + 1), (other[0], other[1] + length - window + 1)) in matches:
            length += 1
        blocks.append((length,
                       (one[0], lines[one[0]][one[1]][1], lines[one[0]][one[1] + length - 1][1]),
                       (other[0], lines[other[0]][other[1]][1], lines[other[0]][other[1] + length - 1][1])))
    return sorted(blocks, key=lambda block: (block[1], block[2]))


def describe(block):
    length, one, other = block
    return "%s:%d-%d ~ %s:%d-%d (%d lines)" % (one + other + (length,))


def scan(root=ROOT, max_shared=MAX_SHARED):
    texts = {}
    for rel in yaml_files(root):
        with open(os.path.join(root, rel)) as handle:
            texts[rel] = handle.read()
    return copied_blocks(texts, max_shared)


def test_scan_finds_a_copied_block_between_files_and_within_one():
    block = "\n".join("- name: Step %d\n  ansible.builtin.debug:\n    msg: %d" % (i, i) for i in range(3))
    texts = {
        "a.yml": "---\n# a\n- name: Only here\n  x: 1\n" + block + "\n",
        "b.yml": "---\n" + block.replace("  ", "    ") + "\n\n# trailing\n",
        "c.yml": block + "\n- name: Between\n" + block + "\n",
        "d.yml": "\n".join(block.splitlines()[:8]) + "\n",
    }
    blocks = copied_blocks(texts, 8)
    assert ("a.yml", 5, 13) in [b[1] for b in blocks]
    assert (9, ("a.yml", 5, 13), ("b.yml", 2, 10)) in blocks
    assert (9, ("c.yml", 1, 9), ("c.yml", 11, 19)) in blocks
    assert all("d.yml" not in (b[1][0], b[2][0]) for b in blocks), blocks
    assert len(blocks) == 6, [describe(b) for b in blocks]


def test_scan_reports_one_maximal_run_per_copy():
    lines = "\n".join("key%d: %d" % (i, i) for i in range(20))
    blocks = copied_blocks({"a.yml": lines, "b.yml": "other: 1\n" + lines}, 8)
    assert blocks == [(20, ("a.yml", 1, 20), ("b.yml", 2, 21))]


def test_scan_covers_the_roles_scenarios_and_playbooks():
    files = yaml_files()
    for top in SCANNED:
        assert any(rel.startswith(top + "/") for rel in files), top
    assert "roles/harbor_upload/meta/argument_specs.yml" in files
    assert "molecule/serving_stack/prepare.yml" in files


def test_no_copied_yaml_block_between_roles_scenarios_or_playbooks():
    blocks = scan()
    assert not blocks, "copied YAML blocks of more than %d lines (move them to one shared file):\n%s" % (
        MAX_SHARED, "\n".join(describe(block) for block in blocks))


if __name__ == "__main__":
    for found in scan(ROOT, int(sys.argv[1]) if len(sys.argv) > 1 else MAX_SHARED):
        print(describe(found))
