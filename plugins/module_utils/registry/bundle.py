# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One air-gap bundle: images, charts and models in one directory, listed in ``bundle.lock.yml``.

Layout of a bundle directory::

    images/<archive>.tar          OCI archives (skopeo), manifest digest preserved
    charts/<name>-<version>.tgz   Helm chart tarballs
    models/<artifact>/            one OCI image layout per model, tagged with the model's tag, holding
                                  exactly the artifact model_sync pushes (built with model_sync's code
                                  and oras, so the manifest digest is the same)
    bundle.lock.yml               every item: kind, name, source, path, digest, size, sha256

The internet side saves each item (``save_*``) and skips one whose digest did not change; the
air-gapped side checks every item against the lock (``verify``) before the first push, then pushes
each (``push_*``), skipping digests the registry already holds. ``verify(deep=False)`` reads no blob
of a model or image: it checks that every file is there with the lock's size, that a model's manifest
has the lock's digest and lists the lock's blobs, and hashes the charts (small); the content of every
other blob is then verified once, while it is pushed, by the registry (an upload whose bytes do not
match its digest is refused, so no manifest naming it is pushed) or, for images, by skopeo as it reads
the archive. ``verify(deep=True)`` hashes every blob first (one more read of the bundle). ``split``/``join`` cut the bundle into
parts of a given size for removable media, each with its sha256.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import re
import shutil
import tarfile
import tempfile
import time

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import model_signatures, signing
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive, oci_artifact
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import hash_file

LOCK_NAME = "bundle.lock.yml"
LOCK_VERSION = 1
PARTS_NAME = "parts.yml"
REF_NAME = "org.opencontainers.image.ref.name"
KINDS = ("image", "chart", "model")


class BundleError(Exception):
    """A bundle is incomplete, corrupted or cannot be written; the message names the item."""


def sha256_file(path):
    return "sha256:" + hash_file(path)[0]


def item_path(kind, name):
    """The path of an item below the bundle directory."""
    return {"image": "images/%s", "chart": "charts/%s", "model": "models/%s"}[kind] % name


# --- OCI image layouts (a model) -------------------------------------------------------------

def blob_path(layout, digest):
    algorithm, encoded = digest.split(":", 1)
    return os.path.join(layout, "blobs", algorithm, encoded)


def layout_descriptor(layout, tag):
    """The index.json descriptor tagged ``tag`` in an OCI layout, or None."""
    try:
        with open(os.path.join(layout, "index.json")) as handle:
            index = json.load(handle)
    except (OSError, ValueError):
        return None
    for descriptor in index.get("manifests") or []:
        if (descriptor.get("annotations") or {}).get(REF_NAME) == tag:
            return descriptor
    return None


def layout_manifest(layout, tag):
    """(descriptor, manifest) of ``tag`` in the layout, (None, None) when absent or unreadable."""
    descriptor = layout_descriptor(layout, tag)
    if descriptor is None:
        return None, None
    try:
        with open(blob_path(layout, descriptor["digest"]), "rb") as handle:
            raw = handle.read()
    except (OSError, KeyError, ValueError):
        return None, None
    if oci_archive.sha256_bytes(raw) != descriptor["digest"]:
        return None, None
    return descriptor, oci_artifact.load_manifest(raw.decode("utf-8", "replace"))


def manifest_blobs(descriptor, manifest):
    """Every blob of a model artifact: the manifest, its config and its layers, as {digest, size, title}."""
    blobs = [{"digest": descriptor["digest"], "size": descriptor["size"], "title": "manifest"}]
    config = manifest.get("config") or {}
    if config.get("digest"):
        blobs.append({"digest": config["digest"], "size": config.get("size"), "title": "config"})
    for layer in manifest.get("layers") or []:
        blobs.append({"digest": layer["digest"], "size": layer["size"],
                      "title": (layer.get("annotations") or {}).get(oci_artifact.TITLE)})
    return blobs


