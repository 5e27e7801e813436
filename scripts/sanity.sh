#!/usr/bin/env bash
# Run ansible-test sanity on this checkout. ansible-test needs the collection at
# ansible_collections/ai_platform/serving, so copy the files git knows (tracked and
# not ignored) into build/sanity/ with kubernetes.core beside it, and test there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# AIPS_VENV / AIPS_COLLECTIONS: the end of the support matrix to test on (scripts/setup.sh; default .venv, .collections).
VENV="${AIPS_VENV:-$ROOT/.venv}"
COLLECTIONS="${AIPS_COLLECTIONS:-$ROOT/.collections}"
TREE="$ROOT/build/sanity-$(basename "$VENV")/ansible_collections"
DEST="$TREE/ai_platform/serving"

# ansible-test fetches a get-pip script from a host these machines cannot reach;
# give it a stand-in that bootstraps pip from ensurepip and PyPI instead.
PIP_VERSION="$("$VENV/bin/python" -c 'import re, ansible_test._internal.python_requirements as m, inspect; print(re.search(r"pip=.([0-9.]+).", inspect.getsource(m)).group(1))')"
GET_PIP="$HOME/.ansible/test/cache/get_pip_${PIP_VERSION//./_}.py"
mkdir -p "$(dirname "$GET_PIP")"
cp "$ROOT/scripts/ansible_test_get_pip.py" "$GET_PIP"

rm -rf "$DEST"
mkdir -p "$DEST" "$TREE/kubernetes"
# lab/ and benchmarks/ are project tooling, not collection content (galaxy.yml
# build_ignore keeps them out of the tarball), so sanity skips them too.
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard -- . ':!lab' ':!benchmarks' \
  | while IFS= read -r -d '' f; do [[ -e "$f" || -L "$f" ]] && printf '%s\0' "$f"; done \
  | xargs -0 cp --parents -P -t "$DEST")
ln -sfn "$COLLECTIONS/ansible_collections/kubernetes/core" "$TREE/kubernetes/core"
cd "$DEST"
# git metadata lets ansible-test list exactly the copied files.
git init -q . && git add -A && git -c user.email=ci@localhost -c user.name=ci commit -qm sanity
PYTHON_MINOR="$("$VENV/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
exec "$VENV/bin/ansible-test" sanity --venv --python "$PYTHON_MINOR" --color no "$@"
