"""The migrate family: the from_pulumi_stack filter: parsing, the rendered file, strict and non-strict errors."""

import os

import pytest
import yaml

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT

from ansible_collections.ai_platform.serving.plugins.filter import migrate

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "pulumi")


def text_of(name):
    with open(os.path.join(FIXTURES, "Pulumi.%s.yaml" % name)) as handle:
        return handle.read()


def test_filter_map():
    assert sorted(migrate.FilterModule().filters()) == ["from_pulumi_stack"]


@pytest.mark.parametrize("name", ["cloud", "rke2"])
def test_rendered_file_reads_back_as_the_group_vars(name, tmp_path):
    result = migrate.from_pulumi_stack(text_of(name), models_dir=str(tmp_path), stack_file="Pulumi.%s.yaml" % name,
                                       output="inventory/x/group_vars/serving.yml")
    content = result["content"]
    assert content.startswith("---\n# ai_platform.serving settings migrated from Pulumi.%s.yaml" % name)
    assert "# The Harbor token is not in this file: vault_aips_harbor_token is kept in Ansible Vault, in " \
           "all/vault.yml." in content
    assert yaml.safe_load(content) == result["group_vars"]
    assert result["group_vars"]["aips_models_dir"] == str(tmp_path)
    assert "secure" not in content and "AAAB" not in content
    assert "\n    - name: " in content  # list items indented under their key (yamllint's default)
    assert result["vault_file"] == "inventory/x/group_vars/all/vault.yml"
    assert result["shadowing_folder"] == "inventory/x/group_vars/serving"
    assert "pulumi config get --stack %s app-serving:harborToken" % name in "\n".join(result["instructions"])


def test_mapping_input_and_relative_models_dir(monkeypatch, tmp_path):
    monkeypatch.chdir(str(tmp_path))
    data = yaml.safe_load(text_of("cloud"))
    result = migrate.from_pulumi_stack(data, models_dir="~/models-x")
    assert result["group_vars"]["aips_models_dir"] == os.path.expanduser("~/models-x")
    result = migrate.from_pulumi_stack(data, models_dir="deployments/models")
    assert result["group_vars"]["aips_models_dir"] == os.path.join(str(tmp_path), "deployments", "models")
    assert result["vault_file"] is None and result["shadowing_folder"] is None
    assert "<inventory>/group_vars/all/vault.yml" in "\n".join(result["instructions"])


def test_strict_raises_every_problem():
    with pytest.raises(AnsibleFilterError, match=r"The Pulumi stack has 2 problems; nothing was written:"):
        migrate.from_pulumi_stack("app-serving:cloudProvider: cloud\napp-serving:foo: 1\napp-serving:bar: 2\n")


def test_non_strict_returns_errors_and_no_content():
    result = migrate.from_pulumi_stack("app-serving:foo: 1\n", strict=False)
    assert len(result["errors"]) == 2 and result["content"] == "" and result["group_vars"] == {}


def test_invalid_yaml_does_not_quote_the_line():
    text = "app-serving:cloudProvider: cloud\napp-serving:harborToken: tok-SECRET-1 : : [\n"
    result = migrate.from_pulumi_stack(text, strict=False)
    assert result["errors"][0].startswith("stack file: the stack file is not valid YAML at line 2")
    assert "tok-SECRET-1" not in repr(result)


def test_unserialisable_input():
    result = migrate.from_pulumi_stack({"app-serving:models": object()}, strict=False)
    assert result["errors"] == ["stack file: the stack must be YAML text or a mapping of config keys"]


def test_plain_token_rendered_as_reference_only():
    text = "app-serving:cloudProvider: cloud\napp-serving:harborToken: in-clear-123\n"
    result = migrate.from_pulumi_stack(text, output="g/serving.yml")
    assert "aips_harbor_token: '{{ vault_aips_harbor_token }}'" in result["content"]
    assert "in-clear-123" not in repr(result)
    assert "read -rsp" in "\n".join(result["instructions"])


def test_no_token_no_vault_line():
    result = migrate.from_pulumi_stack("app-serving:cloudProvider: cloud\n")
    assert "Vault" not in result["content"] and result["instructions"] == []
