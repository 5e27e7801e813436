# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model storage objects built from one model plan record, as plain dicts.

Pure functions, no cluster access: the claim (``<slug>-model``), the on-prem
static hostPath PV (``<slug>-model-pv``), the ORAS pull Job (``<slug>-model-pull``)
and its shell script, the Job's spec hash (Jobs are immutable, a changed spec
means a replaced Job), the pull marker / termination message parser, the
storage-size preflight and the checks on a user-owned claim.

The marker ``/model-cache/.pulled`` is a few ``key=value`` lines. The Job writes
it only after every layer was pulled and its sha256 re-checked against the
manifest, which was itself checked against the pinned digest; the same lines go
to the container's termination message so the result can be read from the API.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference as oci_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pod_security

ANNOTATION_SPEC_HASH = naming.annotation_key("spec_hash")
ANNOTATION_DIGEST = naming.annotation_key("digest")
ANNOTATION_REFERENCE = naming.annotation_key("reference")
# Marker keys published as PVC annotations (key -> annotation suffix).
ANNOTATED_KEYS = ("digest", "reference", "tag", "commit", "size", "files", "pulled_at", "switched_at",
                  "architectures", "model_type", "torch_dtype", "transformers_version", "revisions")
ANNOTATION_REVISIONS = naming.annotation_key("revisions")
# Revisions a claim keeps beside the served one, by default (serving_stack prunes the rest after a rollout).
DEFAULT_KEEP_REVISIONS = 1
METADATA_KEYS = ("architectures", "model_type", "torch_dtype", "transformers_version")

CONTAINER = "oras-pull"
# The registry config (harbor-creds' .dockerconfigjson) lives off /root: the Job runs as a non-root
# uid, and both DOCKER_CONFIG and oras --registry-config point here.
DOCKER_CONFIG_DIR = "/etc/aips/registry"
# The only writable path besides the claim (the root filesystem is read-only): HOME and TMPDIR.
SCRATCH_DIR = "/tmp"
SCRATCH_SIZE = "64Mi"
# A pull that runs longer than this is killed (a hung oras must not hold the claim forever).
DEFAULT_DEADLINE_SECONDS = 14400
DEFAULT_PROGRESS_SECONDS = 10
BACKOFF_LIMIT = 3
TTL_SECONDS = 86400
PERMANENT_EXIT_CODE = 42
ACCESS_RWO = "ReadWriteOnce"
SINGLE_NODE_MODES = ("ReadWriteOnce", "ReadWriteOncePod")

DEFAULT_RESOURCES = {"requests": {"cpu": "250m", "memory": "256Mi", "ephemeral-storage": "16Mi"},
                     "limits": {"cpu": "2", "memory": "1Gi", "ephemeral-storage": "256Mi"}}

