# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the hardening tests (issue 13) on the lab: a model per test, its own slug and namespace.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import sys
import uuid

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.dirname(HERE))
# re-exported: the tests import these from conftest
from labplay import (  # noqa: E402,F401  pylint: disable=unused-import
    HARBOR, ansible_playbook, kube, lab, minilm_hub, publish, real_chart_variables, wait_for)

HOSTPATH_ROOT = "/var/tmp/aips-hardening-test"
PULL_UID = 65532
RESTRICTED = {"enforce": "restricted", "warn": "restricted", "audit": "restricted"}
APPLY = os.path.join(ROOT, "tests", "integration", "model_storage", "apply.yml")


class Model(object):
    """One embedder on the MiniLM artifact, on-prem on the lab node, with its own slug and namespace."""

    def __init__(self, lab, kube, tmp_path, hub):
        self.lab, self.kube, self.tmp, self.hub = lab, kube, tmp_path, hub
        self.suffix = uuid.uuid4().hex[:6]
        self.slug = "hdn-%s" % self.suffix
        self.name = "Hdn-%s" % self.suffix
        self.repository = "hdn-minilm-%s" % self.suffix
        self.namespace = "llm-d-%s" % self.slug
        self.models_dir = os.path.join(str(tmp_path), "models")
        for prefix in ("gaie", "ms"):
            folder = os.path.join(self.models_dir, "embedder", self.name, "%s-%s" % (prefix, self.slug))
            os.makedirs(folder)
            with open(os.path.join(folder, "values.yaml"), "w") as handle:
                handle.write("---\ndecode:\n  replicas: 1\n" if prefix == "ms" else "--- {}\n")
        self.hostpath_dir = os.path.join(HOSTPATH_ROOT, self.slug)
        # as hostpath_dirs makes it: owned by the pull Job's non-root uid (a hostPath ignores fsGroup)
        os.makedirs(self.hostpath_dir)
        os.chown(self.hostpath_dir, PULL_UID, PULL_UID)
        self.results = os.path.join(str(tmp_path), "results.json")
        self.published = None
        # the playbooks run on the controller group of the `serving` hosts, as in a site inventory
        self.inventory = os.path.join(str(tmp_path), "hosts.yml")
        local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
        with open(self.inventory, "w") as handle:
            yaml.safe_dump({"all": {"children": {"serving": {"children": {
                "controller": {"hosts": {"localhost": local}}}}}}}, handle)

    @property
    def pvc(self):
        return "%s-model" % self.slug

    @property
    def pv(self):
        return "%s-model-pv" % self.slug

    @property
    def job(self):
        return "%s-model-pull" % self.slug

    def publish(self):
        self.published = publish(self.lab, self.tmp, self.hub, self.repository)
        return self.published

    def values_file(self, prefix):
        return os.path.join(self.models_dir, "embedder", self.name, "%s-%s" % (prefix, self.slug), "values.yaml")

    def edit_values(self, prefix, change):
        path = self.values_file(prefix)
        with open(path) as handle:
            values = yaml.safe_load(handle) or {}
        change(values)
        with open(path, "w") as handle:
            yaml.safe_dump(values, handle)

    def use_lab_values(self, lab_folder="all-MiniLM-L6-v2-lab", lab_slug="minilm-lab"):
        """The lab embedder's values files (models/embedder/<lab_folder>) under this model's slug."""
        for prefix in ("gaie", "ms"):
            src = os.path.join(ROOT, "models", "embedder", lab_folder, "%s-%s" % (prefix, lab_slug), "values.yaml")
            with open(src) as handle:
                text = handle.read().replace(lab_slug, self.slug)
            with open(self.values_file(prefix), "w") as handle:
                handle.write(text)

    def variables(self, **overrides):
        variables = dict(
            aips_repo_root=ROOT,
            aips_test_results=self.results,
            aips_cloud_provider="on-prem",
            aips_kubeconfig=self.lab["KUBECONFIG"],
            aips_harbor_hostname=HARBOR,
            aips_harbor_user=self.lab["AIPS_LAB_HARBOR_USER"],
            aips_harbor_token=self.lab["AIPS_LAB_HARBOR_TOKEN"],
            aips_hostpath_root=HOSTPATH_ROOT,
            aips_oras_image="%s/images-infra/oras-project/oras:v1.3.1" % HARBOR,
            aips_models_dir=self.models_dir,
            aips_models={"generative": [], "embedder": [{
                "name": self.name, "enabled": True,
                "modelSource": {"harborRef": "%s/ai-models/%s:v1" % (HARBOR, self.repository),
                                "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                                "storageSize": "1Gi", "hostpathNode": self.lab["AIPS_LAB_NODE"]}}]},
            aips_pod_security=RESTRICTED,
            aips_site_registries=False,
            aips_nodes_become=False,
            model_storage_registry_ca_file=self.lab["AIPS_LAB_CA"],
            model_storage_wait_timeout=300,
        )
        variables.update(overrides)
        return variables

    def storage(self, **overrides):
        """model_storage alone (the test playbook of tests/integration/model_storage)."""
        if os.path.exists(self.results):
            os.unlink(self.results)
        return ansible_playbook(self.lab, APPLY, self.variables(**overrides), self.tmp)

    def play(self, name, *args, **overrides):
        variables = self.variables(**overrides)
        return ansible_playbook(self.lab, os.path.join(ROOT, "playbooks", name), variables, self.tmp,
                                inventory=self.inventory, extra_args=list(args))

    def marker_path(self):
        return os.path.join(self.hostpath_dir, ".pulled")

    def events(self, kind, name):
        out = self.kube.run("get", "events", "-n", self.namespace, "--field-selector",
                            "involvedObject.kind=%s,involvedObject.name=%s" % (kind, name), "-o", "yaml", check=False)
        return (yaml.safe_load(out.stdout) or {}).get("items") or [] if out.returncode == 0 else []

    def cleanup(self):
        self.kube.run("delete", "namespace", self.namespace, "--wait=true", "--timeout=120s", check=False)
        self.kube.run("delete", "pv", self.pv, "--wait=true", "--timeout=60s", check=False)
        shutil.rmtree(self.hostpath_dir, ignore_errors=True)


def hub_fixture_module():
    """tests/integration/registry/hub_fixture (the MiniLM files and the hub cache layout)."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "registry"))
    import hub_fixture  # pylint: disable=import-outside-toplevel
    return hub_fixture


@pytest.fixture
def model(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    made = Model(lab, kube, tmp_path, minilm_hub)
    yield made
    made.cleanup()
