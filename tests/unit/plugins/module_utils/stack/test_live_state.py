"""live_state: which objects serving_stack applies or removes after its one read, and the claims' shape."""

import copy

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import live_state as ls

ROUTE = {
    "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
    "metadata": {"name": "qwen-route", "namespace": "llm-qwen", "labels": {"app.kubernetes.io/managed-by": "aips"}},
    "spec": {"parentRefs": [{"name": "infra-qwen-inference-gateway"}],
             "rules": [{"backendRefs": [{"group": "inference.networking.k8s.io", "kind": "InferencePool",
                                         "name": "gaie-qwen", "port": 8000}],
                        "matches": [{"path": {"type": "PathPrefix", "value": "/"}}]}]},
}
SERVICE = {
    "apiVersion": "v1", "kind": "Service",
    "metadata": {"name": "ms-emb-embeddings", "namespace": "llm-emb"},
    "spec": {"selector": {"llm-d.ai/model": "emb"}, "ports": [{"name": "http", "port": 8200, "targetPort": 8200}]},
}


def live_copy(definition, **server_fields):
    """The object as the API server returns it: the definition plus defaults and metadata it adds."""
    live = copy.deepcopy(definition)
    live["metadata"].update(uid="1234", resourceVersion="42", creationTimestamp="2026-12-03T00:00:00Z")
    live["status"] = {"conditions": []}
    live["spec"].update(server_fields)
    return live


def test_server_added_fields_do_not_count_as_a_difference():
    live = live_copy(SERVICE, clusterIP="10.43.0.12", type="ClusterIP", sessionAffinity="None")
    live["spec"]["ports"][0]["protocol"] = "TCP"
    assert not ls.differs(SERVICE, live)


def test_a_changed_or_missing_field_is_a_difference():
    edited = live_copy(ROUTE)
    edited["spec"]["rules"][0]["backendRefs"][0]["port"] = 9000
    assert ls.differs(ROUTE, edited)
    unlabelled = live_copy(ROUTE)
    del unlabelled["metadata"]["labels"]
    assert ls.differs(ROUTE, unlabelled)


def test_a_list_of_another_length_or_order_is_a_difference():
    extra = live_copy(SERVICE)
    extra["spec"]["ports"].append({"name": "metrics", "port": 9090})
    assert ls.differs(SERVICE, extra)
    assert ls.differs({"a": [1, 2]}, {"a": [2, 1]})


def test_types_must_match_exactly():
    assert ls.differs({"port": 8000}, {"port": "8000"})
    assert ls.differs({"on": True}, {"on": 1})
    assert ls.differs({"spec": {"a": 1}}, {"spec": "a"})
    assert not ls.differs({"on": False}, {"on": False})


def test_objects_to_apply_keeps_only_missing_and_different_objects_per_slug():
    route_key, service_key = ls.object_key(ROUTE), ls.object_key(SERVICE)
    assert route_key == ("gateway.networking.k8s.io/v1", "HTTPRoute", "llm-qwen", "qwen-route")
    objects = {"qwen": [ROUTE], "emb": [SERVICE]}
    assert ls.objects_to_apply(objects, {route_key: live_copy(ROUTE), service_key: live_copy(SERVICE)}) == {}
    assert ls.objects_to_apply(objects, {route_key: None, service_key: live_copy(SERVICE)}) == {"qwen": [ROUTE]}
    assert ls.objects_to_apply(objects, {}) == objects   # never read: applied


def test_objects_to_remove_keeps_only_existing_objects():
    retired = {"qwen": [SERVICE], "emb": [ROUTE]}
    assert ls.objects_to_remove(retired, {ls.object_key(SERVICE): live_copy(SERVICE)}) == {"qwen": [SERVICE]}
    assert ls.objects_to_remove(retired, {ls.object_key(ROUTE): None}) == {}


def record(slug, namespace):
    return {"slug": slug, "namespace": namespace, "storage": {"mode": "harbor", "pvc": slug + "-model"}}


def claim(namespace, name, annotations=None):
    return {"metadata": {"namespace": namespace, "name": name, "annotations": annotations or {}}}


def test_claims_not_found_by_label_are_read_by_name():
    records = [record("a", "llm-a"), record("b", "llm-b")]
    found = claim("llm-a", "a-model", {"ai-platform.serving/digest": "sha256:" + "1" * 64})
    other_namespace = claim("llm-x", "b-model")
    assert sorted(ls.claims_by_key([found, other_namespace])) == ["llm-a/a-model", "llm-x/b-model"]
    assert ls.missing_claims(records, [found, other_namespace]) == [records[1]]


def test_a_service_whose_pods_changed_stack_drops_the_other_stacks_selector_keys():
    # the embeddings Service of a model that moved to llm-d v0.10: a merge would keep the seed's keys beside the new
    # ones, and the Service would select no pod; the keys the definition no longer sets are cleared (None)
    desired = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ms-q-embeddings", "namespace": "n"},
               "spec": {"selector": {"ai-platform.serving/stack": "llm-d-v0.10", "ai-platform.serving/model": "q"},
                        "ports": [{"port": 8200}]}}
    live = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "ms-q-embeddings", "namespace": "n"},
            "spec": {"selector": {"ai-platform.serving/stack": "llm-d-v0.10", "ai-platform.serving/model": "q",
                                  "llm-d.ai/inferenceServing": "true", "llm-d.ai/model": "q"},
                     "ports": [{"port": 8200, "protocol": "TCP"}]}}
    key = ls.object_key(desired)
    assert ls.foreign_selector_keys(desired, live) == ["llm-d.ai/inferenceServing", "llm-d.ai/model"]
    due = ls.objects_to_apply({"q": [desired]}, {key: live})
    assert due["q"][0]["spec"]["selector"] == {"ai-platform.serving/stack": "llm-d-v0.10",
                                               "ai-platform.serving/model": "q",
                                               "llm-d.ai/inferenceServing": None, "llm-d.ai/model": None}
    assert desired["spec"]["selector"]["ai-platform.serving/model"] == "q"  # the definition itself is not changed
    # once the cluster holds exactly the new selector, nothing is due
    settled = dict(live, spec=dict(live["spec"], selector=dict(desired["spec"]["selector"])))
    assert ls.objects_to_apply({"q": [desired]}, {key: settled}) == {}
    # other kinds, and Services without a selector, are compared as before
    assert ls.foreign_selector_keys({"kind": "ConfigMap"}, {"spec": {"selector": {"a": "b"}}}) == []
    assert ls.foreign_selector_keys(dict(desired, spec={"type": "ExternalName"}), live) == []
