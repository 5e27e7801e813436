#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_namespace
short_description: Create the model namespaces and their harbor-creds pull secrets
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Creates the namespace of every given plan record with the Pod Security labels of O(pod_security), then the
    record's C(harbor-creds) pull secret (the cluster's pull robot) where the record names one.
  - Reads the namespaces in one list call and each pull secret once, and writes only what is missing or differs,
    so a run where everything is in place makes no write.
  - A namespace the module creates also gets the collection's managed-by label (the mark removal deletes by); a
    namespace that exists keeps its own labels beside the Pod Security ones and never gets it.
  - Every object gets its own attempt; one not applied fails the module naming the namespace, the object, the
    API's reason and the fix, without the token.
  - model_storage and serving_stack call it with their own variables; a second call with the same settings
    finds everything in place.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  records:
    description: Plan records from M(ai_platform.serving.model_plan) (their C(namespace), C(name) and C(names)).
    type: list
    elements: dict
    required: true
  pod_security:
    description: "Pod Security labels of the namespaces, C({mode: level}) with modes enforce, warn and audit."
    type: dict
    default: {enforce: baseline, warn: restricted, audit: restricted}
  harbor_hostname:
    description: Registry host written into harbor-creds.
    type: str
    default: ""
  harbor_user:
    description: The cluster's pull robot account.
    type: str
    default: ""
  harbor_token:
    description: Its token (Vault). Empty writes no pull secret.
    type: str
    default: ""
requirements:
  - kubernetes >= 24.2.0
attributes:
  check_mode:
    support: full
    description:
      - Reports what would be created or patched. A namespace that would be created does not exist, so nothing in
        it is dry-run; its records are left out of RV(live).
  diff_mode:
    support: full
    description: The Namespaces' changes (never a Secret's).
"""

EXAMPLES = r"""
- name: Create the model namespaces and their harbor-creds
  ai_platform.serving.model_namespace:
    records: "{{ aips_plan }}"
    harbor_hostname: "{{ aips_harbor_hostname }}"
    harbor_user: "{{ aips_harbor_user }}"
    harbor_token: "{{ aips_harbor_token }}"
  register: namespaces
"""

RETURN = r"""
live:
  description: The given records whose namespace exists (in check mode, those of namespaces that would be created are left out).
  returned: success
  type: list
  elements: dict
created:
  description: The namespaces created (in check mode, that would be).
  returned: success
  type: list
  elements: str
applied:
  description: Every object written (in check mode, that would be), as C(<kind> <namespace>/<name>); none when all was in place.
  returned: success
  type: list
  elements: str
"""

import copy

from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import namespaces, pod_security
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import run_module
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.runner import perform_action
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.service import K8sService

try:
    from kubernetes.dynamic.exceptions import NotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    NotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        records=dict(type="list", elements="dict", required=True),
        pod_security=dict(type="dict", default={"enforce": "baseline", "warn": "restricted", "audit": "restricted"}),
        harbor_hostname=dict(type="str", default=""),
        harbor_user=dict(type="str", default=""),
        harbor_token=dict(type="str", default="", no_log=True),
    )


def _as_dict(instance):
    return instance.to_dict() if hasattr(instance, "to_dict") else dict(instance)


def _label(definition):
    metadata = definition["metadata"]
    if metadata.get("namespace"):
        return "%s %s/%s" % (definition["kind"], metadata["namespace"], metadata["name"])
    return "%s %s" % (definition["kind"], metadata["name"])


def _apply(module, client, todo):
    """Each definition applied as kubernetes.core.k8s applies it (create, or a merge patch), its own result each."""
    service = K8sService(client, module)
    results = []
    for definition in todo:
        try:
            results.append(perform_action(service, copy.deepcopy(definition), {"state": "present"}))
        except Exception as exc:  # pylint: disable=broad-except  # each object's error is told by outcome()
            error = dict(getattr(exc, "result", None) or {})
            error["msg"] = to_native(exc)
            results.append({"changed": False, "error": error})
    return results


def execute_module(module, client):
    params = module.params
    records = params["records"]
    for record in records:
        if not isinstance(record, dict) or not record.get("namespace"):
            module.fail_json(msg="records: each must be a plan record with a namespace (the model_plan result), got %r"
                             % (record,))
    try:
        labels = pod_security.namespace_labels(params["pod_security"])
        secrets = namespaces.pull_secrets(records, params["harbor_hostname"], params["harbor_user"],
                                          params["harbor_token"])
    except ValueError as exc:
        module.fail_json(msg="model_namespace: %s" % exc)
    namespace_api = client.resource("Namespace", "v1")
    secret_api = client.resource("Secret", "v1")
    live_namespaces = dict((item["metadata"]["name"], dict(item["metadata"].get("labels") or {}))
                           for item in _as_dict(client.get(namespace_api)).get("items") or [])
    wanted = namespaces.definitions(records, labels, list(live_namespaces))
    unmade = [item["metadata"]["name"] for item in wanted if item["metadata"]["name"] not in live_namespaces]
    if module.check_mode:  # nothing can be dry-run in a namespace that does not exist
        secrets = [item for item in secrets if item["metadata"]["namespace"] not in unmade]
    live_secrets = {}
    for item in secrets:
        metadata = item["metadata"]
        if metadata["namespace"] in unmade:
            continue
        try:
            live_secrets[(metadata["namespace"], metadata["name"])] = _as_dict(
                client.get(secret_api, name=metadata["name"], namespace=metadata["namespace"]))
        except NotFoundError:
            pass
    todo = namespaces.pending(wanted, secrets, live_namespaces, live_secrets)
    results = _apply(module, client, todo) if todo else []
    told = namespaces.outcome({"result": {"results": results}} if todo else {"skipped": True}, todo,
                              [params["harbor_token"], params["harbor_user"]])
    if told["failures"]:
        module.fail_json(msg="; ".join(told["failures"]), failures=told["failures"])
    result = dict(changed=any(item.get("changed") for item in results), created=unmade,
                  applied=[_label(item) for item, done in zip(todo, results) if done.get("changed")],
                  live=[record for record in records if not module.check_mode or record["namespace"] not in unmade])
    if module._diff and told["diffs"]:
        result["diff"] = namespaces.diff_entries(told["diffs"])
    module.exit_json(**result)


def main():
    run_module(argspec(), execute_module)


if __name__ == "__main__":
    main()
