# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the air-gap bundle tests: the lab inventory bundled with no registry reachable, then loaded
into a real registry of their own on loopback (tests/support/registry.py: TLS, htpasswd, access log and a
byte-counting relay). Tools (oras, helm, skopeo, docker-registry) come from PATH (``eval "$(lab/lab env)"``)
or $AIPS_ORAS, $AIPS_HELM, $AIPS_SKOPEO, $AIPS_REGISTRY_BIN; the lab's images from the OCI layout the lab
builds them into. A missing tool or layout makes the tests error, never skip.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.registry_fixtures import registry, tools  # noqa: F401  pylint: disable=unused-import
from ansible_collections.ai_platform.serving.tests.support.bundle import bundle_vars, closed_port, offline_env, run_playbook


@pytest.fixture(scope="module")
def bundled(tmp_path_factory, tools):  # pylint: disable=redefined-outer-name,unused-argument
    """The lab inventory bundled once with no registry reachable (Harbor at a closed port, proxies closed)."""
    work = tmp_path_factory.mktemp("bundle")
    harbor = "127.0.0.1:%d" % closed_port()
    variables = bundle_vars(work / "bundle", work / "work", harbor)
    run = run_playbook("bundle.yml", variables, work, env=offline_env())
    assert run.rc == 0, run
    return dict(dir=work / "bundle", work=work, run=run, variables=variables, harbor=harbor)
