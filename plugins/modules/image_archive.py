#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: image_archive
short_description: Save container images as OCI archives and upload them to a registry
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - With O(state=saved) (internet side) copies O(image) into the OCI archive O(archive) with C(skopeo), unless the
    archive already holds the pinned O(digest) (or, without a pin, exists).
  - With O(state=pushed) (air-gapped side) uploads O(archive) to O(destination) with digests preserved, unless the
    destination already has the archive's manifest digest.
  - O(username), O(password) and O(ca_file) are for the registry of O(destination) (O(state=pushed)) or of
    O(image) (O(state=saved)). Credentials go to a private temporary auth file, never to a command line.
extends_documentation_fragment:
  - ai_platform.serving.registry_auth
  - ai_platform.serving.registry_tls
options:
  state:
    description: V(saved) downloads into the archive, V(pushed) uploads the archive.
    type: str
    choices: [saved, pushed]
    required: true
  image:
    description: Source image reference (O(state=saved)), e.g. C(ghcr.io/llm-d/llm-d-inference-sim:v0.7.1).
    type: str
  digest:
    description:
      - Expected manifest digest (C(sha256:...)) of the archived image. The download pulls by this digest and the
        archive must match it.
    type: str
  archive:
    description: Path of the OCI archive (C(.tar)).
    type: path
    required: true
  destination:
    description: Target reference (O(state=pushed)), e.g. C(harbor.example.com/images-infra/oras-project/oras:v1.3.1).
    type: str
  all_platforms:
    description: Copy every platform of a multi-platform image (C(skopeo copy --all)).
    type: bool
    default: false
  force:
    description: With O(state=saved), download again even if the archive exists.
    type: bool
    default: false
  skopeo_path:
    description: The C(skopeo) executable.
    type: path
    default: skopeo
attributes:
  check_mode:
    support: full
    description: Compares digests and reports what would change; downloads and uploads nothing.
  diff_mode:
    support: none
    description: No diff is produced.
requirements:
  - skopeo 1.9 or later
"""

EXAMPLES = r"""
- name: Save the EPP image for the air-gapped side
  ai_platform.serving.image_archive:
    state: saved
    image: registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0
    archive: artifacts/images/epp-v1.2.0.tar

- name: Upload it to Harbor
  ai_platform.serving.image_archive:
    state: pushed
    archive: artifacts/images/epp-v1.2.0.tar
    destination: harbor.example.com/images-shaide/gateway-api-inference-extension/epp:v1.2.0
    username: robot$uploader
    password: "{{ harbor_robot_token }}"
    ca_file: /etc/pki/harbor-ca.crt
  no_log: true
"""

RETURN = r"""
digest:
  description: Manifest digest of the archive.
  returned: always
  type: str
archive:
  description: Archive path.
  returned: always
  type: str
previous_digest:
  description: Digest the destination held before (null when absent).
  returned: when O(state=pushed)
  type: str
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import module_class, registry_auth_argspec, tool_paths


def argspec():
    return registry_auth_argspec(
        state=dict(type="str", required=True, choices=["saved", "pushed"]),
        image=dict(type="str"),
        digest=dict(type="str"),
        archive=dict(type="path", required=True),
        destination=dict(type="str"),
        all_platforms=dict(type="bool", default=False),
        force=dict(type="bool", default=False),
        **tool_paths("skopeo")
    )


def main():
    # AnsibleModule, or the stand-in of a module running in the playbook's process (plugins/action/image_archive.py)
    module = module_class()(argument_spec=argspec(), supports_check_mode=True,
                            required_if=[("state", "saved", ["image"]), ("state", "pushed", ["destination"])])
    params = module.params
    ref = params["image"] if params["state"] == "saved" else params["destination"]
    credentials = {oci_archive.registry_of(ref): (params["username"], params["password"])}
    try:
        with registry.AuthDir(credentials, params["ca_file"]) as auth:
            skopeo = oci_archive.Skopeo(params["skopeo_path"], auth, params["validate_certs"])
            step = oci_archive.save_image if params["state"] == "saved" else oci_archive.push_image
            result = step(params, module.check_mode, skopeo)
    except registry.RegistryError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
