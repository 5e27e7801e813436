# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read a model artifact's manifest from an OCI registry (distribution API v2).

Resolves a tag to its manifest digest (checked against the body's sha256) and
sums the layer sizes, so the pull can be pinned and the claim's size checked
before anything is created. Basic auth and the bearer-token challenge
(Harbor) are handled; the transport is injectable for unit tests.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import re

from urllib.parse import urlencode

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import basic_auth, header

TITLE = "org.opencontainers.image.title"
REPO_ANNOTATION = "dev.ai-platform.serving.hf.repo-id"
REVISION_ANNOTATION = "dev.ai-platform.serving.hf.revision"
ACCEPT = ", ".join([
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
])
_CHALLENGE_RE = re.compile(r'(\w+)="([^"]*)"')


class ArtifactError(Exception):
    """The manifest could not be read; the message is safe to show (no credentials)."""


def parse_challenge(header):
    """``Bearer realm="...",service="...",scope="..."`` -> (scheme, params)."""
    scheme, _sep, rest = (header or "").strip().partition(" ")
    return scheme.lower(), dict(_CHALLENGE_RE.findall(rest))


def summarize(manifest_bytes, digest=None):
    """Digest (verified when given), total layer size, file count, titles and annotations of a manifest."""
    actual = "sha256:" + hashlib.sha256(manifest_bytes).hexdigest()
    if digest and digest != actual:
        raise ArtifactError("the registry sent a manifest whose sha256 is %s, not the digest %s it named"
                            % (actual, digest))
    try:
        manifest = json.loads(manifest_bytes.decode("utf-8"))
    except ValueError:
        raise ArtifactError("the manifest is not JSON")
    layers = manifest.get("layers") or []
    titles = [((layer.get("annotations") or {}).get(TITLE)) for layer in layers]
    annotations = manifest.get("annotations") or {}
    # hf-cache titles are hub cache paths (refs/main is no model file); a ModelPack layer is one file
    hub_paths = any(t and t.startswith("models--") and "/snapshots/" in t for t in titles)
    return {
        "digest": actual,
        "size": sum(int(layer.get("size") or 0) for layer in layers),
        "layer_count": len(layers),
        "file_count": sum(1 for t in titles if t and "/snapshots/" in t) if hub_paths else len(layers),
        "untitled_layers": sum(1 for t in titles if not t),
        "titles": sorted(t for t in titles if t),
        "annotations": annotations,
        "repo_id": annotations.get(REPO_ANNOTATION),
        "revision": annotations.get(REVISION_ANNOTATION),
        "media_type": manifest.get("mediaType"),
        "artifact_type": manifest.get("artifactType"),
    }


class Registry(object):
    """GET manifests over ``send(method, url, headers) -> (status, headers dict, body bytes)``."""

    def __init__(self, endpoint, user=None, password=None, send=None, scheme="https"):
        self.base = "%s://%s" % (scheme, endpoint)
        self.endpoint = endpoint
        self.user = user
        self.password = password
        self.send = send
        self._auth = None

    def _token(self, params, repository):
        query = {"service": params.get("service", "")}
        query["scope"] = params.get("scope") or "repository:%s:pull" % repository
        headers = {"Accept": "application/json"}
        if self.user and self.password:
            headers["Authorization"] = basic_auth(self.user, self.password)
        status, _headers, body = self.send("GET", params["realm"] + "?" + urlencode(query), headers)
        if status in (401, 403):
            raise self._rejected(status)
        if status != 200:
            raise ArtifactError("registry %s: the token service answered HTTP %s" % (self.endpoint, status))
        try:
            data = json.loads(body.decode("utf-8"))
        except ValueError:
            raise ArtifactError("registry %s: the token service sent no JSON" % self.endpoint)
        token = data.get("token") or data.get("access_token")
        if not token:
            raise ArtifactError("registry %s: the token service sent no token" % self.endpoint)
        return "Bearer " + token

    def _rejected(self, status):
        who = "user %r" % self.user if self.user else "anonymous access (no credentials were given)"
        return ArtifactError("registry %s rejected %s (HTTP %s): check the Harbor robot account and token"
                             % (self.endpoint, who, status))

    def _get(self, repository, path, accept):
        """(status, headers, body) of ``GET /v2/<repository>/<path>``, authenticating on the first 401."""
        url = "%s/v2/%s/%s" % (self.base, repository, path)
        headers = {"Accept": accept}
        if self._auth:
            headers["Authorization"] = self._auth
        status, rheaders, body = self.send("GET", url, headers)
        if status == 401 and not self._auth:
            scheme, params = parse_challenge(header(rheaders, "WWW-Authenticate"))
            if scheme == "bearer" and params.get("realm"):
                self._auth = self._token(params, repository)
            elif self.user and self.password:
                self._auth = basic_auth(self.user, self.password)
            else:
                raise self._rejected(status)
            headers["Authorization"] = self._auth
            status, rheaders, body = self.send("GET", url, headers)
        if status in (401, 403):
            raise self._rejected(status)
        return status, rheaders, body

    def manifest(self, repository, reference):
        """(digest, body bytes) of ``repository:reference`` (a tag or a digest)."""
        status, rheaders, body = self._get(repository, "manifests/%s" % reference, ACCEPT)
        if status == 404:
            raise ArtifactError("registry %s has no manifest %s:%s: push it with model_sync (playbooks/sync.yml) "
                                "or fix modelSource.harborRef" % (self.endpoint, repository, reference))
        if status != 200:
            raise ArtifactError("registry %s answered HTTP %s for %s:%s"
                                % (self.endpoint, status, repository, reference))
        digest = header(rheaders, "Docker-Content-Digest")
        if reference.startswith("sha256:"):
            digest = reference
        return digest, body

    def referrers(self, repository, digest):
        """The descriptors of the manifests that refer to ``digest`` (OCI 1.1 referrers API, else the
        ``sha256-<hex>`` tag schema a registry without that API keeps, as oras attach writes it)."""
        index_type = "application/vnd.oci.image.index.v1+json"
        status, _headers, body = self._get(repository, "referrers/%s" % digest, index_type)
        if status == 404:
            status, _headers, body = self._get(repository, "manifests/%s" % digest.replace(":", "-"), index_type)
            if status == 404:
                return []
        if status != 200:
            raise ArtifactError("registry %s answered HTTP %s for the referrers of %s@%s"
                                % (self.endpoint, status, repository, digest))
        try:
            index = json.loads(body.decode("utf-8"))
        except ValueError:
            raise ArtifactError("registry %s sent referrers of %s@%s that are not JSON" % (self.endpoint, repository, digest))
        return [d for d in index.get("manifests") or [] if d.get("digest") != digest and d.get("digest")]

    def blob(self, repository, digest, limit=1024 * 1024):
        """The bytes of a small blob (a signature, a config), checked against ``digest``."""
        status, _headers, body = self._get(repository, "blobs/%s" % digest, "*/*")
        if status != 200:
            raise ArtifactError("registry %s answered HTTP %s for the blob %s@%s" % (self.endpoint, status, repository, digest))
        if len(body) > limit:
            raise ArtifactError("the blob %s@%s is larger than %d bytes" % (repository, digest, limit))
        actual = "sha256:" + hashlib.sha256(body).hexdigest()
        if actual != digest:
            raise ArtifactError("registry %s sent a blob whose sha256 is %s, not %s" % (self.endpoint, actual, digest))
        return body


def artifact_info(registry, repository, tag=None, digest=None):
    """Summary of the artifact at ``digest`` (when pinned) or ``tag``."""
    named, body = registry.manifest(repository, digest or tag)
    info = summarize(body, named if named and named.startswith("sha256:") else None)
    if digest and info["digest"] != digest:
        raise ArtifactError("the manifest's digest is %s, not the pinned %s" % (info["digest"], digest))
    return info
