# -*- coding: utf-8 -*-
"""The model plan builds the image plan once per run (issue 28): the records' ORAS image and the artifacts'
images come from that one plan, and the result is what it was when every step built its own."""

import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as ip
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import task
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT

ORAS_DIGEST = "sha256:" + "a" * 64
CHART_DIGEST = "sha256:" + "c" * 64
# the inventories' templated values (lookups of the environment, the lab node) as a run would resolve them
RESOLVED = {"aips_kubeconfig": "~/.kube/config", "aips_harbor_user": "robot$k8s-puller",
            "aips_harbor_token": "t0ken", "hostpathNode": "lab-node"}


def carried():
    with open(os.path.join(ROOT, "group_vars", "all", "images.yml")) as handle:
        return yaml.safe_load(handle)


def lock_file(tmp_path):
    """A lock file pinning the ORAS image and every carried chart (what playbooks/load.yml writes)."""
    charts = [dict(kind="chart", name=chart["name"], version=chart["version"], project=chart["project"],
                   manifest_digest=CHART_DIGEST) for chart in carried()["aips_chart_mirrors"]]
    path = tmp_path / "models.lock.yml"
    path.write_text(yaml.safe_dump({"images": {"ghcr.io/oras-project/oras:v1.3.1": {"digest": ORAS_DIGEST}},
                                    "charts": ip.chart_lock(charts, HARBOR)}))
    return str(path)


def params(**extra):
    base = dict((key, spec.get("default")) for key, spec in task.argspec().items())
    base.update(images=carried()["aips_images"], chart_mirrors=carried()["aips_chart_mirrors"])
    base.update(extra)
    return base


def resolved(value, key=None):
    if isinstance(value, dict):
        return dict((name, resolved(item, name)) for name, item in value.items())
    if isinstance(value, list):
        return [resolved(item, key) for item in value]
    if isinstance(value, str) and "{{" in value:
        return RESOLVED[key]  # a KeyError names a templated value this test does not know yet
    return value


def inventory_params(site, tmp_path):
    with open(os.path.join(ROOT, "inventory", site, "group_vars", "serving.yml")) as handle:
        group = yaml.safe_load(handle)
    settings = dict((key[len("aips_"):], resolved(value, key)) for key, value in group.items()
                    if key.startswith("aips_") and key[len("aips_"):] in task.SETTINGS)
    return params(models_dir=os.path.join(ROOT, "models"), lock_file=lock_file(tmp_path), **settings)


def harbor_models(tmp_path, count):
    """``count`` on-prem models with a Harbor source, and their models folder."""
    models = []
    for index in range(count):
        name = "Model%d" % index
        for sub in ("gaie-model%d" % index, "ms-model%d" % index):
            folder = tmp_path / "models" / "generative" / name / sub
            folder.mkdir(parents=True)
            (folder / "values.yaml").write_text("{}\n")
        models.append({"name": name, "enabled": True, "modelSource": {
            "harborRef": "%s/ai-models/model%d:v1" % (HARBOR, index), "modelUri": "hub/org/model%d" % index,
            "storageSize": "5Gi", "hostpathNode": "node-1"}})
    return params(models={"generative": models}, models_dir=str(tmp_path / "models"), cloud_provider="on-prem",
                  kubeconfig="~/.kube/config", harbor_hostname=HARBOR, harbor_user="robot$r", harbor_token="t",
                  lock_file=lock_file(tmp_path))


def counted(monkeypatch):
    calls = []
    real = ip.image_plan
    monkeypatch.setattr(ip, "image_plan", lambda images, harbor: calls.append(harbor) or real(images, harbor))
    return calls


def each_step_builds_its_own(monkeypatch):
    """The path before issue 28: no plan built up front, so every model and the artifacts build their own."""
    monkeypatch.setattr(task, "_image_records", lambda images, harbor: None)


def test_one_run_of_three_harbor_models_builds_the_image_plan_once(tmp_path, monkeypatch):
    given = harbor_models(tmp_path, 3)
    calls = counted(monkeypatch)
    result, _warnings = task.plan_result(given)
    assert not result.get("failed"), result.get("msg")
    assert len(result["records"]) == 3
    assert calls == [HARBOR]
    oras = HARBOR + "/images-infra/oras-project/oras@" + ORAS_DIGEST
    assert [record["storage"]["oras_image"] for record in result["records"]] == [oras] * 3
    assert [r["pinned"] for r in result["images"] if r["upstream"] == ip.ORAS_REPOSITORY] == [oras]

    del calls[:]
    each_step_builds_its_own(monkeypatch)
    before, _warnings = task.plan_result(given)
    assert len(calls) == 4  # one per model, once more for the artifacts
    assert before == result


@pytest.mark.parametrize("site, changes", [
    ("rke2", {}), ("lab", {}), ("cloud", {}),
    # the Harbor host unset: None for the ORAS image (build_plan's cleaning), "" for the artifacts
    ("cloud", {"harbor_hostname": None}), ("cloud", {"harbor_hostname": "  "}),
    ("rke2", {"harbor_hostname": None}),  # refused (on-prem needs it): the same problems
    ("rke2", {"harbor_hostname": " %s\n" % HARBOR}),  # refused (whitespace): the same problems
    ("rke2", {"oras_version": "v1.4.0"}), ("cloud", {"oras_version": "v1.4.0"}), ("rke2", {"lock_file": ""}),
])
def test_the_repos_inventories_plan_as_before(tmp_path, monkeypatch, site, changes):
    given = dict(inventory_params(site, tmp_path), **changes)
    result, warnings = task.plan_result(given)
    each_step_builds_its_own(monkeypatch)
    assert task.plan_result(given) == (result, warnings)
    if not changes:  # the inventories as written plan their models, each with its ORAS image
        assert not result.get("failed"), result.get("msg")
        oras = [record["storage"]["oras_image"] for record in result["records"] if record.get("storage")
                and record["storage"].get("mode") == "harbor"]
        assert oras and set(oras) == {HARBOR + "/images-infra/oras-project/oras@" + ORAS_DIGEST if site != "cloud"
                                      else "ghcr.io/oras-project/oras@" + ORAS_DIGEST}
        assert result["images"] and result["image_pins"]


def test_a_refused_images_list_is_still_reported_by_both_steps(tmp_path, monkeypatch):
    untagged = [{"source": "ghcr.io/oras-project/oras", "project": "p"}]
    with pytest.raises(ValueError) as refused:
        ip.image_plan(untagged, HARBOR)
    given = dict(harbor_models(tmp_path, 2), images=untagged)
    calls = counted(monkeypatch)
    result, _warnings = task.plan_result(given)
    assert result["failed"]
    messages = [problem["problem"] for problem in result["problems"]]
    assert messages == (["the pull Job has no ORAS image: %s" % refused.value] * 2
                        + ["the images list is refused: %s" % refused.value])
    assert len(calls) == 4  # the one plan, then each step trying again to report it
    each_step_builds_its_own(monkeypatch)
    assert task.plan_result(given)[0] == result
