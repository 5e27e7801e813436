# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters are grouped in families (issue 28): plugins/filter/<family>.py holds the filters of one family,
tests/unit/plugins/filter/test_<family>.py tests each of them, every filter has its <filter>.yml doc beside the
family file, and the README's content table names every filter (its parser is test_readme_content's)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os
import re

from ansible_collections.ai_platform.serving.tests.unit.test_readme_content import PREFIX, readme_table

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILTERS = os.path.join(ROOT, "plugins", "filter")
TESTS = os.path.join(ROOT, "tests", "unit", "plugins", "filter")
FAMILIES = {"names", "references", "sources", "claims", "pod_security", "plan", "migrate"}


def families():
    return sorted(name[:-3] for name in os.listdir(FILTERS) if name.endswith(".py") and not name.startswith("_"))


def family_filters(family):
    module = importlib.import_module("ansible_collections.ai_platform.serving.plugins.filter." + family)
    return sorted(module.FilterModule().filters())


def test_the_filter_files_are_the_families():
    assert set(families()) == FAMILIES


def test_every_family_has_its_test_file_and_no_test_file_names_another():
    tests = sorted(name[len("test_"):-3] for name in os.listdir(TESTS) if name.startswith("test_") and name.endswith(".py"))
    assert tests == families()


def test_each_family_test_file_calls_every_filter_of_its_family():
    """Called as ``<family module>.<filter>(`` or looked up as ``filters["<filter>"]``."""
    missing = []
    for family in families():
        with open(os.path.join(TESTS, "test_%s.py" % family)) as handle:
            text = handle.read()
        missing.extend("%s: %s" % (family, name) for name in family_filters(family)
                       if not re.search(r"\.%s\(|\[\"%s\"\]" % (name, name), text))
    assert missing == []


def test_a_filter_name_belongs_to_one_family_and_has_its_doc():
    seen = {}
    for family in families():
        for name in family_filters(family):
            assert name not in seen, "%s is a filter of both %s and %s" % (name, seen[name], family)
            seen[name] = family
            assert os.path.isfile(os.path.join(FILTERS, name + ".yml")), "plugins/filter/%s.yml is missing" % name
    docs = set(name[:-4] for name in os.listdir(FILTERS) if name.endswith(".yml"))
    assert sorted(docs - set(seen)) == [], "a <filter>.yml without its filter"


def test_the_readme_content_table_names_every_filter():
    names = set(PREFIX + name for family in families() for name in family_filters(family))
    assert sorted(names - readme_table().get("filter", set())) == []
