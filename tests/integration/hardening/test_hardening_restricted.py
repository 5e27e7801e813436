# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 13 on the lab: Pod Security "restricted" enforced for real, and the values policy.

- model_storage into a namespace labelled pod-security.kubernetes.io/enforce: restricted: the pull
  Job's pods are admitted (no FailedCreate) and complete; the weights are written as the non-root uid;
  a pod without a securityContext is refused in that namespace (the enforcement is real).
- cache.yml's clear Job runs in the same namespace; it refuses while a serving Deployment mounts the
  claim and, told to, scales it to 0 first.
- A values file asking for a privileged container fails the serving stage before anything changes.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import time

from ansible_collections.ai_platform.serving.tests.support.lab import wait_for
from ansible_collections.ai_platform.serving.tests.support.site import ORAS_IMAGE, PULL_UID

RESTRICTED_CONTAINER = {"allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                        "capabilities": {"drop": ["ALL"]}}


def figure(name, seconds):
    print("FIGURE %s: %.1f s" % (name, seconds))


def test_pull_job_is_admitted_and_completes_in_an_enforced_restricted_namespace(model, kube):
    entry = model.publish()
    started = time.monotonic()
    run = model.apply()
    figure("restricted pull (model_storage, MiniLM)", time.monotonic() - started)
    assert run.rc == 0, str(run)
    labels = kube.get("namespace", model.namespace)["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted", labels
    # the wait ends on the pod's exit with the digest; the Job controller records the success a moment later
    kube.wait_job_complete(model.job, model.namespace, timeout=60)
    job = kube.get("job", model.job, model.namespace)
    assert job["spec"]["activeDeadlineSeconds"] > 0
    pod = job["spec"]["template"]["spec"]
    assert pod["securityContext"]["runAsUser"] == PULL_UID and pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    container = pod["containers"][0]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert container["securityContext"]["capabilities"]["drop"] == ["ALL"]
    assert set(container["resources"]["limits"]) >= {"cpu", "memory", "ephemeral-storage"}
    assert not [m for m in container["volumeMounts"] if m["mountPath"].startswith("/root")]
    refused = [e for e in model.events("Job", model.job) if e.get("reason") == "FailedCreate"]
    assert not refused, refused
    # the verified copy, written by the non-root uid
    with open(model.marker_path()) as handle:
        assert "digest=%s" % entry["digest"] in handle.read()
    assert os.stat(model.marker_path()).st_uid == PULL_UID
    hub = os.path.join(model.hostpath_dir, "hub")
    owners = set(os.stat(os.path.join(d, f)).st_uid for d, _dirs, files in os.walk(hub) for f in files)
    assert owners == {PULL_UID}, owners
    # the namespace really enforces restricted: a pod without a securityContext is refused at admission
    probe = kube.run("run", "root-probe", "-n", model.namespace, "--image", ORAS_IMAGE, "--restart=Never",
                     "--command", "--", "true", check=False)
    assert probe.returncode != 0 and "violates PodSecurity" in probe.stderr, probe.stderr
    # a re-run keeps the Job and changes nothing
    again = model.apply()
    assert again.rc == 0 and again.changed == 0, str(again)


def serving_standin(model):
    """A Deployment standing in for the serving pods: it mounts the claim read-only, restricted-compliant."""
    return {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "serving-standin", "namespace": model.namespace},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "serving-standin"}},
                 "template": {"metadata": {"labels": {"app": "serving-standin"}}, "spec": {
                     "securityContext": {"runAsNonRoot": True, "runAsUser": PULL_UID,
                                         "seccompProfile": {"type": "RuntimeDefault"}},
                     "imagePullSecrets": [{"name": "harbor-creds"}],
                     "containers": [{"name": "reader", "image": ORAS_IMAGE, "command": ["/bin/sh", "-c", "sleep 3600"],
                                     "securityContext": RESTRICTED_CONTAINER,
                                     "resources": {"limits": {"cpu": "100m", "memory": "32Mi"}},
                                     "volumeMounts": [{"name": "model", "mountPath": "/model-cache",
                                                       "readOnly": True}]}],
                     "volumes": [{"name": "model", "persistentVolumeClaim": {"claimName": model.pvc,
                                                                             "readOnly": True}}]}}},
    }


def test_clear_job_is_restricted_and_refuses_while_serving_pods_mount_the_claim(model, kube):
    model.publish()
    run = model.apply()
    assert run.rc == 0, str(run)
    kube.apply(serving_standin(model))
    wait_for("the serving stand-in to run", lambda: [
        p for p in kube.pods(model.namespace, "app=serving-standin") if p["status"].get("phase") == "Running"],
        timeout=120)
    clear = dict(cache_clear=model.slug, cache_confirm=model.slug)
    refused = model.play("cache.yml", **clear)
    assert refused.rc != 0, str(refused)
    assert "%s/serving-standin-" % model.namespace in refused.output and "mount" in refused.output, str(refused)
    assert os.path.exists(model.marker_path()), "a refused clear must leave the verified copy"

    started = time.monotonic()
    cleared = model.play("cache.yml", cache_clear_scale_down=True, **clear)
    figure("clear with scale-down", time.monotonic() - started)
    assert cleared.rc == 0, str(cleared)
    assert kube.get("deployment", "serving-standin", model.namespace)["spec"]["replicas"] == 0
    assert not os.path.exists(model.marker_path())
    assert not os.path.exists(os.path.join(model.hostpath_dir, "hub"))
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"].get("annotations") or {}
    assert "ai-platform.serving/digest" not in annotations
    # the next run pulls again, still admitted under restricted
    again = model.apply()
    assert again.rc == 0, str(again)
    assert os.path.exists(model.marker_path())


def test_privileged_values_fail_before_any_change(model, kube):
    def privileged(values):
        values["decode"]["containers"] = [{"name": "server", "modelCommand": "imageDefault",
                                           "securityContext": {"privileged": True}}]
    model.edit_values("ms", privileged)
    started = time.monotonic()
    run = model.play("site.yml", "--tags", "serving")
    figure("values policy failure", time.monotonic() - started)
    assert run.rc != 0, str(run)
    expected = "%s: %s: decode.containers[0].securityContext.privileged = True is refused by the values policy" % (
        model.name, model.values_file("ms"))
    assert expected in run.output, str(run)
    assert kube.get("namespace", model.namespace) is None, "nothing may be created"
    # an explicit, documented exception lets it through the policy (the run then stops at the claim gate)
    allow = [{"model": model.slug, "rule": "privileged", "key": "decode.containers[0].securityContext.privileged",
              "reason": "lab test"}]
    allowed = model.play("site.yml", "--tags", "serving", serving_stack_values_policy_allow=allow)
    assert "refused by the values policy" not in allowed.output, str(allowed)
    assert kube.get("namespace", model.namespace) is None
