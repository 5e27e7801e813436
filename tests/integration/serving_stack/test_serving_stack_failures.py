# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack on the lab when things go wrong (failed pull, unpulled claim, air-gap leak, unrenderable values), and
--check.

Charts: the real upstream llm-d charts, installed from the lab registry's OCI copies.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest

from ansible_collections.ai_platform.serving.tests.support import HARBOR


def test_a_failed_pull_creates_no_modelservice_release(stack_factory):
    """The pull Job meets a wrong token (the preflight reads the lock file, so only the Job does)."""
    stack = stack_factory()
    stack.publish()
    wrong = "not-the-token-" + stack.suffix
    run = stack.site(aips_harbor_token=wrong, model_storage_lock_file=os.path.join(str(stack.tmp), "models.lock.yml"))
    assert run.rc != 0, str(run)
    assert "pull Job %s/%s-model-pull failed" % (stack.namespace("embedder"), stack.slug("embedder")) in run.output
    assert "ms-" + stack.slug("embedder") not in stack.releases("embedder")
    assert stack.releases("generative") == set()
    assert wrong not in run.output


def test_serving_alone_refuses_a_model_whose_weights_are_not_pulled(stack_factory):
    stack = stack_factory()
    run = stack.site("--tags", "serving")
    assert run.rc != 0, str(run)
    assert "Emb-%s: its claim holds no verified pull" % stack.suffix in run.output, str(run)
    assert "site.yml --tags storage" in run.output
    # nothing was created, for either model
    assert stack.kube.get("namespace", stack.namespace("embedder")) is None
    assert stack.kube.get("namespace", stack.namespace("generative")) is None


def serving_with_values(stack, change):
    """The serving stage after ``change`` to the generative model's modelservice values: it must fail and
    create nothing (no namespace)."""
    stack.edit_values("generative", "ms", change)
    run = stack.site("--tags", "serving")
    assert run.rc != 0, str(run)
    assert stack.kube.get("namespace", stack.namespace("generative")) is None
    return run


def test_an_internet_image_on_prem_fails_before_anything_changes(stack_factory):
    stack = stack_factory()

    def leak(values):
        values["decode"]["containers"][0]["image"] = "ghcr.io/llm-d/llm-d-inference-sim:v0.7.1"
    run = serving_with_values(stack, leak)
    assert ("Gen-%s: modelservice values decode.containers[0].image = ghcr.io/llm-d/llm-d-inference-sim:v0.7.1 "
            "is not in harbor.harbor.svc.cluster.local" % stack.suffix) in run.output, str(run)


def test_values_the_real_chart_rejects_fail_before_anything_changes(stack_factory):
    """modelCommand custom without a command: llm-d-modelservice fails it; the plan check says so first."""
    stack = stack_factory()

    def no_command(values):
        del values["decode"]["containers"][0]["command"]
    run = serving_with_values(stack, no_command)
    assert ("Gen-%s: %s: decode.containers[0] (vllm) has modelCommand custom (the chart's default) but no command"
            % (stack.suffix, stack.values_file("generative", "ms"))) in run.output, str(run)
    assert "Fix: set command" in run.output


# one worker for both: two helm template runs pulling the same chart from the lab registry at once gave one of
# them another error than the chart's own (seen once with -n 2)
@pytest.mark.xdist_group("unrenderable-release")
@pytest.mark.parametrize("check", [False, True], ids=["run", "check"])
def test_a_release_the_chart_cannot_render_fails_before_any_change_naming_model_chart_and_helm_error(stack_factory, check):
    """A value only the chart checks (a container without an image): the render before deploy (helm template of
    the real chart from the lab registry) fails with Helm's own error, before any release or namespace; in --check
    as well as in a real run (the render is read-only, so check mode runs it too)."""
    stack = stack_factory()

    def no_image(values):
        del values["decode"]["containers"][0]["image"]
    stack.edit_values("generative", "ms", no_image)
    run = stack.site("--tags", "serving", check=check, aips_models={"generative": [
        {"name": stack.names["generative"], "enabled": True, "nodeSelector": {}}], "embedder": []})
    assert run.rc != 0, str(run)
    text = " ".join(run.output.split())
    assert ("Gen-%s: release modelservice of chart llm-d-modelservice (oci://%s/charts/llm-d-modelservice v0.4.12) "
            "does not render with helm template: Error:" % (stack.suffix, HARBOR)) in text, str(run)
    assert "image of container is required" in text and "Nothing was installed" in text, str(run)
    # nothing was installed: no release, not even the namespace
    assert stack.releases("generative") == set()
    assert stack.kube.get("namespace", stack.namespace("generative")) is None


def test_check_mode_on_models_not_yet_deployed_creates_nothing(stack_factory):
    """site.yml --check end to end on new models: every stage dry-runs, nothing appears on the cluster."""
    stack = stack_factory()
    stack.publish()
    run = stack.site(check=True)
    assert run.rc == 0, str(run)
    assert run.changed > 0, "check mode reports what a real run would change"
    for category in ("embedder", "generative"):
        assert stack.kube.get("namespace", stack.namespace(category)) is None
    assert stack.kube.get("pv", "%s-model-pv" % stack.slug("embedder")) is None
