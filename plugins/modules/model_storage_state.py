#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_storage_state
short_description: Resolve every model's artifact and decide which models need a pull, in one call
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - For all Harbor records of the plan at once, resolves each artifact as M(ai_platform.serving.model_artifact_info)
    does (the lock file, read once, or the registry's manifest), checks that each claim holds its artifact plus
    O(headroom_percent), then reads the model claims, PVs and pull Jobs with one list call per kind (across all
    namespaces, kept to the models'; one per kind and namespace where listing all namespaces is forbidden).
  - Returns for each model whether it is settled, that is its claim (and on-prem PV) exists and matches the plan,
    the claim records the resolved digest from the plan's repository, and its pull Job is Complete for that digest
    with the spec this run would create. model_storage runs the Lease, the pull Job, the wait and the claim record
    only for the models that are not (RV(pull)); a no-op re-run makes this one call for all models.
  - Errors are not raised here but returned per model (RV(unreadable), RV(misfits)), each naming the model, so the
    role fails on all of them at once before anything is created.
  - With O(network_policy), it also derives the NetworkPolicy of every model's Job pods (egress to DNS and the
    registry only) and reads each one, returning those missing or different on the cluster (RV(network_policies));
    a no-op re-run applies none. A registry no policy could reach fails here, before anything is created.
  - The options C(kubeconfig), C(validate_certs), ... are those of the Kubernetes API; the registry's are the
    C(registry_*) ones.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.pull_job_settings
  - ai_platform.serving.storage_state
  - ai_platform.serving.read_only
options:
  records:
    description: The Harbor records of the plan (elements of the C(aips_plan) fact with storage mode C(harbor)).
    type: list
    elements: dict
    required: true
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Resolve the artifacts and find the models to pull
  ai_platform.serving.model_storage_state:
    records: "{{ aips_plan | selectattr('storage.mode', 'equalto', 'harbor') | list }}"
    lock_file: /srv/bundle/models.lock.yml
  register: storage_state

- name: Show the models that need a pull and why
  ansible.builtin.debug:
    msg: "{{ storage_state.reasons }}"
"""

RETURN = r"""
artifacts:
  description: Per slug, the resolved artifact (digest, size, file_count, repo_id, revision, source, pinned_reference)
    and whether the claim holds it (fits, problem); models whose artifact could not be read are left out.
  returned: always
  type: dict
unsigned:
  description: With O(require_signed), one message per model whose pinned artifact carries no valid signature by the
    site's key, each starting with the slug.
  returned: always
  type: list
  elements: str
unreadable:
  description: One message per model whose artifact could not be resolved, each starting with the slug.
  returned: always
  type: list
  elements: str
misfits:
  description: One message per model whose claim cannot hold its artifact plus the headroom.
  returned: always
  type: list
  elements: str
pull:
  description: Slugs that need the pull path (Lease, pull Job, wait, claim record), in the order of O(records).
    Empty when anything is unreadable or misfits (the cluster is then not read).
  returned: always
  type: list
  elements: str
settled:
  description: Per settled slug, what the claim records, in the shape of M(ai_platform.serving.model_pull_wait)'s
    result (digest, size, files, reused true, metadata, marker).
  returned: always
  type: dict
reasons:
  description: Per slug, why it is settled or what makes it need the pull path.
  returned: always
  type: dict
network_policies:
  description:
    - The NetworkPolicies of the models' Job pods (O(network_policy)) that are missing or differ on the cluster; the
      role applies these (in check mode only in namespaces that exist).
  returned: always
  type: list
  elements: dict
jobs:
  description:
    - Per slug of RV(pull) whose Job could be built, the pull Job this run wants (the manifest compared with the live
      Job), for M(ai_platform.serving.model_pull_job)'s O(ai_platform.serving.model_pull_job#module:job), so that
      it is built once per run.
  returned: always
  type: dict
storage_results:
  description:
    - Per settled slug, its entry of the model_storage role's C(model_storage_results) (C(pvc), C(namespace),
      C(reference), C(digest), C(size), C(files), C(metadata), C(pull_duration) null, C(pull_seconds) 0,
      C(verify_seconds) 0, C(reused) true, C(job) with the claim, PV and Job kept), so the role publishes every
      settled model in one step.
  returned: always
  type: dict
