# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""apply_storage / remove_storage on a fake API: what is created, kept, replaced, refused."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import ForbiddenError, NotFoundError

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner as pull_k8s
from ansible_collections.ai_platform.serving.tests.support.storage_records import load_records


DIGEST = "sha256:" + "a" * 64


class Kind(object):
    def __init__(self, kind):
        self.kind = kind


class FakeClient(object):
    def __init__(self):
        self.objects = {}
        self.calls = []

    def resource(self, kind, api_version):
        return Kind(kind)

    def get(self, resource, name=None, namespace=None, **params):
        key = (resource.kind, namespace, name)
        if key not in self.objects:
            raise NotFoundError(ApiException(status=404, reason="Not Found"))
        return copy.deepcopy(self.objects[key])

    def create(self, resource, definition, namespace=None):
        self.calls.append(("create", resource.kind))
        self.objects[(resource.kind, namespace, definition["metadata"]["name"])] = copy.deepcopy(definition)
        return definition

    def delete(self, resource, name=None, namespace=None, body=None):
        self.calls.append(("delete", resource.kind))
        del self.objects[(resource.kind, namespace, name)]


@pytest.fixture
def record():
    return load_records()["on_prem"]


def test_first_apply_creates_everything_and_second_keeps_it(record):
    client = FakeClient()
    changed, actions, objects = pull_k8s.apply_storage(client, record, DIGEST)
    assert changed and actions["pv"] == "created" and actions["pvc"] == "created" and actions["job"] == "created"
    assert [c[1] for c in client.calls] == ["PersistentVolume", "PersistentVolumeClaim", "Job"]
    client.calls = []
    changed, actions, _manifests = pull_k8s.apply_storage(client, record, DIGEST)
    assert not changed and actions == {"pv": "present", "pvc": "present", "job": "kept",
                                       "job_reason": "the Job is up to date"}
    assert client.calls == []


def test_the_claims_annotations_as_read_come_back_for_the_wait(record):
    client = FakeClient()
    assert pull_k8s.apply_storage(client, record, DIGEST)[2]["claim_annotations"] == {}   # created just now
    claim = client.objects[("PersistentVolumeClaim", record["namespace"], record["storage"]["pvc"])]
    claim["metadata"]["annotations"] = {pull_marker.ANNOTATION_DIGEST: DIGEST}
    objects = pull_k8s.apply_storage(client, record, DIGEST)[2]
    assert objects["claim_annotations"] == {pull_marker.ANNOTATION_DIGEST: DIGEST}
    assert sorted(objects) == ["claim_annotations", "job", "pv", "pvc"]


def test_the_job_model_storage_state_built_is_created_as_given_and_not_built_again(record, monkeypatch):
    client = FakeClient()
    job = manifests.job_manifest(record, DIGEST, expected_size=7, concurrency=2)

    def built_again(*args, **kwargs):
        raise AssertionError("the Job was built again: %r %r" % (args, kwargs))
    monkeypatch.setattr(manifests, "job_manifest", built_again)
    changed, actions, objects = pull_k8s.apply_storage(client, record, DIGEST, job=job)
    assert changed and actions["job"] == "created" and objects["job"] == job
    assert client.objects[("Job", record["namespace"], record["storage"]["pull_job"])] == job
    with pytest.raises(manifests.StorageError, match="the pull Job given pulls %s, not the artifact's sha256:b" % DIGEST):
        pull_k8s.apply_storage(client, record, "sha256:" + "b" * 64, job=job)


def test_new_digest_replaces_the_job_only(record):
    client = FakeClient()
    pull_k8s.apply_storage(client, record, DIGEST)
    client.calls = []
    changed, actions, _manifests = pull_k8s.apply_storage(client, record, "sha256:" + "b" * 64)
    assert changed and actions["job"] == "replaced"
    assert client.calls == [("delete", "Job"), ("create", "Job")]
    job = client.objects[("Job", record["namespace"], record["storage"]["pull_job"])]
    assert job["metadata"]["annotations"][pull_marker.ANNOTATION_DIGEST] == "sha256:" + "b" * 64


