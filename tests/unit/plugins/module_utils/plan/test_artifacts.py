# -*- coding: utf-8 -*-
"""The plan's image and chart plans: the lock file read once, its pins applied, chart problems as plan problems."""

from pathlib import Path

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import artifacts
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as ip
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import argspec, plan_result
from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb

REPO = Path(__file__).resolve().parents[5]
HARBOR = "harbor.harbor.svc.cluster.local"
DIGEST = "sha256:" + "e" * 64
ORAS_DIGEST = "sha256:" + "a" * 64
EPP = "registry.k8s.io/gateway-api-inference-extension/epp:v1.2.0"


def carried():
    return yaml.safe_load((REPO / "group_vars" / "all" / "images.yml").read_text())


def chart_section(*names, **kwargs):
    mirrors = dict((chart["name"], chart) for chart in carried()["aips_chart_mirrors"])
    items = [dict(kind="chart", name=name, version=kwargs.get("version") or mirrors[name]["version"],
                  project=mirrors[name]["project"], manifest_digest=DIGEST) for name in names]
    return ip.chart_lock(items, HARBOR)


def settings(**extra):
    base = dict(images=carried()["aips_images"], chart_mirrors=carried()["aips_chart_mirrors"], charts=None,
                harbor_hostname=HARBOR, cloud_provider="on-prem", allow_unpinned=False, lock_file="/srv/models.lock.yml")
    base.update(extra)
    return base


