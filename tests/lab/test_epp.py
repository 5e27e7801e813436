"""The GAIE endpoint picker image (the real EPP, built by the lab) becomes Ready against an
InferencePool whose model server is the simulator, as the inferencepool chart deploys it."""

from ansible_collections.ai_platform.serving.tests.support.lab import inference_pool

# The EPP needs a plugin configuration (the chart mounts one): one scorer is enough here.
EPP_CONFIG = """apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: queue-scorer
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: queue-scorer
"""


def _rbac(namespace):
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role",
        "metadata": {"name": "epp"},
        "rules": [
            {"apiGroups": ["inference.networking.k8s.io"], "resources": ["inferencepools"],
             "verbs": ["get", "list", "watch"]},
            {"apiGroups": ["inference.networking.x-k8s.io"], "resources": ["*"],
             "verbs": ["get", "list", "watch"]},
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
        ],
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding",
        "metadata": {"name": "epp"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "epp"},
        "subjects": [{"kind": "ServiceAccount", "name": "epp", "namespace": namespace}],
    }
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "epp"}}
    return account, role, binding


def _ready(kube, pod, namespace):
    conditions = kube.get("pod", pod, namespace)["status"].get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


def test_epp_becomes_ready_for_an_inferencepool(kube, namespace, versions):
    sim = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "decode", "labels": {"llm-d.ai/inferenceServing": "true"}},
        "spec": {"containers": [{
            "name": "vllm",
            "image": f"ghcr.io/llm-d/llm-d-inference-sim:{versions['INFERENCE_SIM_TAG']}",
            "args": ["--model", "org/tiny-model", "--port", "8000"],
        }]},
    }
    pool = inference_pool()
    image = f"registry.k8s.io/gateway-api-inference-extension/epp:{versions['GAIE_VERSION']}"
    args = ["--pool-name", "gaie-demo", "--pool-namespace", namespace, "--config-text", EPP_CONFIG,
            "--tracing=false", "--metrics-endpoint-auth=false"]
    epp = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "gaie-demo-epp"},
        "spec": {"serviceAccountName": "epp", "containers": [{
            "name": "epp",
            "image": image,
            "args": args,
            "readinessProbe": {"grpc": {"port": 9003, "service": "inference-extension"},
                               "periodSeconds": 2},
        }]},
    }
    kube.apply(*_rbac(namespace), sim, pool, epp, namespace=namespace)
    try:
        kube.wait_for("EPP ready", lambda: _ready(kube, "gaie-demo-epp", namespace), timeout=120)
    except AssertionError:
        print(kube.run("logs", "gaie-demo-epp", "-n", namespace, check=False).stdout[-3000:])
        raise
