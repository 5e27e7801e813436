# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lock file the deploy reads (models.lock.yml): read once, pushed digests and a bundle load's sections merged,
written back in one text format.

Pure functions but ``read`` and ``write``. ``merge`` takes the document read, the results of the model_sync module (or
of a bundle load's model pushes) and returns the new document: every result with a digest becomes the entry of its
reference under the lock registry (check mode leaves the digest null for a model that would be pushed: its entry
stays as it was), a bundle load's ``images`` and ``charts`` sections are merged in recursively, other keys are kept.
``render`` writes a document as the role's template did (the header comment, then Ansible's ``to_nice_yaml`` with
indent 2 and sorted keys), so a run that changes nothing leaves an existing lock file byte for byte.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import tempfile

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference as oci_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import mappings

try:
    import yaml
    # the dumper Ansible's to_nice_yaml builds on: libyaml's when PyYAML has it (its line folding is libyaml's)
    from ansible.module_utils.common.yaml import SafeDumper
except ImportError:  # reported by the module (HAS_YAML)
    yaml = SafeDumper = None

LOCK_VERSION = 1
# What the role has written above the document since its first release (its template models.lock.yml.j2 did).
HEADER = (
    "# Written by the ai_platform.serving.model_sync role; do not edit by hand.\n"
    "# One entry per published model, keyed by the tag reference a modelSource.harborRef\n"
    "# names; deployments pin pinned_reference (<registry>/<project>/<artifact>@sha256:...).\n"
    "# A bundle load adds images (by source) and charts (by name) with the digests they were pushed with: on-prem,\n"
    "# serving_stack deploys those by digest (the charts as oci://<harbor>/<project>/<name>@sha256:...).\n"
)
RESULT_KEYS = ("repo_id", "revision", "reference", "size", "file_count")
MODE = 0o644


class LockError(ValueError):
    """The lock file or a result cannot be used; the message names the file or the model."""


# read_text's refusals in the lock file's words
READ_MESSAGES = {
    safe_yaml.UNREADABLE: "the lock file {path} {reason}",  # cannot be read (<why>)
    safe_yaml.TOO_LARGE: "the lock file {path} is over {limit} bytes: is it a lock file?",
    safe_yaml.NOT_UTF8: "the lock file {path} is {reason}",  # not UTF-8 text
}


def read(path):
    """``(text, document)`` of the lock file at ``path``, read once: ``(None, {})`` when there is no file, ``{}`` for
    an empty one. Read and parsed by the collection's one YAML reader, under its size, alias and depth limits."""
    try:
        text = safe_yaml.read_text(path, missing_ok=True)
        if text is None:
            return None, {}
        document = safe_yaml.loads(text, path)
    except safe_yaml.YamlFileError as exc:
        raise LockError(READ_MESSAGES.get(exc.kind, "{error}").format(
            path=path, reason=exc.reason, limit=safe_yaml.MAX_BYTES, error=exc))
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise LockError("the lock file %s holds a %s, not a mapping (lock_version, models, ...): move it aside"
                        % (path, type(document).__name__))
    return text, document


def model_key(registry, pushed_reference):
    """The lock's key of a pushed reference: its repository and tag under ``registry`` (the name the cluster pulls
    from), whatever host it was pushed to."""
    return "%s/%s" % (registry, pushed_reference.split("/", 1)[-1])


def model_entry(registry, result):
    """The lock entry ``(key, entry)`` of one model_sync result with a digest."""
    missing = [key for key in RESULT_KEYS if key not in result]
    if missing:
        raise LockError("a result with digest %s lacks %s: pass the registered results of the model_sync module"
                        % (result.get("digest"), ", ".join(missing)))
    key = model_key(registry, result["reference"])
    try:
        pinned = oci_reference.pinned_reference(key, result["digest"])
        name = (result.get("item") or {}).get("name") or \
            oci_reference.parse_oci_reference(key)["repository"].rsplit("/", 1)[-1]
    except ValueError as exc:
        raise LockError("%s (pushed as %s): %s" % (key, result["reference"], exc))
    return key, {
        "name": name,
        "repo_id": result["repo_id"],
        "revision": result["revision"],
        "reference": key,
        "digest": result["digest"],
        "pinned_reference": pinned,
        "size": result["size"],
        "file_count": result["file_count"],
    }


def merge(document, results, registry, sections=None):
    """The lock document after a run: ``document`` (what the lock file held) with the results that carry a digest
    as the entries of their references under ``registry``, and ``sections`` (a bundle load's images and charts)
    merged in recursively. Other models and keys are kept; ``document`` is not changed."""
    models = document.get("models") or {}
    if not isinstance(models, dict):
        raise LockError("the lock file's models is a %s, not a mapping of references" % type(models).__name__)
    models = copy.deepcopy(models)
    for result in results or []:
        if result.get("digest"):
            key, entry = model_entry(registry, result)
            models[key] = entry
    merged = mappings.merged(document, sections)
    merged["lock_version"] = LOCK_VERSION
    merged["models"] = models
    return merged


def render(document):
    """The text of the lock file: the header comment, then the document as ``to_nice_yaml(indent=2,
    sort_keys=true)`` writes it."""
    return HEADER + yaml.dump(document, Dumper=SafeDumper, allow_unicode=True, default_flow_style=False, indent=2,
                              sort_keys=True)


def write(path, text):
    """Write ``text`` to ``path`` (mode 0644) through a temporary file beside it and a rename, so a reader sees the
    old file or the new one, never part of one. A symlink is followed: the file it points to is replaced."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        handle, partial = tempfile.mkstemp(prefix=".%s." % os.path.basename(target), suffix=".partial", dir=directory)
    except (IOError, OSError) as exc:
        raise LockError("cannot write the lock file %s in %s (%s)" % (path, directory, exc.strerror or exc))
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(text.encode("utf-8"))
        os.chmod(partial, MODE)
        os.replace(partial, target)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise
