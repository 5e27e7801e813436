#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark the artifact formats: sync and pull of one model as a CNCF ModelPack artifact against hf-cache.

One model of random bytes (default 1 GiB in 8 safetensors files plus a small ``config.json``, a local_dir
source) and one loopback registry (Debian's docker-registry with TLS and htpasswd, tests/support/registry.py).
Each round, in one run:

1. model_sync's ``sync()`` (the module's logic, called in this process with the module's defaults: the files
   hashed, one ``oras push``, the manifest read back) publishes the model in the ``hf-cache`` format to a
   fresh repository and in the ``modelpack`` format to another fresh one, so both send every byte; the
   formats' order alternates per round;
2. the pull Job's script (plugins/module_utils/storage/pull_script.py) pulls each artifact into a fresh claim
   directory as the Job's pod runs it (busybox sh, the real oras CLI, the Job's defaults: 4 blobs at a time,
   HTTP/1.1, no re-hash; tests/support/pull_pod.py), timed from start to the marker written and synced;
3. both pulls must lay out the same snapshot (every file byte for byte against the model's, ``refs/main``,
   the marker's file count): the benchmark exits non-zero when they do not.

It prints the rounds' times, the medians and the ratios ModelPack time / hf-cache time (the median of the
rounds' own ratios; above 1 ModelPack is slower).

    source .venv/bin/activate && eval "$(lab/lab env)"
    python benchmarks/artifact_format.py [--size-mib 1024] [--files 8] [--concurrency 4] [--rounds 3] [--short]

Needs ``oras`` ($AIPS_ORAS or PATH; the lab's build), ``docker-registry``, ``htpasswd`` and ``busybox``; not
the lab itself. ``--short`` (64 MiB in 4 files, one round) only proves the benchmark still runs
(scripts/test.sh bench-short); its figures mean little.
"""

from __future__ import absolute_import, division, print_function

import filecmp
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import model_pull  # noqa: E402  (the options and the median are model_pull.py's)
from model_sync_transfer import write_random  # noqa: E402  (puts .collections on sys.path)

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_artifact  # noqa: E402
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync  # noqa: E402
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import repo_folder  # noqa: E402
from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry  # noqa: E402
from ansible_collections.ai_platform.serving.tests.support.pull_pod import run_pull_script  # noqa: E402

MIB = 1 << 20
REPO_ID = "bench/format"
COMMIT = "c" * 40
FORMATS = (oci_artifact.FORMAT_HF_CACHE, oci_artifact.FORMAT_MODELPACK)
CONFIG = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "torch_dtype": "bfloat16"}


def make_model(directory, size_mib, files):
    """``files`` safetensors files of random bytes, ``size_mib`` MiB in all, and a config.json; path -> size."""
    os.makedirs(directory)
    for index in range(files):
        write_random(os.path.join(directory, "model-%05d-of-%05d.safetensors" % (index + 1, files)),
                     size_mib * MIB // files)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump(CONFIG, handle)
    os.sync()  # no writeback of the fresh data competing with the timed transfers
    return dict((name, os.path.getsize(os.path.join(directory, name))) for name in os.listdir(directory))


def sync_format(reg, oras, model_dir, work, repository, fmt, want_bytes):
    """model_sync's sync() as the module runs it, to a fresh repository; (seconds, result)."""
    params = dict((key, spec.get("default")) for key, spec in model_sync.argspec().items())
    params.update(repo_id=REPO_ID, revision=COMMIT, source="local_dir", local_path=model_dir,
                  reference="%s/%s:v1" % (reg.host, repository), registry_username=reg.user,
                  registry_password=reg.password, ca_file=reg.ca, oras_path=oras, work_dir=work,
                  artifact_format=fmt)
    os.sync()
    started = time.monotonic()
    result = model_sync.sync(params)
    seconds = time.monotonic() - started
    if result["uploaded_bytes"] < want_bytes:  # hf-cache adds refs/main (40 bytes), ModelPack nothing
        raise SystemExit("%s: model_sync sent %d bytes of the model's %d to a fresh repository"
                         % (fmt, result["uploaded_bytes"], want_bytes))
    return seconds, result


def check_pull(fmt, run, model_dir, want):
    """The pull laid out the model's files byte for byte under snapshots/<commit>, refs/main and the marker."""
    folder = os.path.join(run.hub, repo_folder(REPO_ID))
    snapshot = os.path.join(folder, "snapshots", COMMIT)
    got = {}
    for dirpath, _dirs, names in os.walk(snapshot):
        for name in names:
            path = os.path.join(dirpath, name)
            got[os.path.relpath(path, snapshot)] = os.path.getsize(path)
    problems = []
    if got != want:
        problems.append("snapshot files and sizes %s, the model's %s" % (sorted(got.items()), sorted(want.items())))
    else:
        problems.extend("%s differs from the model's" % name for name in sorted(want)
                        if not filecmp.cmp(os.path.join(snapshot, name), os.path.join(model_dir, name), shallow=False))
    with open(os.path.join(folder, "refs", "main")) as handle:
        if handle.read() != COMMIT:
            problems.append("refs/main does not hold %s" % COMMIT)
    if run.marker.get("model_files") != len(want):
        problems.append("the marker counts %r model files, not %d" % (run.marker.get("model_files"), len(want)))
    if problems:
        raise SystemExit("the %s pull did not lay out the model: %s" % (fmt, "; ".join(problems)))


def main():
    args = model_pull.artifact_args(__doc__, 1024, 8)
    oras = lab_registry.find_tool("oras", "AIPS_ORAS")
    tmp = tempfile.mkdtemp(prefix="aips-bench-format-", dir=os.environ.get("AIPS_BENCH_DIR"))
    os.makedirs(os.path.join(tmp, "registry"))
    reg = lab_registry.Registry(os.path.join(tmp, "registry")).start()
    work = os.path.join(tmp, "work")
    os.makedirs(work)
    try:
        model_dir = os.path.join(tmp, "model")
        want = make_model(model_dir, args.size_mib, args.files)
        size = sum(want.values())
        mb = size / 1e6
        print("model: %d files, %.1f MB (%d safetensors + config.json); registry %s (TLS, htpasswd); oras %s; "
              "pull %d blobs at a time; %d round(s), the formats' order alternating"
              % (len(want), mb, args.files, reg.host, oras, args.concurrency, args.rounds), flush=True)
        rounds = []
        for number in range(1, args.rounds + 1):
            order = FORMATS if number % 2 else tuple(reversed(FORMATS))
            figures = dict((fmt, {}) for fmt in order)
            for fmt in order:
                seconds, result = sync_format(reg, oras, model_dir, work, "bench/%s-%d" % (fmt, number), fmt,
                                              size)
                figures[fmt].update(sync=seconds, digest=result["digest"], sent=result["uploaded_bytes"])
            for fmt in order:
                claim = os.path.join(tmp, "claim-%s-%d" % (fmt, number))
                os.makedirs(claim)
                reference = "%s/bench/%s-%d:v1" % (reg.host, fmt, number)
                os.sync()
                run = run_pull_script(reg, oras, claim, reference, figures[fmt]["digest"], repo_folder(REPO_ID),
                                      concurrency=args.concurrency)
                figures[fmt]["pull"] = run.seconds
                check_pull(fmt, run, model_dir, want)
                shutil.rmtree(claim)
            rounds.append(figures)
            print("round %d (%s first): sync hf-cache %.2f s, modelpack %.2f s; pull hf-cache %.2f s, modelpack %.2f s"
                  % (number, order[0], figures["hf-cache"]["sync"], figures["modelpack"]["sync"],
                     figures["hf-cache"]["pull"], figures["modelpack"]["pull"]), flush=True)

        last = rounds[-1]
        for fmt in FORMATS:
            print("artifact %-9s %s, %d bytes sent by the sync" % (fmt, last[fmt]["digest"], last[fmt]["sent"]))
        for step, how in (("sync", "model_sync's sync(): hash, oras push, manifest read back"),
                          ("pull", "the pull script under busybox, to the marker written and synced")):
            for fmt in FORMATS:
                value = model_pull.median(item[fmt][step] for item in rounds)
                print("%s %-9s %6.2f s  %7.1f MB/s  (median; %s)" % (step, fmt, value, mb / value, how))
        # each ratio is the median of the rounds' own ratios (both formats of a round ran back to back)
        for step in ("sync", "pull"):
            print("ratio %s modelpack/hf-cache %.2f  (time; above 1 ModelPack is slower)"
                  % (step, model_pull.median(item["modelpack"][step] / item["hf-cache"][step] for item in rounds)))
        print("same files: both formats' pulls laid out the %d files byte for byte, refs/main %s, every round"
              % (len(want), COMMIT))
    finally:
        reg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
