#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_artifact_info
short_description: Resolve a model artifact's manifest digest and size, and check a claim size against it
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Reads the OCI manifest of a model artifact (C(modelSource.harborRef)) from the registry over the
    distribution API (basic auth or Harbor's bearer tokens), checks the body against its digest, and returns the
    manifest digest, the total size of its layers and the number of files.
  - Or, with O(lock_file), takes digest and size from the lock file M(ai_platform.serving.model_sync) wrote,
    without contacting the registry (a controller that cannot reach Harbor).
  - With O(storage_bytes), reports whether a claim of that size holds the artifact plus O(headroom_percent)
    (RV(fits), RV(problem)); the model_storage role fails before creating anything when one does not.
extends_documentation_fragment:
  - ai_platform.serving.registry_auth
  - ai_platform.serving.registry_tls
  - ai_platform.serving.read_only
options:
  reference:
    description: Artifact reference, C(host/project/name:tag) or C(host/project/name@sha256:...).
    type: str
    required: true
  registry_endpoint:
    description: C(host[:port]) to connect to instead of the reference's host (e.g. Harbor's external name
      when the reference uses the in-cluster one). The digest and the pinned reference keep the reference's host.
    type: str
  timeout:
    description: Seconds per HTTP request.
    type: int
    default: 30
  lock_file:
    description: model_sync lock file; when it has an entry for O(reference), its digest and size are used.
    type: path
  require_lock:
    description:
      - Fail, naming O(slug) and O(reference), when O(lock_file) has no entry for O(reference) (or does not
        exist) and the reference pins no digest, instead of resolving the tag at the registry. Deploys that
        must run exactly what was loaded (the air-gap bundle's C(models.lock.yml)) set it.
    type: bool
    default: false
  storage_bytes:
    description: Size of the claim in bytes (the plan record's C(storage.size_bytes)).
    type: int
  storage_size:
    description: The claim size as written (C(storage.size)), for the message.
    type: str
  headroom_percent:
    description: Room the claim must have beyond the artifact's size, in percent.
    type: int
    default: 10
  slug:
    description: Model slug, for the message.
    type: str
"""

EXAMPLES = r"""
- name: Resolve the artifact and check the claim size
  ai_platform.serving.model_artifact_info:
    reference: "{{ record.storage.oci.reference }}"
    username: "{{ aips_harbor_user }}"
    password: "{{ aips_harbor_token }}"
    storage_bytes: "{{ record.storage.size_bytes }}"
    storage_size: "{{ record.storage.size }}"
    slug: "{{ record.slug }}"
  no_log: true
  register: artifact
"""

RETURN = r"""
digest:
  description: Manifest digest.
  returned: always
  type: str
size:
  description: Bytes of all layers.
  returned: always
  type: int
file_count:
  description: Snapshot files in the artifact (the registry source) or as the lock file records them.
  returned: always
  type: int
pinned_reference:
  description: C(host/repository@digest).
  returned: always
  type: str
source:
  description: C(registry) or C(lock).
  returned: always
  type: str
repo_id:
  description: Hugging Face repo id from the manifest annotations (registry source) or the lock file.
  returned: always
  type: str
revision:
  description: Revision (commit) from the annotations or the lock file.
  returned: always
  type: str
fits:
  description: Whether O(storage_bytes) holds the artifact with the headroom (true when not asked).
  returned: always
  type: bool
problem:
  description: Why it does not fit, or null.
  returned: always
  type: str
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import registry_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import artifacts


def argspec():
    return registry_auth_argspec(
        reference=dict(type="str", required=True),
        registry_endpoint=dict(type="str"),
        timeout=dict(type="int", default=30),
        lock_file=dict(type="path"),
        require_lock=dict(type="bool", default=False),
        storage_bytes=dict(type="int"),
        storage_size=dict(type="str"),
        headroom_percent=dict(type="int", default=10),
        slug=dict(type="str"),
    )


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    reference = params["reference"]
    try:
        resolver = artifacts.Resolver(params["username"], params["password"], params["ca_file"],
                                      params["validate_certs"], params["timeout"], params["registry_endpoint"],
                                      params["lock_file"], params["require_lock"])
        info = resolver.resolve(reference)
    except artifacts.ERRORS as exc:
        module.fail_json(msg="%s: %s" % (params["slug"] or reference, exc))
    module.exit_json(changed=False, **artifacts.fit(info, params["slug"] or reference, params["storage_size"],
                                                    params["storage_bytes"], params["headroom_percent"]))


if __name__ == "__main__":
    main()