# The pull script. Inputs come from the environment (see job_manifest). It exits
# PERMANENT_EXIT_CODE on errors a retry cannot fix (credentials, missing artifact,
# digest mismatch, an unsafe layer title, a claim without room), which the Job's
# podFailurePolicy turns into an immediate failure; anything else (registry
# unreachable, ...) exits 1 and the Job retries (backoffLimit).
#
# Storage safety: the verified copy (hub/ and .pulled) is never removed before a new
# copy is verified beside it; the manifest is fetched and every layer checked (title a
# plain relative path of the hub cache, the expected media type, no unpack annotation)
# and the free space compared with the artifact's size before a byte is written to the
# claim; "no space left" is permanent; the fast path checks file count and bytes
# against the marker.
PULL_SCRIPT = r"""set -eu
CACHE="$AIPS_CACHE_DIR"; HUB="$AIPS_WORKING_DIR"; MARKER="$AIPS_MARKER"
REF="$AIPS_PINNED_REFERENCE"; WANT="$AIPS_DIGEST"
STAGE="$CACHE/.pull-staging"; OLD="$CACHE/.pull-old"; ERR="${TMPDIR:-/tmp}/aips-pull-oras.err"
REVS="$CACHE/.revisions"; HEX="${WANT#sha256:}"; TAG="${AIPS_SOURCE_REFERENCE:-}"
SCRATCH="${TMPDIR:-/tmp}/aips-pull"
MEDIA_TYPES="${AIPS_LAYER_MEDIA_TYPES:-application/vnd.oci.image.layer.v1.tar}"
TERMLOG="${AIPS_TERMINATION_LOG:-/dev/termination-log}"
log() { echo "model-pull: $*"; }
fail() {
  code=$1; shift
  log "FAILED: $*"
  printf 'status=failed\ndigest=%s\nreason=%s\n' "$WANT" "$*" | head -c 3000 >"$TERMLOG"
  exit "$code"
}
run_oras() {
  if [ -n "${AIPS_REGISTRY_CONFIG:-}" ]; then set -- "$@" --registry-config "$AIPS_REGISTRY_CONFIG"; fi
  if oras "$@" 2>"$ERR"; then return 0; fi
  cat "$ERR" >&2
  why=$(tail -n 3 "$ERR" | tr '\n' ' ')
  if grep -qi 'no space left on device' "$ERR"; then
    full="the claim is full (no space left on device) while oras $1 wrote: $why; the verified copy, if any, is kept."
    fail 42 "$full Grow modelSource.storageSize or clear the claim (playbooks/cache.yml)"
  fi
  if grep -Eqi '(^|[^0-9a-z])40[13]([^0-9a-z]|$)|unauthori[sz]ed|denied|not found|manifest unknown|name unknown|mismatch' "$ERR"; then
    fail 42 "oras $1: $why"
  fi
  fail 1 "oras $1 (will retry): $why"
}
# one "revision=<digest> <commit> <pulled_at> <tag>" line per revision kept on the claim, the most recently
# served first (each record's seq= comes from a counter on the claim, bumped by every pull and switch)
next_seq() { n=$(cat "$REVS/.seq" 2>/dev/null || echo 0); n=$((n + 1)); echo "$n" >"$REVS/.seq"; echo "$n"; }
revision_lines() {
  [ -d "$REVS" ] || return 0
  for r in $(for f in "$REVS"/*; do [ -f "$f" ] && echo "$(sed -n 's/^seq=//p' "$f") ${f##*/}"; done \
      | sort -rn | head -n 8 | cut -d' ' -f2); do
    echo "revision=sha256:$r $(sed -n 's/^commit=//p' "$REVS/$r") $(sed -n 's/^pulled_at=//p' "$REVS/$r") \
$(sed -n 's/^tag=//p' "$REVS/$r")"
  done
}
report() { { echo "status=ok"; for extra in "$@"; do echo "$extra"; done; cat "$MARKER"; revision_lines; } \
  | head -c 3900 >"$TERMLOG"; }
hub_files() { find "$HUB" -type f | wc -l; }
tree_bytes() { find "$1" -type f -exec stat -c %s {} + 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }'; }
hub_bytes() { tree_bytes "$HUB"; }
# files and bytes of one revision: refs/main plus its snapshot (other kept snapshots not counted);
# the whole hub/ for a marker written before revisions were kept side by side (no commit= line)
rev_files() {
  if [ -z "$2" ]; then hub_files; return 0; fi
  [ -d "$HUB/$1/snapshots/$2" ] || { echo 0; return 0; }
  echo $(($(find "$HUB/$1/snapshots/$2" -type f | wc -l) + 1))
}
rev_bytes() {
  if [ -z "$2" ]; then hub_bytes; return 0; fi
  [ -d "$HUB/$1/snapshots/$2" ] || { echo 0; return 0; }
  echo $(($(tree_bytes "$HUB/$1/snapshots/$2") + ${#2}))
}
field_of() { sed -n "s/^$1=//p" "$2" | head -n 1; }
# point refs/main at a commit, atomically (a rename)
set_ref() {
  mkdir -p "$HUB/$1/refs"
  printf '%s' "$2" >"$HUB/$1/refs/.main.tmp"
  mv "$HUB/$1/refs/.main.tmp" "$HUB/$1/refs/main"
}
human() {
  awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1
    while (b >= 1024 && i < 5) { b /= 1024; i++ }
    if (i == 1) printf "%d %s", b, u[i]; else printf "%.1f %s", b, u[i] }'
}
# One line every AIPS_PROGRESS_SECONDS while oras pulls, for plain logs: bytes on the claim, rate, ETA, files.
progress() {
  every="${AIPS_PROGRESS_SECONDS:-10}"; since=$(date +%s)
  # (sleep's output is not the log's: a sleep left behind when the loop is killed holds no pipe open)
  while sleep "$every" </dev/null >/dev/null 2>&1; do
    got=$(tree_bytes "$STAGE/hub"); files=$(find "$STAGE/hub" -type f | wc -l)
    secs=$(($(date +%s) - since)); [ "$secs" -gt 0 ] || secs=1
    rate=$((got / secs)); pct=100; eta="unknown"
    [ "$total" -le 0 ] || pct=$((got * 100 / total))
    [ "$rate" -le 0 ] || eta="$(((total - got) / rate))s"
    log "progress: $(human "$got") of $(human "$total") ($pct%), $(human "$rate")/s, ETA $eta, $files of $count files"
  done
}
# (AIPS_TEST_FREE_BYTES: the unit tests' stand-in for a full claim; busybox's df applet ignores PATH)
free_bytes() {
  if [ -n "${AIPS_TEST_FREE_BYTES:-}" ]; then echo "$AIPS_TEST_FREE_BYTES"; return 0; fi
  df -Pk "$CACHE" | awk 'NR == 2 { printf "%.0f", $4 * 1024 }'
}
if [ -f "$MARKER" ] && grep -qx "digest=$WANT" "$MARKER" && [ -d "$HUB" ]; then
  # the marker was written after a verified pull; reuse the copy only if its files are all there, byte for byte
  folder=$(field_of repo "$MARKER"); commit=$(field_of commit "$MARKER")
  have=$(rev_files "$folder" "$commit"); want=$(field_of files "$MARKER")
  bytes=$(rev_bytes "$folder" "$commit"); want_bytes=$(field_of size "$MARKER")
  served=$commit
  [ -z "$commit" ] || served=$(cat "$HUB/$folder/refs/main" 2>/dev/null || true)
  if [ "$have" = "${want:-x}" ] && [ "$bytes" = "${want_bytes:-x}" ] && [ "$served" = "$commit" ]; then
    log "marker holds $WANT: the cache is current, nothing to pull (reusing the verified copy of $have files)"
    report "reused=true"
    exit 0
  fi
  log "marker holds $WANT but hub/ has $have of its $want files, $bytes of its $want_bytes bytes: pulling afresh"
fi
# a revision kept on the claim (an earlier pull, verified then): switch back to it without a download
if [ -f "$REVS/$HEX" ] && [ -w "$CACHE" ]; then
  folder=$(field_of repo "$REVS/$HEX"); commit=$(field_of commit "$REVS/$HEX")
  have=$(rev_files "$folder" "$commit"); want=$(field_of files "$REVS/$HEX")
  bytes=$(rev_bytes "$folder" "$commit"); want_bytes=$(field_of size "$REVS/$HEX")
  if [ -n "$commit" ] && [ "$have" = "${want:-x}" ] && [ "$bytes" = "${want_bytes:-x}" ]; then
    log "$WANT is kept on the claim (commit $commit, $have files): switching to it, nothing to download"
    rm -f "$MARKER"
    set_ref "$folder" "$commit"
    { grep -v '^switched_at=' "$REVS/$HEX" | grep -v '^seq='; echo "switched_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
      echo "seq=$(next_seq)"; } >"$MARKER.tmp"
    cp "$MARKER.tmp" "$REVS/.$HEX.tmp"
    mv "$REVS/.$HEX.tmp" "$REVS/$HEX"
    mv "$MARKER.tmp" "$MARKER"
    sync
    report "reused=true" "switched=true"
    exit 0
  fi
  log "$WANT is recorded on the claim but its snapshot has $have of $want files, $bytes of $want_bytes bytes: pulling afresh"
  rm -f "$REVS/$HEX"
fi
if [ -f "$MARKER" ]; then
  log "marker holds $(grep '^digest=' "$MARKER" || echo 'no digest'), want $WANT: pulling afresh"
fi
if [ ! -w "$CACHE" ]; then
  who="$(id -u):$(id -g)"
  fail 42 "the claim's directory is not writable by uid $(id -u) (the pull runs as non-root): give it to that uid \
(hostpath_dirs does, or chown -R $who on the node)"
fi
# 1. the manifest, checked before any byte reaches the claim
rm -rf "$SCRATCH"; mkdir -p "$SCRATCH"
run_oras manifest fetch "$REF" >"$SCRATCH/manifest.json"
got="sha256:$(sha256sum "$SCRATCH/manifest.json" | cut -d' ' -f1)"
[ "$got" = "$WANT" ] || fail 42 "the manifest's digest is $got, not $WANT"
LAYERS='{{range .content.layers}}{{.digest}} {{printf "%.0f" .size}} {{.mediaType}} '
LAYERS="$LAYERS"'unpack={{with .annotations}}{{with index . "io.deis.oras.content.unpack"}}{{.}}{{end}}{{end}} '
LAYERS="$LAYERS"'{{with .annotations}}{{with index . "org.opencontainers.image.title"}}{{.}}{{end}}{{end}}{{"\n"}}{{end}}'
run_oras manifest fetch --format go-template="$LAYERS" "$REF" >"$SCRATCH/layers.txt"
count=0; total=0; FOLDER=""; COMMIT=""
while read -r digest size mtype unpack title; do
  [ -n "$title" ] || fail 42 "layer $digest has no title"
  case "/$title/" in
    *//*|*/../*|*/./*) fail 42 "layer title '$title' is not a plain relative path (empty, '.' or '..' parts)" ;;
  esac
  case "$title" in
    /*) fail 42 "layer title '$title' is absolute" ;;
    models--*/*) ;;
    *) fail 42 "layer title '$title' is not a path of the Hugging Face hub cache (models--<org>--<name>/...)" ;;
  esac
  case " $MEDIA_TYPES " in
    *" $mtype "*) ;;
    *) fail 42 "layer $title has media type $mtype, expected one of: $MEDIA_TYPES" ;;
  esac
  case "$unpack" in
    "unpack=") ;;
    *) fail 42 "layer $title carries the unpack annotation ($unpack): oras would extract an archive into the claim" ;;
  esac
  this_folder=${title%%/*}; rest=${title#*/}
  [ -z "$FOLDER" ] || [ "$FOLDER" = "$this_folder" ] || fail 42 "the artifact holds two repositories ($FOLDER, $this_folder)"
  FOLDER=$this_folder
  case "$rest" in
    refs/main) ;;
    snapshots/*/*)
      this_commit=${rest#snapshots/}; this_commit=${this_commit%%/*}
      [ -z "$COMMIT" ] || [ "$COMMIT" = "$this_commit" ] || fail 42 "the artifact holds two snapshots ($COMMIT, $this_commit)"
      COMMIT=$this_commit ;;
    *) fail 42 "layer title '$title' is neither $this_folder/refs/main nor $this_folder/snapshots/<commit>/<file>" ;;
  esac
  count=$((count + 1)); total=$((total + size))
done <"$SCRATCH/layers.txt"
[ "$count" -gt 0 ] || fail 42 "the artifact has no titled layers"
[ -n "$COMMIT" ] || fail 42 "the artifact has no snapshots/<commit>/ files"
# 2. room for the new copy beside the verified one, which is never removed before the new one is verified
free=$(free_bytes); need=$((total + total / 100))
if [ "$free" -lt "$need" ]; then
  kept="the claim is empty"
  [ -f "$MARKER" ] && kept="the verified copy ($(grep '^digest=' "$MARKER" || echo 'no digest')) and its marker are kept"
  fail 42 "not enough free space on the claim: the pull needs $need bytes ($count files, $total bytes, plus 1%), \
$free are free; $kept. Grow modelSource.storageSize to hold both copies, or clear the claim (playbooks/cache.yml) first"
fi
rm -rf "$STAGE" "$OLD"
mkdir -p "$STAGE/hub"
started=$(date +%s)
log "pulling $REF ($count files, $total bytes; $free bytes free)"
cd "$STAGE/hub"
progress &
PROGRESS=$!
trap 'kill "$PROGRESS" 2>/dev/null || true' EXIT
run_oras pull --concurrency "${AIPS_CONCURRENCY:-4}" "$REF"
kill "$PROGRESS" 2>/dev/null || true
wait "$PROGRESS" 2>/dev/null || true
pulled=$(date +%s)
secs=$((pulled - started)); [ "$secs" -gt 0 ] || secs=1
log "pulled $(human "$total") in $((pulled - started))s ($(human $((total / secs)))/s); verifying"
n=0; SUMS="$SCRATCH/sums"; mkdir -p "$SUMS"
while read -r digest size mtype unpack title; do
  [ -f "$title" ] || fail 42 "layer $title was not pulled"
  n=$((n + 1))
  if [ "${AIPS_VERIFY:-1}" = 1 ]; then
    # hash as many files at a time as oras pulls
    sha256sum "$title" | cut -d' ' -f1 >"$SUMS/$n" &
    [ $((n % ${AIPS_CONCURRENCY:-4})) -ne 0 ] || wait
  fi
done <"$SCRATCH/layers.txt"
wait
if [ "${AIPS_VERIFY:-1}" = 1 ]; then
  n=0
  while read -r digest size mtype unpack title; do
    n=$((n + 1))
    sum="sha256:$(cat "$SUMS/$n")"
    [ "$sum" = "$digest" ] || fail 42 "$title holds $sum, the manifest says $digest"
  done <"$SCRATCH/layers.txt"
fi
verified=$(date +%s)
log "verified $count files, $total bytes in $((verified - pulled))s"
config=""
for f in "$STAGE"/hub/models--*/snapshots/*/config.json; do [ -f "$f" ] && config="$f" && break; done
field() {
  [ -n "$config" ] || return 0
  tr -d '\n\r' <"$config" | grep -o "\"$1\"[[:space:]]*:[[:space:]]*\"[^\"]*\"" | head -n 1 \
    | sed 's/^.*:[[:space:]]*"\(.*\)"$/\1/' || true
}
archs=""
if [ -n "$config" ]; then
  archs=$(tr -d '\n\r' <"$config" | grep -o '"architectures"[[:space:]]*:[[:space:]]*\[[^]]*\]' | head -n 1 \
    | sed 's/^[^[]*\[//; s/\]$//; s/[" ]//g' || true)
fi
dtype=$(field torch_dtype); [ -n "$dtype" ] || dtype=$(field dtype)
mtype=$(field model_type); tversion=$(field transformers_version)
# 3. install the new snapshot beside the served one (the hub cache holds revisions side by side), record
# it, then point refs/main and the marker at it; the previous revision stays until it is pruned
# (serving_stack prunes once the serving pods rolled onto the new one). A new digest of the commit
# already on the claim replaces that snapshot (the only case where a copy goes before the switch).
SNAP="$HUB/$FOLDER/snapshots/$COMMIT"
# on a fresh claim the container runtime made hub/ (the workingDir) as root, empty: put one of ours there
if [ -d "$HUB" ] && [ ! -w "$HUB" ]; then
  [ -z "$(ls -A "$HUB")" ] || fail 42 "hub/ on the claim is not writable by uid $(id -u) and not empty: give it to \
that uid (chown -R $(id -u):$(id -g) on the node) or clear the claim (playbooks/cache.yml)"
  rmdir "$HUB"
fi
mkdir -p "$HUB/$FOLDER/snapshots" "$REVS"
# a copy pulled before revisions were kept side by side gets its record now, so it can be switched back to
old=$(field_of digest "$MARKER" 2>/dev/null || true)
if [ -n "$old" ] && [ ! -f "$REVS/${old#sha256:}" ]; then
  old_commit=$(field_of commit "$MARKER"); [ -n "$old_commit" ] || old_commit=$(cat "$HUB/$FOLDER/refs/main" 2>/dev/null || true)
  if [ -n "$old_commit" ] && [ "$old_commit" != "$COMMIT" ] && [ -d "$HUB/$FOLDER/snapshots/$old_commit" ]; then
    { grep -v '^repo=' "$MARKER" | grep -v '^commit=' | grep -v '^seq='; echo "repo=$FOLDER"; echo "commit=$old_commit"
      echo "seq=$(next_seq)"; } >"$REVS/${old#sha256:}"
  fi
fi
if [ -d "$SNAP" ]; then
  rm -f "$MARKER"
  mv "$SNAP" "$OLD"
  for r in "$REVS"/*; do
    [ -f "$r" ] && grep -qx "commit=$COMMIT" "$r" && rm -f "$r"
  done
fi
mv "$STAGE/hub/$FOLDER/snapshots/$COMMIT" "$SNAP"
{
  echo "digest=$WANT"
  echo "reference=$REF"
  echo "tag=$TAG"
  echo "repo=$FOLDER"
  echo "commit=$COMMIT"
  echo "size=$total"
  echo "files=$count"
  echo "pulled_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "pull_seconds=$((pulled - started))"
  echo "verify_seconds=$((verified - pulled))"
  echo "architectures=$archs"
  echo "model_type=$mtype"
  echo "torch_dtype=$dtype"
  echo "transformers_version=$tversion"
  echo "seq=$(next_seq)"
} >"$REVS/.$HEX.tmp"
mv "$REVS/.$HEX.tmp" "$REVS/$HEX"
sync
rm -f "$MARKER"
set_ref "$FOLDER" "$COMMIT"
cp "$REVS/$HEX" "$MARKER.tmp"
mv "$MARKER.tmp" "$MARKER"
sync
cd "$CACHE"
rm -rf "$OLD" "$STAGE" "$SCRATCH" "$ERR"
log "marker written: $WANT"
report
"""


