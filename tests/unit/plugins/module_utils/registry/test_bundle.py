# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The air-gap bundle's lock, verification, parts and image/chart decisions, on files built here."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import bundle
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive as oa

TITLE = "models--org--m/snapshots/" + "a" * 40 + "/model.safetensors"


def blob(layout, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    os.makedirs(os.path.join(layout, "blobs", "sha256"), exist_ok=True)
    with open(bundle.blob_path(layout, digest), "wb") as handle:
        handle.write(data)
    return {"digest": digest, "size": len(data)}


def model_layout(bundle_dir, name="m", tag="v1", weights=b"weights" * 100):
    """A model layout as oras writes one: config, one titled layer, a manifest tagged ``tag``."""
    layout = os.path.join(str(bundle_dir), "models", name)
    config = blob(layout, b"{}")
    layer = dict(blob(layout, weights), annotations={"org.opencontainers.image.title": TITLE})
    raw = json.dumps({"schemaVersion": 2, "config": config, "layers": [layer]}).encode()
    manifest = blob(layout, raw)
    with open(os.path.join(layout, "index.json"), "w") as handle:
        json.dump({"schemaVersion": 2, "manifests": [dict(manifest, annotations={bundle.REF_NAME: tag})]}, handle)
    descriptor, parsed = bundle.layout_manifest(layout, tag)
    blobs = bundle.manifest_blobs(descriptor, parsed)
    return dict(kind="model", name=name, path="models/" + name, tag=tag, digest=descriptor["digest"],
                size=sum(b["size"] for b in blobs), sha256=bundle.blobs_checksum(blobs), blobs=blobs)


def file_item(bundle_dir, kind, name, data):
    path = bundle.item_path(kind, name)
    full = os.path.join(str(bundle_dir), path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(data)
    return bundle.file_record(kind, name, "src", path, str(bundle_dir), "sha256:" + "1" * 64)


@pytest.fixture
def whole(tmp_path):
    """A bundle with one image, one chart and one model, and its lock written."""
    items = [file_item(tmp_path, "image", "sim.tar", b"image" * 1000),
             file_item(tmp_path, "chart", "c-1.0.0.tgz", b"chart" * 10),
             model_layout(tmp_path)]
    bundle.write_lock(str(tmp_path), items)
    return tmp_path, items


def test_lock_is_sorted_and_rewritten_only_on_change(whole):
    bundle_dir, items = whole
    lock = bundle.read_lock(str(bundle_dir))
    assert [i["kind"] for i in lock["items"]] == ["image", "chart", "model"]
    assert lock["total"] == {"items": 3, "size": sum(i["size"] for i in items)}
    assert not bundle.write_lock(str(bundle_dir), list(reversed(items)))["changed"]


def test_write_lock_prunes_what_no_item_names(whole):
    bundle_dir, items = whole
    stale = file_item(bundle_dir, "image", "old.tar", b"old")
    result = bundle.write_lock(str(bundle_dir), items)
    assert result["changed"] and result["removed"] == [stale["path"]]
    assert not os.path.exists(os.path.join(str(bundle_dir), stale["path"]))


def test_intact_bundle_verifies(whole):
    bundle_dir, _items = whole
    assert bundle.verify(str(bundle_dir), bundle.read_lock(str(bundle_dir))) == []


def test_flipped_byte_in_a_file_names_the_item(whole):
    bundle_dir, _items = whole
    with open(os.path.join(str(bundle_dir), "images", "sim.tar"), "r+b") as handle:
        handle.write(b"X")
    problems = bundle.verify(str(bundle_dir), bundle.read_lock(str(bundle_dir)))
    assert len(problems) == 1 and problems[0].startswith("image sim.tar: images/sim.tar has sha256")


def test_missing_and_corrupted_model_layers_are_named(whole):
    bundle_dir, items = whole
    model = items[2]
    layer = [b for b in model["blobs"] if b["title"] == TITLE][0]
    path = bundle.blob_path(os.path.join(str(bundle_dir), model["path"]), layer["digest"])
    with open(path, "r+b") as handle:
        handle.write(b"X")
    problems = bundle.verify(str(bundle_dir), bundle.read_lock(str(bundle_dir)))
    assert problems == ["model m: %s (%s) does not match its digest (corrupted)" % (TITLE, layer["digest"])]
    os.remove(path)
    problems = bundle.verify(str(bundle_dir), bundle.read_lock(str(bundle_dir)))
    assert problems == ["model m: %s (%s) is missing" % (TITLE, layer["digest"])]


def flip(path, offset=0):
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)
        handle.seek(offset)
        handle.write(bytes([byte[0] ^ 0x01]))


def test_quick_check_reads_no_blob_but_refuses_what_it_can_see(whole):
    """deep=False: a flipped byte in a layer or an image passes (the push verifies it); a chart, a short or
    missing blob, a damaged manifest or a manifest listing other blobs than the lock do not."""
    bundle_dir, items = whole
    model = items[2]
    layout = os.path.join(str(bundle_dir), model["path"])
    layer = [b for b in model["blobs"] if b["title"] == TITLE][0]
    flip(bundle.blob_path(layout, layer["digest"]), 10)
    flip(os.path.join(str(bundle_dir), "images", "sim.tar"))
    lock = bundle.read_lock(str(bundle_dir))
    assert bundle.verify(str(bundle_dir), lock, deep=False) == []
    assert len(bundle.verify(str(bundle_dir), lock, deep=True)) == 2
    flip(os.path.join(str(bundle_dir), "charts", "c-1.0.0.tgz"))
    problems = bundle.verify(str(bundle_dir), lock, deep=False)
    assert len(problems) == 1 and problems[0].startswith("chart c-1.0.0.tgz: charts/c-1.0.0.tgz has sha256"), problems
    with open(bundle.blob_path(layout, layer["digest"]), "ab") as handle:
        handle.write(b"more")
    assert bundle.verify_item(str(bundle_dir), model, deep=False) == [
        "model m: %s (%s) has %d bytes, not %d" % (TITLE, layer["digest"], layer["size"] + 4, layer["size"])]
    manifest = bundle.blob_path(layout, model["digest"])
    flip(manifest, 5)
    assert bundle.verify_item(str(bundle_dir), model, deep=False) == [
        "model m: the manifest blob %s is missing, short or does not match its digest (corrupted)" % model["digest"]]
    flip(manifest, 5)
    other = dict(model, blobs=[b for b in model["blobs"] if b["title"] != "config"])
    assert bundle.verify_item(str(bundle_dir), other, deep=False) == [
        "model m: its manifest %s lists other blobs than the lock" % model["digest"]]


def test_failed_push_names_the_corrupted_blob_oras_names(whole):
    """Only the blobs oras's output names are hashed; an intact named blob or no digest leaves oras's words."""
    bundle_dir, items = whole
    model = items[2]
    layout = os.path.join(str(bundle_dir), model["path"])
    layer = [b for b in model["blobs"] if b["title"] == TITLE][0]
    config = [b for b in model["blobs"] if b["title"] == "config"][0]
    out = ('Error from destination registry for "h/p/m:v1": digest invalid: provided digest did not match '
           "uploaded content: map[Digest:%s Reason:map[]]" % layer["digest"])
    assert bundle.refused_blobs(model, out) == [layer]
    assert bundle.push_failure(layout, model, out, "oras said no") == "oras said no"
    flip(bundle.blob_path(layout, layer["digest"]), 3)
    message = bundle.push_failure(layout, model, out + " " + config["digest"], "oras said no")
    assert message == ("blob %s (%s) in models/m does not match its digest (corrupted in the bundle): the registry "
                       "refused it, no manifest naming it was pushed and the tag did not move; oras said no"
                       % (TITLE, layer["digest"]))
    assert bundle.push_failure(layout, model, "connection refused", "oras said no") == "oras said no"


def test_missing_file_and_malformed_entry(whole):
    bundle_dir, _items = whole
    os.remove(os.path.join(str(bundle_dir), "charts", "c-1.0.0.tgz"))
    lock = bundle.read_lock(str(bundle_dir))
    lock["items"].append({"kind": "image", "name": "evil", "path": "../etc/passwd"})
    assert bundle.verify(str(bundle_dir), lock) == [
        "chart c-1.0.0.tgz: charts/c-1.0.0.tgz is missing", "image evil: malformed lock entry"]
    assert bundle.verify(str(bundle_dir), {"items": []})[0].endswith("not a bundle lock of version 1")


def test_no_lock_is_a_clear_error(tmp_path):
    with pytest.raises(bundle.BundleError, match="bundle.lock.yml is missing"):
        bundle.read_lock(str(tmp_path))


def test_split_join_round_trip_and_unchanged_rerun(whole, tmp_path_factory):
    bundle_dir, _items = whole
    parts = str(tmp_path_factory.mktemp("parts"))
    first = bundle.split(str(bundle_dir), parts, 2048)
    assert first["changed"] and len(first["parts"]) > 2 and all(p["size"] <= 2048 for p in first["parts"])
    assert not bundle.split(str(bundle_dir), parts, 2048)["changed"]
    target = str(tmp_path_factory.mktemp("joined"))
    assert bundle.join(parts, target)["changed"]
    assert bundle.verify(target, bundle.read_lock(target)) == []
    assert not bundle.join(parts, target)["changed"]


def test_corrupted_or_missing_part_is_refused_before_unpacking(whole, tmp_path_factory):
    bundle_dir, _items = whole
    parts = str(tmp_path_factory.mktemp("parts"))
    index = bundle.split(str(bundle_dir), parts, 2048)["parts"]
    with open(os.path.join(parts, index[1]["name"]), "r+b") as handle:
        handle.write(b"\x00\x01")
    target = os.path.join(str(tmp_path_factory.mktemp("t")), "bundle")
    with pytest.raises(bundle.BundleError, match="part bundle.part001 does not match its sha256"):
        bundle.join(parts, target)
    os.remove(os.path.join(parts, index[2]["name"]))
    with pytest.raises(bundle.BundleError, match="part bundle.part002 is missing"):
        bundle.join(parts, target)
    assert not os.path.exists(target)


class LocalSkopeo:
    """Manifests of a local source and of archives; records copies."""

    def __init__(self, source_raw):
        self.source_raw = source_raw
        self.copies = []

    def raw_manifest(self, ref, remote=True):
        if ref.startswith("oci-archive:"):
            return self.source_raw if os.path.exists(ref.split(":", 1)[1]) else None
        return self.source_raw

    def copy(self, src, dest, src_remote, dest_remote, all_platforms):
        self.copies.append((src, src_remote))
        with open(dest.split(":", 1)[1], "wb") as handle:
            handle.write(b"archive")


def image_params(tmp_path, **extra):
    params = dict(bundle_dir=str(tmp_path), image="ghcr.io/llm-d/sim:v0.7.1", source_ref="oci:/lab/layout:sim",
                  digest=None, archive_name="sim.tar", project="images-shaide", image_path="llm-d/sim",
                  all_platforms=False, username=None, password=None)
    params.update(extra)
    return params


def test_image_from_a_local_source_is_saved_once(tmp_path):
    skopeo = LocalSkopeo(b'{"a":1}')
    first = bundle.save_image(image_params(tmp_path), False, skopeo)
    assert first["changed"] and skopeo.copies == [("oci:/lab/layout:sim", False)]
    assert first["entry"]["digest"] == oa.sha256_bytes(b'{"a":1}') and first["entry"]["project"] == "images-shaide"
    second = bundle.save_image(image_params(tmp_path), False, skopeo)
    assert not second["changed"] and second["written_bytes"] == 0 and len(skopeo.copies) == 1


def test_image_whose_source_changed_is_saved_again(tmp_path):
    skopeo = LocalSkopeo(b'{"a":1}')
    bundle.save_image(image_params(tmp_path), False, skopeo)

    class Changed(LocalSkopeo):
        def raw_manifest(self, ref, remote=True):
            if ref.startswith("oci-archive:"):
                return b'{"a":1}'
            return b'{"a":2}'

    newer = Changed(None)
    with pytest.raises(Exception, match="not the pinned"):
        # the fake archive still answers the old manifest: the copy is refused, not kept
        bundle.save_image(image_params(tmp_path), False, newer)
    assert newer.copies == [("oci:/lab/layout:sim", False)]


def test_chart_from_a_source_dir_copies_on_change_only(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    (source / "c-1.0.0.tgz").write_bytes(b"chart v1")
    params = dict(bundle_dir=str(tmp_path / "b"), name="c", version="1.0.0", source_dir=str(source), digest=None,
                  project="charts", chart=None, repo_url=None)
    assert bundle.save_chart(params, False, None)["changed"]
    assert not bundle.save_chart(params, False, None)["changed"]
    (source / "c-1.0.0.tgz").write_bytes(b"chart v2")
    again = bundle.save_chart(params, False, None)
    assert again["changed"] and again["entry"]["sha256"] == "sha256:" + hashlib.sha256(b"chart v2").hexdigest()
    with pytest.raises(bundle.BundleError, match="c-2.0.0.tgz does not exist"):
        bundle.save_chart(dict(params, version="2.0.0"), False, None)
