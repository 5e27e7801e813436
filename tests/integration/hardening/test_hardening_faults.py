# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 13 on the lab: faults the pull wait reports in seconds, not at its timeout.

Each fault is real on the lab's cluster: a hostPath node that does not exist (the pod is
unschedulable), a ResourceQuota that refuses the pod at admission (FailedCreate on the Job),
an ORAS image that is not in the registry (image pull back-off). The wait must fail within
the grace period plus a little, naming the model, the reason and the fix; the time to
failure is printed as a figure, not asserted against a number.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import oras_image
from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.lab import CARRIED

TIMEOUT = 600  # the wait's own timeout: a fault must fail long before it


def run_fault(model, **overrides):
    model.publish()
    started = time.monotonic()
    run = model.apply(model_storage_wait_timeout=TIMEOUT, **overrides)
    return run, time.monotonic() - started


def assert_clear_failure(model, run, seconds, kind, *texts):
    print("FIGURE fault %s: failed after %.1f s (wait timeout %d s)" % (kind, seconds, TIMEOUT))
    assert run.rc != 0, str(run)
    assert "timed out" not in run.output, str(run)
    assert "%s: pull Job %s/%s cannot run its pod (%s" % (model.slug, model.namespace, model.job, kind) in run.output, \
        str(run)
    assert "Fix: " in run.output
    for text in texts:
        assert text in run.output, str(run)
    assert seconds < TIMEOUT / 2, "the fault was reported only near the timeout"


def test_hostpath_node_gone_is_reported_as_unschedulable(model):
    def gone(variables):
        variables["aips_models"]["embedder"][0]["modelSource"]["hostpathNode"] = "hdn-node-gone"
        return variables
    model.publish()
    variables = gone(model.variables(model_storage_wait_timeout=TIMEOUT))
    started = time.monotonic()
    run = model.apply(**variables)
    assert_clear_failure(model, run, time.monotonic() - started, "unschedulable", "hostPath node")


def test_pod_refused_at_admission_is_reported(model, kube):
    kube.run("create", "namespace", model.namespace)
    kube.apply({"apiVersion": "v1", "kind": "ResourceQuota",
                "metadata": {"name": "no-pods", "namespace": model.namespace}, "spec": {"hard": {"pods": "0"}}})
    run, seconds = run_fault(model)
    assert_clear_failure(model, run, seconds, "admission", "FailedCreate", "exceeded quota")


def test_missing_oras_image_is_reported(model):
    run, seconds = run_fault(model, aips_oras_image=oras_image(CARRIED["aips_images"], HARBOR, True, "v0.0.0-missing"))
    assert_clear_failure(model, run, seconds, "image", "oras:v0.0.0-missing")
