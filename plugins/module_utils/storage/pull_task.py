# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Harbor path of model_storage as one task (model_storage_pull): its options and the pure steps between modules.

The action ``plugins/action/model_storage_pull.py`` runs the collection's storage modules in order (model_storage_state,
model_namespace, kubernetes.core.k8s for the NetworkPolicies, model_lock, model_pull_job per model, model_pull_wait,
model_lock again) and hands each result to the next step in Python; this file decides what each step is given and
assembles ``model_storage_results``. Pure functions on plain data; the module runs are the action's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import (
    k8s_auth_argspec,
    pull_job_settings_argspec,
)
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select
from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

DEFAULT_POD_SECURITY = {"enforce": "baseline", "warn": "restricted", "audit": "restricted"}
LEASE_MARGIN = 600  # seconds a Lease outlives the wait, so a slow give-back never leaves the namespace held forever

# model_storage_state's own options (doc fragment ai_platform.serving.storage_state), beside the pull Job settings
STATE_OPTIONS = dict(
    registry_username=dict(type="str"),
    registry_password=dict(type="str", no_log=True),
    registry_ca_file=dict(type="path"),
    registry_validate_certs=dict(type="bool", default=True),
    records=dict(type="list", elements="dict", required=True),
    network_policy=dict(type="bool", default=False),
    network_policy_dns=dict(type="list", elements="dict", default=[]),
    network_policy_registry=dict(type="list", elements="dict", default=[]),
    cluster_domain=dict(type="str", default="cluster.local"),
    registry_endpoint=dict(type="str"),
    timeout=dict(type="int", default=30),
    lock_file=dict(type="path"),
    locked=dict(type="dict"),
    require_lock=dict(type="bool", default=False),
    headroom_percent=dict(type="int", default=10),
    hostpath_storage_class=dict(type="str", default=""),
    replace_failed=dict(type="bool", default=True),
    require_signed=dict(type="bool", default=False),
    signing_public_key=dict(type="str"),
)

# what model_storage_pull adds: the plan, the claim checks, the namespaces, the Leases, the wait
PULL_OPTIONS = dict(
    plan=dict(type="raw"),
    plan_artifacts=dict(type="dict"),
    models=dict(type="list", elements="str", default=[]),
    replicas=dict(type="dict", default={}),
    allow_unpinned=dict(type="bool", default=False),
    manage_namespace=dict(type="bool", default=True),
    pod_security=dict(type="dict", default=DEFAULT_POD_SECURITY),
    harbor_hostname=dict(type="str", default=""),
    harbor_user=dict(type="str", default=""),
    harbor_token=dict(type="str", default="", no_log=True),
    lock=dict(type="bool", default=True),
    lock_wait=dict(type="int", default=600),
    wait=dict(type="bool", default=True),
    wait_timeout=dict(type="int", default=1800),
    stuck_grace=dict(type="int", default=30),
)

JOB_SETTINGS = tuple(pull_job_settings_argspec())
ROLE = "model_storage"  # the role whose plan and models variables the plan errors name


def state_argspec():
    """model_storage_state's argument spec."""
    return k8s_auth_argspec(**pull_job_settings_argspec(**dict(STATE_OPTIONS)))


def argspec():
    """model_storage_pull's argument spec: model_storage_state's and PULL_OPTIONS; ``records`` (the Harbor records)
    or ``plan`` (the whole plan, selected here) gives the models."""
    spec = state_argspec()
    spec.update(PULL_OPTIONS)
    spec["records"] = dict(type="list", elements="dict")
    return spec


def records_by_mode(params):
    """``{harbor: [...], claim: [...]}``: the ``records`` given (all Harbor), else the records of ``plan`` that
    ``models`` names (all when empty), checked as every role checks its plan (plan/select.py:select)."""
    if params["records"] is not None:
        return {"harbor": list(params["records"]), "claim": []}
    split = select.by_storage_mode(select.select(params["plan"], params["models"], ROLE))
    return {"harbor": split.get("harbor", []), "claim": split.get("claim", [])}


def claim_check_args(params, record):
    """model_claim_check's arguments for a user-owned claim (``pvc://``): the role's replicas for it, else its ms
    values file counts them."""
    args = dict(auth(params), record=record)
    if record.get("slug") in (params["replicas"] or {}):
        args["replicas"] = params["replicas"][record["slug"]]
    values_file = (record.get("values_files") or {}).get("ms")
    if values_file:
        args["values_file"] = values_file
    return args


def _given(params, names):
    return dict((name, params[name]) for name in names if params.get(name) is not None)


def auth(params):
    """The Kubernetes API options the task was given, for every step."""
    return _given(params, AUTH_ARG_SPEC)


def unpinned_images(records):
    """One message per pull Job image of ``records`` not pinned by digest (the plan's ``storage.oras_image``)."""
    images = []
    for record in records:
        image = (record.get("storage") or {}).get("oras_image") or ""
        if "@sha256:" not in image and image not in images:
            images.append(image)
    return ["the pull Job image %s is not pinned by digest. Fix: load the bundle that carries it (playbooks/load.yml "
            "writes the lock file, aips_lock_file), or set aips_allow_unpinned: true to pull it by tag (a lab)"
            % image for image in images]


