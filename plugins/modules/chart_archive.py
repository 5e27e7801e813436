#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: chart_archive
short_description: Download pinned Helm charts and push them to a registry as OCI charts
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - With O(state=saved) runs C(helm pull) for one pinned chart version into O(destination), unless
    C(<name>-<version>.tgz) is already there.
  - With O(state=pushed) runs C(helm push) of O(archive) to C(oci://<repository>), unless
    C(<repository>/<name>:<version>) already holds the same chart tarball (compared by digest).
  - O(username), O(password) and O(ca_file) are for the registry of O(repository) (O(state=pushed)) or of an
    C(oci://) O(chart) (O(state=saved)).
  - With O(charts), one call saves or pushes a list of charts, each exactly as the single-chart form would,
    and returns one result per chart in RV(charts); one chart failing does not stop the others, and the
    module then fails naming every failed chart. O(username), O(password), O(ca_file) and the TLS options apply
    to every registry of the list.
extends_documentation_fragment:
  - ai_platform.serving.registry_auth
  - ai_platform.serving.registry_tls
options:
  state:
    description: V(saved) downloads the chart, V(pushed) uploads it.
    type: str
    choices: [saved, pushed]
    required: true
  name:
    description: Chart name. Required unless O(charts) is given.
    type: str
  version:
    description: Chart version. Required with O(name).
    type: str
  charts:
    description:
      - Several charts in one call, instead of O(name), O(version), O(chart), O(repo_url), O(digest), O(archive)
        and O(repository) (mutually exclusive with them). Each entry takes those fields.
      - The records of the filter C(ai_platform.serving.chart_plan) can be given as they are; their C(key),
        C(project) and C(destination) are not used.
      - With O(state=pushed) up to four charts are checked and pushed at the same time; O(state=saved) downloads
        them one after the other. The results keep the order of O(charts).
    type: list
    elements: dict
    version_added: 0.1.0
    suboptions:
      name:
        description: Chart name.
        type: str
        required: true
      version:
        description: Chart version.
        type: str
        required: true
      chart:
        description: What C(helm pull) takes (required with O(state=saved)).
        type: str
      repo_url:
        description: Classic chart repository URL.
        type: str
      digest:
        description: Expected C(sha256:...) of the downloaded C(.tgz).
        type: str
      archive:
        description:
          - Chart C(.tgz) to push; a relative path is taken in O(destination).
          - Default C(<destination>/<name>-<version>.tgz), where O(state=saved) writes it.
        type: str
      repository:
        description: OCI repository to push to, without scheme (required with O(state=pushed)).
        type: str
      key:
        description: Not used (a C(chart_plan) record field).
        type: str
      project:
        description: Not used (a C(chart_plan) record field).
        type: str
      destination:
        description: Not used (a C(chart_plan) record field, the chart's C(oci://) reference).
        type: str
  chart:
    description: What C(helm pull) takes, C(oci://…/<name>) or the chart name with O(repo_url).
    type: str
  repo_url:
    description: Classic chart repository URL.
    type: str
  destination:
    description:
      - Directory for downloaded charts (O(state=saved)).
      - With O(charts) and O(state=pushed), the directory a relative or missing C(archive) of an entry is in.
    type: path
  digest:
    description: Expected C(sha256:...) of the downloaded C(.tgz).
    type: str
  archive:
    description: Chart C(.tgz) to push (O(state=pushed)).
    type: path
  repository:
    description: OCI repository to push to, without scheme, e.g. C(harbor.example.com/charts).
    type: str
  plain_http:
    description: Push over plain HTTP.
    type: bool
    default: false
  force:
    description: Download again even if the archive exists.
    type: bool
    default: false
  helm_path:
    description: The C(helm) executable.
    type: path
    default: helm
  skopeo_path:
    description: The C(skopeo) executable, used to read the remote manifest.
    type: path
    default: skopeo
attributes:
  check_mode:
    support: full
    description: Compares digests and reports what would change; downloads and pushes nothing.
  diff_mode:
    support: none
    description: No diff is produced.
requirements:
  - helm 3.8 or later, skopeo
"""

EXAMPLES = r"""
- name: Download the GAIE inferencepool chart
  ai_platform.serving.chart_archive:
    state: saved
    name: inferencepool
    version: v1.2.0
    chart: oci://registry.k8s.io/gateway-api-inference-extension/charts/inferencepool
    destination: artifacts/charts

- name: Push it to Harbor
  ai_platform.serving.chart_archive:
    state: pushed
    name: inferencepool
    version: v1.2.0
    archive: artifacts/charts/inferencepool-v1.2.0.tgz
    repository: harbor.example.com/charts
    username: robot$uploader
    password: "{{ harbor_robot_token }}"
  no_log: true

- name: Push every chart of the list in one call (archives in artifacts/charts)
  ai_platform.serving.chart_archive:
    state: pushed
    charts: "{{ aips_chart_mirrors | ai_platform.serving.chart_plan('harbor.example.com') }}"
    destination: artifacts/charts
    username: robot$uploader
    password: "{{ harbor_robot_token }}"
  register: pushed
  no_log: true
  failed_when: false

- name: Fail naming each chart that did not push
  ansible.builtin.fail:
    msg: "{{ item.item.name }}: {{ item.msg }}"
  loop: "{{ pushed.charts | selectattr('failed', 'defined') | selectattr('failed') }}"
"""

RETURN = r"""
archive:
  description: Chart archive path.
  returned: without O(charts)
  type: str
digest:
  description: sha256 of the chart archive.
  returned: when known, without O(charts)
  type: str
reference:
  description: OCI reference of the pushed chart, without scheme.
  returned: when O(state=pushed), without O(charts)
  type: str
manifest_digest:
  description: Digest of the chart's OCI manifest in the registry (what C(oci://<repository>/<name>@<digest>) pins).
  returned: when O(state=pushed) and known, without O(charts)
  type: str
charts:
  description:
    - One result per O(charts) entry, in order, shaped like the per-item results of a loop over the
      single-chart form (named C(charts), not C(results), so that Ansible and callbacks do not take the call
      for a loop).
    - C(item) is the entry; C(archive), C(digest), C(reference) and C(manifest_digest) are as above; a chart
      that failed has C(failed=true) and C(msg) (what went wrong and what to do) and no C(archive).
  returned: with O(charts)
  type: list
  elements: dict
  version_added: 0.1.0
  sample:
    - item: {name: inferencepool, version: v1.2.0, repository: harbor.example.com/charts}
      changed: false
      archive: artifacts/charts/inferencepool-v1.2.0.tgz
      digest: sha256:0f3c…
      reference: harbor.example.com/charts/inferencepool:v1.2.0
      manifest_digest: sha256:9b1e…
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import module_class, registry_auth_argspec, tool_paths, typed


SINGLE_CHART = ("name", "chart", "repo_url", "digest", "archive", "repository")


def argspec():
    # key: the aips_charts entry (infra, gaie, modelservice), not a secret
    chart = dict(name=dict(type="str", required=True), version=dict(type="str", required=True),
                 key=dict(type="str", no_log=False),
                 **typed("str", "chart", "repo_url", "digest", "archive", "repository", "project", "destination"))
    return registry_auth_argspec(
        state=dict(type="str", required=True, choices=["saved", "pushed"]),
        charts=dict(type="list", elements="dict", options=chart),
        plain_http=dict(type="bool", default=False),
        force=dict(type="bool", default=False),
        **typed("str", "name", "version", "chart", "repo_url", "digest", "repository"),
        **typed("path", "destination", "archive"),
        **tool_paths("helm", "skopeo")
    )


def transfer(params, check_mode, auth):
    """The single-chart step of ``params["state"]``, its tools sharing one auth dir."""
    helm = oci_archive.HelmRunner(auth, params)
    if params["state"] == "saved":
        return lambda one: oci_archive.save_chart(one, check_mode, helm)
    skopeo = oci_archive.Skopeo(params["skopeo_path"], auth, params["validate_certs"] and not params["plain_http"])
    return lambda one: oci_archive.push_chart(one, check_mode, skopeo, helm)


def main():
    # AnsibleModule, or the stand-in of a module running in the playbook's process (plugins/action/chart_archive.py)
    module = module_class()(argument_spec=argspec(), supports_check_mode=True,
                            mutually_exclusive=[("charts", option) for option in SINGLE_CHART + ("version",)],
                            required_one_of=[("name", "charts")],
                            required_together=[("name", "version")])
    params = module.params
    charts = params["charts"]
    missing = oci_archive.chart_missing_options(params)
    if missing:
        module.fail_json(msg="state is %s but all of the following are missing: %s" % (params["state"], ", ".join(missing)))
    try:
        with registry.AuthDir(oci_archive.chart_credentials(params), params["ca_file"]) as auth:
            step = transfer(params, module.check_mode, auth)
            if charts is None:
                result = step(params)
            else:
                # pushes are checked side by side; downloads one at a time (helm pull --repo shares its index cache)
                results, failures = oci_archive.transfer_charts(params, step, 4 if params["state"] == "pushed" else 1)
    except registry.RegistryError as exc:
        module.fail_json(msg=str(exc))
    if charts is None:
        module.exit_json(**result)
    changed = any(result["changed"] for result in results)
    if failures:
        module.fail_json(msg=oci_archive.charts_failure_message(failures, len(results)), changed=changed, charts=results)
    module.exit_json(changed=changed, charts=results)


if __name__ == "__main__":
    main()
