# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The llm-d v0.10 stack spec on hand-made plan records: router values, model-server objects, spec, spec_task."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import (
    modelserver, router, spec_task, spec_v010, stacks)
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv

HARBOR = "harbor.harbor.svc.cluster.local"
GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "workload", "operator": "In", "values": ["gpu"]}]}]}}}
DIGEST = "sha256:" + "a" * 64


def record(slug="q", embedder=False, claim=True, pull_secret="harbor-creds"):
    ns = "llm-d-" + slug
    return {
        "name": "Q", "slug": slug, "stack": "llm-d-v0.10", "embedder": embedder, "namespace": ns,
        "routing_kind": "embeddings_service" if embedder else "httproute",
        "names": {"namespace": ns, "router_release": "router-" + slug, "router_epp": "router-%s-epp" % slug,
                  "gateway_service": "llmd-gateway-" + slug, "httproute": "llm-d-" + slug,
                  "embeddings_service": "ms-%s-embeddings" % slug, "gateway_defaults": "gateway-defaults-" + slug,
                  "harbor_pull_secret": pull_secret},
        "affinity": AFFINITY, "tolerations": [GPU],
        "storage": {"mode": "harbor", "pvc": slug + "-model"} if claim else {"mode": "none"},
        "model_artifacts_uri": "pvc+hf://%s-model/Qwen/Qwen3-0.6B" % slug if claim else None,
        "values_files": {"router": "/m/router-%s/values.yaml" % slug, "modelserver": "/m/modelserver-%s" % slug},
    }


def router_file(**extra):
    values = {"router": {"modelServers": {"matchLabels": {"llm-d.ai/guide": "q"}},
                         "epp": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}}}
    values["router"].update(extra)
    return values


def deployment(labels=None, env=None, image="docker.io/vllm/vllm-openai:v0.30.0"):
    labels = labels or {"llm-d.ai/guide": "q", "llm-d.ai/role": "decode"}
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "q-decode"},
            "spec": {"selector": {"matchLabels": dict(labels)},
                     "template": {"metadata": {"labels": dict(labels)},
                                  "spec": {"containers": [{"name": "modelserver", "image": image,
                                                           "ports": [{"name": "modelserver", "containerPort": 8000}],
                                                           "env": env or []}]}}}}


HF_ENV = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "llm-d-hf-token", "key": "HF_TOKEN"}}}


def test_router_values_own_the_selector_port_placement_images_and_epp_pod():
    values, notes = router.router_values(record(), router_file())
    r = values["router"]
    assert r["modelServers"]["matchLabels"] == {"llm-d.ai/guide": "q", stacks.STACK_LABEL: "llm-d-v0.10",
                                                stacks.MODEL_LABEL: "q"}
    assert r["extraServicePorts"] == [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8081}]
    assert r["epp"]["affinity"] == AFFINITY and r["epp"]["tolerations"] == [GPU]
    assert r["epp"]["image"] == {"registry": "ghcr.io/llm-d", "repository": "llm-d-router-endpoint-picker",
                                 "tag": "v0.10.0"}
    assert r["proxy"]["image"] == "docker.io/envoyproxy/envoy:distroless-v1.33.2"
    assert json.loads(r["epp"]["podAnnotations"][router.EPP_POD_ANNOTATION]) == {
        "imagePullSecrets": [{"name": "harbor-creds"}], "securityContext": True}
    assert r["epp"]["resources"] == {"requests": {"cpu": "1", "memory": "1Gi"}} and notes == []


