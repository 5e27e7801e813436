# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks on model claims and their volumes, on plan records and objects as the API returns them.

Who still mounts a claim and on which node (a single-node claim's Jobs follow its serving
pods), whether a claim's recorded pull is the plan's artifact, whether a storage size holds
the artifact (the preflight), whether a user-owned (``pvc://``) claim is usable, and why an
existing claim or PV cannot be used as the plan wants it (claims and PVs are never changed).
Pure functions.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import ACCESS_RWO
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_marker import (
    ANNOTATION_DIGEST, ANNOTATION_REFERENCE)

# Access modes that attach a claim to one node at a time.
SINGLE_NODE_MODES = (ACCESS_RWO, "ReadWriteOncePod")


def single_node_claim(storage):
    """True when a record's claim attaches to one node only and the plan does not pin its Jobs (a dynamic
    ReadWriteOnce claim: a Job on another node than its serving pods would wait on Multi-Attach)."""
    return not storage.get("job_affinity") and storage.get("access_mode", ACCESS_RWO) in SINGLE_NODE_MODES


def claim_holder_node(record, pods, skip_jobs=()):
    """The node whose running pods mount the record's claim, when the claim attaches to one node only
    (ReadWriteOnce on a dynamic class: another node's Job would wait on Multi-Attach); else None.
    A hostPath claim is already pinned to its node by the plan."""
    storage = record.get("storage") or {}
    if not single_node_claim(storage):
        return None
    users = set(claim_users(pods, storage["pvc"], skip_jobs))
    nodes = sorted(set(
        (pod.get("spec") or {}).get("nodeName") for pod in pods or []
        if "%s/%s" % ((pod.get("metadata") or {}).get("namespace"), (pod.get("metadata") or {}).get("name")) in users
        and (pod.get("status") or {}).get("phase") == "Running" and (pod.get("spec") or {}).get("nodeName")))
    return nodes[0] if nodes else None


def claim_users(objects, claim, skip_jobs=()):
    """``namespace/name`` of the pods (running or pending) or workloads (a pod template) that mount ``claim``.

    Pods of the Jobs named in ``skip_jobs`` (the collection's own) are left out.
    """
    users = []
    for obj in objects or []:
        meta = obj.get("metadata") or {}
        phase = (obj.get("status") or {}).get("phase")
        if obj.get("kind", "Pod") == "Pod" and phase in ("Succeeded", "Failed"):
            continue
        if (meta.get("labels") or {}).get("job-name") in skip_jobs:
            continue
        spec = obj.get("spec") or {}
        volumes = ((spec.get("template") or {}).get("spec") or spec).get("volumes") or []
        if any((v.get("persistentVolumeClaim") or {}).get("claimName") == claim for v in volumes):
            users.append("%s/%s" % (meta.get("namespace"), meta.get("name")))
    return sorted(users)


def claim_plan_problem(record, annotations):
    """Why a claim's recorded pull is not the plan's artifact (None when it is, or when nothing is recorded).

    The claim's ``reference`` annotation is the pinned reference the pull Job pulled
    (``host/repository@sha256:...``): its repository must be the plan's, and when the plan
    pins a digest (``harborRef`` with ``@sha256:``) the digest must be exactly that one.
    """
    annotations = annotations or {}
    digest = annotations.get(ANNOTATION_DIGEST)
    if not digest:
        return None
    oci = ((record or {}).get("storage") or {}).get("oci") or {}
    planned_repo = "%s/%s" % (oci.get("registry"), oci.get("repository"))
    reference = annotations.get(ANNOTATION_REFERENCE) or ""
    pulled_repo = reference.split("@", 1)[0]
    name = (record or {}).get("name") or (record or {}).get("slug")
    fix = "run model_storage first (site.yml --tags storage) so the claim holds the planned artifact"
    if pulled_repo and pulled_repo != planned_repo:
        return ("%s: its claim holds %s (%s), but the plan wants %s. Fix: %s"
                % (name, pulled_repo, digest, oci.get("reference") or planned_repo, fix))
    if oci.get("digest") and oci["digest"] != digest:
        return ("%s: its claim holds %s, but the plan pins %s. Fix: %s" % (name, digest, oci["digest"], fix))
    return None


def preflight_problem(slug, storage_size, storage_bytes, artifact_bytes, headroom_percent=10):
    """None when ``storage_bytes`` holds the artifact plus headroom; else the message to fail with."""
    artifact_bytes = int(artifact_bytes)
    needed = artifact_bytes + (artifact_bytes * int(headroom_percent) + 99) // 100
    if int(storage_bytes) >= needed:
        return None
    gib = 1024 ** 3
    suggested = max(1, -(-needed // gib))
    return ("%s: storageSize %s (%d bytes) cannot hold the artifact: its layers total %d bytes, %d with "
            "the %d%% headroom. Set modelSource.storageSize to at least %dGi; nothing was created"
            % (slug, storage_size, int(storage_bytes), artifact_bytes, needed, int(headroom_percent), suggested))


def claim_problems(record, pvc, replicas=1):
    """Problems with a user-owned claim (``pvc://``): it must exist, be Bound, and allow the replicas."""
    storage = record.get("storage") or {}
    name = storage.get("claim")
    namespace = storage.get("namespace") or record.get("namespace")
    where = "%s/%s" % (namespace, name)
    if not pvc:
        return ["%s: the user-owned claim %s does not exist. The collection never creates, changes or deletes a "
                "pvc:// claim: create it (bound to a volume holding the model under '%s'), or fix modelSource"
                % (record.get("slug"), where, storage.get("sub_path"))]
    problems = []
    status = pvc.get("status") or {}
    phase = status.get("phase")
    if phase != "Bound":
        problems.append("%s: the user-owned claim %s is %s, not Bound: it has no volume yet (kubectl describe pvc "
                        "%s -n %s shows why)" % (record.get("slug"), where, phase or "without a phase", name, namespace))
    modes = status.get("accessModes") or (pvc.get("spec") or {}).get("accessModes") or []
    if replicas > 1 and modes and all(mode in SINGLE_NODE_MODES for mode in modes):
        problems.append("%s: the user-owned claim %s is %s but %d serving replicas are planned: all but one would "
                        "fail to mount it. Use a ReadOnlyMany or ReadWriteMany claim, or plan one replica"
                        % (record.get("slug"), where, "/".join(modes), replicas))
    return problems


def pvc_conflicts(wanted, live):
    """Why an existing claim cannot be used as is (claims are never changed); empty when it fits."""
    if not live:
        return []
    problems = []
    wspec, lspec = wanted["spec"], live.get("spec") or {}
    if "storageClassName" in wspec and lspec.get("storageClassName") != wspec["storageClassName"]:
        problems.append("storageClassName is %r, the plan wants %r"
                        % (lspec.get("storageClassName"), wspec["storageClassName"]))
    if wspec.get("volumeName") and lspec.get("volumeName") and lspec["volumeName"] != wspec["volumeName"]:
        problems.append("it is bound to volume %s, the plan wants %s" % (lspec["volumeName"], wspec["volumeName"]))
    if lspec.get("accessModes") and lspec["accessModes"] != wspec["accessModes"]:
        problems.append("its access modes are %s, the plan wants %s (modelSource.accessMode)"
                        % (", ".join(lspec["accessModes"]), ", ".join(wspec["accessModes"])))
    return problems


def pv_conflicts(wanted, live):
    """Why an existing PV does not match the plan (path, node, claim)."""
    if not live or not wanted:
        return []
    problems = []
    wspec, lspec = wanted["spec"], live.get("spec") or {}
    if (lspec.get("hostPath") or {}).get("path") != wspec["hostPath"]["path"]:
        problems.append("its hostPath is %r, the plan wants %r"
                        % ((lspec.get("hostPath") or {}).get("path"), wspec["hostPath"]["path"]))
    if lspec.get("nodeAffinity") != wspec["nodeAffinity"]:
        problems.append("its node affinity differs from hostpathNode")
    ref = lspec.get("claimRef") or {}
    if ref and (ref.get("namespace"), ref.get("name")) != (wspec["claimRef"]["namespace"], wspec["claimRef"]["name"]):
        problems.append("it is claimed by %s/%s" % (ref.get("namespace"), ref.get("name")))
    return problems
