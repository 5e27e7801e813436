# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""harbor_upload role against a real registry: images, charts, registries.yaml.

One repository of the loopback registry stands in for the public registry
(``upstream/...``); the role saves from there and uploads into project paths.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import gzip
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
import yaml

SIM = "upstream/llm-d/llm-d-inference-sim:v0.7.1"
# Three charts, so one chart_archive call per step carrying a list is what is tested.
CHARTS = ("demo-chart", "demo-web", "demo-api")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _blob(layout, data):
    digest = hashlib.sha256(data).hexdigest()
    path = os.path.join(layout, "blobs", "sha256", digest)
    with open(path, "wb") as handle:
        handle.write(data)
    return {"digest": "sha256:" + digest, "size": len(data)}


def build_oci_layout(layout, tag):
    """A one-layer image (a single file) as an OCI image layout, built by hand."""
    os.makedirs(os.path.join(layout, "blobs", "sha256"))
    tar_bytes = io.BytesIO()
    with tarfile.open(fileobj=tar_bytes, mode="w") as tar:
        content = b"stand-in for llm-d-inference-sim\n"
        info = tarfile.TarInfo("hello.txt")
        info.size = len(content)
        info.mtime = 0
        tar.addfile(info, io.BytesIO(content))
    raw = tar_bytes.getvalue()
    layer = _blob(layout, gzip.compress(raw, mtime=0))
    layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
    config = _blob(layout, json.dumps({
        "architecture": "amd64", "os": "linux", "config": {},
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + hashlib.sha256(raw).hexdigest()]}}).encode())
    config["mediaType"] = "application/vnd.oci.image.config.v1+json"
    manifest = _blob(layout, json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                                         "config": config, "layers": [layer]}).encode())
    manifest.update(mediaType="application/vnd.oci.image.manifest.v1+json",
                    annotations={"org.opencontainers.image.ref.name": tag})
    with open(os.path.join(layout, "index.json"), "w") as handle:
        json.dump({"schemaVersion": 2, "manifests": [manifest]}, handle)
    with open(os.path.join(layout, "oci-layout"), "w") as handle:
        json.dump({"imageLayoutVersion": "1.0.0"}, handle)
    return manifest["digest"]


def skopeo_digest(tools, registry, auth, ref):
    proc = subprocess.run([tools["skopeo"], "inspect", "--raw", "--authfile", auth, "--cert-dir",
                           os.path.dirname(registry.ca), "docker://" + ref], capture_output=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return "sha256:" + hashlib.sha256(proc.stdout).hexdigest()


@pytest.fixture(scope="module")
def upstream(registry, tools, tmp_path_factory):
    """Seed the stand-in public repositories: one image, one chart."""
    work = tmp_path_factory.mktemp("upstream")
    auth = registry.docker_config(str(work / "auth.json"))
    digest = build_oci_layout(str(work / "layout"), "v0.7.1")
    subprocess.run([tools["skopeo"], "copy", "--dest-authfile", auth, "--dest-cert-dir", os.path.dirname(registry.ca),
                    "oci:%s:v0.7.1" % (work / "layout"), "docker://%s/%s" % (registry.host, SIM)],
                   check=True, capture_output=True)
    for chart in CHARTS:
        subprocess.run([tools["helm"], "create", str(work / chart)], check=True, capture_output=True)
        subprocess.run([tools["helm"], "package", str(work / chart), "--version", "0.3.0", "-d", str(work)],
                       check=True, capture_output=True)
        subprocess.run([tools["helm"], "push", str(work / ("%s-0.3.0.tgz" % chart)),
                        "oci://%s/upstream-charts" % registry.host, "--registry-config", auth, "--ca-file", registry.ca],
                       check=True, capture_output=True)
    return dict(digest=digest, auth=auth, work=work)


def chart_entries(registry, project="charts"):
    return [dict(name=chart, version="0.3.0", project=project, chart="oci://%s/upstream-charts/%s" % (registry.host, chart))
            for chart in CHARTS]


def helm_show(tools, registry, upstream, ref):
    return subprocess.run([tools["helm"], "show", "chart", "oci://%s/%s" % (registry.host, ref), "--version", "0.3.0",
                           "--registry-config", upstream["auth"], "--ca-file", registry.ca],
                          capture_output=True, check=False, text=True)


def upload_vars(registry, tools, upstream, steps, **overrides):
    variables = dict(
        harbor_upload_steps=steps,
        harbor_upload_images=[dict(source="%s/%s" % (registry.host, SIM), project="images-shaide",
                                   digest=upstream["digest"])],
        harbor_upload_charts=chart_entries(registry),
        harbor_upload_archive_dir=str(upstream["work"] / "artifacts" / "images"),
        harbor_upload_chart_dir=str(upstream["work"] / "artifacts" / "charts"),
        harbor_upload_registry=registry.relay_host,
        harbor_upload_user=registry.user,
        harbor_upload_token=registry.password,
        harbor_upload_source_user=registry.user,
        harbor_upload_source_token=registry.password,
        harbor_upload_registry_ca_file=registry.ca,
        harbor_upload_skopeo_path=tools["skopeo"],
        harbor_upload_helm_path=tools["helm"],
    )
    variables.update(overrides)
    return variables


@pytest.fixture(scope="module")
def uploaded(registry, tools, upstream, module_run_role):
    """The first download + upload (once per xdist worker); the image tests start from it."""
    run = module_run_role("harbor_upload", upload_vars(registry, tools, upstream, ["download", "upload"]))
    assert run.rc == 0, run
    assert run.changed >= 2, run
    return run


def test_image_round_trip_keeps_the_digest(registry, tools, upstream, uploaded):
    archive = upstream["work"] / "artifacts" / "images" / "llm-d-inference-sim-v0.7.1.tar"
    assert archive.is_file()
    pushed = "%s/images-shaide/upstream/llm-d/llm-d-inference-sim:v0.7.1" % registry.host
    assert skopeo_digest(tools, registry, upstream["auth"], pushed) == upstream["digest"]
    assert skopeo_digest(tools, registry, upstream["auth"], "%s/%s" % (registry.host, SIM)) == upstream["digest"]


def test_image_second_run_changes_nothing(registry, tools, upstream, run_role, uploaded):
    mark = registry.log_mark()
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["download", "upload"]))
    assert run.rc == 0, run
    assert run.changed == 0, run
    assert [r for r in registry.requests_since(mark) if r[0] in ("PUT", "PATCH", "POST")] == []


