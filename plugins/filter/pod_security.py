# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Pod Security filters: namespace labels, the collection's clear Job, the pods that mount a claim."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def pod_security_labels(levels):
    """``{enforce: restricted}`` -> ``{pod-security.kubernetes.io/enforce: restricted}``."""
    return filter_call("pod_security_labels", pod_security.namespace_labels, levels)


def model_clear_job(record, uid=pod_security.DEFAULT_UID, active_deadline_seconds=600):
    """The Job that empties one model's claim (hub/, marker, staging), restricted like the pull Job."""
    try:
        return manifests.clear_job_manifest(record, uid=int(uid), active_deadline_seconds=int(active_deadline_seconds))
    except (manifests.StorageError, ValueError, KeyError, TypeError) as exc:
        raise AnsibleFilterError("model_clear_job: %s" % exc)


def claim_users(objects, claim, skip_jobs=None):
    """``namespace/name`` of the pods or workloads that mount ``claim`` (the collection's Jobs left out)."""
    if not isinstance(objects, list):
        raise AnsibleFilterError("claim_users: expects a list of pods or workloads, got %s" % type(objects).__name__)
    return claims.claim_users(objects, claim, tuple(skip_jobs or ()))


class FilterModule(object):
    def filters(self):
        return {
            "pod_security_labels": pod_security_labels,
            "model_clear_job": model_clear_job,
            "claim_users": claim_users,
        }