class StorageError(Exception):
    """A record cannot be turned into storage objects; the message says why."""


def labels(record):
    return naming.model_labels(record["slug"], naming.COMPONENT_MODEL_CACHE)


def _storage(record):
    storage = record.get("storage") or {}
    if storage.get("mode") != "harbor":
        raise StorageError("%s: storage mode is %r, not harbor: there is nothing to pull"
                           % (record.get("slug"), storage.get("mode")))
    return storage


def pinned_reference(record, digest):
    return oci_reference.pinned_reference(_storage(record)["oci"]["reference"], digest)


def pv_manifest(record, storage_class=""):
    """The static hostPath PV of an on-prem record; None when the record has no PV."""
    storage = _storage(record)
    if not storage.get("pv"):
        return None
    node = storage.get("hostpath_node")
    if not node or not storage.get("hostpath_dir"):
        raise StorageError("%s: an on-prem PV needs hostpath_node and hostpath_dir" % record["slug"])
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": storage["pv"], "labels": labels(record)},
        "spec": {
            "capacity": {"storage": storage["size"]},
            "accessModes": [ACCESS_RWO],
            "persistentVolumeReclaimPolicy": "Retain",
            "storageClassName": storage_class,
            "volumeMode": "Filesystem",
            "claimRef": {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                         "namespace": record["namespace"], "name": storage["pvc"]},
            "hostPath": {"path": storage["hostpath_dir"], "type": "Directory"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}},
        },
    }


