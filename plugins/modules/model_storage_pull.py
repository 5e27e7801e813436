#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_storage_pull
short_description: Pull every Harbor model onto its claim in one task, each step's result handed on in Python
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - The Harbor path of the role model_storage as one task. It runs the collection's storage modules in order and
    hands each one's result to the next in Python, not through facts and Jinja.
  - 1. M(ai_platform.serving.model_storage_state) resolves every artifact and finds the models that need a pull. The
    task fails on unpinned pull Job images (unless O(allow_unpinned)), unreadable or unsigned artifacts and claims
    too small for their artifact, one message per model, before anything is created.
  - 2. M(ai_platform.serving.model_namespace) makes the namespaces and their C(harbor-creds) (O(manage_namespace)),
    then C(kubernetes.core.k8s) applies the Job pods' NetworkPolicies that are missing or different; in check mode
    only in the namespaces that exist.
  - 3. For the models not settled only, under the namespace Leases (M(ai_platform.serving.model_lock), O(lock)),
    M(ai_platform.serving.model_pull_job) per model, then one M(ai_platform.serving.model_pull_wait) for all of them
    (O(wait)), which records what each claim holds as annotations. Each pull's progress is printed under the task
    while it runs (its pod's log read on kubernetes.core's client, with the task's auth options). The Leases are
    given back whatever failed after they were taken.
  - A no-op run makes two module calls (state, namespaces) for all models.
  - Each step's failure fails the task with that step's message (C(unreadable), C(misfits) and C(unsigned) of
    M(ai_platform.serving.model_storage_state) together).
  - Runs through its action plugin only (on the controller, the steps as their own tasks would run them).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.pull_job_settings
  - ai_platform.serving.storage_state
options:
  records:
    description:
      - The Harbor records to pull (plan records with storage mode C(harbor)); O(plan) is not read then.
      - Without it, the records of O(plan).
    type: list
    elements: dict
  plan:
    description:
      - The model plan (the C(aips_plan) fact, M(ai_platform.serving.model_plan)'s records), checked as every role
        checks it; the records O(models) names are handled, all when empty. Its user-owned claims (storage mode
        C(claim)) are checked with M(ai_platform.serving.model_claim_check) first, every problem at once; its Harbor
        records are pulled.
      - The errors name C(model_storage_plan) and C(model_storage_models), the role's variables.
    type: raw
  plan_artifacts:
    description:
      - The model plan's image and chart plans (the C(aips_plan_artifacts) fact). When the plan read the same
        O(lock_file), its C(models) entries are handed to M(ai_platform.serving.model_storage_state) and the lock file
        is not read again.
    type: dict
  models:
    description: Slugs of O(plan) to handle; empty handles all.
    type: list
    elements: str
    default: []
  replicas:
    description: Serving replicas per slug for the claim checks; a model without one has its C(ms) values file counted.
    type: dict
    default: {}
  allow_unpinned:
    description: Let a pull Job image that is not pinned by digest (the plan's C(storage.oras_image)) be pulled by tag.
    type: bool
    default: false
  manage_namespace:
    description: Create the model namespaces and their C(harbor-creds) pull secret (M(ai_platform.serving.model_namespace)).
    type: bool
    default: true
  pod_security:
    description: Pod Security Admission levels of the model namespaces, as M(ai_platform.serving.model_namespace)'s.
    type: dict
    default: {enforce: baseline, warn: restricted, audit: restricted}
  harbor_hostname:
    description: Registry host of the C(harbor-creds) pull secret.
    type: str
    default: ""
  harbor_user:
    description: User of the C(harbor-creds) pull secret.
    type: str
    default: ""
  harbor_token:
    description: Token of O(harbor_user); never logged.
    type: str
    default: ""
  lock:
    description: Take a Lease per model namespace for the pulls (one run at a time per namespace).
    type: bool
    default: true
  lock_wait:
    description: Seconds to wait for another run's Lease before failing, naming that run.
    type: int
    default: 600
  wait:
    description: Wait for the pull Jobs and record what each claim holds; without it the Jobs are only created.
    type: bool
    default: true
  wait_timeout:
    description: Seconds the wait may take for all pulls; a Lease lasts this plus 600 seconds.
    type: int
    default: 1800
  stuck_grace:
    description: Seconds a pull pod may be blocked (image, volume, scheduling) before the wait fails, as
      M(ai_platform.serving.model_pull_wait)'s.
    type: int
    default: 30
attributes:
  check_mode:
    support: full
    description: Every step runs in check mode - nothing is created and no pull is waited for; RV(storage_results)
      then holds the resolved digest and size of each model that would be pulled.
  diff_mode:
    support: partial
    description: The diffs of the namespaces, their C(harbor-creds) and the NetworkPolicies; claims, PVs and Jobs are
      reported in RV(jobs), not as diffs.
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Pull the Harbor artifacts
  ai_platform.serving.model_storage_pull:
    records: "{{ aips_plan | selectattr('storage.mode', 'equalto', 'harbor') | list }}"
    lock_file: /srv/bundle/models.lock.yml
    require_lock: true
    harbor_hostname: harbor.example.internal
    harbor_user: robot$serving
    harbor_token: "{{ vault_harbor_token }}"
  register: pulled

- name: Show what each model's claim holds
  ansible.builtin.debug:
    msg: "{{ pulled.storage_results }}"
"""

RETURN = r"""
storage_results:
  description:
    - Per slug, what the model's claim holds after the run (the role's C(model_storage_results)) - C(pvc),
      C(namespace), C(reference), C(digest), C(size), C(files), C(metadata), C(pull_duration), C(pull_seconds),
      C(verify_seconds), C(fetched_bytes), C(fetched_files), C(reused_files), C(reused), C(job) (what was done to the
      claim, PV and Job) and C(claim_annotations), the claim's annotations after the run's record.
    - Settled models and, when O(wait), the pulled ones.
  returned: success
  type: dict
settled:
  description: Per slug, what the claim of each settled model holds (nothing was done for it); see
    M(ai_platform.serving.model_storage_state).
  returned: success
  type: dict
pull:
  description: The slugs of the models that needed a pull.
  returned: success
  type: list
  elements: str
reasons:
  description: Per slug, why the model is settled or needs a pull.
  returned: success
  type: dict
artifacts:
  description: Per slug, the resolved artifact, as M(ai_platform.serving.model_storage_state) returns it.
  returned: success
  type: dict
namespaces:
  description: The result of M(ai_platform.serving.model_namespace) (its C(live) namespaces among it), with O(manage_namespace).
  returned: success and O(manage_namespace)
  type: dict
network_policies:
  description: The NetworkPolicies applied (missing or different on the cluster).
  returned: success
  type: list
  elements: dict
jobs:
  description: Per pulled slug, what M(ai_platform.serving.model_pull_job) did to its claim, PV and Job.
  returned: when a model needed a pull
  type: dict
pulls:
  description: One M(ai_platform.serving.model_pull_wait) result per pulled model (C(slug), C(digest), C(size),
    C(files), C(reused), C(pull_seconds), C(verify_seconds), C(fetched_bytes), C(progress), ...), with O(wait).
  returned: success
  type: list
  elements: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_task


def argspec():
    return pull_task.argspec()


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    module.fail_json(msg="model_storage_pull runs the storage modules from the controller: it runs through its "
                         "action plugin only")


if __name__ == "__main__":
    main()
