# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack_removal's read on a fake API: a missing namespace, a kind the API lacks, a list refused."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import ForbiddenError, NotFoundError, ResourceNotFoundError

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import removal
from ansible_collections.ai_platform.serving.plugins.modules import serving_stack_removal as mod

MANAGED = {"app.kubernetes.io/managed-by": "ai_platform.serving"}


class Kind(object):
    def __init__(self, kind):
        self.kind = kind


class FakeClient(object):
    """Namespace llm-a (the collection's) holding one user ConfigMap; no Gateway API; Secrets refused."""

    def __init__(self, namespaces):
        self.namespaces = namespaces

    def resource(self, kind, api_version):
        if api_version.startswith("gateway.networking.k8s.io"):
            raise ResourceNotFoundError("no Gateway API here")
        return Kind(kind)

    def get(self, resource, name=None, namespace=None):
        if resource.kind == "Namespace":
            if name not in self.namespaces:
                raise NotFoundError(ApiException(status=404, reason="Not Found"))
            return {"metadata": {"name": name, "labels": dict(MANAGED)}}
        if resource.kind == "Secret":
            raise ForbiddenError(ApiException(status=403, reason="Forbidden"))
        if resource.kind == "ConfigMap":
            return {"items": [{"metadata": {"name": "settings", "uid": "u1"}}]}
        return {"items": []}


def test_the_read_lists_the_kinds_skips_those_the_api_lacks_and_names_those_refused():
    live, objects, unlisted = mod.read_namespace(FakeClient(["llm-a"]), "llm-a")
    assert live["metadata"]["name"] == "llm-a"
    assert objects == [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings", "uid": "u1"}}]
    assert unlisted == ["Secret"]
    record = {"slug": "a", "namespace": "llm-a", "names": {}, "storage": {"mode": "harbor", "pvc": "a-model"}}
    decision = removal.decide([record], [record], {"llm-a": live}, {"llm-a": objects}, {"llm-a": unlisted})
    assert decision["delete"] == []
    assert decision["kept"][0]["message"] == (
        "llm-a: kept the namespace: objects the collection did not make are in it; its Secret could not be listed; "
        "remains: ConfigMap settings")


def test_a_missing_namespace_reads_as_none():
    assert mod.read_namespace(FakeClient([]), "llm-b") == (None, [], [])


def test_every_inspected_kind_is_listed():
    assert len(set(removal.INSPECTED_KINDS)) == len(removal.INSPECTED_KINDS) == 19