def pvc_manifest(record, hostpath_storage_class=""):
    """The model claim: RWO bound to the static PV on-prem; on cloud the record's access mode (RWO unless
    modelSource.accessMode says ReadWriteMany) and class (or the cluster's default)."""
    storage = _storage(record)
    spec = {
        "accessModes": [storage.get("access_mode") or ACCESS_RWO],
        "resources": {"requests": {"storage": storage["size"]}},
        "volumeMode": "Filesystem",
    }
    if storage.get("pv"):
        spec["storageClassName"] = hostpath_storage_class
        spec["volumeName"] = storage["pv"]
    elif storage.get("storage_class"):
        spec["storageClassName"] = storage["storage_class"]
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": storage["pvc"], "namespace": record["namespace"], "labels": labels(record)},
        "spec": spec,
    }


def job_affinity(record, follow_model_affinity=True):
    """Pin to the hostPath node; else (a dynamic claim binds where its first pod lands) the model's nodes."""
    storage = _storage(record)
    if storage.get("job_affinity"):
        return copy.deepcopy(storage["job_affinity"])
    if follow_model_affinity and record.get("affinity"):
        return copy.deepcopy(record["affinity"])
    return None


def _job_pod_spec(record, container, volumes, uid, affinity):
    """The restricted pod of the pull and clear Jobs: non-root, no API token, the model's tolerations and
    placement, the record's pull secret for the ORAS image."""
    secret = (record.get("names") or {}).get("harbor_pull_secret")
    pod_spec = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": pod_security.pod_security_context(uid),
        "containers": [container],
        "volumes": volumes,
    }
    if affinity:
        pod_spec["affinity"] = affinity
    if record.get("tolerations"):
        pod_spec["tolerations"] = copy.deepcopy(record["tolerations"])
    if secret:
        pod_spec["imagePullSecrets"] = [{"name": secret}]
    return pod_spec


