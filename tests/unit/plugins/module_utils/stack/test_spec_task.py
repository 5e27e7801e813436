# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack's first step in one call (module_utils/stack/spec_task.py): the records selected and checked, the
chart plan checked, the values files read below the models tree and every model's stack computed, failing once.

The records are the plan's own, built from the repo's models tree or from a generated tree (tests/support/plan_cases);
the values files are read by the collection's YAML reader unless a test hands in their contents."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import spec_task
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings

REPO = Path(ROOT)
HARBOR = "harbor.harbor.svc.cluster.local"
CHARTS = {"infra": {"ref": "oci://h/charts/llm-d-infra", "repo": "", "version": ""},
          "gaie": {"ref": "oci://h/charts/inferencepool", "repo": "", "version": ""},
          "modelservice": {"ref": "oci://h/charts/llm-d-modelservice", "repo": "", "version": ""}}
CASE = {"folders": {"generative/M": ["gaie-m", "ms-m"]},
        "values": {"generative/M/ms-m": {"decode": {"replicas": 1}}},
        "models": {"generative": [{"name": "M", "enabled": True}]}}
SECRET = "linked-secret-27-spec"
TOKEN = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "llm-d-hf-token", "key": "HF_TOKEN"}}}


def repo_records():
    settings = {
        "cloud_provider": "on-prem", "kubeconfig": "/k", "harbor_hostname": HARBOR, "harbor_user": "robot$k8s-puller",
        "harbor_token": "t0ken", "models_dir": str(REPO / "models"),
        "models": {"generative": [{"name": "Qwen3-0.6B-rke2", "enabled": True, "nodeSelector": {"workload": "gpu"}}],
                   "embedder": [{"name": "all-MiniLM-L6-v2-rke2", "enabled": True, "nodeSelector": {"workload": "cpu"},
                                 "modelSource": {"harborRef": HARBOR + "/ai-models/all-minilm-l6-v2:v1",
                                                 "modelUri": "hub/sentence-transformers/all-MiniLM-L6-v2",
                                                 "storageSize": "1Gi", "hostpathNode": "node-1"}}]}}
    records, problems = plan.build_plan(settings)
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    return records


@pytest.fixture(scope="module")
def records():
    return repo_records()


def params(plan_records, **options):
    """The validated options as the action hands them over: the argument spec's defaults and ``options``."""
    out = dict((key, copy.deepcopy(option.get("default"))) for key, option in spec_task.argspec().items())
    out.update(plan=plan_records, charts=CHARTS, models_dir=str(REPO / "models"), harbor_hostname=HARBOR,
               allow_unpinned=True)
    out.update(options)
    return out


def load(path):
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


# ---- the records: selected and checked once, in the words of plan/select.py -------------------------------------

def test_every_record_or_the_named_ones_in_plan_order(records):
    result, warnings = spec_task.spec_result(params(records, specs=False))
    assert result["records"] == records and result["specs"] == {} and warnings == []
    picked = spec_task.spec_result(params(records, models=["all-minilm-l6-v2-rke2"], specs=False))[0]["records"]
    assert [r["slug"] for r in picked] == ["all-minilm-l6-v2-rke2"]
    assert spec_task.spec_result(params([]))[0] == dict(changed=False, records=[], specs={}, charts=CHARTS, notes=[])


@pytest.mark.parametrize("plan_records, models, message", [
    (None, [], "serving_stack: no model plan was built (serving_stack_plan is unset and so is aips_plan): run the role "
               "after the plan, as playbooks/site.yml does (its first play imports playbooks/tasks/model_plan.yml), or "
               "pass serving_stack_plan the records of ai_platform.serving.model_plan ([] to handle no model)"),
    ({"slug": "a"}, [], "serving_stack_plan must be the list of ai_platform.serving.model_plan records; got "
                        "{'slug': 'a'}"),
    ([{"name": "x"}], [], "serving_stack_plan[0] is not an ai_platform.serving.model_plan record (it needs slug, names "
                          "and storage); got {'name': 'x'}"),
    ("records", ["zzz"], "serving_stack_models names zzz, not in the plan (plan slugs: qwen3-0-6b-rke2, "
                         "all-minilm-l6-v2-rke2)"),
])
def test_no_plan_a_non_record_or_an_unknown_slug_fails_naming_the_role_variable(records, plan_records, models, message):
    for specs in (True, False):  # the removal (specs off) checks the same
        result, _warnings = spec_task.spec_result(params(records if plan_records == "records" else plan_records,
                                                         models=models, specs=specs))
        assert result == dict(failed=True, msg=message)


# ---- the chart plan -----------------------------------------------------------------------------------------------

def test_a_chart_without_ref_fails_naming_each_key_the_value_and_the_fix(records):
    charts = {"infra": CHARTS["infra"], "gaie": {"ref": "", "version": "v1"}}
    result = spec_task.spec_result(params(records, charts=charts))[0]
    fix = ("Fix: build the plan with playbooks/tasks/model_plan.yml (it derives the charts from aips_chart_mirrors, or "
           "takes aips_charts), or set serving_stack_charts.%s (ref, repo, version).")
    assert result == dict(failed=True, msg=(
        "serving_stack_charts.gaie.ref is not set (got {'ref': '', 'version': 'v1'}). " + fix % "gaie"
        + " serving_stack_charts.modelservice.ref is not set (got None). " + fix % "modelservice"))
    assert spec_task.unset_charts(None) == spec_task.unset_charts("not a mapping") == ["infra", "gaie", "modelservice"]
    assert spec_task.unset_charts(CHARTS) == []


