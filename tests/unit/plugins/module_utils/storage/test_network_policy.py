# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The NetworkPolicy of a model's Job pods: selects the pull, clear and prune pods (never a serving pod), no
ingress, egress to DNS and the registry only; the registry's peers from the harborRef or the site."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, network_policy as np

with open(os.path.join(os.path.dirname(__file__), "fixtures", "records.yml")) as handle:
    RECORDS = yaml.safe_load(handle)
DIGEST = "sha256:" + "a" * 64


def record(registry="harbor.harbor.svc.cluster.local"):
    made = copy.deepcopy(RECORDS["on_prem"])
    made["storage"]["oci"]["registry"] = registry
    return made


def test_the_policy_selects_every_job_pod_of_the_model_and_no_serving_pod():
    rec = record()
    policy = np.job_network_policy(rec)
    assert policy["metadata"]["name"] == "all-minilm-l6-v2-rke2-model-jobs"
    assert policy["metadata"]["namespace"] == rec["namespace"]
    for job in (manifests.job_manifest(rec, DIGEST), manifests.clear_job_manifest(rec),
                manifests.prune_job_manifest(rec, [DIGEST])):
        assert np.selects(policy, job["spec"]["template"]["metadata"]["labels"]), job["metadata"]["name"]
    # the decode pods carry the chart's labels, never the model cache's
    assert not np.selects(policy, dict(values.model_pod_labels({}), **{"ai-platform.serving/slug": rec["slug"]}))
    # another model's Job pods in the same namespace are not this policy's
    other = dict(job["spec"]["template"]["metadata"]["labels"], **{"ai-platform.serving/slug": "other"})
    assert not np.selects(policy, other)


def test_no_ingress_and_egress_only_to_dns_and_an_in_cluster_harbor():
    spec = np.job_network_policy(record())["spec"]
    # Ingress with no rule denies all; no empty list, which the API server drops (an apply would never settle)
    assert spec["policyTypes"] == ["Ingress", "Egress"] and "ingress" not in spec
    dns, registry = spec["egress"]
    assert dns == {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
                           "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}}}],
                   "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]}
    assert registry == {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "harbor"}}}]}


@pytest.mark.parametrize("registry, rule", [
    ("10.244.0.1", {"to": [{"ipBlock": {"cidr": "10.244.0.1/32"}}], "ports": [{"protocol": "TCP", "port": 443}]}),
    ("10.0.0.5:5000", {"to": [{"ipBlock": {"cidr": "10.0.0.5/32"}}], "ports": [{"protocol": "TCP", "port": 5000}]}),
    ("[fd00::5]:8443", {"to": [{"ipBlock": {"cidr": "fd00::5/128"}}], "ports": [{"protocol": "TCP", "port": 8443}]}),
    ("core.registry.svc", {"to": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "registry"}}}]}),
])
def test_registry_peers_from_the_harbor_ref_host(registry, rule):
    assert np.registry_peers(record(registry)) == [rule]


def test_a_registry_host_name_outside_the_cluster_is_refused_naming_the_settings():
    with pytest.raises(np.NetworkPolicyError) as caught:
        np.job_network_policy(record("harbor.example.com"))
    message = str(caught.value)
    assert message.startswith("all-minilm-l6-v2-rke2: the pull Job's NetworkPolicy cannot reach the registry "
                              "harbor.example.com")
    assert "model_storage_job_network_policy_registry" in message and "model_storage_job_network_policy: false" in message
    # the look-alike of an in-cluster name is not one
    with pytest.raises(np.NetworkPolicyError):
        np.registry_peers(record("harbor.harbor.svc.cluster.local.evil.example"))


def test_the_site_gives_dns_and_registry_peers():
    lab_dns = [{"ipBlock": {"cidr": "10.244.0.1/32"}}]
    lab_registry = [{"to": [{"ipBlock": {"cidr": "10.244.0.1/32"}}], "ports": [{"protocol": "TCP", "port": 443}]}]
    spec = np.job_network_policy(record("harbor.example.com"), lab_dns, lab_registry)["spec"]
    assert spec["egress"] == [{"to": lab_dns, "ports": np.DNS_PORTS}] + lab_registry


def test_one_policy_per_record_and_an_unreachable_registry_names_the_model():
    made = np.job_network_policies([record(), dict(record(), slug="b", namespace="llm-b")])
    assert [p["metadata"]["name"] for p in made] == ["all-minilm-l6-v2-rke2-model-jobs", "b-model-jobs"]
    assert np.job_network_policies([record()]) == [np.job_network_policy(record())]
    with pytest.raises(np.NetworkPolicyError, match="^all-minilm"):
        np.job_network_policies([record("harbor.example.com")])


def test_the_off_switch_gives_no_policy_and_derives_nothing():
    """model_storage_job_network_policy: false - no policy, even for a registry no policy could reach."""
    assert np.job_network_policies([record(), record("harbor.example.com")], enabled=False) == []


def test_the_role_gives_its_switch_and_peers_to_model_storage_pull():
    """roles/model_storage/tasks/main.yml: the policies are derived and read by model_storage_state inside the one
    model_storage_pull task, from the role's own variables; the action applies only those the state found missing or
    different (module_utils/storage/pull_task.py:policies_due, tested in test_pull_task.py)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), *[".."] * 5, "roles", "model_storage", "tasks",
                        "main.yml")
    with open(path) as handle:
        tasks = yaml.safe_load(handle)
    pull = [t["ai_platform.serving.model_storage_pull"] for t in tasks if "ai_platform.serving.model_storage_pull" in t]
    assert len(pull) == 1
    assert pull[0]["network_policy"] == "{{ model_storage_job_network_policy | bool }}"
    assert pull[0]["network_policy_dns"] == "{{ model_storage_job_network_policy_dns }}"
    assert pull[0]["network_policy_registry"] == "{{ model_storage_job_network_policy_registry }}"
    assert pull[0]["cluster_domain"] == "{{ model_storage_cluster_domain }}"
    assert not [t for t in tasks if "kubernetes.core.k8s" in t]  # no second apply in the role
