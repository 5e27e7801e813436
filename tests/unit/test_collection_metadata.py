# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""galaxy.yml and the plugins' documentation agree: no plugin or option was added in a release after the
collection's version (galaxy.yml), and galaxy.yml carries what ansible-lint's production profile wants."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VERSION_ADDED = re.compile(r"""version_added:\s*["']?([0-9][0-9.]*)""")


def galaxy():
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        return yaml.safe_load(handle)


def release(text):
    return tuple(int(part) for part in text.split("."))


def versions_added():
    found = []
    for folder, dirs, files in os.walk(os.path.join(ROOT, "plugins")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in sorted(files):
            if not name.endswith((".py", ".yml", ".yaml")):
                continue
            path = os.path.join(folder, name)
            with open(path) as handle:
                for number, line in enumerate(handle, 1):
                    match = VERSION_ADDED.search(line)
                    if match:
                        found.append(("%s:%d" % (os.path.relpath(path, ROOT), number), match.group(1)))
    return found


def test_galaxy_names_its_repository():
    meta = galaxy()
    assert meta.get("repository", "").startswith("https://"), meta.get("repository")


def test_no_version_added_after_the_collection_version():
    version = galaxy()["version"]
    found = versions_added()
    assert len(found) > 20, found
    later = ["%s says %s" % place for place in found if release(place[1]) > release(version)]
    assert not later, "version_added after galaxy.yml's version %s: %s" % (version, later)
