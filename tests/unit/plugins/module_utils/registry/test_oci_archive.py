# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Image/chart archive decisions with a scripted skopeo."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import inspect
import io
import json
import os
import tarfile
import threading

import pytest
import yaml
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive as oa
from ansible_collections.ai_platform.serving.plugins.modules import chart_archive
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.tools import RegistryError

RAW = b'{"schemaVersion":2}'
RAW_DIGEST = oa.sha256_bytes(RAW)


@pytest.mark.parametrize("image,host", [
    ("registry.k8s.io/gaie/epp:v1.2.0", "registry.k8s.io"), ("127.0.0.1:5000/p/x:1", "127.0.0.1:5000"),
    ("localhost/p/x", "localhost"), ("library/busybox:1", "docker.io"), ("busybox", "docker.io")])
def test_registry_of(image, host):
    assert oa.registry_of(image) == host


def test_chart_layer_digest():
    manifest = {"layers": [{"mediaType": "other", "digest": "sha256:1"},
                           {"mediaType": oa.HELM_CHART_LAYER, "digest": "sha256:2"}]}
    assert oa.chart_layer_digest(json.dumps(manifest).encode()) == "sha256:2"
    assert oa.chart_layer_digest(None) is None and oa.chart_layer_digest(b"not json") is None


def test_helm_argv():
    assert oa.helm_pull_argv("helm", "llm-d-modelservice", "v0.4.12", "/d", "https://repo", "/a.json", "/ca") == [
        "helm", "pull", "llm-d-modelservice", "--version", "v0.4.12", "--destination", "/d", "--repo",
        "https://repo", "--registry-config", "/a.json", "--ca-file", "/ca"]
    assert oa.helm_push_argv("helm", "/c.tgz", "oci://h/charts", "/a.json", plain_http=True) == [
        "helm", "push", "/c.tgz", "oci://h/charts", "--registry-config", "/a.json", "--plain-http"]
    assert oa.helm_push_argv("helm", "/c.tgz", "oci://h/charts", "/a.json", "/ca", validate_certs=False)[-3:] == [
        "--ca-file", "/ca", "--insecure-skip-tls-verify"]
    assert oa.helm_pull_argv("helm", "c", "v1", "/d", validate_certs=False)[-1] == "--insecure-skip-tls-verify"


class FakeSkopeo:
    """Remote and archive manifests from dicts; records copies."""

    def __init__(self, archives=None, remote=None, fail=None):
        self.archives = archives or {}
        self.remote = remote or {}
        self.copies = []
        self.fail = fail

    def raw_manifest(self, ref, remote=True):
        if self.fail:
            raise RegistryError(self.fail)
        name = ref.split(":", 1)[1]
        if remote:
            return self.remote.get(name)
        return self.archives.get(name, RAW if os.path.exists(name) else None)

    def copy(self, src, dest, src_remote, dest_remote, all_platforms):
        self.copies.append((src, dest))
        if dest.startswith("oci-archive:"):
            path = dest.split(":", 1)[1]
            open(path, "wb").write(b"tar")
        else:
            self.remote[dest.split(":", 1)[1]] = RAW


def image_params(tmp_path, **extra):
    params = dict(image="ghcr.io/llm-d/sim:v0.7.1", archive=str(tmp_path / "a" / "sim.tar"), digest=None,
                  destination="harbor.example/images-shaide/llm-d/sim:v0.7.1", force=False, all_platforms=False,
                  username="robot$u", password="tok")
    params.update(extra)
    return params


def test_save_downloads_once_then_skips(tmp_path):
    skopeo = FakeSkopeo()
    params = image_params(tmp_path, digest=RAW_DIGEST)
    first = oa.save_image(params, False, skopeo)
    assert first["changed"] and first["digest"] == RAW_DIGEST
    assert skopeo.copies == [("docker://ghcr.io/llm-d/sim@" + RAW_DIGEST, "oci-archive:" + params["archive"] + ".partial")]
    second = oa.save_image(params, False, skopeo)
    assert not second["changed"] and len(skopeo.copies) == 1


def test_save_refuses_a_digest_other_than_the_pin(tmp_path):
    with pytest.raises(RegistryError, match="not the pinned"):
        oa.save_image(image_params(tmp_path, digest="sha256:" + "0" * 64), False, FakeSkopeo())


