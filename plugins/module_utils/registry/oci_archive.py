# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Container images and Helm charts carried across an air gap.

Images: ``skopeo copy docker://… oci-archive:…`` on the internet side, then
``oci-archive:… → docker://harbor/…`` (digests preserved) on the air-gapped
side.  Charts: ``helm pull`` to a ``.tgz``, then ``helm push`` to Harbor as an
OCI chart.  Every step first compares digests and does nothing when they
already match.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import concurrent.futures
import hashlib
import json
import os
import re
import subprocess
import tarfile
import time

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import source_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.sync.hf_cache import hash_file

HELM_CHART_LAYER = "application/vnd.cncf.helm.chart.content.v1.tar+gzip"


def run(argv):
    """Run a tool (Go's HTTP client kept on HTTP/1.1, registry.go_http1_env); return (rc, stdout bytes, stderr text)."""
    # pylint: disable-next=ansible-bad-function  # no AnsibleModule here (bundle_item and tests call it); stdout is bytes
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, check=False,
                          env=registry.go_http1_env())
    return proc.returncode, proc.stdout, proc.stderr.decode("utf-8", "replace")


def sha256_bytes(data):
    return "sha256:" + hashlib.sha256(data).hexdigest()


def sha256_file(path):
    return "sha256:" + hash_file(path)[0]


def registry_of(image):
    """Registry host of an image reference (docker.io when the first part is not a host)."""
    first = image.split("/", 1)[0]
    if "/" in image and ("." in first or ":" in first or first == "localhost"):
        return first
    return "docker.io"


class Skopeo:
    """skopeo with one private auth dir; credentials and CA never appear on argv."""

    def __init__(self, binary, auth, tls_verify=True):
        self.binary = binary
        self.auth = auth
        self.tls_verify = tls_verify

    def _remote(self, prefix=""):
        """Auth, CA and TLS flags; ``prefix`` is "", "src-" or "dest-"."""
        args = ["--%sauthfile" % prefix, self.auth.config]
        if self.auth.ca_file:
            args += ["--%scert-dir" % prefix, self.auth.cert_dir]
        args.append("--%stls-verify=%s" % (prefix, "true" if self.tls_verify else "false"))
        return args

    def raw_manifest(self, transport_ref, remote=True):
        """Raw manifest bytes or None when the reference does not exist; raise on other errors."""
        argv = [self.binary, "inspect", "--raw"] + (self._remote() if remote else []) + [transport_ref]
        rc, out, err = run(argv)
        if rc == 0:
            return out
        if registry.is_not_found(err) or "no such file" in err.lower():
            return None
        raise registry.RegistryError(err)

    def copy(self, src, dest, src_remote, dest_remote, all_platforms):
        argv = [self.binary, "copy", "--preserve-digests", "--retry-times", "3"]
        if all_platforms:
            argv.append("--all")
        if src_remote:
            argv += self._remote("src-")
        if dest_remote:
            argv += self._remote("dest-")
        rc, _out, err = run(argv + [src, dest])
        if rc != 0:
            raise registry.RegistryError(err)


def manifest_digest(raw):
    return sha256_bytes(raw) if raw is not None else None


def chart_layer_digest(raw):
    """Digest of the chart tarball layer in a Helm OCI manifest, or None."""
    if raw is None:
        return None
    try:
        manifest = json.loads(raw)
    except ValueError:
        return None
    for layer in manifest.get("layers") or []:
        if layer.get("mediaType") == HELM_CHART_LAYER:
            return layer.get("digest")
    return None


def chart_archive_name(name, version):
    return "%s-%s.tgz" % (name, version)


def _helm_tls(ca_file, validate_certs):
    argv = ["--ca-file", ca_file] if ca_file else []
    if not validate_certs:
        argv.append("--insecure-skip-tls-verify")
    return argv


def helm_pull_argv(helm, chart, version, destination, repo_url=None, registry_config=None, ca_file=None,
                   validate_certs=True):
    argv = [helm, "pull", chart, "--version", version, "--destination", destination]
    if repo_url:
        argv += ["--repo", repo_url]
    if registry_config:
        argv += ["--registry-config", registry_config]
    return argv + _helm_tls(ca_file, validate_certs)


def helm_push_argv(helm, archive, oci_base, registry_config, ca_file=None, plain_http=False, validate_certs=True):
    argv = [helm, "push", archive, oci_base, "--registry-config", registry_config] + _helm_tls(ca_file, validate_certs)
    if plain_http:
        argv.append("--plain-http")
    return argv


