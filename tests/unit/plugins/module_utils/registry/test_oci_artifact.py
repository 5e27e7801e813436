# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Artifact layout, manifest comparison and oras command lines."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_artifact as oa
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import CacheFile

REPO = "org/model"
COMMIT = "a" * 40


def files(tmp_path):
    out = []
    for rel, data in (("model.safetensors", b"w" * 10), ("config.json", b"{}"), ("sub/t.json", b"t")):
        path = tmp_path / rel.replace("/", "_")
        path.write_bytes(data)
        out.append(CacheFile(rel, str(path), len(data), hashlib.sha256(data).hexdigest(), None))
    return out


def manifest_for(layers, annotations=None, artifact_type=oa.ARTIFACT_TYPE):
    return {"artifactType": artifact_type,
            "annotations": annotations if annotations is not None else oa.manifest_annotations(REPO, COMMIT),
            "layers": [{"digest": l["digest"], "size": l["size"], "mediaType": oa.LAYER_MEDIA_TYPE,
                        "annotations": {oa.TITLE: l["title"]}} for l in reversed(layers)]}


def test_plan_layers_titles_relative_to_hub(tmp_path):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    assert [l["title"] for l in layers] == [
        "models--org--model/refs/main",
        "models--org--model/snapshots/%s/config.json" % COMMIT,
        "models--org--model/snapshots/%s/model.safetensors" % COMMIT,
        "models--org--model/snapshots/%s/sub/t.json" % COMMIT,
    ]
    refs = layers[0]
    assert refs["path"] is None and refs["size"] == 40
    assert refs["digest"] == "sha256:" + hashlib.sha256(COMMIT.encode()).hexdigest()


def test_compare_same_ignores_layer_order(tmp_path):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    diff = oa.compare(manifest_for(layers), layers, oa.manifest_annotations(REPO, COMMIT))
    assert diff["same"] and not (diff["added"] or diff["removed"] or diff["changed"] or diff["metadata"])


def test_compare_reports_each_kind_of_difference(tmp_path):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    remote = manifest_for(layers[:-1])
    remote["layers"][0]["digest"] = "sha256:" + "0" * 64
    remote["layers"].append({"digest": "sha256:" + "1" * 64, "size": 1, "annotations": {oa.TITLE: "old"}})
    diff = oa.compare(remote, layers, oa.manifest_annotations(REPO, COMMIT))
    assert not diff["same"]
    assert diff["added"] == [layers[-1]["title"]]
    assert diff["removed"] == ["old"]
    assert diff["changed"] == [layers[-2]["title"]]


@pytest.mark.parametrize("remote", [None, "other-type", "other-annotation"])
def test_compare_metadata(tmp_path, remote):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    manifest = None
    if remote == "other-type":
        manifest = manifest_for(layers, artifact_type="application/x.other")
    elif remote == "other-annotation":
        manifest = manifest_for(layers, annotations={oa.CREATED: "2026-01-01T00:00:00Z"})
    diff = oa.compare(manifest, layers, oa.manifest_annotations(REPO, COMMIT))
    assert diff["metadata"] and not diff["same"]


def test_build_staging_links_files_and_writes_refs(tmp_path):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    staging = oa.build_staging(str(tmp_path / "hub"), REPO, COMMIT, layers)
    refs = os.path.join(staging, "models--org--model", "refs", "main")
    assert open(refs).read() == COMMIT and not os.path.islink(refs)
    weights = os.path.join(staging, "models--org--model", "snapshots", COMMIT, "model.safetensors")
    assert os.path.islink(weights) and open(weights, "rb").read() == b"w" * 10
    oa.build_staging(staging, REPO, COMMIT, layers)  # a second run replaces the links


def test_push_argv_has_media_types_annotations_and_no_secret(tmp_path):
    layers = oa.plan_layers(REPO, COMMIT, files(tmp_path))
    remote = oa.remote_args("/tmp/auth/config.json", "/ca.crt", plain_http=True, insecure=True)
    argv = oa.push_argv("oras", "reg:5000/p/m:v1", layers, oa.manifest_annotations(REPO, COMMIT), 7, remote)
    assert argv[:3] == ["oras", "push", "reg:5000/p/m:v1"]
    assert argv[argv.index("--concurrency") + 1] == "7"
    assert argv[argv.index("--artifact-type") + 1] == oa.ARTIFACT_TYPE
    assert "%s=%s" % (oa.CREATED, oa.FIXED_CREATED) in argv
    assert ["--registry-config", "/tmp/auth/config.json", "--ca-file", "/ca.crt", "--plain-http", "--insecure"] == \
        argv[argv.index("--registry-config"):argv.index("--insecure") + 1]
    assert argv[-4:] == ["%s:%s" % (l["title"], oa.LAYER_MEDIA_TYPE) for l in layers]
    assert not any("password" in a or a.startswith("-p") for a in argv)


@pytest.mark.parametrize("line,parsed", [
    ("Uploaded  98ea6e4f216f models--a--b/snapshots/c/f.txt\n", ("Uploaded", "models--a--b/snapshots/c/f.txt")),
    ("Exists    98ea6e4f216f a b.txt", ("Exists", "a b.txt")),
    ("Preparing m/a.bin", None), ("Digest: sha256:00", None), ("", None)])
def test_parse_push_line(line, parsed):
    assert oa.parse_push_line(line) == parsed


def test_parse_push_digest():
    out = "Pushed [registry] r/p/m:1\nArtifactType: x\nDigest: sha256:" + "f" * 64 + "\n"
    assert oa.parse_push_digest(out) == "sha256:" + "f" * 64
    assert oa.parse_push_digest("nothing") is None


def test_progress_file_counts_files_and_bytes(tmp_path):
    layers = [{"title": "a", "size": 30}, {"title": "b", "size": 70}]
    log = tmp_path / "p.log"
    progress = oa.Progress(str(log), layers)
    for line in ("Uploading 1 a", "Uploaded  1 a", "Exists    2 b", "Uploaded  3 unknown-title"):
        progress.line(line)
    progress.close("done")
    text = log.read_text()
    assert "start: 2 files, 100 bytes" in text
    assert "uploaded a: 1/2 files, 30/100 bytes (30%)" in text
    assert "exists b: 2/2 files, 100/100 bytes (100%)" in text
    assert progress.uploaded == ["a"] and progress.existed == ["b"]


def test_run_streaming_feeds_lines():
    seen = []
    rc, out = oa.run_streaming(["sh", "-c", "echo one; echo two >&2; exit 3"], None, seen.append)
    assert rc == 3 and seen == ["one\n", "two\n"] and out == "one\ntwo\n"


def test_run_streaming_keeps_go_tools_on_http1(monkeypatch):
    monkeypatch.delenv("GODEBUG", raising=False)
    rc, out = oa.run_streaming(["sh", "-c", 'echo "$GODEBUG"'], None, lambda line: None)
    assert rc == 0 and out == "http2client=0\n"
