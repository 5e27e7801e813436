# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The claims family: a model claim and the cache it holds - what it records of its pulls, what deleting it does,
who mounts it, and the patch and Job that clear it (module_utils/storage/). Docs in the <filter>.yml files beside
this one; tests in tests/unit/plugins/filter/test_claims.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.pod_security import DEFAULT_UID
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import (
    cache as model_cache, claims, manifests, pull_marker)


def _claim(name, claim):
    if not isinstance(claim, dict):
        raise AnsibleFilterError("%s: expects a claim object (k8s_info resource), got %s" % (name, type(claim).__name__))
    return claim


def claim_fate(claim, volume=None):
    """What deleting a dynamically provisioned claim does to its volume (its PV's reclaim policy)."""
    for label, value in (("claim", claim), ("volume", volume)):
        if value is not None and not isinstance(value, dict):
            raise AnsibleFilterError("claim_fate: the %s must be an object (k8s_info resource) or none, got %s"
                                     % (label, type(value).__name__))
    return model_cache.claim_fate(claim, volume)


def claim_pull_record(claim):
    """What a model claim records of its pull (annotations by marker field) and its slug label."""
    return pull_marker.claim_pull_record(_claim("claim_pull_record", claim))


def rollback_target(claim, digest=None):
    """``{"revision": ..., "note": ...}``: the revision a rollback of this claim switches to (or none, and why)."""
    return pull_marker.claim_rollback_target(_claim("rollback_target", claim), digest)


def claim_users(objects, claim, skip_jobs=None):
    """``namespace/name`` of the pods or workloads that mount ``claim`` (the collection's Jobs left out)."""
    if not isinstance(objects, list):
        raise AnsibleFilterError("claim_users: expects a list of pods or workloads, got %s" % type(objects).__name__)
    return claims.claim_users(objects, claim, tuple(skip_jobs or ()))


def model_claim_reset(record):
    """The merge patch that drops one model claim's record of its pull."""
    try:
        return manifests.claim_reset_patch(record)
    except (manifests.StorageError, KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("model_claim_reset: expects a plan record with a Harbor model source: %s" % exc)


def model_clear_job(record, uid=DEFAULT_UID, active_deadline_seconds=600):
    """The Job that empties one model's claim (hub/, marker, staging), restricted like the pull Job."""
    try:
        return manifests.clear_job_manifest(record, uid=int(uid), active_deadline_seconds=int(active_deadline_seconds))
    except (manifests.StorageError, ValueError, KeyError, TypeError) as exc:
        raise AnsibleFilterError("model_clear_job: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {
            "claim_fate": claim_fate,
            "claim_pull_record": claim_pull_record,
            "rollback_target": rollback_target,
            "claim_users": claim_users,
            "model_claim_reset": model_claim_reset,
            "model_clear_job": model_clear_job,
        }
