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

import base64
import hashlib
import json
import re

from ansible.module_utils.six.moves.urllib.parse import urlencode, urljoin, urlsplit

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


def _basic(user, password):
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")


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
    return {
        "digest": actual,
        "size": sum(int(layer.get("size") or 0) for layer in layers),
        "layer_count": len(layers),
        "file_count": sum(1 for t in titles if t and "/snapshots/" in t),
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
            headers["Authorization"] = _basic(self.user, self.password)
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

    def manifest(self, repository, reference):
        """(digest, body bytes) of ``repository:reference`` (a tag or a digest)."""
        url = "%s/v2/%s/manifests/%s" % (self.base, repository, reference)
        headers = {"Accept": ACCEPT}
        if self._auth:
            headers["Authorization"] = self._auth
        status, rheaders, body = self.send("GET", url, headers)
        if status == 401 and not self._auth:
            scheme, params = parse_challenge(_header(rheaders, "WWW-Authenticate"))
            if scheme == "bearer" and params.get("realm"):
                self._auth = self._token(params, repository)
            elif self.user and self.password:
                self._auth = _basic(self.user, self.password)
            else:
                raise self._rejected(status)
            headers["Authorization"] = self._auth
            status, rheaders, body = self.send("GET", url, headers)
        if status in (401, 403):
            raise self._rejected(status)
        if status == 404:
            raise ArtifactError("registry %s has no manifest %s:%s: push it with model_sync (playbooks/sync.yml) "
                                "or fix modelSource.harborRef" % (self.endpoint, repository, reference))
        if status != 200:
            raise ArtifactError("registry %s answered HTTP %s for %s:%s"
                                % (self.endpoint, status, repository, reference))
        digest = _header(rheaders, "Docker-Content-Digest")
        if reference.startswith("sha256:"):
            digest = reference
        return digest, body


def _header(headers, name):
    for key, value in (headers or {}).items():
        if key.lower() == name.lower():
            return value
    return None


def artifact_info(registry, repository, tag=None, digest=None):
    """Summary of the artifact at ``digest`` (when pinned) or ``tag``."""
    named, body = registry.manifest(repository, digest or tag)
    info = summarize(body, named if named and named.startswith("sha256:") else None)
    if digest and info["digest"] != digest:
        raise ArtifactError("the manifest's digest is %s, not the pinned %s" % (info["digest"], digest))
    return info


REDIRECTS = (301, 302, 303, 307, 308)
MAX_REDIRECTS = 5


def _origin(url):
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.netloc or "").lower()


def redirect_headers(from_url, to_url, headers):
    """The headers to send to a redirect target: without Authorization when the host (or scheme) changes,
    so a registry's credentials never reach the storage or CDN host it redirects to."""
    if _origin(from_url) == _origin(to_url):
        return dict(headers)
    return dict((key, value) for key, value in headers.items() if key.lower() != "authorization")


def open_url_transport(ca_file=None, validate_certs=True, timeout=30, opener=None):
    """A transport on ansible.module_utils.urls.open_url that follows redirects itself (at most 5),
    dropping the Authorization header whenever a redirect leaves the original host."""
    from ansible.module_utils.six.moves.urllib.error import HTTPError, URLError
    if opener is None:
        from ansible.module_utils.urls import open_url as opener

    def once(method, url, headers):
        try:
            response = opener(url, method=method, headers=headers, ca_path=ca_file, validate_certs=validate_certs,
                              timeout=timeout, follow_redirects="none", force_basic_auth=False)
            return response.getcode(), dict(response.headers.items()), response.read()
        except HTTPError as exc:
            return exc.code, dict(exc.headers.items()) if exc.headers else {}, exc.read() or b""
        except URLError as exc:
            raise ArtifactError("cannot reach %s: %s" % (url.split("/v2/")[0].split("?")[0], exc.reason))
        except Exception as exc:  # ssl errors and timeouts surface as various types
            raise ArtifactError("cannot read %s: %s" % (url.split("?")[0], exc))

    def send(method, url, headers):
        for _hop in range(MAX_REDIRECTS + 1):
            status, rheaders, body = once(method, url, headers)
            location = _header(rheaders, "Location")
            if status not in REDIRECTS or not location:
                return status, rheaders, body
            target = urljoin(url, location)
            headers = redirect_headers(url, target, headers)
            url = target
        raise ArtifactError("too many redirects reading %s" % url.split("?")[0])

    return send
