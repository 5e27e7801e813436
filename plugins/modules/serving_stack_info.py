#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: serving_stack_info
short_description: Read what the serving stacks of all models have on the cluster, in one call
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - The read M(ai_platform.serving.serving_stack) (the role) makes before it changes anything, for every model at once,
    so that a re-run with nothing to change makes this one call and no helm, apply or removal call.
  - Runs C(helm version) once (RV(helm)) and C(helm list) of every release once (RV(releases)), lists the release-digest ConfigMaps once
    (RV(digest_maps)), lists the model claims once (RV(claims), RV(prune_due)), and reads each object of O(objects)
    and O(retired) (RV(apply), RV(remove)).
  - An object of O(objects) is due for the apply when it is missing or lacks a field its definition sets, with the
    same value (fields the server adds do not count); a field edited on the cluster makes it due again.
  - Changes nothing, in check mode too.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.read_only
options:
  helm_binary:
    description: The helm executable (a name on PATH or a path), Helm 3 or Helm 4 (RV(helm)).
    type: str
    default: helm
  post_renderer:
    description:
      - The post-renderer program the releases of the caller run, as a path; RV(post_renderer) then says how each Helm
        call gives it to the Helm found (Helm 3 takes the path, Helm 4 the plugin in O(post_renderer_plugins)).
    type: path
    version_added: 0.1.0
  post_renderer_plugins:
    description:
      - The directory of Helm 4 plugins that holds the post-renderer plugin running O(post_renderer)
        (C(aips-gateway-placement)); put first on C(HELM_PLUGINS) for Helm 4 calls.
    type: path
    version_added: 0.1.0
  claim_records:
    description: Plan records (storage mode C(harbor)) whose claim to return in RV(claims).
    type: list
    elements: dict
    default: []
  prune_records:
    description: Plan records (storage mode C(harbor)) whose claim may keep more revisions than O(keep) (RV(prune_due)).
    type: list
    elements: dict
    default: []
  keep:
    description: Revisions a claim keeps beside the served one, as given to M(ai_platform.serving.model_revisions).
    type: int
    default: 1
  objects:
    description: Per model slug, the object definitions serving_stack applies (state present).
    type: dict
    default: {}
  retired:
    description: Per model slug, the objects serving_stack removes when they exist (only kind, name, namespace are read).
    type: dict
    default: {}
requirements:
  - kubernetes >= 24.2.0
  - helm (the binary)
"""

EXAMPLES = r"""
- name: Read the serving state of every model
  ai_platform.serving.serving_stack_info:
    claim_records: "{{ aips_plan | selectattr('storage.mode', 'equalto', 'harbor') | list }}"
    objects: "{{ {'qwen3-0-6b': [route_definition]} }}"
  register: state

- name: Apply only the objects that are missing or differ
  kubernetes.core.k8s:
    definition: "{{ state.apply.values() | flatten }}"
  when: state.apply | length > 0
"""

RETURN = r"""
helm:
  description:
    - The helm found - C(version) as C(helm version --short) prints it, its C(major) (3 or 4), C(list_args), the
      C(helm list) arguments that list every release of every namespace as JSON on that major (Helm 4 has no C(--all)),
      and C(apply), the M(kubernetes.core.helm) options of a C(normal) and a C(forced) upgrade on that major (Helm 4
      - client-side apply, see module_utils/stack/helm_compat.py).
  returned: always
  type: dict
  sample: {"version": "v4.3.2", "major": 4, "list_args": ["list", "--all-namespaces", "--output", "json"],
           "apply": {"normal": {"server_side": "false"}, "forced": {"force": true}}}
post_renderer:
  description:
    - How a Helm call gives it O(post_renderer) - C(arg), the C(--post-renderer) value (the path for Helm 3, the
      plugin name C(aips-gateway-placement) for Helm 4), and C(env), the environment that call adds (Helm 4
      C(HELM_PLUGINS) with O(post_renderer_plugins) first).
  returned: when O(post_renderer) is given
  type: dict
  sample: {"arg": "aips-gateway-placement", "env": {"HELM_PLUGINS": "/roles/serving_stack/files/helm4-plugins:/root/.local/share/helm/plugins"}}
releases:
  description: The parsed output of C(helm list --all-namespaces --all --output json) (Helm 4 - without C(--all)).
  returned: always
  type: list
  elements: dict
digest_maps:
  description: The release-digest ConfigMaps (the input of the release_plan filter).
  returned: always
  type: list
  elements: dict
claims:
  description: One entry per O(claim_records) record, as a looped M(kubernetes.core.k8s_info)'s results - the record
    as C(item), its claim (or nothing) in C(resources) - for the filters unpulled_models, claims_off_plan and
    stamp_served_digests.
  returned: always
  type: list
  elements: dict
prune_due:
  description: Slugs of O(prune_records) whose claim keeps more than the served revision plus O(keep).
  returned: always
  type: list
  elements: str
apply:
  description: Per slug, the definitions of O(objects) that are missing or differ on the cluster (slugs with none are
    left out).
  returned: always
  type: dict
