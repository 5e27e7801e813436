"""The real EPP (upstream inferencepool v1.2.0 chart) picks the decode pod its pool selects.

The lab has no Envoy, so `epp-extproc-client` (lab/extproc-client, built with the EPP's own Go
modules) asks the EPP's Service over ext_proc v3 as an Istio gateway would: request headers, then
a chat-completion body. With one decode pod Ready the EPP answers with that pod's IP and the
pool's target port (header mutation and dynamic metadata); scaled to zero, with an immediate
503 answer. The decode pod is the lab's inference simulator stand-in (vLLM-style metrics).
"""

# pytest fixtures are parameters named like the fixture functions
# pylint: disable=redefined-outer-name

import json
import shutil
import subprocess
import time
import uuid
from pathlib import Path

import pytest

from ansible_collections.ai_platform.serving.tests.support import ROOT

CHART = "inferencepool-v1.2.0.tgz"
MODEL = "Qwen/Qwen3-0.6B"
TARGET_PORT = 8200


def chart_path():
    """The packaged upstream chart: shared/upstream/charts beside the checkout (CI), or /work."""
    places = [Path(ROOT).parent / "shared" / "upstream" / "charts",
              Path("/work/shared/upstream/charts")]
    for place in places:
        if (place / CHART).is_file():
            return place / CHART
    pytest.fail(f"the upstream chart {CHART} is in none of {', '.join(map(str, places))}",
                pytrace=False)
    return None


@pytest.fixture
def client(env):
    path = shutil.which("epp-extproc-client", path=env["PATH"])
    if not path:
        pytest.fail("epp-extproc-client is not on the lab's PATH: run `lab/lab up`", pytrace=False)
    return path


def ask(client, address):
    """One ext_proc exchange; (exit code, parsed answer or stderr)."""
    proc = subprocess.run([client, "-addr", address, "-model", MODEL, "-timeout", "15s"],
                          capture_output=True, text=True, check=False)
    if proc.returncode in (0, 2):
        return proc.returncode, json.loads(proc.stdout)
    return proc.returncode, proc.stderr


def poll(client, address, want_code, timeout=90):
    """Ask until the EPP answers with want_code (0 picked, 2 immediate response)."""
    deadline = time.monotonic() + timeout
    answers = []
    while time.monotonic() < deadline:
        code, answer = ask(client, address)
        answers.append((code, answer))
        if code == want_code:
            return answer
        time.sleep(2)
    raise AssertionError(f"no answer with exit code {want_code} in {timeout}s; last answers: "
                         f"{answers[-3:]}")


def decode_deployment(versions, labels):
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "decode"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": {"containers": [{
                     "name": "vllm",
                     "image": f"ghcr.io/llm-d/llm-d-inference-sim:{versions['INFERENCE_SIM_TAG']}",
                     "args": ["--model", MODEL, "--port", str(TARGET_PORT)],
                     "ports": [{"containerPort": TARGET_PORT}],
                     "readinessProbe": {"httpGet": {"path": "/health", "port": TARGET_PORT},
                                        "periodSeconds": 1}}]}}},
    }


def _ready_pods(kube, namespace, selector):
    pods = kube.list("pods", namespace, selector)
    return [p for p in pods if not p["metadata"].get("deletionTimestamp") and any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in p.get("status", {}).get("conditions", []))]


def test_epp_picks_the_ready_decode_pod_and_errors_with_none(kube, env, namespace, versions,
                                                             client, tmp_path):
    release = f"gaie-xp-{uuid.uuid4().hex[:6]}"
    labels = {"llm-d.ai/inferenceServing": "true", "llm-d.ai/model": release}
    selector = ",".join(f"{k}={v}" for k, v in labels.items())
    kube.apply(decode_deployment(versions, labels), namespace=namespace)
    values = tmp_path / "values.yaml"  # JSON is YAML
    values.write_text(json.dumps({
        "provider": {"name": "none"},
        "inferenceExtension": {"image": {"pullPolicy": "IfNotPresent"}},
        "inferencePool": {"targetPorts": [{"number": TARGET_PORT}],
                          "modelServers": {"matchLabels": labels}},
    }))
    helm = ["helm", "--kubeconfig", env["KUBECONFIG"], "-n", namespace]
    install = subprocess.run([*helm, "install", release, str(chart_path()), "-f", str(values),
                              "--wait", "--timeout", "180s"],
                             env=kube.env, capture_output=True, text=True, check=False)
    try:
        assert install.returncode == 0, install.stderr + kube.run(
            "get", "all", "-n", namespace, check=False).stdout
        service = kube.get("service", f"{release}-epp", namespace)
        address = f"{service['spec']['clusterIP']}:9002"
        pods = kube.wait_for("one decode pod Ready",
                             lambda: _ready_pods(kube, namespace, selector), timeout=120)
        expected = f"{pods[0]['status']['podIP']}:{TARGET_PORT}"

        picked = poll(client, address, want_code=0)
        print(f"EPP picked {picked['endpoint']} (decode pod {expected})")
        assert picked["endpoint"] == expected, picked
        assert picked["metadata_endpoint"] == expected, picked

        kube.run("scale", "deployment/decode", "--replicas=0", "-n", namespace)
        kube.wait_for("no decode pod", lambda: not kube.list("pods", namespace, selector),
                      timeout=120)
        refused = poll(client, address, want_code=2)
        print(f"EPP with no decode pod: {refused['immediate_response']}")
        assert refused["immediate_response"]["status"] == 503, refused
        assert "failed to find candidate pods" in refused["immediate_response"]["body"], refused
    finally:
        logs = kube.run("logs", f"deployment/{release}-epp", "-n", namespace, "--tail", "20",
                        check=False).stdout
        print(logs)
        subprocess.run([*helm, "uninstall", release], env=kube.env,
                       capture_output=True, check=False)
