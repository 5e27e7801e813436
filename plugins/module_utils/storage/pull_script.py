# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shell scripts the model Jobs run in the ORAS image (busybox sh), kept apart from their manifests.

``PULL_SCRIPT`` pulls one pinned artifact into the claim, keeps earlier revisions beside it and
writes the marker (storage/marker.py parses it); ``PRUNE_SCRIPT`` drops the revisions no longer
kept; ``CLEAR_SCRIPT`` empties a claim. storage/manifests.py passes the inputs as ``AIPS_*``
environment variables. The unit tests run the scripts under busybox against a scripted oras
(tests/unit/plugins/module_utils/storage/test_pull_script.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

# The exit code of a failure no retry can fix (the pull Job's podFailurePolicy fails at once on it).
PERMANENT_EXIT_CODE = 42

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
#
# File counts: the marker's files= counts the artifact's layers, refs/main too (the fast path and the
# switch compare it with refs/main plus the snapshot on the claim, so markers already on claims stay
# valid); every count a user reads (the log lines and model_files=, which the claim annotations show)
# is the model's files, the snapshot's, as model_sync and the lock file count them.
PULL_SCRIPT = r"""set -eu
CACHE="$AIPS_CACHE_DIR"; HUB="$AIPS_WORKING_DIR"; MARKER="$AIPS_MARKER"
REF="$AIPS_PINNED_REFERENCE"; WANT="$AIPS_DIGEST"
STAGE="$CACHE/.pull-staging"; OLD="$CACHE/.pull-old"; ERR="${TMPDIR:-/tmp}/aips-pull-oras.err"
REVS="$CACHE/.revisions"; HEX="${WANT#sha256:}"; TAG="${AIPS_SOURCE_REFERENCE:-}"
SCRATCH="${TMPDIR:-/tmp}/aips-pull"
MEDIA_TYPES="${AIPS_LAYER_MEDIA_TYPES:-application/vnd.oci.image.layer.v1.tar}"
MODELPACK_TYPE=application/vnd.cncf.model.manifest.v1+json
MODELPACK_LAYERS="application/vnd.cncf.model.weight.v1.raw application/vnd.cncf.model.weight.config.v1.raw \
application/vnd.cncf.model.doc.v1.raw application/vnd.cncf.model.code.v1.raw application/vnd.cncf.model.dataset.v1.raw"
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
  for r in $(for f in "$REVS"/*; do case "$f" in *.layers) continue ;; esac
        [ -f "$f" ] && echo "$(sed -n 's/^seq=//p' "$f") ${f##*/}"; done \
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
# the bytes a record's revision holds on the claim, refs/main included (what rev_bytes counts): its size= is the
# artifact's layers, which hold refs/main unless refs_layer=0 (a ModelPack artifact: refs/main is written)
claim_bytes() {
  size=$(field_of size "$1")
  if [ -n "$size" ] && [ "$(field_of refs_layer "$1")" = 0 ]; then echo $((size + ${#2})); else echo "$size"; fi
}
# the model's files of a revision count that holds refs/main too (rev_files, the marker's files=), for the logs
model_count() {
  if [ "${1:-0}" -gt 0 ] 2>/dev/null; then echo $(($1 - 1)); else echo 0; fi
}
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
# Model files of the artifact that are finished in the staging dir (refs/main is no model file): their size is
# their layer's size. oras (oras-go's
# file store) creates each file under its own name at the start of its download and writes it in place (no
# temporary name, no preallocation), so a file present is a file started; its layer size is the manifest's
# (layers.txt: digest size media-type unpack= title, the title last and possibly with spaces).
finished_files() {
  (cd "$STAGE/hub" && find . -type f -exec stat -c '%s %n' {} + 2>/dev/null) | awk '
    NR == FNR { title = $0; for (i = 0; i < 4; i++) sub(/^[^ ]* /, "", title)
                if (title !~ /\/refs\/main$/) want[title] = $2; next }
    { name = $0; sub("^[^ ]* [.]/", "", name); if ((name in want) && want[name] + 0 == $1 + 0) n++ }
    END { print n + 0 }' "$SCRATCH/layers.txt" -
}
# One line every AIPS_PROGRESS_SECONDS while oras pulls, for plain logs: bytes on the claim, rate, ETA, files
# finished.
progress() {
  every="${AIPS_PROGRESS_SECONDS:-10}"; since=$(date +%s)
  # (sleep's output is not the log's: a sleep left behind when the loop is killed holds no pipe open)
  while sleep "$every" </dev/null >/dev/null 2>&1; do
    got=$(tree_bytes "$STAGE/hub"); files=$(finished_files)
    secs=$(($(date +%s) - since)); [ "$secs" -gt 0 ] || secs=1
    rate=$((got / secs)); pct=100; eta="unknown"
    [ "$total" -le 0 ] || pct=$((got * 100 / total))
    [ "$rate" -le 0 ] || eta="$(((total - got) / rate))s"
    log "progress: $(human "$got") of $(human "$total") ($pct%), $(human "$rate")/s, ETA $eta, $files of $model_files files"
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
  bytes=$(rev_bytes "$folder" "$commit"); want_bytes=$(claim_bytes "$MARKER" "$commit")
  served=$commit
  [ -z "$commit" ] || served=$(cat "$HUB/$folder/refs/main" 2>/dev/null || true)
  if [ "$have" = "${want:-x}" ] && [ "$bytes" = "${want_bytes:-x}" ] && [ "$served" = "$commit" ]; then
    log "marker holds $WANT: the cache is current, nothing to pull (reusing the verified copy of $(model_count "$have") files)"
    report "reused=true"
    exit 0
  fi
  log "marker holds $WANT but hub/ has $(model_count "$have") of its $(model_count "$want") files, $bytes of its \
$want_bytes bytes: pulling afresh"
fi
# a revision kept on the claim (an earlier pull, verified then): switch back to it without a download
if [ -f "$REVS/$HEX" ] && [ -w "$CACHE" ]; then
  folder=$(field_of repo "$REVS/$HEX"); commit=$(field_of commit "$REVS/$HEX")
  have=$(rev_files "$folder" "$commit"); want=$(field_of files "$REVS/$HEX")
  bytes=$(rev_bytes "$folder" "$commit"); want_bytes=$(claim_bytes "$REVS/$HEX" "$commit")
  if [ -n "$commit" ] && [ "$have" = "${want:-x}" ] && [ "$bytes" = "${want_bytes:-x}" ]; then
    log "$WANT is kept on the claim (commit $commit, $(model_count "$have") files): switching to it, nothing to download"
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
  log "$WANT is recorded on the claim but its snapshot has $(model_count "$have") of $(model_count "$want") files, \
$bytes of $want_bytes bytes: pulling afresh"
  rm -f "$REVS/$HEX" "$REVS/$HEX.layers"
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
HEAD='{{with .content.artifactType}}{{.}}{{else}}none{{end}} '
HEAD="$HEAD"'rev={{with .content.annotations}}{{with index . "dev.ai-platform.serving.hf.revision"}}{{.}}{{end}}{{end}}{{"\n"}}'
run_oras manifest fetch --format go-template="$HEAD" "$REF" >"$SCRATCH/head.txt"
read -r ATYPE AREV <"$SCRATCH/head.txt" || true
MODELPACK=0; SYNTH=0
if [ "$ATYPE" = "$MODELPACK_TYPE" ]; then
  # A CNCF ModelPack artifact: each raw layer is a file of the snapshot, at its org.cncf.model.filepath (oras
  # writes it at its title: the two must agree). The snapshot is named by the commit the collection's publisher
  # records, else by the manifest digest (an artifact another client pushed); refs/main is written, not pulled.
  # The layer list is rewritten as hub cache paths plus refs/main, as the hf-cache format has them, so
  # everything below (reuse of files kept on the claim, progress, verification, records) reads one shape.
  MODELPACK=1
  FOLDER="${AIPS_REPO_FOLDER:-}"
  case "$FOLDER" in
    models--?*) ;;
    *) fail 42 "a ModelPack artifact needs the model's hub cache folder (AIPS_REPO_FOLDER, models--<org>--<name>)" ;;
  esac
  COMMIT=${AREV#rev=}
  [ -n "$COMMIT" ] || COMMIT=$(printf '%s' "$HEX" | cut -c1-40)
  case "$COMMIT" in
    *[!0-9A-Za-z._-]*|.|..) fail 42 "the artifact's revision annotation '$COMMIT' is not a plain name" ;;
  esac
  FPS='{{range .content.layers}}{{with .annotations}}{{with index . "org.cncf.model.filepath"}}{{.}}{{end}}{{end}}'
  FPS="$FPS"'{{"\n"}}{{end}}'
  run_oras manifest fetch --format go-template="$FPS" "$REF" >"$SCRATCH/filepaths.txt"
  n=0; : >"$SCRATCH/hub-layers.txt"
  while read -r digest size mtype unpack title; do
    n=$((n + 1)); fp=$(sed -n "${n}p" "$SCRATCH/filepaths.txt")
    case "$mtype" in
      application/vnd.cncf.model.*.tar|application/vnd.cncf.model.*.tar+gzip|application/vnd.cncf.model.*.tar+zstd)
        fail 42 "layer ${title:-$digest} is a ModelPack archive ($mtype): the pull lays out raw file layers only; \
publish the model one file per layer (model_sync does)" ;;
    esac
    case " $MODELPACK_LAYERS " in
      *" $mtype "*) ;;
      *) fail 42 "layer ${title:-$digest} has media type $mtype, not a ModelPack file layer ($MODELPACK_LAYERS)" ;;
    esac
    [ -n "$title" ] || fail 42 "layer $digest ($fp) has no title: oras could not write it"
    [ -z "$fp" ] || [ "$fp" = "$title" ] || fail 42 "layer $digest is titled '$title' but its org.cncf.model.filepath \
is '$fp': the two must name the same file"
    case "/$title/" in
      *//*|*/../*|*/./*) fail 42 "layer title '$title' is not a plain relative path (empty, '.' or '..' parts)" ;;
    esac
    case "$title" in /*) fail 42 "layer title '$title' is absolute" ;; esac
    echo "$digest $size - $unpack $FOLDER/snapshots/$COMMIT/$title" >>"$SCRATCH/hub-layers.txt"
  done <"$SCRATCH/layers.txt"
  echo "sha256:$(printf '%s' "$COMMIT" | sha256sum | cut -d' ' -f1) ${#COMMIT} - unpack= $FOLDER/refs/main" \
    >>"$SCRATCH/hub-layers.txt"
  mv "$SCRATCH/hub-layers.txt" "$SCRATCH/layers.txt"
  SYNTH=${#COMMIT}   # the refs/main line above is no layer of the artifact: its bytes are not fetched or counted
fi
count=0; model_files=0; total=0; [ "$MODELPACK" = 1 ] || { FOLDER=""; COMMIT=""; }
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
    *) [ "$MODELPACK" = 1 ] || fail 42 "layer $title has media type $mtype, expected one of: $MEDIA_TYPES" ;;
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
      COMMIT=$this_commit; model_files=$((model_files + 1)) ;;
    *) fail 42 "layer title '$title' is neither $this_folder/refs/main nor $this_folder/snapshots/<commit>/<file>" ;;
  esac
  count=$((count + 1)); total=$((total + size))
done <"$SCRATCH/layers.txt"
[ "$count" -gt 0 ] || fail 42 "the artifact has no titled layers"
[ -n "$COMMIT" ] || fail 42 "the artifact has no snapshots/<commit>/ files"
# 2. the layers a revision kept on the claim already holds (its layer list, $REVS/<hex>.layers: digest size title,
# written when its pull was verified) are taken from there (a hard link, a copy where linking fails); only the
# others come from the registry. Every file is hashed against the manifest before the switch, a local one always.
HAVE="$SCRATCH/have.txt"; : >"$HAVE"; unlisted=0
for r in "$REVS"/*; do
  [ -f "$r" ] || continue
  case "$r" in
    *.layers)
      [ -f "${r%.layers}" ] || continue
      while read -r d s t; do
        case "$t" in */refs/main|"") continue ;; esac
        if [ -f "$HUB/$t" ] && [ "$(stat -c %s "$HUB/$t")" = "$s" ]; then echo "$d $t"; fi
      done <"$r" >>"$HAVE" ;;
    *) [ -f "$r.layers" ] || unlisted=$((unlisted + 1)) ;;
  esac
done
if [ -f "$MARKER" ] && [ ! -f "$REVS/$(field_of digest "$MARKER" | sed 's/^sha256://').layers" ]; then unlisted=$((unlisted + 1)); fi
local_of() { grep -m 1 "^$1 " "$HAVE" | cut -d' ' -f2-; }
reuse_files=0; reuse_bytes=0; fetch_files=0; fetch_bytes=0
while read -r digest size mtype unpack title; do
  case "$title" in */refs/main) continue ;; esac
  if [ -n "$(local_of "$digest")" ]; then
    reuse_files=$((reuse_files + 1)); reuse_bytes=$((reuse_bytes + size))
  else
    fetch_files=$((fetch_files + 1)); fetch_bytes=$((fetch_bytes + size))
  fi
done <"$SCRATCH/layers.txt"
[ "$reuse_files" -gt 0 ] || [ "$unlisted" -eq 0 ] || log "the revisions on the claim were recorded without a layer list \
(pulled before this release): downloading every file"
# refs/main (the commit, the one layer not a model file) counts with the files to fetch until it is written locally
ref_bytes=$((total - reuse_bytes - fetch_bytes))
# hard links take no room; copies do (counted in full when a trial link on the claim fails)
copy_bytes=0
if [ "$reuse_files" -gt 0 ]; then
  first=$(head -n 1 "$HAVE" | cut -d' ' -f2-)
  rm -f "$CACHE/.pull-link-test"
  if ln "$HUB/$first" "$CACHE/.pull-link-test" 2>/dev/null; then rm -f "$CACHE/.pull-link-test"; else copy_bytes=$reuse_bytes; fi
fi
free=$(free_bytes)
if [ "$reuse_files" -gt 0 ]; then
  fetch=$((fetch_bytes + ref_bytes + copy_bytes)); need=$((fetch + fetch / 100))
  what="$fetch_files files to fetch, $((fetch_bytes + ref_bytes)) bytes, $copy_bytes bytes of copies of the files on the claim"
else
  need=$((total + total / 100)); what="$model_files files, $total bytes"
fi
# room for the new copy beside the verified one, which is never removed before the new one is verified
if [ "$free" -lt "$need" ]; then
  kept="the claim is empty"
  [ -f "$MARKER" ] && kept="the verified copy ($(grep '^digest=' "$MARKER" || echo 'no digest')) and its marker are kept"
  fail 42 "not enough free space on the claim: the pull needs $need bytes ($what, plus 1%), \
$free are free; $kept. Grow modelSource.storageSize to hold both copies, or clear the claim (playbooks/cache.yml) first"
fi
rm -rf "$STAGE" "$OLD"
mkdir -p "$STAGE/hub" "$SCRATCH/local"
started=$(date +%s)
cd "$STAGE/hub"
progress &
PROGRESS=$!
trap 'kill "$PROGRESS" 2>/dev/null || true' EXIT
# one blob into a file of the staging dir (ERR per call: the fetches run side by side)
fetch_blob() { mkdir -p "$(dirname "$2")"; (ERR="$SCRATCH/oras.$3.err"; run_oras blob fetch --output "$2" "${REF%@*}@$1" </dev/null); }
if [ "$reuse_files" -eq 0 ]; then
  fetched_files=$model_files; fetched_bytes=$((total - SYNTH))
  log "pulling $REF ($model_files files, $((total - SYNTH)) bytes; $free bytes free)"
  if [ "$MODELPACK" = 1 ]; then
    # ModelPack titles are paths in the snapshot; refs/main holds the commit the snapshot is named by
    mkdir -p "$FOLDER/snapshots/$COMMIT" "$FOLDER/refs"
    printf '%s' "$COMMIT" >"$FOLDER/refs/main"
    (cd "$FOLDER/snapshots/$COMMIT" && run_oras pull --concurrency "${AIPS_CONCURRENCY:-4}" "$REF")
  else
    run_oras pull --concurrency "${AIPS_CONCURRENCY:-4}" "$REF"
  fi
else
  log "reusing $reuse_files files ($(human "$reuse_bytes")) from revisions on the claim; fetching $fetch_files files \
($(human "$fetch_bytes")) of $REF ($free bytes free)"
  n=0; pids=""; running=0; fetched_files=0; fetched_bytes=0
  while read -r digest size mtype unpack title; do
    n=$((n + 1)); src=$(local_of "$digest")
    case "$title" in
      */refs/main)
        mkdir -p "$(dirname "$title")"; printf '%s' "$COMMIT" >"$title"
        if [ "sha256:$(sha256sum "$title" | cut -d' ' -f1)" = "$digest" ]; then continue; fi
        rm -f "$title"; src="" ;;
    esac
    if [ -n "$src" ]; then
      mkdir -p "$(dirname "$title")"
      ln "$HUB/$src" "$title" 2>/dev/null || cp "$HUB/$src" "$title"
      echo "$src" >"$SCRATCH/local/$n"
      continue
    fi
    case "$title" in */refs/main) ;; *) fetched_files=$((fetched_files + 1)) ;; esac
    fetched_bytes=$((fetched_bytes + size))
    fetch_blob "$digest" "$title" "$n" &
    pids="$pids $!"; running=$((running + 1))
    if [ "$running" -ge "${AIPS_CONCURRENCY:-4}" ]; then
      for p in $pids; do wait "$p" || exit $?; done; pids=""; running=0
    fi
  done <"$SCRATCH/layers.txt"
  for p in $pids; do wait "$p" || exit $?; done
fi
kill "$PROGRESS" 2>/dev/null || true
wait "$PROGRESS" 2>/dev/null || true
pulled=$(date +%s)
secs=$((pulled - started)); [ "$secs" -gt 0 ] || secs=1
log "pulled $(human "$fetched_bytes") in $((pulled - started))s ($(human $((fetched_bytes / secs)))/s); verifying"
n=0; SUMS="$SCRATCH/sums"; mkdir -p "$SUMS"
while read -r digest size mtype unpack title; do
  [ -f "$title" ] || fail 42 "layer $title was not pulled"
  n=$((n + 1))
  # with verify off, oras pull checks each blob while it writes it; files from the claim are hashed always, and so
  # are blobs fetched one by one beside them (the changed files); as many at a time as oras pulls
  if [ "${AIPS_VERIFY:-1}" = 1 ] || [ "$reuse_files" -gt 0 ]; then
    sha256sum "$title" | cut -d' ' -f1 >"$SUMS/$n" &
    [ $((n % ${AIPS_CONCURRENCY:-4})) -ne 0 ] || wait
  fi
done <"$SCRATCH/layers.txt"
wait
n=0; reused_files=0; reused_bytes=0
while read -r digest size mtype unpack title; do
  n=$((n + 1))
  [ -f "$SUMS/$n" ] || continue
  sum="sha256:$(cat "$SUMS/$n")"
  if [ -f "$SCRATCH/local/$n" ]; then
    if [ "$sum" = "$digest" ]; then
      reused_files=$((reused_files + 1)); reused_bytes=$((reused_bytes + size)); continue
    fi
    # a file on the claim changed since its pull was verified: fetch this one (its own revision keeps its copy)
    log "$(cat "$SCRATCH/local/$n") on the claim holds $sum, the manifest says $digest: fetching $title"
    rm -f "$title"
    fetch_blob "$digest" "$title" "$n" || exit $?
    fetched_files=$((fetched_files + 1)); fetched_bytes=$((fetched_bytes + size))
    sum="sha256:$(sha256sum "$title" | cut -d' ' -f1)"
  fi
  [ "$sum" = "$digest" ] || fail 42 "$title holds $sum, the manifest says $digest"
done <"$SCRATCH/layers.txt"
verified=$(date +%s)
log "verified $model_files files, $((total - SYNTH)) bytes in $((verified - pulled))s"
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
    case "$r" in *.layers) continue ;; esac
    [ -f "$r" ] && grep -qx "commit=$COMMIT" "$r" && rm -f "$r" "$r.layers"
  done
fi
mv "$STAGE/hub/$FOLDER/snapshots/$COMMIT" "$SNAP"
{
  echo "digest=$WANT"
  echo "reference=$REF"
  echo "tag=$TAG"
  echo "repo=$FOLDER"
  echo "commit=$COMMIT"
  echo "size=$((total - SYNTH))"
  if [ "$MODELPACK" = 1 ]; then echo "refs_layer=0"; fi
  echo "files=$count"
  echo "model_files=$model_files"
  echo "pulled_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "pull_seconds=$((pulled - started))"
  echo "verify_seconds=$((verified - pulled))"
  echo "fetched_bytes=$fetched_bytes"
  echo "fetched_files=$fetched_files"
  echo "reused_files=$reused_files"
  echo "reused_bytes=$reused_bytes"
  echo "architectures=$archs"
  echo "model_type=$mtype"
  echo "torch_dtype=$dtype"
  echo "transformers_version=$tversion"
  echo "seq=$(next_seq)"
} >"$REVS/.$HEX.tmp"
# its layer list first (digest size title), so that every record with a list names a verified snapshot
awk '{ d = $1; s = $2; for (i = 0; i < 4; i++) sub(/^[^ ]* /, ""); print d, s, $0 }' "$SCRATCH/layers.txt" >"$REVS/.$HEX.layers.tmp"
mv "$REVS/.$HEX.layers.tmp" "$REVS/$HEX.layers"
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

# The clear Job: empty the claim (hub cache, marker, staging, revisions), then list what is left.
CLEAR_SCRIPT = ("rm -rf /model-cache/hub /model-cache/.pulled /model-cache/.pulled.tmp /model-cache/.pull-* "
                "/model-cache/.revisions && ls -A /model-cache")

# Keep the revisions named in AIPS_KEEP (manifest digests, space separated) and the served one; remove every
# other snapshot and its record. A snapshot a kept revision or refs/main names is never removed.
PRUNE_SCRIPT = r"""set -eu
CACHE="$AIPS_CACHE_DIR"; HUB="$AIPS_WORKING_DIR"; REVS="$CACHE/.revisions"; MARKER="$AIPS_MARKER"
keep=" $AIPS_KEEP $(sed -n 's/^digest=//p' "$MARKER" 2>/dev/null) "
keep_commits=" "
for r in "$REVS"/*; do
  [ -f "$r" ] || continue
  case "$r" in *.layers) continue ;; esac
  case "$keep" in *" sha256:${r##*/} "*) keep_commits="$keep_commits$(sed -n 's/^commit=//p' "$r") " ;; esac
done
for ref in "$HUB"/models--*/refs/main; do [ -f "$ref" ] && keep_commits="$keep_commits$(cat "$ref") "; done
for r in "$REVS"/*; do
  [ -f "$r" ] || continue
  case "$r" in *.layers) [ -f "${r%.layers}" ] || rm -f "$r"; continue ;; esac
  case "$keep" in *" sha256:${r##*/} "*) continue ;; esac
  echo "model-prune: dropping sha256:${r##*/} ($(sed -n 's/^tag=//p' "$r"), commit $(sed -n 's/^commit=//p' "$r"))"
  rm -f "$r" "$r.layers"
done
for snap in "$HUB"/models--*/snapshots/*; do
  [ -d "$snap" ] || continue
  case "$keep_commits" in *" ${snap##*/} "*) continue ;; esac
  echo "model-prune: removing ${snap#"$HUB"/}"
  rm -rf "$snap"
done
echo "model-prune: kept $(ls "$REVS" 2>/dev/null | grep -v '[.]layers$' | wc -l) revision(s)"
"""
