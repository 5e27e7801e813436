# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hub cache layout, revision resolution and verification."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.sync import hf_cache

COMMIT = "a" * 40
HELLO_GIT_ID = "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object of "hello\n"


def make_cache(root, files, lfs=(), commit=COMMIT, ref="main"):
    """A hub cache holding ``files`` ({relpath: bytes}); names in ``lfs`` get sha256 blobs."""
    repo = root / "models--org--model"
    (repo / "blobs").mkdir(parents=True)
    (repo / "refs").mkdir()
    (repo / "refs" / ref).write_text(commit)
    for rel, data in files.items():
        if rel in lfs:
            etag = hashlib.sha256(data).hexdigest()
        else:
            etag = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
        (repo / "blobs" / etag).write_bytes(data)
        link = repo / "snapshots" / commit / rel
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(os.path.relpath(str(repo / "blobs" / etag), str(link.parent)))
    return repo


@pytest.mark.parametrize("repo_id,ok", [
    ("sentence-transformers/all-MiniLM-L6-v2", True), ("Qwen/Qwen3-0.6B", True), ("gpt2", False),
    ("a/b/c", False), ("../x", False), ("org/..", False), ("", False), (None, False)])
def test_validate_repo_id(repo_id, ok):
    assert (hf_cache.validate_repo_id(repo_id) is None) is ok


def test_repo_folder():
    assert hf_cache.repo_folder("sentence-transformers/all-MiniLM-L6-v2") == \
        "models--sentence-transformers--all-MiniLM-L6-v2"


def test_hash_file_streams_sha256_and_git_id(tmp_path):
    path = tmp_path / "f"
    path.write_bytes(b"hello\n")
    sha256, sha1, size = hf_cache.hash_file(str(path), git_sha1=True)
    assert sha256 == hashlib.sha256(b"hello\n").hexdigest()
    assert sha1 == HELLO_GIT_ID
    assert size == 6


@pytest.mark.parametrize("blob,expect", [
    (None, None), ("b" * 64, "sha256 is"), (HELLO_GIT_ID, None), ("c" * 40, "git blob id"), ("weird", "neither")])
def test_blob_problem(blob, expect):
    problem = hf_cache.blob_problem(blob, hashlib.sha256(b"hello\n").hexdigest(), HELLO_GIT_ID)
    assert (problem is None) if expect is None else (expect in problem)


def test_blob_problem_accepts_matching_sha256():
    digest = hashlib.sha256(b"x").hexdigest()
    assert hf_cache.blob_problem(digest, digest, None) is None


@pytest.mark.parametrize("paths,allow,ignore,kept", [
    (["a.json", "b.bin", "sub/c.json"], None, None, ["a.json", "b.bin", "sub/c.json"]),
    (["a.json", "b.bin", "sub/c.json"], ["*.json"], None, ["a.json", "sub/c.json"]),
    (["a.json", "b.bin", "sub/c.json"], None, ["*.bin"], ["a.json", "sub/c.json"]),
    (["a.json", "sub/c.json", "sub/d.bin"], ["sub/"], ["*.bin"], ["sub/c.json"]),
    (["a.json"], "a.json", None, ["a.json"]),
])
def test_filter_paths(paths, allow, ignore, kept):
    assert hf_cache.filter_paths(paths, allow, ignore) == kept


def test_cached_snapshot_resolves_ref_and_hashes(tmp_path):
    make_cache(tmp_path, {"config.json": b"{}", "model.safetensors": b"weights", "sub/x.txt": b"x"},
               lfs=("model.safetensors",))
    commit, files = hf_cache.cached_snapshot(str(tmp_path), "org/model", "main")
    assert commit == COMMIT
    assert [f.relpath for f in files] == ["config.json", "model.safetensors", "sub/x.txt"]
    weights = files[1]
    assert weights.blob == weights.sha256 == hashlib.sha256(b"weights").hexdigest()
    assert weights.size == 7 and os.path.dirname(weights.path).endswith("blobs")


def test_cached_snapshot_by_commit_and_patterns(tmp_path):
    make_cache(tmp_path, {"config.json": b"{}", "model.bin": b"w"}, lfs=("model.bin",))
    commit, files = hf_cache.cached_snapshot(str(tmp_path), "org/model", COMMIT, ignore_patterns=["*.bin"])
    assert commit == COMMIT and [f.relpath for f in files] == ["config.json"]


