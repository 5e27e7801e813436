# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Removal with storage reaches only what the collection owns (issue 27), on the lab.

(a) A model in a namespace that existed before the collection (made by the test, with an object of its own),
removed with storage: the namespace (never labelled as the collection's) and the test's object stay, the
model's claim, Job, NetworkPolicy, PV and directory go, and the run says what it kept and why.
(b) One of two models sharing a namespace (nameSpace), removed with storage: the other model still serves (its
pods Ready, its claim and PV intact, its embeddings answered) and the namespace stays.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import time

import pytest

from ansible_collections.ai_platform.serving.tests.support.playbook import flat
from ansible_collections.ai_platform.serving.tests.support.site import CacheSite, Site, Stack, pv_of, pvc_of
from ansible_collections.ai_platform.serving.tests.support.lab import real_chart_variables

MANAGED_BY = "app.kubernetes.io/managed-by"


class FoundNamespaceSite(CacheSite):
    """CacheSite's model a in a namespace the test makes first, with a ConfigMap of its own."""

    def __init__(self, *args, **kwargs):
        super(FoundNamespaceSite, self).__init__(*args, letters=("a",), **kwargs)
        self.found = "rmv-found-%s" % self.suffix

    def model(self, letter):
        return dict(super(FoundNamespaceSite, self).model(letter), nameSpace=self.found)

    def cleanup(self):
        self.kube.run("delete", "namespace", self.found, "--wait=true", "--timeout=180s", check=False)
        super(FoundNamespaceSite, self).cleanup()


class SharedStack(Site):
    """Two embedders on the lab's embedder values (the infinity stand-in) in one namespace (nameSpace)."""

    def __init__(self, lab, kube, tmp, hub, hostpath_root="/var/tmp/aips-serving-stack-test"):
        super(SharedStack, self).__init__(lab, kube, tmp, hub, "rmv", hostpath_root)
        self.letters = ("a", "b")
        self.shared = "rmv-shared-%s" % self.suffix
        for letter in self.letters:
            self.make_folders("embedder", self.name(letter), self.slug(letter), lab_values=True)
            self.scratch.append(os.path.join(hostpath_root, self.slug(letter)))
        self.fixed = dict(aips_site_registries=False, aips_nodes_become=False, serving_stack_helm_timeout="4m0s")

    def slug(self, letter):
        return "rmv-%s-%s" % (self.suffix, letter)

    def name(self, letter):
        return "Rmv-%s-%s" % (self.suffix, letter)

    def all_slugs(self):
        return [self.slug(letter) for letter in self.letters]

    def models(self):
        return {"generative": [], "embedder": [
            {"name": self.name(letter), "enabled": True, "nodeSelector": {}, "nameSpace": self.shared,
             "modelSource": self.artifact_source()} for letter in self.letters]}

    query = Stack.query  # GET a URL from a pod in `default` (the query_secret fixture's pull secret)

    def variables(self, **overrides):
        extra = real_chart_variables(self.lab)
        extra.update(overrides)
        return super(SharedStack, self).variables(**extra)

    def cleanup(self):
        self.kube.run("delete", "namespace", self.shared, "--wait=true", "--timeout=180s", check=False)
        super(SharedStack, self).cleanup()


@pytest.fixture
def found_site(lab, kube, tmp_path, minilm_hub):
    made = FoundNamespaceSite(lab, kube, tmp_path, minilm_hub)
    made.publish()
    yield made
    made.cleanup()


@pytest.fixture
def shared_stack(lab, kube, tmp_path, minilm_hub):
    made = SharedStack(lab, kube, tmp_path, minilm_hub)
    made.publish()
    yield made
    made.cleanup()


def test_removal_with_storage_keeps_a_namespace_that_existed_before(found_site, kube):
    site = found_site
    kube.run("create", "namespace", site.found)
    kube.run("create", "configmap", "team-settings", "-n", site.found, "--from-literal=owner=team")
    started = time.monotonic()
    deployed = site.deploy()
    assert deployed.rc == 0, str(deployed)
    namespace = kube.get("namespace", site.found)
    # the collection labelled it with Pod Security, never as its own
    assert MANAGED_BY not in (namespace["metadata"].get("labels") or {}), namespace["metadata"]
    slug = site.slug("a")
    assert kube.get("pvc", pvc_of(slug), site.found) is not None
    policy = kube.get("networkpolicy", slug + "-model-jobs", site.found)
    # it selects the pull Job's pods (the pull worked with it present), allows no ingress, egress to DNS and Harbor
    job = kube.get("job", slug + "-model-pull", site.found)
    template_labels = job["spec"]["template"]["metadata"]["labels"]
    assert all(template_labels.get(k) == v for k, v in policy["spec"]["podSelector"]["matchLabels"].items())
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"] and not policy["spec"].get("ingress")
    assert [rule.get("ports") for rule in policy["spec"]["egress"]][0] == [
        {"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]

    removed = site.remove("a")
    assert removed.rc == 0, str(removed)
    print("deploy and removal with storage: %.0fs" % (time.monotonic() - started))
    out = flat(removed.output)
    assert ("%s: kept the namespace: the collection did not create it (no app.kubernetes.io/managed-by="
            "ai_platform.serving label); objects the collection did not make are in it; remains: ConfigMap "
            "team-settings" % site.found) in out, str(removed)
    assert kube.get("namespace", site.found) is not None
    assert kube.get("configmap", "team-settings", site.found)["data"] == {"owner": "team"}
    # the model's own objects went one by one
    assert kube.get("pvc", pvc_of(slug), site.found) is None
    assert kube.get("job", slug + "-model-pull", site.found) is None
    assert kube.get("networkpolicy", slug + "-model-jobs", site.found) is None
    assert kube.get("secret", "harbor-creds", site.found) is None
    assert kube.get("pv", pv_of(slug)) is None
    assert not os.path.exists(site.dir("a"))


def serving_contexts(kube, namespace, slug):
    """(pod securityContext, first container's securityContext, its probes) of each serving pod of ``slug``."""
    found = []
    for pod in kube.pods(namespace, "llm-d.ai/model=%s" % slug):
        container = pod["spec"]["containers"][0]
        found.append((pod["spec"].get("securityContext") or {}, container.get("securityContext") or {},
                      sorted(k for k in ("startupProbe", "readinessProbe", "livenessProbe") if k in container)))
    return found


def ready_pods(kube, namespace, slug):
    pods = kube.pods(namespace, "llm-d.ai/model=%s" % slug)
    return [p for p in pods if any(c.get("type") == "Ready" and c.get("status") == "True"
                                   for c in (p.get("status") or {}).get("conditions") or [])]


def test_removing_one_of_two_models_sharing_a_namespace_leaves_the_other_serving(shared_stack, kube, query_secret):
    stack = shared_stack
    started = time.monotonic()
    deployed = stack.play("site.yml")
    assert deployed.rc == 0, str(deployed)
    print("deploy of two models in one namespace: %.0fs" % (time.monotonic() - started))
    a, b = stack.slug("a"), stack.slug("b")
    assert ready_pods(kube, stack.shared, b), kube.run("get", "pods", "-n", stack.shared, check=False).stdout
    claim_b = kube.get("pvc", pvc_of(b), stack.shared)
    assert claim_b is not None
    # the infinity stand-in serves under the secure defaults: non-root 65532, nothing escalated, its own probe kept
    for pod_context, context, probes in serving_contexts(kube, stack.shared, b):
        assert pod_context["runAsUser"] == 65532 and pod_context["runAsNonRoot"] is True
        assert pod_context["seccompProfile"] == {"type": "RuntimeDefault"}
        assert context["allowPrivilegeEscalation"] is False and context["capabilities"] == {"drop": ["ALL"]}
        assert probes == ["readinessProbe"]

    started = time.monotonic()
    removed = stack.play("site.yml", "--tags", "serving", serving_stack_state="absent",
                         serving_stack_remove_storage=True, serving_stack_models=[a])
    assert removed.rc == 0, str(removed)
    print("removal of one model with storage: %.0fs" % (time.monotonic() - started))
    assert ("%s: kept the namespace: model %s (%s) of the plan still lives in it"
            % (stack.shared, stack.name("b"), b)) in flat(removed.output), str(removed)
    # a is gone: releases, claim, Job, NetworkPolicy, release records, PV, directory
    assert kube.get("namespace", stack.shared) is not None
    for release in ("infra-", "gaie-", "ms-"):
        assert kube.get("secret", "sh.helm.release.v1.%s%s.v1" % (release, a), stack.shared) is None
    assert kube.get("pvc", pvc_of(a), stack.shared) is None
    assert kube.get("job", a + "-model-pull", stack.shared) is None
    assert kube.get("networkpolicy", a + "-model-jobs", stack.shared) is None
    assert kube.get("configmap", a + "-release-digests", stack.shared) is None
    assert kube.get("pv", pv_of(a)) is None
    # b still serves: its pods Ready, its claim (the same one), PV, pull secret, release record and answers
    assert ready_pods(kube, stack.shared, b)
    assert kube.get("pvc", pvc_of(b), stack.shared)["metadata"]["uid"] == claim_b["metadata"]["uid"]
    assert kube.get("pv", pv_of(b)) is not None
    assert kube.get("secret", "harbor-creds", stack.shared) is not None
    assert kube.get("configmap", b + "-release-digests", stack.shared) is not None
    url = "http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models" % (b, stack.shared)
    answer = stack.query(url)
    assert answer.returncode == 0 and "all-MiniLM-L6-v2" in answer.stdout, answer.stderr


def test_the_lab_stand_in_servers_run_under_the_secure_defaults(stack_factory):
    stack = stack_factory()
    stack.publish()
    started = time.monotonic()
    run = stack.site()
    assert run.rc == 0, str(run)
    print("deploy of the lab's two models: %.0fs" % (time.monotonic() - started))
    for category in ("generative", "embedder"):
        namespace, slug = stack.namespace(category), stack.slug(category)
        assert ready_pods(stack.kube, namespace, slug), category
        contexts = serving_contexts(stack.kube, namespace, slug)
        assert contexts, category
        for pod_context, context, probes in contexts:
            assert pod_context["runAsUser"] == 65532 and context["capabilities"] == {"drop": ["ALL"]}, category
            # the sim gets the collection's probes on /health; the infinity stand-in keeps its own readiness probe
            assert probes == (["livenessProbe", "readinessProbe", "startupProbe"] if category == "generative"
                              else ["readinessProbe"]), category
