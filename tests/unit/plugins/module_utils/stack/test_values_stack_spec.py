"""The serving stack computed from real plan records of the repo's models tree (stack_spec)."""

import base64
import json
from pathlib import Path
import time

import pytest
import yaml


from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import pull_secret
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb

REPO = Path(__file__).resolve().parents[5]
GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
HARBOR = "harbor.harbor.svc.cluster.local"
EMBEDDER = {"name": "all-MiniLM-L6-v2-rke2", "enabled": True, "nodeSelector": {"workload": "cpu"},
            "modelSource": {"harborRef": HARBOR + "/ai-models/all-minilm-l6-v2:v1",
                            "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                            "storageSize": "1Gi", "hostpathNode": "node-1"}}


def records(provider="on-prem", token="t0ken", toleration=None, embedder=True):
    settings = {
        "cloud_provider": provider, "kubeconfig": "/k", "harbor_hostname": HARBOR,
        "harbor_user": "robot$k8s-puller", "harbor_token": token, "gpu_toleration": toleration or {},
        "models_dir": str(REPO / "models"),
        "models": {
            "generative": [{"name": "Qwen3-0.6B-rke2", "enabled": True, "nodeSelector": {"workload": "gpu"}}],
            "embedder": [EMBEDDER] if embedder else [],
        },
    }
    found, problems = plan.build_plan(settings)
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    return dict((r["slug"], r) for r in found)


def values(record, chart):
    return yaml.safe_load(Path(record["values_files"][chart]).read_text())


def spec(record, **settings):
    return sv.stack_spec(record, values(record, "gaie"), values(record, "ms"), settings)


@pytest.fixture(scope="module")
def recs():
    return records(toleration=GPU)


def test_generative_gets_an_httproute_to_its_pool_and_gateway(recs):
    rec = recs["qwen3-0-6b-rke2"]
    out = spec(rec)
    route = out["routing"]
    assert (route["kind"], route["metadata"]["name"]) == ("HTTPRoute", "llm-d-qwen3-0-6b-rke2")
    assert route["metadata"]["namespace"] == "llm-d-qwen3-0-6b-rke2"
    assert route["spec"]["parentRefs"] == [{"group": "gateway.networking.k8s.io", "kind": "Gateway",
                                            "name": "infra-qwen3-0-6b-rke2-inference-gateway"}]
    backend = route["spec"]["rules"][0]["backendRefs"][0]
    assert backend == {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "gaie-qwen3-0-6b-rke2"}
    assert out["stale"] == [
        {"apiVersion": "v1", "kind": "Service", "metadata": {
            "name": "ms-qwen3-0-6b-rke2-embeddings", "namespace": "llm-d-qwen3-0-6b-rke2"}},
        # the seed's gateway-defaults ConfigMap: read by nothing, removed where an earlier version made it
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {
            "name": "gateway-defaults-qwen3-0-6b-rke2", "namespace": "llm-d-qwen3-0-6b-rke2"}}]
    assert out["endpoint"] == "http://llmd-gateway-qwen3-0-6b-rke2.llm-d-qwen3-0-6b-rke2.svc.cluster.local"
    assert rec["routing_kind"] == "httproute" and rec["names"]["embeddings_service"] == "ms-qwen3-0-6b-rke2-embeddings"
    labels = {"app.kubernetes.io/managed-by": "ai_platform.serving", "ai-platform.serving/slug": "qwen3-0-6b-rke2"}
    assert route["metadata"]["labels"] == out["objects"][0]["metadata"]["labels"] == labels
    assert out["objects"][0]["spec"]["externalName"] == (
        "infra-qwen3-0-6b-rke2-inference-gateway-istio.llm-d-qwen3-0-6b-rke2.svc.cluster.local")


def test_listener_binding_is_optional(recs):
    route = spec(recs["qwen3-0-6b-rke2"], gateway_listener="default")["routing"]
    assert route["spec"]["parentRefs"][0]["sectionName"] == "default"


def test_embedder_gets_a_clusterip_service_on_8200_to_its_decode_pods(recs):
    rec = recs["all-minilm-l6-v2-rke2"]
    out = spec(rec)
    svc = out["routing"]
    assert (svc["kind"], svc["metadata"]["name"], svc["spec"]["type"]) == (
        "Service", "ms-all-minilm-l6-v2-rke2-embeddings", "ClusterIP")
    assert svc["spec"]["ports"] == [{"name": "http", "port": 8200, "targetPort": 8200, "protocol": "TCP"}]
    # upstream fullname: the release does not contain the chart name, so it is suffixed
    # the chart's default label (llm-d.ai/inference-serving) is merged with the file's, as Helm merges them
    assert svc["spec"]["selector"] == {"llm-d.ai/inferenceServing": "true", "llm-d.ai/role": "decode",
                                       "llm-d.ai/model": "all-minilm-l6-v2-rke2", "llm-d.ai/inference-serving": "true"}
    assert out["stale"][0]["kind"] == "HTTPRoute" and out["stale"][0]["metadata"]["name"] == "llm-d-all-minilm-l6-v2-rke2"
    assert out["endpoint"] == "http://ms-all-minilm-l6-v2-rke2-embeddings.llm-d-all-minilm-l6-v2-rke2.svc.cluster.local:8200"
    assert spec(rec, cluster_domain="c.example", embeddings_port="9000")["endpoint"].endswith(".svc.c.example:9000")


def test_model_pod_labels_follow_upstream_defaults():
    # llm-d-modelservice v0.4.12's default modelArtifacts.labels (this test said inferenceServing / random_model,
    # which no v0.4.12 pod carries), merged with the file's labels as Helm merges maps (issue 26, defect 5)
    assert sv.model_pod_labels({}) == {"llm-d.ai/inference-serving": "true", "llm-d.ai/role": "decode"}
    assert sv.model_pod_labels({"modelArtifacts": {"labels": {"a": "b"}}}, "prefill") == {
        "llm-d.ai/inference-serving": "true", "a": "b", "llm-d.ai/role": "prefill"}


def test_a_pool_selecting_no_pod_is_a_problem(recs):
    rec = recs["qwen3-0-6b-rke2"]
    ms = values(rec, "ms")
    del ms["modelArtifacts"]["labels"]
    problems = sv.stack_spec(rec, values(rec, "gaie"), ms, {})["problems"]
    assert problems == ["Qwen3-0.6B-rke2: gaie values inferencePool.modelServers.matchLabels "
                        "llm-d.ai/inferenceServing=true, llm-d.ai/model=qwen3-0-6b-rke2 select no decode pod "
                        "(ms values modelArtifacts.labels give llm-d.ai/inference-serving=true, "
                        "llm-d.ai/role=decode). Fix: make modelArtifacts.labels in "
                        "ms-qwen3-0-6b-rke2/values.yaml carry llm-d.ai/inferenceServing=true, "
                        "llm-d.ai/model=qwen3-0-6b-rke2."]


def test_gateway_objects(recs):
    rec = recs["qwen3-0-6b-rke2"]
    (service,) = spec(rec)["objects"]
    assert service["metadata"]["name"] == "llmd-gateway-qwen3-0-6b-rke2"
    assert service["spec"] == {"type": "ExternalName", "externalName":
                               "infra-qwen3-0-6b-rke2-inference-gateway-istio.llm-d-qwen3-0-6b-rke2.svc.cluster.local"}


def test_gateway_placement_goes_into_the_infra_values(recs):
    """The post-renderer reads it from the annotation on llm-d-infra's ConfigMap (test_gateway_placement)."""
    rec = recs["qwen3-0-6b-rke2"]
    infra = spec(rec)["values"]["infra"]
    placement = json.loads(infra["gateway"]["annotations"][sv.GATEWAY_PLACEMENT_ANNOTATION])
    assert placement["affinity"] == rec["affinity"]
    assert placement["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"] == [{"matchExpressions": [{"key": "workload", "operator": "In", "values": ["gpu"]}]}]
    assert placement["tolerations"] == [GPU]
    # no placement, no annotation
    bare = dict(rec, affinity=None, tolerations=[])
    assert "annotations" not in sv.infra_values(bare)["gateway"]


def test_infra_values_programmatic_side_owns_gateway_keys(recs):
    rec = recs["qwen3-0-6b-rke2"]
    site = {"gateway": {"gatewayClassName": "kgateway", "labels": {"site": "a"}}, "ingress": {"enabled": False}}
    infra = spec(rec, infra_values=site, gateway_service_type="NodePort")["values"]["infra"]
    assert infra["gateway"]["gatewayClassName"] == "istio"
    assert infra["gateway"]["labels"] == {"site": "a"} and infra["ingress"] == {"enabled": False}
    assert infra["gateway"]["fullnameOverride"] == rec["names"]["gateway"]
    assert infra["gateway"]["service"] == {"type": "NodePort"}
    assert infra["gateway"]["destinationRule"] == {
        "enabled": True, "host": "gaie-qwen3-0-6b-rke2-epp.llm-d-qwen3-0-6b-rke2.svc.cluster.local",
        "trafficPolicy": {"tls": {"mode": "SIMPLE", "insecureSkipVerify": True}}}


def test_gaie_values_keep_the_file_and_add_the_provider(recs):
    rec = recs["qwen3-0-6b-rke2"]
    pool = {"http": {"http2MaxRequests": 10}}
    gaie = spec(rec, connection_pool=pool)["values"]["gaie"]
    assert gaie["inferencePool"] == values(rec, "gaie")["inferencePool"]
    assert gaie["provider"] == {"name": "istio", "istio": {"destinationRule": {
        "host": "gaie-qwen3-0-6b-rke2-epp.llm-d-qwen3-0-6b-rke2.svc.cluster.local",
        "trafficPolicy": {"connectionPool": pool}}}}
    assert spec(rec, gaie_provider="none")["values"]["gaie"]["provider"] == {"name": "none"}


def test_modelservice_values_of_a_pulled_model(recs):
    rec = recs["all-minilm-l6-v2-rke2"]
    ms = spec(rec)["values"]["modelservice"]
    assert ms["modelArtifacts"]["uri"] == "pvc+hf://all-minilm-l6-v2-rke2-model/hub/sentence-transformers/all-MiniLM-L6-v2"
    decode = ms["decode"]
    assert decode["extraConfig"]["affinity"] == rec["affinity"]
    assert decode["extraConfig"]["imagePullSecrets"] == [{"name": "harbor-creds"}]
    assert decode["tolerations"] == [GPU]
    assert {"name": "HF_HUB_OFFLINE", "value": "1"} in decode["containers"][0]["env"]
    # what makes the pvc+hf URI work on the real chart
    assert decode["containers"][0]["mountModelVolume"] is True
    assert ms["modelArtifacts"]["readOnly"] is True
    assert "prefill" not in ms or ms["prefill"] == {"create": False}


def test_a_model_without_a_claim_keeps_its_values():
    """No modelSource: the server downloads (hf://), so no offline switch and no claim mount is forced."""
    rec = records(provider="cloud", token="", embedder=False)["qwen3-0-6b-rke2"]
    assert rec["model_artifacts_uri"] is None
    ms = spec(rec)["values"]["modelservice"]
    container = ms["decode"]["containers"][0]
    assert "mountModelVolume" not in container and "HF_HUB_OFFLINE" not in str(container.get("env"))
    assert ms["modelArtifacts"]["uri"] == "hf://Qwen/Qwen3-0.6B"


def _problems(rec, change):
    ms = values(rec, "ms")
    change(ms)
    return sv.stack_spec(rec, values(rec, "gaie"), ms, {})["problems"]


@pytest.mark.parametrize("change, key, fix", [
    (lambda v: v["decode"]["containers"][0].update(mountModelVolume=False),
     "decode.containers[0] (infinity).mountModelVolume is false", "Fix: remove the key"),
    (lambda v: v["modelArtifacts"].update(readOnly=False), "modelArtifacts.readOnly is false", "Fix: remove the key"),
    (lambda v: v["decode"]["containers"][0].pop("name"), "decode.containers[0] has no name", "Fix: give it a name"),
    (lambda v: v["decode"]["containers"][0].pop("command"),
     "decode.containers[0] (infinity) has modelCommand custom (the chart's default) but no command", "Fix: set command"),
    (lambda v: v["decode"]["containers"][0].update(modelCommand="vllm"),
     "decode.containers[0] (infinity).modelCommand is 'vllm'", "Fix: use one of them"),
    (lambda v: v["decode"].update(initContainers=[{"image": "x"}]),
     "decode.initContainers[0] has no name", "Fix: give it a name"),
])
def test_values_that_contradict_the_plan_are_problems(recs, change, key, fix):
    rec = recs["all-minilm-l6-v2-rke2"]
    problems = _problems(rec, change)
    assert len(problems) == 1, problems
    assert problems[0].startswith("all-MiniLM-L6-v2-rke2: %s: %s" % (rec["values_files"]["ms"], key)), problems
    assert fix in problems[0]


def test_the_shipped_values_have_no_problems(recs):
    for rec in recs.values():
        assert spec(rec)["problems"] == [], rec["slug"]


def test_init_containers_get_the_offline_switch(recs):
    rec = recs["all-minilm-l6-v2-rke2"]
    ms = values(rec, "ms")
    ms["decode"]["initContainers"] = [{"name": "warm", "image": HARBOR + "/images-infra/library/busybox:1.35.0"}]
    out = sv.stack_spec(rec, values(rec, "gaie"), ms, {})["values"]["modelservice"]
    assert out["decode"]["initContainers"] == [{"name": "warm", "image": HARBOR + "/images-infra/library/busybox:1.35.0",
                                               "env": [{"name": "HF_HUB_OFFLINE", "value": "1"}]}]


def test_no_token_no_pull_secret():
    rec = records(provider="cloud", token="", embedder=False)["qwen3-0-6b-rke2"]
    ms = spec(rec)["values"]["modelservice"]
    assert "imagePullSecrets" not in ms["decode"].get("extraConfig", {})


def test_on_prem_images_must_come_from_harbor(recs):
    rec = recs["qwen3-0-6b-rke2"]
    assert spec(rec, air_gapped=True, registry_host=HARBOR, allow_unpinned=True)["problems"] == []
    cloud_like = dict(values(rec, "ms"))
    cloud_like["decode"] = {"containers": [{"name": "vllm", "image": "ghcr.io/llm-d/llm-d-cuda:v0.3.0",
                                            "modelCommand": "vllmServe"}]}
    problems = sv.stack_spec(rec, values(rec, "gaie"), cloud_like, {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True})["problems"]
    assert len(problems) == 1
    assert "Qwen3-0.6B-rke2: modelservice values decode.containers[0].image = ghcr.io/llm-d/llm-d-cuda:v0.3.0" in problems[0]
    assert "Fix:" in problems[0]
    # not air-gapped: no check
    assert sv.stack_spec(rec, values(rec, "gaie"), cloud_like, {})["problems"] == []


def test_node_mirrored_registries_are_accepted(recs):
    rec = recs["qwen3-0-6b-rke2"]
    gaie = {"inferenceExtension": {"image": {"hub": "registry.k8s.io/gateway-api-inference-extension",
                                             "name": "epp", "tag": "v1.2.0"}}}
    cfg = {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True}
    assert len(sv.stack_spec(rec, gaie, values(rec, "ms"), cfg)["problems"]) == 1
    cfg["mirrored_registries"] = ["registry.k8s.io"]
    assert sv.stack_spec(rec, gaie, values(rec, "ms"), cfg)["problems"] == []


def test_unpinned_routing_proxy_is_an_air_gap_problem(recs):
    rec = recs["qwen3-0-6b-rke2"]
    ms = values(rec, "ms")
    ms["routing"] = {"servicePort": 8000}
    problems = sv.stack_spec(rec, values(rec, "gaie"), ms, {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True})["problems"]
    assert len(problems) == 1 and "routing.proxy.image is unset" in problems[0]
    ms["routing"]["proxy"] = {"enabled": False}
    assert sv.stack_spec(rec, values(rec, "gaie"), ms, {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True})["problems"] == []


def test_pull_secret_content():
    secret = pull_secret.pull_secret("harbor-creds", "ns", HARBOR, "robot$u", "s3cret")
    assert secret["type"] == "kubernetes.io/dockerconfigjson"
    config = json.loads(base64.b64decode(secret["data"][".dockerconfigjson"]))
    entry = config["auths"][HARBOR]
    assert (entry["username"], entry["password"]) == ("robot$u", "s3cret")
    assert base64.b64decode(entry["auth"]).decode() == "robot$u:s3cret"


# --- pinned deploys: the lock file's images rewritten to @sha256: in the rendered values -------------------

PINS_LOCK = {
    "ghcr.io/llm-d/llm-d-cuda:v0.3.0": {"digest": "sha256:" + "1" * 64},
    "ghcr.io/llm-d/llm-d-routing-sidecar:v0.3.0": {"digest": "sha256:" + "2" * 64},
    "registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0": {"digest": "sha256:" + "3" * 64},
}


def carried_images():
    return yaml.safe_load((REPO / "group_vars" / "all" / "images.yml").read_text())["aips_images"]


def test_on_prem_images_are_rewritten_to_the_lock_digests(recs):
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
    rec = recs["qwen3-0-6b-rke2"]
    pins = image_plan.image_pins(image_plan.image_plan(carried_images(), HARBOR), PINS_LOCK)
    got = spec(rec, air_gapped=True, registry_host=HARBOR, mirrored_registries=["registry.k8s.io"], image_pins=pins)
    assert got["problems"] == [], got["problems"]
    images = [image for chart in ("infra", "gaie", "modelservice")
              for _where, image in sv.image_references(got["values"][chart])]
    assert images and all("@sha256:" in image for image in images), images
    ms_images = [image for _where, image in sv.image_references(got["values"]["modelservice"])]
    assert HARBOR + "/images-shaide/llm-d/llm-d-cuda@sha256:" + "1" * 64 in ms_images
    # the GAIE chart joins hub/name:tag: the digest rides on the tag
    assert got["values"]["gaie"]["inferenceExtension"]["image"]["tag"] == "v1.2.0@sha256:" + "3" * 64


def test_an_unpinned_image_on_prem_is_a_problem_naming_it_unless_allowed(recs):
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
    rec = recs["qwen3-0-6b-rke2"]
    lock = dict(PINS_LOCK)
    del lock["ghcr.io/llm-d/llm-d-cuda:v0.3.0"]
    pins = image_plan.image_pins(image_plan.image_plan(carried_images(), HARBOR), lock)
    cfg = dict(air_gapped=True, registry_host=HARBOR, mirrored_registries=["registry.k8s.io"], image_pins=pins,
               lock_file="/srv/models.lock.yml")
    problems = spec(rec, **cfg)["problems"]
    assert len(problems) == 1, problems
    assert problems[0].startswith("Qwen3-0.6B-rke2: modelservice values decode.containers[0].image = "
                                  + HARBOR + "/images-shaide/llm-d/llm-d-cuda:v0.3.0 is not pinned"), problems
    assert "/srv/models.lock.yml" in problems[0] and "playbooks/load.yml" in problems[0]
    assert "aips_allow_unpinned: true" in problems[0]
    assert spec(rec, allow_unpinned=True, **cfg)["problems"] == []
    # cloud (not air-gapped): no pin required
    assert spec(rec, image_pins=pins)["problems"] == []


def test_no_lock_on_prem_names_every_image(recs):
    rec = recs["qwen3-0-6b-rke2"]
    problems = spec(rec, air_gapped=True, registry_host=HARBOR, mirrored_registries=["registry.k8s.io"])["problems"]
    assert len(problems) == 3 and all("(none set)" in p for p in problems), problems


@pytest.mark.parametrize("extra, rule", [
    ({"extraObjects": [{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRoleBinding",
                        "metadata": {"name": "x"}, "roleRef": {"kind": "ClusterRole", "name": "cluster-admin"}}]},
     "privileged-objects"),
    ({"extraObjects": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}]}, "extra-objects"),
    ({"decode": {"create": True, "tolerations": [{"operator": "Exists"}]}}, "tolerate-everything"),
    ({"decode": {"create": True, "extraConfig": {"annotations": {"s": "{{ lookup \"v1\" \"Secret\" \"\" \"\" }}"}}}},
     "helm-lookup"),
    ({"decode": {"create": True, "volumes": [{"name": "o", "persistentVolumeClaim": {"claimName": "x-model"}}]}},
     "other-claims"),
])
def test_the_render_refuses_what_acts_with_the_deploys_credentials(extra, rule):
    """issue 27, on the render: the stack spec of a real record carries the refusal, so spec.yml fails first."""
    record = records()["qwen3-0-6b-rke2"]
    ms_file = yaml.safe_load(open(record["values_files"]["ms"]))
    ms_file = sv.merge_values(ms_file, extra)
    spec = sv.stack_spec(record, {}, ms_file, {"values_policy_allow": []})
    refused = [p for p in spec["problems"] if "(%s: " % rule in p]
    assert len(refused) == 1, spec["problems"]
    assert refused[0].startswith("Qwen3-0.6B-rke2: ") and "Fix: remove it" in refused[0]
    allow = [{"model": "qwen3-0-6b-rke2", "rule": rule, "reason": "test"}]
    assert not [p for p in sv.stack_spec(record, {}, ms_file, {"values_policy_allow": allow})["problems"]
                if "(%s: " % rule in p]


