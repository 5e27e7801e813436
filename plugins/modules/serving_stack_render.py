#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: serving_stack_render
short_description: Render the models' Helm releases with the pinned charts and check their pods before any change
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Renders, in one call, every release of O(records) (or those O(select) names, or the release items of O(releases))
    with C(helm template), the chart settings O(charts) (or those the release items carry, or the carried archives of
    O(chart_dir)), the values of O(specs) with O(marks) merged in (or those of O(releases)), and for llm-d-infra the
    O(post_renderer), as the role M(ai_platform.serving.serving_stack) installs them.
  - Given O(helm) (the probe M(ai_platform.serving.serving_stack_info) made), runs no C(helm version) or C(helm env)
    of its own; without it, probes O(helm_binary) for the post-renderer's form.
  - A release that does not render fails the module, per model, chart and version with Helm's own error, so nothing
    is installed.
  - Checks every rendered pod spec against the Pod Security level the model namespaces enforce (O(pod_security))
    and names, for each check a pod breaks, the values key, the looser level and, when the values policy refuses the
    same key, the O(values_policy_allow) entry too.
  - With O(cluster_checks), reads the cluster for the CRDs of the rendered PodMonitor and ServiceMonitor objects
    (missing CRDs fail the module), the allocatable C(nvidia.com/gpu) of each hostPath claim's node (a warning when
    the replicas ask for more) and the Kubernetes version to render for.
  - Changes nothing, in check mode too.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
  - ai_platform.serving.read_only
