# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model storage objects built from one model plan record, as plain dicts.

Pure functions, no cluster access: the claim (``<slug>-model``), the on-prem
static hostPath PV (``<slug>-model-pv``), the ORAS pull Job (``<slug>-model-pull``)
running storage/pull_script.py's script, the prune and clear Jobs on a claim, the
claim reset patch, and the Job's spec hash and action (Jobs are immutable, a changed
spec means a replaced Job). What the pull records is storage/marker.py's; the checks
on claims and volumes are storage/claims.py's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import ACCESS_RWO, STORAGE_HARBOR
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference as oci_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry_tools
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import repo_folder
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_marker import (
    ANNOTATED_KEYS, ANNOTATION_DIGEST, ANNOTATION_REFERENCE)
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_script import (
    CLEAR_SCRIPT, PERMANENT_EXIT_CODE, PRUNE_SCRIPT, PULL_SCRIPT)

ANNOTATION_SPEC_HASH = naming.annotation_key("spec_hash")

CONTAINER = "oras-pull"
# The registry config (harbor-creds' .dockerconfigjson) lives off /root: the Job runs as a non-root
# uid, and both DOCKER_CONFIG and oras --registry-config point here.
DOCKER_CONFIG_DIR = "/etc/aips/registry"
# The only writable path besides the claim (the root filesystem is read-only): HOME and TMPDIR.
SCRATCH_DIR = "/tmp"
SCRATCH_SIZE = "64Mi"
# A pull that runs longer than this is killed (a hung oras must not hold the claim forever).
DEFAULT_DEADLINE_SECONDS = 14400
DEFAULT_PROGRESS_SECONDS = 10
BACKOFF_LIMIT = 3
TTL_SECONDS = 86400

DEFAULT_RESOURCES = {"requests": {"cpu": "250m", "memory": "256Mi", "ephemeral-storage": "16Mi"},
                     "limits": {"cpu": "2", "memory": "1Gi", "ephemeral-storage": "256Mi"}}


class StorageError(Exception):
    """A record cannot be turned into storage objects; the message says why."""


def labels(record):
    return naming.model_labels(record["slug"], naming.COMPONENT_MODEL_CACHE)


def _storage(record):
    storage = record.get("storage") or {}
    if storage.get("mode") != STORAGE_HARBOR:
        raise StorageError("%s: storage mode is %r, not harbor: there is nothing to pull"
                           % (record.get("slug"), storage.get("mode")))
    return storage


def pinned_reference(record, digest):
    return oci_reference.pinned_reference(_storage(record)["oci"]["reference"], digest)


def pv_manifest(record, storage_class=""):
    """The static hostPath PV of an on-prem record; None when the record has no PV."""
    storage = _storage(record)
    if not storage.get("pv"):
        return None
    node = storage.get("hostpath_node")
    if not node or not storage.get("hostpath_dir"):
        raise StorageError("%s: an on-prem PV needs hostpath_node and hostpath_dir" % record["slug"])
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": storage["pv"], "labels": labels(record)},
        "spec": {
            "capacity": {"storage": storage["size"]},
            "accessModes": [ACCESS_RWO],
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": storage_class,
            "volumeMode": "Filesystem",
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "namespace": record["namespace"], "name": storage["pvc"]},
            "hostPath": {"path": storage["hostpath_dir"], "type": "Directory"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": naming.HOSTNAME_LABEL, "operator": "In", "values": [node]}]}]}},
        },
    }


def pvc_manifest(record, hostpath_storage_class=""):
    """The model claim: RWO bound to the static PV on-prem; on cloud the record's access mode (RWO unless
    modelSource.accessMode says ReadWriteMany) and class (or the cluster's default)."""
    storage = _storage(record)
    spec = {
        "accessModes": [storage.get("access_mode") or ACCESS_RWO],
        "resources": {"requests": {"storage": storage["size"]}},
        "volumeMode": "Filesystem",
    }
    if storage.get("pv"):
        spec["storageClassName"] = hostpath_storage_class
        spec["volumeName"] = storage["pv"]
    elif storage.get("storage_class"):
        spec["storageClassName"] = storage["storage_class"]
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": storage["pvc"], "namespace": record["namespace"], "labels": labels(record)},
        "spec": spec,
    }


def job_affinity(record, follow_model_affinity=True):
    """Pin to the hostPath node; else (a dynamic claim binds where its first pod lands) the model's nodes."""
    storage = _storage(record)
    if storage.get("job_affinity"):
        return copy.deepcopy(storage["job_affinity"])
    if follow_model_affinity and record.get("affinity"):
        return copy.deepcopy(record["affinity"])
    return None