def holder_affinity(node):
    """Required node affinity to ``node`` (the node whose pods hold a single-node claim)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}}}


def claim_holder_node(record, pods, skip_jobs=()):
    """The node whose running pods mount the record's claim, when the claim attaches to one node only
    (ReadWriteOnce on a dynamic class: another node's Job would wait on Multi-Attach); else None.
    A hostPath claim is already pinned to its node by the plan."""
    storage = _storage(record)
    if storage.get("job_affinity") or storage.get("access_mode", ACCESS_RWO) not in SINGLE_NODE_MODES:
        return None
    users = set(claim_users(pods, storage["pvc"], skip_jobs))
    nodes = sorted(set(
        (pod.get("spec") or {}).get("nodeName") for pod in pods or []
        if "%s/%s" % ((pod.get("metadata") or {}).get("namespace"), (pod.get("metadata") or {}).get("name")) in users
        and (pod.get("status") or {}).get("phase") == "Running" and (pod.get("spec") or {}).get("nodeName")))
    return nodes[0] if nodes else None


def job_manifest(record, digest, expected_size=0, concurrency=4, verify=False, resources=None,
                 follow_model_affinity=True, image_pull_policy="IfNotPresent", uid=pod_security.DEFAULT_UID,
                 active_deadline_seconds=DEFAULT_DEADLINE_SECONDS, progress_seconds=DEFAULT_PROGRESS_SECONDS,
                 holder_node=None):
    """The pull Job for ``record``, pinned to the manifest ``digest``; annotated with its spec hash.

    Its pod passes Pod Security "restricted": it runs as ``uid`` (group and fsGroup too), drops
    every capability, uses RuntimeDefault seccomp and a read-only root filesystem; it writes only
    the claim and an emptyDir at /tmp. CPU, memory and ephemeral storage are limited, and the Job
    is killed after ``active_deadline_seconds``. ``holder_node`` (claim_holder_node) places it on
    the node whose serving pods hold a single-node claim; it is left out of the spec hash, so a
    Job already done is not replaced because the serving pods moved.
    """
    storage = _storage(record)
    if not digest or not str(digest).startswith("sha256:"):
        raise StorageError("%s: the pull Job needs the artifact's manifest digest (sha256:...), got %r"
                           % (record["slug"], digest))
    secret = (record.get("names") or {}).get("harbor_pull_secret")
    env = [
        {"name": "AIPS_CACHE_DIR", "value": storage["mount_path"]},
        {"name": "AIPS_WORKING_DIR", "value": storage["working_dir"]},
        {"name": "AIPS_MARKER", "value": storage["marker"]},
        {"name": "AIPS_PINNED_REFERENCE", "value": pinned_reference(record, digest)},
        {"name": "AIPS_DIGEST", "value": digest},
        {"name": "AIPS_SOURCE_REFERENCE", "value": storage["oci"]["reference"]},
        {"name": "AIPS_EXPECTED_SIZE", "value": str(int(expected_size or 0))},
        {"name": "AIPS_CONCURRENCY", "value": str(int(concurrency))},
        {"name": "AIPS_VERIFY", "value": "1" if verify else "0"},
        {"name": "AIPS_PROGRESS_SECONDS", "value": str(max(1, int(progress_seconds)))},
        {"name": "HOME", "value": SCRATCH_DIR},
        {"name": "TMPDIR", "value": SCRATCH_DIR},
    ]
    mounts = [{"name": "model-cache", "mountPath": storage["mount_path"]},
              {"name": "scratch", "mountPath": SCRATCH_DIR}]
    volumes = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": storage["pvc"]}},
               {"name": "scratch", "emptyDir": {"sizeLimit": SCRATCH_SIZE}}]
    if secret:
        env.append({"name": "DOCKER_CONFIG", "value": DOCKER_CONFIG_DIR})
        env.append({"name": "AIPS_REGISTRY_CONFIG", "value": DOCKER_CONFIG_DIR + "/config.json"})
        mounts.append({"name": "docker-config", "mountPath": DOCKER_CONFIG_DIR, "readOnly": True})
        volumes.append({"name": "docker-config", "secret": {
            "secretName": secret, "items": [{"key": ".dockerconfigjson", "path": "config.json"}]}})
    container = {
        "name": CONTAINER,
        "image": storage["oras_image"],
        "imagePullPolicy": image_pull_policy,
        "command": ["/bin/sh", "-c", PULL_SCRIPT],
        "workingDir": storage["working_dir"],
        "env": env,
        "resources": pod_security.with_limits(resources, DEFAULT_RESOURCES),
        "securityContext": pod_security.container_security_context(),
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": mounts,
    }
    pod_spec = _job_pod_spec(record, container, volumes, uid, job_affinity(record, follow_model_affinity))
    spec = {
        "backoffLimit": BACKOFF_LIMIT,
        "ttlSecondsAfterFinished": TTL_SECONDS,
        "activeDeadlineSeconds": int(active_deadline_seconds),
        "podFailurePolicy": {"rules": [{"action": "FailJob", "onExitCodes": {
            "containerName": CONTAINER, "operator": "In", "values": [PERMANENT_EXIT_CODE]}}]},
        "template": {"metadata": {"labels": labels(record)}, "spec": pod_spec},
    }
    hashed = spec_hash(spec)
    if holder_node:
        pod_spec["affinity"] = holder_affinity(holder_node)
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": storage["pull_job"],
            "namespace": record["namespace"],
            "labels": labels(record),
            "annotations": {ANNOTATION_SPEC_HASH: hashed, ANNOTATION_DIGEST: digest,
                            ANNOTATION_REFERENCE: storage["oci"]["reference"]},
        },
        "spec": spec,
    }


CLEAR_CONTAINER = "clear"
CLEAR_SCRIPT = ("rm -rf /model-cache/hub /model-cache/.pulled /model-cache/.pulled.tmp /model-cache/.pull-* "
                "/model-cache/.revisions && ls -A /model-cache")
# Keep the revisions named in AIPS_KEEP (manifest digests, space separated) and the served one; remove every
# other snapshot and its record. A snapshot a kept revision or refs/main names is never removed.
PRUNE_CONTAINER = "prune"
PRUNE_SCRIPT = r"""set -eu
CACHE="$AIPS_CACHE_DIR"; HUB="$AIPS_WORKING_DIR"; REVS="$CACHE/.revisions"; MARKER="$AIPS_MARKER"
keep=" $AIPS_KEEP $(sed -n 's/^digest=//p' "$MARKER" 2>/dev/null) "
keep_commits=" "
for r in "$REVS"/*; do
  [ -f "$r" ] || continue
  case "$keep" in *" sha256:${r##*/} "*) keep_commits="$keep_commits$(sed -n 's/^commit=//p' "$r") " ;; esac
