#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark of model_sync transfers on a loopback registry (prints figures, asserts nothing).

1. Push and pull of a 1 GiB multi-file artifact through model_sync (oras CLI), against curl
   uploading/downloading the same blobs to/from the same registry with the same parallelism,
   in the same run.
2. Peak RSS of model_sync pushing a 4 GiB artifact: the Python process (verification, staging,
   progress) and the oras child, each from getrusage.

Run from the repo root with the venv active and oras/docker-registry/curl on PATH:
    python benchmarks/model_sync_transfer.py [--small-gib 1] [--large-gib 4] [--jobs 5] [--rounds 2] [--short]
Everything (data, registry storage) lives in one temp dir removed at the end. ``--short`` (64 MiB
and 128 MiB, one round) only proves the benchmark still runs (scripts/test.sh bench-short).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, ".collections"))

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.oci_archive import sha256_file  # noqa: E402
from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry  # noqa: E402

MIB = 1 << 20
COMMIT = "b" * 40
SIZES_MIB = (400, 256, 160, 96, 64, 48)  # 1024 MiB in files of different sizes


def write_random(path, size):
    with open(path, "wb") as handle:
        left = size
        while left:
            chunk = min(left, 16 * MIB)
            handle.write(os.urandom(chunk))
            left -= chunk


def make_model(directory, total_mib):
    os.makedirs(directory)
    scale = total_mib / 1024.0
    for index, size in enumerate(SIZES_MIB):
        write_random(os.path.join(directory, "model-%05d.safetensors" % index), int(size * scale) * MIB)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump({"model_type": "benchmark"}, handle)
    os.sync()  # no writeback of the fresh data competing with the timed transfers
    return sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))


SYNC_SCRIPT = r"""
import json, resource, sys
sys.path.insert(0, sys.argv[1])
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync
params = json.loads(sys.argv[2])
full = dict((k, v.get("default")) for k, v in model_sync.argspec().items())
full.update(params)
result = model_sync.sync(full)
print(json.dumps({"digest": result["digest"], "uploaded_bytes": result["uploaded_bytes"],
                  "self_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "children_kib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))
"""


# GODEBUG for the "before" rows: Go's HTTP/2 client allowed, as the registry tools ran before they kept to
# HTTP/1.1 (registry.tools.go_http1_env respects a GODEBUG that already sets http2client).
HTTP2 = "http2client=1"


def model_sync_push(reg, model_dir, artifact, oras, work, godebug=None):
    params = dict(repo_id="bench/model", revision=COMMIT, source="local_dir", local_path=model_dir,
                  reference="%s/bench/%s:v1" % (reg.host, artifact), registry_username=reg.user,
                  registry_password=reg.password, ca_file=reg.ca, oras_path=oras, work_dir=work,
                  progress_file=os.path.join(work, artifact + ".progress.log"))
    os.sync()
    started = time.monotonic()
    env = dict(os.environ, GODEBUG=godebug) if godebug else None
    proc = subprocess.run([sys.executable, "-c", SYNC_SCRIPT, os.path.join(ROOT, ".collections"), json.dumps(params)],
                          capture_output=True, text=True, check=False, env=env)
    elapsed = time.monotonic() - started
    if proc.returncode != 0:
        raise SystemExit("model_sync push failed: %s" % proc.stderr[-2000:])
    return elapsed, json.loads(proc.stdout.strip().splitlines()[-1])


def parallel(jobs, items, work):
    os.sync()
    errors = []
    queue = list(items)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not queue:
                    return
                item = queue.pop()
            try:
                work(item)
            except Exception as exc:  # pylint: disable=broad-except
                errors.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(jobs)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise SystemExit("curl failed: %s" % errors[0])
    return time.monotonic() - started


def curl(reg, curlrc, *args):
    proc = subprocess.run(["curl", "-sS", "-K", curlrc, "--cacert", reg.ca, "-o", "/dev/null", "-w", "%{http_code}"]
                          + list(args), capture_output=True, text=True, check=False)
    return proc.stdout.strip(), proc.stderr


