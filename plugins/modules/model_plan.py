#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_plan
short_description: Validate the model inputs and resolve one record per enabled model
version_added: 0.1.0
author:
  - AI Platform team (@ai-platform)
description:
  - Reads the models list (by category), the cluster-wide settings and the per-model values folders
    C(models/<category>/<name>/{gaie-<slug>,ms-<slug>}/values.yaml) (the seed's stack) or
    C(router-<slug>/values.yaml) and C(modelserver-<slug>/) (the llm-d v0.10 stack), validates all of them and returns
    one fully resolved record per enabled model - slug, every resource name, namespace, storage mode,
    model URI, pull image, values file paths, tolerations and affinity.
  - Every problem is collected first; the module fails once, listing each problem with the model, the
    field, the bad value and the fix. Nothing touches a cluster. For that reason the settings are checked
    by the module, not by option types or choices, and of O(kubeconfig) and O(harbor_token) only the
    presence matters; the token is never returned.
  - "Run it on the controller (C(delegate_to: localhost), C(run_once: true)): it reads the models folder
    where it runs. Its action plugin runs it in the playbook's own process (no module process is started):
    the options are checked against this argument spec there."
  - Names are derived in one place, the same as the name filters (for example
    P(ai_platform.serving.resource_names#filter)).
options:
  models:
    description:
      - The models by category, as in the seed's stack config. Keys are V(generative) and V(embedder); each
        holds a list of entries with C(name), C(enabled), C(nodeSelector), C(nameSpace), C(releaseName),
        C(modelSource), C(stack) and C(routerMode).
      - C(routerMode) (V(standalone) or V(gateway); llm-d v0.10 only) overrides O(router_mode) for the model.
      - C(stack) (V(llm-d-modelservice) or V(llm-d-v0.10)) overrides O(serving_stack) for the model; it decides
        which folder pair is required and read - C(gaie-<slug>/) and C(ms-<slug>/), or C(router-<slug>/values.yaml)
        (the llm-d-router chart's values, refused with the key named when it holds a top-level key of GAIE's
        charts - C(inferenceExtension), C(inferencePool), C(experimentalHttpRoute), C(inferenceObjectives) - or a
        null EPP resource request) and C(modelserver-<slug>/) (a C(kustomization.yaml) rendered with
        O(kubectl_binary), else every C(*.yaml)/C(*.yml) manifest file; at least one apps/v1 Deployment, the
        model's namespace only, no name of the seed's model server). Both pairs may sit in one folder with one
        slug. An unknown name is a problem naming the model.
      - C(modelSource) is either a mapping C({harborRef, modelUri, storageSize, storageClass, hostpathNode,
        hostpathDir}) for weights pulled from Harbor, or a string C(pvc://[namespace:]claim/sub/path) for a
        user-owned claim.
      - V(null) means no models. Any other value that is not a mapping is a problem naming C(aips_models)
        (the option takes any type so that the plan, not the option check, reports it).
      - String fields are trimmed or refused as C(plugins/module_utils/plan/inputs.py) documents (a block
        scalar's trailing newline never reaches a Job's env or an object name).
    type: raw
    default: {}
  models_dir:
    description: Folder holding C(generative/) and C(embedder/) model folders.
    type: path
    required: true
  gpu_toleration:
    description:
      - Toleration applied to the model pods and to the pull Job (C(key), C(operator), C(value), C(effect),
        C(tolerationSeconds) as a whole number).
      - A value that is not a mapping is a problem naming C(aips_gpu_toleration).
    type: raw
  hostpath_root:
    description: Parent of the default per-model hostPath directory C(<hostpath_root>/<slug>).
    type: str
    default: /var/lib/hostpath/models
  images:
    description:
      - The images carried into Harbor (C(aips_images), see P(ai_platform.serving.image_plan#filter)). The pull
        Job's ORAS image is its C(ghcr.io/oras-project/oras) entry - on-prem at its Harbor reference
        C(<harbor_hostname>/<project>/<path>:<tag>), on cloud at its source.
      - Omitted, the collection's default entry (C(ghcr.io/oras-project/oras:v1.3.1) in project
        C(images-infra)), the one C(group_vars/all/images.yml) carries.
      - On-prem, a list without that entry is a problem of every model with a Harbor modelSource, unless
        O(oras_image) is set.
    type: list
    elements: dict
  oras_version:
    description: Tag of the ORAS image used by the pull Job, replacing the tag of its O(images) entry.
    type: str
  oras_image:
    description:
      - Full ORAS image reference; overrides the one O(images) gives.
    type: str
  sync_models:
    description:
      - What model_sync publishes, C([{repo_id, reference}]) (the filter
        P(ai_platform.serving.model_sync_published#filter) of C(model_sync_models)).
      - Where an entry and a model's C(modelSource) name the same artifact (registry and repository) or the
        same Hugging Face repo, they must agree on the repo id (C(modelUri)), the tag and the artifact; each
        disagreement is a problem naming the model, the field, both values and the fix. Models no entry
        names are not checked (they may be synced elsewhere).
    type: list
    elements: dict
    default: []
  protected_namespaces:
    description:
      - Namespaces (shell patterns) no model may use, added to the default list - C(kube-*), C(default),
        C(kube-node-lease), C(kube-public), C(kube-system), C(istio-system) (the Gateway controller's),
        C(ai-platform-serving) (kept for the collection itself) and Harbor's namespace when O(harbor_hostname) is
        C(<service>.<namespace>.svc...).
    type: list
    elements: str
    default: []
  values_policy_allow:
    description:
      - The values policy's exceptions C([{model, rule, key, reason}]) (C(aips_values_policy_allow)). The plan applies
        the values policy (the rules of C(serving_stack_values_policy_allow)) to every model's values files, so a
        refused key fails the plan before anything changes.
      - Two rules are the plan's own - V(pull-image-off-harbor) (on-prem the pull Job image must come from
        O(harbor_hostname) unless an entry with this rule names the model) and V(tolerate-everything) with model
        C(*) (a O(gpu_toleration) with C(operator=Exists) and no key).
    type: list
    elements: dict
    default: []
  pod_security:
    description:
      - The Pod Security labels of the model namespaces, mode to level (C(aips_pod_security)). A values key the
        values policy refuses that the enforced level refuses too fails naming both fixes (the allow-list entry and
        the looser level), since either alone does not deploy.
    type: dict
    default: {}
    version_added: 0.1.0
  chart_dir:
    description:
      - Folder of the carried chart archives C(<name>-<version>.tgz) (what harbor_upload's C(charts_download)
        writes). The defaults of llm-d-modelservice that count the serving pods (C(prefill.create),
        C(replicas), C(multinode)) are read from its C(values.yaml) there.
      - Omitted, or without that archive, the collection's known facts of the pinned version are used.
    type: path
    version_added: 0.1.0
  chart_mirrors:
    description:
      - The charts carried into Harbor (C(aips_chart_mirrors)); the entries with a C(key) (V(infra), V(gaie),
        V(modelservice)) give the chart plan RV(charts) - on-prem with O(harbor_hostname) their Harbor OCI mirrors
        C(oci://<harbor_hostname>/<project>/<name>), else their upstream C(chart) and C(repo_url).
      - Omitted, and without O(charts), the plan has no chart plan.
    type: list
    elements: dict
  charts:
    description:
      - A site's own chart mapping (C(aips_charts)) - C({infra, gaie, modelservice} -> {ref, repo, version}), plain
        data. Set, it wins over O(chart_mirrors); each key must have a C(ref) when there are models to serve.
    type: raw
  lock_file:
    description:
      - The lock file C(playbooks/load.yml) writes (C(aips_lock_file)), read once here. Its C(images) digests pin
        the images (the pull Job's ORAS image, RV(images), RV(image_pins)); its C(charts) digests pin the OCI
        charts (RV(helm_charts)). A missing or unreadable file is a problem.
      - On-prem with models to serve, a chart it does not pin (or every chart, without a lock file) is a problem
        unless O(allow_unpinned).
    type: str
  allow_unpinned:
    description: Install charts by version when the lock file does not pin them (a lab; C(aips_allow_unpinned)).
    type: bool
    default: false
  serving_stack:
    description:
      - The site's default serving stack (C(aips_serving_stack)) - V(llm-d-modelservice) (the seed's, the default
        when omitted) or V(llm-d-v0.10). A model's C(stack) overrides it. Another name is a problem naming
        C(aips_serving_stack).
    type: str
    version_added: 0.1.0
  kubectl_binary:
    description:
      - The kubectl that renders an llm-d v0.10 model server's Kustomize overlay (C(<kubectl_binary> kustomize
        <modelserver-<slug>/>)), on the controller (C(aips_kubectl_binary)). A name is looked up on PATH. Not found
        while a model needs it is a problem naming C(aips_kubectl_binary).
    type: str
    default: kubectl
    version_added: 0.1.0
  router_mode:
    description:
      - The router mode of the site's llm-d v0.10 models (C(aips_router_mode)) - V(standalone) (the default when
        omitted; llm-d-router-standalone, the EPP with its Envoy sidecar, reached through C(llmd-gateway-<slug>)) or
        V(gateway) (llm-d-router-gateway behind the site's Gateway O(router_gateway), with the HTTPRoute
        C(llm-d-<slug>) to the model's InferencePool). A model's C(routerMode) overrides it; C(routerMode) on a
        model of the seed's stack is a problem.
    type: str
    version_added: 0.1.0
  router_gateway:
    description:
      - The site's Gateway that gateway-mode routers sit behind (C(aips_router_gateway)) - C(name) (required in
        gateway mode), C(namespace) (default the model's namespace) and C(service), the Service of the Gateway that
        C(llmd-gateway-<slug>) points at (default C(<name>-istio), Istio's name for it).
    type: raw
    version_added: 0.1.0
extends_documentation_fragment:
  - ai_platform.serving.cluster_settings
attributes:
  check_mode:
    support: full
    description: The module changes nothing; it runs the same in check mode.
  diff_mode:
    support: none
    description: The module returns no diff.
notes:
  - Warnings (for example a C(storageClass) on-prem, which is ignored) do not fail the plan; they are shown
    as Ansible warnings and returned in RV(problems).
"""

EXAMPLES = r"""
- name: Resolve the model plan
  ai_platform.serving.model_plan:
    models: "{{ aips_models }}"
    models_dir: "{{ aips_models_dir }}"
    cloud_provider: "{{ aips_cloud_provider }}"
    kubeconfig: "{{ aips_kubeconfig | default(omit) }}"
    harbor_hostname: "{{ aips_harbor_hostname | default(omit) }}"
    harbor_user: "{{ aips_harbor_user | default(omit) }}"
    harbor_token: "{{ aips_harbor_token | default(omit) }}"
    gpu_toleration: "{{ aips_gpu_toleration | default(omit) }}"
  delegate_to: localhost
  run_once: true
  register: plan

- name: Show the namespace of each model
  ansible.builtin.debug:
    msg: "{{ plan.records | map(attribute='namespace') }}"
"""

RETURN = r"""
records:
  description: One record per enabled model, in category order (generative, then embedder) and list order.
  returned: success
  type: list
  elements: dict
  contains:
    name:
      description: The model's folder name.
      type: str
    category:
      description: V(generative) or V(embedder).
      type: str
    embedder:
      description: True for embedders (ClusterIP Service on 8200 instead of an HTTPRoute).
      type: bool
    slug:
      description: The slug from the C(gaie-<slug>)/C(ms-<slug>) (or C(router-<slug>)/C(modelserver-<slug>)) folder pair.
      type: str
    stack:
      description: The model's serving stack - its C(stack), else O(serving_stack), else V(llm-d-modelservice).
      type: str
    router_mode:
      description: llm-d v0.10 - the router mode, its C(routerMode), else O(router_mode), else V(standalone); null on
        the seed's stack.
      type: str
    router_gateway:
      description: Gateway mode - the site Gateway C({name, namespace, service}) the model's HTTPRoute attaches to
        (O(router_gateway), its namespace defaulted to the model's, its service to C(<name>-istio)); null otherwise.
      type: dict
    namespace:
      description: C(llm-d-<slug>) or the C(nameSpace) override.
      type: str
    names:
      description:
        - Every resource name - namespace, infra_release, gaie_release, ms_release, gateway, httproute,
          embeddings_service, pvc, pv, pull_job, clear_job, gateway_service, gateway_defaults, epp_service,
          router_release (C(router-<slug>)), router_epp (C(router-<slug>-epp), cut as epp_service is),
          harbor_pull_secret (None without a token).
        - Both stacks' names are set whatever the model's stack (removing the other stack needs them); the slug
          limit binds on the names of the model's own stack (an llm-d v0.10 model's on router_release, 46).
        - Both routing names are set whatever the category; RV(records[].routing_kind) says which one applies.
      type: dict
    routing_kind:
      description:
        - The key in RV(records[].names) of the object that routes requests to the model - V(httproute) (the
          Gateway's HTTPRoute, generative) or V(embeddings_service) (the ClusterIP Service on 8200, embedder).
          The other one is what serving_stack removes as stale after a category change.
      type: str
    node_selector:
      description:
        - The model's nodeSelector. With more than one replica on a hostPath claim, the plan adds
          C(kubernetes.io/hostname=<hostpathNode>) so every replica runs where the claim is.
      type: dict
    affinity:
      description: A hard nodeAffinity built from the nodeSelector, or None.
      type: dict
    replicas:
      description:
        - Pods that mount the model, counted from C(ms-<slug>/values.yaml) (decode, plus prefill when created,
          with the chart's default of 1); None when the file cannot be read. llm-d v0.10 - the sum of the model
          server's Deployments' C(spec.replicas) (1 when unset).
        - More than one on a single-node claim is pinned to its node (hostPath) or refused (a dynamic
          ReadWriteOnce claim).
      type: int
    tolerations:
      description: The GPU toleration as a one-element list, or empty.
      type: list
    model_dir:
      description: The model's folder, C(<models_dir>/<category>/<name>).
      type: str
    values_files:
      description:
        - Paths of the C(gaie) and C(ms) values files; llm-d v0.10 - C(router) (the router values file) and
          C(modelserver) (the model server folder).
      type: dict
    storage:
      description:
        - C(mode) is V(harbor) (PVC, on-prem PV, pull Job), V(claim) (user-owned claim, checks only) or
          V(none).
        - Every mode has job_affinity (the claim's Jobs' node affinity, the hostPath node's, or None).
        - For V(harbor) also pvc, pv, pull_job, clear_job, prune_job, size, size_bytes, storage_class, access_mode,
          hostpath_node, hostpath_dir, oci (registry, repository, tag, digest, reference), model_uri, repo_id,
          oras_image, mount_path, working_dir, marker, model_artifacts_uri.
        - For V(claim) also claim, sub_path, namespace, model_artifacts_uri.
        - The schema is C(plugins/module_utils/plan/schema.py)'s.
      type: dict
    model_artifacts_uri:
      description: The C(modelArtifacts.uri) for llm-d-modelservice (C(pvc+hf://...) or C(pvc://...)), or None.
      type: str
  sample:
    - name: Qwen3-0.6B
      category: generative
      slug: qwen3-0-6b
      stack: llm-d-modelservice
      namespace: llm-d-qwen3-0-6b
      model_artifacts_uri: pvc+hf://qwen3-0-6b-model/hub/Qwen/Qwen3-0.6B
problems:
  description: Every problem found, errors and warnings, each with model, field, value, problem, fix, severity and message.
  returned: always
  type: list
  elements: dict
images:
  description:
    - The image plan of O(images) (what P(ai_platform.serving.image_plan#filter) returns) with the lock file's
      digests - each image's source, Harbor C(destination), C(mirror) rewrite, C(digest) and C(pinned) reference.
      None when O(images) is omitted.
  returned: success
  type: list
  elements: dict
image_pins:
  description: Each pinned image's tag reference (Harbor and upstream) mapped to its reference by digest.
  returned: success
  type: dict
charts:
  description:
    - Per chart key (V(infra), V(gaie), V(modelservice)) the chart as written - C(ref), C(repo), C(version) - with
      C(digest) and C(pinned_ref) where the lock file pins it (else None).
  returned: success
  type: dict
helm_charts:
  description: Per chart key what Helm installs - C(ref), C(repo), C(version); by digest (version empty) where pinned.
  returned: success
  type: dict
chart_source:
  description: Where the charts came from - V(aips_charts) (it wins), V(aips_chart_mirrors), or None.
  returned: success
  type: str
models:
  description:
    - Per Harbor reference of the plan, the lock file's entry for it (C(digest), C(size), C(file_count), ...), as the
      lock file has it; references without one are left out.
    - M(ai_platform.serving.model_storage_pull) hands them to M(ai_platform.serving.model_storage_state), which then
      does not read the lock file again.
  returned: success
  type: dict
lock_file:
  description: The lock file the plan read (empty without one).
  returned: success
  type: str
model_values:
  description:
    - Per slug, the model's values files as the plan read them - C(files) (C(gaie), C(ms) paths) and C(values) (their
      parsed contents, an empty file as C({})).
    - For an llm-d v0.10 model C(files) is C({router, modelserver}) (the values file, the folder) and C(values) is
      C({router - the parsed router values, modelserver - the list of the model server's objects}) (rendered by
      kubectl kustomize, or read from the manifest files).
    - M(ai_platform.serving.serving_stack_spec) takes them (its O(ai_platform.serving.serving_stack_spec#module:model_values))
      and reads no values file again.
  returned: success
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import argspec, plan_result


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    result, warnings = plan_result(module.params)
    for warning in warnings:
        module.warn(warning)
    if result.pop("failed", False):
        module.fail_json(**result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