def blobs_checksum(blobs):
    """The sha256 of a model item: over its blobs' ``digest size`` lines, sorted (each blob is content-addressed)."""
    text = "".join("%s %s\n" % (blob["digest"], blob["size"]) for blob in sorted(blobs, key=lambda b: b["digest"]))
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def blob_problems(layout, blobs, deep):
    """Missing, short or (``deep``) corrupted blobs of a layout, one line each."""
    problems = []
    for blob in blobs:
        path = blob_path(layout, blob["digest"])
        label = "%s (%s)" % (blob["title"], blob["digest"])
        if not os.path.isfile(path):
            problems.append("%s is missing" % label)
        elif os.path.getsize(path) != blob["size"]:
            problems.append("%s has %d bytes, not %d" % (label, os.path.getsize(path), blob["size"]))
        elif deep and sha256_file(path) != blob["digest"]:
            problems.append("%s does not match its digest (corrupted)" % label)
    return problems


def prune_layout(layout, keep):
    """Remove the blobs of a layout that ``keep`` (digests) does not name; return the bytes freed."""
    freed = 0
    root = os.path.join(layout, "blobs", "sha256")
    for name in os.listdir(root) if os.path.isdir(root) else []:
        if "sha256:" + name not in keep:
            path = os.path.join(root, name)
            freed += os.path.getsize(path)
            os.remove(path)
    return freed


def _only_tag(layout, tag, digest):
    """Leave one descriptor in index.json: ``tag`` at ``digest`` (oras keeps an untagged older one)."""
    path = os.path.join(layout, "index.json")
    with open(path) as handle:
        index = json.load(handle)
    index["manifests"] = [d for d in index.get("manifests") or []
                          if d.get("digest") == digest and (d.get("annotations") or {}).get(REF_NAME) == tag]
    with open(path, "w") as handle:
        json.dump(index, handle, sort_keys=True)


def model_record(params, layout, descriptor, manifest, commit, file_count):
    blobs = manifest_blobs(descriptor, manifest)
    return dict(kind="model", name=params["name"], source="%s@%s" % (params["repo_id"], commit),
                path=item_path("model", params["name"]), digest=descriptor["digest"],
                size=sum(blob["size"] for blob in blobs), sha256=blobs_checksum(blobs),
                repo_id=params["repo_id"], revision=commit, reference=params["reference"],
                tag=registry.parse_reference(params["reference"]).tag, file_count=file_count, blobs=blobs)


def save_model(params, check_mode):
    """Write the model_sync artifact of one model into ``<bundle>/models/<name>`` (an OCI layout).

    model_sync's own code collects and verifies the files and plans the layers; oras writes the
    manifest exactly as it does for a registry push. Nothing is written when the layout already
    holds that artifact (same layers and metadata, every blob present).
    """
    started = time.monotonic()
    ref = registry.parse_reference(params["reference"])
    if ref.digest or not ref.tag:
        raise registry.RegistryError("reference %s must name a tag (host/project/name:tag)" % params["reference"])
    commit, files = model_sync.collect(params, check_mode)
    artifact = oci_artifact.plan(params["repo_id"], commit, files, params["artifact_format"])
    layers = artifact["layers"]
    layout = os.path.join(params["bundle_dir"], item_path("model", params["name"]))
    descriptor, manifest = layout_manifest(layout, ref.tag)
    difference = oci_artifact.compare(manifest, artifact)
    same = difference["same"] and not blob_problems(layout, manifest_blobs(descriptor, manifest), deep=False)
    result = dict(changed=not same, written_bytes=0)
    if same:
        result["entry"] = model_record(params, layout, descriptor, manifest, commit, len(files))
        signature = model_signature(params, layout, manifest, files, commit, check_mode)
        if signature:
            result["entry"]["signature"] = signature
            result["changed"] = signature.pop("written")
    elif not check_mode:
        before = set(os.listdir(os.path.join(layout, "blobs", "sha256"))) \
            if os.path.isdir(os.path.join(layout, "blobs", "sha256")) else set()
        work = tempfile.mkdtemp(prefix="aips-bundle-", dir=params["work_dir"])
        progress = oci_artifact.Progress(params["progress_file"], layers)
        try:
            staging, staging_args = oci_artifact.build_staging(work, artifact)
            argv = oci_artifact.push_argv(params["oras_path"], "%s:%s" % (layout, ref.tag), artifact, staging_args,
                                          params["concurrency"], ["--oci-layout"])
            rc, out = oci_artifact.run_streaming(argv, staging, progress.line)
            if rc != 0:
                progress.close("failed")
                raise BundleError("oras could not write %s into %s: %s"
                                  % (params["repo_id"], layout, out.strip().splitlines()[-1] if out.strip() else rc))
            progress.close("written %s" % oci_artifact.parse_push_digest(out))
        finally:
            shutil.rmtree(work, ignore_errors=True)
        descriptor, manifest = layout_manifest(layout, ref.tag)
        if manifest is None or not oci_artifact.compare(manifest, artifact)["same"]:
            raise BundleError("%s: the layout %s does not hold the planned layers after oras wrote it"
                              % (params["name"], layout))
        _only_tag(layout, ref.tag, descriptor["digest"])
        record = model_record(params, layout, descriptor, manifest, commit, len(files))
        prune_layout(layout, set(blob["digest"] for blob in record["blobs"]))
        signature = model_signature(params, layout, manifest, files, commit, check_mode)
        if signature:
            signature.pop("written")
            record["signature"] = signature
        result["written_bytes"] = sum(blob["size"] for blob in record["blobs"]
                                      if blob["digest"].split(":", 1)[1] not in before)
        result["entry"] = record
    result["duration"] = round(time.monotonic() - started, 1)
    return result


