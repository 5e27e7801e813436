#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark of playbooks/load.yml on a multi-GiB bundle against a plain ``oras cp`` (prints figures, asserts nothing).

A bundle of one model (random bytes in many files) is written with the collection's own bundle code
(bundle.save_model, bundle.write_lock: the OCI layout bundle.yml writes). Each round then copies it into
fresh repositories of one loopback registry (tests/support/registry.py: TLS, htpasswd) in four ways,
each round starting with the next way, each copy after a sync:

1. ``oras cp --from-oci-layout`` of the layout, nothing else: the floor;
2. what load.yml's modules run for the model, called in this process (bundle.verify(deep=False), then
   bundle.push_model): the load without ansible-playbook's fixed cost;
3. load.yml as shipped (``aips_load_verify: push``): sizes and manifest checked, each blob read once
   while it is pushed, the registry checking its digest;
4. load.yml with ``aips_load_verify: deep``: every blob hashed first, then pushed (the load before
   this change).

load.yml runs as ansible-playbook does for a site (its fixed cost included); the lock's model reference
is pointed at a fresh repository before each run, so nothing is skipped as already there. Printed: each
way's median time and MB/s, and the medians of the per-round ratios (oras cp time / load time).

Run from the repo root with the venv active and oras, skopeo, helm and docker-registry on PATH
(``eval "$(lab/lab env)"``):
    python benchmarks/bundle_load.py [--gib 4] [--files 24] [--rounds 3] [--short]
Everything (model files, bundle, registry storage) lives in one temp dir (under $AIPS_BENCH_DIR if set)
removed at the end; a 4 GiB run needs about 12 GiB there. ``--short`` (64 MiB in 20 files, one round)
only proves the benchmark still runs (scripts/test.sh bench-short).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, ".collections"))

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import bundle  # noqa: E402
from ansible_collections.ai_platform.serving.plugins.modules import bundle_item  # noqa: E402
from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry  # noqa: E402
from ansible_collections.ai_platform.serving.tests.support.bundle import load_vars, run_playbook  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model_sync_transfer import write_random  # noqa: E402  (random model files, as that benchmark writes them)

MIB = 1 << 20
COMMIT = "c" * 40
NAME = "bench-model"