def test_image_upload_wrong_token_is_clear_and_hidden(registry, tools, upstream, run_role, uploaded):
    wrong = "Wr0ng-" + os.urandom(8).hex()
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["upload"], harbor_upload_token=wrong),
                   verbosity=4)
    assert run.rc != 0, run
    assert "registry %s rejected the credentials" % registry.relay_host in run.output, run
    assert wrong not in run.output


def test_charts_pull_and_push_as_oci(registry, tools, upstream, run_role):
    """One chart_archive call per step for the three charts; the second run writes nothing to the registry."""
    steps = ["charts_download", "charts_upload"]
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, steps))
    assert run.rc == 0, run
    assert run.changed >= 2, run
    for chart in CHARTS:
        proc = helm_show(tools, registry, upstream, "charts/" + chart)
        assert proc.returncode == 0, proc.stderr
        assert "name: %s" % chart in proc.stdout
        # report.yml still shows each chart's reference and digest
        assert "%s/charts/%s:0.3.0 sha256:" % (registry.relay_host, chart) in run.output, run
    mark = registry.log_mark()
    again = run_role("harbor_upload", upload_vars(registry, tools, upstream, steps))
    assert again.rc == 0, again
    assert again.changed == 0, again
    assert again.output.count("(unchanged)") == 2 * len(CHARTS), again
    assert [r for r in registry.requests_since(mark) if r[0] in ("PUT", "PATCH", "POST")] == []


def test_charts_one_bad_archive_is_named_while_the_others_push(registry, tools, upstream, run_role, tmp_path):
    """An archive that is not a chart fails by name, with what to do; the other two charts are pushed."""
    chart_dir = tmp_path / "charts"
    chart_dir.mkdir()
    for chart in CHARTS:
        shutil.copy(str(upstream["work"] / ("%s-0.3.0.tgz" % chart)), str(chart_dir))
    (chart_dir / "demo-web-0.3.0.tgz").write_bytes(b"<html>an error page saved as a chart</html>")
    project = "charts-partial-" + os.urandom(3).hex()
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["charts_upload"],
                                                harbor_upload_charts=chart_entries(registry, project),
                                                harbor_upload_chart_dir=str(chart_dir)))
    assert run.rc != 0, run
    assert "demo-web: chart archive %s is not a Helm chart package" % (chart_dir / "demo-web-0.3.0.tgz") in run.output, run
    assert "run the download step (charts_download) again" in run.output, run
    assert "demo-chart: " not in run.output and "demo-api: " not in run.output, run
    for chart in ("demo-chart", "demo-api"):
        proc = helm_show(tools, registry, upstream, "%s/%s" % (project, chart))
        assert proc.returncode == 0, proc.stderr
    assert helm_show(tools, registry, upstream, project + "/demo-web").returncode != 0


