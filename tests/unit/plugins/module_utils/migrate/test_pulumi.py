"""convert_stack and its helpers: the mapping, the token, every error and note."""

import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT

from ansible_collections.ai_platform.serving.plugins.module_utils.migrate import pulumi as ps

FIXTURES = os.path.join(ROOT, "tests", "fixtures", "pulumi")
CIPHERTEXT = "AAABAFakeRke2CipherTextUm9ib3RTZWNyZXRPbmx5UHVsdW1pQ2FuUmVhZA=="
PLAIN = "plain-robot-token-0123456789"


def fixture(name):
    with open(os.path.join(FIXTURES, "Pulumi.%s.yaml" % name)) as handle:
        return yaml.safe_load(handle)


def stack(**keys):
    """A minimal valid stack plus ``keys`` (app-serving:<name>=value; None removes a key)."""
    data = {"app-serving:cloudProvider": "cloud",
            "app-serving:models": {"generative": [{"name": "M", "enabled": True}]}}
    for name, value in keys.items():
        key = name if ":" in name else "app-serving:" + name
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def everything(result):
    """Every text the conversion returns, for the no-leak checks."""
    return repr(result)


def test_seed_on_prem_example_maps_every_key():
    result = ps.convert_stack(fixture("rke2"), "/srv/deployments/models")
    assert result["errors"] == [] and result["warnings"] == [] and result["notes"] == []
    source = fixture("rke2")
    assert result["group_vars"] == {
        "aips_cloud_provider": "on-prem",
        "aips_kubeconfig": "~/.kube/rke2-cluster.yaml",
        "aips_harbor_hostname": "harbor.harbor.svc.cluster.local",
        "aips_harbor_user": "robot$k8s-puller",
        "aips_harbor_token": "{{ vault_aips_harbor_token }}",
        "aips_gpu_toleration": {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
        "aips_models": source["app-serving:models"],
        "aips_models_dir": "/srv/deployments/models",
    }
    assert result["token"] == ps.TOKEN_SECURE
    assert CIPHERTEXT not in everything(result)


def test_seed_cloud_example_keeps_defaults_for_what_it_lacks():
    result = ps.convert_stack(fixture("cloud"))
    assert result["errors"] == []
    assert set(result["group_vars"]) == {"aips_cloud_provider", "aips_harbor_hostname", "aips_harbor_user",
                                         "aips_harbor_token", "aips_models"}
    assert result["group_vars"]["aips_models"]["generative"][0]["modelSource"]["storageClass"] == "standard-rwo"
    assert any("app-serving:kubeconfig, app-serving:gpuToleration" in n for n in result["notes"])
    assert any("aips_models_dir keeps its default" in n for n in result["notes"])


def test_output_order_follows_the_key_map():
    pairs = ps.ordered_group_vars(ps.convert_stack(fixture("rke2"), "/m")["group_vars"])
    assert [pair[0] for pair in pairs] == [
        "aips_cloud_provider", "aips_kubeconfig", "aips_harbor_hostname", "aips_harbor_user", "aips_harbor_token",
        "aips_gpu_toleration", "aips_models", "aips_models_dir"]


def test_pulumi_config_section_and_metadata():
    data = {"config": fixture("rke2"), "encryptionsalt": "v1:abc:def", "secretsprovider": "passphrase"}
    result = ps.convert_stack(data)
    assert result["errors"] == []
    assert result["group_vars"]["aips_cloud_provider"] == "on-prem"
    assert any(n.startswith("encryptionsalt: ") for n in result["notes"])
    assert "v1:abc:def" not in everything(result)


def test_esc_environment_is_a_warning():
    data = {"environment": ["team/rke2"], "config": stack()}
    assert any("Pulumi ESC" in w for w in ps.convert_stack(data)["warnings"])


def test_other_namespaces_are_ignored_with_a_note():
    result = ps.convert_stack(stack(**{"kubernetes:context": "rke2", "gcp:project": "p"}))
    assert result["errors"] == []
    assert "kubernetes:context" not in repr(result["group_vars"])
    notes = [n for n in result["notes"] if "Pulumi namespace" in n]
    assert len(notes) == 2 and notes[0].startswith("kubernetes:context: ")


@pytest.mark.parametrize("key, expected", [
    ("app-serving:replicas", "app-serving:replicas: unknown key: the collection has no setting for it. Fix: "),
    ("app-serving:harborhostname", "(did you mean 'harborHostname'? names are case-sensitive)"),
    ("app-serving:harborHost", "(did you mean 'harborHostname'?)"),
])
def test_unknown_app_serving_key_is_an_error_and_nothing_is_returned(key, expected):
    result = ps.convert_stack(stack(**{key: "secret-looking-value"}))
    assert len(result["errors"]) == 1 and expected in result["errors"][0]
    assert "remove it from (a copy of) the stack file" in result["errors"][0]
    assert result["group_vars"] == {}
    assert "secret-looking-value" not in everything(result)


def test_top_level_key_without_namespace():
    result = ps.convert_stack(dict(stack(), cloudProvider="cloud"))
    assert result["errors"] == ["stack file: 'cloudProvider' is not a Pulumi config key (<namespace>:<name>) (did you "
                                "mean 'cloudProvider'? names are case-sensitive). Fix: write it as app-serving:<name>, "
                                "e.g. app-serving:cloudProvider, or remove it"]


def test_unknown_top_level_key_beside_config():
    result = ps.convert_stack({"config": stack(), "extra": 1})
    assert "unknown top-level key 'extra' beside config:" in result["errors"][0]


def test_missing_cloud_provider_is_an_error():
    result = ps.convert_stack(stack(cloudProvider=None))
    assert result["errors"][0].startswith("app-serving:cloudProvider: missing")


@pytest.mark.parametrize("entry, expected", [
    ({"name": "M", "enabled": True, "replicas": 2},
     "app-serving:models model generative/M: unknown field 'replicas'. Fix: use only name, enabled, nodeSelector, "
     "nameSpace, releaseName, modelSource; fix the name, or move the setting into the model's values.yaml"),
    ({"name": "M", "enabled": True, "namespace": "x"}, "unknown field 'namespace' (did you mean 'nameSpace'?"),
    ({"name": "M", "enabled": True, "modelSource": {"harborRef": "h/p/n:t", "modelURI": "hub/o/n"}},
     "app-serving:models model generative/M: unknown modelSource field 'modelURI' (did you mean 'modelUri'?"),
    ({"enabled": True, "nodeselector": {}}, "model generative/#0: unknown field 'nodeselector'"),
    ("M", "model generative/#0: a model entry must be a mapping"),
    ({"name": "M", "enabled": True, "modelSource": {"harborRef": {"secure": "xyz"}}},
     "model generative/M: holds a Pulumi secret (secure:)"),
])
def test_model_errors_name_the_model_and_the_fix(entry, expected):
    result = ps.convert_stack(stack(models={"generative": [entry]}))
    assert len(result["errors"]) == 1, result["errors"]
    assert expected in result["errors"][0]
    assert "Fix: " in result["errors"][0]
    assert result["group_vars"] == {}


def test_every_model_problem_at_once():
    models = {"generative": [{"name": "A", "enabled": True, "x": 1}, {"name": "B", "enabled": True, "y": 1}],
              "embeders": []}
    errors = ps.convert_stack(stack(models=models, foo=1))["errors"]
    assert len(errors) == 4
    assert any("models.embeders: unknown model category (did you mean 'embedder'?)" in e for e in errors)
    assert ps.format_errors(errors).startswith("The Pulumi stack has 4 problems; nothing was written:\n  - ")


def test_models_as_a_json_string():
    result = ps.convert_stack(stack(models='{"embedder": [{"name": "E", "enabled": false}]}'))
    assert result["group_vars"]["aips_models"] == {"embedder": [{"name": "E", "enabled": False}]}


@pytest.mark.parametrize("key, value", [("models", "not json"), ("models", []), ("gpuToleration", "x")])
def test_object_keys_must_be_mappings(key, value):
    assert "must be a mapping" in ps.convert_stack(stack(**{key: value}))["errors"][0]


def test_null_category_becomes_an_empty_list():
    assert ps.convert_stack(stack(models={"generative": None}))["group_vars"]["aips_models"] == {"generative": []}


def test_secure_token_becomes_the_vault_reference():
    result = ps.convert_stack(stack(harborToken={"secure": CIPHERTEXT}))
    assert result["group_vars"]["aips_harbor_token"] == "{{ vault_aips_harbor_token }}"
    assert result["token"] == "secure" and result["warnings"] == []
    assert CIPHERTEXT not in everything(result)


def test_plain_token_is_not_copied_and_warns():
    result = ps.convert_stack(stack(harborToken=PLAIN))
    assert result["group_vars"]["aips_harbor_token"] == "{{ vault_aips_harbor_token }}"
    assert result["token"] == "plain"
    assert len(result["warnings"]) == 1 and "is in clear in the stack file" in result["warnings"][0]
    assert "rotate the robot token" in result["warnings"][0]
    assert PLAIN not in everything(result)


def test_empty_token_keeps_the_default():
    result = ps.convert_stack(stack(harborToken=""))
    assert "aips_harbor_token" not in result["group_vars"] and result["token"] == "absent"
    assert any("harborToken is empty" in n for n in result["notes"])


def test_token_of_a_strange_type_is_an_error_without_its_value():
    result = ps.convert_stack(stack(harborToken={"secure": PLAIN, "other": PLAIN}))
    assert "the token must be {secure: <ciphertext>} or a string, got a dict" in result["errors"][0]
    assert PLAIN not in everything(result)


def test_other_secure_values_are_errors():
    result = ps.convert_stack(stack(kubeconfig={"secure": CIPHERTEXT}))
    assert result["errors"][0].startswith("app-serving:kubeconfig: a Pulumi secret (secure:)")
    assert "pulumi config get --stack <stack> app-serving:kubeconfig" in result["errors"][0]
    assert CIPHERTEXT not in everything(result)


@pytest.mark.parametrize("contents", ["apiVersion: v1\nclusters: []\n", '{"apiVersion": "v1"}'])
def test_kubeconfig_contents_are_refused_and_not_echoed(contents):
    result = ps.convert_stack(stack(kubeconfig=contents))
    assert "holds a kubeconfig's contents, not a path" in result["errors"][0]
    assert "clusters" not in everything(result) and '"v1"' not in everything(result)


def test_string_keys_must_be_strings():
    assert "must be a string, got a int" in ps.convert_stack(stack(harborUser=5))["errors"][0]


@pytest.mark.parametrize("data", [None, [], "text"])
def test_stack_must_be_a_mapping(data):
    assert ps.convert_stack(data)["errors"][0].startswith("stack file: the stack file must hold a mapping")


def test_config_section_must_be_a_mapping():
    assert ps.convert_stack({"config": []})["errors"][0].startswith("config: the config section must be a mapping")


def test_non_string_config_key():
    config = stack()
    config[5] = 1
    assert "not a Pulumi config key" in ps.convert_stack({"config": config})["errors"][0]


@pytest.mark.parametrize("path, name", [
    ("deployments/Pulumi.rke2.yaml", "rke2"), ("Pulumi.dev-eu.yml", "dev-eu"), ("stack.yaml", None), (None, None)])
def test_stack_name(path, name):
    assert ps.stack_name(path) == name


@pytest.mark.parametrize("output, vault_file", [
    ("inventory/site/group_vars/serving.yml", "inventory/site/group_vars/all/vault.yml"),
    ("inventory/site/group_vars/serving/main.yml", "inventory/site/group_vars/serving/vault.yml"),
    ("/tmp/out.yml", "/tmp/vault.yml"),
])
def test_vault_file_never_hides_the_output(output, vault_file):
    assert ps.vault_file_for(output) == vault_file


def test_shadowing_folder():
    assert ps.shadowing_folder("inv/group_vars/serving.yml") == "inv/group_vars/serving"
    assert ps.shadowing_folder("inv/group_vars/serving/main.yml") is None


def test_vault_instructions_secure():
    lines = ps.vault_instructions("secure", "inv/group_vars/serving/vault.yml", "rke2")
    text = "\n".join(lines)
    assert "  mkdir -p inv/group_vars/serving" in lines
    assert "pulumi config get --stack rke2 app-serving:harborToken | tr -d '\\n'" in text
    assert ("ansible-vault encrypt_string --ask-vault-pass --stdin-name vault_aips_harbor_token > "
            "inv/group_vars/serving/vault.yml") in text
    assert "--name vault_aips_harbor_token" in text and "vault.yml.example" in text


def test_vault_instructions_plain_and_absent_and_quoting():
    text = "\n".join(ps.vault_instructions("plain", "my site/serving/vault.yml"))
    assert "read -rsp" in text and "pulumi" not in text
    assert "> 'my site/serving/vault.yml'" in text
    assert ps.vault_instructions("absent", "x/vault.yml") == []


def test_models_as_one_secret():
    errors = ps.convert_stack(stack(models={"secure": CIPHERTEXT}))["errors"]
    assert errors == [e for e in errors if e.startswith("app-serving:models: a Pulumi secret")] and len(errors) == 1
