# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Harbor models a run has to pull at all, decided for every model of the plan at once.

model_storage's per-model path (Lease, pull Job, wait, claim record) is only needed for a model whose claim
does not already record the planned artifact. ``settle`` decides that for one model from the objects one
list call per kind returned (claims, PVs, pull Jobs; ``index_objects``), ``settled_result`` gives the result
the wait would have returned for a settled model (from the claim's record alone). Pure functions on plain
dicts, unit-tested on fixtures; reading the lock file is artifacts.py's.

A model is settled, and nothing is done for it, only when all of these hold: its claim (and on-prem PV)
exists and matches the plan; the claim records the digest the plan resolves to, pulled from the plan's
repository; its pull Job exists, is Complete, pulled that digest and has the spec this run would create
(so a changed Job setting still replaces it). Anything else goes the per-model way, which names the model,
the object and the fix on an error, exactly as before.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests, pull_marker

SETTLED = "the claim records the planned digest and its pull Job is Complete with the spec of this run"


def index_objects(items):
    """``{(namespace, name): object}`` of a list call's items (namespace None for cluster-scoped objects)."""
    found = {}
    for item in items or []:
        meta = (item or {}).get("metadata") or {}
        if meta.get("name"):
            found[(meta.get("namespace"), meta["name"])] = item
    return found


def live_objects(record, claims, volumes, jobs):
    """The live claim, PV and pull Job of ``record`` from the indexes of ``index_objects`` (None when absent)."""
    storage = record["storage"]
    namespace = record["namespace"]
    return {
        "pvc": claims.get((namespace, storage["pvc"])),
        "pv": volumes.get((None, storage["pv"])) if storage.get("pv") else None,
        "job": jobs.get((namespace, storage["pull_job"])),
    }


def _annotations(obj):
    return ((obj or {}).get("metadata") or {}).get("annotations") or {}


def settle(record, digest, wanted_job, live, hostpath_storage_class="", replace_failed=True):
    """``(True, SETTLED)`` when ``record`` needs no pull Job, no wait and no claim record this run; else
    ``(False, why)``.

    ``wanted_job`` is the pull Job this run would create (manifests.job_manifest with the run's options);
    ``live`` the record's objects (``live_objects``).
    """
    storage = record["storage"]
    pvc = live.get("pvc")
    if pvc is None:
        return False, "no claim %s/%s yet" % (record["namespace"], storage["pvc"])
    if claims.pvc_conflicts(manifests.pvc_manifest(record, hostpath_storage_class), pvc):
        return False, "the claim differs from the plan"
    wanted_pv = manifests.pv_manifest(record, hostpath_storage_class)
    if wanted_pv:
        if live.get("pv") is None:
            return False, "no PersistentVolume %s yet" % storage["pv"]
        if claims.pv_conflicts(wanted_pv, live["pv"]):
            return False, "the PersistentVolume differs from the plan"
    annotations = _annotations(pvc)
    recorded = annotations.get(pull_marker.ANNOTATION_DIGEST)
    if recorded != digest:
        return False, ("the claim records %s, the plan resolves to %s" % (recorded, digest) if recorded
                       else "the claim records no pull")
    problem = claims.claim_plan_problem(record, annotations)
    if problem:
        return False, "the claim holds another artifact than the plan's"
    job = live.get("job")
    action, why = manifests.job_action(job, wanted_job, replace_failed)
    if action != "keep":
        return False, why
    if _annotations(job).get(pull_marker.ANNOTATION_DIGEST) != digest:
        return False, "the pull Job pulled another digest"
    if not manifests.job_condition(job, "Complete"):
        return False, "the pull Job has not completed"
    return True, SETTLED


def settled_result(pvc):
    """What the wait returns for a model whose claim already records the pull (reused, nothing pulled), from
    the claim's annotations: digest, size, files, metadata, marker, annotations."""
    annotations = _annotations(pvc)
    marker = pull_marker.annotations_marker(annotations)
    return {
        "digest": marker.get("digest"),
        "size": marker.get("size"),
        "files": marker.get("files"),
        "reused": True,
        "switched": False,
        "pull_seconds": 0,
        "verify_seconds": 0,
        "fetched_bytes": 0,
        "fetched_files": 0,
        "reused_files": marker.get("files"),
        "metadata": pull_marker.model_metadata(marker),
        "marker": marker,
    }


def claim_annotations(pvc):
    """The annotations of a live claim (``{}`` for none)."""
    return dict(_annotations(pvc))


def storage_result(record, held, why=SETTLED, annotations=None):
    """The role's ``model_storage_results`` entry of a settled model (``held``: its ``settled_result``), in the
    shape of a pulled model's entry: nothing pulled, the claim, PV and Job kept; ``claim_annotations`` are the
    claim's as read (``annotations``), so that serving_stack need not read the claim again."""
    storage = record["storage"]
    job = {"pvc": "present", "job": "kept", "job_reason": why}
    if storage.get("pv"):
        job["pv"] = "present"
    return {
        "pvc": storage["pvc"],
        "namespace": record["namespace"],
        "reference": (storage.get("oci") or {}).get("reference"),
        "digest": held.get("digest"),
        "size": held.get("size"),
        "files": held.get("files"),
        "metadata": held.get("metadata") or {},
        "pull_duration": None,
        "pull_seconds": 0,
        "verify_seconds": 0,
        "fetched_bytes": 0,
        "fetched_files": 0,
        "reused_files": held.get("files"),
        "reused": True,
        "job": job,
        "claim_annotations": dict(annotations or {}),
    }
