"""Paths, pinned versions and the lab's fixed network layout."""

import os
import socket
from dataclasses import dataclass
from pathlib import Path

LAB_SRC = Path(__file__).resolve().parent.parent
REPO_ROOT = LAB_SRC.parent

# Pods, the bridge and every lab listener live on this machine only.
BRIDGE = "aipslab0"
POD_CIDR = "10.244.0.0/24"
HOST_IP = "10.244.0.1"  # bridge address: apiserver, kubelet, registry and DNS listen here
SERVICE_CIDR = "10.96.0.0/16"
KUBERNETES_SVC_IP = "10.96.0.1"
CLUSTER_DOMAIN = "cluster.local"
HARBOR_HOST = "harbor.harbor.svc.cluster.local"
HARBOR_USER = "robot$k8s-puller"
HARBOR_PROJECTS = ("ai-models", "images-infra", "images-shaide")
# Cloud registries whose image names the lab serves from its own registry.
MIRRORED_REGISTRIES = ("docker.io", "ghcr.io", "registry.k8s.io")
HOSTS_MARKER = "# ai-platform-serving-lab"


def load_versions(path=LAB_SRC / "versions.env"):
    """Parse KEY=VALUE lines (shell-compatible, no expansion)."""
    versions = {}
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition("=")
        versions[key] = value.strip('"')
    return versions


@dataclass(frozen=True)
class Paths:
    """Every file the lab writes lives under root (state) or cache (build outputs)."""

    root: Path
    cache: Path

    @property
    def bin(self):
        return self.root / "bin"

    @property
    def helm_plugins(self):
        """HELM_PLUGINS of the lab's helm: the diff plugin (build.install_helm_plugin)."""
        return self.root / "helm-plugins"

    @property
    def logs(self):
        return self.root / "logs"

    @property
    def run(self):
        return self.root / "run"

    @property
    def pki(self):
        return self.root / "pki"

    @property
    def etc(self):
        return self.root / "etc"

    @property
    def data(self):
        return self.root / "data"

    @property
    def kubeconfig(self):
        return self.etc / "admin.kubeconfig"

    @property
    def ca_cert(self):
        return self.pki / "ca.crt"

    @property
    def harbor_token(self):
        return self.etc / "harbor-token"

    @property
    def docker_config(self):
        return self.etc / "docker-config.json"


def lab_paths():
    root = Path(os.environ.get("AIPS_LAB_DIR", REPO_ROOT / ".lab")).resolve()
    cache_default = Path.home() / ".cache" / "ai-platform-serving-lab"
    cache = Path(os.environ.get("AIPS_LAB_CACHE", cache_default)).resolve()
    return Paths(root=root, cache=cache)


def node_name():
    """The kubelet registers under the hostname: hostPath PVs bind to it."""
    return socket.gethostname().lower()
