#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: bundle_item
short_description: Write one image, chart or model into an air-gap bundle, or load it into a registry
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - With O(state=saved) (internet side) writes one item into the bundle directory O(bundle_dir) and returns its
    lock entry (kind, name, source, path, digest, size, sha256); an item whose digest did not change is left
    as it is.
  - O(kind=image) saves O(image) as the OCI archive C(images/<archive_name>) with C(skopeo) (digest preserved),
    from the registry or from O(source_ref) (any skopeo transport, e.g. a local C(oci:) layout).
  - O(kind=chart) copies C(<name>-<version>.tgz) from O(source_dir), or pulls the pinned chart with C(helm), into
    C(charts/).
  - O(kind=model) writes the artifact the M(ai_platform.serving.model_sync) module would push (the same manifest
    digest, one layer per file, Hugging Face cache layout) as an OCI image layout C(models/<name>), with
    model_sync's own code for collecting and verifying the files and C(oras) for the manifest.
  - With O(state=pushed) (air-gapped side) uploads the lock entry O(item) to O(destination), skipping it when the
    destination already holds the item's digest. Check the bundle first (M(ai_platform.serving.bundle_lock) with
    C(state=verified)). A model's blobs are read once, while they are sent;
    the registry checks each upload against its digest and the manifest is pushed after its blobs, so a
    corrupted blob fails the push naming it and the tag does not move. An image archive must hold the lock's
    manifest digest; skopeo checks each blob it reads against its digest.
  - O(username), O(password) and O(ca_file) are for the source registry (O(state=saved)) or the destination
    (O(state=pushed)); they go to a private temporary auth file, never to a command line.
extends_documentation_fragment:
  - ai_platform.serving.registry_auth
  - ai_platform.serving.registry_tls
