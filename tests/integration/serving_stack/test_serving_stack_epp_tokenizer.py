# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 26 on the lab: an EPP written as llm-d's precise-prefix-cache-aware guide writes it (a Hugging Face token
from a Secret, the precise-prefix-cache scorer with a uds tokenizer, the tokenizer sidecar) is refused on-prem
before any change, each message naming the model, the file, the key and the fix; with the fixes applied as the
messages write them (tests/support/epp_fix.py), the release deploys and the real EPP (v1.2.0, built by the lab)
starts on its approximate prefix-cache scorer and becomes Ready, with no Secret and no sidecar.

The generative model is the lab's inference-sim STAND-IN behind the real llm-d charts; its GAIE values file gets the
guide's EPP keys (tests/fixtures/llmd_guides, PrecisePrefixCacheAware)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re

import yaml

from ansible_collections.ai_platform.serving.tests.support import ROOT, epp_fix
from ansible_collections.ai_platform.serving.tests.support.playbook import flat

GUIDE = os.path.join(ROOT, "tests", "fixtures", "llmd_guides", "models", "generative", "PrecisePrefixCacheAware",
                     "gaie-kv-events", "values.yaml")
CONFIG = "precise-prefix-cache-config.yaml"


def guide_epp(values):
    """The guide's token env, sidecar and plugin config on the lab's EPP (its image, ports and pool unchanged)."""
    with open(GUIDE) as handle:
        guide = yaml.safe_load(handle)["inferenceExtension"]
    extension = values.setdefault("inferenceExtension", {})
    for key in ("env", "sidecar", "pluginsConfigFile", "pluginsCustomConfig"):
        extension[key] = guide[key]


def findings(text, name):
    """The EPP findings the play printed for the model (one message each, up to its end in the JSON list)."""
    return sorted(set(re.findall(r"%s: [^\"]*?/gaie-[^\"/]+/values\.yaml: inferenceExtension[^\"]*?Fix: [^\"]*"
                                 % re.escape(name), text)))


def test_the_guides_epp_is_refused_on_prem_and_with_the_named_fixes_it_deploys_and_is_ready(stack_factory):
    stack = stack_factory()
    stack.placed = True
    stack.edit_values("generative", "gaie", guide_epp)
    namespace, name = stack.namespace("generative"), stack.names["generative"]
    models = {"generative": [{"name": name, "enabled": True,
                              "nodeSelector": {"kubernetes.io/hostname": stack.lab["AIPS_LAB_NODE"]}}], "embedder": []}

    refused = stack.site("--tags", "serving", aips_models=models)
    assert refused.rc != 0, str(refused)
    messages = findings(flat(refused.output).replace('\\"', "'"), name)
    assert len(messages) == 2, (messages, str(refused))
    assert any("its uds tokenizer is served by a tokenizer sidecar" in m and "(Qwen/Qwen3-32B)" in m
               and m.endswith("and remove inferenceExtension.sidecar") for m in messages), messages
    assert any("inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token" in m for m in messages), messages
    assert stack.kube.get("namespace", namespace) is None, "nothing may be created"

    stack.edit_values("generative", "gaie", lambda values: values.update(epp_fix.apply_named_fixes(values, messages)))
    fixed = stack.site("--tags", "serving", aips_models=models)
    assert fixed.rc == 0, str(fixed)
    deployments = [d for d in stack.kube.list("deployments", namespace) if d["metadata"]["name"].endswith("-epp")]
    assert len(deployments) == 1, [d["metadata"]["name"] for d in stack.kube.list("deployments", namespace)]
    selector = ",".join("%s=%s" % pair for pair in sorted(deployments[0]["spec"]["selector"]["matchLabels"].items()))
    epp = stack.kube.pods(namespace, selector)
    assert epp, stack.kube.run("get", "all", "-n", namespace, check=False).stdout
    for found in epp:
        assert [c["name"] for c in found["spec"]["containers"]] == ["epp"], found["spec"]["containers"]
        assert "llm-d-hf-token" not in json.dumps(found["spec"])
        ready = [c for c in found["status"].get("conditions") or [] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True", found["status"]
    maps = [m for m in stack.kube.list("configmaps", namespace) if CONFIG in (m.get("data") or {})]
    assert maps and "type: prefix-cache-scorer" in maps[0]["data"][CONFIG], maps
    # the EPP read that config (it exits at start on a plugin it does not know or a config it cannot parse)
    assert "tokenizersPoolConfig" not in maps[0]["data"][CONFIG]
    assert all(int(s.get("restartCount", 0)) == 0 for p in epp for s in p["status"]["containerStatuses"]), epp
