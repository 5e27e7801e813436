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
    description: Chart name.
    type: str
    required: true
  version:
    description: Chart version.
    type: str
    required: true
  chart:
    description: What C(helm pull) takes, C(oci://…/<name>) or the chart name with O(repo_url).
    type: str
  repo_url:
    description: Classic chart repository URL.
    type: str
  destination:
    description: Directory for downloaded charts (O(state=saved)).
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
"""

RETURN = r"""
archive:
  description: Chart archive path.
  returned: always
  type: str
digest:
  description: sha256 of the chart archive.
  returned: when known
  type: str
reference:
  description: OCI reference of the pushed chart, without scheme.
  returned: when O(state=pushed)
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import registry_auth_argspec, tool_paths, typed


def argspec():
    return registry_auth_argspec(
        state=dict(type="str", required=True, choices=["saved", "pushed"]),
        name=dict(type="str", required=True),
        version=dict(type="str", required=True),
        plain_http=dict(type="bool", default=False),
        force=dict(type="bool", default=False),
        **typed("str", "chart", "repo_url", "digest", "repository"),
        **typed("path", "destination", "archive"),
        **tool_paths("helm", "skopeo")
    )


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True,
                           required_if=[("state", "saved", ["chart", "destination"]),
                                        ("state", "pushed", ["archive", "repository"])])
    params = module.params
    target = params["repository"] or (params["chart"] or "").replace("oci://", "")
    credentials = {oci_archive.registry_of(target): (params["username"], params["password"])}
    try:
        with registry.AuthDir(credentials, params["ca_file"]) as auth:
            helm = oci_archive.HelmRunner(auth, params)
            if params["state"] == "saved":
                result = oci_archive.save_chart(params, module.check_mode, helm)
            else:
                skopeo = oci_archive.Skopeo(params["skopeo_path"], auth, params["validate_certs"] and not params["plain_http"])
                result = oci_archive.push_chart(params, module.check_mode, skopeo, helm)
    except registry.RegistryError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