def test_charts_check_mode_pushes_nothing(registry, tools, upstream, run_role, tmp_path):
    chart_dir = tmp_path / "charts"
    chart_dir.mkdir()
    for chart in CHARTS:
        shutil.copy(str(upstream["work"] / ("%s-0.3.0.tgz" % chart)), str(chart_dir))
    project = "charts-check-" + os.urandom(3).hex()
    mark = registry.log_mark()
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["charts_upload"],
                                                harbor_upload_charts=chart_entries(registry, project),
                                                harbor_upload_chart_dir=str(chart_dir)), check=True)
    assert run.rc == 0, run
    assert run.changed == 1, run
    assert [r for r in registry.requests_since(mark) if r[0] in ("PUT", "PATCH", "POST")] == []
    assert helm_show(tools, registry, upstream, project + "/demo-chart").returncode != 0


def test_charts_call_failing_before_any_chart_is_reported(registry, tools, upstream, run_role):
    """A chart_archive call that fails as a whole (no destination directory) is raised, not lost."""
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["charts_download", "charts_upload"],
                                                harbor_upload_chart_dir=""))
    assert run.rc != 0, run
    assert "the chart download: state is saved but all of the following are missing: destination" in run.output, run
    assert "Push the charts to Harbor as OCI charts] ***\nskipping" in run.output, run


def test_registries_yaml(registry, tools, upstream, run_role, tmp_path):
    path = tmp_path / "rke2" / "registries.yaml"
    ca = tmp_path / "ca.crt"
    ca.write_text(open(registry.ca).read())
    variables = dict(
        harbor_upload_registry="harbor.example.com",
        harbor_upload_images=[
            dict(source="registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0", project="images-shaide"),
            dict(source="ghcr.io/llm-d/llm-d-inference-sim:v0.7.1", project="images-shaide"),
            dict(source="ghcr.io/oras-project/oras:v1.3.1", project="images-infra"),
        ],
        harbor_upload_registries_path=str(path),
        harbor_upload_node_user="robot$k8s-puller",
        harbor_upload_node_token="node-secret-token",
        harbor_upload_node_ca_src=str(ca),
        harbor_upload_node_ca_file=str(tmp_path / "rke2" / "harbor-ca.crt"),
    )
    run = run_role("harbor_upload", variables, tasks_from="registries", verbosity=3)
    assert run.rc == 0, run
    assert "node-secret-token" not in run.output
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    config = yaml.safe_load(path.read_text())
    assert config["mirrors"]["registry.k8s.io"] == {
        "endpoint": ["https://harbor.example.com"],
        "rewrite": {"^gateway\\-api\\-inference\\-extension/epp$": "images-shaide/gateway-api-inference-extension/epp"}}
    assert config["mirrors"]["ghcr.io"]["rewrite"] == {
        "^llm\\-d/llm\\-d\\-inference\\-sim$": "images-shaide/llm-d/llm-d-inference-sim",
        "^oras\\-project/oras$": "images-infra/oras-project/oras"}
    assert config["configs"]["harbor.example.com"] == {
        "auth": {"username": "robot$k8s-puller", "password": "node-secret-token"},
        "tls": {"ca_file": variables["harbor_upload_node_ca_file"]}}
    again = run_role("harbor_upload", variables, tasks_from="registries")
    assert again.rc == 0 and again.changed == 0, again


def test_check_mode_uploads_nothing(registry, tools, upstream, run_role, uploaded):
    images = [dict(source="%s/%s" % (registry.host, SIM), project="images-check")]
    mark = registry.log_mark()
    run = run_role("harbor_upload", upload_vars(registry, tools, upstream, ["upload"], harbor_upload_images=images),
                   check=True)
    assert run.rc == 0, run
    assert run.changed >= 1, run
    assert [r for r in registry.requests_since(mark) if r[0] in ("PUT", "PATCH", "POST")] == []


def test_playbook_mirrors_every_image_of_the_list(tmp_path):
    """playbooks/harbor_upload.yml reads group_vars/all/images.yml (the seed's images)."""
    path = tmp_path / "registries.yaml"
    variables = tmp_path / "vars.json"
    variables.write_text(json.dumps({"harbor_upload_steps": ["registries"], "harbor_upload_registries_path": str(path),
                                     "harbor_upload_node_token": "t"}))
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"),
                           os.path.join(ROOT, "playbooks", "harbor_upload.yml"), "-e", "@%s" % variables],
                          cwd=ROOT, capture_output=True, text=True, check=False,
                          env=dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg")))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    mirrors = yaml.safe_load(path.read_text())["mirrors"]
    targets = [t for m in mirrors.values() for t in m["rewrite"].values()]
    assert "images-infra/oras-project/oras" in targets
    assert "images-shaide/gateway-api-inference-extension/epp" in targets
    assert "images-shaide/llm-d/llm-d-inference-sim" in targets