def test_check_mode_changes_nothing(record):
    client = FakeClient()
    changed, actions, _manifests = pull_k8s.apply_storage(client, record, DIGEST, check_mode=True)
    assert changed and actions["job"] == "created"
    assert client.objects == {} and client.calls == []


def test_mismatching_pv_is_refused_not_changed(record):
    client = FakeClient()
    pv = manifests.pv_manifest(record)
    pv["spec"]["hostPath"]["path"] = "/somewhere/else"
    client.objects[("PersistentVolume", None, pv["metadata"]["name"])] = pv
    with pytest.raises(pull_k8s.PullApiError, match="hostPath is '/somewhere/else'"):
        pull_k8s.apply_storage(client, record, DIGEST)
    assert client.calls == []


def test_remove_storage_deletes_job_claim_and_pv(record):
    client = FakeClient()
    pull_k8s.apply_storage(client, record, DIGEST)
    assert pull_k8s.remove_storage(client, record) == ["job", "pvc", "pv"]
    assert client.objects == {}
    assert pull_k8s.remove_storage(client, record) == []
    pull_k8s.apply_storage(client, record, DIGEST)
    assert pull_k8s.remove_storage(client, record, keep_claim=True) == ["job"]
    assert len(client.objects) == 2


class ListingClient(object):
    """Lists by label selector; ``all_namespaces`` says whether a list across all namespaces is allowed."""

    def __init__(self, items, all_namespaces=True):
        self.items, self.all_namespaces, self.lists = items, all_namespaces, []

    def resource(self, kind, api_version):
        return Kind(kind)

    def get(self, resource, name=None, namespace=None, label_selector=None):
        self.lists.append((resource.kind, namespace))
        if namespace is None and resource.kind != "PersistentVolume" and not self.all_namespaces:
            raise ForbiddenError(ApiException(status=403, reason="Forbidden"))
        return {"items": [item for item in self.items if item["kind"] == resource.kind
                          and (namespace is None or item["metadata"].get("namespace") == namespace)]}


def listed(kind, name, namespace=None):
    return {"kind": kind, "metadata": dict({"name": name}, **({"namespace": namespace} if namespace else {}))}


@pytest.mark.parametrize("all_namespaces", [True, False], ids=["one-list-per-kind", "forbidden-per-namespace"])
def test_the_model_cache_is_listed_once_per_kind_across_namespaces(all_namespaces):
    items = [listed("PersistentVolumeClaim", "a-model", "ns-a"), listed("PersistentVolumeClaim", "b-model", "ns-b"),
             listed("PersistentVolumeClaim", "other-model", "ns-other"), listed("Job", "a-pull", "ns-a"),
             listed("PersistentVolume", "a-pv")]
    client = ListingClient(items, all_namespaces)
    claims, volumes, jobs = pull_k8s.list_model_cache(client, ["ns-a", "ns-b"])
    assert sorted(claims) == [("ns-a", "a-model"), ("ns-b", "b-model")]   # another model's namespace left out
    assert sorted(jobs) == [("ns-a", "a-pull")] and list(volumes) == [(None, "a-pv")]
    if all_namespaces:
        assert client.lists == [("PersistentVolumeClaim", None), ("Job", None), ("PersistentVolume", None)]
    else:   # the refused list, then one per namespace
        assert client.lists == [("PersistentVolumeClaim", None), ("PersistentVolumeClaim", "ns-a"),
                                ("PersistentVolumeClaim", "ns-b"), ("Job", None), ("Job", "ns-a"), ("Job", "ns-b"),
                                ("PersistentVolume", None)]


def test_one_namespace_is_listed_in_that_namespace():
    client = ListingClient([listed("Job", "a-pull", "ns-a")], all_namespaces=False)
    _claims, volumes, jobs = pull_k8s.list_model_cache(client, ["ns-a"], with_volumes=False)
    assert list(jobs) == [("ns-a", "a-pull")] and volumes == {}
    assert client.lists == [("PersistentVolumeClaim", "ns-a"), ("Job", "ns-a")]
