# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for serving_stack on the lab: playbooks/site.yml against the real cluster.

The llm-d charts are the real upstream charts (shared/upstream/charts), pushed into the lab registry
by site.yml's upload stage and installed from there as OCI charts. The model server is the lab's
inference-sim STAND-IN; the registry is a Harbor STAND-IN (docker-registry). Everything else is
real: the cluster, the pull Job, Helm, the Gateway API, InferencePool and Istio CRDs, the EPP.
Each Stack has its own slugs, namespaces and artifact, so tests never share anything.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import sys
import uuid

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from labplay import GPU_TOLERATION, HARBOR, ROOT, ansible_playbook, publish, real_chart_variables  # noqa: E402
# fixtures, shared with the other lab test folders
from labplay import kube, lab, minilm_hub  # noqa: E402,F401  pylint: disable=unused-import

HOSTPATH_ROOT = "/var/tmp/aips-serving-stack-test"
LAB_MODELS = {"embedder": ("all-MiniLM-L6-v2-lab", "minilm-lab"), "generative": ("sim-qwen3-lab", "sim-qwen3-lab")}


class Stack(object):
    """Two models (the lab's embedder and generative values, under new slugs) and their inventory."""

    def __init__(self, lab, kube, tmp, hub):
        self.lab, self.kube, self.tmp, self.hub = lab, kube, tmp, hub
        self.suffix = uuid.uuid4().hex[:6]
        self.slugs = {"embedder": "sse-%s" % self.suffix, "generative": "ssg-%s" % self.suffix}
        self.names = {"embedder": "Emb-%s" % self.suffix, "generative": "Gen-%s" % self.suffix}
        self.repository = "sst-minilm-%s" % self.suffix
        self.models_dir = os.path.join(str(tmp), "models")
        for category, (folder, lab_slug) in LAB_MODELS.items():
            for prefix in ("gaie", "ms"):
                src = os.path.join(ROOT, "models", category, folder, "%s-%s" % (prefix, lab_slug), "values.yaml")
                dst = os.path.join(self.models_dir, category, self.names[category],
                                   "%s-%s" % (prefix, self.slugs[category]), "values.yaml")
                os.makedirs(os.path.dirname(dst))
                with open(src) as handle:
                    text = handle.read().replace(lab_slug, self.slugs[category])
                with open(dst, "w") as handle:
                    handle.write(text)
        self.inventory = os.path.join(str(tmp), "hosts.yml")
        local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
        node = dict(local, hostpath_dirs_node_name=lab["AIPS_LAB_NODE"])
        with open(self.inventory, "w") as handle:
            yaml.safe_dump({"all": {"children": {"serving": {"children": {
                "controller": {"hosts": {"localhost": local}},
                "k8s_nodes": {"hosts": {"lab-node": node}}}}}}}, handle)
        self.published = None
        self.placed = False

    def slug(self, category):
        return self.slugs[category]

    def namespace(self, category):
        return "llm-d-%s" % self.slugs[category]

    def publish(self):
        self.published = publish(self.lab, self.tmp, self.hub, self.repository)
        return self.published

    def values_file(self, category, prefix):
        return os.path.join(self.models_dir, category, self.names[category],
                            "%s-%s" % (prefix, self.slugs[category]), "values.yaml")

    def edit_values(self, category, prefix, change):
        path = self.values_file(category, prefix)
        with open(path) as handle:
            values = yaml.safe_load(handle)
        change(values)
        with open(path, "w") as handle:
            yaml.safe_dump(values, handle)

    def variables(self, **overrides):
        variables = dict(
            aips_cloud_provider="on-prem",
            aips_kubeconfig=self.lab["KUBECONFIG"],
            aips_harbor_hostname=HARBOR,
            aips_harbor_user=self.lab["AIPS_LAB_HARBOR_USER"],
            aips_harbor_token=self.lab["AIPS_LAB_HARBOR_TOKEN"],
            aips_hostpath_root=HOSTPATH_ROOT,
            aips_models_dir=self.models_dir,
            aips_models={
                "generative": [{"name": self.names["generative"], "enabled": True,
                                "nodeSelector": ({"kubernetes.io/hostname": self.lab["AIPS_LAB_NODE"]}
                                                 if self.placed else {})}],
                "embedder": [{"name": self.names["embedder"], "enabled": True, "nodeSelector": {},
                              "modelSource": {"harborRef": "%s/ai-models/%s:v1" % (HARBOR, self.repository),
                                              "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                                              "storageSize": "1Gi", "hostpathNode": self.lab["AIPS_LAB_NODE"]}}]},
            aips_site_registries=False,
            aips_nodes_become=False,
            model_storage_registry_ca_file=self.lab["AIPS_LAB_CA"],
            model_storage_wait_timeout=300,
            serving_stack_helm_timeout="4m0s",
        )
        if self.placed:
            variables["aips_gpu_toleration"] = GPU_TOLERATION
        variables.update(real_chart_variables(self.lab))
        variables.update(overrides)
        return variables

    def site(self, *args, check=False, verbosity=0, **overrides):
        playbook = os.path.join(ROOT, "playbooks", "site.yml")
        run = ansible_playbook(self.lab, playbook, self.variables(**overrides), self.tmp, verbosity=verbosity,
                               check=check, inventory=self.inventory, extra_args=list(args))
        return run

    def releases(self, category):
        out = self.kube.run("get", "secrets", "-n", self.namespace(category), "-l", "owner=helm",
                            "-o", "json", check=False)
        if out.returncode != 0:
            return set()
        return set(item["metadata"]["labels"]["name"] for item in json.loads(out.stdout)["items"])

    def query(self, url):
        """GET url from a pod in the default namespace (another namespace than the model's)."""
        name = "sst-query-%s" % uuid.uuid4().hex[:6]
        proc = self.kube.run("run", name, "-n", "default", "--rm", "-i", "--restart=Never",
                             "--image=%s/images-infra/library/busybox:1.35.0" % HARBOR,
                             "--overrides", json.dumps({"spec": {"imagePullSecrets": [{"name": "sst-pull"}]}}),
                             "--", "wget", "-qO-", url, check=False)
        return proc

    def cleanup(self):
        for category in self.slugs:
            self.kube.run("delete", "namespace", self.namespace(category), "--wait=true", "--timeout=180s", check=False)
        self.kube.run("delete", "pv", "%s-model-pv" % self.slugs["embedder"], "--wait=true", "--timeout=60s",
                      check=False)
        shutil.rmtree(os.path.join(HOSTPATH_ROOT, self.slugs["embedder"]), ignore_errors=True)


@pytest.fixture(scope="session")
def query_secret(lab, kube):
    """A pull secret in `default` for the query pod's busybox (the nodes have no Harbor credentials)."""
    with open(lab["AIPS_LAB_DOCKER_CONFIG"]) as handle:
        config = handle.read()
    kube.apply({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "sst-pull", "namespace": "default"},
                "type": "kubernetes.io/dockerconfigjson", "stringData": {".dockerconfigjson": config}})
    return "sst-pull"


@pytest.fixture
def stack_factory(lab, kube, tmp_path, minilm_hub):
    made = []

    def make():
        path = tmp_path / ("s%d" % len(made))
        path.mkdir()
        stack = Stack(lab, kube, path, minilm_hub)
        made.append(stack)
        return stack
    yield make
    for stack in made:
        stack.cleanup()


@pytest.fixture(scope="module")
def deployed(lab, kube, tmp_path_factory, minilm_hub):
    """One stack published and deployed with site.yml, shared by a module's tests (run in order).
    Its generative model is placed on the lab node with GPU_TOLERATION."""
    stack = Stack(lab, kube, tmp_path_factory.mktemp("stack"), minilm_hub)
    stack.placed = True
    stack.publish()
    run = stack.site()
    yield stack, run
    stack.cleanup()
