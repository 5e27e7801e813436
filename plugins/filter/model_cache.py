# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters of the model caches; docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cache as model_cache, manifests, pull_marker


def claim_fate(claim, volume=None):
    """What deleting a dynamically provisioned claim does to its volume (its PV's reclaim policy)."""
    for label, value in (("claim", claim), ("volume", volume)):
        if value is not None and not isinstance(value, dict):
            raise AnsibleFilterError("claim_fate: the %s must be an object (k8s_info resource) or none, got %s"
                                     % (label, type(value).__name__))
    return model_cache.claim_fate(claim, volume)


def human_bytes(count):
    """Bytes as a short IEC size, e.g. 92274688 -> '88.0 MiB'."""
    try:
        return model_cache.human_bytes(int(count or 0))
    except (TypeError, ValueError):
        raise AnsibleFilterError("human_bytes: expects a number of bytes, got %r" % (count,))


def claim_pull_record(claim):
    """What a model claim records of its pull (annotations by marker field) and its slug label."""
    if not isinstance(claim, dict):
        raise AnsibleFilterError("claim_pull_record: expects a claim object (k8s_info resource), got %s"
                                 % type(claim).__name__)
    return pull_marker.claim_pull_record(claim)


def rollback_target(claim, digest=None):
    """``{"revision": ..., "note": ...}``: the revision a rollback of this claim switches to (or none, and why)."""
    if not isinstance(claim, dict):
        raise AnsibleFilterError("rollback_target: expects a claim object (k8s_info resource), got %s"
                                 % type(claim).__name__)
    revision, note = pull_marker.rollback_target((claim.get("metadata") or {}).get("annotations") or {}, digest or None)
    return {"revision": revision, "note": note}


def revision_line(revision):
    """One kept revision as a line of the cache listing: digest, tag, commit and pull time."""
    if not isinstance(revision, dict):
        raise AnsibleFilterError("revision_line: expects one of claim_pull_record's revisions, got %s"
                                 % type(revision).__name__)
    return "%s (%s, commit %s, pulled %s)" % (revision.get("digest"), revision.get("tag") or "no tag recorded",
                                              (revision.get("commit") or "?")[:12], revision.get("pulled_at") or "?")


def model_claim_reset(record):
    """The merge patch that drops one model claim's record of its pull."""
    try:
        return manifests.claim_reset_patch(record)
    except (manifests.StorageError, KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("model_claim_reset: expects a plan record with a Harbor model source: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {
            "claim_fate": claim_fate,
            "human_bytes": human_bytes,
            "claim_pull_record": claim_pull_record,
            "model_claim_reset": model_claim_reset,
            "rollback_target": rollback_target,
            "revision_line": revision_line,
        }