def state_args(params, records):
    """model_storage_state's arguments; the lock file's model entries from the plan when it read the same file."""
    args = _given(params, list(AUTH_ARG_SPEC) + list(JOB_SETTINGS) + list(STATE_OPTIONS))
    args["records"] = records
    locked = plan_locked(params.get("plan_artifacts"), params.get("lock_file"))
    if "locked" not in args and locked is not None:
        args["locked"] = locked
    return args


def plan_locked(plan_artifacts, lock_file):
    """The lock file's model entries the model plan read (``aips_plan_artifacts.models``), when it read ``lock_file``
    (the same path); None otherwise, and the lock file is read again."""
    if not isinstance(plan_artifacts, dict) or not lock_file or not isinstance(plan_artifacts.get("models"), dict):
        return None
    if (plan_artifacts.get("lock_file") or "").strip() != lock_file.strip():
        return None
    return plan_artifacts["models"]


def namespace_args(params, records):
    return dict(auth(params), records=records, pod_security=params["pod_security"],
                harbor_hostname=params["harbor_hostname"], harbor_user=params["harbor_user"],
                harbor_token=params["harbor_token"])


def lease_args(params, records, holder=None):
    """model_lock's arguments: take the Leases of ``records``' namespaces (``holder`` None), or give them back."""
    args = dict(auth(params), namespaces=sorted(set(r["namespace"] for r in records)))
    if holder is None:
        args.update(duration=params["wait_timeout"] + LEASE_MARGIN, wait=params["lock_wait"])
    else:
        args.update(holder=holder, state="absent")
    return args


def job_args(params, record, artifact, job=None):
    """model_pull_job's arguments: the artifact's digest and size, and the Job model_storage_state built (``job``)."""
    args = dict(auth(params), record=record, digest=artifact["digest"], expected_size=artifact["size"])
    if job:
        args["job"] = job
    args.update(_given(params, list(JOB_SETTINGS) + ["hostpath_storage_class", "replace_failed"]))
    return args


def wait_args(params, waits):
    return dict(auth(params), jobs=waits, timeout=params["wait_timeout"], stuck_grace=params["stuck_grace"],
                progress_seconds=params["progress_seconds"], record_claims=True)


def policies_due(policies, records, namespaces, check_mode):
    """The NetworkPolicies to apply: model_storage_state's ``network_policies`` in the models' namespaces, in check
    mode only in those that exist (``namespaces``: model_namespace's ``live``, None when it did not run), since a
    dry run in a namespace check mode would create fails."""
    live = records if not check_mode or namespaces is None else namespaces
    names = set(item.get("namespace") for item in live)
    return [policy for policy in policies or [] if policy["metadata"]["namespace"] in names]


def claim_after(current, recorded):
    """The claim's annotations once ``recorded`` (a merge patch: None removes a key) is on it."""
    merged = dict(current or {})
    for key, value in (recorded or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def pulled_result(record, pull, artifact, actions, claim_annotations):
    """The ``model_storage_results`` entry of a model pulled in this run: its wait result ``pull``, the resolved
    ``artifact`` for what the pull did not report, model_pull_job's ``actions``."""
    def given(key, default=None):  # the wait's value when it reported one (even None), else ``default``
        return pull[key] if key in pull else default
    return {
        "pvc": pull.get("pvc"),
        "namespace": pull.get("namespace"),
        "reference": record["storage"]["oci"]["reference"],
        "digest": given("digest", artifact["digest"]),
        "size": given("size", artifact["size"]),
        "files": given("files"),
        "metadata": given("metadata", {}),
        "pull_duration": given("duration"),
        "pull_seconds": given("pull_seconds"),
        "verify_seconds": given("verify_seconds"),
        "fetched_bytes": given("fetched_bytes"),
        "fetched_files": given("fetched_files"),
        "reused_files": given("reused_files"),
        "reused": given("reused", False),
        "job": actions or {},
        "claim_annotations": claim_after(claim_annotations, pull["annotations"]) if "annotations" in pull else None,
    }


def storage_results(settled, records, artifacts, jobs, pulls):
    """``model_storage_results`` of the run: the settled models' entries (model_storage_state's ``storage_results``)
    and one per wait result in ``pulls``; ``jobs``: model_pull_job's result per slug."""
    results = dict(settled or {})
    by_slug = dict((record["slug"], record) for record in records)
    for pull in pulls or []:
        slug = pull["slug"]
        job = jobs.get(slug) or {}
        entry = pulled_result(by_slug[slug], pull, artifacts[slug], job.get("actions"),
                              (job.get("wait") or {}).get("claim_annotations"))
        if entry["claim_annotations"] is None:
            del entry["claim_annotations"]
        results[slug] = entry
    return results
