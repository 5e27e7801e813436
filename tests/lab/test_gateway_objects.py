"""Gateway API and InferencePool objects are validated and stored by the real apiserver.

No Gateway controller runs in the lab (Istio cannot run here): a Gateway is accepted but never
programmed, so its status never reports Programmed=True.
"""

import json
import time

from ansible_collections.ai_platform.serving.tests.support.lab import inference_pool


def _objects(namespace):
    gateway_class = {
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "GatewayClass",
        "metadata": {"name": f"{namespace}-class"},
        "spec": {"controllerName": "example.com/no-controller"},
    }
    gateway = {
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
        "metadata": {"name": "infra-demo-inference-gateway"},
        "spec": {"gatewayClassName": f"{namespace}-class",
                 "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]},
    }
    pool = inference_pool()
    route = {
        "apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
        "metadata": {"name": "llm-d-demo"},
        "spec": {"parentRefs": [{"name": "infra-demo-inference-gateway"}],
                 "rules": [{"backendRefs": [{"group": "inference.networking.k8s.io",
                                             "kind": "InferencePool", "name": "gaie-demo"}]}]},
    }
    return gateway_class, gateway, pool, route


def test_gateway_httproute_and_inferencepool_are_accepted(kube, namespace):
    gateway_class, gateway, pool, route = _objects(namespace)
    kube.apply(gateway_class)
    try:
        kube.apply(gateway, pool, route, namespace=namespace)
        stored = kube.get("httproute", "llm-d-demo", namespace)
        assert stored["spec"]["rules"][0]["backendRefs"][0]["kind"] == "InferencePool"
        assert kube.get("inferencepool", "gaie-demo", namespace)["spec"]["targetPorts"] == [
            {"number": 8000}]
        time.sleep(2)
        conditions = kube.get("gateway", gateway["metadata"]["name"], namespace).get(
            "status", {}).get("conditions", [])
        assert not any(c["type"] == "Programmed" and c["status"] == "True" for c in conditions)
    finally:
        kube.run("delete", "gatewayclass", gateway_class["metadata"]["name"], check=False)


def test_invalid_inferencepool_is_rejected(kube, namespace):
    pool = inference_pool()
    del pool["spec"]["endpointPickerRef"]
    proc = kube.run("apply", "-n", namespace, "-f", "-", input_text=json.dumps(pool), check=False)
    assert proc.returncode != 0
    assert "endpointPickerRef" in proc.stderr, proc.stderr