def test_the_charts_are_not_checked_without_specs_or_without_records(records):
    assert spec_task.spec_result(params(records, charts=None, specs=False))[0]["charts"] == {}
    assert "failed" not in spec_task.spec_result(params([], charts={}))[0]


# ---- the values files: the collection's one YAML reader, below the models tree -----------------------------------

def test_the_values_step_reads_the_planned_values_files(tmp_path):
    settings = case_settings(tmp_path, CASE)
    plan_records = plan.build_plan(settings)[0]
    files, problems = spec_task.read_values(plan_records[0], settings["models_dir"])
    assert (files, problems) == ({"gaie": {}, "ms": {"decode": {"replicas": 1}}}, [])


def test_a_values_file_swapped_for_a_link_out_of_the_tree_after_the_plan_is_refused(tmp_path):
    """Issue 27, audit gap 7: the values files are read again only below the models tree, so a file swapped for a
    symlink out of the tree after the plan is refused (naming the file, never its contents)."""
    settings = case_settings(tmp_path, CASE)
    plan_records = plan.build_plan(settings)[0]
    values = plan_records[0]["values_files"]["ms"]
    outside = tmp_path / "outside.yaml"
    outside.write_text("token: %s\n" % SECRET)
    os.unlink(values)
    os.symlink(str(outside), values)  # after the plan, before the values step
    result, _warnings = spec_task.spec_result(params(plan_records, models_dir=settings["models_dir"], charts=CHARTS))
    assert result["failed"] is True and len(result["msg"]) == 1, result
    assert "%s: refused: it resolves to a file outside %s (a symlink leaving that folder)" % (
        values, settings["models_dir"]) in result["msg"][0], result
    assert SECRET not in str(result)
    # an empty models_dir is no check (it used to be read as the current folder): the link is followed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    cwd = os.getcwd()
    try:
        os.chdir(str(elsewhere))
        assert spec_task.read_values(plan_records[0], "")[0]["ms"] == {"token": SECRET}
    finally:
        os.chdir(cwd)


def test_a_values_file_that_is_not_a_mapping_is_a_problem_naming_model_and_file(tmp_path):
    settings = case_settings(tmp_path, CASE)
    plan_records = plan.build_plan(settings)[0]
    path = plan_records[0]["values_files"]["gaie"]
    Path(path).write_text("- not\n- a mapping\n")
    files, problems = spec_task.read_values(plan_records[0], settings["models_dir"])
    assert files == {"ms": {"decode": {"replicas": 1}}}
    assert problems == ["M: %s: values_files.gaie must hold a mapping, got list. Fix: write the values as a mapping "
                        "of keys" % path]


# ---- the specs: stack/values.py:stack_spec of each record, on the data read here ---------------------------------

def test_every_model_in_one_step_is_each_model_alone(records):
    """One call for all models gives what stack_spec gives for each record with the values files as written and the
    settings the options name (cloud_provider on-prem -> air_gapped, harbor_hostname -> registry_host)."""
    options = params(records, cluster_domain="c.example", embeddings_port=9000, gateway_listener="default")
    result, warnings = spec_task.spec_result(options)
    assert "failed" not in result, result
    settings = dict(spec_task.stack_settings(options))
    assert settings["air_gapped"] is True and settings["registry_host"] == HARBOR
    assert list(result["specs"]) == [r["slug"] for r in records]
    assert result["specs"] == dict((r["slug"], sv.stack_spec(r, load(r["values_files"]["gaie"]),
                                                             load(r["values_files"]["ms"]), settings)) for r in records)
    assert result["specs"]["all-minilm-l6-v2-rke2"]["endpoint"].endswith(".svc.c.example:9000")
    assert result["charts"] == CHARTS and result["records"] == records and warnings == [] and result["notes"] == []
    cloud = spec_task.stack_settings(params(records, cloud_provider="cloud", harbor_hostname=None))
    assert (cloud["air_gapped"], cloud["registry_host"]) == (False, "")


def test_the_option_defaults_are_stack_spec_defaults():
    spec = spec_task.argspec()
    for key, _option in spec_task.SETTINGS:
        assert spec[key]["default"] == sv.DEFAULT_SETTINGS.get(key, []), key
    assert spec["specs"]["default"] is True and spec["plan"].get("default") is None


def token_reader(records):
    """The values files as written, with a Hugging Face token Secret in the first record's ms and gaie files."""
    first = records[0]["values_files"]

    def read(path, root=None):
        data = load(path)
        if path == first["ms"]:
            data["modelArtifacts"]["authSecretName"] = "llm-d-hf-token"
        if path == first["gaie"]:
            data.setdefault("inferenceExtension", {})["env"] = [TOKEN]
        return data
    return read


