# -*- coding: utf-8 -*-
"""The image plan: Harbor destinations, mirror rewrites, pinned references and chart references."""

from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as ip

REPO = Path(__file__).resolve().parents[5]
HARBOR = "harbor.harbor.svc.cluster.local"
DIGEST = "sha256:" + "e" * 64


def images_yml():
    return yaml.safe_load((REPO / "group_vars" / "all" / "images.yml").read_text())


def test_product_images_land_where_the_values_and_the_pull_job_expect():
    plan = dict((r["upstream"], r) for r in ip.image_plan(images_yml()["aips_images"], HARBOR))
    assert plan["ghcr.io/oras-project/oras"]["destination"] == HARBOR + "/images-infra/oras-project/oras:v1.3.1"
    epp = plan["registry.k8s.io/gateway-api-inference-extension/epp"]
    assert epp["destination"] == HARBOR + "/images-shaide/gateway-api-inference-extension/epp:v1.2.0"
    assert epp["mirror"] == {"upstream": "registry.k8s.io",
                             "pattern": "^gateway\\-api\\-inference\\-extension/epp$",
                             "target": "images-shaide/gateway-api-inference-extension/epp"}
    assert epp["archive"] == "epp-v1.2.0.tar" and epp["digest"] is None and epp["pinned"] is None
    assert epp["all_platforms"] is False


def test_the_default_oras_image_is_the_one_images_yml_carries():
    listed = [image for image in images_yml()["aips_images"] if image["source"].startswith(ip.ORAS_REPOSITORY + ":")]
    assert listed == [ip.DEFAULT_ORAS_IMAGE]


def test_path_archive_and_digest_pin():
    record = ip.image_plan([{"source": "127.0.0.1:5000/up/llm-d/sim:v1", "project": "p", "path": "llm-d/sim",
                             "archive": "sim.tar", "digest": DIGEST, "all_platforms": True}], "reg:5000")[0]
    assert record["destination"] == "reg:5000/p/llm-d/sim:v1"
    assert record["pinned"] == "reg:5000/p/llm-d/sim@" + DIGEST
    assert record["archive"] == "sim.tar" and record["all_platforms"] is True
    assert record["mirror"]["upstream"] == "127.0.0.1:5000"


@pytest.mark.parametrize("image, message", [
    ({"source": "ghcr.io/llm-d/sim", "project": "p"}, "neither a tag nor a digest"),
    ({"source": "ghcr.io/llm-d/sim@" + DIGEST, "project": "p"}, "needs a tag"),
    ({"source": "ghcr.io/llm-d/sim:v1"}, "project"),
    ({"source": "ghcr.io/llm-d/sim:v1", "project": "p", "digest": "sha256:ab"}, "not sha256"),
    ("ghcr.io/llm-d/sim:v1", "mapping"),
])
def test_bad_entries_are_named(image, message):
    with pytest.raises(ValueError, match=message):
        ip.image_plan([image], HARBOR)


@pytest.mark.parametrize("images, on_prem, version, expected", [
    (None, True, None, HARBOR + "/images-infra/oras-project/oras:v1.3.1"),
    (None, False, None, "ghcr.io/oras-project/oras:v1.3.1"),
    (None, True, "v9", HARBOR + "/images-infra/oras-project/oras:v9"),
    ([{"source": "ghcr.io/oras-project/oras:v1.2.0", "project": "tools", "path": "oras"}], True, None,
     HARBOR + "/tools/oras:v1.2.0"),
    ([{"source": "ghcr.io/oras-project/oras:v1.2.0", "project": "tools"}], False, None,
     "ghcr.io/oras-project/oras:v1.2.0"),
])
def test_oras_image(images, on_prem, version, expected):
    assert ip.oras_image(images, HARBOR, on_prem, version) == expected


def test_the_fallback_oras_image_is_the_listed_one():
    """DEFAULT_ORAS_IMAGE (used when no images list is given) is group_vars/all/images.yml's entry, so the ORAS
    version has one value (lab/versions.env is held to it by tests/unit/test_lab_images.py)."""
    listed = [image for image in images_yml()["aips_images"] if image["source"].startswith(ip.ORAS_REPOSITORY + ":")]
    assert [dict((k, image[k]) for k in ("source", "project")) for image in listed] == [ip.DEFAULT_ORAS_IMAGE]


def test_oras_image_missing_from_the_list():
    with pytest.raises(ValueError, match="carries no ghcr.io/oras-project/oras"):
        ip.oras_image([{"source": "ghcr.io/llm-d/sim:v1", "project": "p"}], HARBOR, True)
    assert ip.oras_image([], HARBOR, False) == "ghcr.io/oras-project/oras:v1.3.1"