def archive_exists(path):
    return os.path.isfile(path) and os.path.getsize(path) > 0


def _fail(tool, host, params, err, user_key="username"):
    return registry.RegistryError(registry.redact(
        registry.explain_failure(tool, host, params.get(user_key), str(err)), [params.get("password")],
        [params.get(user_key)]))


def save_image(params, check_mode, skopeo):
    """docker://image -> oci-archive:archive, skipped when the archive already holds the pinned digest."""
    archive, pin = params["archive"], params["digest"]
    host = registry_of(params["image"])
    # source_ref: any skopeo transport (oci:layout:ref, say) instead of docker://image.
    source = params.get("source_ref") or "docker://" + source_reference(params["image"], pin)
    source_remote = source.startswith("docker://")
    if params.get("compare_source") and not pin:
        # Without a pin, the source's current digest decides whether the archive is current.
        try:
            pin = manifest_digest(skopeo.raw_manifest(source, remote=source_remote))
        except registry.RegistryError as exc:
            raise _fail("skopeo", host, params, exc)
        if pin is None:
            raise registry.RegistryError("%s: the source %s does not exist" % (params["image"], source))
        if source_remote and not params.get("source_ref"):
            source = "docker://" + source_reference(params["image"], pin)
    have = manifest_digest(skopeo.raw_manifest("oci-archive:" + archive, remote=False)) \
        if archive_exists(archive) else None
    result = dict(changed=False, archive=archive, digest=have, image=params["image"])
    if have and (pin is None or have == pin) and not params["force"]:
        return result
    result["changed"] = True
    if check_mode:
        result["digest"] = pin
        return result
    os.makedirs(os.path.dirname(os.path.abspath(archive)), exist_ok=True)
    partial = archive + ".partial"
    if os.path.exists(partial):
        os.remove(partial)
    try:
        skopeo.copy(source, "oci-archive:" + partial, source_remote, False, params["all_platforms"])
    except registry.RegistryError as exc:
        raise _fail("skopeo", host, params, exc)
    got = manifest_digest(skopeo.raw_manifest("oci-archive:" + partial, remote=False))
    if pin and got != pin:
        os.remove(partial)
        raise registry.RegistryError("%s saved with digest %s, not the pinned %s (a multi-platform index "
                                     "needs all_platforms: true)" % (params["image"], got, pin))
    os.rename(partial, archive)
    result["digest"] = got
    return result


DIGEST_MISMATCH_RE = re.compile(r"Digest did not match, expected (sha256:[0-9a-f]{64})")


def corrupted_blob(output):
    """The digest of the blob skopeo found corrupted while reading a source (containers/image's message), or None."""
    match = DIGEST_MISMATCH_RE.search(output or "")
    return match.group(1) if match else None


def push_image(params, check_mode, skopeo):
    """oci-archive:archive -> docker://destination, skipped when the registry has the same digest.

    With ``expected_digest`` (a bundle lock's), an archive holding another manifest is refused before any
    upload; skopeo checks every blob it reads against its digest, so a corrupted layer fails the copy before
    the manifest is pushed.
    """
    host = registry_of(params["destination"])
    if not archive_exists(params["archive"]):
        raise registry.RegistryError("archive %s does not exist: run the download step first" % params["archive"])
    local = manifest_digest(skopeo.raw_manifest("oci-archive:" + params["archive"], remote=False))
    if params.get("expected_digest") and local != params["expected_digest"]:
        raise registry.RegistryError("archive %s holds the manifest %s, not the expected %s (replaced or corrupted): "
                                     "nothing was pushed" % (params["archive"], local, params["expected_digest"]))
    try:
        remote = manifest_digest(skopeo.raw_manifest("docker://" + params["destination"]))
    except registry.RegistryError as exc:
        raise _fail("skopeo", host, params, exc)
    result = dict(changed=remote != local, archive=params["archive"], digest=local,
                  destination=params["destination"], previous_digest=remote)
    if not result["changed"] or check_mode:
        return result
    try:
        skopeo.copy("oci-archive:" + params["archive"], "docker://" + params["destination"],
                    False, True, params["all_platforms"])
        after = manifest_digest(skopeo.raw_manifest("docker://" + params["destination"]))
    except registry.RegistryError as exc:
        corrupted = corrupted_blob(str(exc))
        if corrupted:
            raise registry.RegistryError("blob %s of archive %s does not match its digest (corrupted): skopeo refused it "
                                         "while reading, no manifest naming it was pushed and the tag did not move"
                                         % (corrupted, params["archive"]))
        raise _fail("skopeo", host, params, exc)
    if after != local:
        raise registry.RegistryError("%s holds %s after the upload, expected %s" % (params["destination"], after, local))
    return result


