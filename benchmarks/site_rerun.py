#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Second run / first run of playbooks/site.yml on the lab, measured in one run; asserts nothing.

    source .venv/bin/activate; eval "$(lab/lab env)"
    python benchmarks/site_rerun.py [--rounds 1] [--short] [--models 1,2,4,12] [--before DIR] [--calls] \
        [--tasks N] [--no-settle]

It first runs playbooks/sync.yml (the embedder's artifact; nothing changes when it is there,
not timed). Each round then removes the lab models with their storage (serving_stack_state=absent,
serving_stack_remove_storage=true), so the first run pulls the weights and starts every
release; the second run finds everything in place. It prints both times, the ratio, and
the slowest tasks of each run. ``--short`` (scripts/test.sh bench-short) only proves the
benchmark still runs: it keeps the lab's models and runs only site.yml's nodes and storage stages twice.

``--models 1,2,4,12`` measures the same on that many synthetic models instead of the lab's two,
one count after the other: copies of the lab's models under slugs of their own (``perf-emb-1``, the
embedder pulled from the lab registry, then ``perf-sim-2`` … generative simulators), written with
their plan inventory into build/bench/site_rerun/ and removed with their storage at the end (the
lab's own models are not touched). It prints the no-op time per model and per added model.
``--pulled`` makes every synthetic model an embedder pulled from the lab registry (``perf-emb-1``,
``perf-emb-2`` …: a claim, hostPath PV and pull Job each), which is what model_storage loops over.

Between the first and the second run it waits until the models' pods (not the Jobs') are Ready and the
CPU is three quarters idle over 5 s (at most 3 min), so the second run meets a settled lab
(``--no-settle``: at once, as before 2026-12-04; ``--short`` never waits).

``--before DIR`` (a checkout of an earlier commit, ``git worktree add /tmp/before <commit>``) runs every
count on that tree and then on this one, in the same run, so the before/after table comes from one
machine state. Every run counts its module calls (benchmarks/callback_plugins/module_calls.py: tasks and
loop items that start a module, not set_fact/debug/assert); ``--calls`` lists those of each no-op run by
task, ``--tasks N`` the N slowest tasks of each no-op run (seconds between task headers). The load average
is printed with each row (other work on the machine moves the times, not the calls).
"""

from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECAP = re.compile(r"^(\S+)\s+:\s+ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)", re.M)


BENCH_DIR = os.path.join(ROOT, "build", "bench", "site_rerun")
EXTRA = []  # -e @file of the synthetic models, when --models is given


def synthetic_models(count, prefix="perf", pulled=False):
    """A models tree and extra vars of `count` synthetic models (slug perf-emb-1, perf-sim-2, ...; with
    ``pulled`` every one an embedder pulled from the lab registry: perf-emb-1, perf-emb-2, ...)."""
    tree = os.path.join(BENCH_DIR, prefix, "models")
    shutil.rmtree(tree, ignore_errors=True)
    models = {"embedder": [], "generative": []}
    for number in range(1, count + 1):
        embedder = pulled or number == 1
        category, name, old = (("embedder", "all-MiniLM-L6-v2-lab", "minilm-lab") if embedder
                               else ("generative", "sim-qwen3-lab", "sim-qwen3-lab"))
        slug = "%s-%s-%d" % (prefix, "emb" if embedder else "sim", number)
        folder = os.path.join(tree, category, slug)
        for kind in ("gaie", "ms"):
            src = os.path.join(ROOT, "models", category, name, "%s-%s" % (kind, old), "values.yaml")
            os.makedirs(os.path.join(folder, "%s-%s" % (kind, slug)))
            with open(src) as handle:
                text = handle.read().replace(old, slug)
            with open(os.path.join(folder, "%s-%s" % (kind, slug), "values.yaml"), "w") as handle:
                handle.write(text)
        entry = {"name": slug, "enabled": True, "nodeSelector": {}}
        if embedder:
            entry["modelSource"] = {
                "harborRef": "harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:v1",
                "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2", "storageSize": "1Gi",
                "hostpathNode": "{{ aips_lab_node }}"}
        models[category].append(entry)
    extra = os.path.join(BENCH_DIR, prefix, "models-%d.json" % count)
    with open(extra, "w") as handle:
        json.dump({"aips_models_dir": tree, "aips_models": models}, handle)
    return ["-e", "@" + extra]


TREES = {"after": ROOT}  # label -> checkout; --before adds "before"


def prepare_tree(path):
    """A checkout of another commit (``git worktree add /tmp/before <commit>``), made runnable like this one:
    its .collections points the collection at it and kubernetes.core at this checkout's."""
    path = os.path.abspath(path)
    if not os.path.exists(os.path.join(path, "playbooks", "site.yml")):
        raise SystemExit("%s: no playbooks/site.yml there (a checkout of the collection?)" % path)
    base = os.path.join(path, ".collections", "ansible_collections")
    # kubernetes.core from this checkout's .collections, or from the one beside the venv running this script
    kubernetes = [os.path.realpath(os.path.join(where, ".collections", "ansible_collections", "kubernetes"))
                  for where in (ROOT, os.path.dirname(os.path.realpath(sys.prefix)))]
    kubernetes = [k for k in kubernetes if os.path.isdir(k)][:1]
    if not kubernetes:
        raise SystemExit("no kubernetes.core collection found (scripts/setup.sh installs it in .collections)")
    for link, target in ((os.path.join(base, "ai_platform", "serving"), path),
                         (os.path.join(base, "kubernetes"), kubernetes[0])):
        if os.path.islink(link) and not os.path.exists(link):
            os.remove(link)  # left dangling by an earlier run
        if not os.path.lexists(link):
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(target, link)
    return path


