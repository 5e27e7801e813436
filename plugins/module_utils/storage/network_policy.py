# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The NetworkPolicy of a model's Job pods (pull, clear, prune): egress to DNS and the registry only, no ingress.

The Job pods are the only pods the collection runs itself, and they carry the model's cache labels
(manifests.labels: managed-by, slug, component model-cache), which no serving pod carries; the policy selects
exactly those. Their needs: the cluster DNS (the registry's name) and the registry the harborRef names
(``oras pull``); the clear and prune Jobs need no network at all. Everything else is denied, ingress included
(``policyTypes: [Ingress, Egress]`` with no ingress rule).

Peers of the registry, unless the site gives them (``registry_peers``):

- a harborRef host that is an IP address: an ``ipBlock`` of that address, on the reference's port (443 without one);
- an in-cluster Service name ``<service>.<namespace>.svc[.<cluster domain>]`` (Harbor in the cluster, the
  default ``harbor.harbor.svc.cluster.local``): every pod of that namespace, on any port - a NetworkPolicy sees the
  pod's own port after the Service's translation, which is Harbor's (8080, 8443), not the reference's;
- any other name: refused, naming the setting (a policy cannot match a DNS name; give the registry's address
  block, or turn the policy off).

DNS peers default to the cluster DNS pods (``k8s-app: kube-dns`` in ``kube-system``, as CoreDNS and RKE2's
rke2-coredns label them) on port 53 UDP and TCP; a cluster whose pods resolve elsewhere (NodeLocal DNSCache,
a DNS server on the node) gives its own. Enforcement needs a CNI that implements NetworkPolicy (Calico, Cilium,
Canal - RKE2's default); on one that does not, the object is inert.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ipaddress

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests

DNS_PORTS = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
DEFAULT_DNS_PEERS = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                      "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}]
REGISTRY_PORT = 443
SETTING = "model_storage_job_network_policy"


class NetworkPolicyError(ValueError):
    """The registry's peers cannot be derived; the message names the model, the host and the settings."""


def _host_port(registry):
    """``(host, port)`` of a reference's registry part (``host``, ``host:port``, ``[v6]:port``)."""
    if registry.startswith("["):
        host, _sep, rest = registry[1:].partition("]")
        return host, int(rest[1:]) if rest.startswith(":") else None
    host, sep, port = registry.rpartition(":")
    if sep and port.isdigit() and ":" not in host:
        return host, int(port)
    return registry, None


def registry_peers(record, cluster_domain="cluster.local"):
    """The egress rules (``{to, ports}``) that reach the registry of ``record``'s harborRef."""
    registry = ((record.get("storage") or {}).get("oci") or {}).get("registry") or ""
    host, port = _host_port(registry)
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        address = None
    if address is not None:
        prefix = 32 if address.version == 4 else 128
        return [{"to": [{"ipBlock": {"cidr": "%s/%d" % (address, prefix)}}],
                 "ports": [{"protocol": "TCP", "port": port or REGISTRY_PORT}]}]
    labels = host.split(".")
    suffixes = ("svc", "svc." + cluster_domain)
    if len(labels) >= 3 and ".".join(labels[2:]) in suffixes:
        return [{"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": labels[1]}}}]}]
    raise NetworkPolicyError(
        "%s: the pull Job's NetworkPolicy cannot reach the registry %s: a NetworkPolicy matches addresses and pods, "
        "not DNS names. Fix: set %s_registry to the registry's peers (for example [{ipBlock: {cidr: "
        "10.0.0.5/32}}] with its port), or turn the policy off with %s: false"
        % (record.get("slug"), host or "(none)", SETTING, SETTING))


def job_network_policy(record, dns_peers=None, registry=None, cluster_domain="cluster.local"):
    """The NetworkPolicy ``<slug>-model-jobs`` of ``record``'s Job pods.

    ``dns_peers``: the peers DNS queries go to (None: the cluster DNS pods); ``registry``: the egress rules to
    the registry (``[{to: [peers], ports: [...]}]``; None or empty: derived from the harborRef, see the module
    doc). Raises NetworkPolicyError when they cannot be derived.
    """
    dns = {"to": list(dns_peers if dns_peers else DEFAULT_DNS_PEERS), "ports": list(DNS_PORTS)}
    egress = [dns] + list(registry if registry else registry_peers(record, cluster_domain))
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": naming.slug_name("job_network_policy", record["slug"]),
                     "namespace": record["namespace"], "labels": naming.model_labels(record["slug"])},
        "spec": {
            "podSelector": {"matchLabels": manifests.labels(record)},
            # no ingress key: Ingress in policyTypes with no rule denies all ingress. An empty list would be
            # dropped by the API server, so every apply would differ from what it reads back (kubernetes.core then
            # re-applies the object on each run and warns that the API may not be idempotent)
            "policyTypes": ["Ingress", "Egress"],
            "egress": egress,
        },
    }


def job_network_policies(records, enabled=True, dns_peers=None, registry=None, cluster_domain="cluster.local"):
    """The NetworkPolicy of every record's Job pods (job_network_policy), or none when ``enabled`` is false
    (model_storage_job_network_policy: false): then nothing is derived, so a registry no policy could reach is no
    error either."""
    if not enabled:
        return []
    return [job_network_policy(record, dns_peers, registry, cluster_domain) for record in records]


def selects(policy, pod_labels):
    """True when ``policy``'s podSelector (matchLabels) selects a pod of ``pod_labels``."""
    wanted = ((policy.get("spec") or {}).get("podSelector") or {}).get("matchLabels") or {}
    return all((pod_labels or {}).get(key) == value for key, value in wanted.items())
