# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_namespace on a scripted client: one list of the namespaces, one read per pull secret, and writes only of
what is missing or differs; check mode leaves the records of a namespace to be created out of ``live`` and
dry-runs nothing in it; a failure names the object without the token. The writes themselves are kubernetes.core's
(perform_action); the lab tests of serving_stack and model_storage apply them on a real API server."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import pull_secret
from ansible_collections.ai_platform.serving.plugins.modules import model_namespace

TOKEN = "t0ken-of-the-pull-robot"
LABELS = {"pod-security.kubernetes.io/enforce": "baseline"}
RECORDS = [{"name": "a", "namespace": "llm-a", "names": {"harbor_pull_secret": "harbor-creds"}},
           {"name": "b", "namespace": "llm-b", "names": {"harbor_pull_secret": "harbor-creds"}}]


class Exit(Exception):
    pass


class Module(object):
    def __init__(self, check_mode=False, diff=False, token=TOKEN):
        self.check_mode, self._diff = check_mode, diff
        self.params = dict(records=RECORDS, pod_security={"enforce": "baseline"}, harbor_hostname="harbor.example",
                           harbor_user="robot$pull", harbor_token=token)
        self.result = None

    def exit_json(self, **result):
        self.result = dict(result, failed=False)
        raise Exit()

    def fail_json(self, **result):
        self.result = dict(result, failed=True)
        raise Exit()


class NotFound(Exception):
    pass


class Client(object):
    """Namespaces and secrets as the API would list and get them; counts the reads."""

    def __init__(self, namespaces, secrets):
        self.namespaces, self.secrets, self.reads = namespaces, secrets, []

    def resource(self, kind, api_version):
        return kind

    def get(self, resource, name=None, namespace=None):
        self.reads.append((resource, namespace, name))
        if resource == "Namespace":
            return {"items": [{"metadata": {"name": n, "labels": labels}} for n, labels in self.namespaces.items()]}
        if (namespace, name) not in self.secrets:
            raise NotFound(name)
        return self.secrets[(namespace, name)]


def secret(namespace, token=TOKEN):
    return pull_secret.pull_secret("harbor-creds", namespace, "harbor.example", "robot$pull", token)


@pytest.fixture
def applied(monkeypatch):
    calls = []

    def fake_apply(module, client, todo):
        calls.append(list(todo))
        return [{"changed": True, "result": item} for item in todo]
    monkeypatch.setattr(model_namespace, "_apply", fake_apply)
    monkeypatch.setattr(model_namespace, "NotFoundError", NotFound)
    return calls


def run(module, client):
    with pytest.raises(Exit):
        model_namespace.execute_module(module, client)
    return module.result


def test_everything_in_place_reads_once_and_writes_nothing(applied):
    client = Client({"llm-a": dict(LABELS), "llm-b": dict(LABELS, site="own")},
                    {("llm-a", "harbor-creds"): secret("llm-a"), ("llm-b", "harbor-creds"): secret("llm-b")})
    result = run(Module(), client)
    assert result == dict(changed=False, created=[], applied=[], live=RECORDS, failed=False)
    assert applied == []
    assert client.reads == [("Namespace", None, None), ("Secret", "llm-a", "harbor-creds"),
                            ("Secret", "llm-b", "harbor-creds")]


def test_a_missing_namespace_is_created_with_the_mark_and_its_secret_written(applied):
    client = Client({"llm-a": dict(LABELS)}, {("llm-a", "harbor-creds"): secret("llm-a", "old-token")})
    result = run(Module(), client)
    assert result["changed"] and result["created"] == ["llm-b"] and result["live"] == RECORDS
    assert result["applied"] == ["Namespace llm-b", "Secret llm-a/harbor-creds", "Secret llm-b/harbor-creds"]
    (todo,) = applied
    assert todo[0]["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "ai_platform.serving"
    assert ("Secret", "llm-b", "harbor-creds") not in client.reads  # its namespace did not exist: nothing to read
    assert TOKEN not in repr(result)


def test_check_mode_leaves_a_namespace_to_create_out_of_live_and_dry_runs_nothing_in_it(applied):
    client = Client({"llm-a": dict(LABELS)}, {("llm-a", "harbor-creds"): secret("llm-a")})
    result = run(Module(check_mode=True, diff=True), client)
    assert result["created"] == ["llm-b"] and result["live"] == RECORDS[:1]
    assert [item["kind"] for item in applied[0]] == ["Namespace"]


def test_a_failure_names_the_object_and_never_the_token(monkeypatch):
    def failing(module, client, todo):
        return [{"changed": False, "error": {"msg": "Failed to create object: forbidden %s" % TOKEN}} for _item in todo]
    monkeypatch.setattr(model_namespace, "_apply", failing)
    monkeypatch.setattr(model_namespace, "NotFoundError", NotFound)
    result = run(Module(), Client({}, {}))
    assert result["failed"]
    assert "namespace llm-a: the Namespace could not be applied" in result["msg"]
    assert "namespace llm-b: the Secret harbor-creds could not be applied" in result["msg"]
    assert TOKEN not in result["msg"]


def test_a_token_without_host_is_refused_before_any_read(applied):
    module = Module()
    module.params["harbor_hostname"] = ""
    client = Client({}, {})
    result = run(module, client)
    assert result["failed"] and "a: the Harbor host and user" in result["msg"]
    assert client.reads == []
