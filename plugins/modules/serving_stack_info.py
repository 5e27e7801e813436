#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: serving_stack_info
short_description: Read the serving stacks of all models on the cluster once and say what to deploy, apply and remove
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - The one read M(ai_platform.serving.serving_stack) (the role) makes before it changes anything, for every model at
    once, and the decisions on it, so that the role only applies ready lists and a re-run with nothing to change makes
    this one call and no helm, apply or removal call.
  - Runs C(helm version) once (RV(helm)) and C(helm list) of every release once, lists the release-digest ConfigMaps
    once, reads each object the stacks of O(specs) apply or retire and, in check mode, lists the namespaces.
  - A record's releases are those of its stack (its C(stack) field - C(llm-d-modelservice), the default, or
    C(llm-d-v0.10)). A model that moved between the stacks still has the other stack's releases in C(helm list),
    which are in RV(uninstall). Only for a seed model whose llm-d v0.10 router release is still listed (a move back)
    does it list that model's v0.10 model-server objects by label (C(ai-platform.serving/stack=llm-d-v0.10) and the
    model's labels), one list per kind a model server may hold; they are in RV(remove).
  - Reads no model claim when every Harbor-sourced model has a result in O(storage_results) that carries the claim's
    annotations (C(claim_annotations)); otherwise lists the model claims once (by the collection's labels) and reads
    one by one only the claims of the models without such a result that the list did not return.
  - Fails, except in check mode, for the Harbor-sourced models without a result in O(storage_results) whose claim holds
    no verified pull (no digest annotation) or another artifact than the plan's (its repository, and its digest when
    C(harborRef) pins one), one line per model.
  - Stamps the digest each model's claim holds (O(storage_results) first) on its pod templates, so that a new pull rolls
    the serving pods; then decides which releases go to Helm from the digest recorded for each (chart, values with the
    chart mark, and the digest of O(post_renderer)'s file for llm-d-infra) - module_utils/stack/release_digest.py.
  - The live records are every record, or in check mode those whose namespace exists (nothing can be dry-run in a
    namespace that does not exist); RV(releases), RV(repairs), RV(gateways), RV(apply), RV(uninstall), RV(remove),
    RV(prune) and RV(endpoints) hold only theirs, RV(render) every record's.
  - An object is due for the apply when it is missing or lacks a field its definition sets, with the same value (fields
    the server adds do not count); a field edited on the cluster makes it due again.
  - Changes nothing, in check mode too.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.read_only
options:
  records:
    description: Plan records (M(ai_platform.serving.model_plan)).
    type: list
    elements: dict
    required: true
    version_added: 0.1.0
  specs:
    description: Slug to the stack spec of each record (its C(values) per chart key, C(objects), C(routing), C(stale),
      C(endpoint)).
    type: dict
    required: true
    version_added: 0.1.0
  charts:
    description: C(infra), C(gaie), C(modelservice) (the seed's stack) and C(router) (llm-d v0.10) to their C(ref),
      C(repo), C(version), as the releases install them; only the charts of the records' stacks are needed.
    type: dict
    required: true
    version_added: 0.1.0
  storage_results:
    description:
      - Per slug, what model_storage pulled in this play (its C(model_storage_results)); such a model's claim is not
        checked and its C(digest) is the one stamped.
      - A result's C(claim_annotations), when it is a dict, are the annotations of the model's claim after this play's
        pull or record (the digest, the revisions kept, the pull marker); they stand for the claim, which is then not
        read from the cluster (RV(prune) is decided on them). A result without it (an older caller, check mode) means
        the claim is read as before.
    type: dict
    default: {}
    version_added: 0.1.0
  helm_binary:
    description: The helm executable (a name on PATH or a path), Helm 3 or Helm 4 (RV(helm)).
    type: str
    default: helm
  helm_timeout:
    description: The C(--timeout) of the repair calls (RV(repairs)), a Go duration.
    type: str
    default: 10m0s
    version_added: 0.1.0
  post_renderer:
    description:
      - The post-renderer program of the llm-d-infra and llm-d-router releases (RV(post_rendered)), as a path; its
        file's digest goes into their release digest, and RV(post_renderer) says how each Helm call gives it to the Helm found (Helm 3 takes the path,
        Helm 4 the plugin in O(post_renderer_plugins)).
    type: path
    version_added: 0.1.0
  post_renderer_plugins:
    description:
      - The directory of Helm 4 plugins that holds the post-renderer plugin running O(post_renderer)
        (C(aips-gateway-placement)); put first on C(HELM_PLUGINS) for Helm 4 calls.
    type: path
    version_added: 0.1.0
  keep:
    description: Revisions a claim keeps beside the served one, as given to M(ai_platform.serving.model_revisions).
    type: int
    default: 1
requirements:
  - kubernetes >= 24.2.0
  - helm (the binary)
"""

EXAMPLES = r"""
- name: Read the serving state of every model
  ai_platform.serving.serving_stack_info:
    records: "{{ aips_plan }}"
    specs: "{{ stack_specs }}"
    charts: "{{ aips_plan_artifacts.charts }}"
    storage_results: "{{ model_storage_results | default({}) }}"
  register: state

- name: Apply only the objects that are missing or differ
  kubernetes.core.k8s:
    definition: "{{ state.apply }}"
  when: state.apply | length > 0
"""

RETURN = r"""
helm:
  description:
    - The helm found - C(version) as C(helm version --short) prints it, its C(major) (3 or 4), C(list_args), the
      C(helm list) arguments that list every release of every namespace as JSON on that major (Helm 4 has no C(--all)),
      and C(apply), the M(kubernetes.core.helm) options of a C(normal) and a C(forced) upgrade on that major (Helm 4
      - client-side apply, see module_utils/stack/helm_compat.py).
    - With O(post_renderer), also C(post_renderer), as RV(post_renderer).
    - The probe this module made, handed whole to M(ai_platform.serving.serving_stack_render)'s C(helm), which then
      does not probe Helm again.
  returned: always
  type: dict
  sample: {"version": "v4.3.2", "major": 4, "list_args": ["list", "--all-namespaces", "--output", "json"],
           "apply": {"normal": {"server_side": "false"}, "forced": {"force": true}},
           "post_renderer": {"arg": "aips-gateway-placement", "env": {"HELM_PLUGINS": "/plugins"}}}
post_renderer:
  description:
    - How a Helm call gives it O(post_renderer) - C(arg), the C(--post-renderer) value (the path for Helm 3, the
      plugin name C(aips-gateway-placement) for Helm 4), and C(env), the environment that call adds (Helm 4
      C(HELM_PLUGINS) with O(post_renderer_plugins) first).
  returned: when O(post_renderer) is given
  type: dict
  sample: {"arg": "aips-gateway-placement", "env": {"HELM_PLUGINS": "/roles/serving_stack/files/helm4-plugins:/root/.local/share/helm/plugins"}}
render:
  description:
    - The releases of every record that go to Helm (a recorded digest that does not match, a release not deployed), in
      chart order, as RV(releases) holds them; the input of M(ai_platform.serving.serving_stack_render), which needs
      no records or charts beside them (each item carries its chart and C(plan_record)).
  returned: always
  type: list
  elements: dict
releases:
  description:
    - Per chart key of every stack (C(infra), C(gaie), C(modelservice), C(router)), the live records' releases that
      go to Helm (each record's of its own stack), each with
      C(slug), C(model), C(namespace), C(name) (the release), C(chart), C(ref), C(repo), C(version), C(values) (with
      the chart mark C(global.aipsChartMark)), the M(kubernetes.core.helm) options of its state (C(force) or
      C(server_side), from RV(helm)'s C(apply); a failed or pending release is forced), C(post_renderer) (llm-d-infra
      and llm-d-router),
      C(label), C(failure) (the model, chart and namespace a failure line starts with), C(digest) and C(record) (the
      release digest and the metadata of the ConfigMap it is recorded in after the deploy, with the revision Helm
      deployed), and C(plan_record), the fields of its plan record that M(ai_platform.serving.serving_stack_render)
      reads (slug, name, namespace, names, values files, model artifacts URI, the claim's storage mode, names and
      hostPath node; module_utils/stack/render.py, record_part).
  returned: always
  type: dict
repairs:
  description: The helm calls (C(argv), C(label)) that roll back a release an interrupted run left pending, or
    uninstall a failed or pending first install (module_utils/stack/helm_repair.py).
  returned: always
  type: list
  elements: dict
post_rendered:
  description: The chart keys whose releases take O(post_renderer) (C(infra), C(router)); the role gives their Helm
    calls the post-renderer's environment.
  returned: always
  type: list
  elements: str
gateways:
  description: The gateway ExternalName Services of the live seed records that are missing or differ on the cluster,
    applied between the llm-d-infra and GAIE releases; not those of llm-d v0.10 records nor of seed records moving
    back (their endpoint switches in RV(apply), after their releases).
  returned: always
  type: list
  elements: dict
apply:
  description:
    - Every object of the live records' stacks (gateway Services, HTTPRoutes, embeddings Services, llm-d v0.10
      model-server objects) missing or different on the cluster, in record order and, per record, as its stack spec
      lists them (llm-d v0.10 - the model-server objects, then the gateway Service).
    - Applied in this order with each definition waited for (at most RV(apply_wait) seconds), so that a model moving
      to llm-d v0.10 has its endpoint switched only once its new Deployments are Available.
  returned: always
  type: list
  elements: dict
apply_wait:
  description: The wait of the apply, in seconds - O(helm_timeout) as seconds (600 when it is no Go duration).
  returned: always
  type: int
uninstall:
  description:
    - The releases of the other stack that C(helm list) shows in a live record's namespace (a model that moved) - for
      an llm-d v0.10 record the seed's C(ms-), C(gaie-), C(infra-) releases in that order, for a seed record
      C(router-<slug>) - each with C(slug), C(model), C(namespace), C(name), C(chart), C(stack) (the stack it is of),
      C(label), C(failure) (the start of the failure line) and C(record) (the metadata of the model's release-digest
      ConfigMap).
    - Uninstalled after RV(apply). The key such a release leaves in the ConfigMap is never trusted again (a digest
      counts only for a release Helm lists deployed at the recorded revision).
  returned: always
  type: list
  elements: dict
remove:
  description:
    - The retired objects of the live records that exist on the cluster (an llm-d v0.10 record, the seed's HTTPRoute
      and gateway-defaults ConfigMap), and for a seed record whose llm-d v0.10 router release is still listed (a
      move back) its v0.10 model-server objects (listed by label).
    - Removed after RV(uninstall).
  returned: always
  type: list
  elements: dict
prune:
  description: The live records whose claim keeps more than the served revision plus O(keep), each with its decision
    under C(prune) (C(annotations) of the claim, the digests C(kept) and C(dropped)) for
    M(ai_platform.serving.model_revisions), which then reads no claim.
  returned: always
  type: list
  elements: dict
endpoints:
  description: Per live slug, how clients reach the model (C(namespace), C(kind), C(name), C(endpoint)) - the
    HTTPRoute or embeddings Service, or for an llm-d v0.10 generative model the gateway Service C(llmd-gateway-<slug>).
  returned: always
  type: dict
unchanged:
  description: C(namespace/release) of the live records' releases whose recorded digest matches (no helm call).
  returned: always
  type: list
  elements: str
problems:
  description: The claims that hold no verified pull or another artifact than the plan's, one line per model (the
    module fails with them, except in check mode).
  returned: always
  type: list
  elements: str