def test_stack_charts_upstream_and_harbor():
    charts = images_yml()["aips_chart_mirrors"]
    assert ip.stack_charts(charts) == {
        "infra": {"ref": "llm-d-infra", "repo": "https://llm-d-incubation.github.io/llm-d-infra/", "version": "v1.3.0"},
        "gaie": {"ref": "oci://registry.k8s.io/gateway-api-inference-extension/charts/inferencepool", "repo": "",
                 "version": "v1.2.0"},
        "modelservice": {"ref": "llm-d-modelservice", "repo": "https://llm-d-incubation.github.io/llm-d-modelservice/",
                         "version": "v0.4.12"},
        "router": {"ref": "oci://ghcr.io/llm-d/charts/llm-d-router-standalone", "repo": "", "version": "v0.10.0"},
        "router_gateway": {"ref": "oci://ghcr.io/llm-d/charts/llm-d-router-gateway", "repo": "", "version": "v0.10.0"}}
    assert ip.stack_charts(charts, HARBOR) == {
        "infra": {"ref": "oci://%s/charts/llm-d-infra" % HARBOR, "repo": "", "version": "v1.3.0"},
        "gaie": {"ref": "oci://%s/charts/inferencepool" % HARBOR, "repo": "", "version": "v1.2.0"},
        "modelservice": {"ref": "oci://%s/charts/llm-d-modelservice" % HARBOR, "repo": "", "version": "v0.4.12"},
        "router": {"ref": "oci://%s/charts/llm-d-router-standalone" % HARBOR, "repo": "", "version": "v0.10.0"},
        "router_gateway": {"ref": "oci://%s/charts/llm-d-router-gateway" % HARBOR, "repo": "", "version": "v0.10.0"}}


def test_chart_plan():
    record = ip.chart_plan([{"name": "c", "version": "v1", "project": "charts", "chart": "c"}], "reg:5000")[0]
    assert (record["archive"], record["repository"], record["destination"]) == (
        "c-v1.tgz", "reg:5000/charts", "oci://reg:5000/charts/c")
    with pytest.raises(ValueError, match="name, version and project"):
        ip.chart_plan([{"name": "c"}], "reg:5000")


@pytest.mark.parametrize("entry, expected", [
    ({"repo_id": "sentence-transformers/all-MiniLM-L6-v2", "tag": "v1"}, "reg/ai-models/all-minilm-l6-v2:v1"),
    ({"repo_id": "Qwen/Qwen3-0.6B", "tag": "v2", "project": "llm", "artifact": "qwen3"}, "reg/llm/qwen3:v2"),
])
def test_sync_reference(entry, expected):
    assert ip.sync_reference(entry, "reg") == expected


# --- pins: the lock file's images and charts ---------------------------------------------------------------

