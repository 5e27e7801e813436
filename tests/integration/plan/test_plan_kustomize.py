# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The llm-d v0.10 model server as a Kustomize overlay (models/generative/Qwen3-0.6B/modelserver-qwen3-0-6b): the
plan renders it with a real kubectl (the one the lab builds, Kubernetes v1.33: `lab/lab env` puts it on PATH) and
checks its objects. Nothing here is a stand-in; without kubectl the tests fail."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import stack_inputs
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import lab_binary
from ansible_collections.ai_platform.serving.tests.support.plan_cases import BASE_SETTINGS

OVERLAY = os.path.join(ROOT, "models", "generative", "Qwen3-0.6B", "modelserver-qwen3-0-6b")


def kubectl():
    return lab_binary("kubectl")


def test_real_kubectl_renders_the_example_overlay():
    objects = stack_inputs.read_modelserver(OVERLAY, root=os.path.join(ROOT, "models"), kubectl_binary=kubectl())
    assert stack_inputs.modelserver_problems(objects, "qwen3-0-6b", {"namespace": "llm-d-qwen3-0-6b"}) == []
    assert sorted((o["kind"], o["metadata"]["name"]) for o in objects) == [
        ("Deployment", "qwen3-0-6b-vllm-decode"), ("ServiceAccount", "qwen3-0-6b-vllm-sa")]
    deployment = [o for o in objects if o["kind"] == "Deployment"][0]
    # the overlay's namePrefix keeps the ServiceAccount reference in step
    assert deployment["spec"]["template"]["spec"]["serviceAccountName"] == "qwen3-0-6b-vllm-sa"


@pytest.mark.parametrize("stack", ["llm-d-modelservice", "llm-d-v0.10"])
def test_the_kustomize_example_plans_on_both_stacks(stack):
    settings = dict(BASE_SETTINGS, models_dir=os.path.join(ROOT, "models"), serving_stack=stack,
                    kubectl_binary=kubectl(), models={"generative": [{"name": "Qwen3-0.6B", "enabled": True}]})
    parsed = {}
    records, problems = build_plan(settings, parsed=parsed)
    assert [str(p) for p in problems if p.severity == "error"] == []
    assert records[0]["slug"] == "qwen3-0-6b" and records[0]["stack"] == stack
    if stack == "llm-d-v0.10":
        assert [o["metadata"]["name"] for o in parsed["qwen3-0-6b"]["modelserver"] if o["kind"] == "Deployment"] == [
            "qwen3-0-6b-vllm-decode"]


def test_a_v010_object_may_not_take_the_seed_model_servers_name():
    # the lab's sim model: its ms values set fullnameOverride, so the seed's Deployment is sim-qwen3-lab-decode
    objects = [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "sim-qwen3-lab-decode"},
                "spec": {"template": {"spec": {"containers": [{"name": "modelserver", "image": "x"}]}}}}]
    names = {"namespace": "llm-d-sim-qwen3-lab"}
    assert stack_inputs.modelserver_problems(objects, "sim-qwen3-lab", names) == []
    problems = stack_inputs.modelserver_problems(objects, "sim-qwen3-lab", names, seed_fullname="sim-qwen3-lab")
    assert [key for key, _problem, _fix in problems] == ["Deployment sim-qwen3-lab-decode"]
    assert "the seed stack's model server" in problems[0][1]
