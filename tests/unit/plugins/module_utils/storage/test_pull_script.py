# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pull Job's shell script, run by busybox sh against a stand-in ``oras`` on PATH.

The stand-in copies a prepared hub tree (``pull``) and prints a prepared manifest
(``manifest fetch``), so the script's own logic is checked here: the marker only
after verification, the fast path on a matching marker, a fresh pull into a
clean directory when the digest changed, exit 42 on permanent errors, exit 1 on
transient ones. The real oras and registry are exercised on the lab
(tests/integration/model_storage).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution, oci_artifact
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker, pull_script, settled
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import hf_cache

FAKE_ORAS = r"""#!/bin/sh
echo "$*" >>"$FAKE_DIR/calls"
case "$FAKE_FAIL" in
  auth) echo "Error: failed to resolve: unauthorized: authentication required" >&2; exit 1 ;;
  down) echo "Error: GET sha256:0401aa403b: dial tcp 10.0.0.1:443: connect: connection refused" >&2; exit 1 ;;
esac
if [ "$1" = pull ] && [ "$FAKE_FAIL" = full ]; then
  echo "Error: write model.safetensors: no space left on device" >&2; exit 1
fi
if [ "$1" = pull ] && [ -n "$FAKE_SLOW" ]; then
  # one file every FAKE_SLOW seconds, as a slow registry would deliver them
  (cd "$FAKE_DIR/src" && find . -type f | sort) | while read -r f; do
    mkdir -p "$(dirname "$f")"; cp "$FAKE_DIR/src/$f" "$f"; sleep "$FAKE_SLOW"
  done
fi
if [ "$1" = pull ] && [ -n "$FAKE_STALL" ]; then
  # as oras writes in place: every file but the largest in full, the largest half-written for FAKE_STALL seconds
  big=$(cd "$FAKE_DIR/src" && find . -type f -exec stat -c '%s %n' {} + | sort -n | tail -n 1 | cut -d' ' -f2-)
  (cd "$FAKE_DIR/src" && find . -type f) | while read -r f; do
    [ "$f" = "$big" ] && continue
    mkdir -p "$(dirname "$f")"; cp "$FAKE_DIR/src/$f" "$f"
  done
  mkdir -p "$(dirname "$big")"
  head -c $(($(stat -c %s "$FAKE_DIR/src/$big") / 2)) "$FAKE_DIR/src/$big" >"$big"
  sleep "$FAKE_STALL"
  cp "$FAKE_DIR/src/$big" "$big"
  exit 0
fi
if [ "$1" = pull ]; then
  cp -R "$FAKE_DIR/src/." .
  if [ -n "$FAKE_CORRUPT" ]; then echo corrupted >>"$FAKE_CORRUPT"; fi
  exit 0
fi
if [ "$1 $2" = "blob fetch" ]; then
  # blob fetch --output <file> <repo>@<digest>: the file of src/ with that digest
  [ "$FAKE_FAIL" = full ] && { echo "Error: write $4: no space left on device" >&2; exit 1; }
  want="${5#*@sha256:}"
  found=$(cd "$FAKE_DIR/src" && find . -type f -exec sha256sum {} + | awk -v w="$want" '$1 == w { print $2; exit }')
  [ -n "$found" ] || { echo "Error: $5: not found" >&2; exit 1; }
  cp "$FAKE_DIR/src/$found" "$4"
  if [ "$FAKE_CORRUPT" = "$4" ]; then echo corrupted >>"$4"; fi
  exit 0
fi
if [ "$1 $2" = "manifest fetch" ]; then
  # the script's three go-templates: the manifest's type and revision, each layer's filepath, the layer list
  case "$3 $4" in
    --format*artifactType*) cat "$FAKE_DIR/head.txt" ;;
    --format*org.cncf.model.filepath*) cat "$FAKE_DIR/filepaths.txt" ;;
    --format*) cat "$FAKE_DIR/layers.txt" ;;
    *) cat "$FAKE_DIR/manifest.json" ;;
  esac
  exit 0
fi
echo "unexpected oras call: $*" >&2
exit 3
"""

REPO = "models--sentence-transformers--all-MiniLM-L6-v2"
COMMIT = "c9745ed1d9f207416be6d2e6f8de32d1f16199bf"


LAYER_TYPE = "application/vnd.oci.image.layer.v1.tar"


def _write_src(fake_dir, files):
    """src/ afresh: each file (title -> bytes) where oras would pull it; the (title, bytes) pairs sorted by title."""
    src = os.path.join(fake_dir, "src")
    shutil.rmtree(src, ignore_errors=True)
    for title, content in sorted(files.items()):
        path = os.path.join(src, title)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(content)
    return sorted(files.items())


def _artifact(fake_dir, files, media_types=None, unpack=None):
    """Write src/ (the files as oras would pull them), manifest.json and layers.txt; return the digest.

    layers.txt is what ``oras manifest fetch --format go-template`` prints for the script's template:
    digest, size, media type, ``unpack=<annotation>`` and the title. ``media_types`` / ``unpack`` map a
    title to another media type or an unpack annotation.
    """
    layers = []
    for title, content in _write_src(fake_dir, files):
        annotations = {"org.opencontainers.image.title": title}
        if (unpack or {}).get(title):
            annotations["io.deis.oras.content.unpack"] = unpack[title]
        layers.append({"mediaType": (media_types or {}).get(title, LAYER_TYPE), "size": len(content),
                       "digest": "sha256:" + hashlib.sha256(content).hexdigest(), "annotations": annotations})
    return _write_manifest(fake_dir, {"schemaVersion": 2, "artifactType": "application/vnd.ai-platform.hf-model.v1",
                                      "layers": layers})


