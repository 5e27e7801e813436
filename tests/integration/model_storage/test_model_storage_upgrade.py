# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage on the lab: an upgrade to a revision where one small file changed moves only that file.

The first pull fetches the whole MiniLM artifact; the tag then moves to a new commit whose README.md alone
differs, and the upgrade's pull Job takes the 12 unchanged files from the revision on the claim (hard links)
and fetches one blob from the registry. Its own model names (slug mdelta-<id>, repository mdelta-minilm-<id>).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os

from ansible_collections.ai_platform.serving.tests.support.hub import MINILM_COMMIT, edited_hub, minilm_dir
from ansible_collections.ai_platform.serving.tests.support.lab import publish

FOLDER = "models--sentence-transformers--all-MiniLM-L6-v2"
NEW_COMMIT = "d" * 40


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def test_an_upgrade_where_one_small_file_changed_fetches_only_that_file(model_factory, minilm_hub, kube, tmp_path):
    model = model_factory(prefix="mdelta", name="MiniLMDelta")
    first = publish(model.lab, model.tmp, minilm_hub, model.repository)
    run = model.apply()
    assert run.rc == 0, str(run)
    before = run.results["results"][model.slug]
    # the first pull: the whole artifact over the wire
    assert int(before["fetched_bytes"]) == first["size"] and int(before["reused_files"]) == 0, before

    source = minilm_dir()
    with open(os.path.join(source, "README.md"), "rb") as handle:
        readme = handle.read() + b"\nRevision 2: one paragraph more.\n"
    moved = publish(model.lab, model.tmp, edited_hub(tmp_path, "v2", {"README.md": readme}, NEW_COMMIT),
                    model.repository)
    assert moved["digest"] != first["digest"]
    run = model.apply()
    assert run.rc == 0, str(run)
    after = run.results["results"][model.slug]
    assert after["digest"] == moved["digest"] and after["reused"] in (False, "False"), after
    # README.md alone came from the registry (refs/main is written from the commit); the 12 others from the claim
    assert (int(after["fetched_bytes"]), int(after["fetched_files"]), int(after["reused_files"])) == (
        len(readme), 1, 12), after
    marker = model.marker()
    assert (marker["fetched_bytes"], marker["fetched_files"], marker["reused_files"]) == (len(readme), 1, 12), marker
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"]
    assert annotations["ai-platform.serving/digest"] == moved["digest"]
    assert (annotations["ai-platform.serving/fetched-bytes"], annotations["ai-platform.serving/fetched-files"],
            annotations["ai-platform.serving/reused-files"]) == (str(len(readme)), "1", "12"), annotations
    log = kube.logs(model.namespace, "job/" + model.job)
    assert "reusing 12 files (" in log and "fetching 1 files (" in log, log

    # the new snapshot is the new revision byte for byte: README.md the edited one, every other file the source's
    claim = model.claim_dir()
    new = os.path.join(claim, "hub", FOLDER, "snapshots", NEW_COMMIT)
    old = os.path.join(claim, "hub", FOLDER, "snapshots", MINILM_COMMIT)
    with open(os.path.join(claim, "hub", FOLDER, "refs", "main")) as handle:
        assert handle.read() == NEW_COMMIT
    compared = 0
    for current, _dirs, files in os.walk(source):
        for name in files:
            rel = os.path.relpath(os.path.join(current, name), source)
            if rel == "README.md":
                with open(os.path.join(new, rel), "rb") as handle:
                    assert handle.read() == readme
                continue
            assert sha256(os.path.join(new, rel)) == sha256(os.path.join(current, name)), rel
            # taken from the served revision: the same file on the claim, no second copy
            assert os.stat(os.path.join(new, rel)).st_ino == os.stat(os.path.join(old, rel)).st_ino, rel
            compared += 1
    assert compared == 12
    before_bytes, after_bytes = int(before["fetched_bytes"]), int(after["fetched_bytes"])
    figures = (model.slug, before_bytes, after_bytes, int(after["reused_files"]), float(before_bytes) / after_bytes)
    print("\nupgrade of %s: before (whole artifact) %d bytes fetched, after %d bytes fetched (%d files reused, "
          "%.0fx less over the wire)" % figures)