def test_on_prem_the_images_come_from_harbor_and_pin_as_tag_at_digest():
    cfg = {"air_gapped": True, "registry_host": HARBOR}
    values, _notes = router.router_values(record(), router_file(), cfg)
    epp = values["router"]["epp"]["image"]
    assert epp == {"registry": HARBOR + "/images-shaide/llm-d", "repository": "llm-d-router-endpoint-picker",
                   "tag": "v0.10.0"}
    proxy = values["router"]["proxy"]["image"]
    assert proxy == HARBOR + "/images-shaide/envoyproxy/envoy:distroless-v1.33.2"
    pins = {HARBOR + "/images-shaide/llm-d/llm-d-router-endpoint-picker:v0.10.0":
            HARBOR + "/images-shaide/llm-d/llm-d-router-endpoint-picker@" + DIGEST,
            proxy: HARBOR + "/images-shaide/envoyproxy/envoy@" + DIGEST}
    pinned, unpinned = sv.pin_values(values, pins)
    assert unpinned == []
    assert pinned["router"]["epp"]["image"]["tag"] == "v0.10.0@" + DIGEST
    assert pinned["router"]["proxy"]["image"] == HARBOR + "/images-shaide/envoyproxy/envoy@" + DIGEST
    assert list(sv.image_references(pinned))[0][1].endswith("llm-d-router-endpoint-picker:v0.10.0@" + DIGEST)


def test_pin_values_reads_the_registry_repository_tag_shape():
    values = {"router": {"tokenizer": {"image": {"registry": "docker.io", "repository": "vllm/vllm-openai-cpu",
                                                 "tag": "v0.19.1"}}}}
    assert list(sv.image_references(values)) == [("router.tokenizer.image", "docker.io/vllm/vllm-openai-cpu:v0.19.1")]
    pinned, unpinned = sv.pin_values(values, {"docker.io/vllm/vllm-openai-cpu:v0.19.1":
                                              "docker.io/vllm/vllm-openai-cpu@" + DIGEST})
    assert pinned["router"]["tokenizer"]["image"]["tag"] == "v0.19.1@" + DIGEST and unpinned == []
    again, unpinned = sv.pin_values(pinned, {})
    assert again == pinned and unpinned == []
    _same, unpinned = sv.pin_values(values, {})
    assert unpinned == [("router.tokenizer.image", "docker.io/vllm/vllm-openai-cpu:v0.19.1")]


def test_a_files_own_http_port_on_80_is_kept_and_one_elsewhere_is_refused():
    own = [{"name": "http", "port": 80, "targetPort": 8081}]
    values, _notes = router.router_values(record(), router_file(extraServicePorts=own))
    assert values["router"]["extraServicePorts"] == own
    objects, _n = modelserver.owned_objects(record(), [deployment()])
    assert router.router_problems(record(), router_file(extraServicePorts=own), values, objects) == []
    bad = router_file(extraServicePorts=[{"name": "http", "port": 8081, "targetPort": 8081}])
    values, _notes = router.router_values(record(), bad)
    problems = router.router_problems(record(), bad, values, objects)
    assert len(problems) == 1 and "llmd-gateway-q" in problems[0] and "port is 8081" in problems[0]


def test_router_problems_old_keys_tokenizer_and_a_pool_selecting_nothing():
    objects, _n = modelserver.owned_objects(record(), [deployment(labels={"app": "other"})])
    file_values = dict(router_file(tokenizer={"enabled": True, "modelName": "Qwen/Qwen3-0.6B"}),
                       inferenceExtension={"replicas": 1})
    values, _notes = router.router_values(record(), file_values)
    problems = router.router_problems(record(), file_values, values, objects)
    assert any("inferenceExtension" in p for p in problems)
    assert any("router.tokenizer.enabled" in p and "claim" in p for p in problems)
    assert any("select no pod" in p and "Deployment/q-decode" in p for p in problems)
    cloud = record(claim=False)
    values, _notes = router.router_values(cloud, router_file(tokenizer={"enabled": True}))
    objects, _n = modelserver.owned_objects(cloud, [deployment()])
    assert router.router_problems(cloud, router_file(tokenizer={"enabled": True}), values, objects) == []


def test_router_epp_token_env_is_dropped_for_a_claim_served_model():
    values, notes = router.router_values(record(), router_file(epp={"env": [HF_ENV, {"name": "X", "value": "1"}]}))
    assert values["router"]["epp"]["env"] == [{"name": "X", "value": "1"}]
    assert "llm-d-hf-token" in notes[0]