def _write_manifest(fake_dir, manifest):
    """manifest.json and what the script's go-templates print of it (head.txt, filepaths.txt, layers.txt)."""
    body = json.dumps(manifest, sort_keys=True).encode()
    with open(os.path.join(fake_dir, "manifest.json"), "wb") as handle:
        handle.write(body)
    revision = (manifest.get("annotations") or {}).get("dev.ai-platform.serving.hf.revision", "")
    with open(os.path.join(fake_dir, "head.txt"), "w") as handle:
        handle.write("%s rev=%s\n" % (manifest.get("artifactType") or "none", revision))
    with open(os.path.join(fake_dir, "filepaths.txt"), "w") as handle:
        handle.write("".join("%s\n" % layer["annotations"].get(FILEPATH, "") for layer in manifest["layers"]))
    with open(os.path.join(fake_dir, "layers.txt"), "w") as handle:
        for layer in manifest["layers"]:
            annotations = layer["annotations"]
            handle.write("%s %d %s unpack=%s %s\n" % (
                layer["digest"], layer["size"], layer["mediaType"],
                annotations.get("io.deis.oras.content.unpack", ""),
                annotations.get("org.opencontainers.image.title", "")))
    return "sha256:" + hashlib.sha256(body).hexdigest()


FILEPATH = "org.cncf.model.filepath"
WEIGHT = "application/vnd.cncf.model.weight.v1.raw"
WEIGHT_CONFIG = "application/vnd.cncf.model.weight.config.v1.raw"


def _modelpack(fake_dir, files, revision=COMMIT, media_types=None, filepaths=None):
    """A ModelPack artifact of the snapshot ``files`` (path in the snapshot -> bytes), as model_sync publishes it
    (``revision`` None: as another client does, without the collection's revision annotation). ``media_types`` /
    ``filepaths`` map a title to another media type or filepath annotation. src/ holds what oras pull writes."""
    layers = []
    for title, content in _write_src(fake_dir, files):
        kind = WEIGHT if title.endswith(".safetensors") else WEIGHT_CONFIG
        layers.append({"mediaType": (media_types or {}).get(title, kind), "size": len(content),
                       "digest": "sha256:" + hashlib.sha256(content).hexdigest(),
                       "annotations": {"org.opencontainers.image.title": title,
                                       FILEPATH: (filepaths or {}).get(title, title)}})
    manifest = {"schemaVersion": 2, "artifactType": "application/vnd.cncf.model.manifest.v1+json",
                "config": {"mediaType": "application/vnd.cncf.model.config.v1+json", "size": 2,
                           "digest": "sha256:" + hashlib.sha256(b"{}").hexdigest()}, "layers": layers}
    if revision:
        manifest["annotations"] = {"dev.ai-platform.serving.hf.revision": revision,
                                   "dev.ai-platform.serving.hf.repo-id": "sentence-transformers/all-MiniLM-L6-v2"}
    return _write_manifest(fake_dir, manifest)


def snapshot_files(files, commit=COMMIT):
    """The snapshot files of an hf-cache file map, by their path in the snapshot."""
    prefix = "%s/snapshots/%s/" % (REPO, commit)
    return dict((k[len(prefix):], v) for k, v in files.items() if k.startswith(prefix))


def model_files(weights=b"weights-v1", commit=COMMIT):
    snap = "%s/snapshots/%s/" % (REPO, commit)
    config = json.dumps({"architectures": ["BertModel"], "model_type": "bert", "torch_dtype": "float32",
                         "transformers_version": "4.8.2", "hidden_size": 384}, indent=2).encode()
    return {
        REPO + "/refs/main": commit.encode(),
        snap + "config.json": config,
        snap + "1_Pooling/config.json": b'{"model_type": "pooling-not-top-level"}',
        snap + "model.safetensors": weights,
    }


def transfers(pod):
    """The oras calls of the last run that move files (pull, blob fetch), not the manifest fetches."""
    return [c for c in pod.calls() if c.startswith(("pull ", "blob "))]


class Pod(object):
    def __init__(self, tmp_path):
        self.root = tmp_path
        self.cache = tmp_path / "model-cache"
        self.fake = tmp_path / "fake"
        (self.cache / "hub").mkdir(parents=True)
        bindir = tmp_path / "bin"
        bindir.mkdir()
        self.fake.mkdir()
        oras = bindir / "oras"
        oras.write_text(FAKE_ORAS)
        oras.chmod(0o755)
        self.tmpdir = tmp_path / "scratch"
        self.tmpdir.mkdir()
        self.path = "%s:%s" % (bindir, os.environ["PATH"])
        self.termlog = tmp_path / "termination-log"

    def run(self, digest, **fake):
        env = {"PATH": self.path, "FAKE_DIR": str(self.fake), "FAKE_FAIL": fake.get("fail", ""),
               "FAKE_CORRUPT": fake.get("corrupt", ""),
               "AIPS_CACHE_DIR": str(self.cache), "AIPS_WORKING_DIR": str(self.cache / "hub"),
               "AIPS_MARKER": str(self.cache / ".pulled"), "AIPS_DIGEST": digest,
               "AIPS_PINNED_REFERENCE": "harbor.example/ai-models/minilm@" + digest,
               "AIPS_SOURCE_REFERENCE": "harbor.example/ai-models/minilm:" + fake.get("tag", "v1"),
               "AIPS_REPO_FOLDER": fake.get("folder", REPO),
               "AIPS_EXPECTED_SIZE": "0", "AIPS_CONCURRENCY": "2", "AIPS_VERIFY": fake.get("verify", "1"),
               "AIPS_TERMINATION_LOG": str(self.termlog), "TMPDIR": str(self.tmpdir),
               "AIPS_TEST_FREE_BYTES": fake.get("free_bytes", ""), "FAKE_SLOW": fake.get("slow", ""),
               "AIPS_PROGRESS_SECONDS": fake.get("progress", ""), "FAKE_STALL": fake.get("stall", "")}
        if self.termlog.exists():
            self.termlog.unlink()
        (self.fake / "calls").write_text("")
        return subprocess.run([shutil.which("busybox"), "sh", "-c", pull_script.PULL_SCRIPT], cwd=str(self.cache / "hub"),
                              env=env, capture_output=True, text=True, check=False)

    def marker(self):
        path = self.cache / ".pulled"
        return pull_marker.parse_marker(path.read_text()) if path.exists() else None

    def report(self):
        return pull_marker.parse_marker(self.termlog.read_text()) if self.termlog.exists() else None

    def calls(self):
        return (self.fake / "calls").read_text().splitlines()


