# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytest fixtures of a real registry on loopback (``registry``, ``registry.Registry``) and of the
tools that talk to it (``tools``), shared by tests/integration/registry and tests/integration/bundle.
A conftest.py imports the fixtures it uses by name.

Tools (oras, helm, skopeo, docker-registry) come from $AIPS_ORAS, $AIPS_HELM, $AIPS_SKOPEO,
$AIPS_REGISTRY_BIN or PATH (``eval "$(lab/lab env)"`` puts the lab's builds there); a missing one makes
the tests error, never skip.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry
from ansible_collections.ai_platform.serving.tests.support.registry import find_tool

TOOLS = dict(oras="AIPS_ORAS", helm="AIPS_HELM", skopeo="AIPS_SKOPEO", registry="AIPS_REGISTRY_BIN")
EXECUTABLES = dict(registry="docker-registry")


@pytest.fixture(scope="session")
def tools():
    return dict((key, find_tool(EXECUTABLES.get(key, key), env)) for key, env in TOOLS.items())


@pytest.fixture(scope="session")
def registry(tmp_path_factory, tools):  # pylint: disable=redefined-outer-name,unused-argument
    reg = lab_registry.Registry(str(tmp_path_factory.mktemp("registry")))
    reg.start()
    yield reg
    reg.stop()
