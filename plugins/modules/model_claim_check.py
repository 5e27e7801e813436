#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_claim_check
short_description: Check a user-owned model claim (pvc://) without touching it
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - For a plan record whose C(modelSource) is a C(pvc://[namespace:]claim/sub/path) URI, reads the claim in the
    model's namespace and fails when it is missing, not Bound, or single-node (ReadWriteOnce, ReadWriteOncePod)
    while more than one serving replica is planned.
  - Creates, changes and deletes nothing, and never falls back to another claim.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.read_only
options:
  record:
    description: One plan record with C(storage.mode=claim).
    type: dict
    required: true
  replicas:
    description:
      - Serving pods that will mount the claim. When not given, read from O(values_file) (C(decode.replicas)
        plus C(prefill.replicas) when C(prefill.create)), else 1.
    type: int
  values_file:
    description: The model's C(ms-<slug>/values.yaml) (the record's C(values_files.ms)).
    type: path
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Check the user-owned claim
  ai_platform.serving.model_claim_check:
    record: "{{ record }}"
    replicas: 2
"""

RETURN = r"""
claim:
  description: Name of the claim.
  returned: always
  type: str
phase:
  description: The claim's phase.
  returned: success
  type: str
access_modes:
  description: The claim's access modes.
  returned: success
  type: list
  elements: str
capacity:
  description: The bound volume's capacity.
  returned: success
  type: str
replicas:
  description: Serving replicas the check assumed.
  returned: success
  type: int
problems:
  description: Everything wrong with the claim.
  returned: failure
  type: list
  elements: str
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import STORAGE_CLAIM
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import run_module

try:
    from kubernetes.dynamic.exceptions import NotFoundError
except ImportError:  # handled by AnsibleK8SModule
    NotFoundError = Exception


def argspec():
    return k8s_auth_argspec(record=dict(type="dict", required=True), replicas=dict(type="int"),
                            values_file=dict(type="path"))


def planned_replicas(params):
    """The replicas option, else the plan record's, else counted from the values file, else 1."""
    if params["replicas"] is not None:
        return params["replicas"]
    if params["record"].get("replicas") is not None:
        return params["record"]["replicas"]
    counted = plan.serving_replicas(params["values_file"]) if params["values_file"] else None
    return 1 if counted is None else counted


def require_claim_storage(module):
    record = module.params["record"]
    storage = record.get("storage") or {}
    if storage.get("mode") != STORAGE_CLAIM:
        module.fail_json(msg="%s: storage mode is %r, not claim" % (record.get("slug"), storage.get("mode")))


def execute_module(module, client):
    record = module.params["record"]
    storage = record["storage"]
    namespace = storage.get("namespace") or record.get("namespace")
    try:
        pvc = client.get(client.resource("PersistentVolumeClaim", "v1"), name=storage["claim"],
                         namespace=namespace).to_dict()
    except NotFoundError:
        pvc = None
    replicas = planned_replicas(module.params)
    problems = claims.claim_problems(record, pvc, replicas)
    if problems:
        module.fail_json(msg="; ".join(problems), problems=problems, claim=storage["claim"])
    status = pvc.get("status") or {}
    module.exit_json(changed=False, claim=storage["claim"], replicas=replicas, phase=status.get("phase"),
                     access_modes=status.get("accessModes") or [],
                     capacity=(status.get("capacity") or {}).get("storage"))


def main():
    run_module(argspec(), execute_module, before_client=require_claim_storage)


if __name__ == "__main__":
    main()