def test_save_check_mode_downloads_nothing(tmp_path):
    skopeo = FakeSkopeo()
    assert oa.save_image(image_params(tmp_path), True, skopeo)["changed"] and skopeo.copies == []


def test_push_skips_matching_remote_digest(tmp_path):
    params = image_params(tmp_path, archive=str(tmp_path / "sim.tar"))
    open(params["archive"], "wb").write(b"tar")
    skopeo = FakeSkopeo(remote={"//" + params["destination"]: RAW})
    result = oa.push_image(params, False, skopeo)
    assert not result["changed"] and skopeo.copies == []


def test_push_uploads_when_absent_and_verifies(tmp_path):
    params = image_params(tmp_path, archive=str(tmp_path / "sim.tar"))
    open(params["archive"], "wb").write(b"tar")
    skopeo = FakeSkopeo()
    result = oa.push_image(params, False, skopeo)
    assert result["changed"] and result["previous_digest"] is None and len(skopeo.copies) == 1


def test_push_refuses_an_archive_holding_another_manifest_than_expected(tmp_path):
    """A bundle's image archive must hold the lock's manifest digest; nothing is copied when it does not."""
    params = image_params(tmp_path, archive=str(tmp_path / "sim.tar"), expected_digest="sha256:" + "0" * 64)
    open(params["archive"], "wb").write(b"tar")
    skopeo = FakeSkopeo()
    with pytest.raises(RegistryError, match="holds the manifest %s, not the expected sha256:0{64}" % oa.manifest_digest(RAW)):
        oa.push_image(params, False, skopeo)
    assert skopeo.copies == []
    result = oa.push_image(dict(params, expected_digest=oa.manifest_digest(RAW)), False, skopeo)
    assert result["changed"] and len(skopeo.copies) == 1


def test_push_names_the_blob_skopeo_found_corrupted(tmp_path):
    """containers/image checks each blob it reads; its mismatch becomes a message naming the blob and the archive."""
    params = image_params(tmp_path, archive=str(tmp_path / "sim.tar"))
    open(params["archive"], "wb").write(b"tar")
    bad, got = "sha256:" + "e" * 64, "sha256:" + "f" * 64

    class Corrupted(FakeSkopeo):
        def copy(self, *args):
            raise RegistryError('level=fatal msg="writing blob: Patch \\"https://h/v2/x\\": happened during read: '
                                'Digest did not match, expected %s, got %s"' % (bad, got))

    with pytest.raises(RegistryError) as err:
        oa.push_image(params, False, Corrupted())
    assert str(err.value) == ("blob %s of archive %s does not match its digest (corrupted): skopeo refused it while "
                              "reading, no manifest naming it was pushed and the tag did not move" % (bad, params["archive"]))
    assert oa.corrupted_blob("connection refused") is None


def test_push_error_is_explained_and_redacted(tmp_path):
    params = image_params(tmp_path, archive=str(tmp_path / "sim.tar"), password="hunter2")
    open(params["archive"], "wb").write(b"tar")

    class Failing(FakeSkopeo):
        def raw_manifest(self, ref, remote=True):
            if remote:
                raise RegistryError("unauthorized: hunter2 rejected")
            return RAW

    with pytest.raises(RegistryError) as err:
        oa.push_image(params, False, Failing())
    assert "registry harbor.example rejected the credentials" in str(err.value)
    assert "hunter2" not in str(err.value)


def test_push_needs_the_archive(tmp_path):
    with pytest.raises(RegistryError, match="run the download step first"):
        oa.push_image(image_params(tmp_path), False, FakeSkopeo())


# --- the charts list of chart_archive: one call for every chart -----------------------------------

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))))


@pytest.fixture
def chart_records():
    """chart_plan's records of the collection's own chart list (group_vars/all/images.yml), as the role passes them."""
    with open(os.path.join(REPO, "group_vars", "all", "images.yml")) as handle:
        charts = yaml.safe_load(handle)["aips_chart_mirrors"]
    return image_plan.chart_plan(charts, "harbor.example")


