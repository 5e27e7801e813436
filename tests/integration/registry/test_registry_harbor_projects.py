# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""harbor_upload's "projects" step through the real module and role, against a recording stand-in.

Harbor cannot run on the project's machines. tests/support/harbor_standin.py (the registry fixture's
certificate) answers the two Harbor v2.0 calls the harbor_project module makes and records
them, so the wiring (TLS with the configured CA, basic auth, check mode, no_log) is exercised
end to end; the request shapes themselves are pinned by tests/unit/plugins/module_utils/registry/test_harbor.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.ai_platform.serving.tests.support.harbor_standin import ADMIN_PASSWORD, FakeHarbor


@pytest.fixture
def harbor(registry):
    fake = FakeHarbor(os.path.join(registry.workdir, "certs"))
    yield fake
    fake.stop()


def project_vars(registry, harbor, password=ADMIN_PASSWORD):
    return dict(
        harbor_upload_steps=["projects"],
        harbor_upload_registry="127.0.0.1",
        harbor_upload_api_url=harbor.url,
        harbor_upload_admin_password=password,
        harbor_upload_registry_ca_file=registry.ca,
        harbor_upload_images=[dict(source="ghcr.io/oras-project/oras:v1.3.1", project="images-infra"),
                              dict(source="ghcr.io/llm-d/llm-d-inference-sim:v0.7.1", project="images-shaide")],
        harbor_upload_charts=[dict(name="c", version="1", chart="c", project="charts")],
    )


def test_missing_projects_are_created_once(registry, harbor, run_role):
    check = run_role("harbor_upload", project_vars(registry, harbor), check=True)
    assert check.rc == 0 and check.changed == 1, check
    assert [r for r in harbor.requests if r[0] == "POST"] == []
    run = run_role("harbor_upload", project_vars(registry, harbor), verbosity=4)
    assert run.rc == 0 and run.changed == 1, run
    assert ADMIN_PASSWORD not in run.output
    posted = sorted(r[2]["project_name"] for r in harbor.requests if r[0] == "POST")
    assert posted == ["ai-models", "charts", "images-shaide"]
    assert all(r[1] == "/api/v2.0/projects" for r in harbor.requests)
    again = run_role("harbor_upload", project_vars(registry, harbor))
    assert again.rc == 0 and again.changed == 0, again


def test_wrong_admin_password_fails_without_showing_it(registry, harbor, run_role):
    wrong = "Wr0ng-" + os.urandom(6).hex()
    run = run_role("harbor_upload", project_vars(registry, harbor, password=wrong), verbosity=4)
    assert run.rc != 0, run
    assert "Harbor %s rejected the credentials" % harbor.url in run.output, run
    assert wrong not in run.output
