# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one OCI reference parser and the pinned ``name@digest`` references built on it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference as ref_mod

DIGEST = "sha256:" + "ab" * 32


@pytest.mark.parametrize("ref, parts", [
    ("harbor.harbor.svc.cluster.local/ai-models/nomic:1.5.0",
     ("harbor.harbor.svc.cluster.local", "ai-models/nomic", "1.5.0", None)),
    ("localhost:5000/ai-models/m@" + DIGEST, ("localhost:5000", "ai-models/m", None, DIGEST)),
    ("registry.local:8443/p/sub/m:v1@" + DIGEST, ("registry.local:8443", "p/sub/m", "v1", DIGEST)),
])
def test_parse_oci_reference(ref, parts):
    got = ref_mod.parse_oci_reference(ref)
    assert (got["registry"], got["repository"], got["tag"], got["digest"]) == parts


@pytest.mark.parametrize("ref, why", [
    ("ai-models/m:v1", "not an OCI reference"),
    ("harbor.local/m:v1", "not an OCI reference"),
    ("harbor.local/p/m", "neither a tag nor a digest"),
    ("harbor.local/p/m@sha256:abc", "not an OCI reference"),
    ("harbor.local/p/M:v1", "not an OCI reference"),
    (5, "must be a string"),
])
def test_bad_oci_reference(ref, why):
    with pytest.raises(ValueError, match=why):
        ref_mod.parse_oci_reference(ref)


@pytest.mark.parametrize("reference, digest, expected", [
    ("harbor.example/ai-models/minilm:v1", DIGEST, "harbor.example/ai-models/minilm@" + DIGEST),
    ("reg:5000/p/m@" + "sha256:" + "a" * 64, DIGEST, "reg:5000/p/m@" + DIGEST),
    ("reg:5000/p/m:v1@" + "sha256:" + "a" * 64, DIGEST, "reg:5000/p/m@" + DIGEST),
])
def test_pinned_reference(reference, digest, expected):
    assert ref_mod.pinned_reference(reference, digest) == expected


@pytest.mark.parametrize("reference, digest", [("not a ref", DIGEST), ("reg:5000/p/m:v1", None),
                                               ("reg:5000/p/m:v1", "v1")])
def test_pinned_reference_refuses(reference, digest):
    with pytest.raises(ValueError):
        ref_mod.pinned_reference(reference, digest)


@pytest.mark.parametrize("image,digest,expect", [
    ("ghcr.io/llm-d/sim:v0.7.1", None, "ghcr.io/llm-d/sim:v0.7.1"),
    ("ghcr.io/llm-d/sim:v0.7.1", "sha256:ab", "ghcr.io/llm-d/sim@sha256:ab"),
    ("127.0.0.1:5000/up/sim:v1", "sha256:ab", "127.0.0.1:5000/up/sim@sha256:ab"),
    ("127.0.0.1:5000/up/sim", "sha256:ab", "127.0.0.1:5000/up/sim@sha256:ab"),
    ("r.io/x:v1@sha256:00", "sha256:ab", "r.io/x@sha256:ab")])
def test_source_reference(image, digest, expect):
    assert ref_mod.source_reference(image, digest) == expect


# --- names as containerd and Docker resolve them (issue 26, defect 6) -------------------------------------

@pytest.mark.parametrize("image, normal", [
    ("vllm/vllm-openai:v0.14.1-cu130", "docker.io/vllm/vllm-openai:v0.14.1-cu130"),
    ("busybox", "docker.io/library/busybox:latest"),
    ("busybox:1.36", "docker.io/library/busybox:1.36"),
    ("docker.io/busybox:1.36", "docker.io/library/busybox:1.36"),
    ("index.docker.io/vllm/vllm-openai:v1", "docker.io/vllm/vllm-openai:v1"),
    ("registry-1.docker.io/library/busybox", "docker.io/library/busybox:latest"),
    ("vllm/vllm-openai@" + DIGEST, "docker.io/vllm/vllm-openai@" + DIGEST),
    ("vllm/vllm-openai:v1@" + DIGEST, "docker.io/vllm/vllm-openai:v1@" + DIGEST),
    ("ghcr.io/llm-d/llm-d-cuda:v0.3.0", "ghcr.io/llm-d/llm-d-cuda:v0.3.0"),
    ("localhost/p/n", "localhost/p/n:latest"),
    ("localhost:5000/n:1", "localhost:5000/n:1"),
    ("harbor.local:8443/p/n", "harbor.local:8443/p/n:latest"),
    ("not an image", "not an image"),  # unparsable: returned as written
])
def test_normalize_image_resolves_like_containerd(image, normal):
    assert ref_mod.normalize_image(image) == normal


def test_split_image_and_registry():
    assert ref_mod.split_image("vllm/vllm-openai:v1") == ("docker.io", "vllm/vllm-openai", "v1", None)
    assert ref_mod.image_registry("nginx") == "docker.io"
    assert ref_mod.image_registry("harbor.local/p/n:1") == "harbor.local"
    assert ref_mod.image_registry("") is None
    assert ref_mod.normalize_registry("index.docker.io/") == "docker.io"
    for bad in ("", "a b", "n@sha256:", "n:"):
        with pytest.raises(ValueError):
            ref_mod.split_image(bad)


SOURCES = {"vllm/vllm-openai:v1": "oci:/srv/mirror:vllm-v1", "busybox:1.36": "oci:/srv/mirror:busybox",
           "ghcr.io/llm-d/llm-d-cuda:v0.3.0": "oci:/srv/mirror:cuda"}


@pytest.mark.parametrize("image, wanted", [
    ("vllm/vllm-openai:v1", "oci:/srv/mirror:vllm-v1"),                    # the key as written
    ("docker.io/vllm/vllm-openai:v1", "oci:/srv/mirror:vllm-v1"),          # the form image_plan and the lock use
    ("index.docker.io/vllm/vllm-openai:v1", "oci:/srv/mirror:vllm-v1"),
    ("docker.io/library/busybox:1.36", "oci:/srv/mirror:busybox"),
    ("ghcr.io/llm-d/llm-d-cuda:v0.3.0", "oci:/srv/mirror:cuda"),
    ("vllm/vllm-openai:v2", None),                                         # another tag is another image
    ("ghcr.io/vllm/vllm-openai:v1", None),                                 # another registry too
    ("not an image", None),
])
def test_image_lookup_finds_an_entry_by_the_image_it_names(image, wanted):
    """bundle.yml's aips_bundle_image_sources: a Docker Hub short name key matches its fully qualified image."""
    assert ref_mod.image_lookup(SOURCES, image) == wanted


def test_image_lookup_prefers_the_key_written_as_the_image_and_takes_no_mapping():
    both = {"docker.io/library/busybox:1.36": "full", "busybox:1.36": "short"}
    assert ref_mod.image_lookup(both, "busybox:1.36") == "short"
    assert ref_mod.image_lookup(both, "docker.io/library/busybox:1.36") == "full"
    assert ref_mod.image_lookup(None, "busybox:1.36") is None and ref_mod.image_lookup({}, "busybox") is None
