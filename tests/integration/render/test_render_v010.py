# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The llm-d v0.10 stack rendered from the repo's model folders (router-<slug>/ + modelserver-<slug>/) with the real
llm-d-router-standalone v0.10.0 chart of shared/upstream/charts, through playbooks/render.yml with
aips_serving_stack: llm-d-v0.10 (the one change that moves a site's models): rke2 (on-prem, air-gapped; a generative
model and an embedder) and cloud (a generative model, its model server a Kustomize overlay rendered by the lab's
kubectl). Asserted: the InferencePool v1 selects exactly the model server's pods (the owned labels, so never the
seed's pods nor the EPP), the EPP and Envoy images (Harbor's on-prem), the EPP pod's pull secret and restricted
securityContext (the post-renderer), the client port 80 of the EPP Service, and the model pods' contract (the claim
read-only with the offline env, affinity, tolerations, pull secret). Nothing here is a stand-in.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess

import pytest

from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT
from test_render_models import (  # pylint: disable=import-error
    KUBE_VERSION, assert_placement, charts_dir, env_of, helm_binary, images, manifests, one)

STACK_LABEL, MODEL_LABEL = "ai-platform.serving/stack", "ai-platform.serving/model"


# gateway mode's site Gateway, in a namespace of its own
GATEWAY = {"name": "llm-d-inference-gateway", "namespace": "gateway-system"}


