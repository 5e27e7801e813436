# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Registry plumbing shared by the oras, skopeo and helm based modules.

Credentials never go on a command line: they are written to a docker-style
``config.json`` in a private temporary directory that every tool reads
(oras ``--registry-config``, skopeo ``--authfile``, helm ``--registry-config``)
and that is removed afterwards.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import re
import shutil
import tempfile

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import Reference, parse_oci_reference, pinned_reference

AUTH_FAILURE_RE = re.compile(r"\b401\b|unauthorized|authentication required|invalid username/password", re.I)
NOT_FOUND_RE = re.compile(r"\bnot[ _]found\b|manifest unknown|name unknown|\b404\b", re.I)
DENIED_RE = re.compile(r"\b403\b|denied|forbidden", re.I)


# The Go runtime setting that keeps net/http's client on HTTP/1.1. oras, skopeo and helm are Go programs:
# against a registry that offers HTTP/2 (Harbor's nginx does, so does the lab's registry) Go multiplexes every
# concurrent blob transfer over one TLS connection, which serializes the encryption on one core at each end.
# With one HTTP/1.1 connection per blob, as curl's separate transfers have, oras pulled 1 GiB in 9 blobs in
# 2.1-2.3 s instead of 3.2-3.9 s inside the lab's pull Job, and pushed it in 4.6 s instead of 5.2-6.1 s.
GO_HTTP1 = "http2client=0"


def go_http1_env(environ=None):
    """``environ`` (default: this process's) with ``GODEBUG`` keeping Go's HTTP client on HTTP/1.1 (GO_HTTP1).

    A ``GODEBUG`` that already sets ``http2client`` is left as it is; other settings in it are kept.
    """
    env = dict(os.environ if environ is None else environ)
    settings = [item for item in env.get("GODEBUG", "").split(",") if item.strip()]
    if not any(item.strip().startswith("http2client=") for item in settings):
        settings.append(GO_HTTP1)
    env["GODEBUG"] = ",".join(settings)
    return env


class RegistryError(Exception):
    """A registry operation failed; the message is safe to show."""


def parse_reference(ref):
    """Split ``host[:port]/project/name[:tag][@sha256:...]``; raise RegistryError if malformed."""
    try:
        parts = parse_oci_reference(ref)
    except ValueError as exc:
        raise RegistryError("%r: %s" % (ref, exc))
    return Reference(parts["registry"], parts["repository"], parts["tag"], parts["digest"])


def pinned(ref, digest):
    """``host/repo:tag`` + digest -> ``host/repo@sha256:...`` (reference.pinned_reference); RegistryError if malformed."""
    try:
        return pinned_reference(ref, digest)
    except ValueError as exc:
        raise RegistryError("%r: %s" % (ref, exc))


def _b64(text):
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def secret_forms(secret, users=()):
    """The strings ``secret`` can appear as in tool output: itself, its base64, and the base64 of
    ``user:secret`` (a docker config ``auth`` field, a Basic ``Authorization`` header) for each user,
    with and without base64 padding."""
    forms = {secret, _b64(secret)}
    for user in users or ():
        if user:
            forms.add(_b64("%s:%s" % (user, secret)))
    forms.update([form.rstrip("=") for form in list(forms) if form.endswith("=")])
    return sorted((form for form in forms if len(form) >= 4 or form == secret), key=len, reverse=True)


def redact(text, secrets, users=()):
    """Replace every secret, its base64 form and the base64 ``user:secret`` auth form with ``********``.

    ``users`` are the user names the secrets go with (a docker config stores ``base64(user:password)``).
    """
    if not text:
        return text
    for secret in secrets:
        if secret:
            for form in secret_forms(secret, users):
                text = text.replace(form, "********")
    return text


def docker_config(credentials):
    """``{registry: (user, password)}`` -> docker config.json content."""
    auths = {}
    for registry, (user, password) in sorted(credentials.items()):
        if user and password:
            token = base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")
            auths[registry] = {"auth": token}
    return {"auths": auths}


class AuthDir:
    """Private temp dir with ``config.json`` (and ``certs.d`` layout for skopeo).

    Use as a context manager; everything is removed on exit.
    """

    def __init__(self, credentials, ca_file=None):
        self.credentials = credentials
        self.ca_file = ca_file
        self.path = None

    def __enter__(self):
        self.path = tempfile.mkdtemp(prefix="aips-auth-")
        os.chmod(self.path, 0o700)
        fd = os.open(self.config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(docker_config(self.credentials), handle)
        if self.ca_file:
            # skopeo reads a directory of *.crt files
            os.makedirs(self.cert_dir)
            shutil.copyfile(self.ca_file, os.path.join(self.cert_dir, "ca.crt"))
        return self

    @property
    def config(self):
        return os.path.join(self.path, "config.json")

    @property
    def cert_dir(self):
        return os.path.join(self.path, "certs")

    def __exit__(self, *exc):
        shutil.rmtree(self.path, ignore_errors=True)
        return False


def explain_failure(tool, registry, user, output):
    """Turn a tool's error output into one clear message naming the registry."""
    output = (output or "").strip()
    last = output.splitlines()[-1] if output else "no output"
    if AUTH_FAILURE_RE.search(output):
        return ("registry %s rejected the credentials%s (HTTP 401 Unauthorized): check the user name "
                "and token/password configured for %s. %s said: %s"
                % (registry, " of user %r" % user if user else " (none were given)", registry, tool, last))
    if DENIED_RE.search(output):
        return ("registry %s denied the request%s (HTTP 403): the account may lack push/pull permission on the "
                "project, or the project does not exist. %s said: %s"
                % (registry, " of user %r" % user if user else "", tool, last))
    if "x509" in output or "certificate" in output.lower():
        return ("TLS verification of registry %s failed: give the CA that signed its certificate "
                "(ca_file). %s said: %s" % (registry, tool, last))
    if "connection refused" in output or "no such host" in output:
        return "registry %s is unreachable. %s said: %s" % (registry, tool, last)
    return "%s failed against registry %s: %s" % (tool, registry, last)


def is_not_found(output):
    return bool(NOT_FOUND_RE.search(output or "")) and not AUTH_FAILURE_RE.search(output or "")
