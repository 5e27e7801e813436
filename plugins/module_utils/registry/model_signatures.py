# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model signatures as OCI referrers of the artifact they sign: find, check, attach.

A signature (signing.py: model_signing's Sigstore bundle over every file's sha256, made with the site's
elliptic-curve key) is attached to the model artifact's manifest digest as an artifact of type
``application/vnd.dev.sigstore.bundle.v0.3+json`` with the bundle as its one layer: the registry's
referrers API where it has one, else the ``sha256-<hex>`` tag schema (oras attach picks). Checking one
needs the artifact's manifest and the signature, never the weights: the signed files' digests must be
the manifest's raw layer digests, one for one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import tempfile

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import signing

SIGNATURE_TYPE = "application/vnd.dev.sigstore.bundle.v0.3+json"
SIGNATURE_FILE = "model.sigstore.json"


def model_name(repo_id, commit):
    """The name a model's signature carries: ``<org>/<name>@<commit>``."""
    return "%s@%s" % (repo_id, commit)


def check(manifest, signature, public_key):
    """Problems with ``signature`` for the artifact ``manifest`` (a dict); [] when it verifies with
    ``public_key`` and signs exactly the artifact's files."""
    try:
        signed = signing.verify(signature, public_key)
        have = signing.artifact_files(manifest)
    except signing.SignatureError as exc:
        return [exc.reason]
    return signing.compare(signed.files, have)


def sign(files, private_key, name, work_dir=None):
    """Sign the verified files of one model (hf_cache CacheFile entries: relpath, path) as ``name``."""
    tree = tempfile.mkdtemp(prefix="aips-sign-", dir=work_dir)
    try:
        for entry in files:
            target = os.path.join(tree, *entry.relpath.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(os.path.abspath(entry.path), target)
        return signing.sign_files(tree, [entry.relpath for entry in files], private_key, name)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def signature_manifests(referrers):
    """The digests of the signature artifacts among a manifest's referrers (descriptors)."""
    return [d["digest"] for d in referrers if d.get("artifactType") == SIGNATURE_TYPE and d.get("digest")]


def registry_status(registry, repository, digest, manifest, public_key):
    """How the artifact ``repository@digest`` (its ``manifest`` dict) is signed, read over the distribution API
    (distribution.Registry): dict(status=valid|unsigned|invalid, signature=<referrer digest>, problems=[...])."""
    found = signature_manifests(registry.referrers(repository, digest))
    if not found:
        return {"status": "unsigned", "signature": None,
                "problems": ["no signature is attached to %s@%s" % (repository, digest)]}
    problems = []
    for referrer in found:
        _digest, body = registry.manifest(repository, referrer)
        try:
            layers = json.loads(body.decode("utf-8")).get("layers") or []
        except ValueError:
            layers = []
        if len(layers) != 1 or not layers[0].get("digest"):
            problems.append("signature %s: not one signature layer" % referrer)
            continue
        reasons = check(manifest, registry.blob(repository, layers[0]["digest"]), public_key)
        if not reasons:
            return {"status": "valid", "signature": referrer, "problems": []}
        problems.extend("signature %s: %s" % (referrer, reason) for reason in reasons)
    return {"status": "invalid", "signature": None, "problems": problems}


def discover_argv(oras, pinned_reference, remote):
    return [oras, "discover", pinned_reference, "--format", "json", "--artifact-type", SIGNATURE_TYPE] + remote


def discovered(output):
    """The signature referrers ``oras discover --format json`` listed (its tree's first level)."""
    try:
        tree = json.loads(output[output.index("{"):])
    except ValueError:
        return []
    return signature_manifests(tree.get("referrers") or [])


def attach_argv(oras, pinned_reference, remote):
    """``oras attach`` of the signature file (in the working directory) to the artifact."""
    return [oras, "attach", pinned_reference, "--artifact-type", SIGNATURE_TYPE] + remote + \
        ["%s:%s" % (SIGNATURE_FILE, SIGNATURE_TYPE)]