# --- images and charts ------------------------------------------------------------------------

def model_signature(params, layout, manifest, files, commit, check_mode):
    """With ``signing_key``: the model's signature beside its layout (``<layout>/model.sigstore.json``), kept when
    the one there still holds for this key and these files, else made anew. Returns the lock entry's
    ``signature`` (file, size, sha256, and ``written``), or None without a key."""
    if not params.get("signing_key"):
        return None
    path = os.path.join(layout, model_signatures.SIGNATURE_FILE)
    try:
        public_key = signing.public_pem(params["signing_key"])
    except signing.SignatureError as exc:
        raise BundleError("%s: signing_key: %s" % (params["name"], exc.reason))
    signature = None
    if os.path.isfile(path):
        with open(path, "rb") as handle:
            signature = handle.read()
        if model_signatures.check(manifest, signature, public_key):
            signature = None
    written = signature is None
    if written and check_mode:
        return dict(file=model_signatures.SIGNATURE_FILE, size=0, sha256=None, written=True)
    if written:
        try:
            signature = model_signatures.sign(files, params["signing_key"],
                                              model_signatures.model_name(params["repo_id"], commit), params["work_dir"])
        except signing.SignatureError as exc:
            raise BundleError("%s: signing failed: %s" % (params["name"], exc.reason))
        with open(path + ".tmp", "wb") as handle:
            handle.write(signature)
        os.rename(path + ".tmp", path)
    return dict(file=model_signatures.SIGNATURE_FILE, size=len(signature),
                sha256="sha256:" + hashlib.sha256(signature).hexdigest(), written=written)


def signature_problems(bundle_dir, item, public_key=None):
    """Problems of a model item's signature: its file against the lock (size, sha256), and with ``public_key``
    whether it verifies and signs exactly the files of the item's manifest (read from the layout)."""
    signature = item.get("signature")
    if not signature:
        return []
    layout = os.path.join(bundle_dir, item["path"])
    path = os.path.join(layout, signature.get("file") or model_signatures.SIGNATURE_FILE)
    if not os.path.isfile(path):
        return ["its signature %s is missing" % signature.get("file")]
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) != signature.get("size") or "sha256:" + hashlib.sha256(data).hexdigest() != signature.get("sha256"):
        return ["its signature %s is not the one the lock names (size or sha256 differ)" % signature.get("file")]
    if not public_key:
        return []
    _descriptor, manifest = layout_manifest(layout, item.get("tag"))
    return ["signature: %s" % problem for problem in model_signatures.check(manifest or {}, data, public_key)]


