"""The inference simulator image (the lab's stand-in) serves OpenAI-style endpoints in a pod."""

import json


def test_simulator_answers_models_and_chat(kube, env, namespace, versions, harbor_creds,
                                           busybox_image):
    harbor = env["AIPS_LAB_HARBOR_HOST"]
    sim = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "decode", "labels": {"app": "decode"}},
        "spec": {"imagePullSecrets": [{"name": harbor_creds}], "containers": [{
            "name": "vllm",
            "image": f"{harbor}/images-shaide/llm-d/llm-d-inference-sim:"
                     f"{versions['INFERENCE_SIM_TAG']}",
            "args": ["--model", "org/tiny-model", "--port", "8200", "--max-model-len", "512"],
            "readinessProbe": {"httpGet": {"path": "/health", "port": 8200}, "periodSeconds": 1},
        }]},
    }
    service = {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "decode"},
               "spec": {"selector": {"app": "decode"}, "ports": [{"port": 8200}]}}
    kube.apply(sim, service, namespace=namespace)
    kube.wait_for("simulator ready", lambda: any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in kube.get("pod", "decode", namespace)["status"].get("conditions", [])))
    body = json.dumps({"model": "org/tiny-model",
                       "messages": [{"role": "user", "content": "hi"}]})
    client = {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "client"},
        "spec": {"restartPolicy": "Never", "imagePullSecrets": [{"name": harbor_creds}],
                 "containers": [{"name": "client", "image": busybox_image, "command": [
                     "sh", "-c",
                     "timeout 10 wget -q -O - http://decode:8200/v1/models && "
                     "timeout 10 wget -q -O - --header 'Content-Type: application/json' "
                     f"--post-data '{body}' http://decode:8200/v1/chat/completions"]}]},
    }
    kube.apply(client, namespace=namespace)
    kube.wait_pod_succeeded("client", namespace, timeout=60)
    models, chat = [line for line in kube.logs(namespace, "client").splitlines() if line]
    assert [m["id"] for m in json.loads(models)["data"]] == ["org/tiny-model"]
    assert json.loads(chat)["choices"][0]["message"]["role"] == "assistant"
