#!/usr/bin/env python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark the collection's verified pull against the peers' ways of loading weights and the machine's limit.

One artifact (default 4 GiB in 24 files of random bytes, laid out as a hub cache like a sharded model) is pushed
to the lab registry once; then each round runs, back to back, on the same bytes:

- ``raw blob-to-disk``: the registry's blobs read to the node's disk with curl, no verification, as many at a time
  as the Job's oras concurrency, then ``sync`` (the limit of a pull from this registry);
- ``cp``: a plain ``cp -r`` of the same files from a local directory to the node's disk, then ``sync`` (the limit
  of the disk, the source in the page cache);
- ``oras-py``: oras-py's ``OrasClient.pull`` (KServe's ``oci+fetch`` storage initializer pulls this way), from the
  same registry over the same TLS, then ``sync``;
- ``huggingface_hub``: ``snapshot_download`` from an HF-compatible mirror on loopback (LLMKube, KubeAI and OME
  download this way, from the Hub or such a mirror). The mirror is tests/support/hf_mirror.py, a stand-in for a
  real HF mirror (none can run here): it serves the files from disk with Python's HTTP server and redirects LFS
  files to a second port as the Hub redirects to its CDN; then ``sync``;
- ``verified pull``: the collection's pull Job (model_storage, the same code as model_pull.py), from the start of
  the pull to its marker written and synced, every blob's sha256 checked.

The peers run on the host, the Job in the lab's node; both write to the same disk. Each ratio is the median of the
rounds' own ratios (the two cores are shared with the registry and the cluster). The targets (issue 31): verified
pull >= 1.5x the faster of oras-py and huggingface_hub, and >= 0.7x the raw blob-to-disk limit.

    source .venv/bin/activate && eval "$(lab/lab env)"
    python benchmarks/pull_peers.py [--size-mib 4096] [--files 24] [--concurrency 4] [--rounds 3] [--short]

Needs the lab up (fails otherwise). ``--short`` (64 MiB in 4 files, one round) only proves the benchmark still runs
(scripts/test.sh bench-short); its figures mean little.
"""

from __future__ import absolute_import, division, print_function

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import model_pull  # noqa: E402  (the artifact, the curl baseline and the Job pull are model_pull.py's)


def synced(started):
    subprocess.run(["sync"], check=True)
    return time.monotonic() - started


def cp_files(source, dest):
    started = time.monotonic()
    subprocess.run(["cp", "-r", source, dest], check=True)
    return synced(started)


def oras_py_pull(env, reference, dest):
    """oras-py's pull, as KServe's storage initializer runs it (one blob at a time, no digest check)."""
    import oras.client
    client = oras.client.OrasClient(hostname=model_pull.HARBOR, tls_verify=env["AIPS_LAB_CA"],
                                      auth_backend="basic")  # the lab registry asks for basic auth
    client.auth.set_basic_auth(env["AIPS_LAB_HARBOR_USER"], env["AIPS_LAB_HARBOR_TOKEN"])
    started = time.monotonic()
    files = client.pull(target=reference, outdir=dest)
    return synced(started), len(files)


def hf_pull(mirror, dest):
    """huggingface_hub's snapshot_download from the mirror stand-in into a fresh cache directory."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from huggingface_hub import snapshot_download
    started = time.monotonic()
    path = snapshot_download(mirror.repo_id, revision=mirror.commit, cache_dir=dest, endpoint=mirror.endpoint,
                             token=False, max_workers=8)
    return synced(started), sum(len(names) for _dir, _dirs, names in os.walk(path))


def files_of(snapshot_dir):
    return dict((name, os.path.getsize(os.path.join(snapshot_dir, name))) for name in os.listdir(snapshot_dir))


def check_same(what, got_dir, want):
    got = files_of(got_dir)
    if got != want:
        raise SystemExit("%s did not lay out the artifact's files: got %s, want %s" % (what, got, want))


