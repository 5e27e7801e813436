# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model signatures with model_signing and a key pair made here: sign, verify, compare with a manifest."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import hashlib
import json
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import signing

# requirements.txt installs model-signing on both ends of the support matrix: without it these tests fail (the
# import below), never skip
if not signing.HAS_MODEL_SIGNING:
    raise ImportError("model-signing is not installed (pip install -r requirements.txt): %s"
                      % signing.MODEL_SIGNING_IMPORT_ERROR)

from cryptography.hazmat.primitives import serialization  # noqa: E402  pylint: disable=wrong-import-position
from cryptography.hazmat.primitives.asymmetric import ec, rsa  # noqa: E402  pylint: disable=wrong-import-position

REPO_FOLDER = "models--org--model"
COMMIT = "c" * 40
FILES = {
    "config.json": b'{"hidden_size": 8}',
    "model.safetensors": b"w" * 4096,
    "1_Pooling/config.json": b'{"pooling": "mean"}',
    ".gitattributes": b"*.safetensors filter=lfs\n",
}


def sha(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def private_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def public_pem(key):
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.fixture(scope="module")
def key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture(scope="module")
def other_key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def key_file(tmp_path, key):
    path = tmp_path / "site.key"
    path.write_bytes(private_pem(key))
    os.chmod(str(path), 0o600)
    return str(path)


@pytest.fixture
def model(tmp_path):
    root = tmp_path / "model"
    for rel, data in FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (root / ".cache" / "huggingface").mkdir(parents=True)
    (root / ".cache" / "huggingface" / "x.lock").write_bytes(b"")
    return str(root)


def expected_files():
    return dict((rel, sha(data)) for rel, data in FILES.items())


def old_manifest(files):
    """The collection's first format: hub-cache titles, a refs/main layer, raw files as tar-typed layers."""
    layers = [{"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": sha(COMMIT.encode()), "size": 40,
               "annotations": {"org.opencontainers.image.title": REPO_FOLDER + "/refs/main"}}]
    for rel, digest in sorted(files.items()):
        layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": digest, "size": 1,
                       "annotations": {"org.opencontainers.image.title": "%s/snapshots/%s/%s" % (REPO_FOLDER, COMMIT, rel)}})
    return {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "artifactType": "application/vnd.ai-platform.hf-model.v1",
            "config": {"mediaType": "application/vnd.oci.empty.v1+json", "digest": sha(b"{}"), "size": 2},
            "layers": sorted(layers, key=lambda layer: layer["annotations"]["org.opencontainers.image.title"])}


def modelpack_manifest(files):
    layers = []
    for rel, digest in sorted(files.items()):
        kind = "weight" if rel.endswith(".safetensors") else "weight.config" if rel.endswith(".json") else "doc"
        layers.append({"mediaType": "application/vnd.cncf.model.%s.v1.raw" % kind, "digest": digest, "size": 1,
                       "annotations": {"org.cncf.model.filepath": rel}})
    return {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "artifactType": "application/vnd.cncf.model.manifest.v1+json",
            "config": {"mediaType": "application/vnd.cncf.model.config.v1+json", "digest": sha(b"{}"), "size": 2},
            "layers": layers}


def reencode(signature, change):
    """The bundle with ``change(bundle)`` applied, as JSON bytes."""
    bundle = json.loads(signature)
    change(bundle)
    return json.dumps(bundle).encode()


def payload_of(bundle):
    return json.loads(base64.b64decode(bundle["dsseEnvelope"]["payload"]))


def set_payload(bundle, payload):
    bundle["dsseEnvelope"]["payload"] = base64.b64encode(json.dumps(payload).encode()).decode()


# --- sign and verify -----------------------------------------------------------------------------

