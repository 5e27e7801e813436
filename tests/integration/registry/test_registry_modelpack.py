# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CNCF ModelPack artifacts against a real registry, with a ModelPack client nobody here wrote.

model_sync publishes MiniLM; the independent client (PyPI ``modelpack-client``, which validates the
manifest, the config against the model-spec JSON schema and every blob) pulls it and gets the snapshot's
files byte for byte. The other way round, that client pushes the snapshot and the pull Job's script
(run under busybox, as in the ORAS image, with the real oras CLI) lays out a hub cache huggingface_hub
resolves offline, the same files. The hf-cache format still publishes and pulls the same way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys
import time
from pathlib import Path

import yaml

from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.tests.support import keys
from ansible_collections.ai_platform.serving.tests.support.hub import files_of
from ansible_collections.ai_platform.serving.tests.support.pull_pod import run_pull_script
from ansible_collections.ai_platform.serving.tests.support.registry import model_sync_vars
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_artifact

REPO = hub_fixture.MINILM_REPO
COMMIT = hub_fixture.MINILM_COMMIT
FOLDER = "models--" + REPO.replace("/", "--")
LOCK_HOST = "harbor.harbor.svc.cluster.local"


def snapshot_dir(hub):
    return os.path.join(hub, FOLDER, "snapshots", COMMIT)


def publish(run_role, registry, tools, tmp_path, hub, artifact, fmt=None):
    lock = tmp_path / ("%s.lock.yml" % artifact)
    overrides = {"model_sync_artifact_format": fmt} if fmt else {}
    models = [dict(repo_id=REPO, revision="main", tag="v1", source="local_cache", local_path=hub, artifact=artifact)]
    run = run_role("model_sync", model_sync_vars(registry, tools, tmp_path / "work", lock, models, **overrides))
    assert run.rc == 0, run
    entry = yaml.safe_load(lock.read_text())["models"]["%s/ai-models/%s:v1" % (LOCK_HOST, artifact)]
    return entry


def client(registry):
    from modelpack_client import ModelPackClient
    # the test registry asks for basic auth (htpasswd), as the lab's does; Harbor would hand out tokens
    return ModelPackClient(tls_verify=registry.ca, auth_backend="basic")


def pull_job(registry, tools, tmp_path, reference, digest):
    """Run the pull Job's script as its pod would (busybox sh, oras on PATH, the claim a directory), re-hash on."""
    run = run_pull_script(registry, tools["oras"], str(tmp_path), reference, digest, FOLDER, verify=True, http2=True)
    return Path(run.hub), run.marker


