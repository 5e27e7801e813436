# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the model cache collection on the lab: deploy storage, remove, gc, as a user runs them.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips). The lab's node is
this machine, so the hostPath directories are real directories here. Each Site has its own slugs,
namespaces, artifact and allowed root (gc sees only its own root), so tests never share anything.
Storage is deployed with `site.yml --tags plan,nodes,storage`; removal is `site.yml --tags serving
-e serving_stack_state=absent` (no chart is installed or read).
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
sys.path.insert(0, os.path.dirname(HERE))

from labplay import HARBOR, ROOT, ansible_playbook, publish  # noqa: E402
# fixtures, shared with the other lab test folders
from labplay import kube, lab, minilm_hub  # noqa: E402,F401  pylint: disable=unused-import

BASE = "/var/tmp/aips-cache-gc-test"


class Site(object):
    """Models named <letter>-<suffix> on one artifact, an inventory with the lab node, an allowed root."""

    def __init__(self, lab, kube, tmp, hub, letters=("a", "b")):
        self.lab, self.kube, self.tmp, self.hub = lab, kube, tmp, hub
        self.suffix = uuid.uuid4().hex[:6]
        self.root = os.path.join(BASE, self.suffix, "models")
        self.outside = os.path.join(BASE, self.suffix, "outside")
        os.makedirs(self.root)
        os.makedirs(self.outside)
        self.repository = "cgc-minilm-%s" % self.suffix
        self.models_dir = os.path.join(str(tmp), "models")
        self.hostpath_dirs = {}
        self.letters = list(letters)
        for letter in self.letters:
            self.add_folders(letter)
        self.inventory = os.path.join(str(tmp), "hosts.yml")
        local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
        node = dict(local, hostpath_dirs_node_name=lab["AIPS_LAB_NODE"])
        with open(self.inventory, "w") as handle:
            yaml.safe_dump({"all": {"children": {"serving": {"children": {
                "controller": {"hosts": {"localhost": local}},
                "k8s_nodes": {"hosts": {"lab-node": node}}}}}}}, handle)
        self.published = None

    def add_folders(self, letter):
        for prefix in ("gaie", "ms"):
            folder = os.path.join(self.models_dir, "embedder", self.name(letter), "%s-%s" % (prefix, self.slug(letter)))
            os.makedirs(folder)
            with open(os.path.join(folder, "values.yaml"), "w") as handle:
                handle.write("---\ndecode:\n  replicas: 1\n" if prefix == "ms" else "--- {}\n")

    def slug(self, letter):
        return "cgc-%s-%s" % (self.suffix, letter)

    def name(self, letter):
        return "Cgc-%s-%s" % (self.suffix, letter)

    def namespace(self, letter):
        return "llm-d-%s" % self.slug(letter)

    def pv(self, letter):
        return "%s-model-pv" % self.slug(letter)

    def pvc(self, letter):
        return "%s-model" % self.slug(letter)

    def dir(self, letter):
        return self.hostpath_dirs.get(letter) or os.path.join(self.root, self.slug(letter))

    def publish(self):
        self.published = publish(self.lab, self.tmp, self.hub, self.repository)
        return self.published

    def model(self, letter):
        source = {"harborRef": "%s/ai-models/%s:v1" % (HARBOR, self.repository),
                  "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                  "storageSize": "1Gi", "hostpathNode": self.lab["AIPS_LAB_NODE"]}
        if letter in self.hostpath_dirs:
            source["hostpathDir"] = self.hostpath_dirs[letter]
        return {"name": self.name(letter), "enabled": True, "nodeSelector": {}, "modelSource": source}

    def variables(self, **overrides):
        variables = dict(
            aips_cloud_provider="on-prem",
            aips_kubeconfig=self.lab["KUBECONFIG"],
            aips_harbor_hostname=HARBOR,
            aips_harbor_user=self.lab["AIPS_LAB_HARBOR_USER"],
            aips_harbor_token=self.lab["AIPS_LAB_HARBOR_TOKEN"],
            aips_hostpath_root=self.root,
            aips_models_dir=self.models_dir,
            aips_models={"generative": [], "embedder": [self.model(letter) for letter in self.letters]},
            aips_site_registries=False,
            aips_nodes_become=False,
            model_storage_registry_ca_file=self.lab["AIPS_LAB_CA"],
            model_storage_wait_timeout=300,
        )
        variables.update(overrides)
        return variables

    def play(self, name, *args, check=False, **overrides):
        return ansible_playbook(self.lab, os.path.join(ROOT, "playbooks", name), self.variables(**overrides),
                                self.tmp, check=check, inventory=self.inventory, extra_args=list(args))

    def deploy(self, *letters, check=False):
        """Claims, PVs and pulls of the models (all when none named): site.yml --tags plan,nodes,storage."""
        extra = {"model_storage_models": [self.slug(x) for x in letters]} if letters else {}
        return self.play("site.yml", "--tags", "plan,nodes,storage", check=check, **extra)

    def remove(self, *letters, storage=True, check=False):
        return self.play("site.yml", "--tags", "serving", check=check, serving_stack_state="absent",
                         serving_stack_remove_storage=storage,
                         serving_stack_models=[self.slug(x) for x in letters])

    def gc(self, confirm=False, check=False):
        return self.play("cache.yml", check=check, cache_action="gc", cache_gc_confirm=confirm)

    def marker(self, letter):
        from ansible_collections.ai_platform.serving.plugins.module_utils.pull_job import parse_marker
        path = os.path.join(self.dir(letter), ".pulled")
        if not os.path.exists(path):
            return None
        with open(path) as handle:
            return parse_marker(handle.read())

    def dir_bytes(self, letter):
        total = 0
        for top, _dirs, names in os.walk(self.dir(letter)):
            for name in names:
                path = os.path.join(top, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    total += os.lstat(path).st_size
        return total

    def forget(self, letter):
        """What a user does by hand: delete the model's namespace (claim) and its PV; the directory stays."""
        self.kube.run("delete", "namespace", self.namespace(letter), "--wait=true", "--timeout=180s")
        self.kube.run("delete", "pv", self.pv(letter), "--wait=true", "--timeout=60s", check=False)

    def cleanup(self):
        for letter in self.letters:
            self.kube.run("delete", "namespace", self.namespace(letter), "--wait=true", "--timeout=120s", check=False)
            self.kube.run("delete", "pv", self.pv(letter), "--wait=true", "--timeout=60s", check=False)
        shutil.rmtree(os.path.join(BASE, self.suffix), ignore_errors=True)
        for path in self.hostpath_dirs.values():
            shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def site(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    made = Site(lab, kube, tmp_path, minilm_hub)
    made.publish()
    yield made
    made.cleanup()


def flat(text):
    """Output with runs of whitespace folded, so wrapped messages match."""
    return " ".join(text.split())