@pytest.fixture
def pod(tmp_path):
    if not shutil.which("busybox"):
        raise RuntimeError("busybox is needed to run the pull script as the ORAS image does (apt-get install busybox-static)")
    return Pod(tmp_path)


def test_fresh_pull_writes_marker_after_verification(pod):
    digest = _artifact(str(pod.fake), model_files())
    proc = pod.run(digest)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    marker = pod.marker()
    # files= counts refs/main too (the reuse check compares it with the claim), model_files= the model's files
    assert marker["digest"] == digest and marker["files"] == 4 and marker["model_files"] == 3
    assert marker["size"] == sum(len(v) for v in model_files().values())
    assert marker["architectures"] == ["BertModel"] and marker["model_type"] == "bert"
    assert marker["torch_dtype"] == "float32" and marker["transformers_version"] == "4.8.2"
    assert pod.report()["status"] == "ok" and pod.report()["digest"] == digest
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT
    assert sorted(os.listdir(str(pod.cache))) == [".pulled", ".revisions", "hub"]
    assert records(pod) == layer_lists(pod) == [digest[len("sha256:"):]]
    # the first pull takes the fast path: one oras pull, everything over the wire
    assert [c.split()[0] for c in transfers(pod)] == ["pull"]
    assert (marker["fetched_bytes"], marker["fetched_files"], marker["reused_files"]) == (marker["size"], 3, 0)