def settle(timeout=600):
    """Wait until every pod of the models' namespaces (llm-d-*) that is not a Job's is Ready, then until the CPU
    is mostly idle (quiet), so the no-op run measures a settled lab and not pods still starting; return the
    seconds waited."""
    start = time.monotonic()
    kubectl = shutil.which("kubectl") or "kubectl"
    names = subprocess.run([kubectl, "get", "namespaces", "-o", "name"], check=True, capture_output=True,
                           text=True).stdout.split()
    for namespace in [n.split("/", 1)[1] for n in names if n.startswith("namespace/llm-d-")]:
        left = max(1, int(timeout - (time.monotonic() - start)))
        proc = subprocess.run([kubectl, "wait", "pod", "-n", namespace, "-l", "!job-name", "--for=condition=Ready",
                               "--timeout=%ds" % left], capture_output=True, text=True)
        if proc.returncode != 0 and "no matching resources" not in proc.stderr:
            raise SystemExit("the pods of %s did not become Ready in %d s: %s" % (namespace, timeout, proc.stderr))
    return time.monotonic() - start + quiet()


def cpu_idle(window=5.0):
    """The machine's idle share of CPU time over ``window`` seconds (/proc/stat)."""
    def sample():
        with open("/proc/stat") as handle:
            fields = [int(x) for x in handle.readline().split()[1:]]
        return fields[3] + fields[4], sum(fields)   # idle + iowait, all
    idle0, total0 = sample()
    time.sleep(window)
    idle1, total1 = sample()
    return (idle1 - idle0) / float(max(1, total1 - total0))


def quiet(share=0.75, timeout=180):
    """Wait until the CPU is at least ``share`` idle over 5 s (pods Ready may still be warming up, a first
    run's writeback still going), at most ``timeout`` s; return the seconds waited."""
    start = time.monotonic()
    while cpu_idle() < share and time.monotonic() - start < timeout:
        pass
    return time.monotonic() - start


def load_average():
    return "%.1f" % os.getloadavg()[0]


EMPTY_PLAY = os.path.join(ROOT, "benchmarks", "empty_play.yml")


