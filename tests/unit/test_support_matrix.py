# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The support matrix is pinned once (scripts/support-matrix.env) and every place that declares it agrees:
meta/runtime.yml, galaxy.yml, the README's table, lab/versions.env; and the interpreter running these tests
is the ansible-core and kubernetes.core of its end."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys

import yaml
from ansible.module_utils.compat.version import LooseVersion
from ansible.release import __version__ as ANSIBLE_CORE

from ansible_collections.ai_platform.serving.tests.support import ROOT


def env_file(path):
    found = {}
    with open(os.path.join(ROOT, path)) as handle:
        for line in handle:
            line = line.strip()
            if line and not line.startswith("#"):
                key, _sep, value = line.partition("=")
                found[key] = value.strip('"')
    return found


MATRIX = env_file("scripts/support-matrix.env")
LAB = env_file("lab/versions.env")


def minor(version):
    return ".".join(version.split(".")[:2])


def test_runtime_requires_exactly_the_matrix_range():
    with open(os.path.join(ROOT, "meta", "runtime.yml")) as handle:
        runtime = yaml.safe_load(handle)
    oldest, newest = minor(MATRIX["OLDEST_ANSIBLE_CORE"]), minor(MATRIX["NEWEST_ANSIBLE_CORE"])
    major, newest_minor = newest.split(".")
    upper = "%s.%d" % (major, int(newest_minor) + 1)
    assert runtime["requires_ansible"] == ">=%s.0,<%s.0" % (oldest, upper)


def test_galaxy_depends_on_the_oldest_kubernetes_core_of_the_matrix():
    with open(os.path.join(ROOT, "galaxy.yml")) as handle:
        galaxy = yaml.safe_load(handle)
    bound = galaxy["dependencies"]["kubernetes.core"]
    assert bound == ">=%s,<%s.0.0" % (MATRIX["OLDEST_KUBERNETES_CORE"], int(MATRIX["NEWEST_KUBERNETES_CORE"][0]) + 1)


def test_readme_table_names_every_pin():
    with open(os.path.join(ROOT, "README.md")) as handle:
        readme = handle.read()
    table = readme[readme.index("**The support matrix.**"):readme.index("What differs between the ends")]
    for key in ("NEWEST_ANSIBLE_CORE", "NEWEST_ANSIBLE_BUNDLE", "NEWEST_KUBERNETES_CORE", "OLDEST_ANSIBLE_CORE",
                "OLDEST_ANSIBLE_BUNDLE", "OLDEST_KUBERNETES_CORE", "OLDEST_PYTHON", "NEWEST_PYTHON_MIN"):
        assert MATRIX[key] in table, key
    for key in ("HELM_VERSION", "HELM4_VERSION"):
        assert LAB[key] in table, key
    assert "%s–%s" % (MATRIX["NEWEST_PYTHON_MIN"], MATRIX["NEWEST_PYTHON_MAX"]) in table


def test_the_lab_builds_both_helm_majors_of_the_matrix():
    assert LAB["HELM_VERSION"].startswith("v3.") and LAB["HELM4_VERSION"].startswith("v4.")


def test_this_interpreter_runs_its_ends_pins():
    """The tests run on one end (scripts/test.sh: .venv the newest, the oldest stage .venv-oldest): its Python,
    ansible-core and kubernetes.core are the matrix's."""
    python = "%d.%d" % sys.version_info[:2]
    if python == MATRIX["OLDEST_PYTHON"]:
        end = "OLDEST"
    else:
        assert LooseVersion(MATRIX["NEWEST_PYTHON_MIN"]) <= LooseVersion(python) <= LooseVersion(
            MATRIX["NEWEST_PYTHON_MAX"]), "Python %s is in neither end of the support matrix" % python
        end = "NEWEST"
    assert ANSIBLE_CORE == MATRIX[end + "_ANSIBLE_CORE"]
    import ansible_collections.kubernetes.core as kubernetes_core  # pylint: disable=import-outside-toplevel
    with open(os.path.join(list(kubernetes_core.__path__)[0], "MANIFEST.json")) as handle:
        manifest = json.load(handle)
    assert manifest["collection_info"]["version"] == MATRIX[end + "_KUBERNETES_CORE"]