def test_model_server_objects_get_namespace_labels_claim_offline_env_and_placement():
    given = [deployment(env=[HF_ENV]), {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}]
    before = copy.deepcopy(given)
    objects, notes = modelserver.owned_objects(record(), given, {"pod_security_context": True, "pod_probes": True})
    assert given == before
    sa, dep = objects  # the ServiceAccount first (modelserver.apply_order)
    assert dep["metadata"]["namespace"] == sa["metadata"]["namespace"] == "llm-d-q"
    assert sa["metadata"]["labels"][stacks.STACK_LABEL] == "llm-d-v0.10"
    assert sa["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "ai_platform.serving"
    assert dep["spec"]["selector"]["matchLabels"] == {"llm-d.ai/guide": "q", "llm-d.ai/role": "decode"}
    pod_labels = dep["spec"]["template"]["metadata"]["labels"]
    assert pod_labels[stacks.STACK_LABEL] == "llm-d-v0.10" and pod_labels[stacks.MODEL_LABEL] == "q"
    pod = dep["spec"]["template"]["spec"]
    assert pod["affinity"] == AFFINITY and pod["tolerations"] == [GPU]
    assert pod["imagePullSecrets"] == [{"name": "harbor-creds"}]
    assert pod["volumes"] == [{"name": "model-cache", "persistentVolumeClaim": {"claimName": "q-model",
                                                                                "readOnly": True}}]
    container = pod["containers"][0]
    assert container["volumeMounts"] == [{"name": "model-cache", "mountPath": "/model-cache", "readOnly": True}]
    assert container["env"] == [{"name": "HF_HOME", "value": "/model-cache"}, {"name": "HF_HUB_OFFLINE", "value": "1"}]
    assert "llm-d-hf-token" in notes[0]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert container["securityContext"]["capabilities"] == {"drop": ["ALL"]}
    assert container["readinessProbe"]["httpGet"] == {"path": "/health", "port": 8000}


def test_envfrom_of_a_token_secret_goes_and_others_stay():
    dep = deployment()
    dep["spec"]["template"]["spec"]["containers"][0]["envFrom"] = [
        {"secretRef": {"name": "my-hf-token"}}, {"configMapRef": {"name": "settings"}}]
    objects, notes = modelserver.owned_objects(record(), [dep])
    assert objects[0]["spec"]["template"]["spec"]["containers"][0]["envFrom"] == [{"configMapRef": {"name": "settings"}}]
    assert "envFrom[0]" in notes[0]


def test_a_model_not_served_from_a_claim_keeps_its_env_and_volumes():
    objects, notes = modelserver.owned_objects(record(claim=False, pull_secret=None), [deployment(env=[HF_ENV])])
    pod = objects[0]["spec"]["template"]["spec"]
    assert "volumes" not in pod and pod["containers"][0]["env"] == [HF_ENV] and notes == []
    assert "imagePullSecrets" not in pod


def test_kinds_beyond_a_model_server_are_problems():
    problems = modelserver.kind_problems(record(), [deployment(), {"kind": "ClusterRole", "metadata": {"name": "x"}},
                                                    {"kind": "Service"}])
    assert len(problems) == 2 and "ClusterRole" in problems[0] and "no kind or metadata.name" in problems[1]


def test_stack_spec_generative():
    spec = spec_v010.stack_spec(record(), router_file(), [deployment()])
    assert spec["problems"] == [] and spec["routing"] is None
    assert set(spec) == {"slug", "values", "objects", "routing", "endpoint", "stale", "problems", "warnings", "notes"}
    # the model server first, the ExternalName switch last (applied in order, each waited for)
    assert [o["kind"] for o in spec["objects"]] == ["Deployment", "Service"]
    gateway = spec["objects"][-1]
    assert gateway["metadata"]["name"] == "llmd-gateway-q"
    assert gateway["spec"] == {"type": "ExternalName", "externalName": "router-q-epp.llm-d-q.svc.cluster.local"}
    assert spec["endpoint"] == "http://llmd-gateway-q.llm-d-q.svc.cluster.local"
    assert [(o["kind"], o["metadata"]["name"]) for o in spec["stale"]] == [
        ("HTTPRoute", "llm-d-q"), ("Service", "ms-q-embeddings"), ("ConfigMap", "gateway-defaults-q")]


def test_stack_spec_embedder_selects_the_owned_labels_on_the_container_port():
    spec = spec_v010.stack_spec(record(embedder=True), router_file(), [deployment()])
    service = spec["routing"]
    assert service["metadata"]["name"] == "ms-q-embeddings"
    assert service["spec"]["selector"] == stacks.owned_labels("q")
    assert service["spec"]["ports"] == [{"name": "http", "port": 8200, "targetPort": 8000, "protocol": "TCP"}]
    assert spec["endpoint"] == "http://ms-q-embeddings.llm-d-q.svc.cluster.local:8200"
    assert [o["kind"] for o in spec["stale"]] == ["HTTPRoute", "ConfigMap"]


def test_stack_spec_on_prem_refuses_unpinned_and_off_harbor_images_and_the_policy_applies():
    cfg = {"air_gapped": True, "registry_host": HARBOR}
    dep = deployment()
    dep["spec"]["template"]["spec"]["hostNetwork"] = True
    spec = spec_v010.stack_spec(record(), router_file(), [dep], cfg)
    text = "\n".join(spec["problems"])
    assert "docker.io/vllm/vllm-openai:v0.30.0 is not in " + HARBOR in text
    assert "is not pinned" in text and "router.epp.image" in text
    assert "hostNetwork" in text and "host-namespaces" in text
    harbor_vllm = HARBOR + "/images-shaide/vllm/vllm-openai:v0.30.0"
    pins = {harbor_vllm: HARBOR + "/images-shaide/vllm/vllm-openai@" + DIGEST,
            HARBOR + "/images-shaide/llm-d/llm-d-router-endpoint-picker:v0.10.0": "x@" + DIGEST,
            HARBOR + "/images-shaide/envoyproxy/envoy:distroless-v1.33.2": "y@" + DIGEST}
    spec = spec_v010.stack_spec(record(), router_file(), [deployment(image=harbor_vllm)], dict(cfg, image_pins=pins))
    assert spec["problems"] == []
    assert spec["objects"][0]["spec"]["template"]["spec"]["containers"][0]["image"].endswith("@" + DIGEST)
    assert spec["values"]["router"]["router"]["epp"]["image"]["tag"] == "v0.10.0@" + DIGEST


def test_spec_task_takes_the_v010_path_from_the_plans_model_values():
    rec = record()
    handed = {"q": {"files": rec["values_files"], "values": {"router": router_file(), "modelserver": [deployment()]}}}
    assert spec_task.input_keys(rec) == ("router", "modelserver")
    assert spec_task.handed_values(rec, handed)["modelserver"] == [deployment()]
    specs, problems = spec_task.stack_specs([rec], {"model_values": handed})
    assert problems == [] and specs["q"]["objects"][0]["kind"] == "Deployment"
    assert spec_task.unset_charts({}, [rec, {}]) == ["router", "infra", "gaie", "modelservice"]
    specs, problems = spec_task.stack_specs([dict(rec, stack="v9")], {"model_values": handed})
    assert specs == {} and "unknown serving stack 'v9'" in problems[0]


def test_spec_task_reads_plain_manifests_and_leaves_a_kustomization_to_the_plan(tmp_path):
    folder = tmp_path / "modelserver-q"
    folder.mkdir()
    (tmp_path / "router.yaml").write_text(json.dumps(router_file()))
    (folder / "decode.yaml").write_text(json.dumps(deployment()) + "\n---\n" + json.dumps(
        {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "sa"}}))
    rec = dict(record(), values_files={"router": str(tmp_path / "router.yaml"), "modelserver": str(folder)})
    found, problems = spec_task.read_values(rec, str(tmp_path))
    assert problems == [] and [o["kind"] for o in found["modelserver"]] == ["Deployment", "ServiceAccount"]
    assert found["router"] == router_file()
    (folder / "kustomization.yaml").write_text("resources: [decode.yaml]\n")
    _found, problems = spec_task.read_values(rec, str(tmp_path))
    assert "kustomization" in problems[0]


