#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_pull_job
short_description: Create a model's claim, hostPath PV and ORAS pull Job from its plan record
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - For one record of M(ai_platform.serving.model_plan) with storage mode C(harbor), creates what is missing;
    on-prem the static hostPath PV C(<slug>-model-pv) pinned to C(hostpathNode), the RWO claim C(<slug>-model),
    and the pull Job C(<slug>-model-pull) pinned to the manifest O(digest).
  - An existing PV or claim is never changed; one that does not match the plan (another hostPath, node,
    storage class or volume) is an error naming the difference.
  - Jobs are immutable. The Job carries a hash of the spec it was built from; when the wanted spec differs (a
    new digest after the tag moved, another image, ...) the old Job and its pods are deleted first, then the new
    one is created. A Job deleted by its TTL is simply created again and finishes at once from the marker.
  - Does not wait; M(ai_platform.serving.model_pull_wait) does, so the Jobs of many models run in parallel.
  - O(state=absent) deletes the Job, the claim and the PV (the seed's failure recovery).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.pull_job_settings
options:
  record:
    description: One plan record (an element of the C(aips_plan) fact).
    type: dict
    required: true
  digest:
    description: Manifest digest to pull, C(sha256:...). Required with O(state=present).
    type: str
  expected_size:
    description: Bytes of the artifact's layers; lets the Job decide whether a new copy fits beside the old one.
    type: int
    default: 0
  state:
    description: C(present) creates, C(absent) deletes.
    type: str
    default: present
    choices: [present, absent]
  replace_failed:
    description: Replace a Job that has Failed even when its spec is unchanged, so a re-run retries the pull.
    type: bool
    default: true
  keep_claim:
    description: With O(state=absent), delete only the Job and keep the claim, the PV and the weights.
    type: bool
    default: false
  hostpath_storage_class:
    description: storageClassName of the on-prem PV and claim (empty binds only to the static PV).
    type: str
    default: ""
  job:
    description:
      - The pull Job manifest M(ai_platform.serving.model_storage_state) built for this model (its
        RV(ai_platform.serving.model_storage_state#module:jobs)), created as given (placed on the node holding a
        single-node claim) instead of built again from the pull Job settings; it must pull O(digest).
      - M(ai_platform.serving.model_storage_pull) hands it on.
    type: dict
requirements:
  - kubernetes >= 24.2.0
attributes:
  check_mode:
    support: full
    description: Reads the cluster and reports what would be created, replaced or deleted; changes nothing.
  diff_mode:
    support: none
    description: The built objects are returned in RV(manifests) instead.
"""

EXAMPLES = r"""
- name: Start the pull of every model
  ai_platform.serving.model_pull_job:
    record: "{{ item }}"
    digest: "{{ artifacts[item.slug].digest }}"
    expected_size: "{{ artifacts[item.slug].size }}"
  loop: "{{ aips_plan | selectattr('storage.mode', 'equalto', 'harbor') }}"

- name: Delete a model's Job, claim and PV
  ai_platform.serving.model_pull_job:
    record: "{{ record }}"
    state: absent
"""

RETURN = r"""
actions:
  description: What was done per object, for example C(pv=created), C(pvc=present), C(job=replaced) and C(job_reason).
  returned: state=present
  type: dict
manifests:
  description: The PV (or null), claim and Job as built from the record.
  returned: state=present
  type: dict
wait:
  description: What M(ai_platform.serving.model_pull_wait) waits for, one element of its O(ai_platform.serving.model_pull_wait#module:jobs)
    (C(name), C(namespace), C(digest), C(slug), C(pvc), C(pv), and C(claim_annotations), the model claim's
    annotations as read here, so the wait does not read the claim again).
  returned: state=present
  type: dict
  version_added: 0.1.0
removed:
  description: Kinds deleted (job, pvc, pv).
  returned: state=absent
  type: list
  elements: str
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import (
    k8s_auth_argspec,
    pull_job_options,
    pull_job_settings_argspec,
)
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import (
    PullApiError,
    apply_storage,
    remove_storage,
    run_module,
)


def argspec():
    return k8s_auth_argspec(**pull_job_settings_argspec(
        record=dict(type="dict", required=True),
        digest=dict(type="str"),
        expected_size=dict(type="int", default=0),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        replace_failed=dict(type="bool", default=True),
        keep_claim=dict(type="bool", default=False),
        hostpath_storage_class=dict(type="str", default=""),
        job=dict(type="dict"),
    ))


def execute_module(module, client):
    params = module.params
    record = params["record"]
    if params["state"] == "absent":
        removed = remove_storage(client, record, module.check_mode, params["keep_claim"])
        module.exit_json(changed=bool(removed), removed=removed)
    if not params["digest"]:
        module.fail_json(msg="%s: digest is required with state=present" % record.get("slug"))
    options = pull_job_options(params)
    changed, actions, objects = apply_storage(
        client, record, params["digest"], expected_size=params["expected_size"], check_mode=module.check_mode,
        replace_failed=params["replace_failed"], hostpath_storage_class=params["hostpath_storage_class"],
        job_options=options, job=params["job"])
    storage = record["storage"]
    wait = dict(name=storage["pull_job"], namespace=record["namespace"], digest=params["digest"], slug=record["slug"],
                pvc=storage["pvc"], pv=storage.get("pv") or None, claim_annotations=objects.pop("claim_annotations"))
    module.exit_json(changed=changed, actions=actions, manifests=objects, wait=wait)


def main():
    run_module(argspec(), execute_module, errors=(manifests.StorageError, PullApiError))


if __name__ == "__main__":
    main()
