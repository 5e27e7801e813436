# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_sync decisions that need no registry: input checks, source selection, check mode."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import CacheError
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.tools import RegistryError


def params(**extra):
    out = dict((k, v.get("default")) for k, v in model_sync.argspec().items())
    out.update(repo_id="org/model", revision="main", reference="reg.example/ai-models/model:v1")
    out.update(extra)
    return out


@pytest.mark.parametrize("extra,error,message", [
    (dict(repo_id="model"), CacheError, "must look like <org>/<name>"),
    (dict(reference="reg.example/ai-models/model@sha256:" + "a" * 64), RegistryError, "must name a tag"),
    (dict(reference="model:v1"), RegistryError, "not an OCI reference"),
    (dict(source="local_dir", local_path="/nonexistent", revision="main"), CacheError, "40-character commit"),
    (dict(source="local_dir", local_path="/nonexistent", revision="a" * 40), CacheError, "does not exist"),
    (dict(source="local_cache", local_path="/nonexistent"), CacheError, "not in the hub cache"),
])
def test_refused_before_contacting_a_registry(extra, error, message):
    with pytest.raises(error, match=message):
        model_sync.sync(params(**extra))


def test_hf_source_in_check_mode_reads_the_cache_only(tmp_path, monkeypatch):
    def no_download(_params):
        raise AssertionError("check mode must not download")
    monkeypatch.setattr(model_sync, "download", no_download)
    with pytest.raises(CacheError, match="not in the hub cache"):
        model_sync.collect(params(source="hf", cache_dir=str(tmp_path)), check_mode=True)
    result = model_sync.sync(params(source="hf", cache_dir=str(tmp_path)), check_mode=True)
    assert result["changed"] and result["digest"] is None and "would download" in result["msg"]


def test_download_binds_the_token_to_its_origin(monkeypatch, tmp_path):
    calls = []

    class FakeHub:
        @staticmethod
        def snapshot_download(**kwargs):
            calls.append(kwargs)

    import sys
    monkeypatch.setitem(sys.modules, "huggingface_hub", FakeHub)
    base = dict(hf_token="hf_secret", cache_dir=str(tmp_path), allow_patterns=["*.json"], ignore_patterns=None)
    model_sync.download(params(hf_endpoint="https://hf-mirror.example", **base))
    model_sync.download(params(**base))
    assert calls[0]["token"] is False and calls[0]["endpoint"] == "https://hf-mirror.example"
    assert calls[1]["token"] == "hf_secret" and calls[1]["allow_patterns"] == ["*.json"]
