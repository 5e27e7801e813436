# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Claim-served pods without Hugging Face Secrets; EPP configs that would reach Hugging Face (issue 26, defects 1, 2)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import offline
from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb

RECORD = {"name": "M", "slug": "m", "model_artifacts_uri": "pvc+hf://m-model/hub/o/n",
          "values_files": {"ms": "/models/generative/M/ms-m/values.yaml", "gaie": "/models/generative/M/gaie-m/values.yaml"}}
TOKEN = {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "HF_TOKEN"}}}


def plugin_config(pool):
    return {"inferenceExtension": {"pluginsConfigFile": "c.yaml", "pluginsCustomConfig": {"c.yaml": (
        "apiVersion: inference.networking.x-k8s.io/v1alpha1\nkind: EndpointPickerConfig\nplugins:\n"
        "- type: precise-prefix-cache-scorer\n  parameters:\n    indexerConfig:\n      tokenizersPoolConfig:\n"
        + "".join("        %s\n" % line for line in pool))}}}


def test_drops_every_token_secret_of_decode_prefill_and_epp():
    ms = {"modelArtifacts": {"authSecretName": "hf", "name": "o/n"},
          "decode": {"containers": [{"name": "vllm", "env": [TOKEN, {"name": "A", "value": "1"}]}],
                     "initContainers": [{"name": "init", "env": [dict(TOKEN, name="HUGGING_FACE_HUB_TOKEN")]}]},
          "prefill": {"containers": [{"name": "vllm", "env": [TOKEN]}]}}
    gaie = {"inferenceExtension": {"env": [TOKEN], "sidecar": {"env": [TOKEN, {"name": "HF_HOME", "value": "/t"}]}}}
    out_ms, out_gaie, notes = offline.drop_claim_secrets(RECORD, ms, gaie)
    assert out_ms == {"modelArtifacts": {"name": "o/n"},
                      "decode": {"containers": [{"name": "vllm", "env": [{"name": "A", "value": "1"}]}],
                                 "initContainers": [{"name": "init", "env": []}]},
                      "prefill": {"containers": [{"name": "vllm", "env": []}]}}
    assert out_gaie == {"inferenceExtension": {"env": [], "sidecar": {"env": [{"name": "HF_HOME", "value": "/t"}]}}}
    assert ms["modelArtifacts"]["authSecretName"] == "hf"  # the input is not changed
    assert len(notes) == 2
    assert notes[0].startswith("M: /models/generative/M/ms-m/values.yaml: dropped modelArtifacts.authSecretName, "
                               "decode.containers[0].env[0] (HF_TOKEN), decode.initContainers[0].env[0] "
                               "(HUGGING_FACE_HUB_TOKEN), prefill.containers[0].env[0] (HF_TOKEN) (Secret hf)")
    assert notes[1].startswith("M: /models/generative/M/gaie-m/values.yaml: dropped inferenceExtension.env[0] "
                               "(HF_TOKEN), inferenceExtension.sidecar.env[0] (HF_TOKEN) (Secret hf)")


def test_a_literal_token_or_other_secret_env_stays():
    ms = {"decode": {"containers": [{"name": "vllm", "env": [{"name": "HF_TOKEN", "value": "literal"},
                                                             {"name": "X", "valueFrom": TOKEN["valueFrom"]}]}]}}
    out_ms, _gaie, notes = offline.drop_claim_secrets(RECORD, ms, {})
    assert out_ms == ms and notes == []


