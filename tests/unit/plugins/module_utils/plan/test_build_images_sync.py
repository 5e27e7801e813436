# -*- coding: utf-8 -*-
"""The model plan's ORAS image (from the images list) and its cross-check of model_sync_models."""

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan

HARBOR = "harbor.harbor.svc.cluster.local"
REF = HARBOR + "/ai-models/qwen3-0-6b:v1"


def settings(tmp_path, **extra):
    for sub in ("gaie-qwen3", "ms-qwen3"):
        folder = tmp_path / "models" / "generative" / "Qwen3" / sub
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "values.yaml").write_text("{}\n")
    source = {"harborRef": extra.pop("harbor_ref", REF), "modelUri": "hub/Qwen/Qwen3-0.6B", "storageSize": "40Gi",
              "hostpathNode": "gpu-node-1"}
    base = {"cloud_provider": "on-prem", "kubeconfig": "~/.kube/config", "harbor_hostname": HARBOR,
            "harbor_user": "robot$puller", "harbor_token": "t", "models_dir": str(tmp_path / "models"),
            "models": {"generative": [{"name": "Qwen3", "enabled": True, "modelSource": source}]}}
    base.update(extra)
    return base


@pytest.mark.parametrize("extra, image", [
    ({}, HARBOR + "/images-infra/oras-project/oras:v1.3.1"),
    ({"images": [{"source": "ghcr.io/oras-project/oras:v1.4.0", "project": "tools", "path": "oras"}]},
     HARBOR + "/tools/oras:v1.4.0"),
    ({"images": [{"source": "ghcr.io/oras-project/oras:v1.4.0", "project": "tools"}], "oras_version": "v2"},
     HARBOR + "/tools/oras-project/oras:v2"),
    ({"images": [], "oras_image": HARBOR + "/o/oras:v1"}, HARBOR + "/o/oras:v1"),
    ({"images": [], "oras_image": "r.example/o/oras:v1", "cloud_provider": "cloud"}, "r.example/o/oras:v1"),
    ({"images": [], "cloud_provider": "cloud"}, "ghcr.io/oras-project/oras:v1.3.1"),
])
def test_oras_image_comes_from_the_images_list(tmp_path, extra, image):
    records, problems = build_plan(settings(tmp_path, **extra))
    assert [p for p in problems if p.severity == "error"] == []
    assert records[0]["storage"]["oras_image"] == image


def test_an_images_list_without_oras_is_a_problem_on_prem(tmp_path):
    records, problems = build_plan(settings(tmp_path, images=[{"source": "ghcr.io/llm-d/sim:v1", "project": "p"}]))
    assert records == []
    assert [str(p) for p in problems] == [
        "generative/Qwen3: modelSource: the pull Job has no ORAS image: the images list carries no "
        "ghcr.io/oras-project/oras image, so Harbor has none (got %r). Fix: add the ghcr.io/oras-project/oras "
        "image to aips_images (group_vars/all/images.yml), or set aips_oras_image" % REF]


@pytest.mark.parametrize("published", [
    [],
    [{"repo_id": "Qwen/Qwen3-0.6B", "reference": REF}],
    [{"repo_id": "Qwen/Qwen3-0.6B", "reference": HARBOR + "/ai-models/qwen3-0-6b:v2"},
     {"repo_id": "Qwen/Qwen3-0.6B", "reference": REF}],
    [{"repo_id": "other/model", "reference": HARBOR + "/ai-models/other:v1"}],
    [{"repo_id": "Qwen/Qwen3-0.6B", "reference": "not a reference"}],
])
def test_agreeing_or_unrelated_sync_entries_pass(tmp_path, published):
    records, problems = build_plan(settings(tmp_path, sync_models=published))
    assert problems == [] and len(records) == 1


def test_a_digest_harbor_ref_agrees_with_any_tag(tmp_path):
    pinned = HARBOR + "/ai-models/qwen3-0-6b@sha256:" + "a" * 64
    records, problems = build_plan(settings(tmp_path, harbor_ref=pinned,
                                            sync_models=[{"repo_id": "Qwen/Qwen3-0.6B", "reference": REF}]))
    assert problems == []


@pytest.mark.parametrize("published, field, words", [
    ([{"repo_id": "Qwen/Qwen3-1.7B", "reference": REF}], "modelSource.modelUri",
     ["publishes Qwen/Qwen3-1.7B to %s, while modelUri names Qwen/Qwen3-0.6B" % REF, "set modelUri to hub/Qwen/Qwen3-1.7B"]),
    ([{"repo_id": "Qwen/Qwen3-0.6B", "reference": HARBOR + "/ai-models/qwen3-0-6b:v2"}], "modelSource.harborRef",
     ["the tag v1 is not what model_sync_models publishes", "qwen3-0-6b:v2", "tag of the model_sync_models entry to v1"]),
    ([{"repo_id": "Qwen/Qwen3-0.6B", "reference": HARBOR + "/ai-models/qwen3:v1"}], "modelSource.harborRef",
     ["publishes Qwen/Qwen3-0.6B as %s/ai-models/qwen3:v1, not to this artifact" % HARBOR,
      "set harborRef to %s/ai-models/qwen3:v1" % HARBOR]),
])
def test_disagreements_are_named(tmp_path, published, field, words):
    records, problems = build_plan(settings(tmp_path, sync_models=published))
    assert records == []
    assert [(p.model, p.field) for p in problems] == [("generative/Qwen3", field)]
    for word in words:
        assert word in str(problems[0])