def test_the_served_digest_is_stamped_on_the_model_server_pod_templates():
    # a new pull rolls the v0.10 model pods as it rolls the seed's (values.stamp_served_digest)
    from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks, values as stack_values
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "q-decode", "labels": {stacks.STACK_LABEL: stacks.V010.name}},
                  "spec": {"template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": []}}}}
    gateway = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "llmd-gateway-q"}, "spec": {}}
    spec = {"values": {"router": {"router": {}}}, "objects": [deployment, gateway]}
    stamped = stack_values.stamp_served_digest(spec, "sha256:abc")
    template = stamped["objects"][0]["spec"]["template"]["metadata"]
    assert template["annotations"] == {stack_values.SERVED_DIGEST_ANNOTATION: "sha256:abc"}
    assert template["labels"] == {"a": "b"} and stamped["objects"][1] == gateway
    assert "annotations" not in deployment["spec"]["template"]["metadata"]  # the spec given is not changed


def test_the_objects_are_applied_service_account_first_then_the_workloads():
    # the apply waits on each Deployment until it is available: its ServiceAccount must exist before it
    objects = [{"kind": "Deployment", "metadata": {"name": "d"}}, {"kind": "PodDisruptionBudget", "metadata": {"name": "p"}},
               {"kind": "ServiceAccount", "metadata": {"name": "sa"}}, {"kind": "ConfigMap", "metadata": {"name": "c"}},
               {"kind": "Deployment", "metadata": {"name": "e"}}]
    assert [o["metadata"]["name"] for o in modelserver.apply_order(objects)] == ["sa", "c", "d", "e", "p"]


