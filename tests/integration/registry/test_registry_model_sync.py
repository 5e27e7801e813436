# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_sync role against a real registry with the real MiniLM weights.

The module fixture ``published`` pushes the model once (per xdist worker); every test
starts from that state and uses its own tags for anything it adds.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.tests.support.registry import model_sync_vars
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.oci_archive import sha256_bytes, sha256_file

REPO = hub_fixture.MINILM_REPO
COMMIT = hub_fixture.MINILM_COMMIT
NEW_COMMIT = "0" * 39 + "1"
UPLOADS = ("PUT", "PATCH", "POST")


def role_vars(registry, tools, tmp_path, hub, revision="main", tag="v1", **overrides):
    models = [dict(repo_id=REPO, revision=revision, tag=tag, source="local_cache", local_path=hub,
                   artifact="all-minilm-l6-v2")]
    return model_sync_vars(registry, tools, LOCK.parent / "work", LOCK, models, **overrides)


LOCK = None


@pytest.fixture(scope="module", autouse=True)
def lock_file(tmp_path_factory):
    global LOCK
    LOCK = tmp_path_factory.mktemp("lock") / "models.lock.yml"
    return LOCK


def read_lock(tag="v1"):
    return yaml.safe_load(LOCK.read_text())["models"]["harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:" + tag]


@pytest.fixture(scope="module")
def published(registry, tools, tmp_path_factory, minilm_hub, lock_file, module_run_role):
    run = module_run_role("model_sync", role_vars(registry, tools, None, minilm_hub))
    assert run.rc == 0, run
    assert run.changed >= 1, run
    return run


def uploads_since(registry, mark):
    time.sleep(0.3)  # let the registry flush its access log
    return [r for r in registry.requests_since(mark) if r[0] in UPLOADS]


def uploaded_digests(requests):
    found = set()
    for method, path in requests:
        if method == "PUT" and "digest=sha256%3A" in path:
            found.add("sha256:" + path.split("digest=sha256%3A", 1)[1].split("&", 1)[0])
    return found


def sha256_text(text):
    return sha256_bytes(text.encode())


def test_publish_pull_and_resolve_offline(registry, tools, tmp_path, minilm_hub, published):
    entry = read_lock()
    assert entry["revision"] == COMMIT
    assert entry["repo_id"] == REPO
    assert entry["file_count"] == 13
    assert entry["digest"].startswith("sha256:")
    assert entry["pinned_reference"] == "harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2@" + entry["digest"]
    snapshot = os.path.join(minilm_hub, "models--sentence-transformers--all-MiniLM-L6-v2", "snapshots", COMMIT)
    # a ModelPack artifact: the files alone (no refs/main layer)
    assert entry["size"] == sum(os.path.getsize(os.path.join(d, f)) for d, _s, fs in os.walk(snapshot) for f in fs)

    # Pull it back with the oras CLI into an empty snapshot directory (ModelPack titles are paths in the
    # snapshot), point refs/main at it as the pull Job does, and let huggingface_hub resolve it offline.
    # (tests/integration/registry/test_registry_modelpack.py runs the pull Job's own script and a ModelPack client.)
    hub = tmp_path / "pulled" / "hub"
    target = hub / "models--sentence-transformers--all-MiniLM-L6-v2" / "snapshots" / COMMIT
    target.mkdir(parents=True)
    (target.parent.parent / "refs").mkdir()
    (target.parent.parent / "refs" / "main").write_text(COMMIT)
    config = registry.docker_config(str(tmp_path / "auth.json"))
    pulled = "%s/ai-models/all-minilm-l6-v2@%s" % (registry.host, entry["digest"])
    proc = subprocess.run([tools["oras"], "pull", "--registry-config", config, "--ca-file", registry.ca, pulled],
                          cwd=str(target), capture_output=True, check=False, text=True)
    assert proc.returncode == 0, proc.stderr
    script = ("import sys; from huggingface_hub import snapshot_download; "
              "print(snapshot_download(sys.argv[1], local_files_only=True))")
    env = dict(os.environ, HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(hub), HF_HOME=str(tmp_path / "hf-home"))
    proc = subprocess.run([sys.executable, "-c", script, REPO], env=env, capture_output=True, check=False, text=True)
    assert proc.returncode == 0, proc.stderr
    resolved = proc.stdout.strip()
    assert resolved == str(target)
    weights = os.path.join(resolved, "model.safetensors")
    assert not os.path.islink(weights)
    assert sha256_file(weights) == sha256_file(os.path.join(snapshot, "model.safetensors"))


def test_unchanged_rerun_sends_no_blob_bytes(registry, tools, tmp_path, minilm_hub, run_role, published):
    before = read_lock()
    mark = registry.log_mark()
    registry.relay.reset()
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, minilm_hub))
    assert run.rc == 0, run
    assert run.changed == 0, run
    assert uploads_since(registry, mark) == []
    # Only TLS handshakes and two manifest GETs travel; far below the smallest layer set.
    print("unchanged re-run: %d bytes sent to the registry" % registry.relay.to_upstream)
    assert registry.relay.to_upstream < 32 * 1024
    assert read_lock() == before


def test_check_mode_reports_a_new_revision_without_pushing(registry, tools, tmp_path, minilm_hub, run_role, published):
    hub = new_revision(tmp_path, minilm_hub)
    mark = registry.log_mark()
    lock_before = LOCK.read_text()
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, hub, revision=NEW_COMMIT, tag="v1-check"),
                   check=True)
    assert run.rc == 0, run
    assert run.changed >= 1, run
    assert uploads_since(registry, mark) == []
    assert LOCK.read_text() == lock_before