def _job_pod_spec(record, container, volumes, uid, affinity):
    """The restricted pod of the pull and clear Jobs: non-root, no API token, the model's tolerations and
    placement, the record's pull secret for the ORAS image."""
    secret = (record.get("names") or {}).get("harbor_pull_secret")
    pod_spec = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": pod_security.pod_security_context(uid),
        "containers": [container],
        "volumes": volumes,
    }
    if affinity:
        pod_spec["affinity"] = affinity
    if record.get("tolerations"):
        pod_spec["tolerations"] = copy.deepcopy(record["tolerations"])
    if secret:
        pod_spec["imagePullSecrets"] = [{"name": secret}]
    return pod_spec


def holder_affinity(node):
    """Required node affinity to ``node`` (the node whose pods hold a single-node claim)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": naming.HOSTNAME_LABEL, "operator": "In", "values": [node]}]}]}}}


def job_manifest(record, digest, expected_size=0, concurrency=4, verify=False, http2=False, resources=None,
                 follow_model_affinity=True, image_pull_policy="IfNotPresent", uid=pod_security.DEFAULT_UID,
                 active_deadline_seconds=DEFAULT_DEADLINE_SECONDS, progress_seconds=DEFAULT_PROGRESS_SECONDS,
                 holder_node=None):
    """The pull Job for ``record``, pinned to the manifest ``digest``; annotated with its spec hash.

    Its pod passes Pod Security "restricted": it runs as ``uid`` (group and fsGroup too), drops
    every capability, uses RuntimeDefault seccomp and a read-only root filesystem; it writes only
    the claim and an emptyDir at /tmp. CPU, memory and ephemeral storage are limited, and the Job
    is killed after ``active_deadline_seconds``. Without ``http2``, oras keeps to HTTP/1.1, one connection per
    blob (GODEBUG). ``holder_node`` (claim_holder_node) places it on
    the node whose serving pods hold a single-node claim; it is left out of the spec hash, so a
    Job already done is not replaced because the serving pods moved.
    """
    storage = _storage(record)
    if not digest or not str(digest).startswith("sha256:"):
        raise StorageError("%s: the pull Job needs the artifact's manifest digest (sha256:...), got %r"
                           % (record["slug"], digest))
    secret = (record.get("names") or {}).get("harbor_pull_secret")
    env = [
        {"name": "AIPS_CACHE_DIR", "value": storage["mount_path"]},
        {"name": "AIPS_WORKING_DIR", "value": storage["working_dir"]},
        {"name": "AIPS_MARKER", "value": storage["marker"]},
        {"name": "AIPS_PINNED_REFERENCE", "value": pinned_reference(record, digest)},
        {"name": "AIPS_DIGEST", "value": digest},
        {"name": "AIPS_SOURCE_REFERENCE", "value": storage["oci"]["reference"]},
        # where a ModelPack artifact's files go (an hf-cache artifact's titles name it themselves)
        {"name": "AIPS_REPO_FOLDER", "value": repo_folder(storage["repo_id"])},
        {"name": "AIPS_EXPECTED_SIZE", "value": str(int(expected_size or 0))},
        {"name": "AIPS_CONCURRENCY", "value": str(int(concurrency))},
        {"name": "AIPS_VERIFY", "value": "1" if verify else "0"},
        {"name": "AIPS_PROGRESS_SECONDS", "value": str(max(1, int(progress_seconds)))},
        {"name": "HOME", "value": SCRATCH_DIR},
        {"name": "TMPDIR", "value": SCRATCH_DIR},
    ]
    if not http2:   # one HTTP/1.1 connection per blob (pull_job_settings' http2, registry.tools.GO_HTTP1)
        env.append({"name": "GODEBUG", "value": registry_tools.GO_HTTP1})
    mounts = [{"name": "model-cache", "mountPath": storage["mount_path"]},
              {"name": "scratch", "mountPath": SCRATCH_DIR}]
    volumes = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": storage["pvc"]}},
               {"name": "scratch", "emptyDir": {"sizeLimit": SCRATCH_SIZE}}]
    if secret:
        env.append({"name": "DOCKER_CONFIG", "value": DOCKER_CONFIG_DIR})
        env.append({"name": "AIPS_REGISTRY_CONFIG", "value": DOCKER_CONFIG_DIR + "/config.json"})
        mounts.append({"name": "docker-config", "mountPath": DOCKER_CONFIG_DIR, "readOnly": True})
        volumes.append({"name": "docker-config", "secret": {
            "secretName": secret, "items": [{"key": ".dockerconfigjson", "path": "config.json"}]}})
    container = {
        "name": CONTAINER,
        "image": storage["oras_image"],
        "imagePullPolicy": image_pull_policy,
        "command": ["/bin/sh", "-c", PULL_SCRIPT],
        "workingDir": storage["working_dir"],
        "env": env,
        "resources": pod_security.with_limits(resources, DEFAULT_RESOURCES),
        "securityContext": pod_security.container_security_context(),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": mounts,
    }
    pod_spec = _job_pod_spec(record, container, volumes, uid, job_affinity(record, follow_model_affinity))
    spec = {
        "backoffLimit": BACKOFF_LIMIT,
        "ttlSecondsAfterFinished": TTL_SECONDS,
        "activeDeadlineSeconds": int(active_deadline_seconds),
        "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {
            "containerName": CONTAINER, "operator": "In", "values": [PERMANENT_EXIT_CODE]}}]},
        "template": {"metadata": {"labels": labels(record)}, "spec": pod_spec},
    }
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": storage["pull_job"],
            "namespace": record["namespace"],
            "labels": labels(record),
            "annotations": {ANNOTATION_SPEC_HASH: spec_hash(spec), ANNOTATION_DIGEST: digest,
                            ANNOTATION_REFERENCE: storage["oci"]["reference"]},
        },
        "spec": spec,
    }
    return placed(job, holder_node) if holder_node else job


def placed(job, holder_node):
    """A copy of the pull Job ``job`` (job_manifest's) placed on ``holder_node``, the node whose serving pods hold a
    single-node claim (none: unchanged). Its spec hash stays the unplaced one, so a Job already done is not replaced
    because the serving pods moved; model_pull_job places the Job model_storage_state built, not a second build."""
    job = copy.deepcopy(job)
    if holder_node:
        job["spec"]["template"]["spec"]["affinity"] = holder_affinity(holder_node)
    return job


CLEAR_CONTAINER = "clear"
PRUNE_CONTAINER = "prune"
CLEAR_RESOURCES = {"requests": {"cpu": "50m", "memory": "32Mi", "ephemeral-storage": "1Mi"},
                   "limits": {"cpu": "500m", "memory": "64Mi", "ephemeral-storage": "16Mi"}}


def clear_job_manifest(record, uid=pod_security.DEFAULT_UID, active_deadline_seconds=600):
    """The Job that empties the model's claim (the ORAS image's shell), restricted like the pull Job."""
    return _claim_job_manifest(record, "clear_job", CLEAR_CONTAINER, CLEAR_SCRIPT, [], uid, active_deadline_seconds)


def prune_job_manifest(record, keep_digests, holder_node=None, uid=pod_security.DEFAULT_UID,
                       active_deadline_seconds=600):
    """The Job that removes every revision of the claim but ``keep_digests`` and the served one."""
    storage = _storage(record)
    env = [{"name": "AIPS_CACHE_DIR", "value": storage["mount_path"]},
           {"name": "AIPS_WORKING_DIR", "value": storage["working_dir"]},
           {"name": "AIPS_MARKER", "value": storage["marker"]},
           {"name": "AIPS_KEEP", "value": " ".join(keep_digests)}]
    job = _claim_job_manifest(record, "prune_job", PRUNE_CONTAINER, PRUNE_SCRIPT, env, uid, active_deadline_seconds)
    if holder_node:
        job["spec"]["template"]["spec"]["affinity"] = holder_affinity(holder_node)
    return job


def _claim_job_manifest(record, name_key, container_name, script, env, uid, active_deadline_seconds):
    """A short maintenance Job on the model's claim (the ORAS image's shell), restricted like the pull Job."""
    storage = _storage(record)
    container = {
        "name": container_name,
        "image": storage["oras_image"],
        "command": ["/bin/sh", "-c", script],
        "resources": copy.deepcopy(CLEAR_RESOURCES),
        "securityContext": pod_security.container_security_context(),
        "volumeMounts": [{"name": "model-cache", "mountPath": storage["mount_path"]}],
    }
    if env:
        container["env"] = env
    volumes = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": storage["pvc"]}}]
    pod_spec = _job_pod_spec(record, container, volumes, uid, job_affinity(record, follow_model_affinity=False))
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": storage[name_key], "namespace": record["namespace"], "labels": labels(record)},
        "spec": {
            "backoffLimit": 1,
            "ttlSecondsAfterFinished": 600,
            "activeDeadlineSeconds": int(active_deadline_seconds),
            "template": {"metadata": {"labels": labels(record)}, "spec": pod_spec},
        },
    }


def spec_hash(spec):
    """A stable hash of the spec we asked for (the API adds defaults, so live specs are not compared)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def job_action(existing, wanted, replace_failed=True):
    """What to do with the live Job: ``create``, ``keep`` or ``replace``, and why."""
    if not existing:
        return "create", "no pull Job exists"
    have = ((existing.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_SPEC_HASH)
    want = wanted["metadata"]["annotations"][ANNOTATION_SPEC_HASH]
    if have != want:
        return "replace", "the Job's spec changed (Jobs are immutable)"
    if replace_failed and job_condition(existing, "Failed"):
        return "replace", "the previous Job failed; a new run retries"
    return "keep", "the Job is up to date"


def job_condition(job, kind):
    for condition in ((job or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            return condition
    return None


def claim_reset_patch(record):
    """The merge patch of a model's claim that drops its record of the pull (every pvc_annotations key)."""
    storage = _storage(record)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": storage["pvc"], "namespace": record["namespace"],
                         "annotations": dict((naming.annotation_key(key), None) for key in ANNOTATED_KEYS)}}