def file_record(kind, name, source, path, bundle_dir, digest):
    full = os.path.join(bundle_dir, path)
    return dict(kind=kind, name=name, source=source, path=path, digest=digest,
                size=os.path.getsize(full), sha256=sha256_file(full))


def save_image(params, check_mode, skopeo):
    """An image into ``<bundle>/images/<archive>`` (oci_archive.save_image), compared by digest with its source."""
    path = item_path("image", params["archive_name"])
    saved = oci_archive.save_image(dict(params, archive=os.path.join(params["bundle_dir"], path), force=False,
                                        compare_source=True), check_mode, skopeo)
    result = dict(changed=saved["changed"], written_bytes=0)
    if saved["digest"] and not (check_mode and saved["changed"]):
        source = params["source_ref"] or "docker://" + params["image"]
        result["entry"] = file_record("image", params["image"], source, path, params["bundle_dir"], saved["digest"])
        result["entry"].update(project=params["project"], image_path=params["image_path"])
        if saved["changed"]:
            result["written_bytes"] = result["entry"]["size"]
    return result


def save_chart(params, check_mode, helm_run):
    """A chart into ``<bundle>/charts/<name>-<version>.tgz``: copied from ``source_dir`` or pulled with helm."""
    archive_name = oci_archive.chart_archive_name(params["name"], params["version"])
    path = item_path("chart", archive_name)
    target = os.path.join(params["bundle_dir"], path)
    result = dict(changed=False, written_bytes=0)
    if params["source_dir"]:
        source = os.path.join(params["source_dir"], archive_name)
        if not os.path.isfile(source):
            raise BundleError("chart %s %s: %s does not exist (chart source directory %s)"
                              % (params["name"], params["version"], archive_name, params["source_dir"]))
        want = sha256_file(source)
        if params["digest"] and want != params["digest"]:
            raise BundleError("chart %s: %s has digest %s, not the pinned %s"
                              % (params["name"], source, want, params["digest"]))
        have = sha256_file(target) if os.path.isfile(target) else None
        if have != want:
            result["changed"] = True
            if not check_mode:
                os.makedirs(os.path.dirname(target), exist_ok=True)
                shutil.copyfile(source, target + ".partial")
                os.rename(target + ".partial", target)
        origin = source
    else:
        saved = oci_archive.save_chart(dict(params, destination=os.path.dirname(target), force=False),
                                       check_mode, helm_run)
        result["changed"] = saved["changed"]
        origin = params["chart"] + ("" if not params["repo_url"] else " (%s)" % params["repo_url"])
    if os.path.isfile(target):
        result["entry"] = file_record("chart", params["name"], origin, path, params["bundle_dir"], None)
        result["entry"].update(digest=result["entry"]["sha256"], version=params["version"], project=params["project"])
        if result["changed"]:
            result["written_bytes"] = result["entry"]["size"]
    return result


# --- the lock file ---------------------------------------------------------------------------

def lock_document(items):
    """The bundle lock: items sorted by kind and name, with totals (no time stamps: a re-run writes the same)."""
    ordered = sorted(items, key=lambda item: (KINDS.index(item["kind"]), item["name"]))
    return {"bundle_version": LOCK_VERSION, "items": ordered,
            "total": {"items": len(ordered), "size": sum(item["size"] for item in ordered)}}


def _item_label(item):
    return "%s %s" % (item.get("kind", "item"), item.get("name", "?"))


def manifest_problem(layout, tag, item):
    """Why the manifest tagged ``tag`` in a model's layout is not the lock's (its bytes, its blobs), or None."""
    descriptor, manifest = layout_manifest(layout, tag)
    if manifest is None:
        return "the manifest blob %s is missing, short or does not match its digest (corrupted)" % item["digest"]
    listed = sorted((blob["digest"], blob["size"]) for blob in manifest_blobs(descriptor, manifest))
    if listed != sorted((blob["digest"], blob["size"]) for blob in item["blobs"]):
        return "its manifest %s lists other blobs than the lock" % item["digest"]
    return None