def new_revision(tmp_path, minilm_hub):
    """A copy of the cache with a second commit whose README.md differs (a new git blob)."""
    hub = str(tmp_path / "hub2")
    if os.path.exists(hub):
        return hub
    shutil.copytree(minilm_hub, hub, symlinks=True)
    readme = tmp_path / "README.md"
    repo = os.path.join(hub, "models--sentence-transformers--all-MiniLM-L6-v2")
    shutil.copyfile(os.path.join(repo, "snapshots", COMMIT, "README.md"), str(readme))
    with open(str(readme), "a") as handle:
        handle.write("\nA second revision.\n")
    model_dir = tmp_path / "model2"
    shutil.copytree(os.path.join(repo, "snapshots", COMMIT), str(model_dir))
    shutil.copyfile(str(readme), str(model_dir / "README.md"))
    hub_fixture.build_hub_cache(str(model_dir), hub, REPO, NEW_COMMIT)
    return hub


def test_one_changed_file_sends_only_that_layer(registry, tools, tmp_path, minilm_hub, run_role, published):
    hub = new_revision(tmp_path, minilm_hub)
    readme = os.path.join(hub, "models--sentence-transformers--all-MiniLM-L6-v2", "snapshots", NEW_COMMIT, "README.md")
    mark = registry.log_mark()
    registry.relay.reset()
    # A new tag in the same repository: blobs already there are skipped by digest.
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, hub, revision=NEW_COMMIT, tag="v1-next"))
    assert run.rc == 0, run
    assert run.changed >= 1, run
    sent = uploaded_digests(uploads_since(registry, mark))
    # The changed README and the new ModelPack config (its revision and diffIds) are the only blobs; every other
    # layer was skipped.
    manifest = json.loads(subprocess.run(
        [tools["oras"], "manifest", "fetch", "--registry-config", registry.docker_config(str(tmp_path / "auth.json")),
         "--ca-file", registry.ca, "%s/ai-models/all-minilm-l6-v2:v1-next" % registry.host],
        capture_output=True, check=True, text=True).stdout)
    assert sent == {sha256_file(readme), manifest["config"]["digest"]}, sent
    readme_size = os.path.getsize(readme)
    print("one changed file (%d bytes): %d bytes sent" % (readme_size, registry.relay.to_upstream))
    assert registry.relay.to_upstream < readme_size + 64 * 1024
    assert read_lock("v1-next")["revision"] == NEW_COMMIT
    assert read_lock()["revision"] == COMMIT


def test_corrupted_file_is_refused_before_any_push(registry, tools, tmp_path, minilm_hub, run_role, published):
    hub = str(tmp_path / "corrupt")
    shutil.copytree(minilm_hub, hub, symlinks=True)
    snapshot = os.path.join(hub, "models--sentence-transformers--all-MiniLM-L6-v2", "snapshots", COMMIT)
    blob = os.path.realpath(os.path.join(snapshot, "model.safetensors"))
    with open(blob, "r+b") as handle:
        handle.seek(1000)
        handle.write(b"\x00corrupt")
    mark = registry.log_mark()
    lock_before = LOCK.read_text()
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, hub, model_sync_models=[dict(
        repo_id=REPO, revision="main", tag="corrupt", source="local_cache", local_path=hub)]))
    assert run.rc != 0, run
    assert "model.safetensors" in run.output and "failed verification" in run.output, run
    time.sleep(0.3)
    assert registry.requests_since(mark) == []
    assert LOCK.read_text() == lock_before


def test_wrong_password_names_the_registry_and_hides_it(registry, tools, tmp_path, minilm_hub, run_role, published):
    wrong = "Wr0ng-" + os.urandom(8).hex()
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, minilm_hub, model_sync_registry_token=wrong),
                   verbosity=4)
    assert run.rc != 0, run
    assert "registry %s rejected the credentials" % registry.relay_host in run.output, run
    assert wrong not in run.output


def test_real_password_never_printed_at_vvvv(registry, tools, tmp_path, minilm_hub, run_role, published):
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, minilm_hub), verbosity=4)
    assert run.rc == 0, run
    assert registry.password not in run.output


def test_plain_directory_source(registry, tools, tmp_path, run_role, published):
    model_dir = hub_fixture.minilm_dir()
    run = run_role("model_sync", role_vars(registry, tools, tmp_path, None, model_sync_models=[dict(
        repo_id=REPO, revision=COMMIT, tag="from-dir", source="local_dir", local_path=model_dir,
        artifact="all-minilm-l6-v2")]))
    assert run.rc == 0, run
    lock = yaml.safe_load(LOCK.read_text())["models"]
    entry = lock["harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:from-dir"]
    # Same files, same commit: the reproducible manifest gives the digest of the cache-built artifact.
    assert entry["file_count"] == 13
    first = subprocess.run([tools["oras"], "manifest", "fetch", "--descriptor", "--registry-config",
                            registry.docker_config(str(tmp_path / "a.json")), "--ca-file", registry.ca,
                            "%s/ai-models/all-minilm-l6-v2:from-dir" % registry.host],
                           capture_output=True, check=False, text=True)
    assert entry["digest"] in first.stdout
