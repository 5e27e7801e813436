# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The registry going away during a pull, and for good.

The lab's registry itself is not touched: the pull goes through a relay this test
starts on the lab host (the registry name resolves there for pods) and stops.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import subprocess
import time

import yaml

from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.lab import publish, wait_for
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook, playbook_argv, playbook_env
from ansible_collections.ai_platform.serving.tests.support.relay import Relay
from ansible_collections.ai_platform.serving.tests.support.site import APPLY


def write_lock(path, reference, entry):
    """A model_sync-style lock file with one entry, for a reference the registry is reached under."""
    with open(path, "w") as handle:
        yaml.safe_dump({"lock_version": 1, "models": {reference: entry}}, handle)
    return path


def relay_model(model, entry, relay):
    """Point the model at the relay (registry host:port) and take digest and size from a lock file."""
    host = "%s:%d" % (HARBOR, relay.port)
    reference = "%s/ai-models/%s:v1" % (host, model.repository)
    model.source["harborRef"] = reference
    lock = write_lock(os.path.join(str(model.tmp), "relay.lock.yml"), reference, entry)
    return dict(aips_harbor_hostname=host, model_storage_lock_file=lock)


def upstream(lab):
    return (lab["AIPS_LAB_HOST_IP"], 443)


def test_registry_back_after_an_outage_mid_pull_the_job_retries_and_completes(model_factory, minilm_hub, kube):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    relay = Relay(model.lab["AIPS_LAB_HOST_IP"], upstream(model.lab), rate=8 * 1024 * 1024).start()
    overrides = relay_model(model, entry, relay)
    argv = playbook_argv(APPLY, model.variables(**overrides), model.tmp)
    play = subprocess.Popen(argv, env=playbook_env(model.lab), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)
    try:
        wait_for("the pull to be under way", lambda: relay.to_client > 20 * 1024 * 1024, timeout=180)
        relay.stop()
        wait_for("a failed pull pod", lambda: any((p.get("status") or {}).get("phase") == "Failed"
                                                  for p in model.job_pods()), timeout=120)
        relay.start()   # same port: the registry is back
        output, _unused = play.communicate(timeout=600)
    finally:
        if play.poll() is None:
            play.kill()
        relay.stop()
    assert play.returncode == 0, output[-6000:]
    pods = model.job_pods()
    phases = sorted((p.get("status") or {}).get("phase") for p in pods)
    assert phases.count("Failed") >= 1 and phases.count("Succeeded") == 1, phases
    assert model.marker()["digest"] == entry["digest"]
    failed = [p for p in pods if p["status"]["phase"] == "Failed"][0]
    message = failed["status"]["containerStatuses"][0]["state"]["terminated"].get("message", "")
    assert "will retry" in message, message


def test_registry_gone_for_good_fails_with_the_reason_and_recovery(model_factory, minilm_hub, kube, tmp_path):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    relay = Relay(model.lab["AIPS_LAB_HOST_IP"], upstream(model.lab)).start()
    overrides = relay_model(model, entry, relay)
    relay.stop()      # nothing listens on that port any more
    started = time.monotonic()
    run = ansible_playbook(model.lab, APPLY, model.variables(**overrides), tmp_path)
    elapsed = time.monotonic() - started
    assert run.rc != 0, str(run)
    assert "pull Job %s/%s failed: BackoffLimitExceeded" % (model.namespace, model.job) in run.output, str(run)
    assert "will retry" in run.output and "connection refused" in run.output
    assert "Recovery:" in run.output and "kubectl logs -n %s job/%s" % (model.namespace, model.job) in run.output
    assert len(model.job_pods()) == 4          # the first try and backoffLimit 3 retries
    assert model.marker() is None
    assert elapsed < 400


def test_a_slow_pull_shows_progress_in_the_job_log_and_under_the_wait_task(model_factory, minilm_hub, kube):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    # the relay delivers 4 MiB/s, so the MiniLM artifact (about 90 MB) takes over 20 s to pull
    relay = Relay(model.lab["AIPS_LAB_HOST_IP"], upstream(model.lab), rate=4 * 1024 * 1024).start()
    try:
        run = model.apply(model_storage_progress_seconds=2, **relay_model(model, entry, relay))
    finally:
        relay.stop()
    assert run.rc == 0, str(run)
    shown = [line for line in run.output.splitlines()
             if line.startswith("  %s: " % model.slug) and "/s, ETA " in line and " files" in line]
    assert len(shown) >= 3, run.output[-6000:]
    logged = [line for line in kube.logs(model.namespace, "job/%s" % model.job).splitlines()
              if line.startswith("model-pull: progress: ")]
    assert len(logged) >= 3, logged
    counted = re.compile(r"^model-pull: progress: [0-9.]+ (B|KiB|MiB) of [0-9.]+ MiB \([0-9]+%\), [0-9.]+ (B|KiB|MiB)/s")
    assert all(counted.match(line) for line in logged), logged
    assert len(set(logged)) >= 3, logged     # the byte counts move
    result = run.results["results"][model.slug]
    assert result["size"] == entry["size"] and result["reused"] is False
    assert int(result["pull_seconds"]) >= 5, result
    print("FIGURE progress: %d lines in the play, %d in the Job log, pull %s s" % (
        len(shown), len(logged), result["pull_seconds"]))