class FakeRegistry:
    """The registry side of push_chart: skopeo reads the chart manifests it holds, helm push adds one."""

    auth = type("Auth", (), {"config": "/auth/config.json"})()

    def __init__(self, broken=()):
        self.manifests = {}
        self.pushes = []
        self.broken = broken

    def raw_manifest(self, ref, remote=True):
        return self.manifests.get(ref.split("://", 1)[1])

    def __call__(self, argv, host):  # helm
        assert argv[1] == "push" and host == "harbor.example"
        archive, base = argv[2], argv[3].replace("oci://", "")
        name, version = os.path.basename(archive)[:-len(".tgz")].rsplit("-", 1)
        if name in self.broken:
            raise RegistryError("helm failed against registry %s: Error: file '%s' does not appear to be a gzipped "
                                "archive" % (host, archive))
        self.pushes.append(name)
        layer = {"mediaType": oa.HELM_CHART_LAYER, "digest": oa.sha256_file(archive)}
        self.manifests["%s/%s:%s" % (base, name, version)] = json.dumps({"layers": [layer]}).encode()


def chart_list_params(records, directory, state="pushed"):
    return dict(state=state, charts=records, destination=str(directory), helm_path="helm", ca_file=None,
                plain_http=False, validate_certs=True, force=False, username="robot$push", password="tok",
                skopeo_path="skopeo", name=None, version=None, chart=None, repo_url=None, digest=None,
                archive=None, repository=None)


def push_step(fake, check_mode=False):
    return lambda one: oa.push_chart(one, check_mode, fake, fake)


def write_archives(directory, records):
    """A minimal chart package (gzipped tar with <name>/Chart.yaml) per record."""
    for record in records:
        data = ("apiVersion: v2\nname: %s\nversion: %s\n" % (record["name"], record["version"])).encode()
        with tarfile.open(str(directory / record["archive"]), "w:gz") as tar:
            info = tarfile.TarInfo("%s/Chart.yaml" % record["name"])
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_chart_plan_records_pass_the_module_argspec(chart_records):
    """The role hands chart_plan's records to the charts option as they are."""
    spec = chart_archive.argspec()
    result = ArgumentSpecValidator(spec).validate(dict(state="pushed", charts=chart_records, destination="/d"))
    assert not result.error_messages, result.error_messages
    assert [c["name"] for c in result.validated_parameters["charts"]] == ["inferencepool", "llm-d-modelservice",
                                                                          "llm-d-infra", "llm-d-router-standalone",
                                                                          "llm-d-router-gateway"]


def test_chart_params_resolve_the_archive_in_destination(chart_records, tmp_path):
    params = chart_list_params(chart_records, tmp_path)
    one = oa.chart_params(params, chart_records[0])
    assert one["archive"] == str(tmp_path / "inferencepool-v1.2.0.tgz")
    assert one["repository"] == "harbor.example/charts" and one["password"] == "tok" and "charts" not in one
    assert oa.chart_params(params, dict(chart_records[0], archive="/abs/x.tgz"))["archive"] == "/abs/x.tgz"
    assert oa.chart_params(params, dict(chart_records[0], archive=None))["archive"] == one["archive"]


@pytest.mark.parametrize("state,entry,message", [
    ("pushed", dict(name="c", version="1", repository=None), "no repository: set it to the OCI repository"),
    ("saved", dict(name="c", version="1", chart=None), "no chart: set it to what helm pull takes"),
])
def test_chart_params_name_the_missing_field(tmp_path, state, entry, message):
    with pytest.raises(RegistryError, match=message):
        oa.chart_params(chart_list_params([entry], tmp_path, state), entry)


@pytest.mark.parametrize("state,extra,missing", [
    ("saved", dict(destination=""), ["destination"]),
    ("saved", dict(charts=None, chart=None), ["chart"]),
    ("pushed", dict(charts=None, destination=None), ["archive", "repository"]),
    ("pushed", dict(destination=None), []),
])
def test_chart_missing_options(chart_records, tmp_path, state, extra, missing):
    assert oa.chart_missing_options(dict(chart_list_params(chart_records, tmp_path, state), **extra)) == missing


def test_chart_params_need_destination_for_a_relative_archive(chart_records, tmp_path):
    params = dict(chart_list_params(chart_records, tmp_path), destination=None)
    with pytest.raises(RegistryError, match="relative and destination is not set"):
        oa.chart_params(params, chart_records[0])


