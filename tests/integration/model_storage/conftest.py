# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for model_storage on the lab: a real cluster and the registry standing in for Harbor.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips).
The MiniLM artifact is published with the provisioner's model_sync role, each test
under its own repository, so tests never share a tag (or a namespace, or a PV).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import sys
import time
import uuid

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "registry"))

import hub_fixture  # noqa: E402

sys.path.insert(0, os.path.dirname(HERE))
# re-exported: the tests import these from conftest
from labplay import (  # noqa: E402,F401  pylint: disable=unused-import
    HARBOR, ansible_playbook, kube, lab, minilm_hub, publish, wait_for)

HOSTPATH_ROOT = "/var/tmp/aips-model-storage-test"
PULL_UID = 65532


class Model(object):
    """One test model: its folders, its inventory variables, and cleanup of what the role created."""

    def __init__(self, lab, kube, tmp_path, provider="on-prem", storage_size="1Gi", source=None):
        self.lab = lab
        self.kube = kube
        self.tmp = tmp_path
        self.suffix = uuid.uuid4().hex[:6]
        self.slug = "mst-%s" % self.suffix
        self.repository = "mst-minilm-%s" % self.suffix
        self.name = "MiniLM-%s" % self.suffix
        self.namespace = "llm-d-%s" % self.slug
        self.provider = provider
        self.models_dir = tmp_path / "models"
        for prefix in ("gaie", "ms"):
            folder = self.models_dir / "embedder" / self.name / ("%s-%s" % (prefix, self.slug))
            folder.mkdir(parents=True)
            (folder / "values.yaml").write_text("---\ndecode:\n  replicas: 1\n" if prefix == "ms" else "--- {}\n")
        self.hostpath_dir = os.path.join(HOSTPATH_ROOT, self.slug)
        if provider == "on-prem":
            # as hostpath_dirs makes it: owned by the pull Job's non-root uid (a hostPath ignores fsGroup)
            os.makedirs(self.hostpath_dir, exist_ok=True)
            os.chown(self.hostpath_dir, PULL_UID, PULL_UID)
        self.source = source or {
            "harborRef": "%s/ai-models/%s:v1" % (HARBOR, self.repository),
            "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
            "storageSize": storage_size,
        }
        if provider == "on-prem" and isinstance(self.source, dict):
            self.source.setdefault("hostpathNode", lab["AIPS_LAB_NODE"])
        self.results = str(tmp_path / ("results-%s.json" % self.suffix))

    @property
    def pvc(self):
        return "%s-model" % self.slug

    @property
    def pv(self):
        return "%s-model-pv" % self.slug

    @property
    def job(self):
        return "%s-model-pull" % self.slug

    def variables(self, **overrides):
        variables = dict(
            aips_repo_root=ROOT,
            aips_test_results=self.results,
            aips_cloud_provider=self.provider,
            aips_kubeconfig=self.lab["KUBECONFIG"],
            aips_harbor_hostname=HARBOR,
            aips_harbor_user=self.lab["AIPS_LAB_HARBOR_USER"],
            aips_harbor_token=self.lab["AIPS_LAB_HARBOR_TOKEN"],
            aips_hostpath_root=HOSTPATH_ROOT,
            aips_oras_image="%s/images-infra/oras-project/oras:v1.3.1" % HARBOR,
            aips_models_dir=str(self.models_dir),
            aips_models={"generative": [], "embedder": [
                {"name": self.name, "enabled": True, "modelSource": self.source}]},
            model_storage_registry_ca_file=self.lab["AIPS_LAB_CA"],
            model_storage_wait_timeout=300,
        )
        variables.update(overrides)
        return variables

    def apply(self, verbosity=0, check=False, **overrides):
        if os.path.exists(self.results):
            os.unlink(self.results)
        return ansible_playbook(self.lab, os.path.join(HERE, "apply.yml"), self.variables(**overrides), self.tmp,
                                verbosity=verbosity, check=check)

    def job_pods(self):
        return self.kube.pods(self.namespace, "job-name=%s" % self.job)

    def claim_dir(self):
        """Where the claim's data lives on this (single) node."""
        pvc = self.kube.get("pvc", self.pvc, self.namespace)
        pv = self.kube.get("pv", pvc["spec"]["volumeName"])
        spec = pv["spec"]
        return (spec.get("hostPath") or spec.get("local"))["path"]

    def marker(self):
        from ansible_collections.ai_platform.serving.plugins.module_utils.pull_job import parse_marker
        path = os.path.join(self.claim_dir(), ".pulled")
        if not os.path.exists(path):
            return None
        with open(path) as handle:
            return parse_marker(handle.read())

    def cleanup(self):
        self.kube.run("delete", "namespace", self.namespace, "--wait=true", "--timeout=120s", check=False)
        self.kube.run("delete", "pv", self.pv, "--wait=true", "--timeout=60s", check=False)
        shutil.rmtree(self.hostpath_dir, ignore_errors=True)


