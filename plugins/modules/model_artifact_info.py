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

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution as pull_artifact
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import registry_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import parse_oci_reference, pinned_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import TransportError, open_url_transport

try:
    import yaml
except ImportError:  # only needed with lock_file
    yaml = None


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


def from_lock(path, reference, oci):
    if yaml is None:
        raise pull_artifact.ArtifactError("reading lock_file needs PyYAML")
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        lock = yaml.safe_load(handle) or {}
    entry = (lock.get("models") or {}).get(reference)
    if not entry:
        return None
    if oci["digest"] and entry.get("digest") != oci["digest"]:
        raise pull_artifact.ArtifactError("lock file %s records %s for %s, the reference pins %s"
                                          % (path, entry.get("digest"), reference, oci["digest"]))
    return dict(digest=entry["digest"], size=int(entry.get("size") or 0), file_count=int(entry.get("file_count") or 0),
                repo_id=entry.get("repo_id"), revision=entry.get("revision"), source="lock")


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    reference = params["reference"]
    try:
        oci = parse_oci_reference(reference)
    except ValueError as exc:
        module.fail_json(msg="%s: %s" % (reference, exc))
    try:
        info = from_lock(params["lock_file"], reference, oci) if params["lock_file"] else None
        if info is None and params["require_lock"] and not oci["digest"]:
            raise pull_artifact.ArtifactError(
                "%s is not pinned: the lock file %s has no entry for it and it names no digest. Fix: load the "
                "bundle that carries it (playbooks/load.yml writes the lock file), or pin harborRef to "
                "@sha256:<digest>; a lab that deploys by tag sets aips_allow_unpinned: true "
                "(model_storage_require_lock: false)"
                % (reference, params["lock_file"] or "(none set)"))
        if info is None:
            registry = pull_artifact.Registry(
                params["registry_endpoint"] or oci["registry"], params["username"], params["password"],
                open_url_transport(params["ca_file"], params["validate_certs"], params["timeout"]))
            summary = pull_artifact.artifact_info(registry, oci["repository"], oci["tag"], oci["digest"])
            info = dict(digest=summary["digest"], size=summary["size"], file_count=summary["file_count"],
                        repo_id=summary["repo_id"], revision=summary["revision"], source="registry")
        pinned = pinned_reference(reference, info["digest"])
    except (pull_artifact.ArtifactError, TransportError, ValueError) as exc:
        module.fail_json(msg="%s: %s" % (params["slug"] or reference, exc))
    problem = None
    if params["storage_bytes"] is not None:
        problem = claims.preflight_problem(params["slug"] or reference, params["storage_size"] or "",
                                           params["storage_bytes"], info["size"], params["headroom_percent"])
    module.exit_json(changed=False, pinned_reference=pinned,
                     fits=problem is None, problem=problem, **info)


if __name__ == "__main__":
    main()