options:
  state:
    description: V(saved) writes the item into the bundle, V(pushed) uploads it from the bundle.
    type: str
    choices: [saved, pushed]
    required: true
  kind:
    description: What the item is.
    type: str
    choices: [image, chart, model]
    required: true
  bundle_dir:
    description: The bundle directory.
    type: path
    required: true
  name:
    description: Chart name (O(kind=chart)) or the model's directory name in the bundle (O(kind=model), the artifact name).
    type: str
  image:
    description: Source image reference with a tag (O(kind=image), O(state=saved)).
    type: str
  source_ref:
    description: Take the image from this skopeo transport reference (e.g. C(oci:/srv/mirror:epp-v1.2.0)) instead of C(docker://<image>).
    type: str
  source_refs:
    description:
      - Skopeo transport references by image reference (playbooks/bundle.yml's C(aips_bundle_image_sources)); the
        entry of O(image) is its O(source_ref) when that is not given.
      - An image and a key name one image when they normalise alike, as the air-gap and lock checks compare images
        (C(vllm/vllm-openai:v1) is C(docker.io/vllm/vllm-openai:v1), C(busybox:1.36) is
        C(docker.io/library/busybox:1.36)).
    type: dict
    version_added: 0.1.0
  digest:
    description: Pinned manifest digest of an image, or sha256 of a chart tarball; the saved item must match it.
    type: str
  archive_name:
    description: File name of the image archive under C(images/).
    type: str
  project:
    description: Harbor project of the image or chart (written into the lock entry).
    type: str
  image_path:
    description: Repository path of the image inside its project (written into the lock entry).
    type: str
  all_platforms:
    description: Copy every platform of a multi-platform image.
    type: bool
    default: false
  version:
    description: Chart version (O(kind=chart)).
    type: str
  chart:
    description: What C(helm pull) takes (O(kind=chart) without O(source_dir)).
    type: str
  repo_url:
    description: Classic chart repository of O(chart).
    type: str
  source_dir:
    description: Directory holding C(<name>-<version>.tgz) (the carried charts), instead of C(helm pull).
    type: path
  model:
    description:
      - The model to bundle (O(kind=model), O(state=saved)), as model_sync takes it - C(repo_id), C(revision), C(source)
        (V(hf), V(local_cache), V(local_dir)), C(local_path), C(cache_dir), C(allow_patterns), C(ignore_patterns),
        C(checksums), C(hf_endpoint), C(hf_token), C(hf_token_origin), C(artifact_format) (V(modelpack), the default,
        or V(hf-cache)) - and C(reference), the Harbor tag reference it is published under.
    type: dict
  item:
    description: The item's lock entry (O(state=pushed)).
    type: dict
  destination:
    description: Target reference (O(state=pushed)); for a chart the repository C(<harbor>/<project>).
    type: str
  plain_http:
    description: Talk plain HTTP to the destination (test registries only).
    type: bool
    default: false
  work_dir:
    description: Staging directory (symlinks only) of a model.
    type: path
  progress_file:
    description: Append one line per model file written, with running totals.
    type: path
  concurrency:
    description: Files oras writes at once.
    type: int
    default: 5
  signing_key:
    description:
      - O(kind=model), O(state=saved) - the site's model signing key (PEM, elliptic curve), from Vault. The model's
        files are signed into C(model.sigstore.json) beside its layout (kept on a re-run while it still holds for
        this key and these files), and the lock entry names it (C(signature) - file, size, sha256).
        O(state=pushed) attaches that signature to the model's digest in the registry (unless it is there already).
    type: str
  skopeo_path:
    description: The C(skopeo) executable.
    type: path
    default: skopeo
  helm_path:
    description: The C(helm) executable.
    type: path
    default: helm
  oras_path:
    description: The C(oras) executable.
    type: path
    default: oras
attributes:
  check_mode:
    support: full
    description: Compares digests and reports what would change; writes and uploads nothing.
  diff_mode:
    support: none
    description: No diff is produced.
requirements:
  - skopeo 1.9 or later (images), helm 3.8 or later (charts), oras 1.2 or later (models)
"""

EXAMPLES = r"""
- name: Write MiniLM into the bundle
  ai_platform.serving.bundle_item:
    state: saved
    kind: model
    bundle_dir: /media/bundle
    name: all-minilm-l6-v2
    model:
      repo_id: sentence-transformers/all-MiniLM-L6-v2
      revision: c9745ed1d9f207416be6d2e6f8de32d1f16199bf
      source: hf
      cache_dir: /var/cache/hf
      reference: harbor.example.com/ai-models/all-minilm-l6-v2:v1
  register: minilm

- name: Load it into Harbor
  ai_platform.serving.bundle_item:
    state: pushed
    kind: model
    bundle_dir: /media/bundle
    item: "{{ minilm.entry }}"
    destination: harbor.example.com/ai-models/all-minilm-l6-v2:v1
    username: robot$uploader
    password: "{{ harbor_robot_token }}"
  no_log: true
"""

RETURN = r"""
entry:
  description: The item's lock entry (O(state=saved)) - kind, name, source, path, digest, size, sha256 and, per kind,
    project and image_path, version, or repo_id, revision, reference, tag, file_count and blobs.
  returned: when the item is in the bundle
  type: dict
written_bytes:
  description: Bytes written into the bundle (O(state=saved)).
  returned: always
  type: int
sent_bytes:
  description: Bytes of the item sent to the registry (O(state=pushed)); 0 when the digest was already there.
  returned: always
  type: int
digest:
  description: Digest of the item (O(state=pushed)).
  returned: always
  type: str
reference:
  description: The chart's tag reference C(<destination>/<name>:<version>) (O(state=pushed), O(kind=chart)).
  returned: O(state=pushed) and O(kind=chart)
  type: str
manifest_digest:
  description:
    - Digest of the OCI manifest helm pushed the chart in (O(state=pushed), O(kind=chart)), what a pinned deploy
      installs by (C(oci://<destination>/<name>@<manifest_digest>)); null in check mode before a push.
  returned: O(state=pushed) and O(kind=chart)
  type: str
duration:
  description: Seconds the item took.
  returned: always
  type: float
"""

import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import bundle, oci_archive, reference
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import registry_auth_argspec, tool_paths, typed
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import CacheError

MODEL_DEFAULTS = dict(source="hf", local_path=None, cache_dir=None, allow_patterns=None, ignore_patterns=None,
                      checksums=None, hf_endpoint="https://huggingface.co", hf_token=None,
                      hf_token_origin="https://huggingface.co", verify=True,
                      artifact_format="modelpack")


def argspec():
    return registry_auth_argspec(
        state=dict(type="str", required=True, choices=["saved", "pushed"]),
        kind=dict(type="str", required=True, choices=["image", "chart", "model"]),
        bundle_dir=dict(type="path", required=True),
        all_platforms=dict(type="bool", default=False),
        plain_http=dict(type="bool", default=False),
        concurrency=dict(type="int", default=5),
        signing_key=dict(type="str", no_log=True),
        **typed("str", "name", "image", "source_ref", "digest", "archive_name", "project", "image_path", "version",
                "chart", "repo_url", "destination"),
        **typed("path", "source_dir", "work_dir", "progress_file"),
        **typed("dict", "model", "item", "source_refs"),
        **tool_paths("skopeo", "helm", "oras")
    )


REQUIRED_IF = [("state", "pushed", ["item", "destination"])]


def model_params(params):
    model = dict(MODEL_DEFAULTS)
    model.update((k, v) for k, v in (params["model"] or {}).items() if v is not None)
    for key in ("repo_id", "revision", "reference"):
        if not model.get(key):
            raise bundle.BundleError("model %s: model.%s is required" % (params["name"], key))
    if model["source"] in ("local_cache", "local_dir") and not model["local_path"]:
        raise bundle.BundleError("model %s: source %s needs model.local_path" % (params["name"], model["source"]))
    if model["source"] == "hf" and not model["cache_dir"]:
        raise bundle.BundleError("model %s: source hf needs model.cache_dir" % params["name"])
    model.update(name=params["name"], bundle_dir=params["bundle_dir"], oras_path=params["oras_path"],
                 signing_key=params["signing_key"],
                 concurrency=params["concurrency"], work_dir=params["work_dir"],
                 progress_file=params["progress_file"])
    return model


def image_source_ref(params):
    """The transport reference an image is read from: O(source_ref), else its O(source_refs) entry (None: its
    registry)."""
    return params.get("source_ref") or reference.image_lookup(params.get("source_refs"), params.get("image"))


def save(module, params):
    kind = params["kind"]
    if kind == "image":
        params = dict(params, source_ref=image_source_ref(params))
    if kind == "model":
        return bundle.save_model(model_params(params), module.check_mode)
    target = params["image"] if kind == "image" else (params["chart"] or "").replace("oci://", "")
    credentials = {oci_archive.registry_of(target): (params["username"], params["password"])}
    with registry.AuthDir(credentials, params["ca_file"]) as auth:
        if kind == "image":
            skopeo = oci_archive.Skopeo(params["skopeo_path"], auth, params["validate_certs"])
            return bundle.save_image(params, module.check_mode, skopeo)
        return bundle.save_chart(params, module.check_mode, oci_archive.HelmRunner(auth, params))


def push(module, params):
    kind, item = params["kind"], params["item"]
    if kind == "model":
        return bundle.push_model(dict(params, reference=params["destination"]), module.check_mode)
    archive = "%s/%s" % (params["bundle_dir"], item["path"])
    credentials = {oci_archive.registry_of(params["destination"]): (params["username"], params["password"])}
    with registry.AuthDir(credentials, params["ca_file"]) as auth:
        skopeo = oci_archive.Skopeo(params["skopeo_path"], auth, params["validate_certs"] and not params["plain_http"])
        if kind == "image":
            pushed = oci_archive.push_image(dict(params, archive=archive, expected_digest=item["digest"]),
                                            module.check_mode, skopeo)
        else:
            pushed = oci_archive.push_chart(dict(params, archive=archive, repository=params["destination"],
                                                 name=item["name"], version=item["version"]),
                                            module.check_mode, skopeo, oci_archive.HelmRunner(auth, params))
    result = dict(changed=pushed["changed"], digest=item["digest"], destination=params["destination"],
                  sent_bytes=item["size"] if pushed["changed"] and not module.check_mode else 0)
    if kind == "chart":
        # the OCI manifest helm pushed the tarball in: the digest a pinned deploy installs the chart by
        result.update(reference=pushed["reference"], manifest_digest=pushed["manifest_digest"])
    return result


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True, required_if=REQUIRED_IF)
    params = module.params
    started = time.monotonic()
    try:
        result = (save if params["state"] == "saved" else push)(module, params)
    except (bundle.BundleError, CacheError, registry.RegistryError) as exc:
        module.fail_json(msg=str(exc))
    result.setdefault("duration", round(time.monotonic() - started, 1))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
