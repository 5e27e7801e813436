# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pull marker and the claim annotations that record a pull and the revisions a claim keeps.

The marker ``/model-cache/.pulled`` is a few ``key=value`` lines. The pull Job writes
it only after every layer was pulled and its sha256 re-checked against the
manifest, which was itself checked against the pinned digest; the same lines go
to the container's termination message so the result can be read from the API,
one ``revision=<digest> <commit> <pulled_at> <tag>`` line per revision kept on the claim.
The result is then recorded as claim annotations (``pvc_annotations``), which the cache
listing, the serving stack and the rollback read back (``annotations_marker``,
``claim_pull_record``, ``claim_revisions``, ``rollback_target``). Pure functions.

Two file counts, one shown: the marker's ``files`` counts the artifact's layers, refs/main too, because the
pull script's reuse check compares it with refs/main plus the snapshot on the claim; ``model_files`` (written
by pulls since it was added) counts the model's files, the snapshot's, as model_sync's ``file_count`` and the
lock file do. Every count a user reads is ``model_file_count``: the claim's ``files`` annotation, the cache
listing, the wait's result and the pull's log lines.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming

ANNOTATION_DIGEST = naming.annotation_key("digest")
ANNOTATION_REFERENCE = naming.annotation_key("reference")
# Marker keys published as PVC annotations (key -> annotation suffix).
ANNOTATED_KEYS = ("digest", "reference", "tag", "commit", "size", "files", "model_files", "pulled_at", "switched_at",
                  "fetched_bytes", "fetched_files", "reused_files", "architectures", "model_type", "torch_dtype",
                  "transformers_version", "revisions")
ANNOTATION_REVISIONS = naming.annotation_key("revisions")
# Revisions a claim keeps beside the served one, by default (serving_stack prunes the rest after a rollout).
DEFAULT_KEEP_REVISIONS = 1
# What a pull moved: bytes and model files over the wire, model files (and bytes) taken from revisions on the claim.
TRANSFER_KEYS = ("fetched_bytes", "fetched_files", "reused_files", "reused_bytes")
METADATA_KEYS = ("architectures", "model_type", "torch_dtype", "transformers_version")


def parse_marker(text):
    """``key=value`` lines -> dict (unknown lines ignored). Integers for size, files, model_files, seconds and the
    pull's transfer figures (``fetched_bytes``/``fetched_files`` from the registry, ``reused_files``/``reused_bytes``
    taken from revisions already on the claim)."""
    result = {}
    revisions = []
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key or " " in key:
            continue
        if key == "revision":
            fields = value.split() + ["", "", "", ""]
            revisions.append({"digest": fields[0], "commit": fields[1], "pulled_at": fields[2], "tag": fields[3]})
            continue
        result[key] = value.strip()
    if revisions:
        result["revisions"] = revisions
    for key in ("size", "files", "model_files", "pull_seconds", "verify_seconds") + TRANSFER_KEYS:
        if key in result:
            try:
                result[key] = int(result[key])
            except ValueError:
                pass
    if "architectures" in result:
        result["architectures"] = [a for a in result["architectures"].split(",") if a]
    return result


def model_file_count(marker):
    """The model's files of a parsed marker or claim record (what model_sync's ``file_count`` counts): its
    ``model_files``; for a marker or claim recorded before that field was written, its ``files`` less refs/main
    (the layer count the reuse check compares); None when neither is known."""
    for key, less in (("model_files", 0), ("files", 1)):
        try:
            count = int((marker or {}).get(key))
        except (TypeError, ValueError):
            continue
        return max(count - less, 0)
    return None


def model_metadata(marker):
    """The config.json facts of a parsed marker."""
    return dict((key, marker.get(key) or ([] if key == "architectures" else None)) for key in METADATA_KEYS)


def pvc_annotations(marker):
    """PVC annotations recording what the claim holds; ``files`` and ``model_files`` both the model's files
    (``model_file_count``: what users read on the claim), the layer count stays in the marker on the claim."""
    annotations = {}
    count = model_file_count(marker)
    if count is not None:
        marker = dict(marker, files=count, model_files=count)
    for key in ANNOTATED_KEYS:
        value = marker.get(key)
        if value in (None, "", []):
            continue
        if key == "revisions":
            value = json.dumps(value, sort_keys=True, separators=(",", ":"))
        elif isinstance(value, list):
            value = ",".join(value)
        annotations[naming.annotation_key(key)] = str(value)
    return annotations


def settled_annotations(reported, current):
    """The annotations to record on a claim from a pull's report (pvc_annotations), given the claim's ``current`` ones.

    A Job kept from an earlier run reports the revisions the claim held then; when the claim already records
    that same pull (digest, pull and switch time), its own revisions list is newer (a prune may have shortened
    it) and is kept, so a re-run changes nothing.
    """
    current = current or {}
    same = all(reported.get(naming.annotation_key(key)) == current.get(naming.annotation_key(key))
               for key in ("digest", "pulled_at", "switched_at"))
    if same and ANNOTATION_REVISIONS in current:
        return dict(reported, **{ANNOTATION_REVISIONS: current[ANNOTATION_REVISIONS]})
    return reported


