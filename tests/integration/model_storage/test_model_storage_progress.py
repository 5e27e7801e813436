# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Two pulls at once through a throttled relay: the play shows the progress of both while they run (issue 26).

The relay (tests/support/relay.py) runs on the lab host in front of the lab registry, which is never touched;
both models' references name the relay's port, their digests come from a lock file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import os
import re
import shutil
import subprocess
import threading
import time

import yaml

from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.lab import docker_config_secret, pod, publish, wait_for
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook, playbook_argv, playbook_env
from ansible_collections.ai_platform.serving.tests.support.relay import Relay
from ansible_collections.ai_platform.serving.tests.support.site import APPLY, ORAS_IMAGE

# "<got> of <total> (<pct>%), <rate>/s, ETA <eta>, <finished> of <files> files"
PROGRESS = re.compile(r"\((?P<pct>[0-9]+)%\), .*/s, ETA [^,]+, (?P<done>[0-9]+) of (?P<files>[0-9]+) files$")

# model_storage's one task (model_storage_pull): its steps' order is tested in test_model_storage_pull_action.py
PULL_TASK = "TASK [ai_platform.serving.model_storage : Check the user-owned claims and pull the Harbor artifacts]"


def run_streamed(argv, env, timeout):
    """Run the play; return (rc, [(seconds since the epoch the line arrived, line)])."""
    play = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    lines = []

    def read():
        for line in play.stdout:
            lines.append((time.time(), line.rstrip("\n")))
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        play.wait(timeout=timeout)
    finally:
        if play.poll() is None:
            play.kill()
        reader.join(10)
    return play.returncode, lines


def oras_image_on_the_node(kube, lab, suffix):
    """Have the node pull the ORAS image once with the lab registry's credentials.

    Through the relay, harbor-creds holds credentials for the relay's host:port only, and the kubelet matches
    a pull secret by registry host, so the pull Jobs find the ORAS image only if the node already has it (as it
    does after any other model_storage test; not on a lab just brought up)."""
    name = "mst-oras-%s" % suffix
    kube.apply(docker_config_secret(name, lab, namespace="default"))
    try:
        kube.apply(pod(name, ORAS_IMAGE, ["oras", "version"], pull_secret=name), namespace="default")
        wait_for("the ORAS image on the node", lambda: ((kube.get("pod", name, "default") or {}).get("status") or {})
                 .get("phase") in ("Succeeded", "Failed"), timeout=180)
    finally:
        kube.run("delete", "pod", name, "-n", "default", "--wait=false", check=False)
        kube.run("delete", "secret", name, "-n", "default", check=False)


def pulled_at(kube, model):
    """When the model's pod logged the end of its oras pull ("model-pull: pulled ..."), seconds since the epoch."""
    log = kube.run("logs", "--timestamps", "-n", model.namespace, "job/" + model.job).stdout
    for line in log.splitlines():
        stamp, _space, text = line.partition(" ")
        if text.startswith("model-pull: pulled "):
            day, _t, clock = stamp.rstrip("Z").partition("T")
            whole, _dot, fraction = clock.partition(".")
            moment = datetime.datetime.strptime("%sT%s.%s" % (day, whole, (fraction + "000000")[:6]),
                                                "%Y-%m-%dT%H:%M:%S.%f")
            return moment.replace(tzinfo=datetime.timezone.utc).timestamp(), log
    raise AssertionError("no 'pulled' line in the log of %s:\n%s" % (model.job, log))


