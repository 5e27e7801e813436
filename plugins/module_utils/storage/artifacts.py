# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight read of a model's artifact (digest, size, files) from the lock file or the registry.

One implementation for model_artifact_info (one reference) and model_storage_state (every model of the
plan in one module call: the lock file is read once, the registry connection kept per endpoint).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import parse_oci_reference, pinned_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import TransportError, open_url_transport
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims


class LockError(Exception):
    """The lock file contradicts the reference; the message says how."""


def lock_entry(lock, path, reference, pinned_digest=None):
    """The artifact a parsed lock file (``{models: {reference: {digest, size, ...}}}``) records for
    ``reference``, or None when it has no entry. A lock that records another digest than the one the
    reference pins is a LockError."""
    entry = ((lock or {}).get("models") or {}).get(reference)
    if not entry:
        return None
    if pinned_digest and entry.get("digest") != pinned_digest:
        raise LockError("lock file %s records %s for %s, the reference pins %s"
                        % (path, entry.get("digest"), reference, pinned_digest))
    return dict(digest=entry["digest"], size=int(entry.get("size") or 0), file_count=int(entry.get("file_count") or 0),
                repo_id=entry.get("repo_id"), revision=entry.get("revision"), source="lock")


def require_lock_message(reference, lock_file):
    """Why an unpinned reference fails when the lock is required."""
    return ("%s is not pinned: the lock file %s has no entry for it and it names no digest. Fix: load the "
            "bundle that carries it (playbooks/load.yml writes the lock file), or pin harborRef to "
            "@sha256:<digest>; a lab that deploys by tag sets aips_allow_unpinned: true "
            "(model_storage_require_lock: false)"
            % (reference, lock_file or "(none set)"))


# What resolve() turns into a "<slug>: <message>" failure.
ERRORS = (distribution.ArtifactError, TransportError, ValueError, LockError)


def read_lock(path):
    """The parsed lock file, {} when ``path`` is empty or missing."""
    if not path or not os.path.exists(path):
        return {}
    try:
        return safe_yaml.load_file(path) or {}
    except safe_yaml.YamlFileError as exc:
        raise distribution.ArtifactError("lock_file %s" % exc)


class Resolver(object):
    """Resolves references with the run's registry settings; one Registry per endpoint."""

    def __init__(self, username=None, password=None, ca_file=None, validate_certs=True, timeout=30,
                 registry_endpoint=None, lock_file=None, require_lock=False, locked=None):
        """``locked``: the lock file's model entries (``{reference: entry}``) as the model plan read them from
        ``lock_file``; given, the file is not read again."""
        self.username, self.password = username, password
        self.transport_args = (ca_file, validate_certs, timeout)
        self.endpoint = registry_endpoint
        self.lock_file = lock_file
        self.require_lock = require_lock
        if not lock_file:
            self.lock = {}
        elif locked is not None:
            self.lock = {"models": dict(locked)}
        else:
            self.lock = read_lock(lock_file)
        self.registries = {}

    def registry(self, host):
        host = self.endpoint or host
        if host not in self.registries:
            self.registries[host] = distribution.Registry(host, self.username, self.password,
                                                          open_url_transport(*self.transport_args))
        return self.registries[host]

    def resolve(self, reference):
        """dict(digest, size, file_count, repo_id, revision, source, pinned_reference); raises one of ERRORS."""
        oci = parse_oci_reference(reference)
        info = lock_entry(self.lock, self.lock_file, reference, oci["digest"]) if self.lock_file else None
        if info is None and self.require_lock and not oci["digest"]:
            raise distribution.ArtifactError(require_lock_message(reference, self.lock_file))
        if info is None:
            summary = distribution.artifact_info(self.registry(oci["registry"]), oci["repository"], oci["tag"],
                                                 oci["digest"])
            info = dict(digest=summary["digest"], size=summary["size"], file_count=summary["file_count"],
                        repo_id=summary["repo_id"], revision=summary["revision"], source="registry")
        info["pinned_reference"] = pinned_reference(reference, info["digest"])
        return info


def fit(info, slug, storage_size, storage_bytes, headroom_percent=10):
    """``info`` with ``fits`` and ``problem`` (claims.preflight_problem; fits when no size is given)."""
    problem = None
    if storage_bytes is not None:
        problem = claims.preflight_problem(slug, storage_size or "", storage_bytes, info["size"], headroom_percent)
    return dict(info, fits=problem is None, problem=problem)
