# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 13 on the lab: two runs on one model never race on its pull Job (a Lease per namespace)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import threading
import time

LEASE = "ai-platform-serving"


def lease(namespace, holder, renewed, duration):
    stamp = renewed.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": LEASE, "namespace": namespace},
            "spec": {"holderIdentity": holder, "leaseDurationSeconds": duration, "acquireTime": stamp,
                     "renewTime": stamp}}


def test_two_concurrent_runs_serialise_on_the_namespace_lease(model, kube):
    model.publish()
    results = {}

    def run(name, delay):
        time.sleep(delay)
        started = time.monotonic()
        results[name] = (model.apply(), time.monotonic() - started)

    threads = [threading.Thread(target=run, args=("a", 0)), threading.Thread(target=run, args=("b", 1))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(900)
    (first, first_s), (second, second_s) = results["a"], results["b"]
    print("FIGURE concurrent runs: %.1f s and %.1f s" % (first_s, second_s))
    assert first.rc == 0, str(first)
    assert second.rc == 0, str(second)
    # one Job, created once, one pod: neither run replaced the other's Job
    # (the wait ends on the pod's exit with the digest; the Job controller records the success a moment later)
    kube.wait_job_complete(model.job, model.namespace, timeout=60)
    assert len(kube.pods(model.namespace, "job-name=%s" % model.job)) == 1
    # both runs gave the Lease back
    assert kube.get("lease", LEASE, model.namespace) is None


def test_a_held_lease_fails_naming_its_holder_and_an_expired_one_is_taken_over(model, kube):
    model.publish()
    kube.run("create", "namespace", model.namespace)
    now = datetime.datetime.now(datetime.timezone.utc)
    kube.apply(lease(model.namespace, "alice@other-controller/42", now, 3600))
    started = time.monotonic()
    refused = model.apply(model_storage_lock_wait=5)
    print("FIGURE held lease: failed after %.1f s" % (time.monotonic() - started))
    assert refused.rc != 0, str(refused)
    assert "namespace %s is locked by alice@other-controller/42 since" % model.namespace in refused.output
    assert "kubectl delete lease %s -n %s" % (LEASE, model.namespace) in refused.output
    assert kube.get("job", model.job, model.namespace) is None, "nothing may be created under another's Lease"
    assert kube.get("lease", LEASE, model.namespace)["spec"]["holderIdentity"] == "alice@other-controller/42"

    # the holder died: its Lease expired an hour ago, so the next run takes it over
    kube.run("delete", "lease", LEASE, "-n", model.namespace)
    kube.apply(lease(model.namespace, "alice@other-controller/42", now - datetime.timedelta(hours=2), 3600))
    taken = model.apply()
    assert taken.rc == 0, str(taken)
    assert kube.get("lease", LEASE, model.namespace) is None
