"""Helpers for the lab tests: the lab's environment, kubectl, and waiting on objects."""

import json
import os
import shlex
import subprocess
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
LAB = REPO_ROOT / "lab" / "lab"


def lab_env():
    """The variables `lab/lab env` exports, with PATH expanded."""
    out = subprocess.run([str(LAB), "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, value = line.removeprefix("export ").split("=", 1)
        env[key] = shlex.split(value)[0] if key != "PATH" else value
    env["PATH"] = env["PATH"].replace('"$PATH"', os.environ["PATH"])
    return env


class Kube:
    """kubectl against the lab, with JSON in and out."""

    def __init__(self, env):
        self.env = dict(os.environ, **env)

    def run(self, *args, input_text=None, check=True):
        proc = subprocess.run(["kubectl", *map(str, args)], env=self.env, text=True,
                              capture_output=True, input=input_text, check=False)
        if check and proc.returncode != 0:
            raise AssertionError(f"kubectl {' '.join(map(str, args))} failed:\n{proc.stderr}")
        return proc

    def apply(self, *objects, namespace=None):
        ns = ["-n", namespace] if namespace else []
        doc = {"apiVersion": "v1", "kind": "List", "items": list(objects)}
        self.run("apply", *ns, "-f", "-", input_text=json.dumps(doc))

    def get(self, kind, name, namespace=None):
        ns = ["-n", namespace] if namespace else []
        return json.loads(self.run("get", kind, name, *ns, "-o", "json").stdout)

    def list(self, kind, namespace=None, selector=None):
        args = ["-n", namespace] if namespace else []
        args += ["-l", selector] if selector else []
        return json.loads(self.run("get", kind, *args, "-o", "json").stdout)["items"]

    def logs(self, pod, namespace):
        return self.run("logs", pod, "-n", namespace).stdout

    def wait_for(self, what, probe, timeout=120):
        """Poll probe() until it returns a truthy value; fail naming what was awaited."""
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            last = probe()
            if last:
                return last
            time.sleep(1)
        raise AssertionError(f"timed out after {timeout}s waiting for {what}")

    def pod_phase(self, pod, namespace):
        return self.get("pod", pod, namespace).get("status", {}).get("phase")

    def wait_pod_succeeded(self, pod, namespace, timeout=120):
        def done():
            phase = self.pod_phase(pod, namespace)
            if phase == "Failed":
                raise AssertionError(f"pod {pod} failed:\n{self.describe('pod', pod, namespace)}")
            return phase == "Succeeded"
        try:
            self.wait_for(f"pod {namespace}/{pod} to succeed", done, timeout)
        except AssertionError:
            print(self.describe("pod", pod, namespace))
            raise

    def wait_job_complete(self, job, namespace, timeout=180):
        def done():
            status = self.get("job", job, namespace).get("status", {})
            if status.get("failed"):
                raise AssertionError(f"job {job} failed:\n{self.describe('job', job, namespace)}")
            return status.get("succeeded", 0) >= 1
        self.wait_for(f"job {namespace}/{job} to complete", done, timeout)

    def job_pod(self, job, namespace):
        pods = self.list("pods", namespace, selector=f"job-name={job}")
        assert pods, f"job {job} has no pod"
        return pods[0]["metadata"]["name"]

    def describe(self, kind, name, namespace):
        return self.run("describe", kind, name, "-n", namespace, check=False).stdout


def pod(name, image, command, pull_secret=None, pull_policy="IfNotPresent", **spec):
    """A one-shot Pod manifest."""
    body = {"restartPolicy": "Never",
            "containers": [{"name": "main", "image": image, "command": command,
                            "imagePullPolicy": pull_policy}], **spec}
    if pull_secret:
        body["imagePullSecrets"] = [{"name": pull_secret}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


def docker_config_secret(name, env):
    config = Path(env["AIPS_LAB_DOCKER_CONFIG"]).read_text()
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name},
            "type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": config}}


def inference_pool():
    """The InferencePool `gaie-demo` over the simulator pods (port 8000), its endpoint picker `gaie-demo-epp`."""
    return {
        "apiVersion": "inference.networking.k8s.io/v1", "kind": "InferencePool",
        "metadata": {"name": "gaie-demo"},
        "spec": {"selector": {"matchLabels": {"llm-d.ai/inferenceServing": "true"}},
                 "targetPorts": [{"number": 8000}],
                 "endpointPickerRef": {"name": "gaie-demo-epp", "port": {"number": 9002}}},
    }
