"""The node is real: registered under the hostname, Ready, at the pinned Kubernetes version."""

import json
import socket
import subprocess


def test_node_is_ready_under_hostname(kube):
    node = kube.get("node", socket.gethostname().lower())
    ready = {c["type"]: c["status"] for c in node["status"]["conditions"]}["Ready"]
    assert ready == "True", node["status"]["conditions"]
    labels = node["metadata"]["labels"]
    assert labels["kubernetes.io/hostname"] == socket.gethostname().lower()


def test_apiserver_reports_pinned_version(kube, versions):
    version = json.loads(kube.run("get", "--raw", "/version").stdout)
    assert version["gitVersion"] == versions["KUBERNETES_VERSION"]
    assert version["minor"] == versions["KUBERNETES_VERSION"].split(".")[1]


def test_node_authorizer_and_rbac_are_on(kube):
    """The kubelet's identity may read its own node but not list secrets cluster-wide."""
    node = socket.gethostname().lower()
    as_node = ["--as", f"system:node:{node}", "--as-group", "system:nodes"]
    assert kube.run("auth", "can-i", "get", f"node/{node}", *as_node).stdout.strip() == "yes"
    denied = kube.run("auth", "can-i", "list", "secrets", "-A", *as_node, check=False)
    assert denied.stdout.strip().startswith("no"), denied.stdout


def test_gateway_and_inferencepool_crds_are_served(kube):
    for crd in ("gateways.gateway.networking.k8s.io", "httproutes.gateway.networking.k8s.io",
                "gatewayclasses.gateway.networking.k8s.io",
                "inferencepools.inference.networking.k8s.io"):
        established = kube.get("crd", crd)["status"]["conditions"]
        assert any(c["type"] == "Established" and c["status"] == "True" for c in established), crd


def test_pod_traffic_cannot_leave_the_machine():
    """Forwarded traffic from the pod range is rejected unless it stays in that range."""
    forward = subprocess.run(["iptables", "-w", "-S", "FORWARD"], check=True, capture_output=True,
                             text=True).stdout
    assert "-A FORWARD -s 10.244.0.0/24 -j AIPS-LAB-EGRESS" in forward
    chain = subprocess.run(["iptables", "-w", "-S", "AIPS-LAB-EGRESS"], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    assert chain[1:] == ["-A AIPS-LAB-EGRESS -d 10.244.0.0/24 -j RETURN",
                         "-A AIPS-LAB-EGRESS -j REJECT --reject-with icmp-port-unreachable"]
