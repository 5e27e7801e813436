# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Artifact layout, manifest comparison and oras command lines."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_artifact as oa
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import CacheFile

REPO = "org/model"
COMMIT = "a" * 40


def files(tmp_path, config=b"{}"):
    out = []
    for rel, data in (("model.safetensors", b"w" * 10), ("config.json", config), ("sub/t.json", b"t"),
                      ("README.md", b"# card"), ("modeling_x.py", b"pass")):
        path = tmp_path / rel.replace("/", "_")
        path.write_bytes(data)
        out.append(CacheFile(rel, str(path), len(data), hashlib.sha256(data).hexdigest(), None))
    return out


def manifest_for(artifact, annotations=None, artifact_type=None):
    """The manifest oras writes for a plan (layers reversed: the comparison ignores order)."""
    layers = []
    for layer in reversed(artifact["layers"]):
        notes = {oa.TITLE: layer["title"]}
        if artifact["format"] == oa.FORMAT_MODELPACK:
            notes[oa.FILEPATH] = layer["title"]
        layers.append({"digest": layer["digest"], "size": layer["size"], "mediaType": layer["media_type"],
                       "annotations": notes})
    manifest = {"artifactType": artifact_type or artifact["artifact_type"],
                "annotations": annotations if annotations is not None else artifact["annotations"],
                "layers": layers}
    if artifact["config"] is not None:
        manifest["config"] = {"mediaType": oa.MODELPACK_CONFIG_TYPE, "digest": artifact["config_digest"],
                              "size": len(artifact["config"])}
    return manifest


def test_hf_cache_titles_are_relative_to_the_hub_and_add_refs_main(tmp_path):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path), oa.FORMAT_HF_CACHE)
    layers = artifact["layers"]
    assert [l["title"] for l in layers] == [
        "models--org--model/refs/main",
        "models--org--model/snapshots/%s/README.md" % COMMIT,
        "models--org--model/snapshots/%s/config.json" % COMMIT,
        "models--org--model/snapshots/%s/model.safetensors" % COMMIT,
        "models--org--model/snapshots/%s/modeling_x.py" % COMMIT,
        "models--org--model/snapshots/%s/sub/t.json" % COMMIT,
    ]
    refs = layers[0]
    assert refs["path"] is None and refs["size"] == 40
    assert refs["digest"] == "sha256:" + hashlib.sha256(COMMIT.encode()).hexdigest()
    assert set(l["media_type"] for l in layers) == {oa.LAYER_MEDIA_TYPE}
    assert artifact["artifact_type"] == oa.ARTIFACT_TYPE and artifact["config"] is None


def test_modelpack_layers_are_the_snapshot_files_typed_by_kind(tmp_path):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path))
    assert artifact["format"] == oa.FORMAT_MODELPACK
    assert artifact["artifact_type"] == "application/vnd.cncf.model.manifest.v1+json"
    assert [(l["title"], l["media_type"].split(".")[3:5]) for l in artifact["layers"]] == [
        ("README.md", ["doc", "v1"]),
        ("config.json", ["weight", "config"]),
        ("model.safetensors", ["weight", "v1"]),
        ("modeling_x.py", ["code", "v1"]),
        ("sub/t.json", ["weight", "config"]),
    ]
    assert all(l["path"] for l in artifact["layers"])


@pytest.mark.parametrize("name,kind", [
    ("model-00001-of-00002.safetensors", oa.WEIGHT), ("pytorch_model.bin", oa.WEIGHT), ("m.Q4_K_M.gguf", oa.WEIGHT),
    ("onnx/model.onnx", oa.WEIGHT), ("tokenizer.json", oa.WEIGHT_CONFIG), ("vocab.txt", oa.WEIGHT_CONFIG),
    ("generation_config.json", oa.WEIGHT_CONFIG), ("LICENSE", oa.DOC), ("LICENSE.txt", oa.DOC),
    ("docs/usage.md", oa.DOC), ("configuration_x.py", oa.CODE)])
def test_modelpack_media_type(name, kind):
    assert oa.modelpack_media_type(name) == kind


def test_the_modelpack_config_names_the_model_and_lists_the_layers(tmp_path):
    config = b'{"architectures": ["BertModel"], "torch_dtype": "float32", "model_type": "bert"}'
    artifact = oa.plan(REPO, COMMIT, files(tmp_path, config))
    document = json.loads(artifact["config"].decode())
    assert document["descriptor"] == {"name": REPO, "revision": COMMIT, "sourceURL": "https://huggingface.co/" + REPO}
    assert document["config"] == {"architecture": "BertModel", "precision": "float32", "format": "safetensors"}
    assert document["modelfs"] == {"type": "layers", "diffIds": [l["digest"] for l in artifact["layers"]]}
    assert artifact["config_digest"] == "sha256:" + hashlib.sha256(artifact["config"]).hexdigest()
    # canonical: the same files give the same config bytes
    assert oa.plan(REPO, COMMIT, files(tmp_path, config))["config"] == artifact["config"]


def test_a_config_json_that_is_no_object_leaves_the_config_without_its_fields(tmp_path):
    document = json.loads(oa.plan(REPO, COMMIT, files(tmp_path, b"[1]"))["config"].decode())
    assert document["config"] == {"format": "safetensors"}