def test_chart_credentials_cover_every_registry(chart_records, tmp_path):
    params = chart_list_params(chart_records + [dict(chart_records[0], repository="other.example:5000/charts")],
                               tmp_path)
    assert oa.chart_credentials(params) == {"harbor.example": ("robot$push", "tok"),
                                            "other.example:5000": ("robot$push", "tok")}
    # saving logs in to the sources, not to Harbor: only the oci:// charts (inferencepool, the v0.10 router) have
    # a registry, the classic repositories take no registry login
    saved = chart_list_params(chart_records, tmp_path, "saved")
    assert list(oa.chart_credentials(saved)) == ["registry.k8s.io", "ghcr.io"]
    single = dict(chart_list_params(None, tmp_path, "saved"), chart="oci://ghcr.io/x/c", repository="h.example/p")
    assert list(oa.chart_credentials(single)) == ["ghcr.io"]
    assert list(oa.chart_credentials(dict(single, state="pushed"))) == ["h.example"]


def test_push_charts_in_one_call_then_nothing(chart_records, tmp_path):
    write_archives(tmp_path, chart_records)
    fake = FakeRegistry()
    params = chart_list_params(chart_records, tmp_path)
    results, failures = oa.transfer_charts(params, push_step(fake))
    assert failures == [] and sorted(fake.pushes) == [  # at once, any order
        "inferencepool", "llm-d-infra", "llm-d-modelservice", "llm-d-router-gateway", "llm-d-router-standalone"]
    assert [r["item"] for r in results] == chart_records
    assert all(r["changed"] and r["digest"] == oa.sha256_file(r["archive"]) and r["manifest_digest"] for r in results)
    assert results[1]["reference"] == "harbor.example/charts/llm-d-modelservice:v0.4.12"
    again, failures = oa.transfer_charts(params, push_step(fake))
    assert failures == [] and not any(r["changed"] for r in again) and len(fake.pushes) == len(chart_records)
    assert [r["manifest_digest"] for r in again] == [r["manifest_digest"] for r in results]


def test_push_charts_check_mode_pushes_nothing(chart_records, tmp_path):
    write_archives(tmp_path, chart_records)
    fake = FakeRegistry()
    results, failures = oa.transfer_charts(chart_list_params(chart_records, tmp_path), push_step(fake, True))
    assert failures == [] and all(r["changed"] for r in results) and fake.pushes == []


def test_one_bad_chart_is_named_and_the_others_push(chart_records, tmp_path):
    write_archives(tmp_path, chart_records)
    (tmp_path / chart_records[0]["archive"]).write_bytes(b"<html>not a chart</html>")
    fake = FakeRegistry(broken=("llm-d-infra",))
    results, failures = oa.transfer_charts(chart_list_params(chart_records, tmp_path), push_step(fake))
    assert sorted(fake.pushes) == ["llm-d-modelservice", "llm-d-router-gateway", "llm-d-router-standalone"]
    for good in (results[1], results[3], results[4]):
        assert good["changed"] and "failed" not in good and good["manifest_digest"]
    assert results[0]["failed"] and "archive" not in results[0] and results[0]["item"]["name"] == "inferencepool"
    assert "not a Helm chart package" in results[0]["msg"] and "run the download step (charts_download) again" in \
        results[0]["msg"]
    assert results[2]["failed"] and results[2]["item"]["name"] == "llm-d-infra" and "gzipped" in results[2]["msg"]
    message = oa.charts_failure_message(failures, len(results))
    assert message.startswith("2 of 5 charts failed")
    assert "inferencepool-v1.2.0: chart archive" in message and "llm-d-infra-v1.3.0: helm failed" in message


def test_push_charts_need_their_archives(chart_records, tmp_path):
    results, failures = oa.transfer_charts(chart_list_params(chart_records, tmp_path), push_step(FakeRegistry()))
    assert len(failures) == len(chart_records) == 5 and all("run the download step first" in r["msg"] for r in results)


@pytest.mark.parametrize("content,problem", [
    (b"", "not a gzipped tar"), (b"plain text", "not a gzipped tar"), (None, "no <chart>/Chart.yaml")])
