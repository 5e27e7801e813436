# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each module's DOCUMENTATION, with its doc fragments, matches the argument spec it runs with."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import os

import pytest
import yaml
from ansible.utils.plugin_docs import add_fragments

from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync as model_sync_utils
from ansible_collections.ai_platform.serving.tests.support import ROOT

PACKAGE = "ansible_collections.ai_platform.serving.plugins.modules."
# Every module of plugins/modules; model_sync keeps its spec in module_utils, the others have argspec().
MODULES = dict((name[:-3], None) for name in sorted(os.listdir(os.path.join(ROOT, "plugins", "modules")))
               if name.endswith(".py") and not name.startswith("_"))
MODULES.update(model_sync=model_sync_utils.argspec)


class FragmentLoader(object):
    """fragment_loader.get() for ansible's add_fragments, importing the fragment from the collection."""

    def get(self, name):
        namespace, collection, fragment = name.split(".")
        try:
            module = importlib.import_module(
                "ansible_collections.%s.%s.plugins.doc_fragments.%s" % (namespace, collection, fragment))
        except ImportError:
            return None
        fragment_class = module.ModuleDocFragment
        fragment_class.ansible_name = name
        return fragment_class


def spec_of(name):
    module = importlib.import_module(PACKAGE + name)
    return module, (MODULES[name] or module.argspec)()


def doc_of(module):
    doc = yaml.safe_load(module.DOCUMENTATION)
    add_fragments(doc, module.__file__, fragment_loader=FragmentLoader(), is_module=True)
    return doc


@pytest.mark.parametrize("name", sorted(MODULES))
def test_documentation_matches_argspec(name):
    module, spec = spec_of(name)
    doc = doc_of(module)
    assert doc["module"] == name
    assert set(doc["options"]) == set(spec), name
    for option, arg in spec.items():
        documented = doc["options"][option]
        assert documented["type"] == arg.get("type", "str"), option
        assert documented.get("required", False) == arg.get("required", False), option
        assert documented.get("default") == arg.get("default"), option
        assert documented.get("choices") == arg.get("choices"), option
        assert documented.get("elements") == arg.get("elements"), option
    for attribute in ("check_mode", "diff_mode"):
        assert {"support", "description"} <= set(doc["attributes"][attribute]), attribute
    yaml.safe_load(module.EXAMPLES)
    yaml.safe_load(module.RETURN)


@pytest.mark.parametrize("name,option", [
    ("model_sync", "hf_token"), ("model_sync", "registry_password"), ("image_archive", "password"),
    ("chart_archive", "password"), ("harbor_project", "password"), ("model_artifact_info", "password"),
    ("model_pull_wait", "kubeconfig"), ("model_pull_wait", "api_key"), ("model_pull_job", "kubeconfig"),
    ("model_pull_job", "api_key"), ("model_claim_check", "kubeconfig"), ("model_claim_check", "api_key"),
    ("model_storage_state", "registry_password"), ("model_storage_state", "api_key")])
def test_secrets_are_no_log(name, option):
    assert spec_of(name)[1][option].get("no_log") is True
