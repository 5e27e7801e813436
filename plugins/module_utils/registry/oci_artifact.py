# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Hugging Face snapshot as one OCI artifact, pushed with the oras CLI, in one of two formats.

``modelpack`` (the default): a CNCF ModelPack artifact (model-spec v1). One raw layer per file
(``application/vnd.cncf.model.{weight,weight.config,doc,code}.v1.raw``), titled and annotated
(``org.cncf.model.filepath``) with its path in the snapshot; artifact type
``application/vnd.cncf.model.manifest.v1+json``; a config (``application/vnd.cncf.model.config.v1+json``)
with the repo id and commit, the architecture and precision of ``config.json``, and the layer digests as
``modelfs.diffIds``. Any ModelPack client pulls the model's files; the pull Job lays them out as
``models--<org>--<name>/snapshots/<commit>/<file>`` and writes ``refs/main`` itself.

``hf-cache`` (the format published before ModelPack): one layer per file, titled with its path relative
to the hub cache root: ``models--<org>--<name>/refs/main`` (the commit hash) and
``models--<org>--<name>/snapshots/<commit>/<file>``, so ``oras pull`` in an empty ``hub/`` directory
yields a cache huggingface_hub resolves offline.

Either way the manifest is reproducible (fixed creation annotation, sorted layers, a canonical config):
the same files give the same digest wherever they are pushed from, and a file already in the registry
(the same blob in either format) is never sent again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import subprocess
import time

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import repo_folder

FORMAT_MODELPACK = "modelpack"
FORMAT_HF_CACHE = "hf-cache"
FORMATS = (FORMAT_MODELPACK, FORMAT_HF_CACHE)

# hf-cache, the format published before ModelPack
ARTIFACT_TYPE = "application/vnd.ai-platform.hf-model.v1"
LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar"
# CNCF ModelPack (modelpack/model-spec, specs-go/v1)
MODELPACK_ARTIFACT_TYPE = "application/vnd.cncf.model.manifest.v1+json"
MODELPACK_CONFIG_TYPE = "application/vnd.cncf.model.config.v1+json"
WEIGHT = "application/vnd.cncf.model.weight.v1.raw"
WEIGHT_CONFIG = "application/vnd.cncf.model.weight.config.v1.raw"
DOC = "application/vnd.cncf.model.doc.v1.raw"
CODE = "application/vnd.cncf.model.code.v1.raw"
# the raw layer types a pull lays out as files (tar layers would need unpacking: refused)
MODELPACK_RAW_TYPES = (WEIGHT, WEIGHT_CONFIG, DOC, CODE, "application/vnd.cncf.model.dataset.v1.raw")
FILEPATH = "org.cncf.model.filepath"
TITLE = "org.opencontainers.image.title"
CREATED = "org.opencontainers.image.created"
FIXED_CREATED = "1970-01-01T00:00:00Z"
REPO_ANNOTATION = "dev.ai-platform.serving.hf.repo-id"
REVISION_ANNOTATION = "dev.ai-platform.serving.hf.revision"


def refs_title(repo_id):
    return "%s/refs/main" % repo_folder(repo_id)


def snapshot_title(repo_id, commit, relpath):
    return "%s/snapshots/%s/%s" % (repo_folder(repo_id), commit, relpath)


def manifest_annotations(repo_id, commit):
    return {CREATED: FIXED_CREATED, REPO_ANNOTATION: repo_id, REVISION_ANNOTATION: commit}


WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth", ".gguf", ".onnx", ".h5", ".msgpack", ".ckpt", ".tflite",
                   ".ot", ".npz")
DOC_NAMES = ("readme", "license", "licence", "notice", "copying", "model_card", "use_policy")


def modelpack_media_type(relpath):
    """The ModelPack raw layer type of one snapshot file: weights, code, docs, else weight config (configs,
    tokenizer and vocabulary files)."""
    name = relpath.rsplit("/", 1)[-1].lower()
    if name.endswith(WEIGHT_SUFFIXES):
        return WEIGHT
    if name.endswith(".py"):
        return CODE
    if name.endswith(".md") or name.split(".", 1)[0] in DOC_NAMES:
        return DOC
    return WEIGHT_CONFIG


def plan_layers(repo_id, commit, files, fmt=FORMAT_HF_CACHE):
    """Desired layers, sorted by title: dicts with title, digest, size, media_type and source path.

    hf-cache titles are hub cache paths and add the refs/main layer (path None); ModelPack titles are the
    files' paths in the snapshot, each with its ``org.cncf.model.filepath`` annotation."""
    layers = []
    if fmt == FORMAT_HF_CACHE:
        ref_content = commit.encode("ascii")
        layers.append({"title": refs_title(repo_id), "digest": "sha256:" + hashlib.sha256(ref_content).hexdigest(),
                       "size": len(ref_content), "path": None, "media_type": LAYER_MEDIA_TYPE})
    for entry in files:
        if fmt == FORMAT_HF_CACHE:
            layers.append({"title": snapshot_title(repo_id, commit, entry.relpath), "media_type": LAYER_MEDIA_TYPE,
                           "digest": "sha256:" + entry.sha256, "size": entry.size, "path": entry.path})
        else:
            layers.append({"title": entry.relpath, "media_type": modelpack_media_type(entry.relpath),
                           "digest": "sha256:" + entry.sha256, "size": entry.size, "path": entry.path})
    return sorted(layers, key=lambda layer: layer["title"])