def verify_item(bundle_dir, item, deep=True):
    """Problems of one item against its lock entry, each naming the item.

    ``deep=False`` hashes no model blob and no image archive (see the module docstring); charts are hashed
    either way.
    """
    label = _item_label(item)
    path = os.path.join(bundle_dir, item["path"])
    if item["kind"] == "model":
        tag = item.get("tag")
        descriptor = layout_descriptor(path, tag) if os.path.isdir(path) else None
        if descriptor is None:
            return ["%s: %s holds no manifest tagged %s (missing or damaged layout)" % (label, item["path"], tag)]
        if descriptor.get("digest") != item["digest"]:
            return ["%s: %s is tagged %s at %s, the lock says %s" % (label, item["path"], tag, descriptor.get("digest"),
                                                                     item["digest"])]
        problem = manifest_problem(path, tag, item)
        if problem:
            return ["%s: %s" % (label, problem)]
        problems = blob_problems(path, item["blobs"], deep)
        if not problems and blobs_checksum(item["blobs"]) != item["sha256"]:
            problems.append("its blob list does not match the lock's sha256 %s" % item["sha256"])
        problems.extend(signature_problems(bundle_dir, item))
        return ["%s: %s" % (label, problem) for problem in problems]
    if not os.path.isfile(path):
        return ["%s: %s is missing" % (label, item["path"])]
    size = os.path.getsize(path)
    if size != item["size"]:
        return ["%s: %s has %d bytes, the lock says %d" % (label, item["path"], size, item["size"])]
    if deep or item["kind"] == "chart":
        got = sha256_file(path)
        if got != item["sha256"]:
            return ["%s: %s has sha256 %s, the lock says %s (corrupted)" % (label, item["path"], got, item["sha256"])]
    return []


def verify(bundle_dir, lock, deep=True, public_key=None, require_signed=False):
    """Every problem of the bundle (items missing, short or, ``deep``, corrupted), or [] when all hold.

    With ``public_key`` each model's signature must verify and sign exactly its manifest's files; with
    ``require_signed`` a model without one is a problem, and model blobs are hashed (``deep``) so a blob
    altered after signing is refused here, before the first push.
    """
    if not isinstance(lock, dict) or lock.get("bundle_version") != LOCK_VERSION:
        return ["%s: not a bundle lock of version %d" % (os.path.join(bundle_dir, LOCK_NAME), LOCK_VERSION)]
    if require_signed and not public_key:
        return ["aips_require_signed is true but no public key is set: give the site's signing public key (PEM) "
                "as aips_signing_public_key"]
    problems = []
    for item in lock.get("items") or []:
        if item.get("kind") not in KINDS or not item.get("path") or ".." in item["path"].split("/"):
            problems.append("%s: malformed lock entry" % _item_label(item))
            continue
        model = item["kind"] == "model"
        found = verify_item(bundle_dir, item, deep or (model and require_signed))
        if model and not found and public_key:
            if not item.get("signature") and require_signed:
                found = ["%s: it is not signed (bundle it with aips_signing_key), or set aips_require_signed: false"
                         % _item_label(item)]
            elif item.get("signature"):
                found = ["%s: %s" % (_item_label(item), problem)
                         for problem in signature_problems(bundle_dir, item, public_key)]
        problems.extend(found)
    return problems


# --- loading into a registry -----------------------------------------------------------------

def refused_blobs(item, output):
    """The blobs of a model item that ``output`` (oras's) names by digest, in the lock's order."""
    named = set(re.findall(r"sha256:[0-9a-f]{64}", output))
    return [blob for blob in item["blobs"] if blob["digest"] in named]


