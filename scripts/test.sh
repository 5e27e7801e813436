#!/usr/bin/env bash
# The whole test suite: linters, ansible-test sanity, unit tests, integration tests
# through ansible-playbook, then the lab (a real single-node Kubernetes and a Harbor
# stand-in, built from source by lab/lab) and the tests that need it, a short pass of the
# benchmarks, and `lab down`.
# README's second command; .ci/run runs it after setup.
#   bash scripts/test.sh            # everything but the full benchmarks
#   bash scripts/test.sh unit lint  # chosen stages
#   bash scripts/test.sh bench      # the full benchmarks (benchmarks/README.md), lab up
# shellcheck disable=SC2317  # stage_* functions are called by name
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# shellcheck disable=SC1091
source .venv/bin/activate
export ANSIBLE_CONFIG="$ROOT/ansible.cfg" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0

ALL_STAGES=(lint sanity unit oldest lab-up integration registry cluster molecule bench-short lab-down)
OTHER_STAGES=(bench)
STAGES=("$@")
[[ ${#STAGES[@]} -gt 0 ]] || STAGES=("${ALL_STAGES[@]}")

stage_lint() {
  yamllint -s .
  ansible-lint
  antsibull-changelog lint
}

stage_sanity() {
  bash scripts/sanity.sh
}

stage_unit() {
  python -m pytest -q tests/unit
}

# The oldest end of the support matrix (scripts/support-matrix.env): lint, ansible-test sanity, the unit
# tests and the plan playbook tests again on its Python, ansible-core and kubernetes.core, kept in .venv-oldest
# and .collections-oldest (setup.sh makes them; the stages above ran on the newest end, .venv).
stage_oldest() {
  local venv="$ROOT/.venv-oldest" collections="$ROOT/.collections-oldest"
  AIPS_MATRIX_END=oldest AIPS_VENV="$venv" AIPS_COLLECTIONS="$collections" bash scripts/setup.sh
  export PATH="$venv/bin:$PATH" VIRTUAL_ENV="$venv" ANSIBLE_COLLECTIONS_PATH="$collections"
  ansible --version | sed -n 1p  # sed reads to the end: head may close the pipe under ansible (EPIPE)
  ansible-galaxy collection list kubernetes.core 2>/dev/null | grep -E '^kubernetes\.core'
  yamllint -s .
  ansible-lint
  AIPS_VENV="$venv" AIPS_COLLECTIONS="$collections" bash scripts/sanity.sh
  python -m pytest -q -o "pythonpath=$collections $ROOT/lab" tests/unit
  # the playbooks too: the plan through ansible-playbook (every rule's message) and no deprecation printed
  python -m pytest -q -n 2 -o "pythonpath=$collections $ROOT/lab" tests/integration/plan/test_plan_playbook.py \
    tests/integration/plan/test_no_deprecations.py
}

# No cluster is needed here, but the render test runs the helm the lab builds (lab-up runs first).
stage_integration() {
  eval "$(lab/lab env)"
  python -m pytest -q -n 2 tests/integration/plan tests/integration/hostpath_dirs tests/integration/collection \
    tests/integration/migrate tests/integration/render
}

# On a cold machine `lab up` builds from source for 15-20 minutes, with a core often idle while modules download and
# binaries link. When a run has stages before lab-up (the default list: lint, sanity, unit, oldest, which need no
# lab), lab up starts in the background before the first of them and the lab-up stage waits for it and prints its
# log; the summary line of lab-up is then only the wait, and the stage prints lab up's whole time. Warm, it takes
# seconds either way.
EARLY_LAB="$ROOT/build/lab-up-early"
start_lab_up_early() {
  rm -rf "$EARLY_LAB"
  mkdir -p "$EARLY_LAB"
  date +%s >"$EARLY_LAB/started"
  (
    set +e
    lab/lab up >"$EARLY_LAB/log" 2>&1
    echo $? >"$EARLY_LAB/rc.tmp" && mv "$EARLY_LAB/rc.tmp" "$EARLY_LAB/rc"
  ) &
  echo $! >"$EARLY_LAB/pid"
}

stage_lab-up() {
  if [[ ! -f "$EARLY_LAB/pid" ]]; then
    lab/lab up
    return
  fi
  local pid rc
  pid=$(cat "$EARLY_LAB/pid")
  echo "lab up started in the background before the first stage (pid $pid); waiting for it"
  while [[ ! -f "$EARLY_LAB/rc" ]] && kill -0 "$pid" 2>/dev/null; do sleep 2; done
  cat "$EARLY_LAB/log"
  rm -f "$EARLY_LAB/pid"
  [[ -f "$EARLY_LAB/rc" ]] || { echo "lab up (pid $pid) ended without a status"; return 1; }
  rc=$(cat "$EARLY_LAB/rc")
  echo "lab up: exit $rc, $(($(date +%s) - $(cat "$EARLY_LAB/started")))s since it started"
  return "$rc"
}

# model_sync and harbor_upload against a registry of their own on loopback, with the
# oras and helm the lab built; the air-gap bundle (bundle.yml with no registry reachable, from the
# lab's image layout, the real charts and MiniLM, then load.yml into such a registry).
stage_registry() {
  eval "$(lab/lab env)"
  python -m pytest -q -n 2 tests/integration/registry tests/integration/bundle
}

# Everything that needs the cluster: the lab's own acceptance tests, then model_storage, serving_stack, cache_gc and
# hardening in one run of four workers, then the air-gap runbook (bundle, load, site.yml by digest). Every test has its
# own slugs, namespaces and artifact, so the suites run side by side; a test spends much of its time waiting on the
# cluster (pods, Helm --wait), so four workers finish sooner than two on two cores (measured: 1834 s for the five
# suites with the air-gap runbook among them, where one suite after the other took about 2150 s). --dist loadscope
# keeps a module's tests on one worker, in order: the modules whose tests share one deployed stack
# (test_serving_stack.py, the Helm 4 module) build it once. (pytest-xdist 3.8's loadgroup does not group under pytest 9.2: the marks are ignored, pytest-dev/pytest-xdist#1386.)
# The air-gap runbook runs alone afterwards: it reads the lab registry's access log for a window and fails on any
# manifest request by tag for what its lock pins, and the EPP image comes through the nodes' registry.k8s.io mirror,
# which the other suites pull by tag (seen: it failed once beside them).
CLUSTER_SUITES=(tests/integration/model_storage tests/integration/serving_stack tests/integration/cache_gc
  tests/integration/hardening)
stage_cluster() {
  lab/lab status
  eval "$(lab/lab env)"
  python -m pytest -q -n 2 tests/lab
  python -m pytest -q -n 4 --dist loadscope --durations=15 "${CLUSTER_SUITES[@]}"
  python -m pytest -q tests/integration/airgap
}

# The molecule scenarios (molecule/README.md) on the lab: KUBECONFIG from `lab env` makes the
# shared default scenario use the lab as it is (its destroy never brings the lab down).
# MOLECULE_GLOB: this collection keeps its scenarios in molecule/, not extensions/molecule/. Every
# scenario's molecule.yml is merged onto the base .config/molecule/config.yml (molecule finds it in
# the git checkout by itself; named here so a copy without .git runs the same).
stage_molecule() {
  lab/lab status
  eval "$(lab/lab env)"
  export MOLECULE_GLOB="molecule/*/molecule.yml"
  local scenario start failed_scenarios=()
  for scenario in hostpath_dirs model_sync model_storage serving_stack site; do
    echo "--- molecule test -s $scenario"
    start=$SECONDS
    molecule --base-config .config/molecule/config.yml test -s "$scenario" || failed_scenarios+=("$scenario")
    echo "--- molecule $scenario: $((SECONDS - start))s"
  done
  [[ ${#failed_scenarios[@]} -eq 0 ]] || { echo "molecule: failed: ${failed_scenarios[*]}"; return 1; }
}

# The benchmarks (benchmarks/README.md) and the ratio lines each must print; a check never reads a timing.
BENCHMARKS=(
  "model_pull.py|^ratio pull/curl +[0-9.]+|^ratio verified/curl +[0-9.]+|^ratio HTTP/2 pull/HTTP/1.1 pull +[0-9.]+|^ratio as filed verified/curl +[0-9.]+"
  "model_sync_transfer.py|^push +model_sync .* ratio [0-9.]+ of curl|^pull +oras .* ratio [0-9.]+ of curl"
  "site_rerun.py|second / first = [0-9.]+|no-op / plan.yml = [0-9.]+"
  "pull_peers.py|^ratio verified/oras-py [0-9.]+|^ratio verified/huggingface_hub [0-9.]+|^ratio verified/faster peer [0-9.]+|^ratio verified/raw blob-to-disk [0-9.]+"
  "bundle_load.py|^ratio load.yml/oras cp [0-9.]+|^ratio modules in-process/oras cp [0-9.]+|^ratio load.yml deep/oras cp [0-9.]+|^load.yml again, everything there: .*nothing sent"
  "artifact_format.py|^ratio sync modelpack/hf-cache [0-9.]+|^ratio pull modelpack/hf-cache [0-9.]+|^same files: both formats' pulls"
)

# Run every benchmark with the given arguments: each must exit 0 and print its ratio lines.
run_benchmarks() {
  lab/lab status
  eval "$(lab/lab env)"
  local entry script pattern out rc start failed_benchmarks=()
  local -a patterns
  out=$(mktemp)
  for entry in "${BENCHMARKS[@]}"; do
    IFS='|' read -r -a patterns <<<"$entry"
    script=${patterns[0]}
    echo "--- python benchmarks/$script${*:+ $*}"
    start=$SECONDS
    set +e
    python "benchmarks/$script" "$@" 2>&1 | tee "$out"
    rc=${PIPESTATUS[0]}
    set -e
    if [[ $rc -eq 0 ]]; then
      for pattern in "${patterns[@]:1}"; do
        grep -Eq "$pattern" "$out" || { echo "benchmarks/$script printed no line matching: $pattern"; rc=1; }
      done
    fi
    echo "--- $script: exit $rc, $((SECONDS - start))s"
    [[ $rc -eq 0 ]] || failed_benchmarks+=("$script")
  done
  rm -f "$out"
  [[ ${#failed_benchmarks[@]} -eq 0 ]] || { echo "benchmarks: failed: ${failed_benchmarks[*]}"; return 1; }
}

# Each benchmark once on small sizes (--short), so that one that no longer runs fails here.
stage_bench-short() {
  run_benchmarks --short
}

# The full benchmarks; not in the default list (minutes, and site_rerun removes and redeploys the lab's models).
stage_bench() {
  run_benchmarks
}

# Stop the lab and check that nothing it started is left.
stage_lab-down() {
  AIPS_LAB_DOWN_TEST=1 python -m pytest -q tests/lab/test_lab_down.py
}

declare -a SUMMARY=()
failed=0
for i in "${!STAGES[@]}"; do
  if [[ ${STAGES[$i]} == lab-up && $i -gt 0 ]]; then
    start_lab_up_early
    break
  fi
done
for stage in "${STAGES[@]}"; do
  declare -F "stage_$stage" >/dev/null || {
    echo "test.sh: unknown stage $stage (use: ${ALL_STAGES[*]} ${OTHER_STAGES[*]})"
    exit 2
  }
  echo "=== $stage"
  start=$SECONDS
  # Not `if stage_x`: inside an if condition bash ignores set -e, so a failing command in the
  # middle of a stage would go unnoticed. The subshell keeps -e; its status is the stage's.
  set +e
  ( set -e; "stage_$stage" )
  rc=$?
  set -e
  if [[ $rc -eq 0 ]]; then result=ok; else result=FAILED; failed=1; fi
  SUMMARY+=("$(printf '%-12s %-7s %4ds' "$stage" "$result" $((SECONDS - start)))")
done
# A tool that writes its config through a rename can replace /dev/null with a
# regular file; catch it here rather than as a strange failure later.
if [[ ! -c /dev/null ]]; then
  echo "test.sh: /dev/null is no longer a character device: a test or tool replaced it"
  failed=1
fi
echo "=== summary"
printf '%s\n' "${SUMMARY[@]}"
exit $failed