def test_a_slow_pull_logs_progress_lines_with_bytes_rate_eta_and_files(pod):
    files = model_files()
    files[REPO + "/snapshots/" + COMMIT + "/model.safetensors"] = b"w" * (3 * 1024 * 1024)
    digest = _artifact(str(pod.fake), files)
    proc = pod.run(digest, slow="1", progress="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("model-pull: progress: ")]
    assert len(lines) >= 3, proc.stdout
    assert all(" of 3.0 MiB (" in line and "/s, ETA " in line and " of 3 files" in line for line in lines), lines
    assert "model-pull: pulled 3.0 MiB in " in proc.stdout
    assert pod.marker()["digest"] == digest


def test_progress_counts_the_files_finished_not_the_files_started(pod):
    """oras creates a file when its download starts and writes it in place: a half-written file is no finished one."""
    files = model_files()
    files[REPO + "/snapshots/" + COMMIT + "/model.safetensors"] = b"w" * (2 * 1024 * 1024)
    files[REPO + "/snapshots/" + COMMIT + "/tokenizer config.json"] = b"{}"   # a title with a space
    digest = _artifact(str(pod.fake), files)
    proc = pod.run(digest, stall="3", progress="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.startswith("model-pull: progress: ")]
    under_way = [line for line in lines if "(100%)" not in line]
    assert under_way, proc.stdout
    # every file is on disk from the start; only the three small model files are finished while the weights are half
    # there (refs/main is no model file)
    assert all(line.endswith(", 3 of 4 files") for line in under_way), lines
    assert pod.marker()["digest"] == digest and pod.marker()["files"] == 5


def test_one_artifact_has_one_file_count_wherever_a_user_reads_it(pod, tmp_path):
    """Issue 26: model_sync's file_count, the lock file's (the manifest's snapshot layers), the pull's log lines, the
    wait's result, the claim's annotations, the cache listing and a settled model's report name one count, the
    model's files (refs/main is a layer, not a model file). The marker keeps files= with refs/main for the reuse
    check, so a marker written before model_files= is still reused, and shows the same count."""
    snapshot = "%s/snapshots/%s/" % (REPO, COMMIT)
    local = tmp_path / "model"
    for title, content in model_files().items():
        if title.startswith(snapshot):
            path = local / title[len(snapshot):]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
    entries = hf_cache.plain_directory(str(local))        # model_sync's source=local_dir: file_count is len(entries)
    layers = oci_artifact.plan_layers("sentence-transformers/all-MiniLM-L6-v2", COMMIT, entries)
    assert sorted(layer["title"] for layer in layers) == sorted(model_files())    # the artifact model_sync pushes
    contents = {}
    for layer in layers:
        if layer["path"] is None:
            contents[layer["title"]] = COMMIT.encode()
        else:
            with open(layer["path"], "rb") as handle:
                contents[layer["title"]] = handle.read()
    digest = _artifact(str(pod.fake), contents)
    lock_count = distribution.summarize((pod.fake / "manifest.json").read_bytes(), digest)["file_count"]
    count = len(entries)
    assert count == lock_count == 3

    proc = pod.run(digest, slow="1", progress="1")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "(%d files, " % count in [line for line in proc.stdout.splitlines() if " pulling " in line][0]
    assert "model-pull: verified %d files, " % count in proc.stdout
    progress = [line for line in proc.stdout.splitlines() if line.startswith("model-pull: progress: ")]
    assert progress and all(line.endswith(" of %d files" % count) for line in progress), progress
    report = pod.report()
    assert report["model_files"] == count and report["files"] == count + 1
    assert pull_marker.model_file_count(report) == count                   # model_pull_wait's files
    annotations = pull_marker.pvc_annotations(report)
    assert annotations["ai-platform.serving/files"] == annotations["ai-platform.serving/model-files"] == str(count)
    claim = {"metadata": {"annotations": annotations}}
    assert pull_marker.claim_pull_record(claim)["files"] == count          # playbooks/cache.yml
    assert settled.settled_result(claim)["files"] == count                 # a settled model's report

    proc = pod.run(digest, fail="down")
    assert proc.returncode == 0 and "reusing the verified copy of %d files" % count in proc.stdout, proc.stdout

    # a marker written before model_files= (files= with refs/main): reused, and the same count shown
    legacy = "".join(line for line in (pod.cache / ".pulled").read_text().splitlines(True)
                     if not line.startswith("model_files="))
    (pod.cache / ".pulled").write_text(legacy)
    proc = pod.run(digest, fail="down")
    assert proc.returncode == 0 and pod.calls() == [], proc.stdout + proc.stderr
    assert "reusing the verified copy of %d files" % count in proc.stdout, proc.stdout
    report = pod.report()
    assert "model_files" not in report and report["reused"] == "true"
    assert pull_marker.pvc_annotations(report)["ai-platform.serving/files"] == str(count)
    assert pull_marker.model_file_count(report) == count


def test_matching_marker_finishes_at_once(pod):
    digest = _artifact(str(pod.fake), model_files())
    assert pod.run(digest).returncode == 0
    proc = pod.run(digest, fail="down")   # any oras call would fail now
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pod.calls() == []
    assert "nothing to pull" in proc.stdout
    assert pod.report()["digest"] == digest


def test_matching_marker_reports_the_reused_copy(pod):
    digest = _artifact(str(pod.fake), model_files())
    assert pod.run(digest).returncode == 0
    assert pod.report().get("reused") is None             # a pull is no reuse
    proc = pod.run(digest, fail="down")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "reusing the verified copy of 3 files" in proc.stdout
    report = pod.report()
    assert report["reused"] == "true" and report["status"] == "ok" and report["files"] == 4
    assert pull_marker.model_file_count(report) == 3


def test_matching_marker_with_missing_files_pulls_again(pod):
    digest = _artifact(str(pod.fake), model_files())
    assert pod.run(digest).returncode == 0
    (pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors").unlink()
    proc = pod.run(digest)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "has 2 of its 3 files" in proc.stdout and "pulling afresh" in proc.stdout
    assert pod.calls() and pod.report().get("reused") is None
    assert (pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors").read_bytes() == b"weights-v1"


def test_other_digest_pulls_afresh_into_a_clean_directory(pod):
    old = _artifact(str(pod.fake), model_files())
    assert pod.run(old).returncode == 0
    stray = pod.cache / "hub" / REPO / "snapshots" / COMMIT / "stale-only-in-v1.bin"
    stray.write_text("old")
    files = model_files(weights=b"weights-v2")
    new = _artifact(str(pod.fake), files)
    proc = pod.run(new)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pulling afresh" in proc.stdout
    assert pod.marker()["digest"] == new
    assert not stray.exists()
    weights = pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors"
    assert weights.read_bytes() == b"weights-v2"


def test_corrupted_file_fails_permanently_without_marker(pod):
    digest = _artifact(str(pod.fake), model_files())
    target = "%s/snapshots/%s/model.safetensors" % (REPO, COMMIT)
    proc = pod.run(digest, corrupt=target)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, proc.stdout + proc.stderr
    assert pod.marker() is None
    report = pod.report()
    assert report["status"] == "failed" and "model.safetensors holds" in report["reason"]


def test_wrong_manifest_digest_fails_permanently(pod):
    _artifact(str(pod.fake), model_files())
    proc = pod.run("sha256:" + "0" * 64)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE
    assert "the manifest's digest is" in pod.report()["reason"]
    assert pod.marker() is None


def test_auth_failure_is_permanent_and_outage_is_retried(pod):
    digest = _artifact(str(pod.fake), model_files())
    proc = pod.run(digest, fail="auth")
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE
    assert "unauthorized" in pod.report()["reason"]
    proc = pod.run(digest, fail="down")
    assert proc.returncode == 1
    assert "will retry" in pod.report()["reason"] and "connection refused" in pod.report()["reason"]
    assert pod.marker() is None


def test_failed_repull_keeps_no_stale_marker_but_old_copy(pod):
    old = _artifact(str(pod.fake), model_files())
    assert pod.run(old).returncode == 0
    new = _artifact(str(pod.fake), model_files(weights=b"weights-v2"))
    assert pod.run(new, fail="down").returncode == 1
    # the old marker still names the old digest, so nothing is taken for the new one
    assert pod.marker()["digest"] == old


def records(pod):
    """The revision records on the claim (one file per manifest digest; dot files are the script's own, <hex>.layers
    the layer list of a record)."""
    return sorted(name for name in os.listdir(str(pod.cache / ".revisions"))
                  if not name.startswith(".") and not name.endswith(".layers"))


def layer_lists(pod):
    """The revisions whose layer list is on the claim (<hex>.layers)."""
    return sorted(name[:-len(".layers")] for name in os.listdir(str(pod.cache / ".revisions")) if name.endswith(".layers"))


def tree(pod):
    """Every file under the claim with its bytes (what a failed pull must leave as it was)."""
    found = {}
    for dirpath, _dirs, files in os.walk(str(pod.cache)):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, str(pod.cache))] = handle.read()
    return found


@pytest.mark.parametrize("fault, fake, reason", [
    ("claim-full-before", {"free_bytes": "0"}, "not enough free space on the claim"),
    ("claim-full-during", {"fail": "full"}, "the claim is full (no space left on device)"),
])
def test_a_full_claim_fails_permanently_and_keeps_the_verified_copy(pod, fault, fake, reason):
    old = _artifact(str(pod.fake), model_files())
    assert pod.run(old).returncode == 0
    before = tree(pod)
    new = _artifact(str(pod.fake), model_files(weights=b"weights-v2" * 100))
    proc = pod.run(new, **fake)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, (fault, proc.stdout + proc.stderr)
    assert reason in pod.report()["reason"]
    after = tree(pod)
    # the verified copy and its marker, byte for byte; at most an empty staging directory beside them
    assert dict((k, v) for k, v in after.items() if not k.startswith(".pull-")) == before
    assert pod.marker()["digest"] == old


def test_free_space_message_names_needed_and_free(pod):
    digest = _artifact(str(pod.fake), model_files())
    proc = pod.run(digest, free_bytes="10")
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE
    reason = pod.report()["reason"]
    total = sum(len(v) for v in model_files().values())
    assert "the pull needs %d bytes (3 files, %d bytes, plus 1%%), 10 are free" % (total + total // 100, total) \
        in reason, reason
    assert "the claim is empty" in reason
    # nothing was written to the claim: the check runs before the pull
    assert "pull --concurrency" not in "\n".join(pod.calls())
    assert sorted(os.listdir(str(pod.cache))) == ["hub"]


@pytest.mark.parametrize("title, media_type, unpack, reason", [
    ("../escape.bin", None, None, "is not a plain relative path"),
    (REPO + "/snapshots/../../etc/x", None, None, "is not a plain relative path"),
    ("/etc/passwd", None, None, "is not a plain relative path"),
    (REPO + "//x", None, None, "is not a plain relative path"),
    ("elsewhere/file.bin", None, None, "is not a path of the Hugging Face hub cache"),
    (REPO + "/snapshots/%s/dir.tgz" % COMMIT, "application/vnd.oci.image.layer.v1.tar+gzip", None,
     "has media type application/vnd.oci.image.layer.v1.tar+gzip"),
    (REPO + "/snapshots/%s/dir" % COMMIT, None, "true", "carries the unpack annotation"),
])
def test_unsafe_layers_are_refused_before_any_byte_is_written(pod, title, media_type, unpack, reason):
    old = _artifact(str(pod.fake), model_files())
    assert pod.run(old).returncode == 0
    before = tree(pod)
    files = model_files(weights=b"weights-v2")
    files[title] = b"payload"
    digest = _artifact(str(pod.fake), files, media_types={title: media_type} if media_type else None,
                       unpack={title: unpack} if unpack else None)
    proc = pod.run(digest)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, proc.stdout + proc.stderr
    assert reason in pod.report()["reason"], pod.report()["reason"]
    assert not any(call.startswith("pull ") for call in pod.calls())
    assert tree(pod) == before


def test_fast_path_checks_bytes_not_only_the_file_count(pod):
    digest = _artifact(str(pod.fake), model_files())
    assert pod.run(digest).returncode == 0
    weights = pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors"
    weights.write_bytes(b"trunc")          # same file count, other size
    proc = pod.run(digest)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pulling afresh" in proc.stdout and pod.report().get("reused") is None
    assert weights.read_bytes() == b"weights-v1"


COMMIT_B = "b" * 40


def pulled_v1_then_v2(pod):
    """v1 (commit COMMIT) pulled, then v2 (another commit) pulled beside it; returns both digests."""
    v1 = _artifact(str(pod.fake), model_files())
    assert pod.run(v1).returncode == 0
    v2 = _artifact(str(pod.fake), model_files(weights=b"weights-v2", commit=COMMIT_B))
    proc = pod.run(v2, tag="v2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return v1, v2


def test_a_new_commit_is_pulled_beside_the_served_one_and_refs_main_switches_to_it(pod):
    v1, v2 = pulled_v1_then_v2(pod)
    snapshots = pod.cache / "hub" / REPO / "snapshots"
    assert sorted(os.listdir(str(snapshots))) == sorted([COMMIT, COMMIT_B])
    assert (snapshots / COMMIT / "model.safetensors").read_bytes() == b"weights-v1"
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT_B
    marker = pod.marker()
    assert (marker["digest"], marker["commit"], marker["tag"]) == (v2, COMMIT_B, "harbor.example/ai-models/minilm:v2")
    assert marker["files"] == 4     # the served revision only, not both snapshots
    report = pod.report()
    assert [(r["digest"], r["commit"], r["tag"]) for r in report["revisions"]] == [
        (v2, COMMIT_B, "harbor.example/ai-models/minilm:v2"), (v1, COMMIT, "harbor.example/ai-models/minilm:v1")]
    # the served revision is current: nothing to pull, although another snapshot sits beside it
    proc = pod.run(v2, fail="down")
    assert proc.returncode == 0 and "nothing to pull" in proc.stdout, proc.stdout + proc.stderr


def test_a_kept_revision_is_switched_back_to_without_a_registry_call(pod):
    v1, v2 = pulled_v1_then_v2(pod)
    proc = pod.run(v1, fail="down")     # any oras call would fail
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pod.calls() == [] and "switching to it, nothing to download" in proc.stdout
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT
    report = pod.report()
    assert report["switched"] == "true" and report["reused"] == "true" and report["digest"] == v1
    assert pod.marker()["digest"] == v1 and pod.marker()["switched_at"]
    assert report["revisions"][0]["digest"] == v1     # the switched-to revision is the newest
    proc = pod.run(v2, fail="down")
    assert proc.returncode == 0 and pod.calls() == [], proc.stdout + proc.stderr
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT_B


def test_a_kept_revision_with_a_missing_file_is_pulled_again(pod):
    v1, _v2 = pulled_v1_then_v2(pod)
    (pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors").unlink()
    _artifact(str(pod.fake), model_files())
    proc = pod.run(v1)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "its snapshot has 2 of 3 files" in proc.stdout
    # the files v2 shares with v1 come from v2's snapshot, the weights (the file missing) from the registry
    assert [c.split()[3] for c in transfers(pod)] == ["%s/snapshots/%s/model.safetensors" % (REPO, COMMIT)]
    assert (pod.cache / "hub" / REPO / "snapshots" / COMMIT / "model.safetensors").read_bytes() == b"weights-v1"


def test_a_copy_pulled_before_revisions_were_kept_is_recorded_and_can_be_switched_back_to(pod):
    v1 = _artifact(str(pod.fake), model_files())
    assert pod.run(v1).returncode == 0
    # the layout of a claim pulled by the previous release: no .revisions/, no commit/repo/tag in the marker
    shutil.rmtree(str(pod.cache / ".revisions"))
    marker = pod.cache / ".pulled"
    marker.write_text("".join(line + "\n" for line in marker.read_text().splitlines()
                              if not line.startswith(("commit=", "repo=", "tag="))))
    assert pod.run(v1, fail="down").returncode == 0     # still current
    v2 = _artifact(str(pod.fake), model_files(weights=b"weights-v2", commit=COMMIT_B))
    assert pod.run(v2).returncode == 0
    assert records(pod) == sorted([v1[7:], v2[7:]])
    proc = pod.run(v1, fail="down")
    assert proc.returncode == 0 and pod.calls() == [], proc.stdout + proc.stderr


def test_an_artifact_with_two_snapshots_is_refused(pod):
    files = model_files()
    files["%s/snapshots/%s/other.bin" % (REPO, COMMIT_B)] = b"x"
    digest = _artifact(str(pod.fake), files)
    proc = pod.run(digest)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE
    assert "the artifact holds two snapshots" in pod.report()["reason"]


def run_prune(pod, keep):
    env = {"PATH": pod.path, "AIPS_CACHE_DIR": str(pod.cache), "AIPS_WORKING_DIR": str(pod.cache / "hub"),
           "AIPS_MARKER": str(pod.cache / ".pulled"), "AIPS_KEEP": " ".join(keep)}
    return subprocess.run([shutil.which("busybox"), "sh", "-c", pull_script.PRUNE_SCRIPT], env=env,
                          capture_output=True, text=True, check=False)


def test_prune_keeps_the_served_and_the_named_revisions_and_removes_the_rest(pod):
    v1, v2 = pulled_v1_then_v2(pod)
    snapshots = pod.cache / "hub" / REPO / "snapshots"
    proc = run_prune(pod, [v2, v1])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(os.listdir(str(snapshots))) == sorted([COMMIT, COMMIT_B])
    proc = run_prune(pod, [])           # the served revision is kept even when not named
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.listdir(str(snapshots)) == [COMMIT_B]
    assert records(pod) == layer_lists(pod) == [v2[7:]]     # the layer list goes with its record
    assert "removing %s/snapshots/%s" % (REPO, COMMIT) in proc.stdout and "kept 1 revision(s)" in proc.stdout
    # the served copy is intact and current
    assert pod.run(v2, fail="down").returncode == 0 and "nothing to pull" in pod.run(v2, fail="down").stdout


def test_pull_script_is_valid_sh():
    proc = subprocess.run([shutil.which("sh"), "-n", "-c", pull_script.PULL_SCRIPT], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stderr


def test_pull_script_has_no_kubelet_variable_references():
    """Kubernetes expands $(NAME) in commands for env NAMEs, and $$ to $: neither may appear by accident."""
    names = re.findall(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", pull_script.PULL_SCRIPT)
    assert not [n for n in names if n.startswith("AIPS_")]
    assert "$$" not in pull_script.PULL_SCRIPT


def five_files(commit, changed=()):
    """An artifact of five model files; the titles in ``changed`` (file names) hold other bytes."""
    files = model_files(commit=commit)
    snap = "%s/snapshots/%s/" % (REPO, commit)
    files[snap + "tokenizer.json"] = b'{"vocab": "' + b"t" * 3000 + b'"}'
    files[snap + "vocab.txt"] = b"[PAD]\n[UNK]\n" * 200
    for name in changed:
        files[snap + name] = files[snap + name] + b" changed in " + commit.encode()
    return files


def snapshot(pod, commit):
    return pod.cache / "hub" / REPO / "snapshots" / commit


def test_an_upgrade_where_one_file_changed_fetches_that_blob_and_links_the_rest(pod):
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    files = five_files(COMMIT_B, changed=["model.safetensors"])
    v2 = _artifact(str(pod.fake), files)
    proc = pod.run(v2, tag="v2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    weights = files["%s/snapshots/%s/model.safetensors" % (REPO, COMMIT_B)]
    # one blob over the wire, by digest from the pinned repository; refs/main (the commit) is written locally
    assert transfers(pod) == ["blob fetch --output %s/snapshots/%s/model.safetensors harbor.example/ai-models/minilm@sha256:%s"
                              % (REPO, COMMIT_B, hashlib.sha256(weights).hexdigest())]
    reused = sum(len(v) for k, v in files.items() if "/snapshots/" in k and not k.endswith("model.safetensors"))
    assert "reusing 4 files (%s) from revisions on the claim; fetching 1 files (%d B)" % (
        "%.1f KiB" % (reused / 1024.0), len(weights)) in proc.stdout, proc.stdout
    for report in (pod.marker(), pod.report()):
        assert (report["fetched_bytes"], report["fetched_files"], report["reused_files"], report["reused_bytes"]) == (
            len(weights), 1, 4, reused), report
    annotations = pull_marker.pvc_annotations(pod.report())
    assert (annotations["ai-platform.serving/fetched-bytes"], annotations["ai-platform.serving/reused-files"]) == (
        str(len(weights)), "4")
    # the new snapshot holds the new revision byte for byte; the unchanged files are the old ones' inodes
    for title, content in files.items():
        assert (pod.cache / "hub" / title).read_bytes() == content, title
        name = title.rsplit("/", 1)[1]
        if "/snapshots/" in title and name != "model.safetensors":
            old = snapshot(pod, COMMIT) / title.split("/snapshots/%s/" % COMMIT_B)[1]
            assert old.stat().st_ino == (pod.cache / "hub" / title).stat().st_ino, title
    assert (snapshot(pod, COMMIT) / "model.safetensors").read_bytes() == b"weights-v1"     # v1 kept as it was
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT_B
    assert records(pod) == layer_lists(pod) == sorted([v1[7:], v2[7:]])
    assert [r["digest"] for r in pod.report()["revisions"]] == [v2, v1]


def test_an_upgrade_fetches_the_changed_files_at_most_concurrency_at_a_time(pod):
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    changed = ["model.safetensors", "vocab.txt", "tokenizer.json"]
    files = five_files(COMMIT_B, changed=changed)
    proc = pod.run(_artifact(str(pod.fake), files))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(c.split()[3].rsplit("/", 1)[1] for c in transfers(pod)) == sorted(changed)
    marker = pod.marker()
    assert (marker["fetched_files"], marker["reused_files"]) == (3, 2)
    assert marker["fetched_bytes"] == sum(len(files["%s/snapshots/%s/%s" % (REPO, COMMIT_B, n)]) for n in changed)
    for title, content in files.items():
        assert (pod.cache / "hub" / title).read_bytes() == content, title


@pytest.mark.parametrize("verify", ["1", "0"])
def test_a_local_file_corrupted_on_the_claim_is_caught_and_fetched_again(pod, verify):
    """A file of a kept revision that changed on the claim after its pull was verified (same size, other bytes) is
    hashed like every file taken from the claim (with verify off too) and fetched from the registry instead: the
    upgrade still succeeds with the manifest's bytes, the corrupted copy is never served by the new revision."""
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    vocab = snapshot(pod, COMMIT) / "vocab.txt"
    good = vocab.read_bytes()
    vocab.write_bytes(b"X" * len(good))            # same size: the listing cannot tell, only the hash
    files = five_files(COMMIT_B, changed=["model.safetensors"])
    proc = pod.run(_artifact(str(pod.fake), files), verify=verify)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "%s/snapshots/%s/vocab.txt on the claim holds sha256:%s, the manifest says sha256:%s: fetching" % (
        REPO, COMMIT, hashlib.sha256(b"X" * len(good)).hexdigest(), hashlib.sha256(good).hexdigest()) in proc.stdout
    assert sorted(c.split()[3].rsplit("/", 1)[1] for c in transfers(pod)) == ["model.safetensors", "vocab.txt"]
    assert (snapshot(pod, COMMIT_B) / "vocab.txt").read_bytes() == good
    marker = pod.marker()
    assert (marker["fetched_files"], marker["reused_files"]) == (2, 3)
    assert marker["fetched_bytes"] == len(good) + len(files["%s/snapshots/%s/model.safetensors" % (REPO, COMMIT_B)])


def test_a_claim_whose_revisions_have_no_layer_list_pulls_everything(pod):
    """Revisions recorded before layer lists were kept: nothing is known by digest, the whole artifact is pulled."""
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    (pod.cache / ".revisions" / (v1[7:] + ".layers")).unlink()
    files = five_files(COMMIT_B, changed=["model.safetensors"])
    v2 = _artifact(str(pod.fake), files)
    proc = pod.run(v2)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "the revisions on the claim were recorded without a layer list" in proc.stdout, proc.stdout
    assert [c.split()[0] for c in transfers(pod)] == ["pull"]
    marker = pod.marker()
    assert (marker["fetched_bytes"], marker["fetched_files"], marker["reused_files"]) == (marker["size"], 5, 0)
    assert layer_lists(pod) == [v2[7:]]        # the new revision has one from now on
    for title, content in files.items():
        assert (pod.cache / "hub" / title).read_bytes() == content, title


def test_the_free_space_check_of_an_upgrade_counts_only_the_bytes_to_fetch(pod):
    files = five_files(COMMIT)
    files["%s/snapshots/%s/model.safetensors" % (REPO, COMMIT)] = b"w" * 200000
    assert pod.run(_artifact(str(pod.fake), files)).returncode == 0
    new = dict((k.replace(COMMIT, COMMIT_B), v) for k, v in files.items())
    new["%s/refs/main" % REPO] = COMMIT_B.encode()
    new["%s/snapshots/%s/config.json" % (REPO, COMMIT_B)] += b"\n"
    digest = _artifact(str(pod.fake), new)
    proc = pod.run(digest, free_bytes="5000")      # far less than the artifact, enough for the changed config.json
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert pod.marker()["fetched_files"] == 1 and pod.marker()["digest"] == digest
    proc = pod.run(_artifact(str(pod.fake), dict(new, **{"%s/snapshots/%s/extra.bin" % (REPO, COMMIT_B): b"e" * 6000})),
                   free_bytes="5000")
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, proc.stdout + proc.stderr
    # the new file and refs/main (40 bytes, counted until it is written from the commit); hard links take no room
    assert "needs 6100 bytes (1 files to fetch, 6040 bytes, 0 bytes of copies" in pod.report()["reason"], pod.report()["reason"]


def test_a_blob_fetched_beside_the_local_files_is_hashed_with_verify_off_too(pod):
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    target = "%s/snapshots/%s/model.safetensors" % (REPO, COMMIT_B)
    proc = pod.run(_artifact(str(pod.fake), five_files(COMMIT_B, changed=["model.safetensors"])), verify="0",
                   corrupt=target)
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, proc.stdout + proc.stderr
    assert "%s holds sha256:" % target in pod.report()["reason"]
    assert pod.marker()["digest"] == v1 and (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT


# ModelPack artifacts: the same hub cache as the hf-cache format, from either publisher


def test_a_modelpack_artifact_lays_out_the_same_hub_cache_as_the_hf_cache_format(pod, tmp_path):
    files = model_files()
    old = _artifact(str(pod.fake), files)
    assert pod.run(old).returncode == 0
    hf_cache_tree, hf_cache_marker = tree(pod), pod.marker()
    other = Pod(tmp_path / "other")
    digest = _modelpack(str(other.fake), snapshot_files(files))
    proc = other.run(digest)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    marker = other.marker()
    assert marker["digest"] == digest and marker["commit"] == COMMIT and marker["repo"] == REPO
    for key in ("files", "model_files", "architectures", "model_type", "fetched_files"):
        assert marker[key] == hf_cache_marker[key], key
    # size and fetched bytes are the artifact's layers, as the lock counts them: the hf-cache format's include its
    # refs/main layer (the commit, 40 bytes); a ModelPack artifact has none, the pull writes refs/main
    assert marker["size"] == marker["fetched_bytes"] == hf_cache_marker["size"] - len(COMMIT)
    assert marker["size"] == sum(len(v) for v in snapshot_files(files).values())

    def hub_tree(found):
        return dict((k, v) for k, v in found.items() if k.startswith("hub/"))
    assert hub_tree(tree(other)) == hub_tree(hf_cache_tree)
    # one oras pull, in the snapshot directory (ModelPack titles are paths in the snapshot)
    assert [c.split()[0] for c in transfers(other)] == ["pull"]
    assert records(other) == layer_lists(other) == [digest[len("sha256:"):]]
    again = other.run(digest)
    assert again.returncode == 0 and transfers(other) == [] and "nothing to pull" in again.stdout, again.stdout


def test_a_modelpack_artifact_another_client_pushed_is_named_by_its_digest(pod):
    digest = _modelpack(str(pod.fake), snapshot_files(model_files()), revision=None)
    proc = pod.run(digest)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    commit = digest[len("sha256:"):][:40]
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == commit
    assert (snapshot(pod, commit) / "model.safetensors").read_bytes() == b"weights-v1"
    assert pod.marker()["commit"] == commit and pod.marker()["model_files"] == 3


def test_an_upgrade_from_the_hf_cache_format_to_modelpack_links_the_unchanged_files(pod):
    v1 = _artifact(str(pod.fake), five_files(COMMIT))
    assert pod.run(v1).returncode == 0
    files = snapshot_files(five_files(COMMIT_B, changed=["model.safetensors"]), COMMIT_B)
    v2 = _modelpack(str(pod.fake), files, revision=COMMIT_B)
    proc = pod.run(v2, tag="v2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert transfers(pod) == ["blob fetch --output %s/snapshots/%s/model.safetensors harbor.example/ai-models/minilm@sha256:%s"
                              % (REPO, COMMIT_B, hashlib.sha256(files["model.safetensors"]).hexdigest())]
    assert (pod.marker()["fetched_files"], pod.marker()["reused_files"]) == (1, 4)
    for name, content in files.items():
        assert (snapshot(pod, COMMIT_B) / name).read_bytes() == content
        if name != "model.safetensors":
            assert (snapshot(pod, COMMIT_B) / name).stat().st_ino == (snapshot(pod, COMMIT) / name).stat().st_ino
    assert (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT_B


@pytest.mark.parametrize("fault, reason", [
    ("tar", "is a ModelPack archive (application/vnd.cncf.model.weight.v1.tar): the pull lays out raw file layers only"),
    ("foreign-type", "has media type application/vnd.oci.image.layer.v1.tar, not a ModelPack file layer"),
    ("filepath", "is titled 'model.safetensors' but its org.cncf.model.filepath is 'weights/model.safetensors'"),
    ("escape", "layer title '../model.safetensors' is not a plain relative path"),
    ("folder", "a ModelPack artifact needs the model's hub cache folder (AIPS_REPO_FOLDER"),
    ("revision", "the artifact's revision annotation 'a/b' is not a plain name"),
])
def test_a_modelpack_artifact_the_pull_cannot_lay_out_is_refused_before_a_byte_is_written(pod, fault, reason):
    files = snapshot_files(model_files())
    kwargs = {}
    if fault == "tar":
        kwargs["media_types"] = {"model.safetensors": "application/vnd.cncf.model.weight.v1.tar"}
    elif fault == "foreign-type":
        kwargs["media_types"] = {"model.safetensors": LAYER_TYPE}
    elif fault == "filepath":
        kwargs["filepaths"] = {"model.safetensors": "weights/model.safetensors"}
    elif fault == "escape":
        files["../model.safetensors"] = files.pop("model.safetensors")
    elif fault == "revision":
        kwargs["revision"] = "a/b"
    digest = _modelpack(str(pod.fake), files, **kwargs)
    before = tree(pod)
    proc = pod.run(digest, **({"folder": ""} if fault == "folder" else {}))
    assert proc.returncode == pull_script.PERMANENT_EXIT_CODE, proc.stdout + proc.stderr
    assert reason in pod.report()["reason"], pod.report()["reason"]
    assert transfers(pod) == [] and tree(pod) == before


def test_a_kept_modelpack_revision_is_switched_back_to_without_a_download(pod):
    v1 = _modelpack(str(pod.fake), snapshot_files(five_files(COMMIT), COMMIT), revision=COMMIT)
    assert pod.run(v1).returncode == 0
    v2 = _modelpack(str(pod.fake), snapshot_files(five_files(COMMIT_B, changed=["model.safetensors"]), COMMIT_B),
                    revision=COMMIT_B)
    assert pod.run(v2, tag="v2").returncode == 0
    back = pod.run(v1)
    assert back.returncode == 0, back.stdout + back.stderr
    assert "is kept on the claim (commit %s, 5 files): switching to it, nothing to download" % COMMIT in back.stdout
    assert transfers(pod) == [] and (pod.cache / "hub" / REPO / "refs" / "main").read_text() == COMMIT
    assert pod.marker()["digest"] == v1 and pod.report()["switched"] in (True, "true")
