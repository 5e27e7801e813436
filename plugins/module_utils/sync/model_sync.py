# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Logic of the model_sync module: collect, verify, compare, push, report."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import tempfile
import time

from ansible_collections.ai_platform.serving.plugins.module_utils.sync import hf_cache
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import model_signatures
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_artifact
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import signing
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import registry_auth_argspec, tool_paths


def argspec():
    return registry_auth_argspec(
        "registry_",
        repo_id=dict(type="str", required=True),
        revision=dict(type="str", required=True),
        source=dict(type="str", default="hf", choices=["hf", "local_cache", "local_dir"]),
        local_path=dict(type="path"),
        cache_dir=dict(type="path"),
        allow_patterns=dict(type="list", elements="str"),
        ignore_patterns=dict(type="list", elements="str"),
        checksums=dict(type="dict"),
        hf_endpoint=dict(type="str", default="https://huggingface.co"),
        hf_token=dict(type="str", no_log=True),
        hf_token_origin=dict(type="str", default="https://huggingface.co", no_log=False),
        reference=dict(type="str", required=True),
        plain_http=dict(type="bool", default=False),
        insecure=dict(type="bool", default=False, removed_in_version="2.0.0",
                      removed_from_collection="ai_platform.serving"),
        concurrency=dict(type="int", default=5),
        progress_file=dict(type="path"),
        work_dir=dict(type="path"),
        verify=dict(type="bool", default=True),
        artifact_format=dict(type="str", default=oci_artifact.FORMAT_MODELPACK, choices=list(oci_artifact.FORMATS)),
        signing_key=dict(type="str", no_log=True),
        **tool_paths("oras")
    )


REQUIRED_IF = [("source", "local_cache", ["local_path"]), ("source", "local_dir", ["local_path"]),
               ("source", "hf", ["cache_dir"])]


def download(params):
    """Fetch the revision into the hub cache with huggingface_hub; return the hub dir."""
    token = hf_cache.token_for_endpoint(params["hf_token"], params["hf_endpoint"], params["hf_token_origin"])
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    try:
        from huggingface_hub import snapshot_download
    except ImportError:
        raise hf_cache.CacheError("source=hf needs the huggingface_hub Python package on the host")
    # token=False: never fall back to a token stored on the host for another origin.
    snapshot_download(repo_id=params["repo_id"], revision=params["revision"], cache_dir=params["cache_dir"],
                      allow_patterns=params["allow_patterns"], ignore_patterns=params["ignore_patterns"],
                      endpoint=params["hf_endpoint"], token=token or False)
    return params["cache_dir"]


def collect(params, check_mode):
    """Return (commit, files) for the configured source, verified."""
    source = params["source"]
    patterns = (params["allow_patterns"], params["ignore_patterns"])
    if source == "local_dir":
        if not hf_cache.is_commit(params["revision"]):
            raise hf_cache.CacheError("source=local_dir needs revision to be a 40-character commit hash, got %r"
                                      % params["revision"])
        files = hf_cache.plain_directory(params["local_path"], *patterns, checksums=params["checksums"])
        return params["revision"], files
    hub = params["local_path"] if source == "local_cache" else params["cache_dir"]
    if source == "hf" and not check_mode:
        hub = download(params)
    return hf_cache.cached_snapshot(hub, params["repo_id"], params["revision"], *patterns,
                                    verify=params["verify"])


class Remote:
    """oras against one registry, with credentials in a private config file."""

    def __init__(self, params, auth):
        self.params = params
        self.auth = auth
        self.ref = registry.parse_reference(params["reference"])
        self.args = oci_artifact.remote_args(auth.config, params["ca_file"], params["plain_http"],
                                             params["insecure"] or not params["validate_certs"])

    def fail_message(self, output):
        return registry.redact(registry.explain_failure("oras", self.ref.registry,
                                                        self.params["registry_username"], output),
                               [self.params["registry_password"]], [self.params["registry_username"]])

    def run(self, argv, cwd=None, on_line=None):
        return oci_artifact.run_streaming(argv, cwd, on_line or (lambda line: None))

    def fetch(self, reference):
        """Return (descriptor, manifest) or (None, None) when the tag does not exist."""
        oras = self.params["oras_path"]
        rc, out = self.run(oci_artifact.fetch_argv(oras, reference, self.args + ["--descriptor"]))
        if rc != 0:
            if registry.is_not_found(out):
                return None, None
            raise registry.RegistryError(self.fail_message(out))
        descriptor = oci_artifact.load_manifest(out)
        pinned_ref = registry.pinned(reference, descriptor["digest"])
        rc, out = self.run(oci_artifact.fetch_argv(oras, pinned_ref, self.args))
        if rc != 0:
            raise registry.RegistryError(self.fail_message(out))
        return descriptor, oci_artifact.load_manifest(out)

    def signatures(self, pinned):
        """(signature artifact digest, its one layer's digest) of every signature attached to ``pinned``."""
        oras = self.params["oras_path"]
        rc, out = self.run(model_signatures.discover_argv(oras, pinned, self.args))
        if rc != 0:
            raise registry.RegistryError(self.fail_message(out))
        repository = pinned.split("@", 1)[0]
        found = []
        for referrer in model_signatures.discovered(out):
            _descriptor, manifest = self.fetch("%s@%s" % (repository, referrer))
            layers = (manifest or {}).get("layers") or []
            if len(layers) == 1 and layers[0].get("digest"):
                found.append((referrer, layers[0]["digest"]))
        return found

    def attach(self, pinned, cwd):
        """Attach the signature file in ``cwd`` to ``pinned``; the signature artifact's digest."""
        rc, out = self.run(model_signatures.attach_argv(self.params["oras_path"], pinned, self.args), cwd=cwd)
        if rc != 0:
            raise registry.RegistryError(self.fail_message(out))
        return oci_artifact.parse_push_digest(out)