def test_sign_then_verify_returns_every_file_with_its_sha256(model, key_file, key):
    signature = signing.sign_files(model, None, key_file, "org/model@" + COMMIT)
    signed = signing.verify(signature, public_pem(key))
    assert signed.model_name == "org/model@" + COMMIT
    # .git and .cache are not model files; .gitattributes is (a snapshot carries it, the artifact has its layer)
    assert signed.files == expected_files()
    assert signing.verified_files(signature, public_pem(key)) == expected_files()
    bundle = json.loads(signature)
    assert bundle["mediaType"] == "application/vnd.dev.sigstore.bundle.v0.3+json"
    assert bundle["verificationMaterial"]["tlogEntries"] == []
    assert payload_of(bundle)["predicate"]["serialization"]["method"] == "files"


def test_key_as_pem_bytes_and_public_key_as_file(model, tmp_path, key):
    signature = signing.sign_files(model, None, private_pem(key), "m")
    pub = tmp_path / "site.pub"
    pub.write_bytes(public_pem(key))
    assert signing.verified_files(signature, str(pub)) == expected_files()


def test_the_library_own_verifier_accepts_the_signature(model, tmp_path, key_file, key):
    """model_signing's public API, which re-hashes the directory, agrees: the format is the stock one.

    Its guess of the hashing settings always leaves .gitattributes out, so the settings are given (the
    CLI's --no-ignore-git-paths)."""
    from model_signing import hashing, verifying
    sig_path = tmp_path / "model.sig"
    sig_path.write_bytes(signing.sign_files(model, None, key_file, "m"))
    pub = tmp_path / "site.pub"
    pub.write_bytes(public_pem(key))
    config = hashing.Config().use_file_serialization()
    config.set_ignored_paths(paths=signing.IGNORED_DIRS, ignore_git_paths=False)
    verifying.Config().use_elliptic_key_verifier(public_key=str(pub)).set_hashing_config(config).verify(
        model, str(sig_path))
    with open(os.path.join(model, "config.json"), "ab") as handle:
        handle.write(b" ")
    with pytest.raises(ValueError, match="Hash mismatch for .*config.json"):
        verifying.Config().use_elliptic_key_verifier(public_key=str(pub)).set_hashing_config(config).verify(
            model, str(sig_path))


def test_listed_files_only_and_links_followed(tmp_path, key_file, key):
    """A hub-cache snapshot: the files are links into blobs/; the signed digest is the content's."""
    repo = tmp_path / REPO_FOLDER
    (repo / "blobs").mkdir(parents=True)
    snapshot = repo / "snapshots" / COMMIT
    (snapshot / "1_Pooling").mkdir(parents=True)
    for rel, data in FILES.items():
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        os.symlink(os.path.relpath(str(blob), str((snapshot / rel).parent)), str(snapshot / rel))
    chosen = ["config.json", "model.safetensors", ".gitattributes"]
    signature = signing.sign_files(str(snapshot), chosen, key_file, "m")
    assert signing.verified_files(signature, public_pem(key)) == dict((rel, sha(FILES[rel])) for rel in chosen)


@pytest.mark.parametrize("relpaths, message", [
    (["missing.bin"], "missing.bin is not a file"),
    (["../model/config.json"], "not a relative file path"),
    (["/etc/passwd"], "not a relative file path"),
    (["config.json", "config.json"], "listed twice: config.json"),
    ([], "no files to sign"),
])
def test_bad_file_lists_are_refused(model, key_file, relpaths, message):
    with pytest.raises(signing.SignatureError, match=message):
        signing.sign_files(model, relpaths, key_file, "m")


def test_another_key_is_refused(model, key_file, other_key):
    signature = signing.sign_files(model, None, key_file, "m")
    with pytest.raises(signing.SignatureError, match="made by another key"):
        signing.verified_files(signature, public_pem(other_key))


def test_signed_by_another_key_but_naming_ours_is_refused(model, key, other_key):
    """The bundle's key hint is only a hint: the signature itself is checked."""
    ours = json.loads(signing.sign_files(model, None, private_pem(key), "m"))
    forged = reencode(signing.sign_files(model, None, private_pem(other_key), "m"),
                      lambda b: b["verificationMaterial"].update(ours["verificationMaterial"]))
    with pytest.raises(signing.SignatureError, match="does not verify with this public key"):
        signing.verified_files(forged, public_pem(key))


