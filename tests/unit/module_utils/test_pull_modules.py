# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model storage modules: DOCUMENTATION matches the argument spec, secrets are no_log."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib

import pytest
import yaml

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

MODULES = {"model_pull_wait": True, "model_pull_job": True, "model_claim_check": True, "model_artifact_info": False}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_documentation_matches_argspec(name):
    module = importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules." + name)
    spec = module.argspec()
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert doc["module"] == name
    own = dict((k, v) for k, v in spec.items() if not (MODULES[name] and k in AUTH_ARG_SPEC))
    assert set(doc["options"]) == set(own)
    if MODULES[name]:
        assert "kubernetes.core.k8s_auth_options" in doc["extends_documentation_fragment"]
    for option, arg in own.items():
        documented = doc["options"][option]
        assert documented["type"] == arg["type"], option
        assert documented.get("required", False) == arg.get("required", False), option
        assert documented.get("default") == arg.get("default"), option
        assert documented.get("choices") == arg.get("choices"), option
    assert {"check_mode", "diff_mode"} <= set(doc["attributes"])
    yaml.safe_load(module.EXAMPLES)
    yaml.safe_load(module.RETURN)


def test_secrets_are_no_log():
    module = importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules.model_artifact_info")
    assert module.argspec()["password"]["no_log"] is True
    for name in ("model_pull_wait", "model_pull_job", "model_claim_check"):
        spec = importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules." + name).argspec()
        assert spec["kubeconfig"]["no_log"] is True and spec["api_key"]["no_log"] is True