def _config_fields(layers):
    """Architecture, precision and weight format from the snapshot's top-level config.json (if readable)."""
    fields = {}
    weights = [layer["title"] for layer in layers if layer["media_type"] == WEIGHT]
    if any(title.endswith(".safetensors") for title in weights):
        fields["format"] = "safetensors"
    elif any(title.endswith(".gguf") for title in weights):
        fields["format"] = "gguf"
    elif weights:
        fields["format"] = weights[0].rsplit(".", 1)[-1]
    source = [layer["path"] for layer in layers if layer["title"] == "config.json" and layer["path"]]
    try:
        with open(source[0], "rb") as handle:
            config = json.loads(handle.read().decode("utf-8"))
    except (IndexError, IOError, OSError, ValueError):
        return fields
    if not isinstance(config, dict):
        return fields
    architectures = config.get("architectures")
    if isinstance(architectures, list) and architectures and isinstance(architectures[0], str):
        fields["architecture"] = architectures[0]
    precision = config.get("torch_dtype") or config.get("dtype")
    if isinstance(precision, str):
        fields["precision"] = precision
    return fields


def modelpack_config(repo_id, commit, layers):
    """The ModelPack config blob (canonical JSON bytes): descriptor, config and the layers' diffIds in
    manifest order (a raw layer's diffId is its digest)."""
    document = {
        "descriptor": {"name": repo_id, "revision": commit, "sourceURL": "https://huggingface.co/%s" % repo_id},
        "config": _config_fields(layers),
        "modelfs": {"type": "layers", "diffIds": [layer["digest"] for layer in layers]},
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":")).encode("utf-8")


def plan(repo_id, commit, files, fmt=FORMAT_MODELPACK):
    """Everything a push of one snapshot needs and a comparison checks: format, layers, manifest annotations,
    artifact type and (ModelPack) the config bytes and digest."""
    if fmt not in FORMATS:
        raise ValueError("artifact format %r is not one of %s" % (fmt, ", ".join(FORMATS)))
    layers = plan_layers(repo_id, commit, files, fmt)
    result = {"format": fmt, "layers": layers, "annotations": manifest_annotations(repo_id, commit),
              "artifact_type": ARTIFACT_TYPE, "config": None, "config_digest": None,
              "repo_id": repo_id, "commit": commit}
    if fmt == FORMAT_MODELPACK:
        config = modelpack_config(repo_id, commit, layers)
        result.update(artifact_type=MODELPACK_ARTIFACT_TYPE, config=config,
                      config_digest="sha256:" + hashlib.sha256(config).hexdigest())
    return result


def manifest_layers(manifest):
    """The (title, digest, size) triples of a fetched manifest, sorted by title."""
    found = []
    for layer in manifest.get("layers") or []:
        title = (layer.get("annotations") or {}).get(TITLE)
        found.append((title, layer.get("digest"), layer.get("size")))
    return sorted(found, key=lambda item: item[0] or "")


def _layer_facts(manifest):
    """title -> (digest, size, media type, filepath annotation) of a fetched manifest's layers."""
    facts = {}
    for layer in manifest.get("layers") or []:
        annotations = layer.get("annotations") or {}
        facts[annotations.get(TITLE)] = (layer.get("digest"), layer.get("size"), layer.get("mediaType"),
                                         annotations.get(FILEPATH))
    return facts


def compare(manifest, artifact):
    """Differences between a remote manifest (or None) and the desired artifact (a ``plan``).

    Returns a dict: added / removed / changed titles and ``metadata`` (bool: artifact type, config,
    annotations, or a layer's media type differ, as when the format changes); ``same`` is True when
    nothing differs.
    """
    modelpack = artifact["format"] == FORMAT_MODELPACK
    want = dict((layer["title"], (layer["digest"], layer["size"])) for layer in artifact["layers"])
    have = {}
    facts = {}
    if manifest is not None:
        facts = _layer_facts(manifest)
        have = dict((title, fact[:2]) for title, fact in facts.items())
    added = sorted(set(want) - set(have))
    removed = sorted(set(have) - set(want))
    changed = sorted(t for t in set(want) & set(have) if want[t] != have[t])
    layer_metadata = any(
        facts[layer["title"]][2] != layer["media_type"]
        or (modelpack and facts[layer["title"]][3] != layer["title"])
        for layer in artifact["layers"] if layer["title"] in facts)
    metadata = manifest is None or layer_metadata or (
        manifest.get("artifactType") != artifact["artifact_type"]
        or (modelpack and (manifest.get("config") or {}).get("digest") != artifact["config_digest"])
        or any((manifest.get("annotations") or {}).get(k) != v for k, v in artifact["annotations"].items()))
    return {"added": added, "removed": removed, "changed": changed, "metadata": bool(metadata),
            "same": not (added or removed or changed or metadata)}