def test_lock_sections_from_loaded_items():
    items = [{"kind": "image", "name": "registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0",
              "project": "images-shaide", "image_path": "gateway-api-inference-extension/epp", "digest": DIGEST},
             {"kind": "chart", "name": "inferencepool", "version": "v1.2.0", "project": "charts", "digest": "sha256:" + "f" * 64,
              "manifest_digest": DIGEST},
             {"kind": "model", "name": "minilm", "digest": DIGEST}]
    images = ip.image_lock(items, HARBOR)
    assert images == {"registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0": {
        "reference": HARBOR + "/images-shaide/gateway-api-inference-extension/epp:v1.2.0", "digest": DIGEST,
        "pinned_reference": HARBOR + "/images-shaide/gateway-api-inference-extension/epp@" + DIGEST}}
    charts = ip.chart_lock(items, HARBOR)
    assert charts == {"inferencepool": {"version": "v1.2.0", "digest": DIGEST,
                                        "reference": "oci://%s/charts/inferencepool:v1.2.0" % HARBOR,
                                        "pinned_reference": "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST)}}
    # load.yml's loop results (the entry under item, manifest_digest beside it) read as the entries themselves
    looped = [{"item": dict(item, manifest_digest=None), "manifest_digest": item.get("manifest_digest")}
              for item in items] + ["not an entry"]
    assert ip.lock_sections(looped, HARBOR) == ip.lock_sections(items, HARBOR) == {"images": images, "charts": charts}


def test_image_pins_cover_the_harbor_reference_and_the_mirrored_source():
    plan = ip.image_plan(images_yml()["aips_images"], HARBOR)
    pins = ip.image_pins(plan, {"registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0": {"digest": DIGEST}})
    assert pins == {
        HARBOR + "/images-shaide/gateway-api-inference-extension/epp:v1.2.0":
            HARBOR + "/images-shaide/gateway-api-inference-extension/epp@" + DIGEST,
        "registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0":
            "registry.k8s.io/gateway-api-inference-extension/epp@" + DIGEST}
    assert ip.pin_image("registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0", pins).endswith(DIGEST)
    assert ip.pin_image("x.io/a/b@" + DIGEST, {}) == "x.io/a/b@" + DIGEST
    assert ip.pin_image("x.io/a/b:v1", pins) is None
    # an images.yml digest pins without a lock; no Harbor host (cloud): only the source
    own = ip.image_plan([{"source": "x.io/a/b:v1", "project": "p", "digest": DIGEST}], "")
    assert ip.image_pins(own) == {"x.io/a/b:v1": "x.io/a/b@" + DIGEST}


def test_charts_are_pinned_by_the_lock_manifest_digest():
    charts = ip.stack_charts(images_yml()["aips_chart_mirrors"], HARBOR)
    lock = ip.chart_lock([{"kind": "chart", "name": "inferencepool", "version": "v1.2.0", "project": "charts",
                           "manifest_digest": DIGEST},
                          {"kind": "chart", "name": "llm-d-infra", "version": "v1.2.9", "project": "charts",
                           "manifest_digest": DIGEST}], HARBOR)
    pinned, unpinned = ip.pin_charts(charts, lock)
    assert pinned["gaie"] == {"ref": "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST), "repo": "", "version": ""}
    # another version in the lock does not pin; a chart not in it neither
    assert pinned["infra"] == charts["infra"]
    assert sorted(key for key, _ref, _version in unpinned) == ["infra", "modelservice", "router", "router_gateway"]
    problems = ip.unpinned_chart_problems(unpinned, "/srv/models.lock.yml")
    assert problems[0].startswith("chart infra (oci://%s/charts/llm-d-infra v1.3.0) is not pinned" % HARBOR)
    assert "playbooks/load.yml" in problems[0] and "aips_allow_unpinned: true" in problems[0]


def test_locked_images_pin_the_pull_jobs_oras_image():
    images = images_yml()["aips_images"]
    lock = {"ghcr.io/oras-project/oras:v1.3.1": {"digest": DIGEST}}
    locked = ip.locked_images(images, lock)
    assert [i for i in locked if i.get("digest")] == [dict(ip.DEFAULT_ORAS_IMAGE, digest=DIGEST)]
    assert ip.oras_image(locked, HARBOR, True) == HARBOR + "/images-infra/oras-project/oras@" + DIGEST
    assert ip.oras_image(locked, HARBOR, False) == "ghcr.io/oras-project/oras@" + DIGEST
    # another version than the pinned tag goes by that tag
    assert ip.oras_image(locked, HARBOR, True, "v1.3.2") == HARBOR + "/images-infra/oras-project/oras:v1.3.2"
    assert ip.locked_images(images, {}) == images


def test_oras_image_reads_a_plan_built_already(monkeypatch):
    """The model plan builds the image plan once and hands it in: oras_image reads it, builds none, and makes the
    Harbor references with its own harbor (the model plan's, which is None where the artifacts' plan has "")."""
    locked = ip.locked_images(images_yml()["aips_images"], {"ghcr.io/oras-project/oras:v1.3.1": {"digest": DIGEST}})
    plan = ip.image_plan(locked, "")
    cases = [(harbor, on_prem, version) for harbor in (HARBOR, None) for on_prem in (True, False)
             for version in (None, "v1.3.2")]
    expected = [ip.oras_image(locked, *case) for case in cases]
    assert expected[0] == HARBOR + "/images-infra/oras-project/oras@" + DIGEST
    monkeypatch.setattr(ip, "image_plan", lambda images, harbor: pytest.fail("the image plan was built again"))
    assert [ip.oras_image(locked, *case, plan=plan) for case in cases] == expected
    assert ip.oras_image([], HARBOR, False, plan=[]) == "ghcr.io/oras-project/oras:v1.3.1"
    with pytest.raises(ValueError, match="carries no ghcr.io/oras-project/oras image"):
        ip.oras_image(locked, HARBOR, True, plan=[])


def test_a_docker_hub_alias_is_mirrored_as_docker_io():
    """Issue 26: the node mirror (registries.yaml) and the pins name Docker Hub as containerd does, docker.io."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as ip
    record = ip.image_plan([{"source": "index.docker.io/vllm/vllm-openai:v0.14.1-cu130", "project": "images"}],
                           "harbor.local")[0]
    assert record["upstream"] == "docker.io/vllm/vllm-openai" and record["mirror"]["upstream"] == "docker.io"
    assert record["mirror"]["pattern"] == "^vllm/vllm\\-openai$"
    pins = ip.image_pins([record], {"index.docker.io/vllm/vllm-openai:v0.14.1-cu130": {"digest": "sha256:" + "5" * 64}})
    assert ip.pin_image("vllm/vllm-openai:v0.14.1-cu130", pins) == "docker.io/vllm/vllm-openai@sha256:" + "5" * 64
    assert ip.pin_image("vllm/vllm-openai:other", pins) is None
