#!/usr/bin/env bash
# Set up this checkout for in-repo use, on a fresh machine that reaches only
# PyPI, Debian and the Go module proxy (no Ansible Galaxy).
#
#   .venv/                      Python venv with the pinned requirements*.txt and the ansible-core of the
#                               support matrix's end that fits the Python (scripts/support-matrix.env)
#   .collections/ansible_collections/kubernetes/core   from the `ansible` wheel of that end
#   .collections/ansible_collections/ai_platform/serving -> this checkout
#
# The Python: PYTHON=... if given, else the newest supported one found (python3.14 ... python3 on PATH,
# then pyenv's installed versions). Python >= 3.12 gets the newest end (ansible-core 2.21), 3.11 the
# oldest (2.19). AIPS_MATRIX_END=oldest|newest asks for one end (and a Python that fits it);
# AIPS_VENV and AIPS_COLLECTIONS put the venv and the collections elsewhere (scripts/test.sh's
# `oldest` stage keeps the oldest end in .venv-oldest and .collections-oldest beside the newest).
#
# Idempotent: a second run only checks. ansible.cfg points Ansible at
# .collections, so `source .venv/bin/activate` is all a shell needs afterwards.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/support-matrix.env disable=SC1091
source "$ROOT/scripts/support-matrix.env"
END="${AIPS_MATRIX_END:-}"
CACHE="${AIPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ai-platform-serving}"
VENV="${AIPS_VENV:-$ROOT/.venv}"
COLLECTIONS="${AIPS_COLLECTIONS:-$ROOT/.collections}/ansible_collections"

log() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: %s\n' "$*" >&2; exit 1; }