remove:
  description: Per slug, the definitions of O(retired) whose object exists.
  returned: always
  type: dict
"""

import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat, live_state
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import _dict, run_module
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.revisions import plan_prunes

try:
    from kubernetes.dynamic.exceptions import NotFoundError, ResourceNotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    NotFoundError = ResourceNotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        helm_binary=dict(type="str", default="helm"),
        post_renderer=dict(type="path"),
        post_renderer_plugins=dict(type="path"),
        claim_records=dict(type="list", elements="dict", default=[]),
        prune_records=dict(type="list", elements="dict", default=[]),
        keep=dict(type="int", default=1),
        objects=dict(type="dict", default={}),
        retired=dict(type="dict", default={}),
    )


def _helm(module, *args):
    """stdout of one helm call, or a failure naming the call and the knob that chooses the binary."""
    argv = [module.params["helm_binary"]] + list(args)
    # AnsibleK8SModule wraps the AnsibleModule (kubernetes.core's own helm modules run helm the same way)
    runner = getattr(module, "_module", module)
    rc, out, err = runner.run_command(argv)
    if rc != 0:
        module.fail_json(msg="helm %s failed (rc %d): %s. Fix: check serving_stack_helm_binary and the kubeconfig "
                         "(helm reads the cluster the same way as the other tasks)."
                         % (args[0], rc, (err or out).strip()))
    return out


def helm_facts(module):
    """RV(helm) and, with a post-renderer, RV(post_renderer): what differs between the Helm majors."""
    runner = getattr(module, "_module", module)  # AnsibleK8SModule wraps the AnsibleModule
    try:
        return helm_compat.probe(lambda args: runner.run_command([module.params["helm_binary"]] + args),
                                 module.params["post_renderer"], module.params["post_renderer_plugins"])
    except helm_compat.HelmCallError as error:
        module.fail_json(msg="%s. Fix: check serving_stack_helm_binary and the kubeconfig (helm reads the cluster the "
                         "same way as the other tasks)." % error)
    except helm_compat.HelmVersionError as error:
        module.fail_json(msg="%s: %s. Fix: point serving_stack_helm_binary at a Helm 3.19+ or Helm 4.3+ binary."
                         % (module.params["helm_binary"], error))


def helm_releases(module, major):
    """The parsed ``helm list`` of every release in every namespace (helm_compat.list_all_args)."""
    args = helm_compat.list_all_args(major)
    if module.params["kubeconfig"]:
        args += ["--kubeconfig", module.params["kubeconfig"]]
    out = _helm(module, *args)
    try:
        return json.loads(out or "[]") or []
    except ValueError:
        module.fail_json(msg="helm list printed no JSON: %s" % out[:500])


def selected(client, kind, api_version, selection):
    resource = client.resource(kind, api_version)
    selector = ",".join(naming.label_selectors(naming.SELECTIONS[selection]))
    return (_dict(client.get(resource, label_selector=selector)) or {}).get("items") or []


def live_objects(client, definitions):
    """{object_key: live object or None} for every definition (a kind the cluster does not serve: None)."""
    found = {}
    for definition in definitions:
        key = live_state.object_key(definition)
        if key in found:
            continue
        api_version, kind, namespace, name = key
        try:
            resource = client.resource(kind, api_version)
            found[key] = _dict(client.get(resource, name=name, namespace=namespace or None))
        except (NotFoundError, ResourceNotFoundError):
            found[key] = None
    return found


def model_claims(client, records):
    """The model claims of ``records``: one list by the collection's labels, then a read per claim not found."""
    claims = selected(client, "PersistentVolumeClaim", "v1", "model_cache") if records else []
    resource = client.resource("PersistentVolumeClaim", "v1")
    for record in live_state.missing_claims(records, claims):
        try:
            claims.append(_dict(client.get(resource, name=record["storage"]["pvc"], namespace=record["namespace"])))
        except NotFoundError:
            pass
    return claims


def execute_module(module, client):
    params = module.params
    if params["keep"] < 0:
        module.fail_json(msg="keep is %d: give the number of revisions to keep beside the served one (0 or more)"
                         % params["keep"])
    records = params["claim_records"] + [r for r in params["prune_records"] if r not in params["claim_records"]]
    claims = model_claims(client, records)
    objects = params["objects"] or {}
    retired = params["retired"] or {}
    live = live_objects(client, [d for group in (objects, retired) for ds in group.values() for d in ds or []])
    facts = helm_facts(module)
    module.exit_json(
        changed=False,
        releases=helm_releases(module, facts["helm"]["major"]),
        digest_maps=selected(client, "ConfigMap", "v1", "release_digests"),
        claims=live_state.claim_results(params["claim_records"], claims),
        prune_due=[record["slug"] for record, _a, _k, _d in plan_prunes(params["prune_records"], claims, params["keep"])],
        apply=live_state.objects_to_apply(objects, live),
        remove=live_state.objects_to_remove(retired, live),
        **facts
    )


def main():
    run_module(argspec(), execute_module)


if __name__ == "__main__":
    main()
