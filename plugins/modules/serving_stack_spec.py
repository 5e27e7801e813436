#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: serving_stack_spec
short_description: Select the plan records serving_stack handles and compute every model's stack
version_added: 0.1.0
author:
  - AI Platform team (@ai-platform)
description:
  - The first step of the role C(ai_platform.serving.serving_stack), in one call. Selects and checks the plan
    records to handle - a plan was built, its items are M(ai_platform.serving.model_plan) records, every slug of
    O(models) is in it - and fails naming C(serving_stack_plan) or C(serving_stack_models) and what to do.
  - With O(specs), also checks that O(charts) gives a C(ref) for C(infra), C(gaie) and C(modelservice), reads each
    record's two values files (C(gaie-<slug>/values.yaml), C(ms-<slug>/values.yaml)) with the collection's one YAML
    reader below O(models_dir), and computes each model's stack - the values of the llm-d-infra, GAIE inferencepool
    and llm-d-modelservice releases, the ExternalName Service, and the HTTPRoute (generative) or embeddings Service
    (embedder) - with the images pinned by O(image_pins).
  - "The merge rule: mappings merge key by key and the programmatic side wins; lists are replaced whole, except
    C(containers), C(env), C(imagePullSecrets) (merged by name) and C(tolerations) (merged by value), so a model
    author's entries stay. See roles/serving_stack/README.md."
  - Every problem of every model is collected first (values that contradict the plan, that the pinned charts
    reject, that the values policy refuses, images off Harbor on-prem, images the lock file does not pin); the
    task fails once, listing each. Warnings (on cloud, what reaches Hugging Face at run time) are shown as Ansible
    warnings; notes (what the collection changed in the values) are returned in RV(notes).
  - "It runs on the controller in the playbook's own process (its action plugin; no module process is started):
    the options are checked against this argument spec there, and the values files are read where the playbook
    runs. Nothing touches a cluster."