# "3.13" of an interpreter that runs, or nothing.
python_minor() { "$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || true; }

# 0 when minor version $1 is within [$2, $3] (dotted, numeric compare).
minor_between() {
  local v=$1 lo=$2 hi=$3
  [[ "$(printf '%s\n%s\n' "$lo" "$v" | sort -V | head -1)" == "$lo" ]] \
    && [[ "$(printf '%s\n%s\n' "$v" "$hi" | sort -V | head -1)" == "$v" ]]
}

# The end of the matrix an interpreter's minor version belongs to, or nothing.
end_for() {
  if minor_between "$1" "$NEWEST_PYTHON_MIN" "$NEWEST_PYTHON_MAX"; then echo newest
  elif [[ "$1" == "$OLDEST_PYTHON" ]]; then echo oldest
  fi
}

# Every interpreter worth trying, newest names first: PATH, then pyenv's installed versions.
python_candidates() {
  local name dir
  for name in python3.14 python3.13 python3.12 python3.11 python3; do
    command -v "$name" 2>/dev/null || true
  done
  if command -v pyenv >/dev/null 2>&1; then
    for dir in "$(pyenv root)"/versions/*/bin; do
      for name in python3.14 python3.13 python3.12 python3.11; do
        [[ -x "$dir/$name" ]] && echo "$dir/$name"
      done
    done
  fi
  return 0
}

# Choose PYTHON and END: the caller's PYTHON as it is, else the newest candidate that fits END (or any end).
choose_python() {
  local found="" found_minor="" candidate minor
  if [[ -n "${PYTHON:-}" ]]; then
    minor="$(python_minor "$PYTHON")"
    [[ -n "$minor" ]] || die "PYTHON=$PYTHON does not run"
    found="$PYTHON" found_minor="$minor"
  else
    while IFS= read -r candidate; do
      minor="$(python_minor "$candidate")"
      [[ -n "$minor" && -n "$(end_for "$minor")" ]] || continue
      [[ -z "$END" || "$(end_for "$minor")" == "$END" ]] || continue
      if [[ -z "$found" ]] || [[ "$(printf '%s\n%s\n' "$found_minor" "$minor" | sort -V | tail -1)" != "$found_minor" ]]; then
        found="$candidate" found_minor="$minor"
      fi
    done < <(python_candidates)
    [[ -n "$found" ]] || die "no supported Python found for the ${END:-newest or oldest} end of the support matrix" \
      "(newest: $NEWEST_PYTHON_MIN to $NEWEST_PYTHON_MAX, oldest: $OLDEST_PYTHON; scripts/support-matrix.env)." \
      "Install one (Debian 12's python3 is $OLDEST_PYTHON) or name it with PYTHON=/path/to/python3.X"
  fi
  local fits
  fits="$(end_for "$found_minor")"
  [[ -n "$fits" ]] || die "$found is Python $found_minor, outside the support matrix" \
    "(newest end: $NEWEST_PYTHON_MIN to $NEWEST_PYTHON_MAX, oldest end: $OLDEST_PYTHON)"
  [[ -z "$END" || "$END" == "$fits" ]] || die "$found is Python $found_minor, which fits the $fits end, not $END"
  PYTHON="$found"
  END="$fits"
  if [[ "$END" == newest ]]; then
    ANSIBLE_CORE_VERSION="$NEWEST_ANSIBLE_CORE" ANSIBLE_BUNDLE_VERSION="$NEWEST_ANSIBLE_BUNDLE"
    KUBERNETES_CORE_VERSION="$NEWEST_KUBERNETES_CORE"
  else
    ANSIBLE_CORE_VERSION="$OLDEST_ANSIBLE_CORE" ANSIBLE_BUNDLE_VERSION="$OLDEST_ANSIBLE_BUNDLE"
    KUBERNETES_CORE_VERSION="$OLDEST_KUBERNETES_CORE"
  fi
  log "$END end of the support matrix: Python $found_minor ($PYTHON), ansible-core $ANSIBLE_CORE_VERSION," \
    "kubernetes.core $KUBERNETES_CORE_VERSION"
}

ensure_venv() {
  local want_minor
  want_minor="$(python_minor "$PYTHON")"
  if [[ -x "$VENV/bin/python" && "$(python_minor "$VENV/bin/python")" != "$want_minor" ]]; then
    log "venv $VENV is not Python $want_minor: making it anew"
    rm -rf "$VENV"
  fi
  if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating venv $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha256"
  local want
  want="$( (cat "$ROOT/requirements.txt" "$ROOT/requirements-nodeps.txt"; echo "ansible-core==$ANSIBLE_CORE_VERSION") \
    | sha256sum | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "venv up to date"
    return
  fi
  log "installing pinned Python requirements"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$ROOT/requirements.txt" \
    "ansible-core==$ANSIBLE_CORE_VERSION"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$ROOT/requirements-nodeps.txt"
  echo "$want" >"$stamp"
}

ensure_kubernetes_core() {
  local dest="$COLLECTIONS/kubernetes/core"
  if [[ -f "$dest/MANIFEST.json" ]] && grep -q "\"version\": \"$KUBERNETES_CORE_VERSION\"" "$dest/MANIFEST.json"; then
    log "kubernetes.core $KUBERNETES_CORE_VERSION present"
    return
  fi
  mkdir -p "$CACHE/wheels"
  local wheels=("$CACHE/wheels/ansible-$ANSIBLE_BUNDLE_VERSION"-*.whl)
  if [[ ! -f "${wheels[0]}" ]]; then
    log "downloading the ansible $ANSIBLE_BUNDLE_VERSION wheel (kubernetes.core source)"
    "$VENV/bin/pip" download --quiet --disable-pip-version-check --no-deps \
      -d "$CACHE/wheels" "ansible==$ANSIBLE_BUNDLE_VERSION"
    wheels=("$CACHE/wheels/ansible-$ANSIBLE_BUNDLE_VERSION"-*.whl)
  fi
  local wheel="${wheels[0]}"
  log "extracting kubernetes.core from $(basename "$wheel")"
  rm -rf "$dest"
  mkdir -p "$COLLECTIONS"
  "$VENV/bin/python" - "$wheel" "$(dirname "$COLLECTIONS")" <<'PY'
import sys
import zipfile

wheel, target = sys.argv[1], sys.argv[2]
prefix = "ansible_collections/kubernetes/core/"
with zipfile.ZipFile(wheel) as archive:
    members = [name for name in archive.namelist() if name.startswith(prefix)]
    if not members:
        sys.exit("setup: %s holds no %s" % (wheel, prefix))
    archive.extractall(target, members)
PY
  grep -q "\"version\": \"$KUBERNETES_CORE_VERSION\"" "$dest/MANIFEST.json" \
    || { log "kubernetes.core in the wheel is not $KUBERNETES_CORE_VERSION"; exit 1; }
}

ensure_self_link() {
  local link="$COLLECTIONS/ai_platform/serving"
  mkdir -p "$COLLECTIONS/ai_platform"
  if [[ "$(readlink "$link" 2>/dev/null || true)" != "$ROOT" ]]; then
    log "linking $link -> $ROOT"
    rm -rf "$link"
    ln -s "$ROOT" "$link"
  fi
}

choose_python
ensure_venv
ensure_kubernetes_core
ensure_self_link
log "done: source $VENV/bin/activate (ansible.cfg sets the collections path)"
