# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 13 on the lab: a Helm run interrupted while it waits leaves a pending-upgrade release, which Helm
refuses to upgrade (--force included); the next site.yml run rolls it back first and deploys."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import time

from ansible_collections.ai_platform.serving.tests.support.lab import (
    CHART_FILES, UPSTREAM_CHARTS, real_chart_variables, wait_for)

BASELINE = {"enforce": "baseline", "warn": "restricted", "audit": "restricted"}


def helm(lab, *args):
    env = dict(os.environ, **lab)
    return subprocess.run(["helm"] + list(args), env=env, capture_output=True, text=True, check=False)


def release_status(lab, namespace, name):
    out = helm(lab, "list", "--all", "-n", namespace, "-o", "json")
    for release in json.loads(out.stdout or "[]"):
        if release["name"] == name:
            return release["status"], int(release["revision"])
    return None, 0


def user_registry_config():
    """(mtime, bytes) of helm's registry config of this user (where `helm registry login` writes by default)."""
    path = os.path.join(os.path.expanduser("~"), ".config", "helm", "registry", "config.json")
    if not os.path.exists(path):
        return None
    with open(path, "rb") as handle:
        return os.stat(path).st_mtime_ns, handle.read()


def test_an_interrupted_release_is_rolled_back_before_the_upgrade(model, kube, lab):
    model.use_lab_values()
    model.publish()
    variables = dict(real_chart_variables(lab), aips_pod_security=BASELINE, serving_stack_helm_timeout="4m0s")
    before = user_registry_config()
    first = model.play("site.yml", "--tags", "plan,upload,storage,serving", **variables)
    assert first.rc == 0, str(first)
    # the chart registry login went into the run's own Helm registry config, removed at its end
    assert "Log in to Harbor's chart registry" in first.output
    assert user_registry_config() == before, "serving_stack wrote the login into the user's helm registry config"
    ms = "ms-%s" % model.slug
    assert release_status(lab, model.namespace, ms)[0] == "deployed"

    # an upgrade whose rollout never finishes (its new pods fit no node), killed while helm waits
    chart = os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % CHART_FILES["modelservice"])
    env = dict(os.environ, **lab)
    hung = subprocess.Popen(["helm", "upgrade", ms, chart, "-n", model.namespace, "--reuse-values",
                             "--set-string", "decode.nodeSelector.aips-test/no-such-node=true", "--wait", "--timeout", "10m"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        def pending():
            if hung.poll() is not None:
                raise AssertionError("helm upgrade ended (rc %s) before it was pending: %s" % (
                    hung.returncode, hung.stderr.read().decode()))
            return release_status(lab, model.namespace, ms)[0] == "pending-upgrade"
        wait_for("the upgrade to be pending", pending, timeout=120)
        time.sleep(2)
    finally:
        hung.kill()
        hung.wait()
    status, revision = release_status(lab, model.namespace, ms)
    assert status == "pending-upgrade", status
    # what the collection used to do: Helm refuses it
    forced = helm(lab, "upgrade", ms, chart, "-n", model.namespace, "--reuse-values", "--force")
    assert forced.returncode != 0 and "another operation" in forced.stderr, forced.stderr

    started = time.monotonic()
    again = model.play("site.yml", "--tags", "serving", **variables)
    print("FIGURE fault interrupted-helm: repaired and deployed in %.1f s" % (time.monotonic() - started))
    assert again.rc == 0, str(again)
    assert "%s/%s: pending-upgrade revision %d -> rollback" % (model.namespace, ms, revision) in again.output, \
        str(again)
    status, _revision = release_status(lab, model.namespace, ms)
    assert status == "deployed"
    values = json.loads(helm(lab, "get", "values", ms, "-n", model.namespace, "-o", "json").stdout)
    assert "aips-test/no-such-node" not in json.dumps(values)
    # and the run after it changes nothing (no repair, the private registry config leaves no trace)
    third = model.play("site.yml", "--tags", "serving", **variables)
    assert third.rc == 0 and third.changed == 0, str(third)
    assert user_registry_config() == before