def build_staging(work_dir, artifact):
    """Lay the layers out below ``<work_dir>/files`` as symlinks (no copies) plus, for hf-cache, the
    refs/main file; write the ModelPack config and annotation file beside it. Returns the staging dir
    (where oras runs) and the extra ``oras push`` arguments."""
    staging_dir = os.path.join(work_dir, "files")
    os.makedirs(staging_dir, exist_ok=True)
    for layer in artifact["layers"]:
        target = os.path.join(staging_dir, *layer["title"].split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            os.remove(target)
        if layer["path"] is None:
            with open(target, "w") as handle:
                handle.write(artifact["commit"])
        else:
            os.symlink(layer["path"], target)
    if artifact["format"] != FORMAT_MODELPACK:
        args = []
        for key in sorted(artifact["annotations"]):
            args += ["--annotation", "%s=%s" % (key, artifact["annotations"][key])]
        return staging_dir, args
    config_path = os.path.join(work_dir, "modelpack-config.json")
    with open(config_path, "wb") as handle:
        handle.write(artifact["config"])
    # oras reads per-file annotations from one file keyed by title; "$manifest" holds the manifest's
    notes = dict((layer["title"], {FILEPATH: layer["title"]}) for layer in artifact["layers"])
    notes["$manifest"] = artifact["annotations"]
    notes_path = os.path.join(work_dir, "annotations.json")
    with open(notes_path, "w") as handle:
        json.dump(notes, handle, sort_keys=True)
    return staging_dir, ["--config", "%s:%s" % (config_path, MODELPACK_CONFIG_TYPE), "--annotation-file", notes_path]


def remote_args(auth_config, ca_file=None, plain_http=False, insecure=False):
    args = ["--registry-config", auth_config]
    if ca_file:
        args += ["--ca-file", ca_file]
    if plain_http:
        args.append("--plain-http")
    if insecure:
        args.append("--insecure")
    return args


def push_argv(oras, reference, artifact, staging_args, concurrency, remote):
    """``oras push`` command; each file carries an explicit media type so a ':' in a name is safe."""
    argv = [oras, "push", reference, "--artifact-type", artifact["artifact_type"], "--concurrency", str(concurrency)]
    argv += staging_args + remote
    argv += ["%s:%s" % (layer["title"], layer["media_type"]) for layer in artifact["layers"]]
    return argv


def fetch_argv(oras, reference, remote):
    return [oras, "manifest", "fetch", reference] + remote


def parse_push_line(line):
    """``Uploaded  1a2b3c title`` -> ("Uploaded", "title"); None for other lines."""
    words = line.split(None, 2)
    if len(words) == 3 and words[0] in ("Uploading", "Uploaded", "Exists", "Skipped"):
        return words[0], words[2].strip()
    return None


def parse_push_digest(output):
    for line in output.splitlines():
        if line.startswith("Digest: sha256:"):
            return line.split(None, 1)[1].strip()
    return None


class Progress:
    """Writes one line per finished layer (and the running totals) to a progress file."""

    def __init__(self, path, layers):
        self.path = path
        self.sizes = dict((layer["title"], layer["size"]) for layer in layers)
        self.total = sum(self.sizes.values())
        self.done_bytes = 0
        self.done_files = 0
        self.uploaded = []
        self.existed = []
        self.started = time.monotonic()
        self.handle = open(path, "a") if path else None
        self.write("start: %d files, %d bytes" % (len(self.sizes), self.total))

    def write(self, text):
        if self.handle:
            self.handle.write("%s %s\n" % (time.strftime("%H:%M:%S"), text))
            self.handle.flush()

    def line(self, line):
        parsed = parse_push_line(line)
        if parsed is None or parsed[1] not in self.sizes:
            return
        status, title = parsed
        if status == "Uploading":
            self.write("sending %s (%d bytes)" % (title, self.sizes[title]))
            return
        (self.uploaded if status == "Uploaded" else self.existed).append(title)
        self.done_files += 1
        self.done_bytes += self.sizes[title]
        elapsed = max(time.monotonic() - self.started, 1e-6)
        self.write("%s %s: %d/%d files, %d/%d bytes (%.0f%%), %.1f MB/s"
                   % (status.lower(), title, self.done_files, len(self.sizes), self.done_bytes,
                      self.total, 100.0 * self.done_bytes / max(self.total, 1),
                      self.done_bytes / elapsed / 1e6))

    def close(self, result):
        self.write("end: %s" % result)
        if self.handle:
            self.handle.close()


def run_streaming(argv, cwd, on_line):
    """Run a command, feeding each stdout/stderr line to ``on_line``; return (rc, output).

    AnsibleModule.run_command returns output only at the end; a push of many GiB
    needs its progress while it runs.
    """
    # pylint: disable-next=ansible-bad-function  # run_command returns the output only at the end (see above)
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, universal_newlines=True, env=registry.go_http1_env())
    lines = []
    for line in proc.stdout:
        lines.append(line)
        on_line(line)
    return proc.wait(), "".join(lines)


def load_manifest(text):
    try:
        return json.loads(text)
    except ValueError:
        return None