def push_failure(layout, item, output, message):
    """The message of a failed ``oras cp``: each blob oras names that does not match its digest, then oras's words.

    Only the named blobs are hashed (a failed load of a large model does not read it all again).
    """
    corrupted = [blob for blob in refused_blobs(item, output)
                 if blob_problems(layout, [blob], deep=True)]
    if not corrupted:
        return message
    return ("%s in %s does not match its digest (corrupted in the bundle): the registry refused it, no manifest "
            "naming it was pushed and the tag did not move; %s"
            % (", ".join("blob %s (%s)" % (blob["title"], blob["digest"]) for blob in corrupted), item["path"], message))


def push_model(params, check_mode):
    """A model's layout -> its Harbor reference with ``oras cp`` (manifest bytes and digest kept).

    Nothing is sent when the tag already points at the lock's digest. oras sends only the blobs the
    repository lacks, each read once from the layout; the registry checks each upload against its digest
    and oras pushes the manifest after its blobs, so a corrupted blob fails the copy before the tag moves
    (``push_failure`` names it).
    """
    item = params["item"]
    layout = os.path.join(params["bundle_dir"], item["path"])
    remote_params = dict(reference=params["reference"], ca_file=params["ca_file"], plain_http=params["plain_http"],
                         insecure=False, validate_certs=params.get("validate_certs", True),
                         registry_username=params["username"], registry_password=params["password"],
                         oras_path=params["oras_path"])
    ref = registry.parse_reference(params["reference"])
    credentials = {ref.registry: (params["username"], params["password"])}
    result = dict(changed=False, digest=item["digest"], reference=params["reference"], sent_bytes=0,
                  repo_id=item["repo_id"], revision=item["revision"], file_count=item["file_count"],
                  # model_sync's size: the layers (files and refs/main), not the manifest and config
                  size=sum(b["size"] for b in item["blobs"] if b["title"] not in ("manifest", "config")))
    with registry.AuthDir(credentials) as auth:
        remote = model_sync.Remote(remote_params, auth)
        descriptor, _manifest = remote.fetch(params["reference"])
        result["previous_digest"] = descriptor["digest"] if descriptor else None
        if descriptor and descriptor["digest"] == item["digest"]:
            if item.get("signature") and not check_mode:
                result["signature"] = attach_bundle_signature(params, remote, layout, item)
                result["changed"] = result["signature"]["attached"]
            return result
        result["changed"] = True
        if check_mode:
            return result
        to_args = ["--to-registry-config", auth.config]
        if params["ca_file"]:
            to_args += ["--to-ca-file", params["ca_file"]]
        if params["plain_http"]:
            to_args.append("--to-plain-http")
        argv = [params["oras_path"], "cp", "--from-oci-layout", "%s:%s" % (layout, item["tag"]),
                params["reference"]] + to_args
        rc, out = remote.run(argv)
        if rc != 0:
            raise registry.RegistryError(push_failure(layout, item, out, remote.fail_message(out)))
        after, _manifest = remote.fetch(params["reference"])
        if not after or after["digest"] != item["digest"]:
            raise registry.RegistryError("%s points at %s after the copy, not the bundle's %s"
                                         % (params["reference"], after and after["digest"], item["digest"]))
        if item.get("signature"):
            result["signature"] = attach_bundle_signature(params, remote, layout, item)
    result["sent_bytes"] = item["size"]
    return result


def attach_bundle_signature(params, remote, layout, item):
    """Attach the model's signature from the bundle to its digest in the registry, unless that very signature
    is attached already. Returns dict(digest=<signature artifact>, attached=bool)."""
    pinned = registry.pinned(params["reference"], item["digest"])
    for referrer, layer in remote.signatures(pinned):
        if layer == item["signature"]["sha256"]:
            return dict(digest=referrer, attached=False)
    return dict(digest=remote.attach(pinned, layout), attached=True)


# --- parts for removable media ---------------------------------------------------------------

def _bundle_members(bundle_dir):
    """The files of a bundle, sorted, relative to it (the lock last, so a partial join lacks it)."""
    members = []
    for dirpath, dirnames, filenames in os.walk(bundle_dir):
        dirnames.sort()
        for name in sorted(filenames):
            rel = os.path.relpath(os.path.join(dirpath, name), bundle_dir)
            if rel != LOCK_NAME and not rel.endswith(".partial"):
                members.append(rel)
    return members + [LOCK_NAME]