def resolve_offline(hub, tmp_path):
    script = ("import sys; from huggingface_hub import snapshot_download; "
              "print(snapshot_download(sys.argv[1], local_files_only=True))")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(hub), HF_HOME=str(tmp_path / "hf-home"))
    proc = subprocess.run([sys.executable, "-c", script, REPO], env=env, capture_output=True, check=False, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_model_sync_publishes_modelpack_that_an_independent_client_pulls_file_for_file(
        registry, tools, tmp_path, minilm_hub, run_role):
    entry = publish(run_role, registry, tools, tmp_path, minilm_hub, "minilm-modelpack")
    expected = files_of(snapshot_dir(minilm_hub))
    assert entry["file_count"] == len(expected) == 13
    assert entry["size"] == sum(len(v) for v in expected.values())     # no refs/main layer in ModelPack
    reference = "%s/ai-models/minilm-modelpack:v1" % registry.host
    config_path = registry.docker_config(str(tmp_path / "auth.json"))
    pulled = client(registry).pull(reference, str(tmp_path / "pulled"), config_path=config_path)
    manifest = pulled.manifest
    assert manifest["artifactType"] == "application/vnd.cncf.model.manifest.v1+json"
    assert manifest["config"]["mediaType"] == "application/vnd.cncf.model.config.v1+json"
    assert set(l["mediaType"] for l in manifest["layers"]) <= set(oci_artifact.MODELPACK_RAW_TYPES)
    kinds = dict((l["annotations"]["org.cncf.model.filepath"], l["mediaType"]) for l in manifest["layers"])
    assert kinds["model.safetensors"] == oci_artifact.WEIGHT and kinds["README.md"] == oci_artifact.DOC
    assert kinds["1_Pooling/config.json"] == oci_artifact.WEIGHT_CONFIG
    assert pulled.config["descriptor"]["name"] == REPO and pulled.config["descriptor"]["revision"] == COMMIT
    assert pulled.config["config"]["architecture"] == "BertModel"
    assert files_of(str(tmp_path / "pulled")) == expected

    # the pull Job lays out the hub cache huggingface_hub resolves offline, byte for byte
    hub, marker = pull_job(registry, tools, tmp_path, reference, entry["digest"])
    assert resolve_offline(hub, tmp_path) == str(hub / FOLDER / "snapshots" / COMMIT)
    assert files_of(str(hub / FOLDER / "snapshots" / COMMIT)) == expected
    assert (hub / FOLDER / "refs" / "main").read_text() == COMMIT
    assert (marker["model_files"], marker["commit"]) == (13, COMMIT)


def test_the_pull_job_lays_out_a_model_the_independent_client_pushed(registry, tools, tmp_path, minilm_hub):
    from modelpack_client import ModelDescriptor, ModelLayer, ModelPackConfig, ModelTechnicalConfig
    snapshot = snapshot_dir(minilm_hub)
    expected = files_of(snapshot)
    layers = [ModelLayer(os.path.realpath(os.path.join(snapshot, rel)), artifact_path=rel,
                         media_type=oci_artifact.modelpack_media_type(rel)) for rel in sorted(expected)]
    config = ModelPackConfig(descriptor=ModelDescriptor(name="all-MiniLM-L6-v2"),
                             config=ModelTechnicalConfig(format="safetensors"))
    reference = "%s/ai-models/minilm-by-another-client:v1" % registry.host
    pushed = client(registry).push(reference, layers=layers, config=config,
                                   config_path=registry.docker_config(str(tmp_path / "auth.json")))
    hub, marker = pull_job(registry, tools, tmp_path, reference, pushed.digest)
    # no revision annotation: the snapshot is named by the manifest digest
    commit = pushed.digest[len("sha256:"):][:40]
    assert resolve_offline(hub, tmp_path) == str(hub / FOLDER / "snapshots" / commit)
    assert files_of(str(hub / FOLDER / "snapshots" / commit)) == expected
    assert (marker["model_files"], marker["digest"]) == (13, pushed.digest)


def test_the_hf_cache_format_still_publishes_and_a_format_change_sends_only_the_new_manifest_and_config(
        registry, tools, tmp_path, minilm_hub, run_role):
    old = publish(run_role, registry, tools, tmp_path, minilm_hub, "minilm-formats", fmt="hf-cache")
    mark = registry.log_mark()
    new = publish(run_role, registry, tools, tmp_path, minilm_hub, "minilm-formats")
    assert new["digest"] != old["digest"]
    time.sleep(0.3)  # let the registry flush its access log
    sent = [path for method, path in registry.requests_since(mark) if method == "PUT" and "digest=" in path]
    # every file blob was already there (same bytes in either format): only the ModelPack config is new
    assert len(sent) == 1, sent
    reference = "%s/ai-models/minilm-formats:v1" % registry.host
    hub, marker = pull_job(registry, tools, tmp_path, reference, old["digest"])
    assert resolve_offline(hub, tmp_path) == str(hub / FOLDER / "snapshots" / COMMIT)
    assert files_of(str(hub / FOLDER / "snapshots" / COMMIT)) == files_of(snapshot_dir(minilm_hub))
    assert marker["model_files"] == 13


# Signatures: the site's key signs on the internet side; a check reads the manifest and the signature only


def key_pair(_tmp_path, _name):
    return keys.key_pair()


def signature_status(registry, artifact, digest, public_key):
    return keys.signature_status(registry, "ai-models/" + artifact, digest, public_key)


def test_a_signed_sync_attaches_one_signature_a_rerun_keeps_it_and_the_check_needs_no_weights(
        registry, tools, tmp_path, minilm_hub, run_role):
    private, public = key_pair(tmp_path, "site")
    lock = tmp_path / "signed.lock.yml"
    models = [dict(repo_id=REPO, revision="main", tag="v1", source="local_cache", local_path=minilm_hub,
                   artifact="minilm-signed")]
    variables = model_sync_vars(registry, tools, tmp_path / "work", lock, models, model_sync_signing_key=private)
    run = run_role("model_sync", variables)
    assert run.rc == 0, run
    assert "signature sha256:" in run.output and " attached" in run.output, run
    assert private.splitlines()[1] not in run.output
    digest = yaml.safe_load(lock.read_text())["models"]["%s/ai-models/minilm-signed:v1" % LOCK_HOST]["digest"]
    status = signature_status(registry, "minilm-signed", digest, public)
    assert status["status"] == "valid", status
    # a re-run finds its signature and attaches none
    again = run_role("model_sync", variables)
    assert again.rc == 0 and again.changed == 0, again
    assert "already attached" in again.output, again
    # another key's public half does not verify it
    _other_private, other_public = key_pair(tmp_path, "other")
    status = signature_status(registry, "minilm-signed", digest, other_public)
    assert status["status"] == "invalid" and "another key" in " ".join(status["problems"]), status
    # an unsigned artifact is unsigned
    entry = publish(run_role, registry, tools, tmp_path, minilm_hub, "minilm-unsigned")
    status = signature_status(registry, "minilm-unsigned", entry["digest"], public)
    assert status["status"] == "unsigned" and status["problems"] == [
        "no signature is attached to ai-models/minilm-unsigned@%s" % entry["digest"]], status


def storage_preflight(registry, artifact, public_key, digest=None):
    """model_storage_state's preflight (the one site.yml runs before anything changes) for one model; it stops
    before the cluster is read when an artifact is unsigned, so no cluster is needed to see the refusal."""
    from ansible_collections.ai_platform.serving.plugins.modules import model_storage_state
    reference = "%s/ai-models/%s%s" % (registry.host, artifact, "@" + digest if digest else ":v1")
    record = {"slug": "minilm", "namespace": "minilm",
              "storage": {"oci": {"reference": reference}, "size": "1Gi", "size_bytes": 1 << 30}}
    params = dict(registry_username=registry.user, registry_password=registry.password, registry_ca_file=registry.ca,
                  registry_validate_certs=True, timeout=30, registry_endpoint=None, lock_file=None, require_lock=False,
                  headroom_percent=10, records=[record], require_signed=True, signing_public_key=public_key)
    found, unreadable, misfits, unsigned = model_storage_state.resolve_all(params)
    assert unreadable == [] and misfits == [], (unreadable, misfits)
    return found, unsigned


def test_the_storage_preflight_refuses_each_fault_naming_the_model(registry, tools, tmp_path, minilm_hub, run_role):
    private, public = key_pair(tmp_path, "site")
    variables = model_sync_vars(registry, tools, tmp_path / "work", tmp_path / "lock.yml", [
        dict(repo_id=REPO, revision="main", tag="v1", source="local_cache", local_path=minilm_hub,
             artifact="minilm-preflight")], model_sync_signing_key=private)
    assert run_role("model_sync", variables).rc == 0
    found, unsigned = storage_preflight(registry, "minilm-preflight", public)
    assert unsigned == [] and found["minilm"]["signature"].startswith("sha256:"), unsigned

    # unsigned
    publish(run_role, registry, tools, tmp_path, minilm_hub, "minilm-bare")
    _found, unsigned = storage_preflight(registry, "minilm-bare", public)
    assert len(unsigned) == 1 and unsigned[0].startswith("minilm: ") and "no signature is attached" in unsigned[0]
    assert "aips_require_signed: false" in unsigned[0]
    # signed by another key
    _other_private, other_public = key_pair(tmp_path, "other")
    _found, unsigned = storage_preflight(registry, "minilm-preflight", other_public)
    assert len(unsigned) == 1 and unsigned[0].startswith("minilm: ") and "made by another key" in unsigned[0], unsigned
    # a signature for other files: the signed revision's signature attached to one whose README.md differs
    signature = fetch_signature(registry, tools, tmp_path, "minilm-preflight", found["minilm"]["digest"])
    second = hub_fixture.edited_hub(tmp_path, "v2", {"README.md": b"A second revision.\n"}, NEW_COMMIT)
    entry = publish(run_role, registry, tools, tmp_path, second, "minilm-other-files")
    attach(registry, tools, tmp_path, "minilm-other-files", entry["digest"], signature)
    _found, unsigned = storage_preflight(registry, "minilm-other-files", public)
    assert len(unsigned) == 1 and unsigned[0].startswith("minilm: "), unsigned
    assert "README.md: the artifact has sha256:" in unsigned[0] and "the signature sha256:" in unsigned[0], unsigned


NEW_COMMIT = "0" * 39 + "2"


def oras(registry, tools, tmp_path, *args, **kwargs):
    config = registry.docker_config(str(tmp_path / "auth.json"))
    return subprocess.run([tools["oras"]] + list(args) + ["--registry-config", config, "--ca-file", registry.ca],
                          capture_output=True, check=True, text=True, **kwargs).stdout


def fetch_signature(registry, tools, tmp_path, artifact, digest):
    import json
    repository = "%s/ai-models/%s" % (registry.host, artifact)
    tree = json.loads(oras(registry, tools, tmp_path, "discover", "--format", "json", "%s@%s" % (repository, digest)))
    referrer = [r for r in tree["referrers"] if r["artifactType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"][0]
    layer = json.loads(oras(registry, tools, tmp_path, "manifest", "fetch", "%s@%s" % (repository, referrer["digest"])))
    path = tmp_path / "signature.json"
    oras(registry, tools, tmp_path, "blob", "fetch", "--output", str(path), "%s@%s" % (repository, layer["layers"][0]["digest"]))
    return path.read_bytes()


def attach(registry, tools, tmp_path, artifact, digest, signature):
    work = tmp_path / "attach"
    work.mkdir(exist_ok=True)
    (work / "model.sigstore.json").write_bytes(signature)
    kind = "application/vnd.dev.sigstore.bundle.v0.3+json"
    oras(registry, tools, tmp_path, "attach", "%s/ai-models/%s@%s" % (registry.host, artifact, digest),
         "--artifact-type", kind, "model.sigstore.json:" + kind, cwd=str(work))