def claim_revisions(annotations):
    """The revisions a claim records (newest first): dicts with digest, commit, pulled_at, tag; [] if none."""
    try:
        found = json.loads((annotations or {}).get(ANNOTATION_REVISIONS) or "[]")
    except ValueError:
        return []
    return [r for r in found if isinstance(r, dict) and str(r.get("digest", "")).startswith("sha256:")]


def revisions_to_keep(annotations, keep=DEFAULT_KEEP_REVISIONS):
    """(kept, dropped) digests: the served revision plus the ``keep`` newest others stay on the claim."""
    served = (annotations or {}).get(ANNOTATION_DIGEST)
    others = [r["digest"] for r in claim_revisions(annotations) if r["digest"] != served]
    kept = ([served] if served else []) + others[:max(0, int(keep))]
    return kept, others[max(0, int(keep)):]


def rollback_target(annotations, digest=None):
    """The revision a rollback switches to: ``digest`` if given, else the newest kept one pulled before the
    served one (so a second rollback does not undo the first).

    Returns (revision or None, note): a named digest no longer on the claim comes back with
    ``kept: False`` (the rollback pulls it again); None with a note when no earlier revision is kept.
    """
    served = (annotations or {}).get(ANNOTATION_DIGEST)
    revisions = claim_revisions(annotations)
    if digest:
        for revision in revisions:
            if revision["digest"] == digest:
                return dict(revision, kept=True), None
        return {"digest": digest, "kept": False}, None
    served_at = ([r.get("pulled_at") or "" for r in revisions if r["digest"] == served] + [None])[0]
    older = [r for r in revisions if r["digest"] != served and (served_at is None or (r.get("pulled_at") or "") < served_at)]
    if older:
        return dict(max(older, key=lambda r: r.get("pulled_at") or ""), kept=True), None
    return None, ("the claim keeps no revision pulled before the served one (%s): nothing to roll back to. Name "
                  "one with rollback_digest (pulled again when not kept); aips_keep_revisions (serving_stack_keep_revisions "
                  "when the role runs alone) sets how many are kept" % served)


def claim_rollback_target(claim, digest=None):
    """``{"revision": ..., "note": ...}`` of rollback_target for a claim object (k8s_info resource)."""
    revision, note = rollback_target(((claim or {}).get("metadata") or {}).get("annotations") or {}, digest or None)
    return {"revision": revision, "note": note}


def revision_line(revision):
    """One kept revision (of claim_pull_record's ``revisions``) as a line of the cache listing: digest, tag,
    commit and pull time."""
    return "%s (%s, commit %s, pulled %s)" % (revision.get("digest"), revision.get("tag") or "no tag recorded",
                                              (revision.get("commit") or "?")[:12], revision.get("pulled_at") or "?")


def annotations_marker(annotations):
    """The reverse of pvc_annotations, for the cache listing: ``files`` the model's files (also on a claim annotated
    before ``model_files`` was, whose ``files`` counted refs/main)."""
    marker = {}
    prefix = naming.ANNOTATION_PREFIX
    for key, value in (annotations or {}).items():
        if key.startswith(prefix) and key != ANNOTATION_REVISIONS:
            marker[key[len(prefix):].replace("-", "_")] = value
    parsed = parse_marker("\n".join("%s=%s" % item for item in sorted(marker.items())))
    if ANNOTATION_REVISIONS in (annotations or {}):
        parsed["revisions"] = claim_revisions(annotations)
    count = model_file_count(parsed)
    if count is not None:
        parsed["files"] = count
    return parsed


def claim_pull_record(pvc):
    """What a claim records of its pull, by marker field (``digest``, ``pulled_at``, ...), plus its ``slug``
    label and, beside ``revisions``, ``revision_lines`` (each as the cache listing shows it); a field the claim
    does not carry is left out (the cache listing)."""
    meta = (pvc or {}).get("metadata") or {}
    annotations = meta.get("annotations") or {}
    found = dict((key, annotations[naming.annotation_key(key)]) for key in ANNOTATED_KEYS
                 if naming.annotation_key(key) in annotations)
    if "revisions" in found:
        found["revisions"] = claim_revisions(annotations)
        found["revision_lines"] = [revision_line(revision) for revision in found["revisions"]]
    if "files" in found or "model_files" in found:
        found["files"] = model_file_count(found)
    slug = (meta.get("labels") or {}).get(naming.LABEL_SLUG)
    if slug is not None:
        found["slug"] = slug
    return found
