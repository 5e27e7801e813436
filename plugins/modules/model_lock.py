#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_lock
short_description: Take or give back the Lease (one per model namespace) that serialises runs
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Takes the Lease C(ai-platform-serving) (C(coordination.k8s.io/v1)) in each model namespace for O(holder),
    or gives it back. Two runs of the collection that change the same model's storage at the same time would
    race on its pull Job; with the Lease the second waits up to O(wait) seconds, then fails naming the holder,
    when it was taken and how to clear it.
  - A Lease held by O(holder) is renewed; one whose holder let it expire (a run that died) is taken over.
    Updates carry the Lease's resourceVersion, so of two runs at most one wins.
  - O(state=absent) deletes the Leases O(holder) holds and leaves others' alone.
  - Taking and giving back a Lease is coordination state the run undoes at its end, so the module never
    reports a change (a second run of a play stays C(changed=0)).
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  namespaces:
    description: The model namespaces (they must exist).
    type: list
    elements: str
    required: true
  holder:
    description:
      - Identity of this run, for example C(<user>@<controller>/<random>).
      - Omitted with O(state=present), the module makes one of that form and returns it as RV(holder); pass that to
        O(state=absent). Required with O(state=absent).
    type: str
  state:
    description: C(present) takes the Leases, C(absent) gives them back.
    type: str
    default: present
    choices: [present, absent]
  duration:
    description: Seconds the Lease stays valid without renewal; cover the longest wait of the run.
    type: int
    default: 3600
  wait:
    description: Seconds to wait for a Lease another run holds before failing.
    type: int
    default: 60
requirements:
  - kubernetes >= 24.2.0
attributes:
  check_mode:
    support: full
    description: Reads the Leases and fails when another run holds one; takes or deletes none.
  diff_mode:
    support: none
    description: Not applicable.
"""

EXAMPLES = r"""
- name: Take the model namespaces
  ai_platform.serving.model_lock:
    namespaces: "{{ aips_plan | map(attribute='namespace') | unique | list }}"
    duration: 2400
  register: lease

- name: Give them back
  ai_platform.serving.model_lock:
    namespaces: "{{ aips_plan | map(attribute='namespace') | unique | list }}"
    holder: "{{ lease.holder }}"
    state: absent
"""

RETURN = r"""
leases:
  description: Per namespace what was done, C(acquire), C(renew), C(take-over) or C(released).
  returned: always
  type: dict
holder:
  description:
    - This run's identity (O(holder), or the one the module made); also returned when another run's Lease failed the
      task, so the Leases taken before it can be given back.
  returned: always
  type: str
held_by:
  description: The identity of the run that holds the Lease which failed the task.
  returned: failure
  type: str
"""

import time

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import lease as model_lease
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import run_module

try:
    from kubernetes.dynamic.exceptions import ConflictError, DynamicApiError, NotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    ConflictError = DynamicApiError = NotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        namespaces=dict(type="list", elements="str", required=True),
        holder=dict(type="str"),
        state=dict(type="str", default="present", choices=["present", "absent"]),
        duration=dict(type="int", default=3600),
        wait=dict(type="int", default=60),
    )


def _get(client, leases, namespace):
    try:
        found = client.get(leases, name=model_lease.LEASE_NAME, namespace=namespace)
    except NotFoundError:
        return None
    return found.to_dict() if hasattr(found, "to_dict") else dict(found)


def take(module, client, leases, namespace, done):
    params = module.params
    deadline = time.monotonic() + max(0, params["wait"])
    while True:
        live = _get(client, leases, namespace)
        moment = model_lease.now_utc()
        action = model_lease.lease_action(live, params["holder"], moment)
        if action == model_lease.HELD:
            if time.monotonic() >= deadline:
                module.fail_json(msg=model_lease.held_message(namespace, live), holder=params["holder"],
                                 held_by=live["spec"].get("holderIdentity"), leases=done)
            time.sleep(2)
            continue
        if module.check_mode:
            return action
        acquired = None
        version = None
        if live:
            version = live["metadata"].get("resourceVersion")
            if action == model_lease.RENEW:
                acquired = model_lease.parse_time(live["spec"].get("acquireTime"))
        body = model_lease.lease_manifest(namespace, params["holder"], params["duration"], moment, acquired, version)
        try:
            if live:
                client.replace(leases, body, namespace=namespace)
            else:
                client.create(leases, body, namespace=namespace)
            return action
        except ConflictError:
            continue  # another run changed or created it first: read it again


def give_back(module, client, leases, namespace):
    live = _get(client, leases, namespace)
    if not live or (live.get("spec") or {}).get("holderIdentity") != module.params["holder"]:
        return None
    if not module.check_mode:
        try:
            client.delete(leases, name=model_lease.LEASE_NAME, namespace=namespace)
        except NotFoundError:
            pass
    return "released"


def execute_module(module, client):
    leases = client.resource("Lease", "coordination.k8s.io/v1")
    done = {}
    for namespace in module.params["namespaces"]:
        try:
            if module.params["state"] == "present":
                done[namespace] = take(module, client, leases, namespace, done)
            else:
                action = give_back(module, client, leases, namespace)
                if action:
                    done[namespace] = action
        except DynamicApiError as exc:  # the holder goes back with the failure: the Leases taken so far are given back
            module.fail_json(msg="%s: the Lease %s could not be %s: %s" % (
                namespace, model_lease.LEASE_NAME, "taken" if module.params["state"] == "present" else "given back",
                getattr(exc, "summary", lambda: exc)()), holder=module.params["holder"], leases=done)
    # coordination state the run gives back at its end: not a change to what the collection deploys
    module.exit_json(changed=False, leases=done, holder=module.params["holder"])


def name_the_run(module):
    """Make the holder when none was given (state=present); state=absent needs the one that took the Leases."""
    if not module.params["holder"]:
        if module.params["state"] == "absent":
            module.fail_json(msg="model_lock: state=absent needs holder, the holder returned when the Leases were taken")
        module.params["holder"] = model_lease.run_holder()


def main():
    run_module(argspec(), execute_module, before_client=name_the_run)


if __name__ == "__main__":
    main()