options:
  plan:
    description:
      - The plan records (M(ai_platform.serving.model_plan) C(records), C(serving_stack_plan)). Null means no plan
        was built, which fails naming what to do; V([]) handles no model.
      - Any other value that is not a list of plan records fails naming C(serving_stack_plan).
    type: raw
  models:
    description: Slugs to handle (C(serving_stack_models)); empty handles every record of O(plan).
    type: list
    elements: str
    default: []
  specs:
    description:
      - Compute the stacks. V(false) selects and checks the records only (what the removal needs, which reads no
        values file); RV(specs) is then empty and O(charts) is not checked.
    type: bool
    default: true
  charts:
    description:
      - What Helm installs per chart key (C(serving_stack_charts), the plan's C(helm_charts)) - C(infra), C(gaie),
        C(modelservice), each with C(ref), C(repo) and C(version). With O(specs) and records to handle, a key without
        C(ref) fails naming the key, the value found and the fix. Returned as RV(charts).
    type: raw
  model_values:
    description:
      - The values files as the model plan read them (M(ai_platform.serving.model_plan)'s
        RV(ai_platform.serving.model_plan#module:model_values), the C(aips_plan_artifacts.model_values) fact), per
        slug its C(files) and their parsed C(values). A record naming the same files takes its values from here and
        no values file is read again.
    type: dict
    default: {}
  models_dir:
    description:
      - The models tree the plan read the values files from. A values file is read (for a record without its values
        in O(model_values)) only when it resolves (symlinks followed) below this folder, so a file swapped for a link
        out of the tree after the plan is refused, not followed. Empty, no such check.
    type: str
    default: ""
  cloud_provider:
    description: V(on-prem) checks that no rendered image points outside O(harbor_hostname) or O(mirrored_registries).
    type: str
    choices: [cloud, on-prem]
    default: on-prem
  harbor_hostname:
    description: Harbor host of the air-gap check.
    type: str
    default: ""
  mirrored_registries:
    description: Registries the nodes pull through a node-level mirror; the air-gap check accepts them.
    type: list
    elements: str
    default: []
  gateway_class:
    description: GatewayClass of the llm-d-infra Gateway.
    type: str
    default: istio
  gateway_service_type:
    description: Type of the Gateway's Service.
    type: str
    choices: [ClusterIP, NodePort, LoadBalancer]
    default: ClusterIP
  gateway_listener:
    description: Listener (sectionName) the HTTPRoute binds to; empty binds every listener.
    type: str
    default: ""
  infra_values:
    description: Site values of llm-d-infra, under the programmatic ones.
    type: dict
    default: {}
  gaie_provider:
    description: GAIE C(provider.name).
    type: str
    choices: [gke, istio, none]
    default: istio
  connection_pool:
    description: Istio DestinationRule C(trafficPolicy.connectionPool) for the EPP (GAIE provider istio).
    type: dict
    default: {}
  cluster_domain:
    description: Cluster DNS domain of the Service FQDNs.
    type: str
    default: cluster.local
  embeddings_port:
    description: Port of the embeddings Service and the decode server.
    type: int
    default: 8200
  image_pins:
    description: C({tag reference - reference by digest}) of the carried images (the plan's C(image_pins)).
    type: dict
    default: {}
  images:
    description:
      - The plan's image plan (C(aips_plan_artifacts.images)); on-prem the llm-d v0.10 router's EPP and Envoy images
        the collection sets take their Harbor C(destination) from it (else C(<harbor>/images-shaide/<path>)).
    type: list
    elements: dict
    default: []
  allow_unpinned:
    description: On-prem, allow images the lock file does not pin (a lab); otherwise each is a problem.
    type: bool
    default: false
  lock_file:
    description: The lock file the pins come from, named in the problems of unpinned images.
    type: str
    default: ""
  chart_dir:
    description:
      - Folder of the carried chart archives C(<name>-<version>.tgz); the checks read the charts' defaults (the
        model pods' labels) from them. Empty, the collection's known facts of the pinned versions.
    type: str
    default: ""
  monitors:
    description: Keep the charts' PodMonitor and ServiceMonitor objects; V(false) turns them off in the values.
    type: bool
    default: true
  pod_security:
    description: The Pod Security labels of the model namespaces; the values policy names the level a refused key needs.
    type: dict
    default: {}
  values_policy_allow:
    description: The values policy's exceptions C([{model, rule, key, reason}]) (C(serving_stack_values_policy_allow)).
    type: list
    elements: dict
    default: []
  pod_security_context:
    description: Give the serving pods a restricted securityContext where the values set none.
    type: bool
    default: false
  pod_uid:
    description: The uid and gid the serving containers run as under O(pod_security_context).
    type: int
    default: 65532
  pod_probes:
    description: Give each serving role's first container startup, readiness and liveness probes unless it sets one.
    type: bool
    default: false
  pod_probe_path:
    description: The health endpoint of those probes.
    type: str
    default: /health
  pod_requests:
    description: C(resources.requests) of every serving container without C(resources); V({}) adds none.
    type: dict
    default: {}
extends_documentation_fragment:
  - ai_platform.serving.read_only
notes:
  - The role C(ai_platform.serving.serving_stack) registers the result as C(serving_stack__spec) (its C(spec) entry
    point, C(roles/serving_stack/tasks/spec.yml)); C(playbooks/render.yml) runs that entry point alone.
seealso:
  - module: ai_platform.serving.model_plan
  - module: ai_platform.serving.serving_stack_render
"""

EXAMPLES = r"""
- name: Compute every model's stack from the plan
  ai_platform.serving.serving_stack_spec:
    plan: "{{ aips_plan }}"
    charts: "{{ aips_plan_artifacts.helm_charts }}"
    image_pins: "{{ aips_plan_artifacts.image_pins }}"
    models_dir: "{{ aips_models_dir }}"
    cloud_provider: on-prem
    harbor_hostname: harbor.example.com
  register: stack

- name: Show each model's endpoint
  ansible.builtin.debug:
    msg: "{{ stack.specs | dict2items | map(attribute='value.endpoint') }}"
"""

RETURN = r"""
records:
  description: The selected plan records (all of O(plan), or those O(models) names), in plan order.
  returned: success
  type: list
  elements: dict
specs:
  description:
    - Per slug, the model's stack - C(slug), C(values) (C(infra), C(gaie), C(modelservice)), C(objects), C(routing),
      C(stale), C(endpoint), C(problems) (empty on success), C(warnings), C(notes). Empty without O(specs).
    - C(routing) is the object of the record's C(routing_kind), C(stale) the other one (and the ConfigMap of
      earlier versions); C(endpoint) the URL clients use.
  returned: success
  type: dict
charts:
  description: O(charts) as given (V({}) when unset).
  returned: success
  type: dict
notes:
  description: Every model's notes, in record order - what the collection changed, such as a Hugging Face token Secret
    dropped for a model served from its claim. Also returned when the task fails on problems.
  returned: always
  type: list
  elements: str
msg:
  description: On failure, the select or chart message, or the list of every problem (model, file or chart, key, fix).
  returned: failed
  type: raw
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.stack.spec_task import argspec


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    module.fail_json(msg="serving_stack_spec reads the controller's models tree: it runs through its action plugin "
                         "only")


if __name__ == "__main__":
    main()