done
for ref in "$HUB"/models--*/refs/main; do [ -f "$ref" ] && keep_commits="$keep_commits$(cat "$ref") "; done
for r in "$REVS"/*; do
  [ -f "$r" ] || continue
  case "$keep" in *" sha256:${r##*/} "*) continue ;; esac
  echo "model-prune: dropping sha256:${r##*/} ($(sed -n 's/^tag=//p' "$r"), commit $(sed -n 's/^commit=//p' "$r"))"
  rm -f "$r"
done
for snap in "$HUB"/models--*/snapshots/*; do
  [ -d "$snap" ] || continue
  case "$keep_commits" in *" ${snap##*/} "*) continue ;; esac
  echo "model-prune: removing ${snap#"$HUB"/}"
  rm -rf "$snap"
done
echo "model-prune: kept $(ls "$REVS" 2>/dev/null | wc -l) revision(s)"
"""
CLEAR_RESOURCES = {"requests": {"cpu": "50m", "memory": "32Mi", "ephemeral-storage": "1Mi"},
                   "limits": {"cpu": "500m", "memory": "64Mi", "ephemeral-storage": "16Mi"}}


def clear_job_manifest(record, uid=pod_security.DEFAULT_UID, active_deadline_seconds=600):
    """The Job that empties the model's claim (the ORAS image's shell), restricted like the pull Job."""
    return _claim_job_manifest(record, "clear_job", CLEAR_CONTAINER, CLEAR_SCRIPT, [], uid, active_deadline_seconds)


def prune_job_manifest(record, keep_digests, holder_node=None, uid=pod_security.DEFAULT_UID,
                       active_deadline_seconds=600):
    """The Job that removes every revision of the claim but ``keep_digests`` and the served one."""
    storage = _storage(record)
    env = [{"name": "AIPS_CACHE_DIR", "value": storage["mount_path"]},
           {"name": "AIPS_WORKING_DIR", "value": storage["working_dir"]},
           {"name": "AIPS_MARKER", "value": storage["marker"]},
           {"name": "AIPS_KEEP", "value": " ".join(keep_digests)}]
    job = _claim_job_manifest(record, "prune_job", PRUNE_CONTAINER, PRUNE_SCRIPT, env, uid, active_deadline_seconds)
    if holder_node:
        job["spec"]["template"]["spec"]["affinity"] = holder_affinity(holder_node)
    return job


def _claim_job_manifest(record, name_key, container_name, script, env, uid, active_deadline_seconds):
    """A short maintenance Job on the model's claim (the ORAS image's shell), restricted like the pull Job."""
    storage = _storage(record)
    container = {
        "name": container_name,
        "image": storage["oras_image"],
        "command": ["/bin/sh", "-c", script],
        "resources": copy.deepcopy(CLEAR_RESOURCES),
        "securityContext": pod_security.container_security_context(),
        "volumeMounts": [{"name": "model-cache", "mountPath": storage["mount_path"]}],
    }
    if env:
        container["env"] = env
    volumes = [{"name": "model-cache", "persistentVolumeClaim": {"claimName": storage["pvc"]}}]
    pod_spec = _job_pod_spec(record, container, volumes, uid, job_affinity(record, follow_model_affinity=False))
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": storage[name_key], "namespace": record["namespace"], "labels": labels(record)},
        "spec": {
            "backoffLimit": 1,
            "ttlSecondsAfterFinished": 600,
            "activeDeadlineSeconds": int(active_deadline_seconds),
            "template": {"metadata": {"labels": labels(record)}, "spec": pod_spec},
        },
    }


def claim_users(objects, claim, skip_jobs=()):
    """``namespace/name`` of the pods (running or pending) or workloads (a pod template) that mount ``claim``.

    Pods of the Jobs named in ``skip_jobs`` (the collection's own) are left out.
    """
    users = []
    for obj in objects or []:
        meta = obj.get("metadata") or {}
        phase = (obj.get("status") or {}).get("phase")
        if obj.get("kind", "Pod") == "Pod" and phase in ("Succeeded", "Failed"):
            continue
        if (meta.get("labels") or {}).get("job-name") in skip_jobs:
            continue
        spec = obj.get("spec") or {}
        volumes = ((spec.get("template") or {}).get("spec") or spec).get("volumes") or []
        if any((v.get("persistentVolumeClaim") or {}).get("claimName") == claim for v in volumes):
            users.append("%s/%s" % (meta.get("namespace"), meta.get("name")))
    return sorted(users)


def spec_hash(spec):
    """A stable hash of the spec we asked for (the API adds defaults, so live specs are not compared)."""
    return hashlib.sha256(json.dumps(spec, sort_keys=True, separators=(",", ":")).encode("utf-8")).hexdigest()


def job_action(existing, wanted, replace_failed=True):
    """What to do with the live Job: ``create``, ``keep`` or ``replace``, and why."""
    if not existing:
        return "create", "no pull Job exists"
    have = ((existing.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_SPEC_HASH)
    want = wanted["metadata"]["annotations"][ANNOTATION_SPEC_HASH]
    if have != want:
        return "replace", "the Job's spec changed (Jobs are immutable)"
    if replace_failed and job_condition(existing, "Failed"):
        return "replace", "the previous Job failed; a new run retries"
    return "keep", "the Job is up to date"


def job_condition(job, kind):
    for condition in ((job or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind and condition.get("status") == "True":
            return condition
    return None


def parse_marker(text):
    """``key=value`` lines -> dict (unknown lines ignored). Integers for size, files and seconds."""
    result = {}
    revisions = []
    for line in (text or "").splitlines():
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key or " " in key:
            continue
        if key == "revision":
            fields = value.split() + ["", "", "", ""]
            revisions.append({"digest": fields[0], "commit": fields[1], "pulled_at": fields[2], "tag": fields[3]})
            continue
        result[key] = value.strip()
    if revisions:
        result["revisions"] = revisions
    for key in ("size", "files", "pull_seconds", "verify_seconds"):
        if key in result:
            try:
                result[key] = int(result[key])
            except ValueError:
                pass
    if "architectures" in result:
        result["architectures"] = [a for a in result["architectures"].split(",") if a]
    return result


def model_metadata(marker):
    """The config.json facts of a parsed marker."""
    return dict((key, marker.get(key) or ([] if key == "architectures" else None)) for key in METADATA_KEYS)


def pvc_annotations(marker):
    """PVC annotations recording what the claim holds."""
    annotations = {}
    for key in ANNOTATED_KEYS:
        value = marker.get(key)
        if value in (None, "", []):
            continue
        if key == "revisions":
            value = json.dumps(value, sort_keys=True, separators=(",", ":"))
        elif isinstance(value, list):
            value = ",".join(value)
        annotations[naming.annotation_key(key)] = str(value)
    return annotations


def settled_annotations(reported, current):
    """The annotations to record on a claim from a pull's report (pvc_annotations), given the claim's ``current`` ones.

    A Job kept from an earlier run reports the revisions the claim held then; when the claim already records
    that same pull (digest, pull and switch time), its own revisions list is newer (a prune may have shortened
    it) and is kept, so a re-run changes nothing.
    """
    current = current or {}
    same = all(reported.get(naming.annotation_key(key)) == current.get(naming.annotation_key(key))
               for key in ("digest", "pulled_at", "switched_at"))
    if same and ANNOTATION_REVISIONS in current:
        return dict(reported, **{ANNOTATION_REVISIONS: current[ANNOTATION_REVISIONS]})
    return reported


def claim_revisions(annotations):
    """The revisions a claim records (newest first): dicts with digest, commit, pulled_at, tag; [] if none."""
    try:
        found = json.loads((annotations or {}).get(ANNOTATION_REVISIONS) or "[]")
    except ValueError:
        return []
    return [r for r in found if isinstance(r, dict) and str(r.get("digest", "")).startswith("sha256:")]


def revisions_to_keep(annotations, keep=DEFAULT_KEEP_REVISIONS):
    """(kept, dropped) digests: the served revision plus the ``keep`` newest others stay on the claim."""
    served = (annotations or {}).get(ANNOTATION_DIGEST)
    others = [r["digest"] for r in claim_revisions(annotations) if r["digest"] != served]
    kept = ([served] if served else []) + others[:max(0, int(keep))]
    return kept, others[max(0, int(keep)):]


def rollback_target(annotations, digest=None):
    """The revision a rollback switches to: ``digest`` if given, else the newest kept one pulled before the
    served one (so a second rollback does not undo the first).

    Returns (revision or None, note): a named digest no longer on the claim comes back with
    ``kept: False`` (the rollback pulls it again); None with a note when no earlier revision is kept.
    """
    served = (annotations or {}).get(ANNOTATION_DIGEST)
    revisions = claim_revisions(annotations)
    if digest:
        for revision in revisions:
            if revision["digest"] == digest:
                return dict(revision, kept=True), None
        return {"digest": digest, "kept": False}, None
    served_at = ([r.get("pulled_at") or "" for r in revisions if r["digest"] == served] + [None])[0]
    older = [r for r in revisions if r["digest"] != served and (served_at is None or (r.get("pulled_at") or "") < served_at)]
    if older:
        return dict(max(older, key=lambda r: r.get("pulled_at") or ""), kept=True), None
    return None, ("the claim keeps no revision pulled before the served one (%s): nothing to roll back to. Name "
                  "one with rollback_digest (pulled again when not kept); model_storage_keep_revisions sets how "
                  "many are kept" % served)


def annotations_marker(annotations):
    """The reverse of pvc_annotations, for the cache listing."""
    marker = {}
    prefix = naming.ANNOTATION_PREFIX
    for key, value in (annotations or {}).items():
        if key.startswith(prefix) and key != ANNOTATION_REVISIONS:
            marker[key[len(prefix):].replace("-", "_")] = value
    parsed = parse_marker("\n".join("%s=%s" % item for item in sorted(marker.items())))
    if ANNOTATION_REVISIONS in (annotations or {}):
        parsed["revisions"] = claim_revisions(annotations)
    return parsed


def looked_up_claim_annotations(result):
    """The annotations of the claim a k8s_info loop result found; {} when it found none."""
    claims = (result or {}).get("resources") or []
    return ((claims[0].get("metadata") or {}).get("annotations") or {}) if claims else {}


def claim_pull_record(pvc):
    """What a claim records of its pull, by marker field (``digest``, ``pulled_at``, ...), plus its ``slug``
    label; a field the claim does not carry is left out (the cache listing)."""
    meta = (pvc or {}).get("metadata") or {}
    annotations = meta.get("annotations") or {}
    found = dict((key, annotations[naming.annotation_key(key)]) for key in ANNOTATED_KEYS
                 if naming.annotation_key(key) in annotations)
    if "revisions" in found:
        found["revisions"] = claim_revisions(annotations)
    slug = (meta.get("labels") or {}).get(naming.LABEL_SLUG)
    if slug is not None:
        found["slug"] = slug
    return found


def claim_reset_patch(record):
    """The merge patch of a model's claim that drops its record of the pull (every pvc_annotations key)."""
    storage = _storage(record)
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": storage["pvc"], "namespace": record["namespace"],
                         "annotations": dict((naming.annotation_key(key), None) for key in ANNOTATED_KEYS)}}