def test_an_unknown_format_is_refused(tmp_path):
    with pytest.raises(ValueError, match="tar.*modelpack, hf-cache"):
        oa.plan(REPO, COMMIT, files(tmp_path), "tar")


@pytest.mark.parametrize("fmt", oa.FORMATS)
def test_compare_same_ignores_layer_order(tmp_path, fmt):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path), fmt)
    diff = oa.compare(manifest_for(artifact), artifact)
    assert diff["same"] and not (diff["added"] or diff["removed"] or diff["changed"] or diff["metadata"])


def test_compare_reports_each_kind_of_difference(tmp_path):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path), oa.FORMAT_HF_CACHE)
    layers = artifact["layers"]
    remote = manifest_for(dict(artifact, layers=layers[:-1]))
    remote["layers"][0]["digest"] = "sha256:" + "0" * 64
    remote["layers"].append({"digest": "sha256:" + "1" * 64, "size": 1, "annotations": {oa.TITLE: "old"}})
    diff = oa.compare(remote, artifact)
    assert not diff["same"]
    assert diff["added"] == [layers[-1]["title"]]
    assert diff["removed"] == ["old"]
    assert diff["changed"] == [layers[-2]["title"]]


@pytest.mark.parametrize("remote", [None, "other-type", "other-annotation", "other-config", "layer-type",
                                    "no-filepath", "other-format"])
def test_compare_metadata(tmp_path, remote):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path))
    manifest = manifest_for(artifact)
    if remote is None:
        manifest = None
    elif remote == "other-type":
        manifest = manifest_for(artifact, artifact_type="application/x.other")
    elif remote == "other-annotation":
        manifest = manifest_for(artifact, annotations={oa.CREATED: "2026-01-01T00:00:00Z"})
    elif remote == "other-config":
        manifest["config"]["digest"] = "sha256:" + "2" * 64
    elif remote == "layer-type":
        manifest["layers"][0]["mediaType"] = oa.DOC if manifest["layers"][0]["mediaType"] != oa.DOC else oa.CODE
    elif remote == "no-filepath":
        del manifest["layers"][0]["annotations"][oa.FILEPATH]
    else:
        # the same files published in the other format: every file blob stays, the manifest changes
        manifest = manifest_for(oa.plan(REPO, COMMIT, files(tmp_path), oa.FORMAT_HF_CACHE))
    diff = oa.compare(manifest, artifact)
    assert diff["metadata"] and not diff["same"]


@pytest.mark.parametrize("fmt", oa.FORMATS)
def test_build_staging_links_files(tmp_path, fmt):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path), fmt)
    work = tmp_path / "work"
    staging, args = oa.build_staging(str(work), artifact)
    prefix = "models--org--model/snapshots/%s/" % COMMIT if fmt == oa.FORMAT_HF_CACHE else ""
    weights = os.path.join(staging, *(prefix + "model.safetensors").split("/"))
    assert os.path.islink(weights) and open(weights, "rb").read() == b"w" * 10
    refs = os.path.join(staging, "models--org--model", "refs", "main")
    if fmt == oa.FORMAT_HF_CACHE:
        assert open(refs).read() == COMMIT and not os.path.islink(refs)
        assert args == ["--annotation", "%s=%s" % (oa.REPO_ANNOTATION, REPO),
                        "--annotation", "%s=%s" % (oa.REVISION_ANNOTATION, COMMIT),
                        "--annotation", "%s=%s" % (oa.CREATED, oa.FIXED_CREATED)]
    else:
        assert not os.path.exists(refs)
        config, notes = args[args.index("--config") + 1], args[args.index("--annotation-file") + 1]
        assert config == "%s:%s" % (work / "modelpack-config.json", oa.MODELPACK_CONFIG_TYPE)
        assert (work / "modelpack-config.json").read_bytes() == artifact["config"]
        notes = json.loads(open(notes).read())
        assert notes.pop("$manifest") == artifact["annotations"]
        assert notes == dict((l["title"], {oa.FILEPATH: l["title"]}) for l in artifact["layers"])
    oa.build_staging(str(work), artifact)  # a second run replaces the links


@pytest.mark.parametrize("fmt", oa.FORMATS)
def test_push_argv_has_media_types_and_no_secret(tmp_path, fmt):
    artifact = oa.plan(REPO, COMMIT, files(tmp_path), fmt)
    remote = oa.remote_args("/tmp/auth/config.json", "/ca.crt", plain_http=True, insecure=True)
    argv = oa.push_argv("oras", "reg:5000/p/m:v1", artifact, ["--x", "y"], 7, remote)
    assert argv[:3] == ["oras", "push", "reg:5000/p/m:v1"]
    assert argv[argv.index("--concurrency") + 1] == "7"
    assert argv[argv.index("--artifact-type") + 1] == artifact["artifact_type"]
    assert ["--x", "y"] == argv[argv.index("--x"):argv.index("--x") + 2]
    assert ["--registry-config", "/tmp/auth/config.json", "--ca-file", "/ca.crt", "--plain-http", "--insecure"] == \
        argv[argv.index("--registry-config"):argv.index("--insecure") + 1]
    count = len(artifact["layers"])
    assert argv[-count:] == ["%s:%s" % (l["title"], l["media_type"]) for l in artifact["layers"]]
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
