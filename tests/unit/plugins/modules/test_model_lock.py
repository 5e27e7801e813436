# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_lock on a scripted client: the Leases taken in order; an API error on one namespace fails naming it and
returns the holder and the Leases taken before it, so the run can give those back (model_storage_pull does). The
Lease semantics themselves are tested in test_lease.py and on the lab (tests/integration/hardening)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import ForbiddenError, NotFoundError

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner as cluster
from ansible_collections.ai_platform.serving.plugins.modules import model_lock
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main


class Client(object):
    """No Lease exists; creating one in ``refused`` is forbidden."""

    def __init__(self, refused=()):
        self.refused, self.created = set(refused), []

    def resource(self, kind, api_version):
        return kind

    def get(self, resource, name=None, namespace=None):
        raise NotFoundError(ApiException(status=404, reason="Not Found"))

    def create(self, resource, body, namespace=None):
        if namespace in self.refused:
            raise ForbiddenError(ApiException(status=403, reason="Forbidden"))
        self.created.append(namespace)


def run(capsys, monkeypatch, client, **args):
    monkeypatch.setattr(cluster, "get_api_client", lambda module: client)
    return run_main(model_lock.main, capsys, args)


def test_the_leases_are_taken_and_the_run_named(capsys, monkeypatch):
    client = Client()
    out = run(capsys, monkeypatch, client, namespaces=["n1", "n2"], wait=0)
    assert not out.get("failed"), out
    assert client.created == ["n1", "n2"] and sorted(out["leases"]) == ["n1", "n2"] and "@" in out["holder"]


@pytest.mark.parametrize("refused", ["n2"])
def test_an_api_error_fails_naming_the_namespace_and_returns_what_to_give_back(capsys, monkeypatch, refused):
    client = Client(refused=[refused])
    out = run(capsys, monkeypatch, client, namespaces=["n1", "n2", "n3"], wait=0, holder="me@here/1")
    assert out["failed"] and out["msg"].startswith("n2: the Lease ") and "could not be taken" in out["msg"], out
    assert out["holder"] == "me@here/1" and list(out["leases"]) == ["n1"]  # n1 taken before: given back by the run
    assert client.created == ["n1"] and "Traceback" not in out["msg"]
