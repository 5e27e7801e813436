# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Removal with storage: which namespaces go, which stay (and the line saying why), what goes one by one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import removal
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import namespaces, pod_security

with open(os.path.join(os.path.dirname(__file__), "fixtures", "removal_namespace.yml")) as handle:
    FIX = yaml.safe_load(handle)
NS = "llm-shared"
MANAGED = {naming.LABEL_MANAGED_BY: naming.MANAGED_BY}


def record(slug, namespace=NS, mode="harbor", name=None):
    names = naming.resource_names(slug, namespace)
    names["harbor_pull_secret"] = "harbor-creds"
    storage = {"mode": mode}
    if mode == "harbor":
        storage.update(pvc=names["pvc"], pv=names["pv"], pull_job=names["pull_job"], clear_job=names["clear_job"],
                       prune_job=names["prune_job"])
    else:
        storage.update(claim="user-weights")
    return {"slug": slug, "name": name or slug.upper(), "namespace": namespace, "names": names, "storage": storage}


A, B = record("a"), record("b")


def objects(*groups):
    return copy.deepcopy([obj for group in groups for obj in FIX[group]])


def decide(removed, plan, namespace="namespace_managed", listed=(), unlisted=None):
    return removal.decide(removed, plan, {NS: copy.deepcopy(FIX[namespace])}, {NS: list(listed)}, unlisted)


def kinds_names(found):
    return [(o["kind"], o["name"]) for o in found]


def test_a_namespace_the_collection_made_and_only_the_removed_model_uses_is_deleted():
    result = decide([A], [A], listed=objects("model_a", "namespace_own"))
    assert result == {"delete": [NS], "kept": [], "model_objects": []}


def test_removing_every_model_of_a_shared_namespace_deletes_it():
    result = decide([A, B], [A, B], listed=objects("model_a", "model_b", "namespace_own"))
    assert result["delete"] == [NS] and result["kept"] == []


def test_one_of_two_models_sharing_a_namespace_keeps_it_and_removes_only_its_own_objects():
    result = decide([A], [A, B], listed=objects("model_a", "model_b", "namespace_own"))
    assert result["delete"] == []
    kept = result["kept"][0]
    assert kept["message"] == ("llm-shared: kept the namespace: model B (b) of the plan still lives in it; remains: "
                               "no object of another kind")
    assert kept["remaining"] == []   # model b's release objects are its own, not "objects the collection did not make"
    # a's Jobs, NetworkPolicy and claim; never b's claim, never the shared harbor-creds (b still pulls with it)
    assert kinds_names(result["model_objects"]) == [
        ("Job", "a-model-pull"), ("NetworkPolicy", "a-model-jobs"), ("PersistentVolumeClaim", "a-model")]
    assert all(o["namespace"] == NS and o["slug"] == "a" for o in result["model_objects"])


def test_a_namespace_found_before_the_collection_is_kept_with_the_users_objects_named():
    users = [o for o in objects("user") if o["metadata"]["name"] != "harbor-creds"]
    result = decide([A], [A], namespace="namespace_found", listed=objects("model_a", "namespace_own") + users)
    assert result["delete"] == []
    message = result["kept"][0]["message"]
    assert message.startswith("llm-shared: kept the namespace: the collection did not create it (no "
                              "app.kubernetes.io/managed-by=ai_platform.serving label); objects the collection did "
                              "not make are in it; remains: ")
    # the user's Deployment (not its ReplicaSet: counted through it) and a pod owned by a custom resource
    assert result["kept"][0]["remaining"] == ["ConfigMap team-settings", "Deployment web", "Pod ray-head-0"]
    # no model left: the collection's harbor-creds goes too
    assert kinds_names(result["model_objects"]) == [
        ("Job", "a-model-pull"), ("NetworkPolicy", "a-model-jobs"), ("PersistentVolumeClaim", "a-model"),
        ("Secret", "harbor-creds")]


