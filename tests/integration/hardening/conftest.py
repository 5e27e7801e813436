# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the hardening tests (issue 13) on the lab: a model per test, its own slug and namespace,
Pod Security "restricted" on its namespace, the playbooks run on the controller group of a site inventory.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import OneModel

HOSTPATH_ROOT = "/var/tmp/aips-hardening-test"
RESTRICTED = {"enforce": "restricted", "warn": "restricted", "audit": "restricted"}


@pytest.fixture
def model(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    """One embedder of slug hdn-<id> on the MiniLM artifact, on-prem on the lab node."""
    made = OneModel(lab, kube, tmp_path, minilm_hub, prefix="hdn", name="Hdn", hostpath_root=HOSTPATH_ROOT)
    made.fixed.update(aips_pod_security=RESTRICTED, aips_site_registries=False, aips_nodes_become=False)
    yield made
    made.cleanup()
