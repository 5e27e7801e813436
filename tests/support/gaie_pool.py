# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The real EPP over one decode pod, for the lab tests that ask it: the upstream inferencepool v1.2.0 chart
installed with helm over a Deployment of the inference simulator stand-in (tests/lab/test_epp_extproc.py asks the
EPP over ext_proc, tests/lab/test_envoy_route.py sends HTTP through Envoy to it)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import json
import os
import subprocess
import uuid

import pytest

from ansible_collections.ai_platform.serving.tests.support import ROOT

CHART = "inferencepool-v1.2.0.tgz"
MODEL = "Qwen/Qwen3-0.6B"
TARGET_PORT = 8200
EPP_PORT = 9002


def chart_path():
    """The packaged upstream chart: shared/upstream/charts beside the checkout (CI), or /work."""
    places = [os.path.join(os.path.dirname(ROOT), "shared", "upstream", "charts"), "/work/shared/upstream/charts"]
    for place in places:
        if os.path.isfile(os.path.join(place, CHART)):
            return os.path.join(place, CHART)
    pytest.fail("the upstream chart %s is in none of %s" % (CHART, ", ".join(places)), pytrace=False)
    return None


def decode_deployment(versions, labels):
    """The Deployment `decode`: one simulator pod serving MODEL on TARGET_PORT, Ready once /health answers."""
    return {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "decode"},
        "spec": {"replicas": 1, "selector": {"matchLabels": labels},
                 "template": {"metadata": {"labels": labels}, "spec": {"containers": [{
                     "name": "vllm",
                     "image": "ghcr.io/llm-d/llm-d-inference-sim:%s" % versions["INFERENCE_SIM_TAG"],
                     "args": ["--model", MODEL, "--port", str(TARGET_PORT)],
                     "ports": [{"containerPort": TARGET_PORT}],
                     "readinessProbe": {"httpGet": {"path": "/health", "port": TARGET_PORT},
                                        "periodSeconds": 1}}]}}},
    }


def ready_pods(kube, namespace, selector):
    pods = kube.list("pods", namespace, selector)
    return [p for p in pods if not p["metadata"].get("deletionTimestamp") and any(
        c["type"] == "Ready" and c["status"] == "True"
        for c in p.get("status", {}).get("conditions", []))]


class Pool(object):
    """An installed release: its name, the decode pods' selector, the EPP Service's address (clusterIP:9002)."""

    def __init__(self, kube, namespace, release, selector, epp_address):
        self.kube = kube
        self.namespace = namespace
        self.release = release
        self.selector = selector
        self.epp_address = epp_address

    def wait_decode_endpoint(self, timeout=120):
        """"<pod IP>:<target port>" of the one decode pod, once it is Ready."""
        pods = self.kube.wait_for("one decode pod Ready",
                                  lambda: ready_pods(self.kube, self.namespace, self.selector), timeout=timeout)
        return "%s:%s" % (pods[0]["status"]["podIP"], TARGET_PORT)

    def scale_decode_to_zero(self, timeout=120):
        self.kube.run("scale", "deployment/decode", "--replicas=0", "-n", self.namespace)
        self.kube.wait_for("no decode pod", lambda: not self.kube.list("pods", self.namespace, self.selector),
                           timeout=timeout)


@contextlib.contextmanager
def epp_over_decode(kube, env, namespace, versions, tmp_path, prefix="gaie"):
    """Install the chart over the decode Deployment (both in namespace); yield a Pool; at the end print the EPP's
    last log lines and uninstall."""
    release = "%s-%s" % (prefix, uuid.uuid4().hex[:6])
    labels = {"llm-d.ai/inferenceServing": "true", "llm-d.ai/model": release}
    selector = ",".join("%s=%s" % item for item in sorted(labels.items()))
    kube.apply(decode_deployment(versions, labels), namespace=namespace)
    values = os.path.join(str(tmp_path), "values.yaml")
    with open(values, "w") as handle:  # JSON is YAML
        json.dump({
            "provider": {"name": "none"},
            "inferenceExtension": {"image": {"pullPolicy": "IfNotPresent"}},
            "inferencePool": {"targetPorts": [{"number": TARGET_PORT}], "modelServers": {"matchLabels": labels}},
        }, handle)
    helm = ["helm", "--kubeconfig", env["KUBECONFIG"], "-n", namespace]
    install = subprocess.run(helm + ["install", release, chart_path(), "-f", values, "--wait", "--timeout", "180s"],
                             env=kube.env, capture_output=True, text=True, check=False)
    try:
        assert install.returncode == 0, install.stderr + kube.run("get", "all", "-n", namespace, check=False).stdout
        service = kube.get("service", "%s-epp" % release, namespace)
        yield Pool(kube, namespace, release, selector, "%s:%s" % (service["spec"]["clusterIP"], EPP_PORT))
    finally:
        print(kube.run("logs", "deployment/%s-epp" % release, "-n", namespace, "--tail", "20", check=False).stdout)
        subprocess.run(helm + ["uninstall", release], env=kube.env, capture_output=True, check=False)