@pytest.fixture(scope="module", params=("rke2", "cloud", "rke2-gateway", "cloud-gateway"))
def rendered(request, tmp_path_factory):
    inventory, _sep, mode = request.param.partition("-")
    out = str(tmp_path_factory.mktemp("render-v010-" + request.param))
    extra = {"aips_router_mode": "gateway", "aips_router_gateway": GATEWAY} if mode else {}
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               AIPS_HARBOR_TOKEN="render-test-token")
    env.setdefault("KUBECONFIG", os.path.join(out, "no-cluster.kubeconfig"))
    proc = subprocess.run(
        ["ansible-playbook", "-i", os.path.join(ROOT, "inventory", inventory),
         os.path.join(ROOT, "playbooks", "render.yml"), "-e",
         json.dumps(dict({"aips_render_dir": out, "aips_render_chart_dir": charts_dir(),
                          "aips_render_kube_version": KUBE_VERSION, "serving_stack_helm_binary": helm_binary(),
                          "aips_serving_stack": "llm-d-v0.10", "aips_allow_unpinned": True}, **extra))],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    with open(os.path.join(out, "plan.json")) as handle:
        plan = json.load(handle)
    return inventory, out, plan


def router_chart(record):
    """The chart key the record's router renders under: router (standalone) or router_gateway."""
    return "router_gateway" if record.get("router_mode") == "gateway" else "router"


def pod_templates(docs):
    return [(d["metadata"]["name"], d["spec"]["template"]) for d in docs if d["kind"] in ("Deployment", "StatefulSet")]


def test_the_inventory_models_render_on_the_v010_stack_only(rendered):
    inventory, out, plan = rendered
    categories = set()
    for record in plan["records"]:
        assert record["stack"] == "llm-d-v0.10", (inventory, record["slug"])
        categories.add(record["category"])
        files = set(os.listdir(os.path.join(out, record["slug"])))
        chart = router_chart(record)
        expected = {chart + ".yaml", chart + "-values.yaml", "modelserver.yaml"}
        if record["embedder"] or chart == "router_gateway":  # the embeddings Service; gateway mode's HTTPRoute
            expected.add("routing.yaml")
        assert files == expected, (inventory, files)
    assert categories == ({"generative", "embedder"} if inventory == "rke2" else {"generative"}), categories


def test_the_pool_selects_exactly_the_model_server_pods(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        slug = record["slug"]
        router = manifests(out, slug, router_chart(record))
        pool = one(router, "InferencePool", record["names"]["router_release"])
        assert pool["apiVersion"] == "inference.networking.k8s.io/v1", pool["apiVersion"]
        selector = pool["spec"]["selector"]["matchLabels"]
        assert selector[STACK_LABEL] == "llm-d-v0.10" and selector[MODEL_LABEL] == slug, selector
        served = pod_templates(manifests(out, slug, "modelserver"))
        assert served, (inventory, slug)
        for name, template in served:
            assert selector.items() <= template["metadata"]["labels"].items(), (inventory, name, selector)
        # the router's own pods (the EPP with its Envoy sidecar) are not selected
        for name, template in pod_templates(router):
            assert not selector.items() <= (template["metadata"].get("labels") or {}).items(), name
        # the pool's EPP is the release's, on its ext_proc port
        assert pool["spec"]["endpointPickerRef"]["name"] == record["names"]["router_epp"], pool["spec"]
        port = pool["spec"]["targetPorts"][0]["number"]
        container_ports = [p["containerPort"] for _n, t in served for c in t["spec"]["containers"]
                           for p in c.get("ports") or []]
        assert port in container_ports, (inventory, slug, port, container_ports)


def test_the_epp_pod_images_port_and_security(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        gateway_mode = router_chart(record) == "router_gateway"
        router = manifests(out, record["slug"], router_chart(record))
        epp = one(router, "Deployment", record["names"]["router_epp"])
        pod = epp["spec"]["template"]["spec"]
        names = [c["name"] for c in pod["containers"]]
        # standalone: the EPP with its Envoy sidecar; gateway mode: the EPP alone (the site's Gateway proxies)
        assert names == ["epp"] if gateway_mode else ("epp" in names and "envoy-proxy" in names), names
        found = list(images(pod))
        if inventory == "rke2":
            assert all(image.startswith(HARBOR + "/") for image in found), found
            assert {"name": "harbor-creds"} in pod["imagePullSecrets"], pod.get("imagePullSecrets")
        else:
            assert any(image.startswith("ghcr.io/llm-d/llm-d-router-endpoint-picker:") for image in found), found
        assert pod["securityContext"]["runAsNonRoot"] is True, pod["securityContext"]
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}, pod["securityContext"]
        for container in pod["containers"]:
            context = container.get("securityContext") or {}
            assert context.get("allowPrivilegeEscalation") is False, (container["name"], context)
            assert "ALL" in ((context.get("capabilities") or {}).get("drop") or []), (container["name"], context)
        service = one(router, "Service", record["names"]["router_epp"])
        http = [p for p in service["spec"]["ports"] if p["name"] == "http"]
        if gateway_mode:  # no client port of the collection's (a file's own, as the guides write it, stays)
            assert all(p["port"] != 80 or p["targetPort"] == 8081 for p in http), service["spec"]["ports"]
            continue
        assert http and http[0]["port"] == 80, service["spec"]["ports"]


def test_the_model_server_pod_contract(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        where = "%s/%s" % (inventory, record["slug"])
        docs = manifests(out, record["slug"], "modelserver")
        for doc in docs:
            assert doc["metadata"]["namespace"] == record["namespace"], (where, doc["metadata"])
            assert doc["metadata"]["labels"][STACK_LABEL] == "llm-d-v0.10", (where, doc["metadata"])
        for name, template in pod_templates(docs):
            pod = template["spec"]
            if (record.get("model_artifacts_uri") or "").startswith("pvc"):
                claim = [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
                assert len(claim) == 1 and claim[0]["persistentVolumeClaim"] == {
                    "claimName": record["storage"]["pvc"], "readOnly": True}, (where, name, pod["volumes"])
                for container in pod["containers"]:
                    mounts = [m for m in container.get("volumeMounts") or [] if m["name"] == claim[0]["name"]]
                    assert mounts and all(m["readOnly"] is True for m in mounts), (where, container["name"])
                    env = env_of(container)
                    assert env.get("HF_HUB_OFFLINE") == "1" and env.get("HF_HOME") == "/model-cache", (where, env)
                    assert "HF_TOKEN" not in env, (where, container["name"])
            assert_placement(record, pod, where)
            if inventory == "rke2":
                assert all(image.startswith(HARBOR + "/") for image in images(pod)), (where, list(images(pod)))


def test_gateway_mode_routes_from_the_site_gateway_to_the_pool_with_no_chart_route(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        if router_chart(record) != "router_gateway":
            continue
        slug, names = record["slug"], record["names"]
        router = manifests(out, slug, "router_gateway")
        assert [d for d in router if d["kind"] == "HTTPRoute"] == [], "the chart's own route is off"
        # the provider of the site (Istio): the DestinationRule to the router's EPP, TLS to its ext_proc
        rule = one(router, "DestinationRule", names["router_epp"])
        assert rule["spec"]["host"] == "%s.%s.svc.cluster.local" % (names["router_epp"], record["namespace"]), rule
        assert record["router_gateway"] == dict(GATEWAY, service=GATEWAY["name"] + "-istio"), record
        routing = manifests(out, slug, "routing")
        assert len(routing) == 1, routing
        if record["embedder"]:
            assert routing[0]["kind"] == "Service" and routing[0]["metadata"]["name"] == names["embeddings_service"]
            continue
        route = routing[0]
        assert route["kind"] == "HTTPRoute" and route["metadata"]["name"] == names["httproute"], route["metadata"]
        assert route["spec"]["parentRefs"] == [dict(group="gateway.networking.k8s.io", kind="Gateway", **GATEWAY)]
        assert route["spec"]["rules"][0]["backendRefs"] == [{"group": "inference.networking.k8s.io",
                                                             "kind": "InferencePool",
                                                             "name": names["router_release"]}], (inventory, route)
        one(router, "InferencePool", names["router_release"])
