#!/usr/bin/env python3
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Second run / first run of playbooks/site.yml on the lab, measured in one run; asserts nothing.

    source .venv/bin/activate; eval "$(lab/lab env)"
    python benchmarks/site_rerun.py [--rounds 1] [--short]

It first runs playbooks/sync.yml (the embedder's artifact; nothing changes when it is there,
not timed). Each round then removes the lab models with their storage (serving_stack_state=absent,
serving_stack_remove_storage=true), so the first run pulls the weights and starts every
release; the second run finds everything in place. It prints both times, the ratio, and
the slowest tasks of each run. ``--short`` (scripts/test.sh bench-short) only proves the
benchmark still runs: it keeps the lab's models and runs only site.yml's storage stage twice.
"""

from __future__ import absolute_import, division, print_function

import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECAP = re.compile(r"^(\S+)\s+:\s+ok=\d+\s+changed=(\d+)\s+unreachable=\d+\s+failed=(\d+)", re.M)


def playbook(*args, name="site.yml"):
    argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "inventory/lab",
            "playbooks/" + name] + list(args)
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1")
    start = time.monotonic()
    task_times, last, name = [], start, None
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
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
    return elapsed, changed, sorted(task_times, reverse=True)[:3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--short", action="store_true",
                        help="one round of the storage stage on the models in place: proves the benchmark runs")
    opts = parser.parse_args()
    if not os.environ.get("KUBECONFIG"):
        raise SystemExit('run `eval "$(lab/lab env)"` first')
    playbook(name="sync.yml")
    runs = ("--tags", "storage") if opts.short else ()
    for round_no in range(1, (1 if opts.short else opts.rounds) + 1):
        if not opts.short:
            playbook("--tags", "serving", "-e", "serving_stack_state=absent", "-e",
                     "serving_stack_remove_storage=true")
        first, changed_first, slow_first = playbook(*runs)
        second, changed_second, slow_second = playbook(*runs)
        print("round %d: first run %.1f s (changed=%d), second run %.1f s (changed=%d): second / first = %.2f"
              % (round_no, first, changed_first, second, changed_second, second / first))
        for label, slow in (("first", slow_first), ("second", slow_second)):
            print("  slowest tasks of the %s run: %s" % (label, "; ".join("%.1f s %s" % t for t in slow)))


if __name__ == "__main__":
    main()