@pytest.mark.parametrize("pool, why", [
    (["modelName: o/n", "hf:", "  tokenizersCacheDir: /tmp/t"], "its hf key makes the indexer download"),
    (["modelName: o/n"], "it sets no local or uds tokenizer, so the indexer's default"),
    (["modelName: o/n", "hf: {}"], "its hf key"),
    (["modelName: o/n", "local: null", "hf: null", "uds:", "  socketFile: /tmp/t.socket"],
     "its uds tokenizer is served by a tokenizer sidecar (inferenceExtension.sidecar) that downloads the tokenizer "
     "from Hugging Face into an emptyDir when it starts, and inferencepool v1.2.0 mounts no volume into the EPP"),
])
def test_an_epp_tokenizer_from_hugging_face_is_found(pool, why):
    findings = offline.epp_hub_findings(RECORD, plugin_config(pool))
    assert len(findings) == 1
    assert findings[0].startswith("M: /models/generative/M/gaie-m/values.yaml: inferenceExtension.pluginsCustomConfig"
                                  "[c.yaml] plugins[0].parameters.indexerConfig.tokenizersPoolConfig: " + why)
    assert "(o/n) at run time, which a cluster without internet cannot reach" in findings[0]
    assert "Fix: use prefix-cache-scorer" in findings[0]
    # the uds finding's fix removes the sidecar too: nothing then reaches Hugging Face or a socket nobody serves
    assert findings[0].endswith("and remove inferenceExtension.sidecar") == ("uds" in why), findings[0]


@pytest.mark.parametrize("pool", [
    ["modelName: o/n", "local:", "  autoDiscoveryDir: /models"],
    ["hf: null"],
])
def test_a_local_tokenizer_is_no_finding(pool):
    assert offline.epp_hub_findings(RECORD, plugin_config(pool)) == []


def test_no_plugin_config_or_a_broken_one_is_no_finding():
    assert offline.epp_hub_findings(RECORD, {}) == []
    assert offline.epp_hub_findings(RECORD, {"inferenceExtension": {"pluginsCustomConfig": {"c.yaml": "a: ["}}}) == []


def embedded(text):
    return {"inferenceExtension": {"pluginsConfigFile": "c.yaml", "pluginsCustomConfig": {"c.yaml": text}}}


def test_an_alias_bomb_in_a_plugin_config_is_refused_in_under_2_s():
    bomb = alias_bomb(levels=9)  # 10^9 nodes once expanded: about 10 minutes unguarded
    assert len(bomb) < 1024
    started = time.monotonic()
    problems = offline.embedded_yaml_problems(RECORD, embedded(bomb))
    findings = offline.epp_hub_findings(RECORD, embedded(bomb))
    elapsed = time.monotonic() - started
    assert elapsed < 2, elapsed
    assert problems == ["M: /models/generative/M/gaie-m/values.yaml: inferenceExtension.pluginsCustomConfig[c.yaml]: "
                        "refused: it has more than 1000000 nodes once its aliases are expanded (an alias bomb). Fix: "
                        "write the values out without nested anchors (the text of "
                        "inferenceExtension.pluginsCustomConfig[c.yaml] is YAML the EPP reads; it is held to the "
                        "limits of a values file)"]
    assert findings == []  # the refusal is reported once, by embedded_yaml_problems


def test_a_plugin_config_nested_2000_deep_is_refused_not_a_recursion_error():
    problems = offline.embedded_yaml_problems(RECORD, embedded("a: " + "[" * 2000 + "]" * 2000 + "\n"))
    assert problems == ["M: /models/generative/M/gaie-m/values.yaml: inferenceExtension.pluginsCustomConfig[c.yaml]: "
                        "refused: it is nested deeper than 64 levels. Fix: flatten the structure (the text of "
                        "inferenceExtension.pluginsCustomConfig[c.yaml] is YAML the EPP reads; it is held to the "
                        "limits of a values file)"]
    assert offline.epp_hub_findings(RECORD, embedded("a: " + "[" * 2000 + "]" * 2000 + "\n")) == []


def test_a_plugin_config_that_is_not_yaml_is_refused_without_its_text():
    problems = offline.embedded_yaml_problems(RECORD, embedded("plugins:\n- type: x\n  secret-27: [\n"))
    assert len(problems) == 1 and "[c.yaml]: not valid YAML at line" in problems[0]
    assert "secret-27" not in problems[0]


def test_valid_plugin_configs_are_no_problem():
    assert offline.embedded_yaml_problems(RECORD, plugin_config(["modelName: o/n", "local: {}"])) == []
    assert offline.embedded_yaml_problems(RECORD, {"inferenceExtension": {"pluginsCustomConfig": {"c": 1}}}) == []
    assert offline.embedded_yaml_problems(RECORD, {}) == []