def chart_package_problem(path):
    """Why ``path`` is not a chart package (a gzipped tar with ``<chart>/Chart.yaml``), or None."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            for member in tar:
                if member.name.count("/") == 1 and member.name.endswith("/Chart.yaml"):
                    return None
    except (tarfile.TarError, OSError, EOFError) as exc:
        return "not a gzipped tar: %s" % exc
    return "no <chart>/Chart.yaml in it"


def save_chart(params, check_mode, helm_run):
    """helm pull a pinned chart version into ``destination`` unless the .tgz is already there."""
    archive = os.path.join(params["destination"], chart_archive_name(params["name"], params["version"]))
    result = dict(changed=False, archive=archive, digest=None)
    if archive_exists(archive) and not params["force"]:
        result["digest"] = sha256_file(archive)
        if params["digest"] and result["digest"] != params["digest"]:
            raise registry.RegistryError("%s has digest %s, not the pinned %s: remove it or set force"
                                         % (archive, result["digest"], params["digest"]))
        return result
    result["changed"] = True
    if check_mode:
        return result
    os.makedirs(params["destination"], exist_ok=True)
    argv = helm_pull_argv(params["helm_path"], params["chart"], params["version"], params["destination"],
                          params["repo_url"], helm_run.auth.config, params["ca_file"], params.get("validate_certs", True))
    helm_run(argv, registry_of(params["chart"].replace("oci://", "")) if params["chart"].startswith("oci://")
             else params["repo_url"])
    if not archive_exists(archive):
        raise registry.RegistryError("helm pull did not write %s (is the chart name %r right?)"
                                     % (archive, params["name"]))
    result["digest"] = sha256_file(archive)
    if params["digest"] and result["digest"] != params["digest"]:
        os.remove(archive)
        raise registry.RegistryError("%s downloaded with digest %s, not the pinned %s"
                                     % (archive, result["digest"], params["digest"]))
    return result


def push_chart(params, check_mode, skopeo, helm_run):
    """helm push the .tgz as ``oci://<repository>/<name>:<version>`` unless that tag holds the same tarball."""
    archive = params["archive"]
    if not archive_exists(archive):
        raise registry.RegistryError("chart archive %s does not exist: run the download step first" % archive)
    base = params["repository"].rstrip("/")
    target = "%s/%s:%s" % (base, params["name"], params["version"])
    host = registry_of(base)
    local = sha256_file(archive)
    try:
        raw = skopeo.raw_manifest("docker://" + target)
    except registry.RegistryError as exc:
        raise _fail("skopeo", host, params, exc)
    remote = chart_layer_digest(raw)
    # manifest_digest: what `helm install oci://<repository>/<name>@<digest>` pins (None in check mode
    # before a push)
    result = dict(changed=remote != local, archive=archive, digest=local, reference=target,
                  manifest_digest=manifest_digest(raw) if remote == local else None)
    if result["changed"] and not check_mode:
        problem = chart_package_problem(archive)
        if problem:
            raise registry.RegistryError("chart archive %s is not a Helm chart package (%s): remove it and run the "
                                         "download step (charts_download) again" % (archive, problem))
        try:
            helm_run(helm_push_argv(params["helm_path"], archive, "oci://" + base, helm_run.auth.config,
                                    params["ca_file"], params["plain_http"], params.get("validate_certs", True)), host)
        except registry.RegistryError:
            # another run pushing the same chart at the same moment: the registry may fail this push's own
            # read-back (docker-registry 2.8 answered 500 to a GET of the manifest while the other run PUT the same
            # tag); the push counts when the tag now holds this very tarball, else the error stands
            if not _holds(skopeo, target, local):
                raise
        try:
            result["manifest_digest"] = manifest_digest(skopeo.raw_manifest("docker://" + target))
        except registry.RegistryError as exc:
            raise _fail("skopeo", host, params, exc)
    return result


def _holds(skopeo, target, digest, tries=3, pause=1.0):
    """Whether the chart tag ``target`` holds the tarball ``digest`` (read up to ``tries`` times, ``pause`` s
    apart: a registry in the middle of another writer's push may fail a read)."""
    for attempt in range(tries):
        try:
            if chart_layer_digest(skopeo.raw_manifest("docker://" + target)) == digest:
                return True
        except registry.RegistryError:
            pass
        if attempt + 1 < tries:
            time.sleep(pause)
    return False