@pytest.fixture
def model_factory(lab, kube, tmp_path):
    made = []

    def make(**kwargs):
        path = tmp_path / ("m%d" % len(made))
        path.mkdir()
        model = Model(lab, kube, path, **kwargs)
        made.append(model)
        return model
    yield make
    for model in made:
        model.cleanup()


def variant_hub(tmp_path, name, extra):
    """A MiniLM hub cache with one more file (``extra`` bytes): a new revision with a new digest."""
    model_dir = tmp_path / ("model-" + name)
    shutil.copytree(hub_fixture.minilm_dir(), str(model_dir))
    (model_dir / "extra.bin").write_bytes(extra)
    hub = str(tmp_path / ("hub-" + name))
    hub_fixture.build_hub_cache(str(model_dir), hub, hub_fixture.MINILM_REPO, hub_fixture.MINILM_COMMIT)
    return hub


def registry_blob(lab, digest):
    """The file the lab registry serves ``digest`` from."""
    root = os.path.join(lab["AIPS_LAB_DIR"], "data", "registry", "docker", "registry", "v2", "blobs", "sha256")
    hexdigest = digest.split(":", 1)[1]
    return os.path.join(root, hexdigest[:2], hexdigest, "data")


class Relay(object):
    """A TCP relay this test starts in front of the lab registry, to take "the registry" away and back.

    Listens on the lab host's pod-network address (where the registry's name resolves for pods);
    ``rate`` limits bytes per second towards clients so a pull lasts long enough to be cut.
    """

    def __init__(self, listen_host, upstream=("127.0.0.1", 443), rate=None):
        import socket
        import threading
        self.socket_mod = socket
        self.threading = threading
        self.listen_host = listen_host
        self.upstream = upstream
        self.rate = rate
        self.port = None
        self.sent = 0
        self.server = None
        self.conns = []
        self.lock = threading.Lock()

    def start(self):
        socket = self.socket_mod
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((self.listen_host, self.port or 0))
        self.server.listen(64)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.running = True
        self.acceptor = self.threading.Thread(target=self._accept, args=(self.server,), daemon=True)
        self.acceptor.start()
        return self

    def stop(self):
        """Refuse new connections and reset the open ones (the registry went away)."""
        self.running = False
        if self.server:
            self.acceptor.join(5)
            self.server.close()
            self.server = None
        with self.lock:
            for conn in self.conns:
                try:
                    conn.shutdown(self.socket_mod.SHUT_RDWR)
                    conn.close()
                except OSError:
                    pass
            self.conns = []

    def _accept(self, server):
        while self.running:
            try:
                client, _addr = server.accept()
            except self.socket_mod.timeout:
                continue
            except OSError:
                return
            client.settimeout(None)
            try:
                upstream = self.socket_mod.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns.extend([client, upstream])
            self.threading.Thread(target=self._pipe, args=(client, upstream, False), daemon=True).start()
            self.threading.Thread(target=self._pipe, args=(upstream, client, True), daemon=True).start()

    def _pipe(self, src, dst, towards_client):
        started = time.monotonic()
        moved = 0
        try:
            while True:
                data = src.recv(1 << 16)
                if not data:
                    break
                dst.sendall(data)
                if towards_client:
                    moved += len(data)
                    with self.lock:
                        self.sent += len(data)
                    if self.rate:
                        ahead = moved / float(self.rate) - (time.monotonic() - started)
                        if ahead > 0:
                            time.sleep(ahead)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.close()
                except OSError:
                    pass


def write_lock(path, reference, entry):
    """A model_sync-style lock file with one entry, for a reference the registry is reached under."""
    with open(path, "w") as handle:
        yaml.safe_dump({"lock_version": 1, "models": {reference: entry}}, handle)
    return path
