# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the roles against a real registry on loopback.

Self-contained: each session starts Debian's docker-registry (CNCF distribution)
with TLS from a fresh CA and htpasswd auth on 127.0.0.1 (tests/support/registry.py), so
the registry log and a byte-counting relay show exactly what was sent. The
tools are real too: oras, helm and skopeo are looked up in $AIPS_ORAS / $AIPS_HELM /
$AIPS_SKOPEO or on PATH (``eval "$(lab/lab env)"`` puts the lab's builds there);
a missing one makes the tests error, never skip.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.registry_fixtures import registry, tools  # noqa: F401  pylint: disable=unused-import
from ansible_collections.ai_platform.serving.tests.support.lab import minilm_hub  # noqa: F401  pylint: disable=unused-import
from ansible_collections.ai_platform.serving.tests.support.playbook import run_role as run_one_role


def make_runner(workdir):
    """Run one role of the collection on localhost with the given variables (from a file, not argv)."""
    def run(role, variables, tasks_from="main", verbosity=0, check=False):
        return run_one_role(None, workdir, role, variables, tasks_from=tasks_from, verbosity=verbosity, check=check)
    return run


@pytest.fixture
def run_role(tmp_path, tools):  # pylint: disable=redefined-outer-name,unused-argument
    return make_runner(tmp_path)


@pytest.fixture(scope="module")
def module_run_role(tmp_path_factory, tools):  # pylint: disable=redefined-outer-name,unused-argument
    """run_role for module-scoped fixtures (tests may be spread over xdist workers)."""
    return make_runner(tmp_path_factory.mktemp("plays"))
