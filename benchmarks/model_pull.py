#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark the model pull on the lab, and print ratios.

1. Push a multi-file artifact (default 1 GiB in 8 files, random bytes) to the lab registry with oras,
   laid out as a hub cache (titles relative to hub/).
2. Baseline: curl the same blobs from the registry to a directory on the node's disk (as many at a
   time as the Job's oras concurrency), then sync.
3. The model_storage role creates the PV, claim and pull Job (without waiting); this process then
   waits with the same code the module runs (pull_wait.PullWaiter on kubernetes.core's client).
   Pull times come from the Job's own log timestamps: start of `oras pull` to its end, and to the
   marker written and synced (what curl's figure, which ends with a sync, compares with). The
   completion-to-return latency is the waiter's return time minus the timestamp of the Job's last log
   line. Beside the wait, two watches note when each signal first reached the API: the pull container's
   terminated state (what the wait reacts to), the pod's phase Succeeded (what it reacted to before)
   and the Job's Complete condition (the record; the signal before that), after the Job's last log line.
4. The same pull once more with ``model_storage_pull_http2: true``: oras multiplexing every blob over
   one HTTP/2 connection, as the Job did before it kept to HTTP/1.1.
5. The pull as it was when issue 17 was filed: HTTP/2 and the second read of every file after the pull
   (``model_storage_verify: true``, the re-hash), its completion seen when the Job's Complete condition came.

Steps 2 to 5 run back to back in each of ``--rounds`` rounds (the claim emptied and the Job deleted
before each pull); the ratios are the medians of the rounds' own ratios, since the two cores are shared
with the registry and the cluster and a single figure moves by a third between runs.

    source .venv/bin/activate && eval "$(lab/lab env)"
    python benchmarks/model_pull.py [--size-mib 1024] [--files 8] [--concurrency 4] [--rounds 3] [--short]

Needs the lab up (fails otherwise). Prints one line per figure and the ratios
(issue 17's targets: pull/curl >= 0.9, completion-to-return <= 1 s). ``--short`` (64 MiB in 4 files, one round) only
proves the benchmark still runs (scripts/test.sh bench-short); its figures mean little.
"""

from __future__ import absolute_import, division, print_function

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, ".collections"))
sys.path.insert(0, os.path.join(ROOT, "lab"))  # labkit: the lab's environment

HARBOR = "harbor.harbor.svc.cluster.local"
COMMIT = "b" * 40


def run(argv, **kwargs):
    return subprocess.run(argv, check=True, capture_output=True, text=True, **kwargs)


def make_artifact(workdir, size_mib, files):
    hub = os.path.join(workdir, "hub")
    repo = "models--bench--pull-%s" % uuid.uuid4().hex[:6]
    snap = os.path.join(hub, repo, "snapshots", COMMIT)
    os.makedirs(snap)
    os.makedirs(os.path.join(hub, repo, "refs"))
    with open(os.path.join(hub, repo, "refs", "main"), "w") as handle:
        handle.write(COMMIT)
    titles = ["%s/refs/main" % repo]
    per_file = size_mib * 1024 * 1024 // files
    for index in range(files):
        name = "model-%05d-of-%05d.safetensors" % (index + 1, files)
        with open(os.path.join(snap, name), "wb") as handle:
            left = per_file
            while left:
                chunk = os.urandom(min(left, 16 << 20))
                handle.write(chunk)
                left -= len(chunk)
        titles.append("%s/snapshots/%s/%s" % (repo, COMMIT, name))
    return hub, repo, titles


def push(env, hub, titles, reference):
    out = run(["oras", "push", "--ca-file", env["AIPS_LAB_CA"], "--registry-config", env["AIPS_LAB_DOCKER_CONFIG"],
               "--format", "json", "--concurrency", "8", reference] + titles, cwd=hub, env=env).stdout
    return json.loads(out)["digest"]


def curl_blobs(env, repository, digest, dest, concurrency):
    manifest = json.loads(run(["oras", "manifest", "fetch", "--ca-file", env["AIPS_LAB_CA"], "--registry-config",
                               env["AIPS_LAB_DOCKER_CONFIG"], "%s/%s@%s" % (HARBOR, repository, digest)],
                              env=env).stdout)
    user, token = env["AIPS_LAB_HARBOR_USER"], env["AIPS_LAB_HARBOR_TOKEN"]
    netrc = os.path.join(dest, ".netrc")
    with open(netrc, "w") as handle:
        handle.write("machine %s login %s password %s\n" % (HARBOR, user, token))
    os.chmod(netrc, 0o600)
    layers = manifest["layers"]
    start = time.monotonic()
    running = []
    for index, layer in enumerate(layers):
        url = "https://%s/v2/%s/blobs/%s" % (HARBOR, repository, layer["digest"])
        running.append(subprocess.Popen(["curl", "-sSfL", "--netrc-file", netrc, "--cacert", env["AIPS_LAB_CA"],
                                         "-o", os.path.join(dest, "blob-%d" % index), url]))
        if len(running) >= concurrency:
            if running.pop(0).wait() != 0:
                raise SystemExit("curl failed")
    for proc in running:
        if proc.wait() != 0:
            raise SystemExit("curl failed")
    subprocess.run(["sync"], check=True)
    return time.monotonic() - start, sum(layer["size"] for layer in layers)


# The pull script's log lines (plugins/module_utils/storage/pull_script.py) whose timestamps this benchmark reads.
LOG_MARKS = (("start", "model-pull: pulling "), ("pulled", "model-pull: pulled "),
             ("verified", "model-pull: verified "), ("marker", "model-pull: marker written"))


def log_times(kube, namespace, job):
    lines = kube.run("logs", "--timestamps", "-n", namespace, "job/" + job).stdout.splitlines()
    marks = {}
    for line in lines:
        stamp, _sep, text = line.partition(" ")
        when = datetime.datetime.strptime(stamp[:26].rstrip("Z"), "%Y-%m-%dT%H:%M:%S.%f").replace(
            tzinfo=datetime.timezone.utc).timestamp()
        for mark, prefix in LOG_MARKS:
            if text.startswith(prefix):
                marks[mark] = when
        marks["last"] = when
    missing = ["'%s...'" % prefix for mark, prefix in LOG_MARKS if mark not in marks]
    if missing:
        raise SystemExit("the pull Job's log has no line %s (did the pull script's log change?):\n%s"
                         % (" or ".join(missing), "\n".join(lines[-30:])))
    return marks


class SignalClock(object):
    """Notes when the pull container's terminated state, the pod's phase Succeeded and the Job's Complete
    condition are first seen through the API (two watches in threads); only reads."""

    def __init__(self, kubeconfig, namespace, job):
        import threading
        from kubernetes import client, config, watch
        api = config.new_client_from_config(config_file=kubeconfig)
        self.core, self.batch, self.watch = client.CoreV1Api(api), client.BatchV1Api(api), watch
        self.namespace, self.job, self.seen = namespace, job, {}
        for target in (self._pods, self._job):
            threading.Thread(target=target, daemon=True).start()

    def _note(self, key):
        self.seen.setdefault(key, time.time())

    def _pods(self):
        for event in self.watch.Watch().stream(self.core.list_namespaced_pod, self.namespace,
                                               label_selector="job-name=%s" % self.job, timeout_seconds=3600):
            pod = event["object"]
            for status in (pod.status.container_statuses or []):
                terminated = status.state and status.state.terminated
                if terminated and terminated.exit_code == 0:
                    self._note("terminated")
            if pod.status.phase == "Succeeded":
                self._note("succeeded")

    def _job(self):
        for event in self.watch.Watch().stream(self.batch.list_namespaced_job, self.namespace,
                                               field_selector="metadata.name=%s" % self.job, timeout_seconds=3600):
            for condition in (event["object"].status.conditions or []):
                if condition.type == "Complete" and condition.status == "True":
                    self._note("complete")

    def after(self, moment, key, grace=30):
        """Seconds from ``moment`` to the first sight of ``key`` (waits up to ``grace`` s for it), or None."""
        deadline = time.time() + grace
        while key not in self.seen and time.time() < deadline:
            time.sleep(0.05)
        return self.seen[key] - moment if key in self.seen else None


def clear_claim(model, kube):
    """Delete the pull Job (and its pods) and empty the model's hostPath directory, so the next apply pulls anew."""
    kube.run("delete", "job", "-n", model.namespace, model.job, "--ignore-not-found", "--cascade=foreground",
             "--wait=true", "--timeout=120s")
    for entry in os.listdir(model.hostpath_dir):
        path = os.path.join(model.hostpath_dir, entry)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)


def job_pull(env, kube, model, digest, concurrency, http2, verify=False):
    """One pull by the model_storage Job into an empty claim; its figures from the Job's log and the waits."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import PullApi
    from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_wait import PullWaiter
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client
    import threading
    clear_claim(model, kube)
    client = get_api_client(kubeconfig=env["KUBECONFIG"])
    # The watches and the wait start before the play creates the Job, so a pull that ends before the play
    # returns is still timed: the wait (the module's code) begins as soon as the Job exists.
    signals = SignalClock(env["KUBECONFIG"], model.namespace, model.job)
    waited = {}

    def wait():
        api = PullApi(client, model.namespace, model.job)
        while api.get_job() is None:
            time.sleep(0.2)
        waited["began"] = time.time()
        waited["state"], _job, _pods, waited["seconds"] = PullWaiter(api, digest).wait(1800)
        waited["returned"] = time.time()
    waiter = threading.Thread(target=wait, daemon=True)
    waiter.start()
    created = model.apply(model_storage_wait=False, model_storage_pull_concurrency=concurrency,
                          model_storage_pull_http2=http2, model_storage_verify=verify)
    if created.rc != 0:
        raise SystemExit(repr(created))
    waiter.join(1800)
    if waited.get("state") != "complete":
        raise SystemExit("the pull ended %s" % waited.get("state"))
    marks = log_times(kube, model.namespace, model.job)
    figures = {"pull": marks["pulled"] - marks["start"], "marker": marks["marker"] - marks["start"],
               "wait": waited["seconds"], "latency": None}
    if marks["last"] >= waited["began"]:
        figures["latency"] = waited["returned"] - marks["last"]
    figures["seen"] = [signals.after(marks["last"], key) for key in ("terminated", "succeeded", "complete")]
    return figures


def median(values):
    values = sorted(value for value in values if value is not None)
    if not values:
        return None
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2.0


def seconds(value):
    return "n/a" if value is None else "%.2f s" % value


def artifact_args(doc, size_mib, files):
    """The options of a benchmark on one artifact: ``size_mib`` MiB in ``files`` files, 3 rounds; with ``--short``
    64 MiB in 4 files, one round."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--size-mib", type=int, default=None, help="%d, or 64 with --short" % size_mib)
    parser.add_argument("--files", type=int, default=None, help="%d, or 4 with --short" % files)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=None, help="3, or 1 with --short")
    parser.add_argument("--short", action="store_true", help="a small artifact: proves the benchmark runs")
    args = parser.parse_args()
    if args.size_mib is None:
        args.size_mib = 64 if args.short else size_mib
    if args.files is None:
        args.files = 4 if args.short else files
    if args.rounds is None:
        args.rounds = 1 if args.short else 3
    return args