class _PartWriter:
    """A file-like object that cuts what is written into parts of ``size`` bytes."""

    def __init__(self, directory, size):
        self.directory = directory
        self.size = size
        self.parts = []
        self.handle = None
        self.hasher = None
        self.left = 0

    def _next(self):
        self._close_part()
        name = "bundle.part%03d" % len(self.parts)
        self.handle = open(os.path.join(self.directory, name + ".partial"), "wb")
        self.hasher = hashlib.sha256()
        self.parts.append({"name": name, "size": 0})
        self.left = self.size

    def _close_part(self):
        if self.handle:
            self.handle.close()
            os.rename(self.handle.name, self.handle.name[:-len(".partial")])
            self.parts[-1]["sha256"] = "sha256:" + self.hasher.hexdigest()
            self.handle = None

    def write(self, data):
        view = memoryview(data)
        while len(view):
            if self.handle is None or self.left == 0:
                self._next()
            chunk = view[:self.left]
            self.handle.write(chunk)
            self.hasher.update(chunk)
            self.parts[-1]["size"] += len(chunk)
            self.left -= len(chunk)
            view = view[len(chunk):]
        return len(data)

    def close(self):
        self._close_part()


def read_parts_index(parts_dir):
    path = os.path.join(parts_dir, PARTS_NAME)
    if not os.path.isfile(path):
        return None
    try:
        return safe_yaml.load_file(path)
    except safe_yaml.YamlFileError as exc:
        raise BundleError(str(exc))


def split(bundle_dir, parts_dir, size, check_mode=False):
    """Cut the bundle into ``parts_dir/bundle.partNNN`` of ``size`` bytes (a tar stream) plus parts.yml.

    Unchanged (nothing written) when parts.yml records the same lock sha256 and part size and every part
    is there with its size.
    """
    import yaml
    lock_sha = sha256_file(os.path.join(bundle_dir, LOCK_NAME))
    index = read_parts_index(parts_dir)
    if index and index.get("lock_sha256") == lock_sha and index.get("part_size") == size and not part_problems(
            parts_dir, index, deep=False):
        return dict(changed=False, parts=index["parts"], written_bytes=0)
    if check_mode:
        return dict(changed=True, parts=[], written_bytes=0)
    os.makedirs(parts_dir, exist_ok=True)
    for name in os.listdir(parts_dir):
        if name.startswith("bundle.part") or name == PARTS_NAME:
            os.remove(os.path.join(parts_dir, name))
    writer = _PartWriter(parts_dir, size)
    with tarfile.open(fileobj=writer, mode="w|", format=tarfile.PAX_FORMAT) as tar:
        for rel in _bundle_members(bundle_dir):
            info = tar.gettarinfo(os.path.join(bundle_dir, rel), arcname=rel)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            with open(os.path.join(bundle_dir, rel), "rb") as handle:
                tar.addfile(info, handle)
    writer.close()
    index = {"bundle_version": LOCK_VERSION, "lock_sha256": lock_sha, "part_size": size, "parts": writer.parts}
    with open(os.path.join(parts_dir, PARTS_NAME), "w") as handle:
        yaml.safe_dump(index, handle, default_flow_style=False, sort_keys=True)
    return dict(changed=True, parts=writer.parts, written_bytes=sum(part["size"] for part in writer.parts))


def part_problems(parts_dir, index, deep=True):
    problems = []
    for part in (index or {}).get("parts") or []:
        path = os.path.join(parts_dir, part["name"])
        if not os.path.isfile(path):
            problems.append("part %s is missing" % part["name"])
        elif os.path.getsize(path) != part["size"]:
            problems.append("part %s has %d bytes, parts.yml says %d"
                            % (part["name"], os.path.getsize(path), part["size"]))
        elif deep and sha256_file(path) != part["sha256"]:
            problems.append("part %s does not match its sha256 %s (corrupted)" % (part["name"], part["sha256"]))
    return problems