"""

import json

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import pull_job_options
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import live_state
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import (
    artifacts,
    manifests,
    network_policy,
    pull_task,
    settled,
)
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import list_model_cache, live_objects, run_module


def argspec():
    return pull_task.state_argspec()


def signature_problem(resolver, reference, info, public_key):
    """Why the pinned artifact carries no valid signature by the site's key (None when it does): its manifest and
    the signatures attached to it are read from the registry, never the weights."""
    # imported here: model_signing loads in half a second, and only a run that requires signatures needs it
    from ansible_collections.ai_platform.serving.plugins.module_utils.registry import model_signatures
    if not public_key:
        return ("aips_require_signed is true but no public key is set: give the site's signing public key "
                "(PEM) as aips_signing_public_key")
    oci = artifacts.parse_oci_reference(reference)
    registry = resolver.registry(oci["registry"])
    _digest, body = registry.manifest(oci["repository"], info["digest"])
    try:
        manifest = json.loads(body.decode("utf-8"))
    except ValueError:
        return "the manifest of %s is not JSON" % info["pinned_reference"]
    status = model_signatures.registry_status(registry, oci["repository"], info["digest"], manifest, public_key)
    if status["status"] == "valid":
        info["signature"] = status["signature"]
        return None
    return ("%s is not signed by the site's key (%s); nothing was changed. Publish it with the key (model_sync with "
            "aips_signing_key, or load a signed bundle), or set aips_require_signed: false"
            % (info["pinned_reference"], "; ".join(status["problems"])))


def resolve_all(params):
    """(artifacts by slug, unreadable messages, misfit messages, unsigned messages) for every record."""
    found, unreadable, misfits, unsigned = {}, [], [], []
    try:
        resolver = artifacts.Resolver(params["registry_username"], params["registry_password"], params["registry_ca_file"],
                                      params["registry_validate_certs"], params["timeout"], params["registry_endpoint"],
                                      params["lock_file"], params["require_lock"], params.get("locked"))
    except artifacts.ERRORS as exc:
        return {}, ["%s: %s" % (record.get("slug"), exc) for record in params["records"]], [], []
    for record in params["records"]:
        slug = record.get("slug")
        storage = record.get("storage") or {}
        reference = (storage.get("oci") or {}).get("reference")
        try:
            info = resolver.resolve(reference)
        except artifacts.ERRORS as exc:
            unreadable.append("%s: %s" % (slug or reference, exc))
            continue
        if params["require_signed"]:
            problem = signature_problem(resolver, reference, info, params["signing_public_key"])
            if problem:
                unsigned.append("%s: %s" % (slug or reference, problem))
                continue
        info = artifacts.fit(info, slug, storage.get("size"), storage.get("size_bytes"), params["headroom_percent"])
        if not info["fits"]:
            misfits.append(info["problem"])
        found[slug] = info
    return found, unreadable, misfits, unsigned


def execute_module(module, client):
    params = module.params
    records = params["records"]
    try:  # before the registry is asked: a registry no policy could reach is the site's setting to fix first
        policies = network_policy.job_network_policies(records, params["network_policy"], params["network_policy_dns"] or None,
                                                       params["network_policy_registry"] or None, params["cluster_domain"])
    except network_policy.NetworkPolicyError as exc:
        module.fail_json(msg=str(exc))
    found, unreadable, misfits, unsigned = resolve_all(params)
    result = dict(changed=False, artifacts=found, unreadable=unreadable, misfits=misfits, unsigned=unsigned, pull=[],
                  settled={}, reasons={}, storage_results={}, network_policies=[], jobs={})
    if unreadable or misfits or unsigned:
        module.exit_json(**result)
    claims, volumes, jobs = list_model_cache(client, sorted(set(r["namespace"] for r in records)),
                                             any(r["storage"].get("pv") for r in records))
    due = live_state.objects_to_apply({"all": policies}, live_objects(client, policies))
    result["network_policies"] = due.get("all", [])
    options = pull_job_options(params)
    for record in records:
        slug = record["slug"]
        digest = found[slug]["digest"]
        try:
            wanted_job = manifests.job_manifest(record, digest, expected_size=found[slug]["size"], **options)
        except manifests.StorageError as exc:  # the pull path fails on it, naming the model
            result["pull"].append(slug)
            result["reasons"][slug] = str(exc)
            continue
        live = settled.live_objects(record, claims, volumes, jobs)
        done, why = settled.settle(record, digest, wanted_job, live, params["hostpath_storage_class"],
                                   params["replace_failed"])
        result["reasons"][slug] = why
        if done:
            result["settled"][slug] = settled.settled_result(live["pvc"])
            result["storage_results"][slug] = settled.storage_result(record, result["settled"][slug], why,
                                                                     settled.claim_annotations(live["pvc"]))
        else:
            result["pull"].append(slug)
            result["jobs"][slug] = wanted_job
    module.exit_json(**result)


def main():
    run_module(argspec(), execute_module)


if __name__ == "__main__":
    main()