# --- tampered or malformed signatures -----------------------------------------------------------

def tamper_digest(bundle):
    payload = payload_of(bundle)
    payload["predicate"]["resources"][0]["digest"] = "0" * 64
    set_payload(bundle, payload)


def tamper_digest_and_root(bundle):
    """A consistent statement (root digest recomputed) that the key never signed."""
    payload = payload_of(bundle)
    payload["predicate"]["resources"][0]["digest"] = "0" * 64
    root = hashlib.sha256(b"".join(bytes.fromhex(r["digest"]) for r in payload["predicate"]["resources"]))
    payload["subject"][0]["digest"]["sha256"] = root.hexdigest()
    set_payload(bundle, payload)


def tamper_signature(bundle):
    sig = bytearray(base64.b64decode(bundle["dsseEnvelope"]["signatures"][0]["sig"]))
    sig[-1] ^= 1
    bundle["dsseEnvelope"]["signatures"][0]["sig"] = base64.b64encode(bytes(sig)).decode()


@pytest.mark.parametrize("change, message", [
    (tamper_digest, "does not verify"),
    (tamper_digest_and_root, "does not verify"),
    (tamper_signature, "does not verify"),
    (lambda b: b["dsseEnvelope"].update(signatures=[]), "refused"),
    (lambda b: b.update(mediaType="application/vnd.dev.sigstore.bundle+json;version=0.2"), "media type"),
    (lambda b: b.update(mediaType="text/plain"), "mediaType"),
    (lambda b: b["verificationMaterial"].pop("publicKey"), "names no public key"),
    (lambda b: b.pop("dsseEnvelope"), "refused"),
], ids=["resource-digest", "resource-and-root-digest", "signature-bytes", "no-signatures", "media-type", "not-a-bundle-type",
        "no-key-hint", "no-envelope"])
def test_a_tampered_bundle_is_refused(model, key_file, key, change, message):
    signature = reencode(signing.sign_files(model, None, key_file, "m"), change)
    with pytest.raises(signing.SignatureError, match=message):
        signing.verified_files(signature, public_pem(key))


@pytest.mark.parametrize("signature", [b"", b"not json", b"[]", b"{}", b'{"verificationMaterial": 1}'])
def test_malformed_signatures_are_refused(key, signature):
    with pytest.raises(signing.SignatureError):
        signing.verified_files(signature, public_pem(key))


def test_a_per_shard_signature_is_refused(model, key):
    """Shard digests are not layer digests: such a signature cannot be checked against a manifest."""
    from model_signing import hashing
    from model_signing._signing import signing as ms_signing
    manifest = hashing.Config().use_shard_serialization(shard_size=1024).hash(model)
    bundle = signing._KeySigner(key).sign(ms_signing.Payload(manifest)).bundle.to_json()
    with pytest.raises(signing.SignatureError, match="not whole files with sha256"):
        signing.verified_files(bundle, public_pem(key))


# --- the signature against an artifact -----------------------------------------------------------

def test_both_manifest_formats_give_the_same_files():
    files = expected_files()
    assert signing.artifact_files(old_manifest(files)) == files
    assert signing.artifact_files(modelpack_manifest(files)) == files


@pytest.mark.parametrize("make", [old_manifest, modelpack_manifest], ids=["old", "modelpack"])
def test_a_matching_artifact_has_no_problems(model, key_file, key, make):
    signed = signing.verified_files(signing.sign_files(model, None, key_file, "m"), public_pem(key))
    assert signing.compare(signed, signing.artifact_files(make(expected_files()))) == []


def test_a_file_altered_after_signing_is_named(model, key_file, key):
    signed = signing.verified_files(signing.sign_files(model, None, key_file, "m"), public_pem(key))
    with open(os.path.join(model, "model.safetensors"), "ab") as handle:
        handle.write(b"!")
    artifact = dict(expected_files(), **{"model.safetensors": sha(FILES["model.safetensors"] + b"!")})
    problems = signing.compare(signed, signing.artifact_files(modelpack_manifest(artifact)))
    assert problems == ["model.safetensors: the artifact has %s, the signature %s"
                        % (artifact["model.safetensors"], sha(FILES["model.safetensors"]))]