def main():
    args = model_pull.artifact_args(__doc__, 4096, 24)

    from ansible_collections.ai_platform.serving.tests.support import lab as labplay
    from ansible_collections.ai_platform.serving.tests.support.hf_mirror import Mirror
    from ansible_collections.ai_platform.serving.tests.support.site import OneModel
    hostpath_root = "/var/tmp/aips-model-storage-test"
    env = dict(os.environ, **labplay.lab_env_or_exit())
    kube = labplay.Kube(env)
    workdir = tempfile.mkdtemp(prefix="aips-bench-peers-")
    model = mirror = None
    try:
        hub, repo_folder, titles = model_pull.make_artifact(workdir, args.size_mib, args.files)
        repository = "ai-models/bench-peers-%s" % uuid.uuid4().hex[:6]
        reference = "%s/%s:v1" % (model_pull.HARBOR, repository)
        digest = model_pull.push(env, hub, titles, reference)
        snapshot = os.path.join(hub, repo_folder, "snapshots", model_pull.COMMIT)
        want = files_of(snapshot)
        repo_id = repo_folder.split("--", 1)[1].replace("--", "/", 1)
        mirror = Mirror(snapshot, repo_id, model_pull.COMMIT).start()
        tmp = os.path.join(workdir, "model")
        os.makedirs(tmp)
        from pathlib import Path
        model = OneModel(env, kube, Path(tmp), hostpath_root=hostpath_root,
                         storage_size="%dGi" % (args.size_mib // 1024 + 2))
        model.source["harborRef"] = reference
        model.source["modelUri"] = "hub/bench/%s" % repo_folder.split("--", 2)[2]

        rounds, size = [], None
        for number in range(1, args.rounds + 1):
            scratch = os.path.join(hostpath_root, "bench-peers-%s" % uuid.uuid4().hex[:6])
            os.makedirs(scratch)
            try:
                raw_dir = os.path.join(scratch, "raw")
                os.makedirs(raw_dir)
                raw, size = model_pull.curl_blobs(env, repository, digest, raw_dir, args.concurrency)
                copied = cp_files(snapshot, os.path.join(scratch, "cp"))
                oras_seconds, _count = oras_py_pull(env, reference, os.path.join(scratch, "oras-py"))
                check_same("oras-py", os.path.join(scratch, "oras-py", repo_folder, "snapshots", model_pull.COMMIT),
                           want)
                hf_seconds, _count = hf_pull(mirror, os.path.join(scratch, "hf"))
                check_same("huggingface_hub", os.path.join(scratch, "hf", repo_folder, "snapshots",
                                                           model_pull.COMMIT), want)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
            job = model_pull.job_pull(env, kube, model, digest, args.concurrency, http2=False)
            rounds.append({"raw": raw, "cp": copied, "oras-py": oras_seconds, "hf": hf_seconds,
                           "verified": job["marker"]})
            print("round %d: raw blob-to-disk %.2f s; cp %.2f s; oras-py %.2f s; huggingface_hub %.2f s; "
                  "verified pull %.2f s" % (number, raw, copied, oras_seconds, hf_seconds, job["marker"]), flush=True)

        mb = size / 1e6
        print("artifact            %d files, %.1f MB, digest %s; %d round(s), medians below"
              % (len(titles), mb, digest, len(rounds)))
        labels = (("raw", "raw blob-to-disk", "curl from the registry, %d at a time, no verification, then sync"
                   % args.concurrency),
                  ("cp", "cp to disk", "cp -r of the files, then sync"),
                  ("oras-py", "oras-py pull", "KServe's oci+fetch way: one blob at a time, no digest check"),
                  ("hf", "huggingface_hub", "snapshot_download from the HF mirror stand-in on loopback"),
                  ("verified", "verified pull", "the collection's pull Job, to the marker; every blob's sha256 checked"))
        for key, label, how in labels:
            value = model_pull.median(item[key] for item in rounds)
            print("%-19s %.2f s  %.0f MB/s  (%s)" % (label, value, mb / value, how))
        # each ratio is the median of the rounds' own ratios: how many times faster the verified pull is
        print("ratio verified/oras-py %.2f" % model_pull.median(r["oras-py"] / r["verified"] for r in rounds))
        print("ratio verified/huggingface_hub %.2f" % model_pull.median(r["hf"] / r["verified"] for r in rounds))
        print("ratio verified/faster peer %.2f  (target >= 1.5)"
              % model_pull.median(min(r["oras-py"], r["hf"]) / r["verified"] for r in rounds))
        print("ratio verified/raw blob-to-disk %.2f  (target >= 0.7)"
              % model_pull.median(r["raw"] / r["verified"] for r in rounds))
        print("ratio verified/cp %.2f" % model_pull.median(r["cp"] / r["verified"] for r in rounds))
    finally:
        if mirror is not None:
            mirror.stop()
        if model is not None:
            model.cleanup()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
