# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model signatures: sign a model's files with the site's key, verify a signature against an artifact.

The signature is OpenSSF model signing's (PyPI ``model-signing``): a Sigstore bundle
(``application/vnd.dev.sigstore.bundle.v0.3+json``) holding a DSSE envelope over an in-toto
statement whose predicate lists every file with its sha256 (file serialization, not shards), signed
with an elliptic-curve private key the site owns (P-256, P-384 or P-521; no certificate, no
transparency log). One raw OCI layer per file means each signed digest is the digest of that file's
layer, so an artifact is verified from its manifest and the signature alone: ``verified_files`` checks
the signature and returns the signed files, ``artifact_files`` reads the files of a manifest (ModelPack
or the collection's older hub-cache layout), ``compare`` names every file on which they disagree.

Keys: the private key is read from a file the caller writes (mode 0600) or passed as PEM bytes; it
never appears in an exception message, and nothing here logs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import pathlib
import re
import traceback
from collections import namedtuple

try:
    from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization
    from model_signing import hashing as ms_hashing
    from model_signing import manifest as ms_manifest
    from model_signing._signing import sign_ec_key
    from model_signing._signing import sign_sigstore_pb
    from model_signing._signing import signing as ms_signing
    from sigstore_models.bundle import v1 as bundle_v1
except ImportError:
    HAS_MODEL_SIGNING = False
    MODEL_SIGNING_IMPORT_ERROR = traceback.format_exc()
else:
    HAS_MODEL_SIGNING = True
    MODEL_SIGNING_IMPORT_ERROR = None

# ModelPack (CNCF model-spec, specs-go/v1): the file path of a layer, and the layer media types.
MODELPACK_FILEPATH = "org.cncf.model.filepath"
MODELPACK_MEDIA_PREFIX = "application/vnd.cncf.model."
MODELPACK_ARTIFACT_TYPE = "application/vnd.cncf.model.manifest.v1+json"
MODELPACK_CONFIG_TYPE = "application/vnd.cncf.model.config.v1+json"
# The collection's older format: one layer per file titled with its path in the hub cache.
TITLE = "org.opencontainers.image.title"
OLD_SNAPSHOT_RE = re.compile(r"^(models--[^/]+)/snapshots/([0-9a-f]{40})/(.+)$")
OLD_REFS_RE = re.compile(r"^models--[^/]+/refs/[^/]+$")
DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")
# Directories of a model directory that are not model files (hf_cache.PLAIN_DIR_SKIP's list). Unlike
# model_signing's default, .gitattributes and .gitignore stay signed: a Hugging Face snapshot carries them
# and the artifact has a layer for each.
IGNORED_DIRS = (".git", ".cache", ".huggingface")
HASH = "sha256"

Signed = namedtuple("Signed", ["model_name", "files"])


class SignatureError(Exception):
    """A signature, key or artifact manifest that cannot be verified; ``reason`` says why (never a key)."""

    def __init__(self, reason):
        super(SignatureError, self).__init__(reason)
        self.reason = reason


def _require_library():
    if not HAS_MODEL_SIGNING:
        raise SignatureError("signing needs the Python package model-signing (requirements.txt) on the host")


def _read_key_bytes(key, what):
    """PEM bytes from bytes, a str holding PEM, or a path to a PEM file; messages never carry the key."""
    if isinstance(key, bytes):
        return key
    if isinstance(key, str) and key.lstrip().startswith("-----BEGIN"):
        return key.encode("ascii")
    if isinstance(key, (str, os.PathLike)):
        try:
            with open(key, "rb") as handle:
                return handle.read()
        except (IOError, OSError) as exc:
            raise SignatureError("cannot read the %s file %s: %s" % (what, os.fspath(key), exc.strerror))
    raise SignatureError("the %s must be PEM bytes or the path of a PEM file" % what)


def _load_private_key(key):
    pem = _read_key_bytes(key, "private key")
    try:
        private_key = serialization.load_pem_private_key(pem, password=None)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        # the library's message is not shown: it is safe today, but the key is a secret.
        raise SignatureError("the private key is not an unencrypted PEM private key")
    try:
        sign_ec_key._check_supported_ec_key(private_key.public_key())  # pylint: disable=protected-access
    except (ValueError, AttributeError):
        raise SignatureError("the private key must be an elliptic-curve key on P-256, P-384 or P-521")
    return private_key


def public_pem(private_key):
    """The PEM public key of a private key (PEM bytes or a file path); for checking what it signed."""
    return _load_private_key(private_key).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def _load_public_key(key):
    pem = _read_key_bytes(key, "public key")
    try:
        public_key = serialization.load_pem_public_key(pem)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise SignatureError("the public key is not a PEM public key")
    try:
        sign_ec_key._check_supported_ec_key(public_key)  # pylint: disable=protected-access
    except (ValueError, AttributeError):
        raise SignatureError("the public key must be an elliptic-curve key on P-256, P-384 or P-521")
    return public_key


if HAS_MODEL_SIGNING:

    class _KeySigner(sign_ec_key.Signer):
        """model_signing's elliptic-curve signer, given a loaded key rather than a key file path."""

        def __init__(self, private_key):  # pylint: disable=super-init-not-called
            self._private_key = private_key

    class _KeyVerifier(sign_ec_key.Verifier):
        """model_signing's elliptic-curve verifier, given a loaded key rather than a key file path."""

        def __init__(self, public_key):  # pylint: disable=super-init-not-called
            self._public_key = public_key


def _check_relpath(relpath):
    parts = relpath.split("/") if isinstance(relpath, str) else None
    if not parts or relpath.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise SignatureError("%r is not a relative file path inside the model directory" % (relpath,))


def sign_files(model_dir, relpaths, private_key, model_name):
    """Sign the files of ``model_dir``; return the signature (a Sigstore bundle, JSON bytes).

    ``relpaths``: the files to sign, relative to ``model_dir`` with '/' (every one is signed, none
    ignored), or None for every file below it but ``IGNORED_DIRS``. Symbolic links are followed (a hub
    cache snapshot is links into ``blobs/``). ``private_key``: the path of a PEM file or PEM bytes.
    ``model_name``: the name the signature carries (the in-toto subject), e.g. ``<org>/<name>@<commit>``.
    """
    _require_library()
    if not isinstance(model_name, str) or not model_name:
        raise SignatureError("model_name must be a non-empty string")
    key = _load_private_key(private_key)
    if not os.path.isdir(model_dir):
        raise SignatureError("model directory %s does not exist" % model_dir)
    config = ms_hashing.Config().use_file_serialization(hashing_algorithm=HASH).set_allow_symlinks(True)
    if relpaths is None:
        config.set_ignored_paths(paths=IGNORED_DIRS, ignore_git_paths=False)
        files = None
    else:
        relpaths = list(relpaths)
        if not relpaths:
            raise SignatureError("no files to sign in %s" % model_dir)
        if len(set(relpaths)) != len(relpaths):
            raise SignatureError("a file is listed twice: %s" % ", ".join(
                sorted(set(p for p in relpaths if relpaths.count(p) > 1))))
        for relpath in relpaths:
            _check_relpath(relpath)
            if not os.path.isfile(os.path.join(model_dir, *relpath.split("/"))):
                raise SignatureError("%s is not a file in %s" % (relpath, model_dir))
        config.set_ignored_paths(paths=(), ignore_git_paths=False)
        files = [pathlib.Path(model_dir, *relpath.split("/")) for relpath in relpaths]
    try:
        hashed = config.hash(pathlib.Path(model_dir), files_to_hash=files)
    except ValueError as exc:  # a special file, a broken link: model_signing names the path
        raise SignatureError("cannot hash %s: %s" % (model_dir, exc))
    descriptors = list(hashed.resource_descriptors())
    if not descriptors:
        raise SignatureError("no files to sign in %s" % model_dir)
    # The same items under the caller's name (model_signing names a manifest after the directory).
    serialization_type = ms_manifest.SerializationType.from_args(hashed.serialization_type)
    named = ms_manifest.Manifest(model_name, [serialization_type.new_item(rd.identifier, rd.digest)
                                              for rd in descriptors], serialization_type)
    signature = _KeySigner(key).sign(ms_signing.Payload(named))
    return signature.bundle.to_json().encode("utf-8")


def verify(signature, public_key):
    """Check ``signature`` (bundle JSON bytes or str) with ``public_key`` (PEM bytes or a file path).

    Hashes nothing: returns ``Signed(model_name, files)``, files a dict relpath -> ``sha256:<hex>``.
    Raises SignatureError for a malformed bundle, a signature by another key, a bad signature, or a
    manifest that is not per-file sha256.
    """
    _require_library()
    key = _load_public_key(public_key)
    try:
        bundle = json.loads(signature)
    except (ValueError, TypeError) as exc:
        raise SignatureError("the signature is not JSON: %s" % exc)
    material = bundle.get("verificationMaterial") if isinstance(bundle, dict) else None
    if not isinstance(material, dict) or not (material.get("publicKey") or {}).get("hint"):
        # model_signing would print a warning on stdout (an Ansible module's result) and go on.
        raise SignatureError("the signature names no public key (not a model_signing key signature of 1.0 or later)")
    material.setdefault("tlogEntries", [])
    try:
        parsed = sign_sigstore_pb.Signature(bundle_v1.Bundle.from_dict(bundle))
        verified = _KeyVerifier(key).verify(parsed)
    except InvalidSignature:
        raise SignatureError("the signature does not verify with this public key (altered, or made by another key)")
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
        # model_signing's messages: media type, key mismatch, payload type, inconsistent root digest.
        if "key mismatch" in str(exc).lower():
            raise SignatureError("the signature was made by another key (it names a key whose hash is not this "
                                 "public key's)")
        raise SignatureError("the signature is refused: %s" % " ".join(str(exc).split()))
    serialization = verified.serialization_type
    if serialization.get("method") != "files" or serialization.get("hash_type") != HASH:
        raise SignatureError("the signature lists %s hashed with %s, not whole files with sha256"
                             % (serialization.get("method"), serialization.get("hash_type")))
    files = {}
    for descriptor in verified.resource_descriptors():
        if descriptor.digest.algorithm != HASH:
            raise SignatureError("%s is signed with %s, not sha256" % (descriptor.identifier, descriptor.digest.algorithm))
        files[descriptor.identifier] = "sha256:" + descriptor.digest.digest_hex
    return Signed(verified.model_name, files)


def verified_files(signature, public_key):
    """The signed files, relpath -> ``sha256:<hex>``, of a signature that verifies (see ``verify``)."""
    return verify(signature, public_key).files


def artifact_files(manifest):
    """relpath -> layer digest of one of the collection's model artifacts (an OCI manifest dict).

    ModelPack: every layer carries ``org.cncf.model.filepath`` and is a raw layer (a tar layer's digest
    is not its file's). Older format: layers titled ``models--<org>--<name>/snapshots/<commit>/<relpath>``;
    the ``refs/`` layer is skipped. Raises SignatureError for a manifest of neither shape.
    """
    layers = manifest.get("layers") if isinstance(manifest, dict) else None
    if not isinstance(layers, list) or not layers:
        raise SignatureError("the manifest has no layers")
    modelpack = (manifest.get("artifactType") == MODELPACK_ARTIFACT_TYPE
                 or (manifest.get("config") or {}).get("mediaType") == MODELPACK_CONFIG_TYPE
                 or any(MODELPACK_FILEPATH in (layer.get("annotations") or {}) for layer in layers))
    files = {}
    snapshots = set()
    for index, layer in enumerate(layers):
        annotations = layer.get("annotations") or {}
        digest = layer.get("digest")
        if modelpack:
            relpath = annotations.get(MODELPACK_FILEPATH)
            name = relpath or "layer %d" % index
            if not relpath:
                raise SignatureError("%s of the ModelPack manifest has no %s annotation" % (name, MODELPACK_FILEPATH))
            media_type = layer.get("mediaType") or ""
            if not (media_type.startswith(MODELPACK_MEDIA_PREFIX) and media_type.endswith(".raw")):
                raise SignatureError("%s is a %s layer, not a raw file layer: its digest is not the file's"
                                     % (relpath, media_type or "typeless"))
        else:
            title = annotations.get(TITLE)
            if not title:
                raise SignatureError("layer %d has neither a %s nor a %s annotation" % (index, MODELPACK_FILEPATH, TITLE))
            if OLD_REFS_RE.match(title):
                continue
            match = OLD_SNAPSHOT_RE.match(title)
            if not match:
                raise SignatureError("layer %s is not models--<org>--<name>/snapshots/<commit>/<file>" % title)
            snapshots.add(match.group(1, 2))
            relpath = match.group(3)
        _check_relpath(relpath)
        if not isinstance(digest, str) or not DIGEST_RE.match(digest):
            raise SignatureError("layer %s has digest %r, not sha256:<64 hex>" % (relpath, digest))
        if relpath in files:
            raise SignatureError("%s is in the manifest twice" % relpath)
        files[relpath] = digest
    if len(snapshots) > 1:
        raise SignatureError("the manifest holds several snapshots: %s"
                             % ", ".join("%s@%s" % pair for pair in sorted(snapshots)))
    if not files:
        raise SignatureError("the manifest has no file layers")
    return files


def compare(signed_files, artifact_files_):
    """Problems, one per file, where a signature's files and an artifact's differ; [] when they match."""
    problems = []
    for relpath in sorted(set(signed_files) | set(artifact_files_)):
        signed = signed_files.get(relpath)
        have = artifact_files_.get(relpath)
        if signed is None:
            problems.append("%s: in the artifact (%s) but not in the signature" % (relpath, have))
        elif have is None:
            problems.append("%s: signed (%s) but not in the artifact" % (relpath, signed))
        elif signed != have:
            problems.append("%s: the artifact has %s, the signature %s" % (relpath, have, signed))
    return problems
