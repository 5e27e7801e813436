# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input hygiene of the model plan (plan_inputs), the checks across models, and secrets that never show."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import time
import tracemalloc

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import inputs as plan_inputs
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import (
    format_problems, harbor_namespace, protected_namespaces)
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import plan_result
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values_policy
from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings, load_cases

CASES = dict((case["id"], case) for case in load_cases())
SOURCE = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/m:v1", "modelUri": "hub/org/m",
          "storageSize": "5Gi", "hostpathNode": "node-1"}


def one_model(**model):
    return {"folders": {"generative/M": ["gaie-m", "ms-m"]},
            "models": {"generative": [dict({"name": "M", "enabled": True}, **model)]}}


def everything_shown(settings):
    """Every text a user could see of a plan run: the module result (msg, problems, records), its warnings."""
    params = dict(settings)
    result, warnings = plan_result(params)
    return json.dumps(result, default=str) + "\n".join(warnings)


def test_block_scalar_newlines_never_reach_the_record(tmp_path):
    records, problems = build_plan(case_settings(tmp_path, CASES["block-scalar-newlines-are-trimmed"]))
    assert [p for p in problems if p.severity == "error"] == []
    text = json.dumps(records)
    assert "\\n" not in text
    record = records[0]
    assert record["namespace"] == "team-m" and record["node_selector"] == {"gpu": "a100"}
    storage = record["storage"]
    assert (storage["hostpath_node"], storage["hostpath_dir"], storage["model_uri"], storage["size"]) == (
        "node-1", "/var/lib/hostpath/models/m", "hub/org/m", "5Gi")
    assert record["model_artifacts_uri"] == "pvc+hf://m-model/hub/org/m"


def test_clean_documents_its_rule_for_every_source_field():
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import SOURCE_FIELDS
    assert set(plan_inputs.TRIMMED_SOURCE_FIELDS) == set(SOURCE_FIELDS)
    for field in plan_inputs.TRIMMED_SOURCE_FIELDS + plan_inputs.TRIMMED_MODEL_FIELDS:
        assert field in plan_inputs.__doc__


@pytest.mark.parametrize("models", [None, {}, {"generative": None}, {"generative": [], "embedder": None}])
def test_no_models_is_zero_models(tmp_path, models):
    settings = case_settings(tmp_path, {"folders": {}})
    settings["models"] = models
    records, problems = build_plan(settings)
    assert records == [] and [p for p in problems if p.severity == "error"] == []


def test_model_plan_argspec_lets_the_plan_name_the_variables():
    from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import argspec
    result = ArgumentSpecValidator(argspec()).validate(
        {"models": None, "models_dir": "/m", "gpu_toleration": [{"key": "a"}]})
    assert result.errors.errors == []
    assert result.validated_parameters["models"] is None
    assert result.validated_parameters["gpu_toleration"] == [{"key": "a"}]


@pytest.mark.parametrize("value", [True, "300", 1.5, -1, "forever"])
def test_toleration_seconds_must_be_a_whole_number(value):
    toleration = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": value}
    _settings, problems = plan_inputs.clean({"gpu_toleration": toleration})
    assert [p.field for p in problems] == ["aips_gpu_toleration.tolerationSeconds"]


@pytest.mark.parametrize("version, ok", [("v1.3.1", True), ("1.3", True), ("v1.3.1 --insecure", False),
                                         ("v1.3.1\n", False), ("$(id)", False), ("", True), (None, True)])
def test_oras_version_is_a_plain_tag(version, ok):
    _settings, problems = plan_inputs.clean({"oras_version": version})
    assert (problems == []) == ok, [str(p) for p in problems]


@pytest.mark.parametrize("token", ["", "   ", "\n", None])
def test_a_blank_token_counts_as_unset(token):
    settings, problems = plan_inputs.clean({"harbor_token": token})
    assert settings["harbor_token"] is None and problems == []


def test_protected_namespaces_default_list_and_harbor():
    patterns = [pattern for pattern, _why in protected_namespaces({"harbor_hostname": "core.registry.svc.cluster.local"})]
    for name in ("kube-*", "default", "kube-node-lease", "istio-system", "ai-platform-serving", "registry"):
        assert name in patterns
    assert harbor_namespace("harbor.example.com") is None
    assert harbor_namespace("harbor.harbor.svc.cluster.local:443") == "harbor"


def test_cross_model_problems_name_both_models_and_the_field(tmp_path):
    for case_id in ("hostpath-dir-both-explicit-and-equal", "hostpath-dir-explicit-equals-another-default",
                    "hostpath-dir-nested-in-another", "pvc-source-names-a-managed-claim",
                    "pvc-sources-on-one-claim-and-path", "epp-names-truncated-to-one-in-a-namespace",
                    "release-name-is-another-models-gaie-release", "values-file-mounts-another-models-claim"):
        problems = build_plan(case_settings(tmp_path / case_id, CASES[case_id]))[1]
        errors = [p for p in problems if p.severity == "error"]
        assert len(errors) == 1, case_id
        error = errors[0]
        assert error.model == "generative/B" and "generative/A" in error.problem, (case_id, str(error))
        assert error.field and error.fix, case_id