class _PartReader:
    """The parts, read one after the other as one stream."""

    def __init__(self, parts_dir, parts):
        self.paths = [os.path.join(parts_dir, part["name"]) for part in parts]
        self.handle = None

    def read(self, size=-1):
        while True:
            if self.handle is None:
                if not self.paths:
                    return b""
                self.handle = open(self.paths.pop(0), "rb")
            data = self.handle.read(size)
            if data:
                return data
            self.handle.close()
            self.handle = None


def join(parts_dir, bundle_dir, check_mode=False):
    """Verify every part against parts.yml, then unpack them into ``bundle_dir``; raise naming bad parts."""
    index = read_parts_index(parts_dir)
    if index is None:
        raise BundleError("%s has no %s: not a split bundle" % (parts_dir, PARTS_NAME))
    problems = part_problems(parts_dir, index)
    if problems:
        raise BundleError("the bundle parts in %s are not intact, nothing was loaded: %s"
                          % (parts_dir, "; ".join(problems)))
    lock = os.path.join(bundle_dir, LOCK_NAME)
    if os.path.isfile(lock) and sha256_file(lock) == index["lock_sha256"]:
        return dict(changed=False, parts=index["parts"])
    if check_mode:
        return dict(changed=True, parts=index["parts"])
    os.makedirs(bundle_dir, exist_ok=True)
    with tarfile.open(fileobj=_PartReader(parts_dir, index["parts"]), mode="r|") as tar:
        for member in tar:
            if not member.isfile() or member.name.startswith("/") or ".." in member.name.split("/"):
                raise BundleError("the bundle parts hold an unexpected entry %r" % member.name)
            tar.extract(member, bundle_dir, set_attrs=False, **_EXTRACT_FILTER)
    return dict(changed=True, parts=index["parts"])


# Python 3.12+ (and the 3.11 security releases) filter what tarfile extracts; the "data" filter refuses
# what the check above refuses and more. Older Pythons have no filter argument (and warn on 3.12+ without it).
_EXTRACT_FILTER = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}


# --- writing and reading the lock ------------------------------------------------------------

def dump_lock(document):
    import yaml
    header = ("# Written by playbooks/bundle.yml (ai_platform.serving.bundle_lock); do not edit by hand.\n"
              "# Every item of this bundle: kind, name, source, path, digest, size, sha256.\n")
    return header + yaml.safe_dump(document, default_flow_style=False, sort_keys=True)


def read_lock(bundle_dir):
    path = os.path.join(bundle_dir, LOCK_NAME)
    if not os.path.isfile(path):
        raise BundleError("%s is missing: not a bundle directory (or the bundle was not joined from its parts)" % path)
    try:
        return safe_yaml.load_file(path)
    except safe_yaml.YamlFileError as exc:
        raise BundleError(str(exc))


def stale_paths(bundle_dir, items):
    """Files and model layouts under images/, charts/, models/ that no item names."""
    named = set(item["path"] for item in items)
    stale = []
    for top in ("images", "charts", "models"):
        root = os.path.join(bundle_dir, top)
        for name in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            if "%s/%s" % (top, name) not in named:
                stale.append("%s/%s" % (top, name))
    return stale


def write_lock(bundle_dir, items, prune=True, check_mode=False):
    """Write bundle.lock.yml when its content differs; remove what no item names (``prune``)."""
    text = dump_lock(lock_document(items))
    path = os.path.join(bundle_dir, LOCK_NAME)
    old = None
    if os.path.isfile(path):
        with open(path) as handle:
            old = handle.read()
    removed = stale_paths(bundle_dir, items) if prune else []
    changed = old != text or bool(removed)
    if changed and not check_mode:
        for rel in removed:
            full = os.path.join(bundle_dir, rel)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.remove(full)
        with open(path + ".partial", "w") as handle:
            handle.write(text)
        os.rename(path + ".partial", path)
    return dict(changed=changed, lock_file=path, removed=removed, lock_changed=old != text)
