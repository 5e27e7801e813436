# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""apply_storage / remove_storage on a fake API: what is created, kept, replaced, refused."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import NotFoundError

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cluster as pull_k8s, manifests, pull_marker
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