def claim_plan_problem(record, annotations):
    """Why a claim's recorded pull is not the plan's artifact (None when it is, or when nothing is recorded).

    The claim's ``reference`` annotation is the pinned reference the pull Job pulled
    (``host/repository@sha256:...``): its repository must be the plan's, and when the plan
    pins a digest (``harborRef`` with ``@sha256:``) the digest must be exactly that one.
    """
    annotations = annotations or {}
    digest = annotations.get(ANNOTATION_DIGEST)
    if not digest:
        return None
    oci = ((record or {}).get("storage") or {}).get("oci") or {}
    planned_repo = "%s/%s" % (oci.get("registry"), oci.get("repository"))
    reference = annotations.get(ANNOTATION_REFERENCE) or ""
    pulled_repo = reference.split("@", 1)[0]
    name = (record or {}).get("name") or (record or {}).get("slug")
    fix = "run model_storage first (site.yml --tags storage) so the claim holds the planned artifact"
    if pulled_repo and pulled_repo != planned_repo:
        return ("%s: its claim holds %s (%s), but the plan wants %s. Fix: %s"
                % (name, pulled_repo, digest, oci.get("reference") or planned_repo, fix))
    if oci.get("digest") and oci["digest"] != digest:
        return ("%s: its claim holds %s, but the plan pins %s. Fix: %s" % (name, digest, oci["digest"], fix))
    return None