def playbook(*args, name="site.yml", tree=ROOT):
    """Run a playbook of ``tree`` (``name`` under its playbooks/, or an absolute path); return (seconds, changed,
    slowest tasks, module calls)."""
    argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "inventory/lab",
            os.path.join("playbooks", name)] + EXTRA + list(args)
    calls_file = os.path.join(BENCH_DIR, "module-calls.json")
    os.makedirs(BENCH_DIR, exist_ok=True)
    if os.path.exists(calls_file):
        os.remove(calls_file)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(tree, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_CALLBACK_PLUGINS=os.path.join(ROOT, "benchmarks", "callback_plugins"),
               ANSIBLE_CALLBACKS_ENABLED="module_calls", AIPS_MODULE_CALLS_FILE=calls_file)
    # the carried charts of the upload stage, beside this checkout (another tree may live elsewhere)
    env.setdefault("AIPS_LAB_CHARTS_DIR", os.path.realpath(os.path.join(ROOT, "..", "shared", "upstream", "charts")))
    start = time.monotonic()
    task_times, last, name = [], start, None
    proc = subprocess.Popen(argv, cwd=tree, env=env, stdout=subprocess.PIPE, text=True)
    out = []
    for line in proc.stdout:
        out.append(line)
        if line.startswith(("TASK [", "PLAY RECAP")):
            now = time.monotonic()
            if name:
                task_times.append((now - last, name))
            last, name = now, line.strip(" *\n")
    rc = proc.wait()
    elapsed = time.monotonic() - start
    text = "".join(out)
    if rc != 0:
        raise SystemExit("%s %s failed (rc %d):\n%s" % (name, " ".join(args), rc, text[-4000:]))
    changed = sum(int(c) for _host, c, _failed in RECAP.findall(text))
    calls = None
    if os.path.exists(calls_file):
        with open(calls_file) as handle:
            calls = json.load(handle)
    return elapsed, changed, sorted(task_times, reverse=True), calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--short", action="store_true",
                        help="one round of the storage stage on the models in place: proves the benchmark runs")
    parser.add_argument("--models", default="",
                        help="comma-separated model counts (e.g. 1,2,4,12): synthetic models instead of the lab's")
    parser.add_argument("--prefix", default="perf", help="slug prefix of the synthetic models (default perf)")
    parser.add_argument("--before", default="",
                        help="a checkout of an earlier commit: each count runs on it, then on this tree (one run)")
    parser.add_argument("--pulled", action="store_true",
                        help="every synthetic model an embedder pulled from the lab registry (model_storage's path)")
    parser.add_argument("--calls", action="store_true", help="print the module calls of each no-op run by task")
    parser.add_argument("--tasks", type=int, default=0, help="print the N slowest tasks of each no-op run")
    parser.add_argument("--no-settle", dest="settle", action="store_false",
                        help="run the no-op run at once, without waiting for the models' pods to be Ready")
    opts = parser.parse_args()
    if not os.environ.get("KUBECONFIG"):
        raise SystemExit('run `eval "$(lab/lab env)"` first')
    prepare_tree(ROOT)  # links only what is missing: this script may run from a plain checkout (git worktree add)
    if opts.before:
        TREES.clear()
        TREES.update((("before", prepare_tree(opts.before)), ("after", ROOT)))
    print("machine: %d cores, load average %s at the start" % (os.cpu_count() or 0, load_average()))
    playbook(name="sync.yml")
    runs = ("--tags", "nodes,storage") if opts.short else ()
    remove = ("--tags", "serving", "-e", "serving_stack_state=absent", "-e", "serving_stack_remove_storage=true")
    counts = sorted(int(c) for c in opts.models.split(",") if c.strip())
    noop, rows = {}, []
    for count in counts or [None]:
        if count:
            EXTRA[:] = synthetic_models(count, opts.prefix, opts.pulled)
        label = "%d models" % count if count else "the lab's models"
        for round_no in range(1, (1 if opts.short else opts.rounds) + 1):
            for tree_label, tree in TREES.items():
                if not opts.short:
                    playbook(*remove)
                load_before = load_average()
                first, changed_first, slow_first, _calls = playbook(*runs, tree=tree)
                settled = settle() if opts.settle and not opts.short else 0.0
                second, changed_second, slow_second, calls = playbook(*runs, tree=tree)
                # the floor beside it, same tree, same models: a play that does nothing, and the plan alone
                empty = playbook(name=EMPTY_PLAY, tree=tree)[0]
                plan = playbook(name="plan.yml", tree=tree)[0]
                load = "%s-%s" % (load_before, load_average())
                key = (tree_label, count)
                noop[key] = min(second, noop.get(key, second))
                n_calls = calls["calls"] if calls else None
                rows.append((count, tree_label, first, second, n_calls, load, empty, plan))
                print("%s%s, round %d: first run %.1f s (changed=%d), settled %.1f s later, second run %.1f s "
                      "(changed=%d): second / first = %.2f; %s module calls in the second run; load average %s"
                      % ("" if len(TREES) == 1 else tree_label + ", ", label, round_no, first, changed_first, settled,
                         second, changed_second, second / first, n_calls, load))
                print("  floor: empty play %.1f s, plan.yml %.1f s: no-op / plan.yml = %.2f, no-op / empty play = %.2f"
                      % (empty, plan, second / plan, second / empty))
                for which, slow in (("first", slow_first), ("second", slow_second)):
                    print("  slowest tasks of the %s run: %s" % (which, "; ".join("%.1f s %s" % t for t in slow[:3])))
                for seconds, task in slow_second[:opts.tasks]:
                    print("  %6.2f s  %s" % (seconds, task))
                if opts.calls and calls:
                    for task, number in sorted(calls["by_task"].items()):
                        print("  %3d  %s" % (number, task))
                sys.stdout.flush()
    if counts:
        playbook(*remove)  # the synthetic models of the largest count, with their storage
    low = min(counts) if counts else None
    for tree_label in TREES:
        for count in counts:
            key = (tree_label, count)
            extra = ("; %+.2f s per model added to %d" % ((noop[key] - noop[(tree_label, low)]) / (count - low), low)
                     if count > low else "")
            print("%sno-op run, %d models: %.1f s, %.2f s per model%s"
                  % ("" if len(TREES) == 1 else tree_label + ": ", count, noop[key], noop[key] / count, extra))
    print("\n| models | tree | first run | no-op run | no-op / first | empty play | plan.yml | no-op / plan.yml "
          "| module calls (no-op) | load average |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for count, tree_label, first, second, n_calls, load, empty, plan in rows:
        print("| %s | %s | %.1f s | %.1f s | %.2f | %.1f s | %.1f s | %.2f | %s | %s |"
              % (count or "lab", tree_label, first, second, second / first, empty, plan, second / plan, n_calls, load))
    print("machine: load average %s at the end" % load_average())


if __name__ == "__main__":
    main()