def test_chart_package_problem(tmp_path, content, problem):
    path = tmp_path / "c-1.tgz"
    if content is None:
        with tarfile.open(str(path), "w:gz") as tar:
            tar.addfile(tarfile.TarInfo("c/values.yaml"), io.BytesIO(b""))
    else:
        path.write_bytes(content)
    assert problem in oa.chart_package_problem(str(path))


def test_save_charts_in_one_call(chart_records, tmp_path):
    pulled = []

    class Helm:
        auth = type("Auth", (), {"config": "/auth/config.json"})()

        def __call__(self, argv, host):
            pulled.append((argv[2], host))
            name = argv[2].rsplit("/", 1)[-1]
            version = argv[argv.index("--version") + 1]
            (tmp_path / oa.chart_archive_name(name, version)).write_bytes(b"tgz")

    params = chart_list_params(chart_records, tmp_path, "saved")
    results, failures = oa.transfer_charts(params, lambda one: oa.save_chart(one, False, Helm()))
    assert failures == [] and all(r["changed"] for r in results)
    # pulled side by side, in any order
    assert (chart_records[0]["chart"], "registry.k8s.io") in pulled
    assert ("llm-d-modelservice", "https://llm-d-incubation.github.io/llm-d-modelservice/") in pulled
    assert ("oci://ghcr.io/llm-d/charts/llm-d-router-standalone", "ghcr.io") in pulled
    assert len(pulled) == len(chart_records)
    again, _failures = oa.transfer_charts(params, lambda one: oa.save_chart(one, False, Helm()))
    assert not any(r["changed"] for r in again) and len(pulled) == len(chart_records)


def test_charts_are_checked_at_once_and_reported_in_their_order(chart_records, tmp_path):
    """transfer_charts runs the charts side by side (a no-op re-run waits for one skopeo round, not one per chart)
    and still returns the results in the order of charts."""
    # every carried chart at once: the default pool (chart_archive pushes with as many workers) fits them all
    assert len(chart_records) <= inspect.signature(oa.transfer_charts).parameters["workers"].default
    started, names = threading.Barrier(len(chart_records), timeout=10), []

    def step(one):
        started.wait()  # all of them are running together, or this times out
        names.append(one["name"])
        return dict(changed=False, archive=one["archive"])

    results, failures = oa.transfer_charts(chart_list_params(chart_records, tmp_path), step)
    assert failures == [] and sorted(names) == sorted(r["name"] for r in chart_records)
    assert [r["item"] for r in results] == chart_records


def test_tools_run_with_go_kept_on_http1(monkeypatch):
    monkeypatch.setenv("GODEBUG", "madvdontneed=1")
    rc, out, err = oa.run(["sh", "-c", 'echo "$GODEBUG"'])
    assert (rc, out, err) == (0, b"madvdontneed=1,http2client=0\n", "")


class RacedRegistry(FakeRegistry):
    """A registry where another run pushes the same chart at the same moment: this push's helm fails on its
    read-back (the registry's 500), with the other run's manifest, the same tarball or not, in place."""

    def __init__(self, same=True):
        super(RacedRegistry, self).__init__()
        self.same = same

    def __call__(self, argv, host):
        FakeRegistry.__call__(self, argv, host)
        if not self.same:
            ref = list(self.manifests)[-1]
            self.manifests[ref] = json.dumps({"layers": [{"mediaType": oa.HELM_CHART_LAYER,
                                                          "digest": "sha256:" + "0" * 64}]}).encode()
        raise RegistryError("helm failed against registry %s: Error: failed to perform \"FetchReference\": "
                            "unexpected status code 500" % host)


def test_a_push_raced_by_another_run_of_the_same_chart_counts_when_the_tag_holds_it(
        chart_records, tmp_path, monkeypatch):
    monkeypatch.setattr(oa.time, "sleep", lambda _seconds: None)
    write_archives(tmp_path, chart_records[:1])
    params = chart_list_params(chart_records[:1], tmp_path)
    results, failures = oa.transfer_charts(params, push_step(RacedRegistry()))
    assert failures == [] and results[0]["changed"] and results[0]["manifest_digest"], results
    # another tarball under the tag: this push's error stands
    results, failures = oa.transfer_charts(params, push_step(RacedRegistry(same=False)))
    assert len(failures) == 1 and "unexpected status code 500" in results[0]["msg"], results
