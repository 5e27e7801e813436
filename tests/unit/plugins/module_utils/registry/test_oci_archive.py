# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Image/chart archive decisions with a scripted skopeo."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import oci_archive as oa
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
