# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Hugging Face hub cache: layout, revision resolution, file listing, verification.

The hub cache (``HF_HUB_CACHE``) keeps one folder per repository,
``models--<org>--<name>``, holding ``blobs/<etag>`` (the file contents),
``refs/<branch>`` (a commit hash) and ``snapshots/<commit>/<path>`` (symlinks
into ``blobs/``).  An LFS file's etag is the sha256 of its content; a plain git
file's etag is its git blob sha1.  Everything here is pure Python so the module
can verify a cache without huggingface_hub installed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import hashlib
import os
import re
from collections import namedtuple

CHUNK = 1 << 20
COMMIT_RE = re.compile(r"^[0-9a-f]{40}$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
REPO_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*/[A-Za-z0-9][A-Za-z0-9._-]*$")
# Folders a plain model directory may carry that are not model files.
PLAIN_DIR_SKIP = (".git", ".cache", ".huggingface")

CacheFile = namedtuple("CacheFile", ["relpath", "path", "size", "sha256", "blob"])


class CacheError(Exception):
    """A cache that cannot be used as it is, with a message for the user."""


def validate_repo_id(repo_id):
    """Return an error message for a repo id that is not ``<org>/<name>``, else None."""
    if not isinstance(repo_id, str) or not REPO_ID_RE.match(repo_id) or ".." in repo_id:
        return "repo_id %r must look like <org>/<name> (letters, digits, '.', '_', '-')" % (repo_id,)
    return None


def repo_folder(repo_id):
    """``sentence-transformers/all-MiniLM-L6-v2`` -> ``models--sentence-transformers--all-MiniLM-L6-v2``."""
    return "models--" + repo_id.replace("/", "--")


def is_commit(revision):
    return bool(COMMIT_RE.match(revision or ""))


def resolve_revision(repo_dir, revision):
    """Return the commit hash that ``revision`` (a commit or a ref name) names in a cached repo."""
    if is_commit(revision):
        commit = revision
    else:
        ref_file = os.path.join(repo_dir, "refs", revision)
        if not os.path.isfile(ref_file):
            raise CacheError("revision %r is neither a 40-character commit hash nor a ref under %s"
                             % (revision, os.path.join(repo_dir, "refs")))
        with open(ref_file) as handle:
            commit = handle.read().strip()
        if not is_commit(commit):
            raise CacheError("%s holds %r, not a commit hash" % (ref_file, commit))
    if not os.path.isdir(os.path.join(repo_dir, "snapshots", commit)):
        raise CacheError("no snapshot %s in %s" % (commit, os.path.join(repo_dir, "snapshots")))
    return commit


def _pattern_list(patterns):
    if patterns is None:
        return None
    if isinstance(patterns, str):
        patterns = [patterns]
    # "dir/" means everything below dir, as huggingface_hub reads it.
    return [p + "*" if p.endswith("/") else p for p in patterns]


def filter_paths(paths, allow_patterns=None, ignore_patterns=None):
    """Keep the paths matching any allow pattern (all when None) and no ignore pattern."""
    allow = _pattern_list(allow_patterns)
    ignore = _pattern_list(ignore_patterns)
    kept = []
    for path in paths:
        if allow is not None and not any(fnmatch.fnmatch(path, p) for p in allow):
            continue
        if ignore is not None and any(fnmatch.fnmatch(path, p) for p in ignore):
            continue
        kept.append(path)
    return kept


def walk_files(root, skip_dirs=()):
    """Sorted posix paths of the files below ``root`` (symlinked files included)."""
    found = []
    for current, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(current, root)
        dirs[:] = sorted(d for d in dirs if not (rel_dir == "." and d in skip_dirs))
        for name in files:
            rel = name if rel_dir == "." else os.path.join(rel_dir, name)
            found.append(rel.replace(os.sep, "/"))
    return sorted(found)


def hash_file(path, git_sha1=False):
    """Stream a file once: return (sha256 hex, git blob sha1 hex or None, size)."""
    size = os.path.getsize(path)
    sha256 = hashlib.sha256()
    sha1 = None
    if git_sha1:
        sha1 = hashlib.sha1()  # nosec - git's object id, not a security check
        sha1.update(b"blob %d\0" % size)
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(CHUNK)
            if not chunk:
                break
            sha256.update(chunk)
            if sha1 is not None:
                sha1.update(chunk)
    return sha256.hexdigest(), (sha1.hexdigest() if sha1 is not None else None), size


def blob_problem(blob, sha256, sha1):
    """Compare a file's hashes with its content-addressed blob name; return a message or None."""
    if blob is None:
        return None
    if SHA256_RE.match(blob):
        return None if blob == sha256 else "sha256 is %s but its blob is named %s" % (sha256, blob)
    if COMMIT_RE.match(blob):
        return None if blob == sha1 else "git blob id is %s but its blob is named %s" % (sha1, blob)
    return "blob name %s is neither a sha256 nor a git blob id" % blob


def _inspect(relpath, path, blob, verify):
    sha256, sha1, size = hash_file(path, git_sha1=bool(blob and COMMIT_RE.match(blob)))
    problem = blob_problem(blob, sha256, sha1) if verify else None
    return CacheFile(relpath, path, size, sha256, blob), problem


def cached_snapshot(hub_dir, repo_id, revision, allow_patterns=None, ignore_patterns=None, verify=True):
    """Resolve and hash one repo revision in a hub cache.

    Returns ``(commit, files)``; raises CacheError listing every file whose
    content does not match its blob name, before anything is pushed.
    """
    repo_dir = os.path.join(hub_dir, repo_folder(repo_id))
    if not os.path.isdir(repo_dir):
        raise CacheError("%s is not in the hub cache %s (expected %s)" % (repo_id, hub_dir, repo_dir))
    commit = resolve_revision(repo_dir, revision)
    snapshot = os.path.join(repo_dir, "snapshots", commit)
    blobs_dir = os.path.realpath(os.path.join(repo_dir, "blobs"))
    files, problems = [], []
    for rel in filter_paths(walk_files(snapshot), allow_patterns, ignore_patterns):
        link = os.path.join(snapshot, rel)
        real = os.path.realpath(link)
        if not os.path.isfile(real):
            problems.append("%s: dangling link to %s" % (rel, real))
            continue
        blob = os.path.basename(real) if os.path.dirname(real) == blobs_dir else None
        entry, problem = _inspect(rel, real, blob, verify)
        files.append(entry)
        if problem:
            problems.append("%s: %s" % (rel, problem))
    _raise_problems(repo_id, commit, problems)
    if not files:
        raise CacheError("snapshot %s of %s has no files matching the patterns" % (commit, repo_id))
    return commit, files


def plain_directory(model_dir, allow_patterns=None, ignore_patterns=None, checksums=None):
    """Hash the files of a plain model directory (no blobs to check against).

    ``checksums`` maps relative paths to expected sha256 values, checked when given.
    """
    if not os.path.isdir(model_dir):
        raise CacheError("model directory %s does not exist" % model_dir)
    checksums = checksums or {}
    files, problems = [], []
    for rel in filter_paths(walk_files(model_dir, PLAIN_DIR_SKIP), allow_patterns, ignore_patterns):
        expected = checksums.get(rel)
        entry, problem = _inspect(rel, os.path.realpath(os.path.join(model_dir, rel)), expected, True)
        files.append(entry)
        if problem:
            problems.append("%s: %s" % (rel, problem))
    missing = sorted(set(checksums) - set(f.relpath for f in files))
    problems.extend("%s: listed in checksums but not in %s" % (rel, model_dir) for rel in missing)
    _raise_problems(model_dir, None, problems)
    if not files:
        raise CacheError("model directory %s has no files matching the patterns" % model_dir)
    return files


def _raise_problems(what, commit, problems):
    if problems:
        where = "%s@%s" % (what, commit) if commit else what
        raise CacheError("refusing to push %s: %d file(s) failed verification: %s"
                         % (where, len(problems), "; ".join(problems)))


def origin(url):
    """``https://Host:443/x`` -> ``https://host``; used to bind a token to one server."""
    match = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://([^/?#@]*@)?([^/?#:]+|\[[^\]]+\])(:\d+)?", url or "")
    if not match:
        return None
    scheme, host, port = match.group(1).lower(), match.group(3).lower(), match.group(4)
    if port in ((":443" if scheme == "https" else None), (":80" if scheme == "http" else None)):
        port = None
    return "%s://%s%s" % (scheme, host, port or "")


def token_for_endpoint(token, endpoint, token_origin):
    """Return the token only when ``endpoint`` is the origin the token belongs to."""
    if not token:
        return None
    if origin(endpoint) is None or origin(endpoint) != origin(token_origin):
        return None
    return token