def test_an_alias_bomb_values_file_fails_the_plan_in_under_2_s_and_200_mb(tmp_path):
    settings = case_settings(tmp_path, CASES["values-file-alias-bomb"])
    tracemalloc.start()
    started = time.monotonic()
    try:
        records, problems = build_plan(settings)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert records == [] and elapsed < 2 and peak < 200 * 1024 * 1024, (elapsed, peak)
    assert "lol" not in format_problems(problems)


@pytest.mark.parametrize("case_id, where", [
    ("values-file-mounts-another-models-claim", "decode.volumes[0].persistentVolumeClaim.claimName"),
    ("values-file-mounts-another-models-claim-writable", "decode.volumes[0].persistentVolumeClaim.claimName"),
    ("values-file-mounts-another-models-claim-read-only-false", "prefill.volumes[0].persistentVolumeClaim.claimName"),
])
def test_another_models_claim_mounted_is_refused_read_only_or_writable(tmp_path, case_id, where):
    """issue 27 (audit gap 6): the mount is refused whatever readOnly says; the whole message, path included."""
    settings = case_settings(tmp_path, CASES[case_id])
    problems = build_plan(settings)[1]
    path = "%s/generative/B/ms-b/values.yaml" % settings["models_dir"]
    assert [str(p) for p in problems if p.severity == "error"] == [
        "generative/B: values_files.ms: %s mounts the claim a-model of generative/A (%s): its pods could read or "
        "overwrite the other model's weights (got '%s = a-model'). Fix: remove the volume from %s; each model mounts "
        "only its own claim" % (path, where, where, path)]


@pytest.mark.parametrize("case_id, reason", [
    ("embedded-yaml-alias-bomb", "refused: it has more than 1000000 nodes once its aliases are expanded"),
    ("embedded-yaml-nested-too-deep", "refused: it is nested deeper than 64 levels"),
])
def test_a_hostile_plugin_config_text_fails_the_plan_in_under_2_s(tmp_path, case_id, reason):
    """A YAML text inside the GAIE values is read under the values file's limits by the plan, before any change."""
    settings = case_settings(tmp_path, CASES[case_id])
    started = time.monotonic()
    records, problems = build_plan(settings)
    elapsed = time.monotonic() - started
    assert records == [] and elapsed < 2, elapsed
    errors = [problem for problem in problems if problem.severity == "error"]
    assert len(errors) == 1, format_problems(problems)
    error = errors[0]
    assert error.model == "generative/M" and error.field == "values_files.gaie"
    assert error.problem.endswith("/generative/M/gaie-m/values.yaml: inferenceExtension.pluginsCustomConfig[c.yaml]: "
                                  + reason + (" (an alias bomb)" if "alias" in reason else ""))
    assert error.fix and "lol" not in format_problems(problems)


SECRET = "s3cr3t-27-token"


@pytest.mark.parametrize("case", [
    dict(one_model(), settings={"harbor_token": SECRET}),
    dict(one_model(), settings={"harbor_token": SECRET + "\n"}),
    dict(one_model(), settings={"harbor_token": " " + SECRET + " x"}),
    dict(one_model(modelSource=dict(SOURCE, harborRef="robot:%s@harbor.harbor.svc.cluster.local/ai-models/m:v1"
                                    % SECRET))),
    dict(one_model(modelSource=dict(SOURCE, harborRef="robot:%s@harbor.harbor.svc.cluster.local/bad ref" % SECRET))),
    dict(one_model(modelSource=dict(SOURCE, harborRef="https://robot:%s@localhost:5000/a/m:v1" % SECRET))),
    dict(one_model(modelSource=SOURCE), settings={"oras_image": "u:%s@ghcr.io/oras-project/oras:v1" % SECRET}),
    dict(one_model(modelSource=SOURCE), settings={"oras_image": "u:%s@ghcr.io/o/oras:v1\n" % SECRET}),
    dict(one_model(modelSource=SOURCE), settings={"cloud_provider": "cloud", "harbor_token": SECRET}),
], ids=["token-set", "token-newline", "token-spaces", "ref-credentials", "ref-credentials-invalid",
        "ref-credentials-scheme", "oras-image-credentials", "oras-image-credentials-newline", "cloud-token"])
def test_no_message_contains_the_token(tmp_path, case):
    shown = everything_shown(case_settings(tmp_path, case))
    assert SECRET not in shown


def test_the_values_policy_knows_the_plans_rule():
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import PULL_IMAGE_RULE
    assert PULL_IMAGE_RULE in values_policy.RULES
    assert values_policy.allow_problems([{"model": "m", "rule": PULL_IMAGE_RULE, "key": "oras_image",
                                          "reason": "lab"}]) == []
