# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Reading an artifact's manifest for the preflight: digest check, sizes, basic and bearer auth."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution as pull_artifact
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import basic_auth

LAYERS = [
    {"digest": "sha256:" + "1" * 64, "size": 40, "annotations": {pull_artifact.TITLE: "models--o--n/refs/main"}},
    {"digest": "sha256:" + "2" * 64, "size": 1000,
     "annotations": {pull_artifact.TITLE: "models--o--n/snapshots/abc/model.safetensors"}},
    {"digest": "sha256:" + "3" * 64, "size": 60,
     "annotations": {pull_artifact.TITLE: "models--o--n/snapshots/abc/config.json"}},
]
MANIFEST = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "layers": LAYERS, "annotations": {pull_artifact.REPO_ANNOTATION: "o/n",
                                                         pull_artifact.REVISION_ANNOTATION: "abc"}}).encode()
DIGEST = "sha256:" + hashlib.sha256(MANIFEST).hexdigest()


def test_summarize():
    info = pull_artifact.summarize(MANIFEST, DIGEST)
    assert info["digest"] == DIGEST and info["size"] == 1100
    assert info["layer_count"] == 3 and info["file_count"] == 2
    assert info["repo_id"] == "o/n" and info["revision"] == "abc"


def test_summarize_counts_every_layer_of_a_modelpack_artifact_as_a_file():
    layers = [{"digest": "sha256:" + "2" * 64, "size": 1000, "mediaType": "application/vnd.cncf.model.weight.v1.raw",
               "annotations": {pull_artifact.TITLE: "model.safetensors", "org.cncf.model.filepath": "model.safetensors"}},
              {"digest": "sha256:" + "3" * 64, "size": 60, "mediaType": "application/vnd.cncf.model.weight.config.v1.raw",
               "annotations": {pull_artifact.TITLE: "1_Pooling/config.json",
                               "org.cncf.model.filepath": "1_Pooling/config.json"}}]
    body = json.dumps({"schemaVersion": 2, "artifactType": "application/vnd.cncf.model.manifest.v1+json",
                       "layers": layers}).encode()
    info = pull_artifact.summarize(body)
    assert info["layer_count"] == 2 and info["file_count"] == 2 and info["size"] == 1060
    assert info["artifact_type"] == "application/vnd.cncf.model.manifest.v1+json"


def test_summarize_refuses_a_body_that_does_not_match_its_digest():
    with pytest.raises(pull_artifact.ArtifactError, match="not the digest"):
        pull_artifact.summarize(MANIFEST, "sha256:" + "f" * 64)


def test_parse_challenge():
    scheme, params = pull_artifact.parse_challenge(
        'Bearer realm="https://h/service/token",service="harbor-registry",scope="repository:a/b:pull"')
    assert scheme == "bearer" and params["realm"] == "https://h/service/token"
    assert params["scope"] == "repository:a/b:pull"


class Transport(object):
    def __init__(self, mode, password="right"):
        self.mode = mode
        self.password = password
        self.calls = []

    def __call__(self, method, url, headers):
        self.calls.append((url, headers.get("Authorization")))
        auth = headers.get("Authorization")
        if "/service/token" in url:
            if auth != basic_auth("robot$p", self.password):
                return 401, {}, b""
            return 200, {}, json.dumps({"token": "T"}).encode()
        if self.mode == "bearer":
            if auth != "Bearer T":
                return 401, {"Www-Authenticate": 'Bearer realm="https://h/service/token",service="harbor-registry"'}, b""
        elif self.mode == "basic":
            if auth != basic_auth("robot$p", self.password):
                return 401, {"WWW-Authenticate": 'Basic realm="r"'}, b""
        if url.endswith("/manifests/missing"):
            return 404, {}, b""
        return 200, {"Docker-Content-Digest": DIGEST}, MANIFEST


@pytest.mark.parametrize("mode", ["basic", "bearer", "anonymous"])
def test_tag_resolves_with_each_auth_scheme(mode):
    send = Transport(mode)
    registry = pull_artifact.Registry("h", "robot$p", "right", send)
    info = pull_artifact.artifact_info(registry, "ai-models/n", tag="v1")
    assert info["digest"] == DIGEST and info["size"] == 1100
    if mode == "bearer":
        assert any("scope=repository%3Aai-models%2Fn%3Apull" in url for url, _auth in send.calls)


@pytest.mark.parametrize("mode", ["basic", "bearer"])
def test_wrong_credentials_are_named_without_the_password(mode):
    registry = pull_artifact.Registry("h", "robot$p", "wrong", Transport(mode))
    with pytest.raises(pull_artifact.ArtifactError) as err:
        pull_artifact.artifact_info(registry, "ai-models/n", tag="v1")
    assert "rejected user 'robot$p'" in str(err.value) and "wrong" not in str(err.value)


def test_missing_artifact_says_how_to_publish_it():
    registry = pull_artifact.Registry("h", "robot$p", "right", Transport("basic"))
    with pytest.raises(pull_artifact.ArtifactError, match="model_sync"):
        pull_artifact.artifact_info(registry, "ai-models/n", tag="missing")


def test_pinned_digest_must_match():
    registry = pull_artifact.Registry("h", None, None, Transport("anonymous"))
    assert pull_artifact.artifact_info(registry, "ai-models/n", digest=DIGEST)["digest"] == DIGEST
