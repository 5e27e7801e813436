# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 27 through playbooks/render.yml: values that would act with the deploy's credentials are refused
before anything is rendered.

Each case is one of tests/fixtures/plan_cases.yml, on a generated inventory (its controller is localhost).
The run must fail, its message must name the model, the values file and key, and the documented allow
switch (aips_values_policy_allow) where the rule has one; the render directory must stay unwritten and the
recap must count no change. The refusal comes from the plan render.yml imports (tasks/model_plan.yml), so
neither helm nor the charts are reached. The control (the same values with their allow entry) does run helm.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import shutil

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import CHART_FILES, UPSTREAM_CHARTS
from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings, load_cases, write_inventory
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook, flat

CASES = dict((case["id"], case) for case in load_cases())
RENDER = os.path.join(ROOT, "playbooks", "render.yml")
ALLOW = "Fix: remove it, or allow it for this model in aips_values_policy_allow with {model: m, rule: %s, key: %s, "


def allow_switch(rule, key):
    return ALLOW % (rule, key) + "reason: <why>}"


# (case id, the model, the field (values file and key) as the message names them, the allow entry of the rule;
# None where the class has no allow switch)
HOSTILE = [
    ("values-policy-cluster-admin-binding", "generative/M", "{models}/generative/M/ms-m/values.yaml: extraObjects[0] = "
     "'ClusterRoleBinding' is refused by the values policy (privileged-objects: ",
     allow_switch("privileged-objects", "extraObjects[0]")),
    ("values-policy-lookup-copies-a-secret", "generative/M", "{models}/generative/M/ms-m/values.yaml: "
     "decode.extraConfig.annotations.copy = '<a template calling lookup>' is refused by the values policy "
     "(helm-lookup: ", allow_switch("helm-lookup", "decode.extraConfig.annotations.copy")),
    ("values-policy-toleration-without-key", "generative/M", "{models}/generative/M/ms-m/values.yaml: decode.tolerations[0] = "
     "{'operator': 'Exists'} is refused by the values policy (tolerate-everything: ",
     allow_switch("tolerate-everything", "decode.tolerations[0]")),
    # a claim of another model of the plan has no allow switch: the fix is to remove the volume
    ("values-file-mounts-another-models-claim-writable", "generative/B", "values_files.ms: {models}/generative/B/ms-b/values.yaml mounts the "
     "claim a-model of generative/A (decode.volumes[0].persistentVolumeClaim.claimName): its pods could read or "
     "overwrite the other model's weights", None),
    ("embedded-yaml-alias-bomb", "generative/M", "values_files.gaie: {models}/generative/M/gaie-m/values.yaml: "
     "inferenceExtension.pluginsCustomConfig[c.yaml]: refused: it has more than 1000000 nodes once its aliases are "
     "expanded (an alias bomb)", None),
]


def render(tmp_path, case, **extra):
    settings = case_settings(tmp_path, case)
    settings.update(extra)
    out = tmp_path / "render"
    run = ansible_playbook({}, RENDER, {"aips_render_dir": str(out)}, tmp_path,
                           inventory=write_inventory(tmp_path, settings))
    return run, out, settings["models_dir"]


@pytest.mark.parametrize("case_id, model, field, allow", HOSTILE, ids=[case[0] for case in HOSTILE])
def test_render_refuses_before_anything_is_rendered(tmp_path, case_id, model, field, allow):
    run, out, models_dir = render(tmp_path, CASES[case_id])
    output = flat(run.output)
    assert run.rc != 0, run
    assert "The model plan has 1 problem:" in output, run
    assert "%s: %s" % (model, field.replace("{models}", models_dir)) in output, run
    if allow:
        assert allow in output, run
    else:
        assert "aips_values_policy_allow" not in output, run
    # the plan is the first task: no spec computed, no helm run, no file written
    assert not os.path.exists(str(out)), os.listdir(str(out))
    assert run.changed == 0 and run.failed == 1, run
    assert "Compute and check every model's values" not in output
    assert "not-a-real-token" not in output and "lol" not in output


def test_the_allow_switch_the_message_names_lets_the_same_values_render(tmp_path):
    """The control: the allow entry the refusal names lets render.yml go on, and helm then puts the
    ClusterRoleBinding into the manifests: what the refusal above keeps from reaching the cluster.
    This one runs helm on the carried charts (as test_render_models does)."""
    helm = shutil.which("helm")
    if not helm or not all(os.path.isfile(os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % chart))
                           for chart in CHART_FILES.values()):
        pytest.fail("needs helm on PATH and the real charts in %s (`eval \"$(lab/lab env)\"`)" % UPSTREAM_CHARTS,
                    pytrace=False)
    case = copy.deepcopy(CASES["values-policy-cluster-admin-binding"])
    labels = {"llm-d.ai/inferenceServing": "true", "llm-d.ai/model": "m"}
    case["values"]["generative/M/gaie-m"] = {"inferencePool": {"modelServers": {"matchLabels": labels}}}
    case["values"]["generative/M/ms-m"]["modelArtifacts"] = {"labels": labels}
    settings = case_settings(tmp_path, case)
    settings.update(cloud_provider="cloud", values_policy_allow=[
        {"model": "m", "rule": "privileged-objects", "key": "extraObjects[0]", "reason": "render test control"}])
    out = tmp_path / "render"
    run = ansible_playbook({}, RENDER, {"aips_render_dir": str(out), "aips_render_chart_dir": UPSTREAM_CHARTS,
                                        "serving_stack_helm_binary": helm},
                           tmp_path, inventory=write_inventory(tmp_path, settings))
    assert run.rc == 0, run.output[-3000:]
    with open(str(out / "m" / "modelservice.yaml")) as handle:
        bindings = [doc for doc in yaml.safe_load_all(handle) if doc and doc["kind"] == "ClusterRoleBinding"]
    assert [(doc["metadata"]["name"], doc["roleRef"]["name"]) for doc in bindings] == [("take-over", "cluster-admin")]
    # the token (aips_harbor_token of the inventory) is in no file render.yml wrote, plan.json included
    written = [os.path.join(folder, name) for folder, _dirs, names in os.walk(str(out)) for name in names]
    # plan.json, three charts' manifests and values, the HTTPRoute (routing.yaml)
    assert os.path.join(str(out), "plan.json") in written and len(written) == 8, written
    for path in written:
        with open(path) as handle:
            assert settings["harbor_token"] not in handle.read(), path
    assert settings["harbor_token"] not in run.output