class HelmRunner:
    """Runs helm with the private registry config; raises a clear, redacted error on failure."""

    def __init__(self, auth, params):
        self.auth = auth
        self.params = params

    def __call__(self, argv, host):
        rc, out, err = run(argv)
        if rc != 0:
            raise _fail("helm", host, self.params, err + out.decode("utf-8", "replace"))
        return out


# What a ``charts`` entry of chart_archive may set; the rest of a chart's parameters are the module's own.
CHART_FIELDS = ("name", "version", "chart", "repo_url", "digest", "archive", "repository")
# What each state needs of every chart, and what to set it to.
CHART_NEEDS = {
    "saved": (("chart", "what helm pull takes, oci://…/<name> or the chart name with repo_url"),),
    "pushed": (("repository", "the OCI repository to push to, without scheme"),),
}


def chart_missing_options(params):
    """The options of chart_archive that ``params["state"]`` needs and that are unset or empty."""
    needs = ["destination"] if params["state"] == "saved" else []
    if params.get("charts") is None:
        needs += ["chart"] if params["state"] == "saved" else ["archive", "repository"]
    return [option for option in needs if not params.get(option)]


def chart_credentials(params):
    """``{registry: (username, password)}`` for every registry the chart(s) of ``params`` are pushed to
    (``repository``, state=pushed) or pulled from (an ``oci://`` ``chart``, state=saved); the one user and
    password serve them all."""
    entries = params.get("charts") or [params]
    if params["state"] == "pushed":
        targets = [entry.get("repository") for entry in entries]
    else:
        targets = [entry["chart"][len("oci://"):] for entry in entries if (entry.get("chart") or "").startswith("oci://")]
    return dict((registry_of(target), (params.get("username"), params.get("password"))) for target in targets if target)


def chart_label(entry):
    return "%s-%s" % (entry.get("name"), entry.get("version"))


def chart_params(params, entry):
    """The single-chart parameters of one ``charts`` entry: the module's shared options (credentials,
    TLS, tools, ``destination``) with the entry's fields. A relative or missing ``archive`` is taken in
    ``destination`` (``<name>-<version>.tgz``, what state=saved writes). Raises RegistryError naming the
    missing field."""
    one = dict((key, value) for key, value in params.items() if key != "charts")
    one.update((field, entry.get(field)) for field in CHART_FIELDS)
    for field, meaning in CHART_NEEDS[params["state"]]:
        if not one.get(field):
            raise registry.RegistryError("the entry has no %s: set it to %s" % (field, meaning))
    if params["state"] == "saved":
        return one  # save_chart writes <destination>/<name>-<version>.tgz
    archive = one.get("archive") or chart_archive_name(one["name"], one["version"])
    if not os.path.isabs(archive):
        if not params.get("destination"):
            raise registry.RegistryError("archive %s is relative and destination is not set: set destination to the "
                                         "directory of the chart archives, or give archive as an absolute path" % archive)
        archive = os.path.join(params["destination"], archive)
    one["archive"] = archive
    return one


def transfer_charts(params, transfer, workers=5):
    """Run ``transfer(one_chart_params)`` (save_chart or push_chart with their tools bound) for every
    ``charts`` entry, up to ``workers`` at a time (each mostly waits on skopeo, helm and the registry; on a
    no-op re-run every stack chart is checked at once), one failure not stopping the others.

    Returns ``(results, failures)`` in the order of ``charts``: one result per entry, in the shape of a loop's
    per-item results (``item`` is the entry; a failed one has ``failed`` and ``msg`` and no ``archive``), and
    the ``<name>-<version>: <error>`` lines of the failed ones.
    """
    entries = list(params["charts"])

    def one(entry):
        try:
            result = transfer(chart_params(params, entry))
            problem = None
        except registry.RegistryError as exc:
            result = dict(changed=False, failed=True, msg=str(exc))
            problem = "%s: %s" % (chart_label(entry), exc)
        result["item"] = entry
        return result, problem

    if len(entries) > 1 and workers > 1:
        with concurrent.futures.ThreadPoolExecutor(max_workers=min(workers, len(entries))) as pool:
            done = list(pool.map(one, entries))
    else:
        done = [one(entry) for entry in entries]
    return [result for result, _problem in done], [problem for _result, problem in done if problem]


def charts_failure_message(failures, total):
    return "%d of %d charts failed (every chart's result is in charts): %s" % (len(failures), total, "; ".join(failures))
