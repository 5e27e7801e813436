# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The layout of plugins/module_utils shows the architecture (issue 28): its top level holds only the
two modules every package uses (naming, args_common) and packages named after what they own, and the unit
tests mirror those packages."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODULE_UTILS = os.path.join(ROOT, "plugins", "module_utils")
TESTS = os.path.join(ROOT, "tests", "unit", "plugins", "module_utils")
TOP_LEVEL_MODULES = {"naming.py", "args_common.py"}
PACKAGES = {"plan", "k8s", "migrate", "registry", "stack", "storage", "sync"}


def test_top_level_holds_only_naming_args_common_and_packages():
    entries = [e for e in os.listdir(MODULE_UTILS) if not e.startswith(("_", "."))]
    files = {e for e in entries if os.path.isfile(os.path.join(MODULE_UTILS, e))}
    folders = {e for e in entries if os.path.isdir(os.path.join(MODULE_UTILS, e))}
    assert files == TOP_LEVEL_MODULES
    assert folders == PACKAGES
    for package in folders:
        assert os.path.isfile(os.path.join(MODULE_UTILS, package, "__init__.py")), package


def test_unit_tests_mirror_the_packages():
    """Every package has a test folder of the same name, and every test file there names a module of it."""
    for package in PACKAGES:
        folder = os.path.join(TESTS, package)
        assert os.path.isdir(folder), "tests/unit/plugins/module_utils/%s is missing" % package
        modules = {name[:-3] for name in os.listdir(os.path.join(MODULE_UTILS, package)) if name.endswith(".py")}
        for name in os.listdir(folder):
            if not (name.startswith("test_") and name.endswith(".py")):
                continue
            stem = name[len("test_"):-3]
            assert any(stem == m or stem.startswith(m + "_") for m in modules), (
                "tests/unit/plugins/module_utils/%s/%s tests no module of plugins/module_utils/%s" % (package, name, package))


def test_no_plugin_imports_six():
    """ansible.module_utils.six is marked for removal (warnings from ansible-core 2.22, gone in 2.24): the
    collection uses the Python 3 standard library on both ends of its support matrix."""
    found = []
    for folder, _dirs, files in os.walk(os.path.join(ROOT, "plugins")):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as handle:
                    if "module_utils.six" in handle.read():
                        found.append(os.path.relpath(path, ROOT))
    assert found == []