def test_an_object_the_collection_did_not_make_keeps_its_own_namespace():
    listed = objects("model_a", "namespace_own") + [FIX["user"][0]]
    result = decide([A], [A], listed=listed)
    assert result["delete"] == []
    assert result["kept"][0]["message"] == ("llm-shared: kept the namespace: objects the collection did not make are "
                                            "in it; remains: ConfigMap team-settings")


def test_a_users_secret_named_like_the_pull_secret_is_never_deleted():
    listed = objects("model_a") + [FIX["user"][4]]
    result = decide([A], [A], namespace="namespace_found", listed=listed)
    assert ("Secret", "harbor-creds") not in kinds_names(result["model_objects"])
    assert "Secret harbor-creds" in result["kept"][0]["remaining"]


def test_objects_of_a_model_not_in_the_plan_keep_the_namespace():
    stray = {"kind": "PersistentVolumeClaim",
             "metadata": {"name": "c-model", "uid": "c1", "labels": dict(MANAGED, **{naming.LABEL_SLUG: "c"})}}
    result = decide([A], [A], listed=objects("model_a") + [stray])
    assert result["delete"] == []
    assert "objects of model c (not in this removal) are in it" in result["kept"][0]["message"]
    assert ("Secret", "harbor-creds") not in kinds_names(result["model_objects"])


def test_a_user_owned_claim_keeps_its_namespace():
    mine = record("u", mode="claim")
    result = decide([mine], [mine], listed=[])
    assert result["delete"] == []
    assert "u serves from a user-owned claim (user-weights), never deleted" in result["kept"][0]["message"]


def test_a_kind_that_could_not_be_listed_keeps_the_namespace():
    result = decide([A], [A], listed=objects("model_a"), unlisted={NS: ["Secret"]})
    assert result["delete"] == [] and "its Secret could not be listed" in result["kept"][0]["message"]


def test_a_missing_namespace_is_neither_deleted_nor_reported():
    assert removal.decide([A], [A], {NS: None}, {NS: []}) == {"delete": [], "kept": [], "model_objects": []}


def test_objects_being_deleted_or_left_by_gone_owners_do_not_count():
    remaining = removal.remaining_objects(objects("model_a"), [A])
    assert remaining == []


def test_an_object_owned_by_a_custom_resource_counts():
    pod = [o for o in objects("user") if o["metadata"]["name"] == "ray-head-0"]
    assert removal.remaining_objects(pod, [A]) == pod


def test_the_report_names_at_most_eight_objects():
    many = [{"kind": "ConfigMap", "metadata": {"name": "c%d" % i}} for i in range(11)]
    assert removal.describe(many).endswith("ConfigMap c7 and 3 more")


@pytest.mark.parametrize("existing, labelled", [
    ([], ["llm-a", "llm-b"]),            # both created by the collection
    (["llm-a"], ["llm-b"]),              # llm-a was there before: never labelled as the collection's
    (None, []),                          # unknown: none
])
def test_only_namespaces_the_collection_creates_get_its_label(existing, labelled):
    records = [{"namespace": "llm-a"}, {"namespace": "llm-b"}, {"namespace": "llm-a"}]
    made = namespaces.definitions(records, pod_security.namespace_labels({"enforce": "baseline"}), existing)
    assert [d["metadata"]["name"] for d in made] == ["llm-a", "llm-b"]
    assert [d["metadata"]["name"] for d in made if naming.created_by_collection(d)] == labelled
    assert all(d["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "baseline" for d in made)
    assert namespaces.definitions(records, {}, existing) == [
        dict(d, metadata=dict(d["metadata"], labels=dict((k, v) for k, v in d["metadata"]["labels"].items()
                                                         if not k.startswith("pod-security")))) for d in made]


def test_the_release_records_of_one_model_are_selected_by_its_slug():
    assert naming.model_selectors("release_digests", "a") == [
        "ai-platform.serving/slug=a", "app.kubernetes.io/component=release-digests",
        "app.kubernetes.io/managed-by=ai_platform.serving"]