def test_notes_and_warnings_come_back_and_on_prem_the_token_is_a_problem(records):
    served = [dict(records[0], model_artifacts_uri="pvc+hf://qwen3-0-6b-rke2-model/hub/Qwen/Qwen3-0.6B")] + records[1:]
    result, warnings = spec_task.spec_result(params(served, cloud_provider="cloud"), read=token_reader(served))
    assert "failed" not in result, result
    assert result["notes"] == result["specs"]["qwen3-0-6b-rke2"]["notes"] and len(result["notes"]) == 2
    assert result["notes"][0].startswith("Qwen3-0.6B-rke2: %s: dropped modelArtifacts.authSecretName"
                                         % served[0]["values_files"]["ms"])
    assert warnings == result["specs"]["qwen3-0-6b-rke2"]["warnings"] and len(warnings) == 1
    assert "inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token" in warnings[0]
    # on-prem the same token is a problem: the task fails, listing it, and still returns the notes
    failed, warnings = spec_task.spec_result(params(served), read=token_reader(served))
    assert failed["failed"] is True and warnings == [] and failed["notes"] == result["notes"]
    assert [p for p in failed["msg"] if "HF_TOKEN) from Secret llm-d-hf-token gives the EPP" in p], failed["msg"]
    assert "specs" not in failed and "records" not in failed


def test_every_problem_of_every_model_fails_once(records, tmp_path):
    """A values file off Harbor on-prem (one model) and a file that cannot be read (the other): one failure, both
    listed, in record order, each naming its model or file."""
    def read(path, root=None):
        if path == records[1]["values_files"]["gaie"]:
            return spec_task.safe_yaml.load_file(str(tmp_path / "missing.yaml"))
        data = load(path)
        if path == records[0]["values_files"]["ms"]:
            data["decode"]["containers"][0]["image"] = "docker.io/library/evil:1"
        return data
    result, _warnings = spec_task.spec_result(params(records), read=read)
    assert result["failed"] is True
    assert [p.split(":")[0] for p in result["msg"]] == ["Qwen3-0.6B-rke2", str(tmp_path / "missing.yaml")], result["msg"]
    assert "docker.io/library/evil:1" in result["msg"][0] and "cannot be read" in result["msg"][1]


def test_a_record_stack_spec_cannot_use_is_a_problem_naming_the_model(records):
    broken = dict(records[0])
    del broken["routing_kind"]
    result = spec_task.spec_result(params([broken]))[0]
    assert result["failed"] is True and result["msg"] == [
        "Qwen3-0.6B-rke2: its stack could not be computed from the plan record (KeyError: 'routing_kind'). Fix: build "
        "the plan with playbooks/tasks/model_plan.yml"]


# ---- the role's task: every option set from the role variable of the same name -----------------------------------

def test_the_role_task_passes_every_option_from_its_role_variable():
    with open(os.path.join(ROOT, "roles", "serving_stack", "tasks", "spec.yml")) as handle:
        tasks = yaml.safe_load(handle)
    (task,) = [t for t in tasks if "ai_platform.serving.serving_stack_spec" in t]
    args = task["ai_platform.serving.serving_stack_spec"]
    assert set(args) == set(spec_task.argspec())
    for option, value in args.items():
        if option != "specs":
            assert value.split()[:2] == ["{{", "serving_stack_" + option], (option, value)
    assert task["register"] == "serving_stack__spec"


def test_the_values_the_plan_read_are_taken_and_no_file_is_read_again(tmp_path):
    """Issue 28: the values files are read once per run. The plan hands what it read (model_plan's model_values,
    aips_plan_artifacts.model_values); the values step takes it for a record naming the same files."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import planned_values
    settings = case_settings(tmp_path, CASE)
    parsed = {}
    plan_records = plan.build_plan(settings, parsed=parsed)[0]
    handed = planned_values(plan_records, parsed)
    slug = plan_records[0]["slug"]
    assert handed[slug]["files"] == plan_records[0]["values_files"]
    assert handed[slug]["values"] == spec_task.read_values(plan_records[0], settings["models_dir"])[0]

    def no_read(path, **_kwargs):
        raise AssertionError("read %s again" % path)
    given = params(plan_records, models_dir=settings["models_dir"], charts=CHARTS, model_values=handed,
                   cloud_provider="cloud")
    result, _warnings = spec_task.spec_result(given, read=no_read)
    read_again, _warnings = spec_task.spec_result(dict(given, model_values={}))
    assert not result.get("failed"), result
    assert result == read_again and result["specs"][slug]
    # another plan's values (other files), or none, are not taken: the files are read
    other = copy.deepcopy(handed)
    other[slug]["files"]["ms"] = "/elsewhere/ms-%s/values.yaml" % slug
    for values in (other, {}, {slug: {"files": handed[slug]["files"], "values": "not values"}}):
        assert spec_task.handed_values(plan_records[0], values) is None
        with pytest.raises(AssertionError, match="read .* again"):
            spec_task.spec_result(dict(given, model_values=values), read=no_read)
    # what the plan handed is not changed by the values step
    assert handed == planned_values(plan_records, parsed)
