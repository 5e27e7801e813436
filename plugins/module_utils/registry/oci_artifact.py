# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Hugging Face snapshot as one OCI artifact, pushed with the oras CLI.

One layer per file, titled with its path relative to the hub cache root:
``models--<org>--<name>/refs/main`` (the commit hash) and
``models--<org>--<name>/snapshots/<commit>/<file>``.  ``oras pull`` in an
empty ``hub/`` directory therefore yields a cache huggingface_hub resolves
offline.  The manifest is reproducible (fixed creation annotation, sorted
layers): the same files give the same digest wherever they are pushed from.
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

ARTIFACT_TYPE = "application/vnd.ai-platform.hf-model.v1"
LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar"
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


def plan_layers(repo_id, commit, files):
    """Desired layers, sorted by title: dicts with title, digest, size and source path (None for refs/main)."""
    ref_content = commit.encode("ascii")
    layers = [{"title": refs_title(repo_id), "digest": "sha256:" + hashlib.sha256(ref_content).hexdigest(),
               "size": len(ref_content), "path": None}]
    for entry in files:
        layers.append({"title": snapshot_title(repo_id, commit, entry.relpath),
                       "digest": "sha256:" + entry.sha256, "size": entry.size, "path": entry.path})
    return sorted(layers, key=lambda layer: layer["title"])


def manifest_layers(manifest):
    """The (title, digest, size) triples of a fetched manifest, sorted by title."""
    found = []
    for layer in manifest.get("layers") or []:
        title = (layer.get("annotations") or {}).get(TITLE)
        found.append((title, layer.get("digest"), layer.get("size")))
    return sorted(found, key=lambda item: item[0] or "")


def compare(manifest, layers, annotations):
    """Differences between a remote manifest (or None) and the desired artifact.

    Returns a dict: added / removed / changed titles and ``metadata`` (bool);
    ``same`` is True when nothing differs.
    """
    want = dict((layer["title"], (layer["digest"], layer["size"])) for layer in layers)
    have = {}
    if manifest is not None:
        have = dict((title, (digest, size)) for title, digest, size in manifest_layers(manifest))
    added = sorted(set(want) - set(have))
    removed = sorted(set(have) - set(want))
    changed = sorted(t for t in set(want) & set(have) if want[t] != have[t])
    metadata = manifest is None or (
        manifest.get("artifactType") != ARTIFACT_TYPE
        or any((manifest.get("annotations") or {}).get(k) != v for k, v in annotations.items()))
    return {"added": added, "removed": removed, "changed": changed, "metadata": bool(metadata),
            "same": not (added or removed or changed or metadata)}


def build_staging(staging_dir, repo_id, commit, layers):
    """Lay the layers out below ``staging_dir`` as symlinks (no copies) plus the refs/main file."""
    for layer in layers:
        target = os.path.join(staging_dir, *layer["title"].split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            os.remove(target)
        if layer["path"] is None:
            with open(target, "w") as handle:
                handle.write(commit)
        else:
            os.symlink(layer["path"], target)
    return staging_dir


def remote_args(auth_config, ca_file=None, plain_http=False, insecure=False):
    args = ["--registry-config", auth_config]
    if ca_file:
        args += ["--ca-file", ca_file]
    if plain_http:
        args.append("--plain-http")
    if insecure:
        args.append("--insecure")
    return args


def push_argv(oras, reference, layers, annotations, concurrency, remote):
    """``oras push`` command; each file carries an explicit media type so a ':' in a name is safe."""
    argv = [oras, "push", reference, "--artifact-type", ARTIFACT_TYPE, "--concurrency", str(concurrency)]
    for key in sorted(annotations):
        argv += ["--annotation", "%s=%s" % (key, annotations[key])]
    argv += remote
    argv += ["%s:%s" % (layer["title"], LAYER_MEDIA_TYPE) for layer in layers]
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
