#!/usr/bin/env bash
# README's first command: set up this checkout and run the main job.
# Today the main job is the model plan of the example air-gapped RKE2 inventory
# (the seed's on-prem example): every name, path and URI the roles will apply,
# validated, with no cluster touched. The full lab demo replaces it as the
# serving roles land.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
# shellcheck disable=SC1091
source .venv/bin/activate
# The plan only checks that a Harbor token is set; the demo supplies a placeholder.
AIPS_HARBOR_TOKEN="${AIPS_HARBOR_TOKEN:-demo-placeholder}" \
  ansible-playbook -i inventory/rke2 playbooks/plan.yml -e "aips_plan_output=$ROOT/build/plan-rke2.yml" "$@"
echo "demo: the full plan records are in build/plan-rke2.yml"