def test_two_concurrent_pulls_show_the_progress_of_both_while_the_wait_runs(model_factory, minilm_hub, kube,
                                                                            tmp_path):
    first, second = model_factory(), model_factory()
    entries = [publish(m.lab, m.tmp, minilm_hub, m.repository) for m in (first, second)]
    oras_image_on_the_node(kube, first.lab, first.suffix)
    # 3 MiB/s per connection: the MiniLM weights (one 87 MiB layer) take about 30 s, many 2 s progress intervals.
    # The pods may start far apart on a loaded lab, so the weights of each wait after 4 MiB until both got there
    # (the other files of a pod are under 1 MiB together): the two pulls then run side by side.
    relay = Relay(first.lab["AIPS_LAB_HOST_IP"], (first.lab["AIPS_LAB_HOST_IP"], 443), rate=3 * 1024 * 1024,
                  hold=(2, 4 * 1024 * 1024)).start()
    host = "%s:%d" % (HARBOR, relay.port)
    locked = {}
    for model, entry in zip((first, second), entries):
        model.source["harborRef"] = "%s/ai-models/%s:v1" % (host, model.repository)
        locked[model.source["harborRef"]] = entry
    lock = os.path.join(str(tmp_path), "relay.lock.yml")
    with open(lock, "w") as handle:
        yaml.safe_dump({"lock_version": 1, "models": locked}, handle)
    # both models in one plan: second's folders beside first's
    shutil.copytree(os.path.join(second.models_dir, "embedder", second.name),
                    os.path.join(first.models_dir, "embedder", second.name))
    variables = first.variables(aips_harbor_hostname=host, model_storage_lock_file=lock,
                                model_storage_progress_seconds=2)
    variables["aips_models"]["embedder"].append({"name": second.name, "enabled": True, "modelSource": second.source})
    started = time.monotonic()
    try:
        rc, lines = run_streamed(playbook_argv(APPLY, variables, tmp_path), playbook_env(first.lab), 600)
    finally:
        relay.stop()
    seconds = time.monotonic() - started
    output = "\n".join(line for _at, line in lines)
    assert rc == 0, output[-8000:]
    assert relay.held_together, "the two pulls' weights never waited at the relay together:\n" + output[-8000:]

    # one task (and one wait in it) for both models
    assert output.count(PULL_TASK) == 1, output[-8000:]
    ends = dict((m.slug, pulled_at(kube, m)) for m in (first, second))
    first_end = min(end for end, _log in ends.values())
    shown = {}
    for model in (first, second):
        shown[model.slug] = [(at, line) for at, line in lines if line.startswith("  %s: " % model.slug)]
        under_way = [(at, line) for at, line in shown[model.slug]
                     if PROGRESS.search(line) and int(PROGRESS.search(line).group("pct")) < 100]
        # progress of BOTH pulls while both run: before the first of them has finished, whichever it is
        before = [line for at, line in under_way if at < first_end]
        assert len(before) >= 3, (model.slug, first_end, shown[model.slug])
        # the end of each pull is shown too
        assert any(": pulled " in line or ": verified " in line for _at, line in shown[model.slug]), shown[model.slug]

    # "N of M files" counts finished files: while bytes are missing, a file is missing (the play's and the pods' lines)
    logged = [line for _end, log in ends.values() for line in log.splitlines() if "model-pull: progress: " in line]
    counted = [PROGRESS.search(line) for line in logged + [line for m in shown.values() for _at, line in m]
               if ", ETA " in line]
    assert all(counted) and len(counted) >= 12, logged
    for match in counted:
        done, files = int(match.group("done")), int(match.group("files"))
        assert done <= files
        if int(match.group("pct")) < 100:
            assert done < files, match.string

    with open(first.results) as handle:
        results = yaml.safe_load(handle)["results"]
    for model, entry in zip((first, second), entries):
        result = results[model.slug]
        assert result["digest"] == entry["digest"] and result["size"] == entry["size"], result
        assert result["reused"] is False and int(result["pull_seconds"]) >= 10, result
        assert result["pvc"] == model.pvc and result["namespace"] == model.namespace
        assert result["reference"] == model.source["harborRef"] and result["job"]["job"] == "created", result
        assert model.marker()["digest"] == entry["digest"]
    print("FIGURE progress of two concurrent pulls: %s lines in the play before the first pull ended at +%.0f s; "
          "pulls %s s; play %.0f s" % (
              "/".join(str(len([1 for at, _line in shown[m.slug] if at < first_end])) for m in (first, second)),
              first_end - (lines[0][0] if lines else first_end),
              "/".join(str(results[m.slug]["pull_seconds"]) for m in (first, second)), seconds))


def one_plan(first, second, lock_entries, tmp_path, **overrides):
    """The variables of one run with both models (second's folders beside first's), digests from a lock file."""
    lock = os.path.join(str(tmp_path), "two.lock.yml")
    with open(lock, "w") as handle:
        yaml.safe_dump({"lock_version": 1, "models": lock_entries}, handle)
    shutil.copytree(os.path.join(second.models_dir, "embedder", second.name),
                    os.path.join(first.models_dir, "embedder", second.name))
    variables = first.variables(model_storage_lock_file=lock, **overrides)
    variables["aips_models"]["embedder"].append({"name": second.name, "enabled": True, "modelSource": second.source})
    return variables


def test_a_failed_pull_among_two_fails_the_wait_naming_it_and_the_other_is_reported(
        model_factory, minilm_hub, kube, tmp_path):
    good, bad = model_factory(), model_factory()
    entry = publish(good.lab, good.tmp, minilm_hub, good.repository)
    # the lock pins bad to a repository the registry does not have: its Job fails at once (manifest unknown)
    bad.source["harborRef"] = "%s/ai-models/%s-missing:v1" % (HARBOR, bad.repository)
    variables = one_plan(good, bad, {good.source["harborRef"]: entry, bad.source["harborRef"]: entry}, tmp_path,
                         model_storage_progress_seconds=2)
    run = ansible_playbook(good.lab, APPLY, variables, tmp_path)
    assert run.rc != 0, str(run)
    assert "1 of 2 pulls failed:" in run.output, run.output[-6000:]
    assert "%s: pull Job %s/%s failed: " % (bad.slug, bad.namespace, bad.job) in run.output, run.output[-6000:]
    assert "Recovery:" in run.output and "recover_model=%s" % bad.slug in run.output
    # the good pull was waited for to its end, and its last line shown under the one wait task. The wait ends on
    # the pod's exit with the digest; the Job controller records the success a moment later.
    kube.wait_job_complete(good.job, good.namespace, timeout=60)
    assert good.marker()["digest"] == entry["digest"]
    assert re.search(r"^  %s: (pulled|verified) " % re.escape(good.slug), run.output, re.M), run.output[-6000:]


def test_check_mode_with_two_models_waits_for_nothing_and_creates_nothing(model_factory, minilm_hub, kube, tmp_path):
    first, second = model_factory(), model_factory()
    entries = [publish(m.lab, m.tmp, minilm_hub, m.repository) for m in (first, second)]
    variables = one_plan(first, second, dict((m.source["harborRef"], e) for m, e in zip((first, second), entries)),
                         tmp_path)
    run = ansible_playbook(first.lab, APPLY, variables, tmp_path, check=True)
    assert run.rc == 0, str(run)
    assert PULL_TASK in run.output
    assert set(run.results["results"]) == {first.slug, second.slug}, run.results
    for model, entry in zip((first, second), entries):
        assert run.results["results"][model.slug]["digest"] == entry["digest"]
        assert kube.get("namespace", model.namespace) is None and kube.get("pv", model.pv) is None
