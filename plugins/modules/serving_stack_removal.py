#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: serving_stack_removal
short_description: Decide which model namespaces a removal with storage deletes, and what it deletes one by one
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Reads the namespace of every record of O(records) (the models being removed with their storage) and lists in it
    the kinds the collection checks (plugins/module_utils/stack/removal.py C(INSPECTED_KINDS) - Pods, Deployments,
    StatefulSets, DaemonSets, ReplicaSets, Jobs, CronJobs, Services, ConfigMaps, Secrets, claims, ServiceAccounts,
    Roles, RoleBindings, NetworkPolicies, Ingresses, HTTPRoutes, Gateways, Leases; a kind the API does not serve
    is skipped).
  - A namespace is to be deleted (RV(delete)) only when the collection created it (its label
    C(app.kubernetes.io/managed-by=ai_platform.serving), which model_namespace puts only on a namespace it
    created), no other model of O(plan) lives in it, no object of another model is left in it, no removed model
    serves from a user-owned claim there, and no object the collection did not make is left in it.
  - Otherwise it stays (RV(kept), one report line each naming the namespace, why and what remains), and the
    removed models' own objects there are returned to be deleted one by one (RV(model_objects)).
  - Changes nothing, in check mode too; the role M(ai_platform.serving.serving_stack) applies the decision.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.read_only
options:
  records:
    description: The plan records of the models removed with their storage.
    type: list
    elements: dict
    required: true
  plan:
    description: Every record of the plan; the models of it that are not in O(records) stay.
    type: list
    elements: dict
    default: []
requirements:
  - kubernetes >= 24.2.0
"""

EXAMPLES = r"""
- name: Decide what the removal deletes
  ai_platform.serving.serving_stack_removal:
    records: "{{ removed_records }}"
    plan: "{{ aips_plan }}"
  register: removal

- name: Delete the namespaces the collection owns and nothing else uses
  kubernetes.core.k8s:
    state: absent
    api_version: v1
    kind: Namespace
    name: "{{ item }}"
    wait: true
  loop: "{{ removal.delete }}"
"""

RETURN = r"""
delete:
  description: The namespaces to delete.
  returned: always
  type: list
  elements: str
kept:
  description: The namespaces that stay, each with C(namespace), C(reasons), C(remaining) (C(<kind> <name>) of the
    objects the collection did not make) and C(message), the report line.
  returned: always
  type: list
  elements: dict
model_objects:
  description: The removed models' own objects in the namespaces that stay, to delete in this order
    (C(apiVersion), C(kind), C(name), C(namespace), C(slug)) - Jobs, the Job pods' NetworkPolicy, claims, and, where
    no model is left, harbor-creds and the Lease; only objects found there with the collection's label.
  returned: always
  type: list
  elements: dict
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import removal
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import _dict, run_module

try:
    from kubernetes.dynamic.exceptions import DynamicApiError, NotFoundError, ResourceNotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    DynamicApiError = NotFoundError = ResourceNotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        records=dict(type="list", elements="dict", required=True),
        plan=dict(type="list", elements="dict", default=[]),
    )


def read_namespace(client, namespace):
    """The live Namespace (None when missing), the objects listed in it and the kinds that could not be listed."""
    try:
        live = _dict(client.get(client.resource("Namespace", "v1"), name=namespace))
    except NotFoundError:
        return None, [], []
    objects, unlisted = [], []
    for api_version, kind in removal.INSPECTED_KINDS:
        try:
            resource = client.resource(kind, api_version)
        except ResourceNotFoundError:
            continue  # the API does not serve this kind (no Gateway API CRDs, say)
        try:
            found = _dict(client.get(resource, namespace=namespace)) or {}
        except DynamicApiError:
            unlisted.append(kind)
            continue
        for item in found.get("items") or []:
            item = dict(item)
            item.setdefault("kind", kind)
            item.setdefault("apiVersion", api_version)
            objects.append(item)
    return live, objects, unlisted


def execute_module(module, client):
    records = module.params["records"]
    namespaces, objects, unlisted = {}, {}, {}
    for namespace in sorted(set(record["namespace"] for record in records)):
        namespaces[namespace], objects[namespace], unlisted[namespace] = read_namespace(client, namespace)
    decision = removal.decide(records, module.params["plan"], namespaces, objects, unlisted)
    module.exit_json(changed=False, **decision)


def main():
    run_module(argspec(), execute_module)


if __name__ == "__main__":
    main()