def test_the_lock_pins_the_images_and_the_harbor_chart_mirrors():
    lock = {"images": {"ghcr.io/oras-project/oras:v1.3.1": {"digest": ORAS_DIGEST}, EPP: {"digest": DIGEST}},
            "charts": chart_section("llm-d-infra", "inferencepool", "llm-d-modelservice", "llm-d-router-standalone",
                                    "llm-d-router-gateway")}
    planned, problems = artifacts.plan_artifacts(settings(), lock, serving=True)
    assert problems == []
    oras = [record for record in planned["images"] if record["upstream"] == ip.ORAS_REPOSITORY][0]
    assert oras["digest"] == ORAS_DIGEST
    assert oras["pinned"] == HARBOR + "/images-infra/oras-project/oras@" + ORAS_DIGEST
    # the pins the values step rewrites by: the Harbor reference and the upstream source a node mirror rewrites
    assert planned["image_pins"][EPP] == "registry.k8s.io/gateway-api-inference-extension/epp@" + DIGEST
    assert planned["image_pins"][HARBOR + "/images-shaide/gateway-api-inference-extension/epp:v1.2.0"] == \
        HARBOR + "/images-shaide/gateway-api-inference-extension/epp@" + DIGEST
    assert len(planned["image_pins"]) == 4  # two pinned images, two references each
    assert planned["chart_source"] == "aips_chart_mirrors"
    assert planned["charts"]["gaie"] == {
        "ref": "oci://%s/charts/inferencepool" % HARBOR, "repo": "", "version": "v1.2.0", "digest": DIGEST,
        "pinned_ref": "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST)}
    assert planned["helm_charts"] == dict(
        (key, {"ref": "oci://%s/charts/%s@%s" % (HARBOR, name, DIGEST), "repo": "", "version": ""})
        for key, name in (("infra", "llm-d-infra"), ("gaie", "inferencepool"), ("modelservice", "llm-d-modelservice"),
                          ("router", "llm-d-router-standalone"), ("router_gateway", "llm-d-router-gateway")))


def test_unpinned_charts_are_plan_problems_on_prem_unless_allowed():
    lock = {"charts": chart_section("inferencepool")}
    _planned, problems = artifacts.plan_artifacts(settings(), lock, serving=True)
    assert [str(problem) for problem in problems] == [
        "cluster: aips_lock_file: chart %s (oci://%s/charts/%s %s) is not pinned: the lock file /srv/models.lock.yml "
        "has no digest for it. Fix: load the bundle that carries it (playbooks/load.yml writes the lock file and its "
        "path goes in aips_lock_file), or set aips_allow_unpinned: true to install by version (a lab)"
        % (key, HARBOR, name, version)
        for key, name, version in (("infra", "llm-d-infra", "v1.3.0"), ("modelservice", "llm-d-modelservice", "v0.4.12"))]
    # another version in the lock does not pin
    other = {"charts": chart_section("llm-d-infra", "inferencepool", "llm-d-modelservice", version="v9.9.9")}
    assert len(artifacts.plan_artifacts(settings(), other, serving=True)[1]) == 3
    allowed, problems = artifacts.plan_artifacts(settings(allow_unpinned=True), lock, serving=True)
    assert problems == []
    assert allowed["helm_charts"]["infra"] == {"ref": "oci://%s/charts/llm-d-infra" % HARBOR, "repo": "",
                                               "version": "v1.3.0"}
    assert allowed["charts"]["infra"]["digest"] is None and allowed["charts"]["infra"]["pinned_ref"] is None
    # no model to serve: nothing to refuse; cloud: the upstream charts, never refused
    assert artifacts.plan_artifacts(settings(), lock, serving=False)[1] == []
    cloud, problems = artifacts.plan_artifacts(settings(cloud_provider="cloud"), {}, serving=True)
    assert problems == []
    assert cloud["helm_charts"]["gaie"] == {
        "ref": "oci://registry.k8s.io/gateway-api-inference-extension/charts/inferencepool", "repo": "",
        "version": "v1.2.0"}


def test_only_the_charts_of_the_records_stacks_are_required_and_pinned():
    """serving is the chart keys of the records' stacks: records all on the seed's stack neither require nor pin
    the v0.10 router chart; a v0.10 record requires and pins it, and not the seed's charts."""
    seed = {"infra", "gaie", "modelservice"}
    lock = {"charts": chart_section("llm-d-infra", "inferencepool", "llm-d-modelservice")}
    planned, problems = artifacts.plan_artifacts(settings(), lock, serving=seed)
    assert problems == []
    # the router chart is still planned (by version): it is only not asked for
    assert planned["helm_charts"]["router"] == {"ref": "oci://%s/charts/llm-d-router-standalone" % HARBOR,
                                                "repo": "", "version": "v0.10.0"}
    assert planned["charts"]["router"]["digest"] is None
    # True stands for the default (seed) stack's charts: the same
    assert artifacts.plan_artifacts(settings(), lock, serving=True)[1] == []
    # a chart mirrors list without the router entry is whole for the seed's records
    seed_mirrors = [chart for chart in carried()["aips_chart_mirrors"] if chart["key"] != "router"]
    assert artifacts.plan_artifacts(settings(chart_mirrors=seed_mirrors), lock, serving=seed)[1] == []

    planned, problems = artifacts.plan_artifacts(settings(), lock, serving={"router"})
    assert [(problem.field, problem.problem) for problem in problems] == [
        ("aips_lock_file", "chart router (oci://%s/charts/llm-d-router-standalone v0.10.0) is not pinned: the lock "
                           "file /srv/models.lock.yml has no digest for it" % HARBOR)]
    # the seed's charts stay pinned by the lock, the router's pins once the lock has it
    assert planned["helm_charts"]["gaie"]["ref"] == "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST)
    whole = {"charts": chart_section("llm-d-router-standalone")}
    planned, problems = artifacts.plan_artifacts(settings(), whole, serving={"router"})
    assert problems == []
    assert planned["helm_charts"]["router"]["ref"] == "oci://%s/charts/llm-d-router-standalone@%s" % (HARBOR, DIGEST)
    # without the router entry, a v0.10 record's chart is not set (and not reported as unpinned as well)
    _planned, problems = artifacts.plan_artifacts(settings(chart_mirrors=seed_mirrors), lock, serving={"router"})
    assert [(problem.field, problem.problem) for problem in problems] == [
        ("aips_chart_mirrors.router", "the router chart's ref is not set")]
    # both stacks: all four
    _planned, problems = artifacts.plan_artifacts(settings(), {}, serving=seed | {"router"})
    assert sorted(problem.problem.split(" (")[0] for problem in problems) == [
        "chart gaie", "chart infra", "chart modelservice", "chart router"]


def test_a_sites_aips_charts_wins_and_is_checked():
    own = {"infra": {"ref": "llm-d-infra", "repo": "https://example.test/charts", "version": "v1.3.0"},
           "gaie": {"ref": "oci://%s/charts/inferencepool" % HARBOR, "repo": "", "version": "v1.2.0"}}
    lock = {"charts": chart_section("inferencepool")}
    planned, problems = artifacts.plan_artifacts(settings(charts=own, allow_unpinned=True), lock, serving=True)
    assert planned["chart_source"] == "aips_charts"
    assert planned["helm_charts"]["infra"] == own["infra"]
    assert planned["helm_charts"]["gaie"]["ref"] == "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST)
    assert [(problem.field, problem.problem) for problem in problems] == [
        ("aips_charts.modelservice", "the modelservice chart's ref is not set")]
    # a chart written by digest is pinned as written
    by_digest = dict(own, modelservice={"ref": "oci://%s/charts/llm-d-modelservice@%s" % (HARBOR, DIGEST), "repo": "",
                                        "version": ""})
    planned, problems = artifacts.plan_artifacts(settings(charts=by_digest), lock, serving=True)
    assert [problem.problem.split(" (")[0] for problem in problems] == ["chart infra"]  # on-prem, not oci://, no pin
    assert planned["charts"]["modelservice"]["digest"] == DIGEST
    assert planned["helm_charts"]["modelservice"] == by_digest["modelservice"]
    _planned, problems = artifacts.plan_artifacts(settings(charts=["infra"]), {}, serving=True)
    assert problems[0].field == "aips_charts" and "must be a mapping" in problems[0].problem


def test_no_images_and_no_charts_given_is_no_plan_of_them():
    planned, problems = artifacts.plan_artifacts(settings(images=None, chart_mirrors=None), {}, serving=True)
    assert problems == []
    assert planned == {"images": None, "image_pins": {}, "charts": {}, "helm_charts": {}, "chart_source": None}


def test_the_lock_file_is_read_once_and_a_bad_one_is_a_problem(tmp_path, monkeypatch):
    problems = []
    assert artifacts.read_lock("", problems) == {} and problems == []
    assert artifacts.read_lock(str(tmp_path / "absent.yml"), problems) == {}
    assert problems[0].field == "aips_lock_file" and problems[0].problem == "the lock file does not exist"
    listed = tmp_path / "list.yml"
    listed.write_text("- a\n")
    assert artifacts.read_lock(str(listed), problems) == {} and problems[1].problem == "the lock file is not a mapping"
    bomb = tmp_path / "bomb.yml"
    bomb.write_text(alias_bomb())
    artifacts.read_lock(str(bomb), problems)
    assert len(problems) == 3 and problems[2].problem.startswith("the lock file cannot be read")

    lock = tmp_path / "models.lock.yml"
    lock.write_text(yaml.safe_dump({"images": {"ghcr.io/oras-project/oras:v1.3.1": {"digest": ORAS_DIGEST}},
                                    "charts": chart_section("llm-d-infra", "inferencepool", "llm-d-modelservice")}))
    reads = []
    real = artifacts.safe_yaml.load_file
    monkeypatch.setattr(artifacts.safe_yaml, "load_file", lambda path, *a, **k: reads.append(path) or real(path, *a, **k))
    models_dir = tmp_path / "models"
    (models_dir / "generative").mkdir(parents=True)
    params = dict((key, spec.get("default")) for key, spec in argspec().items())
    params.update(settings(lock_file=str(lock)), models={}, models_dir=str(models_dir), kubeconfig="/k",
                  harbor_user="robot$r", harbor_token="t")
    result, _warnings = plan_result(params)
    assert reads == [str(lock)]
    assert not result.get("failed"), result
    assert result["models"] == {} and result["lock_file"] == str(lock)  # no Harbor model in this plan
    assert result["model_values"] == {}
    assert result["records"] == [] and result["chart_source"] == "aips_chart_mirrors"
    assert result["helm_charts"]["infra"]["ref"].endswith("@" + DIGEST)
    assert [r["digest"] for r in result["images"] if r["upstream"] == ip.ORAS_REPOSITORY] == [ORAS_DIGEST]


def test_the_plan_hands_on_the_lock_entries_of_its_harbor_references():
    lock = {"models": {"h/m/a:v1": {"digest": "sha256:" + "1" * 64, "size": 5}, "h/m/other:v1": {"digest": "x"},
                       "h/m/bad:v1": "not an entry"}}
    records = [{"storage": {"oci": {"reference": "h/m/a:v1"}}}, {"storage": {"oci": {"reference": "h/m/b:v1"}}},
               {"storage": {"mode": "claim"}}, {"storage": {"oci": {"reference": "h/m/bad:v1"}}}]
    assert artifacts.locked_models(lock, records, "/srv/models.lock.yml") == {
        "models": {"h/m/a:v1": lock["models"]["h/m/a:v1"]}, "lock_file": "/srv/models.lock.yml"}
    assert artifacts.locked_models({}, records, None) == {"models": {}, "lock_file": ""}