def test_files_missing_on_either_side_are_named():
    signed = expected_files()
    artifact = dict(signed)
    del artifact["1_Pooling/config.json"]
    artifact["extra.bin"] = sha(b"extra")
    assert signing.compare(signed, artifact) == [
        "1_Pooling/config.json: signed (%s) but not in the artifact" % signed["1_Pooling/config.json"],
        "extra.bin: in the artifact (%s) but not in the signature" % artifact["extra.bin"],
    ]


def set_layer(manifest, index, **fields):
    manifest["layers"][index].update(fields)
    return manifest


@pytest.mark.parametrize("manifest, message", [
    ({"layers": []}, "no layers"),
    ("not a dict", "no layers"),
    (set_layer(modelpack_manifest(expected_files()), 0, mediaType="application/vnd.cncf.model.weight.v1.tar"),
     r"\.gitattributes is a application/vnd\.cncf\.model\.weight\.v1\.tar layer, not a raw file layer"),
    (set_layer(modelpack_manifest(expected_files()), 1, annotations={}), "layer 1 of the ModelPack manifest has no"),
    (set_layer(modelpack_manifest(expected_files()), 1, digest="sha512:ab"), "has digest 'sha512:ab'"),
    (set_layer(modelpack_manifest(expected_files()), 1, annotations={"org.cncf.model.filepath": "../x"}),
     "not a relative file path"),
    (set_layer(old_manifest(expected_files()), 1, annotations={"org.opencontainers.image.title": "x/y"}),
     "layer x/y is not models--"),
    (set_layer(old_manifest(expected_files()), 1, annotations={}), "layer 1 has neither"),
    (set_layer(old_manifest(expected_files()), 1, annotations={
        "org.opencontainers.image.title": "%s/snapshots/%s/other.json" % (REPO_FOLDER, "d" * 40)}),
     "several snapshots"),
    (set_layer(old_manifest(expected_files()), 2, annotations={
        "org.opencontainers.image.title": "%s/snapshots/%s/config.json" % (REPO_FOLDER, COMMIT)}),
     "config.json is in the manifest twice"),
    ({"layers": old_manifest({})["layers"]}, "no file layers"),
])
def test_manifests_of_neither_shape_are_refused(manifest, message):
    with pytest.raises(signing.SignatureError, match=message):
        signing.artifact_files(manifest)


# --- keys stay out of messages -------------------------------------------------------------------

def pem_lines(pem):
    return [line for line in pem.decode().splitlines() if line and not line.startswith("-----")]


def assert_no_key_in(message, *pems):
    for pem in pems:
        for line in pem_lines(pem):
            assert line not in message


def test_keys_never_appear_in_messages(model, tmp_path, key, other_key):
    secret = private_pem(key)
    bad_keys = {
        "truncated": secret[:len(secret) // 2],
        "rsa": rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
        "encrypted": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.BestAvailableEncryption(b"pass")),
        "public-not-private": public_pem(key),
        "curve": ec.generate_private_key(ec.SECP256K1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    }
    messages = []
    for name, pem in bad_keys.items():
        path = tmp_path / name
        path.write_bytes(pem)
        for given in (pem, str(path)):
            with pytest.raises(signing.SignatureError) as raised:
                signing.sign_files(model, None, given, "m")
            messages.append(str(raised.value))
            assert_no_key_in(str(raised.value), pem, secret)
    # the private key given where the public key goes, a wrong key, a tampered bundle
    signature = signing.sign_files(model, None, secret, "m")
    for public, sig in ((secret, signature), (public_pem(other_key), signature),
                        (public_pem(key), reencode(signature, tamper_signature))):
        with pytest.raises(signing.SignatureError) as raised:
            signing.verified_files(sig, public)
        messages.append(str(raised.value))
        assert_no_key_in(str(raised.value), secret, private_pem(other_key))
    assert len(set(messages)) > 3  # the messages say different things