def diff_text(manifest):
    return "".join("%s %s %s\n" % layer for layer in oci_artifact.manifest_layers(manifest or {}))


def sync(params, check_mode=False, want_diff=False):
    """Run one model sync; return the module result dict (raises CacheError/RegistryError)."""
    problem = hf_cache.validate_repo_id(params["repo_id"])
    if problem:
        raise hf_cache.CacheError(problem)
    started = time.monotonic()
    ref = registry.parse_reference(params["reference"])
    if ref.digest or not ref.tag:
        raise registry.RegistryError("reference %s must name a tag (host/project/name:tag), not a digest"
                                     % params["reference"])
    try:
        commit, files = collect(params, check_mode)
    except hf_cache.CacheError:
        if not (check_mode and params["source"] == "hf"):
            raise
        # Check mode downloads nothing: a revision not cached yet would be downloaded and pushed.
        return dict(changed=True, repo_id=params["repo_id"], revision=params["revision"], digest=None,
                    reference=params["reference"], file_count=None, size=None, uploaded=[], uploaded_bytes=0,
                    existing=0, difference={}, msg="would download %s@%s first" % (params["repo_id"], params["revision"]))
    artifact = oci_artifact.plan(params["repo_id"], commit, files, params["artifact_format"])
    layers = artifact["layers"]
    credentials = {ref.registry: (params["registry_username"], params["registry_password"])}
    result = dict(changed=False, repo_id=params["repo_id"], revision=commit, reference=params["reference"],
                  file_count=len(files), size=sum(layer["size"] for layer in layers),
                  uploaded=[], uploaded_bytes=0, existing=0)
    with registry.AuthDir(credentials) as auth:
        remote = Remote(params, auth)
        descriptor, manifest = remote.fetch(params["reference"])
        difference = oci_artifact.compare(manifest, artifact)
        result["difference"] = dict((k, v) for k, v in difference.items() if k != "same")
        if want_diff:
            after = "".join("%s %s %s\n" % (l["title"], l["digest"], l["size"]) for l in layers)
            result["diff"] = dict(before=diff_text(manifest), after=after)
        if difference["same"]:
            result.update(digest=descriptor["digest"], existing=len(layers))
        elif check_mode:
            result.update(changed=True, digest=None)
        else:
            result.update(changed=True, **push(params, remote, artifact))
        if result["digest"] and params["signing_key"] and not check_mode:
            result["signature"] = attach_signature(params, remote, artifact, files, result["digest"])
            result["changed"] = result["changed"] or result["signature"]["attached"]
    if result["digest"]:
        result["pinned_reference"] = registry.pinned(params["reference"], result["digest"])
    result["duration"] = round(time.monotonic() - started, 1)
    return result


def push(params, remote, artifact):
    """Stage symlinks, run oras push with progress, then check what the registry holds."""
    layers = artifact["layers"]
    work = tempfile.mkdtemp(prefix="aips-model-sync-", dir=params["work_dir"])
    progress = oci_artifact.Progress(params["progress_file"], layers)
    try:
        staging, staging_args = oci_artifact.build_staging(work, artifact)
        argv = oci_artifact.push_argv(params["oras_path"], params["reference"], artifact, staging_args,
                                      params["concurrency"], remote.args)
        rc, out = remote.run(argv, cwd=staging, on_line=progress.line)
        if rc != 0:
            progress.close("failed")
            raise registry.RegistryError(remote.fail_message(out))
        digest = oci_artifact.parse_push_digest(out)
        progress.close("pushed %s" % digest)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    _descriptor, manifest = remote.fetch(registry.pinned(params["reference"], digest))
    if not oci_artifact.compare(manifest, artifact)["same"]:
        raise registry.RegistryError("registry %s holds %s with layers that differ from the verified files"
                                     % (remote.ref.registry, digest))
    return dict(digest=digest, uploaded=sorted(progress.uploaded), existing=len(progress.existed),
                uploaded_bytes=sum(l["size"] for l in layers if l["title"] in progress.uploaded))


def attach_signature(params, remote, artifact, files, digest):
    """Sign the model with ``signing_key`` and attach the signature to ``digest``, unless a signature by that
    key over exactly these files is attached already. Returns dict(digest=<signature artifact>, attached=bool)."""
    oras = params["oras_path"]
    pinned = registry.pinned(params["reference"], digest)
    repository = pinned.split("@", 1)[0]
    try:
        public_key = signing.public_pem(params["signing_key"])
    except signing.SignatureError as exc:
        raise registry.RegistryError("%s: signing_key: %s" % (params["repo_id"], exc.reason))
    _descriptor, manifest = remote.fetch(pinned)
    work = tempfile.mkdtemp(prefix="aips-model-sign-", dir=params["work_dir"])
    try:
        for referrer, layer in remote.signatures(pinned):
            path = os.path.join(work, "attached.json")
            rc, out = remote.run([oras, "blob", "fetch", "--output", path, "%s@%s" % (repository, layer)] + remote.args)
            if rc != 0:
                raise registry.RegistryError(remote.fail_message(out))
            with open(path, "rb") as handle:
                if not model_signatures.check(manifest, handle.read(), public_key):
                    return dict(digest=referrer, attached=False)
        try:
            signature = model_signatures.sign(files, params["signing_key"],
                                              model_signatures.model_name(params["repo_id"], artifact["commit"]), work)
        except signing.SignatureError as exc:
            raise registry.RegistryError("%s: signing failed: %s" % (params["repo_id"], exc.reason))
        with open(os.path.join(work, model_signatures.SIGNATURE_FILE), "wb") as handle:
            handle.write(signature)
        return dict(digest=remote.attach(pinned, work), attached=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