GATEWAY = {"name": "llm-d-inference-gateway", "namespace": "gateway-system", "service": "llm-d-inference-gateway-istio"}


def gateway_record(**kwargs):
    return dict(record(**kwargs), router_mode="gateway", router_gateway=dict(GATEWAY))


def test_gateway_mode_values_go_to_the_gateway_chart_with_no_proxy_and_the_collections_route():
    spec = spec_v010.stack_spec(gateway_record(), router_file(), [deployment()], {"gaie_provider": "istio"})
    assert spec["problems"] == [] and list(spec["values"]) == ["router_gateway"]
    values = spec["values"]["router_gateway"]
    # no sidecar proxy and no client port: the site's Gateway calls the pool
    assert "proxy" not in values["router"] and "extraServicePorts" not in values["router"]
    assert values["router"]["modelServers"]["matchLabels"] == dict({"llm-d.ai/guide": "q"}, **stacks.owned_labels("q"))
    assert values["httpRoute"] == {"create": False}
    assert values["provider"] == {"name": "istio", "istio": {"destinationRule": {
        "host": "router-q-epp.llm-d-q.svc.cluster.local"}}}
    route = spec["routing"]
    assert route["kind"] == "HTTPRoute" and route["metadata"]["name"] == "llm-d-q"
    assert route["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                            "name": "llm-d-inference-gateway", "namespace": "gateway-system"}]
    assert route["spec"]["rules"][0]["backendRefs"] == [{"group": "inference.networking.k8s.io",
                                                         "kind": "InferencePool", "name": "router-q"}]
    assert route["spec"]["rules"][0]["timeouts"] == {"request": "300s"}
    # the endpoint name stays; it leads to the site Gateway's Service
    assert spec["objects"][-1]["spec"] == {
        "type": "ExternalName", "externalName": "llm-d-inference-gateway-istio.gateway-system.svc.cluster.local"}
    assert spec["endpoint"] == "http://llmd-gateway-q.llm-d-q.svc.cluster.local"
    # the HTTPRoute is this mode's own, never stale
    assert [(o["kind"], o["metadata"]["name"]) for o in spec["stale"]] == [
        ("Service", "ms-q-embeddings"), ("ConfigMap", "gateway-defaults-q")]


def test_gateway_mode_keeps_the_files_timeout_refuses_the_charts_route_keys_and_names_the_chart():
    file_values = dict(router_file(), httpRoute={"create": True, "requestTimeout": "900s"})
    spec = spec_v010.stack_spec(gateway_record(), file_values, [deployment()], {"gaie_provider": "none"})
    assert spec["problems"] == [] and spec["values"]["router_gateway"]["httpRoute"]["create"] is False
    assert spec["values"]["router_gateway"]["provider"] == {"name": "none"}
    assert spec["routing"]["spec"]["rules"][0]["timeouts"] == {"request": "900s"}
    assert any("httpRoute.create is true" in note and "llm-d-q" in note for note in spec["notes"])
    file_values = dict(router_file(), httpRoute={"headerMatches": {"x-route": "a"}}, inferencePool={"x": 1},
                       experimentalHttpRoute={"enabled": True})
    problems = spec_v010.stack_spec(gateway_record(), file_values, [deployment()])["problems"]
    assert any("httpRoute.headerMatches is read only by the chart's own HTTPRoute" in p for p in problems)
    assert any("inferencePool is a key of the seed's GAIE values, which llm-d-router-gateway v0.10.0 refuses" in p
               for p in problems)
    assert any("experimentalHttpRoute" in p and "an HTTPRoute's under httpRoute" in p for p in problems)
    # a client port of the standalone chart's is no concern of gateway mode
    file_values = dict(router_file(extraServicePorts=[{"name": "http", "port": 8081, "targetPort": 8081}]))
    assert spec_v010.stack_spec(gateway_record(), file_values, [deployment()])["problems"] == []


def test_gateway_mode_embedder_has_its_service_and_no_gateway_externalname():
    spec = spec_v010.stack_spec(gateway_record(embedder=True), router_file(), [deployment()])
    assert spec["problems"] == [] and spec["routing"]["metadata"]["name"] == "ms-q-embeddings"
    assert [o["kind"] for o in spec["objects"]] == ["Deployment"]
    assert ("Service", "llmd-gateway-q") in [(o["kind"], o["metadata"]["name"]) for o in spec["stale"]]
    assert ("HTTPRoute", "llm-d-q") in [(o["kind"], o["metadata"]["name"]) for o in spec["stale"]]


def test_gateway_namespace_of_the_model_is_not_named_in_the_parent_ref():
    gateway = {"name": "gw", "namespace": "llm-d-q", "service": "gw-istio"}
    rec = dict(record(), router_mode="gateway", router_gateway=gateway)
    route = spec_v010.stack_spec(rec, router_file(), [deployment()])["routing"]
    assert route["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": "gw"}]


def test_on_prem_the_router_images_are_where_the_site_carries_them():
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
    carried = image_plan.image_plan([{"source": "docker.io/envoyproxy/envoy:distroless-v1.33.2", "project": "edge",
                                      "path": "mirror/envoy"}], HARBOR)
    cfg = {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True, "images": carried}
    values = spec_v010.stack_spec(record(), router_file(), [deployment(image=HARBOR + "/x/vllm:v1")], cfg)["values"]
    assert values["router"]["router"]["proxy"]["image"] == HARBOR + "/edge/mirror/envoy:distroless-v1.33.2"
    # an image the plan does not list keeps the default project
    assert values["router"]["router"]["epp"]["image"] == {
        "registry": HARBOR + "/images-shaide/llm-d", "repository": "llm-d-router-endpoint-picker", "tag": "v0.10.0"}
