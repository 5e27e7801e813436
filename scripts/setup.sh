#!/usr/bin/env bash
# Set up this checkout for in-repo use, on a fresh machine that reaches only
# PyPI, Debian and the Go module proxy (no Ansible Galaxy).
#
#   .venv/                      Python venv with the pinned requirements*.txt
#   .collections/ansible_collections/kubernetes/core   from the `ansible` wheel
#   .collections/ansible_collections/ai_platform/serving -> this checkout
#
# Idempotent: a second run only checks. ansible.cfg points Ansible at
# .collections, so `source .venv/bin/activate` is all a shell needs afterwards.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYTHON="${PYTHON:-python3}"
ANSIBLE_BUNDLE_VERSION="12.3.0"        # carries kubernetes.core 6.2.0
KUBERNETES_CORE_VERSION="6.2.0"
CACHE="${AIPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ai-platform-serving}"
VENV="$ROOT/.venv"
COLLECTIONS="$ROOT/.collections/ansible_collections"

log() { printf 'setup: %s\n' "$*"; }

ensure_venv() {
  if [[ ! -x "$VENV/bin/python" ]]; then
    log "creating venv $VENV"
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.requirements.sha256"
  local want
  want="$(cat "$ROOT/requirements.txt" "$ROOT/requirements-nodeps.txt" | sha256sum | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "venv up to date"
    return
  fi
  log "installing pinned Python requirements"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --upgrade pip
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$ROOT/requirements.txt"
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
  "$VENV/bin/python" - "$wheel" "$ROOT/.collections" <<'PY'
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

ensure_venv
ensure_kubernetes_core
ensure_self_link
log "done: source $VENV/bin/activate (ansible.cfg sets the collections path)"