def preflight_problem(slug, storage_size, storage_bytes, artifact_bytes, headroom_percent=10):
    """None when ``storage_bytes`` holds the artifact plus headroom; else the message to fail with."""
    artifact_bytes = int(artifact_bytes)
    needed = artifact_bytes + (artifact_bytes * int(headroom_percent) + 99) // 100
    if int(storage_bytes) >= needed:
        return None
    gib = 1024 ** 3
    suggested = max(1, -(-needed // gib))
    return ("%s: storageSize %s (%d bytes) cannot hold the artifact: its layers total %d bytes, %d with "
            "the %d%% headroom. Set modelSource.storageSize to at least %dGi; nothing was created"
            % (slug, storage_size, int(storage_bytes), artifact_bytes, needed, int(headroom_percent), suggested))


def claim_problems(record, pvc, replicas=1):
    """Problems with a user-owned claim (``pvc://``): it must exist, be Bound, and allow the replicas."""
    storage = record.get("storage") or {}
    name = storage.get("claim")
    namespace = storage.get("namespace") or record.get("namespace")
    where = "%s/%s" % (namespace, name)
    if not pvc:
        return ["%s: the user-owned claim %s does not exist. The collection never creates, changes or deletes a "
                "pvc:// claim: create it (bound to a volume holding the model under '%s'), or fix modelSource"
                % (record.get("slug"), where, storage.get("sub_path"))]
    problems = []
    status = pvc.get("status") or {}
    phase = status.get("phase")
    if phase != "Bound":
        problems.append("%s: the user-owned claim %s is %s, not Bound: it has no volume yet (kubectl describe pvc "
                        "%s -n %s shows why)" % (record.get("slug"), where, phase or "without a phase", name, namespace))
    modes = status.get("accessModes") or (pvc.get("spec") or {}).get("accessModes") or []
    if replicas > 1 and modes and all(mode in SINGLE_NODE_MODES for mode in modes):
        problems.append("%s: the user-owned claim %s is %s but %d serving replicas are planned: all but one would "
                        "fail to mount it. Use a ReadOnlyMany or ReadWriteMany claim, or plan one replica"
                        % (record.get("slug"), where, "/".join(modes), replicas))
    return problems


def pvc_conflicts(wanted, live):
    """Why an existing claim cannot be used as is (claims are never changed); empty when it fits."""
    if not live:
        return []
    problems = []
    wspec, lspec = wanted["spec"], live.get("spec") or {}
    if "storageClassName" in wspec and lspec.get("storageClassName") != wspec["storageClassName"]:
        problems.append("storageClassName is %r, the plan wants %r"
                        % (lspec.get("storageClassName"), wspec["storageClassName"]))
    if wspec.get("volumeName") and lspec.get("volumeName") and lspec["volumeName"] != wspec["volumeName"]:
        problems.append("it is bound to volume %s, the plan wants %s" % (lspec["volumeName"], wspec["volumeName"]))
    if lspec.get("accessModes") and lspec["accessModes"] != wspec["accessModes"]:
        problems.append("its access modes are %s, the plan wants %s (modelSource.accessMode)"
                        % (", ".join(lspec["accessModes"]), ", ".join(wspec["accessModes"])))
    return problems


def pv_conflicts(wanted, live):
    """Why an existing PV does not match the plan (path, node, claim)."""
    if not live or not wanted:
        return []
    problems = []
    wspec, lspec = wanted["spec"], live.get("spec") or {}
    if (lspec.get("hostPath") or {}).get("path") != wspec["hostPath"]["path"]:
        problems.append("its hostPath is %r, the plan wants %r"
                        % ((lspec.get("hostPath") or {}).get("path"), wspec["hostPath"]["path"]))
    if lspec.get("nodeAffinity") != wspec["nodeAffinity"]:
        problems.append("its node affinity differs from hostpathNode")
    ref = lspec.get("claimRef") or {}
    if ref and (ref.get("namespace"), ref.get("name")) != (wspec["claimRef"]["namespace"], wspec["claimRef"]["name"]):
        problems.append("it is claimed by %s/%s" % (ref.get("namespace"), ref.get("name")))
    return problems