options:
  records:
    description:
      - Plan records (M(ai_platform.serving.model_plan)).
      - Required with O(specs); with O(releases), only for release items that carry no C(plan_record).
    type: list
    elements: dict
  specs:
    description:
      - Slug to the stack spec (RV(ai_platform.serving.serving_stack_spec#module:specs)); its C(values) per chart key
        are rendered.
      - Required unless O(releases) is given.
    type: dict
  releases:
    description:
      - The releases to render as M(ai_platform.serving.serving_stack_info) returns them (its C(render)), each with
        C(slug), C(chart), C(name) and C(values) (the chart mark merged in); instead of O(specs), O(select) and O(marks).
      - An item's C(plan_record) (the part of its plan record the checks read) stands for its record in O(records),
        its C(ref), C(repo) and C(version) for its chart in O(charts); serving_stack_info's items carry both.
      - An item with C(objects) (chart C(modelserver), the objects of an llm-d v0.10 model server) is not rendered
        but checked as it is, like the rendered pods.
    type: list
    elements: dict
    version_added: 0.1.0
  charts:
    description:
      - C(infra), C(gaie), C(modelservice) to their C(ref), C(repo), C(version), as the releases install them.
      - Required with O(specs); with O(releases), only for release items that carry no C(ref).
    type: dict
  select:
    description: Chart key to the slugs to render (the release plan's C(deploy)); unset renders every release.
    type: dict
  marks:
    description: Chart key to values merged into every release of that chart (the release plan's C(marks)).
    type: dict
    default: {}
  chart_dir:
    description: Directory of the carried chart archives (C(<name>-<version>.tgz)) to render instead of O(charts)' refs.
    type: path
  post_renderer:
    description:
      - The post-renderer program of the llm-d-infra release, as a path. Helm 3 runs it as given; Helm 4 runs it as
        the plugin in O(post_renderer_plugins) (module_utils/stack/helm_compat.py), as the role's releases do.
    type: path
  post_renderer_plugins:
    description: The directory of Helm 4 plugins that holds the plugin running O(post_renderer) (C(aips-gateway-placement)).
    type: path
    version_added: 0.1.0
  python:
    description: The Python the post-renderer runs with (C(AIPS_PYTHON)); empty leaves it to the post-renderer.
    type: str
    default: ""
  helm_binary:
    description: The helm executable (a name on PATH or a path).
    type: str
    default: helm
  helm:
    description:
      - The Helm probe M(ai_platform.serving.serving_stack_info) made of the same O(helm_binary)
        (RV(ai_platform.serving.serving_stack_info#module:helm)), with the C(post_renderer) form it found for the same
        O(post_renderer) and O(post_renderer_plugins); the module then does not probe Helm. A probe made for another
        post-renderer fails the module.
      - Unset, the module probes O(helm_binary) itself (C(helm version), and C(helm env HELM_PLUGINS) for Helm 4).
    type: dict
    version_added: 0.1.0
  registry_config:
    description: Helm registry config (C(HELM_REGISTRY_CONFIG)) holding the chart registry login.
    type: path
  registry_ca_file:
    description:
      - CA file of the chart registry for chart pulls (C(SSL_CERT_FILE) of helm). Named C(registry_) as in
        M(ai_platform.serving.model_storage_state), since O(validate_certs) and O(ca_cert) are the Kubernetes API's.
      - O(chart_ca_file) is its earlier name, deprecated.
    type: path
    aliases: [chart_ca_file]
  registry_validate_certs:
    description:
      - Verify the chart registry's TLS certificate on chart pulls; V(false) (a test registry only) passes
        C(--insecure-skip-tls-verify) to C(helm template).
    type: bool
    default: true
    version_added: 0.1.0
  kube_version:
    description: Kubernetes version to render for; empty uses the cluster's (with O(cluster_checks)), else 1.33.0.
    type: str
    default: ""
  pod_security:
    description: The Pod Security labels of the model namespaces (mode to level); C(enforce) is checked.
    type: dict
    default: {}
  values_policy_allow:
    description: The values policy's allow-list (C(serving_stack_values_policy_allow)), to name the entry a fix needs.
    type: list
    elements: dict
    default: []
  cluster_checks:
    description: Read the cluster (nodes, CRDs, version); C(false) reports those checks as not made.
    type: bool
    default: true
  return_manifests:
    description: Return the rendered manifests (text) per model and chart in RV(manifests), and RV(files).
    type: bool
    default: false
  workers:
    description: C(helm template) processes run at once.
    type: int
    default: 2
requirements:
  - kubernetes >= 24.2.0
  - helm (the binary)
"""

EXAMPLES = r"""
- name: Render and check the releases that go to Helm (serving_stack_info's render and its Helm probe)
  ai_platform.serving.serving_stack_render:
    releases: "{{ state.render }}"
    helm: "{{ state.helm }}"
    post_renderer: "{{ role_path }}/files/gateway_placement.py"
    post_renderer_plugins: "{{ role_path }}/files/helm4-plugins"
    python: "{{ ansible_playbook_python }}"
    pod_security: "{{ aips_pod_security }}"

- name: Render every release from carried archives without reading a cluster
  ai_platform.serving.serving_stack_render:
    records: "{{ aips_plan }}"
    specs: "{{ serving_stack__spec.specs }}"
    charts: "{{ aips_charts }}"
    chart_dir: artifacts/charts
    kube_version: 1.33.13
    cluster_checks: false
    return_manifests: true
"""

RETURN = r"""
files:
  description:
    - With O(return_manifests), what C(playbooks/render.yml) writes, one entry per file; C(path) is
      C(<slug>/<chart>.yaml) (the manifests) or C(<slug>/<chart>-values.yaml) (the values rendered with); the
      llm-d v0.10 model server's objects are C(<slug>/modelserver.yaml).
  returned: when return_manifests
  type: list
  elements: dict
  version_added: 0.1.0
rendered:
  description: C(<slug>/<chart>) of every release rendered (and C(<slug>/modelserver), the objects of an llm-d v0.10
    model server, checked as they are applied).
  returned: always
  type: list
  elements: str
pods:
  description: Per slug and chart key, the rendered workloads' pod specs (C(kind), C(name), C(replicas), C(spec)).
  returned: always
  type: dict
manifests:
  description: Per slug and chart key, the rendered manifests as helm printed them (with O(return_manifests)).
  returned: when return_manifests
  type: dict
failures:
  description: The releases that did not render, each naming model, chart, version and Helm's error.
  returned: always
  type: list
  elements: str
problems:
  description:
    - Pods the enforced Pod Security level refuses, monitors and inference APIs (InferencePool, the llm-d.ai CRDs the
      router EPP watches) whose CRD is missing; each with its fix.
  returned: always
  type: list
  elements: str
warnings_found:
  description: What may not schedule (GPUs of a hostPath node) or could not be checked.
  returned: always
  type: list
  elements: str
kube_version:
  description: The Kubernetes version rendered for.
  returned: always
  type: str
"""

import json
import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor

from ansible.module_utils.common.yaml import yaml_dump_all

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat, render
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import _dict, run_module
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml

try:
    from kubernetes.dynamic.exceptions import NotFoundError, ResourceNotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    NotFoundError = ResourceNotFoundError = Exception


def argspec():
    return k8s_auth_argspec(
        records=dict(type="list", elements="dict"),
        specs=dict(type="dict"),
        releases=dict(type="list", elements="dict"),
        charts=dict(type="dict"),
        select=dict(type="dict"),
        marks=dict(type="dict", default={}),
        chart_dir=dict(type="path"),
        post_renderer=dict(type="path"),
        post_renderer_plugins=dict(type="path"),
        python=dict(type="str", default=""),
        helm_binary=dict(type="str", default="helm"),
        helm=dict(type="dict"),
        registry_config=dict(type="path"),
        registry_ca_file=dict(type="path", aliases=["chart_ca_file"], deprecated_aliases=[
            dict(name="chart_ca_file", version="2.0.0", collection_name="ai_platform.serving")]),
        registry_validate_certs=dict(type="bool", default=True),
        kube_version=dict(type="str", default=""),
        pod_security=dict(type="dict", default={}),
        values_policy_allow=dict(type="list", elements="dict", default=[]),
        cluster_checks=dict(type="bool", default=True),
        return_manifests=dict(type="bool", default=False),
        workers=dict(type="int", default=2),
    )


def _environment(params):
    env = dict(os.environ)
    if params["python"]:
        env["AIPS_PYTHON"] = params["python"]
    if params["registry_config"]:
        env["HELM_REGISTRY_CONFIG"] = params["registry_config"]
    if params["registry_ca_file"]:
        env["SSL_CERT_FILE"] = params["registry_ca_file"]
    return env


def post_renderer(module, env):
    """The ``--post-renderer`` value and its environment for the helm found (Helm 4: the plugin): from O(helm),
    serving_stack_info's probe, when given; else from a probe of O(helm_binary)."""
    params = module.params
    if not params["post_renderer"]:
        return None, {}
    if params["helm"] is not None:
        try:
            form = helm_compat.given_post_renderer(params["helm"], params["post_renderer"],
                                                   params["post_renderer_plugins"])
        except helm_compat.HelmVersionError as exc:
            module.fail_json(msg="helm: %s. Fix: pass the helm that serving_stack_info returned for the same "
                             "post_renderer and post_renderer_plugins, or leave helm out to probe %s."
                             % (exc, params["helm_binary"]))
        return form["arg"], form["env"]
    runner = getattr(module, "_module", module)  # AnsibleK8SModule wraps the AnsibleModule
    try:
        form = helm_compat.probe(
            lambda args: runner.run_command([params["helm_binary"]] + args, environ_update=env),
            params["post_renderer"], params["post_renderer_plugins"])["post_renderer"]
    except (helm_compat.HelmCallError, helm_compat.HelmVersionError) as exc:
        module.fail_json(msg="%s: %s. Fix: point serving_stack_helm_binary at a Helm 3.19+ or Helm 4.3+ binary."
                         % (params["helm_binary"], exc))
    return form["arg"], form["env"]


def render_all(module, kube_version):
    """``(rendered {slug: {chart: docs}}, texts, failures, values, records)`` of the selected releases (records:
    one per model rendered, O(records)' or those the release items carry)."""
    params = module.params
    object_jobs = []  # (record, objects): the v0.10 model servers, checked as they are applied (no helm)
    if params["releases"] is not None:
        items = [item for item in params["releases"] if "objects" not in item]
        try:
            jobs = render.release_jobs(params["records"], items, params["charts"])
            object_jobs = render.object_jobs(params["records"], [item for item in params["releases"]
                                                                 if "objects" in item])
        except (KeyError, ValueError) as exc:
            module.fail_json(msg="releases: %s" % exc)
    elif params["specs"] is None or params["records"] is None or params["charts"] is None:
        module.fail_json(msg="give releases (serving_stack_info's render), or records, specs and charts (every "
                         "release of the records)")
    else:
        jobs = [job + (params["charts"].get(job[1]),)
                for job in render.releases(params["records"], params["specs"], params["select"], params["marks"])]
        object_jobs = render.spec_object_jobs(params["records"], params["specs"], params["select"])
    env = _environment(params)
    renderer, renderer_env = post_renderer(module, env) if jobs else (None, {})
    env.update(renderer_env)
    scratch = tempfile.mkdtemp(prefix="aips-render-")

    def one(job):
        record, chart, release, values, setting = job
        path = os.path.join(scratch, "%s-%s.json" % (record["slug"], chart))
        with open(path, "w") as handle:
            json.dump(values, handle)
        argv = render.template_argv(params["helm_binary"], record, chart, release, setting, path, kube_version,
                                    params["chart_dir"], renderer, params["registry_validate_certs"])
        try:
            # pylint: disable-next=ansible-bad-function  # helm templates run side by side (run_command is serial)
            proc = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
        except OSError as exc:
            return job, 127, "", "Error: cannot run %s: %s" % (params["helm_binary"], exc)
        return job, proc.returncode, proc.stdout, proc.stderr

    try:
        with ThreadPoolExecutor(max_workers=max(1, params["workers"])) as pool:
            results = list(pool.map(one, jobs))
    finally:
        for name in os.listdir(scratch):
            os.unlink(os.path.join(scratch, name))
        os.rmdir(scratch)
    rendered, texts, failures, values = {}, {}, [], {}
    for (record, chart, _release, chart_values, setting), rc, out, err in results:
        slug = record["slug"]
        if rc != 0:
            failures.append(render.failure_message(record, chart, setting, err or out))
            continue
        try:
            # the manifests carry what the values wrote (an extraObjects template's own YAML, say): read under the
            # limits of the one YAML reader, so an alias bomb there is refused, not expanded
            docs = [doc for doc in safe_yaml.loads_all(out, "the rendered manifests") if doc]
        except safe_yaml.YamlFileError as exc:
            failures.append(render.failure_message(record, chart, setting,
                                                   "Error: the rendered manifests are %s" % exc.reason))
            continue
        rendered.setdefault(slug, {})[chart] = docs
        texts.setdefault(slug, {})[chart] = out
        values.setdefault(slug, {})[chart] = chart_values
    for record, objects in object_jobs:
        rendered.setdefault(record["slug"], {})[render.MODELSERVER] = objects
        texts.setdefault(record["slug"], {})[render.MODELSERVER] = yaml_dump_all(objects, default_flow_style=False)
    records = render.job_records(jobs + [(record,) for record, _objects in object_jobs])
    return rendered, texts, failures, values, records


def cluster_version(client):
    try:
        version = client.client.version["kubernetes"]
        return "%s.%s" % (version["major"], version["minor"].rstrip("+"))
    except Exception:  # pylint: disable=broad-except
        return ""


def cluster_facts(module, client, crd_names):
    """``(served CRD names, node GPUs)`` read from the cluster; None for what cannot be read (no RBAC to list nodes
    or read CRDs, say), with a warning that says so."""
    served = set()
    try:
        if crd_names:
            resource = client.resource("CustomResourceDefinition", "apiextensions.k8s.io/v1")
            for name in crd_names:
                try:
                    client.get(resource, name=name)
                    served.add(name)
                except (NotFoundError, ResourceNotFoundError):
                    pass
    except Exception as exc:  # pylint: disable=broad-except
        module.warn("could not read the CustomResourceDefinitions %s: %s" % (", ".join(crd_names), exc))
        served = None
    try:
        nodes = (_dict(client.get(client.resource("Node", "v1"))) or {}).get("items") or []
        gpus = render.node_gpus(nodes)
    except Exception as exc:  # pylint: disable=broad-except
        module.warn("could not list the nodes (their allocatable nvidia.com/gpu): %s" % exc)
        gpus = None
    return served, gpus


def finish(module, outcome, kube_version, client=None):
    params = module.params
    rendered, texts, failures, values, records = outcome
    crds = allocatable = None
    if client is not None and rendered:
        crds, allocatable = cluster_facts(module, client, render.monitor_crds(rendered))
    problems, warnings = render.checks(records, rendered, values, params["pod_security"],
                                       params["values_policy_allow"], crds, allocatable)
    for warning in warnings:
        module.warn(warning)
    result = dict(
        changed=False,
        rendered=["%s/%s" % (slug, chart) for slug in rendered for chart in rendered[slug]],
        pods=dict((slug, dict((chart, render.pod_summaries(docs)) for chart, docs in model.items()))
                  for slug, model in rendered.items()),
        failures=failures,
        problems=problems,
        warnings_found=warnings,
        kube_version=kube_version,
    )
    if params["return_manifests"]:
        result["manifests"] = texts
        result["files"] = render.output_files(texts, values)
    if failures or problems:
        module.fail_json(msg="\n".join(failures + problems), **result)
    module.exit_json(**result)


def without_cluster(module):
    if module.params["cluster_checks"]:
        return
    kube_version = module.params["kube_version"] or render.DEFAULT_KUBE_VERSION
    finish(module, render_all(module, kube_version), kube_version)


def execute_module(module, client):
    kube_version = module.params["kube_version"] or cluster_version(client) or render.DEFAULT_KUBE_VERSION
    finish(module, render_all(module, kube_version), kube_version, client)


def main():
    run_module(argspec(), execute_module, before_client=without_cluster)


if __name__ == "__main__":
    main()