def make_model(directory, total, files):
    """``files`` files of random bytes, ``total`` bytes together, of unequal sizes (1x to 2x)."""
    os.makedirs(directory)
    weights = [1.0 + index / float(files - 1) for index in range(files)]
    sizes = [int(total * w / sum(weights)) // 4096 * 4096 for w in weights]
    for index, size in enumerate(sizes):
        write_random(os.path.join(directory, "model-%05d-of-%05d.safetensors" % (index + 1, files)), size)
    with open(os.path.join(directory, "config.json"), "w") as handle:
        json.dump({"model_type": "benchmark"}, handle)
    return sum(sizes)


def make_bundle(tmp, model_dir, oras):
    """The bundle of the model, written by the collection's bundle code; its lock entry."""
    bundle_dir = os.path.join(tmp, "bundle")
    # the module's defaults for a model (the artifact format among them), then this model
    params = dict(bundle_item.MODEL_DEFAULTS)
    params.update(name=NAME, repo_id="bench/" + NAME, revision=COMMIT, source="local_dir", local_path=model_dir,
                  reference="harbor.bench.invalid/bench/%s:v1" % NAME, bundle_dir=bundle_dir,
                  oras_path=oras, concurrency=5, work_dir=tmp, progress_file=None)
    os.makedirs(bundle_dir)
    entry = bundle.save_model(params, False)["entry"]
    bundle.write_lock(bundle_dir, [entry])
    os.sync()  # no writeback of the fresh bundle competing with the timed copies
    return bundle_dir, entry


def point_lock_at(bundle_dir, repository):
    """Point the lock's model at ``repository`` (a fresh one per run); the checks cover no reference."""
    lock = bundle.read_lock(bundle_dir)
    lock["items"][0]["reference"] = "harbor.bench.invalid/bench/%s:v1" % repository
    with open(os.path.join(bundle_dir, bundle.LOCK_NAME), "w") as handle:
        yaml.safe_dump(lock, handle)


def oras_cp(reg, oras, auth, layout, tag, repository):
    started = time.monotonic()
    proc = subprocess.run([oras, "cp", "--from-oci-layout", "%s:%s" % (layout, tag),
                           "%s/bench/%s:v1" % (reg.host, repository), "--to-registry-config", auth,
                           "--to-ca-file", reg.ca], capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise RuntimeError("oras cp failed: %s" % proc.stderr.strip())
    return seconds


def load(reg, tools, bundle_dir, tmp, repository, verify):
    point_lock_at(bundle_dir, repository)
    variables = load_vars(reg, tools, bundle_dir, os.path.join(tmp, "models.lock.yml"), aips_load_registry=reg.host,
                          aips_load_verify=verify)
    started = time.monotonic()
    run = run_playbook("load.yml", variables, tmp)
    seconds = time.monotonic() - started
    if run.rc != 0:
        raise RuntimeError("load.yml (%s) failed: %s" % (verify, run))
    return seconds, run


def module_path(reg, bundle_dir, entry, repository):
    """What load.yml's two modules run for the model, in this process: the quick check, then push_model."""
    started = time.monotonic()
    problems = bundle.verify(bundle_dir, bundle.read_lock(bundle_dir), deep=False)
    if problems:
        raise RuntimeError("; ".join(problems))
    bundle.push_model(dict(item=entry, bundle_dir=bundle_dir, reference="%s/bench/%s:v1" % (reg.host, repository),
                           ca_file=reg.ca, plain_http=False, username=reg.user, password=reg.password,
                           oras_path=shutil.which("oras")), False)
    return time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=None, help="bundle size: 4, or 1/16 with --short")
    parser.add_argument("--files", type=int, default=None, help="model files: 24, or 20 with --short")
    parser.add_argument("--rounds", type=int, default=None, help="rounds, medians reported: 3, or 1 with --short")
    parser.add_argument("--short", action="store_true", help="a small bundle, one round: proves the benchmark runs")
    args = parser.parse_args()
    for name, full, short in (("gib", 4.0, 1 / 16.0), ("files", 24, 20), ("rounds", 3, 1)):
        if getattr(args, name) is None:
            setattr(args, name, short if args.short else full)
    tools = dict((name, shutil.which(name)) for name in ("oras", "skopeo", "helm"))
    missing = [name for name, path in tools.items() if not path]
    if missing:
        raise SystemExit("not on PATH: %s (eval \"$(lab/lab env)\")" % ", ".join(missing))
    tmp = tempfile.mkdtemp(prefix="aips-bench-", dir=os.environ.get("AIPS_BENCH_DIR"))
    os.makedirs(os.path.join(tmp, "registry"))
    reg = lab_registry.Registry(os.path.join(tmp, "registry")).start()
    try:
        auth = reg.docker_config(os.path.join(tmp, "auth.json"))
        started = time.monotonic()
        make_model(os.path.join(tmp, "model"), int(args.gib * 1024) * MIB, args.files)
        bundle_dir, entry = make_bundle(tmp, os.path.join(tmp, "model"), tools["oras"])
        shutil.rmtree(os.path.join(tmp, "model"))
        layout = os.path.join(bundle_dir, entry["path"])
        mb = entry["size"] / 1e6
        print("bundle: 1 model, %d blobs, %.0f MB, written in %.0f s with bundle.save_model; registry %s (TLS, "
              "htpasswd); %d round(s), medians" % (len(entry["blobs"]), mb, time.monotonic() - started, reg.host,
                                                    args.rounds))
        ways = dict(oras=lambda r: oras_cp(reg, tools["oras"], auth, layout, entry["tag"], "oras-%d" % r),
                    module=lambda r: module_path(reg, bundle_dir, entry, "module-%d" % r),
                    push=lambda r: load(reg, tools, bundle_dir, tmp, "load-%d" % r, "push")[0],
                    deep=lambda r: load(reg, tools, bundle_dir, tmp, "deep-%d" % r, "deep")[0])
        order = list(ways)
        times = dict((key, []) for key in order)
        for round_ in range(args.rounds):
            # Each round starts with another way (no way always first), each after a sync (the registry's
            # writes of the previous copy are not flushed during the next one).
            for key in order[round_ % len(order):] + order[:round_ % len(order)]:
                os.sync()
                times[key].append(ways[key](round_))
            print("round %d: oras cp %.2f s, modules in-process %.2f s, load.yml %.2f s, load.yml deep %.2f s"
                  % (round_ + 1, times["oras"][-1], times["module"][-1], times["push"][-1], times["deep"][-1]))
        again, run = load(reg, tools, bundle_dir, tmp, "load-0", "push")
        sent = "0 pushed, 0 B sent" in " ".join(run.output.split())
        for key, label in (("oras", "oras cp --from-oci-layout (no verification)"),
                           ("module", "bundle.verify(deep=False) + push_model in-process"),
                           ("push", "load.yml, aips_load_verify=push (one read)"),
                           ("deep", "load.yml, aips_load_verify=deep (hash, then push)")):
            seconds = statistics.median(times[key])
            print("%-50s %7.2f s  %7.1f MB/s" % (label, seconds, mb / seconds))
        ratio = statistics.median(o / p for o, p in zip(times["oras"], times["push"]))
        deep = statistics.median(o / d for o, d in zip(times["oras"], times["deep"]))
        gain = statistics.median(d / p for d, p in zip(times["deep"], times["push"]))
        print("ratio load.yml/oras cp %.2f (speed; median of per-round oras time / load time)" % ratio)
        print("ratio modules in-process/oras cp %.2f (load.yml without ansible-playbook's fixed cost)"
              % statistics.median(o / m for o, m in zip(times["oras"], times["module"])))
        print("ratio load.yml deep/oras cp %.2f" % deep)
        print("ratio load.yml deep time / load.yml time %.2f" % gain)
        print("load.yml again, everything there: %.2f s (the playbook's fixed cost), %s"
              % (again, "nothing sent" if sent else "SENT SOMETHING"))
    finally:
        reg.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
