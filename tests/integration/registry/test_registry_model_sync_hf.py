# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_sync with source=hf against a loopback Hugging Face mirror (hf_mirror.py).

huggingface_hub really downloads (repo info, tree, resolve, a cross-origin redirect
for the LFS weights); the mirror records where the token went.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import hf_mirror
from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.tests.support.registry import model_sync_vars

TOKEN = "hf_" + "Q" * 30
KEY = "harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:%s"


@pytest.fixture
def mirror():
    server = hf_mirror.Mirror(hub_fixture.minilm_dir(), hub_fixture.MINILM_REPO, hub_fixture.MINILM_COMMIT).start()
    yield server
    server.stop()


def sync_vars(registry, tools, tmp_path, mirror, models, **overrides):
    overrides.setdefault("model_sync_cache_dir", str(tmp_path / "hf-cache" / "hub"))
    return model_sync_vars(registry, tools, tmp_path / "work", tmp_path / "models.lock.yml", models,
                           model_sync_hf_endpoint=mirror.endpoint, model_sync_hf_token=TOKEN, **overrides)


def test_mirror_download_gets_no_token_and_matches_the_local_artifact(registry, tools, tmp_path, mirror,
                                                                      minilm_hub, run_role):
    models = [
        dict(repo_id=hub_fixture.MINILM_REPO, revision="main", tag="hf-mirror", artifact="all-minilm-l6-v2"),
        dict(repo_id=hub_fixture.MINILM_REPO, revision="main", tag="hf-local", artifact="all-minilm-l6-v2",
             source="local_cache", local_path=minilm_hub),
    ]
    run = run_role("model_sync", sync_vars(registry, tools, tmp_path, mirror, models), verbosity=4)
    assert run.rc == 0, run
    assert TOKEN not in run.output
    hub_requests = [r for r in mirror.requests if r[0] == "hub"]
    assert any("/resolve/" in r[2] for r in hub_requests)
    assert any(r[0] == "cdn" for r in mirror.requests), "the LFS weights should come through the redirect"
    assert [r for r in mirror.requests if r[3] is not None] == [], "a huggingface.co token reached a mirror"
    lock = yaml.safe_load((tmp_path / "models.lock.yml").read_text())["models"]
    downloaded, local = lock[KEY % "hf-mirror"], lock[KEY % "hf-local"]
    assert downloaded["revision"] == hub_fixture.MINILM_COMMIT
    # Reproducible manifest: the downloaded cache and the locally built one are the same artifact.
    assert downloaded["digest"] == local["digest"]
    assert downloaded["file_count"] == local["file_count"] == 13


def test_token_goes_to_its_own_origin_only(registry, tools, tmp_path, mirror, run_role):
    models = [dict(repo_id=hub_fixture.MINILM_REPO, revision=hub_fixture.MINILM_COMMIT, tag="hf-token",
                   artifact="all-minilm-l6-v2", allow_patterns=["*.json", "*.safetensors", "*.txt"])]
    run = run_role("model_sync", sync_vars(registry, tools, tmp_path, mirror, models,
                                           model_sync_hf_token_origin=mirror.endpoint))
    assert run.rc == 0, run
    hub = [r for r in mirror.requests if r[0] == "hub"]
    cdn = [r for r in mirror.requests if r[0] == "cdn"]
    assert hub and all(r[3] == "Bearer " + TOKEN for r in hub)
    assert cdn and all(r[3] is None for r in cdn), "the token followed the redirect to another origin"
    assert not any(r[2].endswith("README.md") for r in mirror.requests), "allow_patterns not applied to the download"
    entry = yaml.safe_load((tmp_path / "models.lock.yml").read_text())["models"][KEY % "hf-token"]
    assert entry["file_count"] == 11
