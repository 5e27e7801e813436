#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_sync
short_description: Push a verified Hugging Face model revision to a registry as an OCI artifact
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Collects one revision of a Hugging Face model from Hugging Face (or a mirror), an existing hub cache,
    or a plain model directory.
  - Verifies every cached file against its content-addressed blob name (sha256 for LFS files, git blob id
    for the others) and refuses to push anything when one file does not match.
  - Pushes the files with the C(oras) CLI as one OCI artifact, one layer per file, by default a CNCF ModelPack
    artifact (see O(artifact_format)), which the pull Job lays out as the hub cache C(huggingface_hub) resolves
    offline (C(models--<org>--<name>/snapshots/<commit>/<file>) and C(refs/main)).
  - Compares the desired layers with the manifest the tag already points at first; when they match nothing is
    sent. Otherwise C(oras) skips every blob the registry already holds, so only changed files travel.
  - Credentials are written to a private temporary docker config file, never to a command line.
extends_documentation_fragment:
  - ai_platform.serving.registry_tls
options:
  repo_id:
    description: Hugging Face repository id, C(<org>/<name>).
    type: str
    required: true
  revision:
    description:
      - Commit hash or ref (branch/tag) to publish. With O(source=local_dir) a 40-character commit hash.
    type: str
    required: true
  source:
    description:
      - V(hf) downloads with C(huggingface_hub) into O(cache_dir) (a hub cache directory).
      - V(local_cache) reads an existing hub cache at O(local_path).
      - V(local_dir) reads a plain model directory at O(local_path).
    type: str
    choices: [hf, local_cache, local_dir]
    default: hf
  local_path:
    description: Hub cache directory (O(source=local_cache)) or model directory (O(source=local_dir)).
    type: path
  cache_dir:
    description: Hub cache directory downloads go to with O(source=hf).
    type: path
  allow_patterns:
    description: Only files matching one of these glob patterns are published (and downloaded).
    type: list
    elements: str
  ignore_patterns:
    description: Files matching one of these glob patterns are left out.
    type: list
    elements: str
  checksums:
    description: With O(source=local_dir), expected sha256 per relative file path, checked before pushing.
    type: dict
  hf_endpoint:
    description: Hugging Face endpoint or mirror (what C(HF_ENDPOINT) would hold).
    type: str
    default: https://huggingface.co
  hf_token:
    description: Hugging Face token. Sent only when O(hf_endpoint) has the origin O(hf_token_origin).
    type: str
  hf_token_origin:
    description:
      - The origin (scheme, host, port) O(hf_token) belongs to. A mirror on another origin gets no token.
    type: str
    default: https://huggingface.co
  reference:
    description: Target tag, C(<registry>/<project>/<name>:<tag>).
    type: str
    required: true
  registry_username:
    description: Registry user (for Harbor a robot account).
    type: str
  registry_password:
    description: Registry password or robot token.
    type: str
  plain_http:
    description: Talk HTTP instead of HTTPS to the registry.
    type: bool
    default: false
  insecure:
    description:
      - Deprecated, removed in 2.0.0 - use O(validate_certs=false), the collection's one name for this. Skips TLS
        verification of the registry (tests only); either turns verification off.
    type: bool
    default: false
  oras_path:
    description: The C(oras) executable.
    type: path
    default: oras
  concurrency:
    description: Layers C(oras) uploads in parallel.
    type: int
    default: 5
  progress_file:
    description:
      - File one line per finished layer (with running byte totals and throughput) is appended to during the
        push; follow it with C(tail -f) for long transfers.
    type: path
  work_dir:
    description: Directory for the temporary staging tree of symlinks (default the system temp dir).
    type: path
  artifact_format:
    description:
      - V(modelpack) publishes a CNCF ModelPack artifact (artifact type C(application/vnd.cncf.model.manifest.v1+json),
        one raw layer per file typed weight, weight config, doc or code, titled and annotated
        (C(org.cncf.model.filepath)) with its path in the snapshot, and a ModelPack config with the repo id, the
        commit and the layer digests).
      - V(hf-cache) publishes the format of releases before ModelPack (layers titled with their hub cache paths, plus
        C(refs/main)). The pull Job reads both; an unchanged file is never sent again when the format changes (same
        blob), but the manifest, and so the digest, does.
    type: str
    choices: [modelpack, hf-cache]
    default: modelpack
  signing_key:
    description:
      - The site's model signing key, an unencrypted elliptic-curve private key (P-256, P-384 or P-521) in PEM, from
        Vault. With it the model's files are signed (OpenSSF model signing, PyPI C(model-signing); every file's sha256,
        no transparency log, no internet) and the signature is attached to the artifact's digest as an OCI referrer
        of type C(application/vnd.dev.sigstore.bundle.v0.3+json), unless a signature by this key over exactly these
        files is attached already. Never logged, never on a command line.
    type: str
  verify:
    description: Check cached files against their blob names. Turning it off is for debugging only.
    type: bool
    default: true
