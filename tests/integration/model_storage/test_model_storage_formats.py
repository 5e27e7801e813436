# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage on the lab (issue 30): the artifact format of earlier releases still deploys; aips_require_signed
refuses a model not validly signed by the site's key (no signature, another key's, the site's signature of other
files) before anything is created, names the model and why, then pulls it once it is signed; and a ModelPack
artifact another client pushed is pulled and loads offline.

(Every other lab test publishes the default format, CNCF ModelPack; tests/integration/registry covers the same
signature faults against a real registry without a cluster, tests/integration/bundle the bundle's, and
tests/integration/serving_stack/test_serving_stack_formats.py serves the other client's artifact.) Own model names
(slugs mfmt-<id>, msig-<id>, mpc-<id>).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

import pytest

from ansible_collections.ai_platform.serving.tests.support import artifacts, keys
from ansible_collections.ai_platform.serving.tests.support.hub import MINILM_COMMIT, edited_hub, files_of, minilm_dir
from ansible_collections.ai_platform.serving.tests.support.lab import publish

FOLDER = "models--sentence-transformers--all-MiniLM-L6-v2"
OTHER_COMMIT = "e" * 40


def test_an_artifact_in_the_format_of_earlier_releases_still_deploys(model_factory, minilm_hub):
    model = model_factory(prefix="mfmt", name="MiniLMFormat")
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository, model_sync_artifact_format="hf-cache")
    assert entry["size"] == sum(len(v) for v in files_of(minilm_dir()).values()) + len(MINILM_COMMIT)
    run = model.apply()
    assert run.rc == 0, str(run)
    result = run.results["results"][model.slug]
    assert result["digest"] == entry["digest"] and result["size"] == entry["size"], result
    marker = model.marker()
    assert (marker["commit"], marker["model_files"]) == (MINILM_COMMIT, 13), marker
    snapshot = os.path.join(model.claim_dir(), "hub", FOLDER, "snapshots", MINILM_COMMIT)
    assert files_of(snapshot) == files_of(minilm_dir())


@pytest.mark.parametrize("fault", ["unsigned", "another key", "other files"])
def test_require_signed_refuses_a_model_not_signed_by_the_site_before_anything_is_created_then_pulls_it_signed(
        model_factory, minilm_hub, kube, tmp_path, fault):
    model = model_factory(prefix="msig", name="MiniLMSigned")
    private, public = keys.key_pair()
    hub_dir = minilm_hub
    if fault == "other files":
        # a valid signature by the site's key, of the first revision, attached to a second one whose README.md differs
        hub_dir = edited_hub(tmp_path, "v2", {"README.md": b"A second revision.\n"}, OTHER_COMMIT)
    other = {"another key": {"model_sync_signing_key": keys.key_pair()[0]}}.get(fault, {})
    entry = publish(model.lab, model.tmp, hub_dir, model.repository, **other)
    if fault == "other files":
        first = publish(model.lab, model.tmp, minilm_hub, model.repository + "-first", model_sync_signing_key=private)
        artifacts.move_signature(model.lab, model.repository + "-first", first["digest"], model.repository,
                                 entry["digest"])
    run = model.apply(aips_require_signed=True, aips_signing_public_key=public)
    assert run.rc != 0, str(run)
    text = " ".join(str(run.output).split())
    assert "%s: " % model.slug in text and "is not signed by the site's key" in text, text
    reason = {"unsigned": "no signature is attached", "another key": "the signature was made by another key",
              "other files": "README.md: the artifact has sha256:"}[fault]
    assert reason in text and entry["digest"] in text, text
    assert kube.get("namespace", model.namespace) is None
    # signed with the site's key (the same files: the same digest, now with its signature), the pull runs
    signed = publish(model.lab, model.tmp, hub_dir, model.repository, model_sync_signing_key=private)
    assert signed["digest"] == entry["digest"]
    run = model.apply(aips_require_signed=True, aips_signing_public_key=public)
    assert run.rc == 0, str(run)
    assert run.results["results"][model.slug]["digest"] == entry["digest"]
    assert private.splitlines()[1] not in str(run.output)


def test_a_modelpack_artifact_another_client_pushed_is_pulled_and_loads_offline(model_factory):
    """modelpack-client (PyPI, not ours) pushes MiniLM into the lab's Harbor; the pull Job lays it out (no revision
    annotation: the snapshot is named by the manifest digest) and huggingface_hub loads it offline."""
    model = model_factory(prefix="mpc", name="MiniLMClient")
    source = minilm_dir()
    files = files_of(source)
    pushed = artifacts.client_push(model.lab, model.repository, source)
    run = model.apply()
    assert run.rc == 0, str(run)
    assert run.results["results"][model.slug]["digest"] == pushed.digest
    commit = pushed.digest[len("sha256:"):][:40]
    hub = os.path.join(model.claim_dir(), "hub")
    assert files_of(os.path.join(hub, FOLDER, "snapshots", commit)) == files
    code = ("import huggingface_hub as h; print(h.snapshot_download('sentence-transformers/all-MiniLM-L6-v2', "
            "cache_dir=%r, local_files_only=True))" % hub)
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, HF_HUB_OFFLINE="1"),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stdout.strip().endswith(commit), proc.stderr