def test_messages_show_the_image_as_the_values_file_writes_it(recs):
    """Issue 26, defect 7: the air-gap check reads the values before the lock's digests are put in, so a pinned
    image off Harbor is reported by the tag the values file wrote, never by the @sha256: form the pin made."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
    rec = recs["qwen3-0-6b-rke2"]
    ms = values(rec, "ms")
    ms["decode"]["containers"][0]["image"] = "ghcr.io/llm-d/llm-d-cuda:v0.3.0"
    pins = image_plan.image_pins(image_plan.image_plan(carried_images(), HARBOR), PINS_LOCK)
    got = sv.stack_spec(rec, values(rec, "gaie"), ms, dict(air_gapped=True, registry_host=HARBOR,
                                                           mirrored_registries=["registry.k8s.io"], image_pins=pins))
    assert got["problems"] == ["Qwen3-0.6B-rke2: modelservice values decode.containers[0].image = "
                               "ghcr.io/llm-d/llm-d-cuda:v0.3.0 is not in %s or registry.k8s.io. Fix: mirror it there "
                               "(harbor_upload) and use that reference in the values file." % HARBOR], got["problems"]
    assert "@sha256:" not in " ".join(got["problems"])


def test_a_claim_served_model_drops_its_hugging_face_token_secrets_with_a_note(recs):
    """Issue 26, defect 1: authSecretName and HF_TOKEN from a Secret make every pod wait on a Secret nobody creates."""
    rec = dict(recs["qwen3-0-6b-rke2"], model_artifacts_uri="pvc+hf://qwen3-0-6b-rke2-model/hub/Qwen/Qwen3-0.6B")
    ms = values(rec, "ms")
    ms["modelArtifacts"]["authSecretName"] = "llm-d-hf-token"
    token = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "llm-d-hf-token", "key": "HF_TOKEN"}}}
    ms["decode"]["containers"][0].setdefault("env", []).append(token)
    gaie = values(rec, "gaie")
    gaie["inferenceExtension"]["env"] = [token, {"name": "A", "value": "1"}]
    got = sv.stack_spec(rec, gaie, ms, {"allow_unpinned": True})
    out_ms = got["values"]["modelservice"]
    assert "authSecretName" not in out_ms["modelArtifacts"]
    assert "HF_TOKEN" not in json.dumps(out_ms) and "llm-d-hf-token" not in json.dumps(got["values"])
    assert got["values"]["gaie"]["inferenceExtension"]["env"] == [{"name": "A", "value": "1"}]
    assert got["notes"] == [
        "Qwen3-0.6B-rke2: %s: dropped modelArtifacts.authSecretName, decode.containers[0].env[%d] (HF_TOKEN) "
        "(Secret llm-d-hf-token): the model is served from its claim (%s) with HF_HUB_OFFLINE=1, so its pods need no "
        "Hugging Face token, and nothing creates that Secret"
        % (rec["values_files"]["ms"], len(ms["decode"]["containers"][0]["env"]) - 1, rec["model_artifacts_uri"]),
        "Qwen3-0.6B-rke2: %s: dropped inferenceExtension.env[0] (HF_TOKEN) (Secret llm-d-hf-token): the model is "
        "served from its claim (%s) with HF_HUB_OFFLINE=1, so its pods need no Hugging Face token, and nothing "
        "creates that Secret" % (rec["values_files"]["gaie"], rec["model_artifacts_uri"])]
    # cloud: the EPP's token is a warning (it would download a tokenizer); on-prem a problem naming file and key
    assert len(got["warnings"]) == 1 and "inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token" in \
        got["warnings"][0]
    on_prem = sv.stack_spec(rec, gaie, ms, {"air_gapped": True, "registry_host": HARBOR, "allow_unpinned": True,
                                            "mirrored_registries": ["registry.k8s.io"]})
    assert on_prem["warnings"] == [] and on_prem["problems"] == [
        "Qwen3-0.6B-rke2: %s: inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token gives the EPP a Hugging "
        "Face token, which only a tokenizer download from Hugging Face at run time uses. Fix: remove that env entry "
        "and load no tokenizer from Hugging Face (use prefix-cache-scorer (approximate prefix matching, no tokenizer) "
        "in place of precise-prefix-cache-scorer in that plugin config, as its type and in the schedulingProfiles' "
        "pluginRef, without precise-prefix-cache-scorer's parameters)" % rec["values_files"]["gaie"]]


def test_a_model_not_served_from_a_claim_keeps_its_token_secret():
    """No modelSource (cloud, hf:// as written): the user's Secret is the pods' way to Hugging Face."""
    rec = records(provider="cloud", embedder=False)["qwen3-0-6b-rke2"]
    rec = dict(rec, model_artifacts_uri=None)
    ms = values(rec, "ms")
    ms["modelArtifacts"]["authSecretName"] = "my-hf-token"
    got = sv.stack_spec(rec, values(rec, "gaie"), ms, {})
    assert got["values"]["modelservice"]["modelArtifacts"]["authSecretName"] == "my-hf-token" and got["notes"] == []


def test_monitors_off_turns_the_charts_monitors_off_and_on_keeps_the_values(recs):
    rec = recs["qwen3-0-6b-rke2"]
    kept = spec(rec)
    off = spec(rec, monitors=False)
    ms = off["values"]["modelservice"]
    assert ms["decode"]["monitoring"]["podmonitor"]["enabled"] is False
    assert ms["prefill"]["monitoring"]["podmonitor"]["enabled"] is False
    assert off["values"]["gaie"]["inferenceExtension"]["monitoring"]["prometheus"]["enabled"] is False
    assert off["values"]["infra"] == kept["values"]["infra"]
    # everything else as with monitors on
    for chart in ("gaie", "modelservice"):
        for key in kept["values"][chart]:
            if key not in ("decode", "prefill", "inferenceExtension"):
                assert off["values"][chart][key] == kept["values"][chart][key], (chart, key)


@pytest.mark.parametrize("settings", [{}, {"air_gapped": True, "allow_unpinned": True}])
def test_the_serving_step_refuses_an_alias_bomb_in_a_plugin_config_fast(settings):
    """issue 27 (audit gap 1), the serving side: a 10^9-node plugin config text is a problem of the spec in well under
    2 s, on cloud and on-prem alike (it used to take about 10 minutes in stack_spec)."""
    record = records()["qwen3-0-6b-rke2"]
    ms_file = yaml.safe_load(open(record["values_files"]["ms"]))
    gaie_file = {"inferenceExtension": {"pluginsConfigFile": "c.yaml",
                                        "pluginsCustomConfig": {"c.yaml": alias_bomb(levels=9)}}}
    started = time.monotonic()
    spec = sv.stack_spec(record, gaie_file, ms_file, settings)
    assert time.monotonic() - started < 2
    refused = [p for p in spec["problems"] if "pluginsCustomConfig[c.yaml]" in p]
    assert len(refused) == 1, spec["problems"]
    assert refused[0].startswith("Qwen3-0.6B-rke2: %s: inferenceExtension.pluginsCustomConfig[c.yaml]: refused: it has "
                                 "more than 1000000 nodes" % record["values_files"]["gaie"]), refused
    assert "Fix: write the values out without nested anchors" in refused[0] and "lol" not in refused[0]