attributes:
  check_mode:
    support: full
    description: Verifies and compares with the registry, pushes nothing; O(source=hf) downloads nothing.
  diff_mode:
    support: full
    description: Shows the layers (title, digest, size) before and after.
requirements:
  - oras CLI 1.2 or later
  - huggingface_hub (only for O(source=hf))
notes:
  - The manifest is reproducible (fixed C(org.opencontainers.image.created), sorted layers), so the same files
    give the same digest wherever they are pushed from.
"""

EXAMPLES = r"""
- name: Publish a model from a local hub cache
  ai_platform.serving.model_sync:
    repo_id: sentence-transformers/all-MiniLM-L6-v2
    revision: main
    source: local_cache
    local_path: /srv/hf/hub
    reference: harbor.example.com/ai-models/all-minilm-l6-v2:v1
    registry_username: robot$model-pusher
    registry_password: "{{ harbor_robot_token }}"
    ca_file: /etc/pki/harbor-ca.crt
  no_log: true
  register: pushed

- name: Download from a mirror and publish only the safetensors weights and configs
  ai_platform.serving.model_sync:
    repo_id: org/model
    revision: 0123456789abcdef0123456789abcdef01234567
    cache_dir: /srv/hf/hub
    hf_endpoint: https://hf-mirror.example.com
    allow_patterns: ["*.json", "*.safetensors", "tokenizer*"]
    reference: harbor.example.com/ai-models/model:v1
    registry_username: robot$model-pusher
    registry_password: "{{ harbor_robot_token }}"
  no_log: true
"""

RETURN = r"""
digest:
  description: Manifest digest the tag points at (null in check mode when a push would happen).
  returned: always
  type: str
  sample: sha256:3b1e0c6a3f8d2f0e9a7b5c4d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f
pinned_reference:
  description: O(reference) with the tag replaced by the digest, what deployments pin.
  returned: when digest is known
  type: str
revision:
  description: The commit hash published.
  returned: always
  type: str
size:
  description: Total bytes of all layers (the files, plus refs/main in the hf-cache format).
  returned: always
  type: int
file_count:
  description: Model files published (an hf-cache artifact has one more layer, refs/main).
  returned: always
  type: int
uploaded:
  description: Titles of the layers oras sent (not already in the registry).
  returned: always
  type: list
  elements: str
uploaded_bytes:
  description: Bytes of the layers sent.
  returned: always
  type: int
existing:
  description: Layers already present in the registry.
  returned: always
  type: int
signature:
  description: With O(signing_key), the signature artifact attached to the digest and whether this run attached it.
  returned: when signing_key is set and not in check mode
  type: dict
  sample: {"digest": "sha256:9ce3...", "attached": true}
duration:
  description: Seconds the sync took (verification, comparison, push).
  returned: always
  type: float
difference:
  description: Titles added, removed or changed against the tag's previous manifest, and whether its metadata differed.
  returned: always
  type: dict
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import CacheError
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.model_sync import REQUIRED_IF, argspec, sync
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.tools import RegistryError


def main():
    module = AnsibleModule(argument_spec=argspec(), required_if=REQUIRED_IF, supports_check_mode=True)
    try:
        result = sync(module.params, check_mode=module.check_mode, want_diff=module._diff)
    except (CacheError, RegistryError) as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