def main():
    args = artifact_args(__doc__, 1024, 8)

    # the lab test helpers (environment, kubectl) and model_storage's test model (inventory, apply, cleanup)
    from ansible_collections.ai_platform.serving.tests.support import lab as labplay
    from ansible_collections.ai_platform.serving.tests.support.site import OneModel
    hostpath_root = "/var/tmp/aips-model-storage-test"
    env = dict(os.environ, **labplay.lab_env_or_exit())
    kube = labplay.Kube(env)
    workdir = tempfile.mkdtemp(prefix="aips-bench-pull-")
    model = None
    try:
        hub, repo_folder, titles = make_artifact(workdir, args.size_mib, args.files)
        repository = "ai-models/bench-pull-%s" % uuid.uuid4().hex[:6]
        digest = push(env, hub, titles, "%s/%s:v1" % (HARBOR, repository))
        shutil.rmtree(hub)
        tmp = os.path.join(workdir, "model")
        os.makedirs(tmp)
        from pathlib import Path
        model = OneModel(env, kube, Path(tmp), hostpath_root=hostpath_root,
                         storage_size="%dGi" % (args.size_mib // 1024 + 2))
        model.source["harborRef"] = "%s/%s:v1" % (HARBOR, repository)
        model.source["modelUri"] = "hub/bench/%s" % repo_folder.split("--", 2)[2]

        size = None
        rounds = []
        # each round, side by side: curl, the Job as it pulls (HTTP/1.1), the Job over HTTP/2 (as before),
        # the Job as filed (HTTP/2 and the re-hash)
        for number in range(1, args.rounds + 1):
            baseline_dir = os.path.join(hostpath_root, "bench-curl-%s" % uuid.uuid4().hex[:6])
            os.makedirs(baseline_dir)
            curl_seconds, size = curl_blobs(env, repository, digest, baseline_dir, args.concurrency)
            shutil.rmtree(baseline_dir)
            http1 = job_pull(env, kube, model, digest, args.concurrency, http2=False)
            http2 = job_pull(env, kube, model, digest, args.concurrency, http2=True)
            filed = job_pull(env, kube, model, digest, args.concurrency, http2=True, verify=True)
            rounds.append({"curl": curl_seconds, "http1": http1, "http2": http2, "filed": filed})
            print("round %d: curl %.2f s; Job over HTTP/1.1: oras pull %.2f s, to the marker %.2f s; "
                  "Job over HTTP/2: oras pull %.2f s, to the marker %.2f s; "
                  "Job as filed (HTTP/2, re-hash): to the marker %.2f s"
                  % (number, curl_seconds, http1["pull"], http1["marker"], http2["pull"], http2["marker"],
                     filed["marker"]), flush=True)

        mb = size / 1e6
        curl_median = median(item["curl"] for item in rounds)
        pull_median = median(item["http1"]["pull"] for item in rounds)
        marker_median = median(item["http1"]["marker"] for item in rounds)
        http2_median = median(item["http2"]["pull"] for item in rounds)
        print("artifact            %d files, %.1f MB, digest %s; %d round(s), medians below"
              % (len(titles), mb, digest, len(rounds)))
        print("curl to disk        %.2f s  %.0f MB/s  (%d at a time, then sync)"
              % (curl_median, mb / curl_median, args.concurrency))
        print("oras pull in Job    %.2f s  %.0f MB/s  (HTTP/1.1, a connection per blob; oras checks each blob's "
              "sha256 as it writes)" % (pull_median, mb / pull_median))
        print("verified pull       %.2f s  %.0f MB/s  (to the marker written and synced; no second read unless "
              "model_storage_verify)" % (marker_median, mb / marker_median))
        print("oras pull, HTTP/2   %.2f s  %.0f MB/s  (model_storage_pull_http2: true, the Job before this change)"
              % (http2_median, mb / http2_median))
        filed_median = median(item["filed"]["marker"] for item in rounds)
        print("as filed, verified  %.2f s  %.0f MB/s  (HTTP/2, then every file read again: model_storage_verify)"
              % (filed_median, mb / filed_median))
        first = rounds[0]["http1"]
        print("wait                %.2f s in all (round 1)" % first["wait"])
        print("completion->return  %s  (median; target <= 1 s)%s"
              % (seconds(median(item["http1"]["latency"] for item in rounds)),
                 "" if first["latency"] is not None else " (n/a: the Job's last log line came before the wait began)"))
        labels = ("container terminated (the wait's signal)", "pod phase Succeeded (the signal before)",
                  "Job Complete (the record, the first signal)")
        seen = [median(item["http1"]["seen"][index] for item in rounds) for index in range(3)]
        for label, value in zip(labels, seen):
            print("completion->seen    %s  %s (median)" % (seconds(value), label))
        if all(seen):
            print("ratio seen terminated/phase %.2f, terminated/Job Complete %.2f"
                  % (seen[0] / seen[1], seen[0] / seen[2]))
        # the completion as filed was seen when the Job's Complete condition came (its own watch, same rounds)
        print("completion as filed %s  (median: the Job Complete of the as-filed pull, the signal when filed)"
              % seconds(median(item["filed"]["seen"][2] for item in rounds)))
        # each ratio is the median of the rounds' own ratios (curl and the pulls of one round ran back to back)
        print("ratio pull/curl     %.2f  (target >= 0.9)"
              % median(item["curl"] / item["http1"]["pull"] for item in rounds))
        print("ratio verified/curl %.2f  (to the marker)"
              % median(item["curl"] / item["http1"]["marker"] for item in rounds))
        print("ratio HTTP/2 pull/HTTP/1.1 pull %.2f  (the time over HTTP/2 over the time over HTTP/1.1)"
              % median(item["http2"]["pull"] / item["http1"]["pull"] for item in rounds))
        print("ratio as filed verified/curl %.2f  (HTTP/2 and the re-hash, to the marker)"
              % median(item["curl"] / item["filed"]["marker"] for item in rounds))
    finally:
        if model is not None:
            model.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
