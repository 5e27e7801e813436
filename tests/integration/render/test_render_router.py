# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The llm-d v0.10 router release renders with the real chart (llm-d-router-standalone v0.10.0 as carried in
shared/upstream/charts): `helm template` of stack/router.py's values (through spec_v010.stack_spec, images
pinned) and serving_stack's post-renderer, for an rke2-like (on-prem, Harbor, pull secret, claim) and a
cloud-like hand-made plan record. Nothing here is a stand-in; the helm binary is found as test_render_models
finds it (on PATH, else the lab's)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import spec_v010, stacks
from ansible_collections.ai_platform.serving.tests.integration.render.test_render_models import KUBE_VERSION, helm_binary
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import UPSTREAM_CHARTS

CHART = os.path.join(UPSTREAM_CHARTS, "llm-d-router-standalone-v0.10.0.tgz")
POST_RENDERER = os.path.join(ROOT, "roles", "serving_stack", "files", "gateway_placement.py")
HARBOR = "harbor.harbor.svc.cluster.local"
DIGEST = "sha256:" + "b" * 64
GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "workload", "operator": "In", "values": ["gpu"]}]}]}}}
FILE = {"router": {"modelServers": {"matchLabels": {"llm-d.ai/guide": "q"}},
                   "epp": {"resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}}}
MODELSERVER = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "q-decode"},
                "spec": {"selector": {"matchLabels": {"llm-d.ai/guide": "q"}},
                         "template": {"metadata": {"labels": {"llm-d.ai/guide": "q"}},
                                      "spec": {"containers": [{"name": "modelserver", "image": "IMAGE",
                                                               "ports": [{"containerPort": 8000}]}]}}}}]


def record(on_prem):
    slug = "q"
    return {"name": "Q", "slug": slug, "stack": stacks.V010.name, "embedder": False, "routing_kind": "httproute",
            "namespace": "llm-d-q",
            "names": {"namespace": "llm-d-q", "router_release": "router-q", "router_epp": "router-q-epp",
                      "gateway_service": "llmd-gateway-q", "httproute": "llm-d-q",
                      "embeddings_service": "ms-q-embeddings", "gateway_defaults": "gateway-defaults-q",
                      "harbor_pull_secret": "harbor-creds" if on_prem else None},
            "affinity": AFFINITY if on_prem else None, "tolerations": [GPU] if on_prem else [],
            "storage": {"mode": "harbor", "pvc": "q-model"} if on_prem else {"mode": "none"},
            "model_artifacts_uri": "pvc+hf://q-model/Qwen/Qwen3-0.6B" if on_prem else None,
            "values_files": {"router": "router-q/values.yaml", "modelserver": "modelserver-q"}}


def settings(on_prem):
    if not on_prem:
        return {}
    harbor = HARBOR + "/images-shaide/"
    pins = dict((harbor + ref, harbor + ref.split(":", maxsplit=1)[0] + "@" + DIGEST) for ref in (
        "llm-d/llm-d-router-endpoint-picker:v0.10.0", "envoyproxy/envoy:distroless-v1.33.2",
        "vllm/vllm-openai:v0.30.0"))
    return {"air_gapped": True, "registry_host": HARBOR, "image_pins": pins}


def helm_template(values, tmp_path, post_render=True):
    if not os.path.isfile(CHART):
        pytest.fail("real chart missing: %s" % CHART, pytrace=False)
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    command = [helm_binary(), "template", "router-q", CHART, "-n", "llm-d-q", "--kube-version", KUBE_VERSION,
               "-f", str(path)]
    if post_render:
        command += ["--post-renderer", POST_RENDERER]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=120)


@pytest.fixture(params=("rke2", "cloud"))
def rendered(request, tmp_path):
    on_prem = request.param == "rke2"
    objects = [dict(MODELSERVER[0])]
    image = (HARBOR + "/images-shaide/" if on_prem else "docker.io/") + "vllm/vllm-openai:v0.30.0"
    objects[0] = yaml.safe_load(yaml.safe_dump(MODELSERVER[0]).replace("IMAGE", image))
    spec = spec_v010.stack_spec(record(on_prem), FILE, objects, settings(on_prem))
    assert spec["problems"] == []
    proc = helm_template(spec["values"]["router"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    docs = [doc for doc in yaml.safe_load_all(proc.stdout) if doc]
    return on_prem, spec, dict(((doc["kind"], doc["metadata"]["name"]), doc) for doc in docs)


def test_the_pool_selects_exactly_the_owned_labels_and_the_files(rendered):
    _on_prem, spec, docs = rendered
    pool = docs[("InferencePool", "router-q")]
    assert pool["apiVersion"] == "inference.networking.k8s.io/v1"
    assert pool["spec"]["selector"]["matchLabels"] == dict(stacks.owned_labels("q"), **{"llm-d.ai/guide": "q"})
    deployment = [obj for obj in spec["objects"] if obj["kind"] == "Deployment"][0]
    template = deployment["spec"]["template"]["metadata"]["labels"]
    assert all(template[k] == v for k, v in pool["spec"]["selector"]["matchLabels"].items())


def test_the_epp_service_serves_http_on_80_to_envoy(rendered):
    _on_prem, spec, docs = rendered
    ports = dict((p["name"], p) for p in docs[("Service", "router-q-epp")]["spec"]["ports"])
    assert (ports["http"]["port"], ports["http"]["targetPort"]) == (80, 8081)
    # the gateway Service comes last: the switch is applied after the model server is available
    assert spec["objects"][-1]["metadata"]["name"] == "llmd-gateway-q"
    assert spec["objects"][-1]["spec"]["externalName"] == "router-q-epp.llm-d-q.svc.cluster.local"


def test_the_epp_pod_is_restricted_pulled_and_placed(rendered):
    on_prem, _spec, docs = rendered
    pod = docs[("Deployment", "router-q-epp")]["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    for container in pod["containers"]:
        assert container["securityContext"]["allowPrivilegeEscalation"] is False
        assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    images = dict((c["name"], c["image"]) for c in pod["containers"])
    if on_prem:
        assert pod["imagePullSecrets"] == [{"name": "harbor-creds"}]
        assert pod["affinity"] == AFFINITY and pod["tolerations"] == [GPU]
        assert images["epp"] == HARBOR + "/images-shaide/llm-d/llm-d-router-endpoint-picker:v0.10.0@" + DIGEST
        assert images["envoy-proxy"] == HARBOR + "/images-shaide/envoyproxy/envoy@" + DIGEST
    else:
        assert "imagePullSecrets" not in pod and "affinity" not in pod
        assert images == {"envoy-proxy": "docker.io/envoyproxy/envoy:distroless-v1.33.2",
                          "epp": "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0"}


def test_the_chart_refuses_a_seed_gaie_key_as_the_plan_does(tmp_path):
    values = dict(FILE, inferenceExtension={"replicas": 1})
    proc = helm_template(values, tmp_path, post_render=False)
    assert proc.returncode != 0 and "inferenceExtension" in proc.stderr
    spec = spec_v010.stack_spec(record(False), values, MODELSERVER)
    assert any("inferenceExtension" in problem for problem in spec["problems"])
