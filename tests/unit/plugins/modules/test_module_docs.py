# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each module's DOCUMENTATION matches the argument spec it runs with."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils import model_sync as model_sync_utils

MODULES = {
    "model_sync": model_sync_utils.argspec,
    "image_archive": None,
    "chart_archive": None,
    "harbor_project": None,
}


def spec_of(name):
    module = importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules." + name)
    return module, (MODULES[name] or module.argspec)()


@pytest.mark.parametrize("name", sorted(MODULES))
def test_documentation_matches_argspec(name):
    module, spec = spec_of(name)
    doc = yaml.safe_load(module.DOCUMENTATION)
    assert doc["module"] == name
    assert set(doc["options"]) == set(spec), name
    for option, arg in spec.items():
        documented = doc["options"][option]
        assert documented["type"] == arg["type"], option
        assert documented.get("required", False) == arg.get("required", False), option
        assert documented.get("default") == arg.get("default"), option
        assert documented.get("choices") == arg.get("choices"), option
        assert documented.get("elements") == arg.get("elements"), option
    assert {"check_mode", "diff_mode"} <= set(doc["attributes"])
    yaml.safe_load(module.EXAMPLES)
    yaml.safe_load(module.RETURN)


@pytest.mark.parametrize("name,option", [
    ("model_sync", "hf_token"), ("model_sync", "registry_password"), ("image_archive", "password"),
    ("chart_archive", "password"), ("harbor_project", "password")])
def test_secrets_are_no_log(name, option):
    assert spec_of(name)[1][option].get("no_log") is True