def curl_push(reg, curlrc, files, jobs, repo):
    """Monolithic upload per blob: POST for a session, then PUT of the whole file with its digest."""
    digests = dict((path, sha256_file(path)) for path in files)  # hashed before the clock, oras hashes inside it

    def upload(path):
        proc = subprocess.run(["curl", "-sS", "-K", curlrc, "--cacert", reg.ca, "-X", "POST", "-D", "-", "-o",
                               "/dev/null", "https://%s/v2/bench/%s/blobs/uploads/" % (reg.host, repo)],
                              capture_output=True, text=True, check=True)
        location = [line.split(":", 1)[1].strip() for line in proc.stdout.splitlines()
                    if line.lower().startswith("location:")][0]
        if location.startswith("/"):
            location = "https://%s%s" % (reg.host, location)
        sep = "&" if "?" in location else "?"
        code, err = curl(reg, curlrc, "-X", "PUT", "-H", "Content-Type: application/octet-stream", "-T", path,
                         "%s%sdigest=%s" % (location, sep, digests[path].replace(":", "%3A")))
        if code != "201":
            raise RuntimeError("PUT %s: HTTP %s %s" % (path, code, err))

    return parallel(jobs, files, upload), digests


def curl_pull(reg, curlrc, digests, dest, jobs, repo):
    os.makedirs(dest)

    def download(digest):
        code, err = curl(reg, curlrc, "-L", "-o", os.path.join(dest, digest.split(":")[1]),
                         "https://%s/v2/bench/%s/blobs/%s" % (reg.host, repo, digest))
        if code != "200":
            raise RuntimeError("GET %s: HTTP %s %s" % (digest, code, err))

    return parallel(jobs, list(digests.values()), download)