def test_corrupted_lfs_file_is_refused_with_every_problem(tmp_path):
    repo = make_cache(tmp_path, {"a.safetensors": b"one", "b.safetensors": b"two", "c.json": b"{}"},
                      lfs=("a.safetensors", "b.safetensors"))
    for name in ("a.safetensors", "c.json"):
        os.path.realpath(str(repo / "snapshots" / COMMIT / name))
        with open(os.path.realpath(str(repo / "snapshots" / COMMIT / name)), "ab") as handle:
            handle.write(b"!")
    with pytest.raises(hf_cache.CacheError) as err:
        hf_cache.cached_snapshot(str(tmp_path), "org/model", "main")
    message = str(err.value)
    assert "2 file(s) failed verification" in message
    assert "a.safetensors: sha256 is" in message and "c.json: git blob id" in message
    assert "b.safetensors" not in message


def test_dangling_link_is_reported(tmp_path):
    repo = make_cache(tmp_path, {"a.bin": b"one"}, lfs=("a.bin",))
    for blob in (repo / "blobs").iterdir():
        blob.unlink()
    with pytest.raises(hf_cache.CacheError, match="dangling"):
        hf_cache.cached_snapshot(str(tmp_path), "org/model", "main")


@pytest.mark.parametrize("revision,message", [
    ("dev", "neither a 40-character commit hash nor a ref"), ("b" * 40, "no snapshot")])
def test_unknown_revision(tmp_path, revision, message):
    make_cache(tmp_path, {"a": b"1"})
    with pytest.raises(hf_cache.CacheError, match=message):
        hf_cache.cached_snapshot(str(tmp_path), "org/model", revision)


def test_missing_repo_and_empty_selection(tmp_path):
    with pytest.raises(hf_cache.CacheError, match="not in the hub cache"):
        hf_cache.cached_snapshot(str(tmp_path), "org/model", "main")
    make_cache(tmp_path, {"a.json": b"1"})
    with pytest.raises(hf_cache.CacheError, match="no files matching"):
        hf_cache.cached_snapshot(str(tmp_path), "org/model", "main", allow_patterns=["*.bin"])


def test_plain_directory_with_checksums(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref")
    (tmp_path / "config.json").write_bytes(b"{}")
    (tmp_path / "w.bin").write_bytes(b"w")
    good = hashlib.sha256(b"w").hexdigest()
    files = hf_cache.plain_directory(str(tmp_path), checksums={"w.bin": good})
    assert [f.relpath for f in files] == ["config.json", "w.bin"]
    with pytest.raises(hf_cache.CacheError) as err:
        hf_cache.plain_directory(str(tmp_path), checksums={"w.bin": "0" * 64, "gone.bin": good})
    assert "w.bin: sha256 is" in str(err.value) and "gone.bin: listed in checksums" in str(err.value)


@pytest.mark.parametrize("url,origin", [
    ("https://huggingface.co", "https://huggingface.co"), ("https://HuggingFace.co:443/api", "https://huggingface.co"),
    ("http://mirror:80/", "http://mirror"), ("https://mirror.example:8443/x", "https://mirror.example:8443"),
    ("https://user@evil.example/", "https://evil.example"), ("not a url", None), ("", None)])
def test_origin(url, origin):
    assert hf_cache.origin(url) == origin


@pytest.mark.parametrize("endpoint,token_origin,sent", [
    ("https://huggingface.co", "https://huggingface.co", True),
    ("https://huggingface.co/", "https://huggingface.co:443", True),
    ("https://hf-mirror.example", "https://huggingface.co", False),
    ("https://huggingface.co.evil.example", "https://huggingface.co", False),
    ("http://huggingface.co", "https://huggingface.co", False),
    ("https://hf-mirror.example", "https://hf-mirror.example", True),
])
def test_token_only_for_its_origin(endpoint, token_origin, sent):
    assert (hf_cache.token_for_endpoint("hf_secret", endpoint, token_origin) == "hf_secret") is sent


def test_no_token_stays_none():
    assert hf_cache.token_for_endpoint(None, "https://huggingface.co", "https://huggingface.co") is None
