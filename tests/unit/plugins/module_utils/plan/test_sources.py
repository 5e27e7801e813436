"""OCI references, hub paths, model URIs and quantities."""

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import sources as src

DIGEST = "sha256:" + "ab" * 32


def test_parse_model_uri():
    assert src.parse_model_uri("hub/Qwen/Qwen3-0.6B")["repo_id"] == "Qwen/Qwen3-0.6B"


@pytest.mark.parametrize("uri", ["Qwen/Qwen3", "hub/Qwen", "hub/a/b/c", "cache/a/b", "hub/a/..", "hub/a--b/c", ""])
def test_bad_model_uri(uri):
    with pytest.raises(ValueError, match="hub/<org>/<name>"):
        src.parse_model_uri(uri)


def test_pvc_hf_uri():
    assert src.pvc_hf_uri("qwen3-0-6b", "hub/Qwen/Qwen3-0.6B") == "pvc+hf://qwen3-0-6b-model/hub/Qwen/Qwen3-0.6B"


@pytest.mark.parametrize("uri, parts", [
    ("pvc://model-storage/llama-3-2-1b-instruct", (None, "model-storage", "llama-3-2-1b-instruct")),
    ("pvc://llama-demo:model-storage/llama/3", ("llama-demo", "model-storage", "llama/3")),
    ("pvc://claim/dir/", (None, "claim", "dir")),
])
def test_parse_pvc_uri(uri, parts):
    got = src.parse_pvc_uri(uri)
    assert (got["namespace"], got["claim"], got["sub_path"]) == parts
    assert got["chart_uri"] == "pvc://%s/%s" % (parts[1], parts[2])


@pytest.mark.parametrize("uri, why", [
    ("pvc://model-storage", "missing sub-path"),
    ("pvc://model-storage/", "missing sub-path"),
    ("pvc://:claim/x", "empty namespace"),
    ("pvc://Bad_NS:claim/x", "not a DNS label"),
    ("pvc://Claim/x", "not a valid PersistentVolumeClaim name"),
    ("pvc://claim/a/../b", "plain relative path"),
    ("s3://bucket/x", "pvc://"),
])
def test_bad_pvc_uri(uri, why):
    with pytest.raises(ValueError, match=why):
        src.parse_pvc_uri(uri)


@pytest.mark.parametrize("quantity, size", [
    ("5Gi", 5 * 1024 ** 3), ("40Gi", 40 * 1024 ** 3), ("500M", 500 * 1000 ** 2), ("1.5Gi", 3 * 1024 ** 3 // 2),
    ("1e3", 1000), ("2048", 2048), (1024, 1024), ("1Ti", 1024 ** 4),
])
def test_parse_quantity(quantity, size):
    assert src.parse_quantity(quantity) == size


@pytest.mark.parametrize("quantity", ["40GB", "lots", "", "-5Gi", "5 Gi", True, None, "0"])
def test_bad_quantity(quantity):
    with pytest.raises(ValueError):
        src.parse_quantity(quantity)