def oras_pull(reg, oras, reference, dest, jobs, godebug="http2client=0"):
    """oras pull as the pull Job runs it: HTTP/1.1 (the Job's GODEBUG) unless ``godebug`` says otherwise."""
    os.makedirs(dest)
    config = reg.docker_config(os.path.join(os.path.dirname(dest), "pull-auth.json"))
    os.sync()
    started = time.monotonic()
    subprocess.run([oras, "pull", "--registry-config", config, "--ca-file", reg.ca, "--concurrency", str(jobs),
                    reference], cwd=dest, check=True, capture_output=True, env=dict(os.environ, GODEBUG=godebug))
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small-gib", type=float, default=None, help="1, or 1/16 with --short")
    parser.add_argument("--large-gib", type=float, default=None, help="4, or 1/8 with --short")
    parser.add_argument("--jobs", type=int, default=5, help="parallel transfers for oras and curl alike")
    parser.add_argument("--oras", default=shutil.which("oras") or "oras")
    parser.add_argument("--rounds", type=int, default=None,
                        help="each transfer is timed this often; the best counts (2, or 1 with --short)")
    parser.add_argument("--short", action="store_true", help="small artifacts, one round: proves the benchmark runs")
    args = parser.parse_args()
    for name, full, short in (("small_gib", 1.0, 1 / 16.0), ("large_gib", 4.0, 1 / 8.0), ("rounds", 2, 1)):
        if getattr(args, name) is None:
            setattr(args, name, short if args.short else full)
    tmp = tempfile.mkdtemp(prefix="aips-bench-", dir=os.environ.get("AIPS_BENCH_DIR"))
    os.makedirs(os.path.join(tmp, "registry"))
    reg = lab_registry.Registry(os.path.join(tmp, "registry")).start()
    curlrc = os.path.join(tmp, "curlrc")
    fd = os.open(curlrc, os.O_WRONLY | os.O_CREAT, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write('user = "%s:%s"\n' % (reg.user, reg.password))
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    try:
        small = make_model(os.path.join(tmp, "small"), int(args.small_gib * 1024))
        files = sorted(os.path.join(tmp, "small", f) for f in os.listdir(os.path.join(tmp, "small")))
        mb = small / 1e6
        print("artifact: %d files, %.0f MB; %d parallel transfers; registry %s (TLS, htpasswd); best of %d"
              % (len(files), mb, args.jobs, reg.host, args.rounds))

        best = dict(curl_up=None, ms_up=None, ms_up_h2=None, curl_down=None, oras_down=None, oras_down_h2=None)

        def keep(key, seconds):
            best[key] = seconds if best[key] is None else min(best[key], seconds)

        for round_ in range(args.rounds):
            # Fresh repositories each round, so nothing is skipped as already present.
            seconds, digests = curl_push(reg, curlrc, files, args.jobs, "curl-%d" % round_)
            keep("curl_up", seconds)
            seconds, pushed = model_sync_push(reg, os.path.join(tmp, "small"), "small-%d" % round_, args.oras, work)
            keep("ms_up", seconds)
            keep("ms_up_h2", model_sync_push(reg, os.path.join(tmp, "small"), "small-h2-%d" % round_, args.oras, work,
                                             godebug=HTTP2)[0])
            for dest in ("curl-pull", "oras-pull", "oras-pull-h2"):
                shutil.rmtree(os.path.join(tmp, dest), ignore_errors=True)
            keep("curl_down", curl_pull(reg, curlrc, digests, os.path.join(tmp, "curl-pull"), args.jobs,
                                        "curl-%d" % round_))
            keep("oras_down", oras_pull(reg, args.oras, "%s/bench/small-%d@%s" % (reg.host, round_, pushed["digest"]),
                                        os.path.join(tmp, "oras-pull", "hub"), args.jobs))
            keep("oras_down_h2", oras_pull(reg, args.oras, "%s/bench/small-%d@%s" % (reg.host, round_, pushed["digest"]),
                                           os.path.join(tmp, "oras-pull-h2", "hub"), args.jobs, godebug=HTTP2))
        again, repeat = model_sync_push(reg, os.path.join(tmp, "small"), "small-0", args.oras, work)
        curl_up, ms_up, curl_down, oras_down = best["curl_up"], best["ms_up"], best["curl_down"], best["oras_down"]

        print("push  curl       %7.1f MB/s  (%.2f s)" % (mb / curl_up, curl_up))
        print("push  model_sync %7.1f MB/s  (%.2f s, includes sha256 verification)  ratio %.2f of curl"
              % (mb / ms_up, ms_up, curl_up / ms_up))
        print("push  model_sync over HTTP/2 %7.1f MB/s  (%.2f s, as before the tools kept to HTTP/1.1)  ratio %.2f of curl"
              % (mb / best["ms_up_h2"], best["ms_up_h2"], curl_up / best["ms_up_h2"]))
        print("pull  curl       %7.1f MB/s  (%.2f s)" % (mb / curl_down, curl_down))
        print("pull  oras       %7.1f MB/s  (%.2f s)  ratio %.2f of curl" % (mb / oras_down, oras_down,
                                                                            curl_down / oras_down))
        print("pull  oras over HTTP/2 %7.1f MB/s  (%.2f s, as the pull Job did before)  ratio %.2f of curl"
              % (mb / best["oras_down_h2"], best["oras_down_h2"], curl_down / best["oras_down_h2"]))
        print("re-run unchanged: %.2f s, %d blob bytes uploaded" % (again, repeat["uploaded_bytes"]))
        shutil.rmtree(os.path.join(tmp, "curl-pull"))
        shutil.rmtree(os.path.join(tmp, "oras-pull"))
        shutil.rmtree(os.path.join(tmp, "oras-pull-h2"))

        large = make_model(os.path.join(tmp, "large"), int(args.large_gib * 1024))
        shutil.rmtree(os.path.join(tmp, "small"))
        ms_large, pushed = model_sync_push(reg, os.path.join(tmp, "large"), "large", args.oras, work)
        print("push %.0f MB: %.1f MB/s; peak RSS: model_sync process %.1f MB, oras %.1f MB (sum %.1f MB, target < 200)"
              % (large / 1e6, large / 1e6 / ms_large, pushed["self_kib"] / 1024.0, pushed["children_kib"] / 1024.0,
                 (pushed["self_kib"] + pushed["children_kib"]) / 1024.0))
    finally:
        reg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