"""

import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat, live_state, state
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import _dict, live_objects, run_module

try:
    from kubernetes.dynamic.exceptions import NotFoundError, ResourceNotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    NotFoundError = ResourceNotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        records=dict(type="list", elements="dict", required=True),
        specs=dict(type="dict", required=True),
        charts=dict(type="dict", required=True),
        storage_results=dict(type="dict", default={}),
        helm_binary=dict(type="str", default="helm"),
        helm_timeout=dict(type="str", default="10m0s"),
        post_renderer=dict(type="path"),
        post_renderer_plugins=dict(type="path"),
        keep=dict(type="int", default=1),
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


def model_claims(client, records):
    """The model claims of ``records``: one list by the collection's labels, then a read per claim not found; no
    call at all without records (state.claims_to_read: every claim is known from model_storage's results)."""
    if not records:
        return []
    claims = selected(client, "PersistentVolumeClaim", "v1", "model_cache")
    resource = client.resource("PersistentVolumeClaim", "v1")
    for record in live_state.missing_claims(records, claims):
        try:
            claims.append(_dict(client.get(resource, name=record["storage"]["pvc"], namespace=record["namespace"])))
        except NotFoundError:
            pass
    return claims


def leftovers(client, queries):
    """``{slug: [object]}``: the llm-d v0.10 model-server objects of the models that moved back to the seed's stack
    (state.leftover_queries: one list per kind and such model, by label); no call without such a model. A kind the
    cluster does not serve lists nothing."""
    found = {}
    for query in queries:
        for api_version, kind in query["kinds"]:
            try:
                resource = client.resource(kind, api_version)
                items = (_dict(client.get(resource, namespace=query["namespace"],
                                          label_selector=",".join(query["selector"]))) or {}).get("items") or []
            except (NotFoundError, ResourceNotFoundError):
                items = []
            found.setdefault(query["slug"], []).extend(
                dict(item, apiVersion=item.get("apiVersion") or api_version, kind=item.get("kind") or kind)
                for item in items)
    return found


def namespace_names(client):
    """The names of the namespaces on the cluster (one list)."""
    return [(item.get("metadata") or {}).get("name")
            for item in (_dict(client.get(client.resource("Namespace", "v1"))) or {}).get("items") or []]


def file_digest(module, path):
    """The digest of the post-renderer's file (it goes into the llm-d-infra release digest)."""
    if not path:
        return ""
    try:
        with open(path, "rb") as handle:
            return state.file_digest(handle.read().decode("utf-8"))
    except (IOError, OSError, UnicodeDecodeError) as exc:
        module.fail_json(msg="post_renderer %s cannot be read: %s. Fix: give the path of "
                         "roles/serving_stack/files/gateway_placement.py." % (path, exc))


def check_input(module):
    params = module.params
    if params["keep"] < 0:
        module.fail_json(msg="keep is %d: give the number of revisions to keep beside the served one (0 or more)"
                         % params["keep"])
    for record in params["records"]:
        if not isinstance(record.get("names"), dict) or not record.get("slug") or not record.get("namespace"):
            module.fail_json(msg="records: each must be a plan record with slug, namespace and names (the model_plan "
                             "result), got %r" % (record,))
        if not isinstance((params["specs"] or {}).get(record["slug"]), dict):
            module.fail_json(msg="specs: %s has no stack spec (the values step computes one per record)"
                             % record["slug"])


def execute_module(module, client):
    check_input(module)
    params = module.params
    records, specs = params["records"], params["specs"]
    facts = helm_facts(module)
    namespaces = namespace_names(client) if module.check_mode else None
    live = state.live_records(records, namespaces)
    objects, retired = state.stack_objects(dict((r["slug"], specs[r["slug"]]) for r in live))
    helm_list = helm_releases(module, facts["helm"]["major"])
    read = dict(
        helm_list=helm_list,
        digest_maps=selected(client, "ConfigMap", "v1", "release_digests"),
        claims=model_claims(client, state.claims_to_read(records, params["storage_results"])),
        live=live_objects(client, [d for group in (objects, retired) for ds in group.values() for d in ds]),
        namespaces=namespaces,
        apply_options=facts["helm"]["apply"],
        leftovers=leftovers(client, state.leftover_queries(live, helm_list)),
    )
    result = state.decide(records, specs, params["charts"], read, params["storage_results"], params["keep"],
                          (facts.get("post_renderer") or {}).get("arg"), file_digest(module, params["post_renderer"]),
                          params["helm_timeout"], params["helm_binary"])
    # the kubeconfig (a no_log option of kubernetes.core's) is added by the role's command task: in this result it
    # would be masked, as every no_log value is
    result.update(facts, helm=helm_compat.handed(facts))
    if result["problems"] and not module.check_mode:
        module.fail_json(msg="\n".join(result["problems"]), **result)
    module.exit_json(changed=False, **result)


def main():
    run_module(argspec(), execute_module)


if __name__ == "__main__":
    main()
