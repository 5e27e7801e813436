"""playbooks/migrate_pulumi.yml as a user runs it, then playbooks/plan.yml on what it wrote.

The seed's cloud and on-prem stack files (tests/fixtures/pulumi) are migrated, the Vault
variable is created as the playbook says, and the plan of the generated inventory must be
the plan of the repo's hand-written inventory of the same example. The token (ciphertext or
in clear) must never reach the output file or the play's output at -vvv.
"""

import os
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT, chart_lock_file, expected_names

MIGRATE = os.path.join(ROOT, "playbooks", "migrate_pulumi.yml")
PLAN = os.path.join(ROOT, "playbooks", "plan.yml")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "pulumi")
MODELS = os.path.join(ROOT, "models")
HOSTS = {"all": {"children": {"serving": {"children": {"controller": {"hosts": {"localhost": {
    "ansible_connection": "local", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}}}}}}}}
CIPHERTEXTS = {
    "cloud": "AAABAFakeCloudCipherTextQmx0bGV5UHVsdW1pU2VjcmV0Tm90UmVhbA==",
    "rke2": "AAABAFakeRke2CipherTextUm9ib3RTZWNyZXRPbmx5UHVsdW1pQ2FuUmVhZA==",
}
VAULT_TOKEN = "decrypted-robot-token-42"
PLAIN_TOKEN = "in-clear-robot-token-7f3a"


def env():
    environment = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
                       ANSIBLE_FORCE_COLOR="0")
    environment.pop("AIPS_HARBOR_TOKEN", None)
    return environment


def run(args, environment=None, stdin=None, stdout_only=False):
    proc = subprocess.run(args, cwd=ROOT, env=environment or env(), capture_output=True, text=True, timeout=300,
                          check=False, input=stdin)
    return proc.returncode, proc.stdout if stdout_only else proc.stdout + proc.stderr


def migrate(stack_file, output, *extra, models_dir=MODELS, verbose=True):
    args = ["ansible-playbook", MIGRATE, "-e", "pulumi_stack_file=%s" % stack_file, "-e", "migrate_output=%s" % output]
    if models_dir:
        args += ["-e", "migrate_models_dir=%s" % models_dir]
    if verbose:
        args.append("-vvv")
    return run(args + list(extra))


def read(path):
    with open(str(path)) as handle:
        return handle.read()


def write_stack(tmp_path, data, name="Pulumi.test.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data) if isinstance(data, dict) else data)
    return path


def new_inventory(tmp_path):
    inventory = tmp_path / "inventory"
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "hosts.yml").write_text(yaml.safe_dump(HOSTS))
    return inventory


def create_vault_variable(inventory, token):
    """What the play's instructions do, with a password file instead of the prompt."""
    password = inventory.parent / "vault-password"
    password.write_text("test-vault-password\n")
    vault_file = inventory / "group_vars" / "all" / "vault.yml"
    vault_file.parent.mkdir(exist_ok=True)
    # the play's instructions redirect stdout alone into vault.yml: a warning on stderr (cryptography 51's DSA
    # deprecation printed one) must not end up in the file
    rc, out = run(["ansible-vault", "encrypt_string", "--vault-password-file", str(password),
                   "--stdin-name", "vault_aips_harbor_token"], stdin=token, stdout_only=True)
    assert rc == 0, out
    vault_file.write_text(out[out.index("vault_aips_harbor_token:"):])
    return password


# The seed's on-prem Harbor: the plan refuses its charts unless a lock file pins them (as after playbooks/load.yml).
RKE2_HARBOR = "harbor.harbor.svc.cluster.local"


def lock_args(tmp_path, site):
    """``-e aips_lock_file=...`` pinning the carried charts on-prem (the plan refuses them unpinned), else none."""
    return ["-e", "aips_lock_file=%s" % chart_lock_file(tmp_path, RKE2_HARBOR)] if site == "rke2" else []


def plan_records(inventory, *extra, environment=None):
    out = inventory.parent / ("plan-%s.yml" % inventory.name)
    rc, output = run(["ansible-playbook", "-i", str(inventory), PLAN, "-e", "aips_plan_output=%s" % out] + list(extra),
                     environment)
    assert rc == 0, output
    return dict((r["name"], r) for r in yaml.safe_load(read(out))), output


@pytest.mark.parametrize("site, models", [
    ("cloud", {"Qwen3-0.6B": ("qwen3-0-6b", False)}),
    ("rke2", {"Qwen3-0.6B-rke2": ("qwen3-0-6b-rke2", False),
              "all-MiniLM-L6-v2-rke2": ("all-minilm-l6-v2-rke2", True)}),
])
def test_seed_example_migrates_to_a_valid_inventory(tmp_path, site, models):
    inventory = new_inventory(tmp_path)
    output = inventory / "group_vars" / "serving.yml"
    rc, play = migrate(os.path.join(FIXTURES, "Pulumi.%s.yaml" % site), output)
    assert rc == 0, play
    content = read(output)
    for text in (content, play):
        assert CIPHERTEXTS[site] not in text
        assert "secure" not in text.replace("secure:)", "")  # no trace of the secure: value
    written = yaml.safe_load(content)
    assert written["aips_harbor_token"] == "{{ vault_aips_harbor_token }}"
    assert written["aips_models_dir"] == MODELS
    assert "--stdin-name vault_aips_harbor_token > %s/group_vars/all/vault.yml" % inventory in play
    assert "pulumi config get --stack %s app-serving:harborToken" % site in play

    password = create_vault_variable(inventory, VAULT_TOKEN)
    locked = lock_args(tmp_path, site)
    plan, plan_output = plan_records(inventory, "--vault-password-file", str(password), *locked)
    assert VAULT_TOKEN not in plan_output and VAULT_TOKEN not in read(inventory.parent / "plan-inventory.yml")
    assert sorted(plan) == sorted(models)
    for name, (slug, embedder) in models.items():
        record = plan[name]
        assert record["slug"] == slug and record["namespace"] == "llm-d-" + slug
        assert record["names"] == expected_names(slug, embedder)
        assert record["values_files"]["ms"] == os.path.join(MODELS, record["category"], name, "ms-%s" % slug,
                                                            "values.yaml")

    # The same plan as the repo's hand-written inventory of this example.
    environment = dict(env(), AIPS_HARBOR_TOKEN="example-token")
    ref_out = tmp_path / "reference.yml"
    rc, ref_output = run(["ansible-playbook", "-i", os.path.join(ROOT, "inventory", site), PLAN,
                          "-e", "aips_plan_output=%s" % ref_out] + locked, environment)
    assert rc == 0, ref_output
    reference = dict((r["name"], r) for r in yaml.safe_load(read(ref_out)))
    assert plan == reference


def test_plain_token_is_never_written_and_warns(tmp_path):
    data = yaml.safe_load(read(os.path.join(FIXTURES, "Pulumi.rke2.yaml")))
    data["app-serving:harborToken"] = PLAIN_TOKEN
    inventory = new_inventory(tmp_path)
    output = inventory / "group_vars" / "serving.yml"
    rc, play = migrate(write_stack(tmp_path, data), output)
    assert rc == 0, play
    assert PLAIN_TOKEN not in play and PLAIN_TOKEN not in read(output)
    assert "WARNING: app-serving:harborToken is in clear in the stack file: it is not written to the output" in play
    assert "read -rsp 'Harbor robot token: ' TOKEN" in play
    password = create_vault_variable(inventory, PLAIN_TOKEN)
    plan, plan_output = plan_records(inventory, "--vault-password-file", str(password), *lock_args(tmp_path, "rke2"))
    assert PLAIN_TOKEN not in plan_output
    assert plan["Qwen3-0.6B-rke2"]["names"]["harbor_pull_secret"] == "harbor-creds"


def test_plain_token_with_errors_is_not_shown_either(tmp_path):
    stack = write_stack(tmp_path, {"app-serving:cloudProvider": "on-prem", "app-serving:harborToken": PLAIN_TOKEN,
                                   "app-serving:harborPassword": PLAIN_TOKEN})
    rc, play = migrate(stack, tmp_path / "out" / "serving.yml")
    assert rc != 0
    assert "app-serving:harborPassword: unknown key" in play
    assert PLAIN_TOKEN not in play


@pytest.mark.parametrize("change, expected", [
    ({"app-serving:replicaCount": 2},
     "app-serving:replicaCount: unknown key: the collection has no setting for it. Fix: rename it to one of "),
    ({"app-serving:harborhostname": "h"}, "(did you mean 'harborHostname'? names are case-sensitive)"),
])
def test_unknown_key_fails_and_writes_nothing(tmp_path, change, expected):
    data = dict(yaml.safe_load(read(os.path.join(FIXTURES, "Pulumi.cloud.yaml"))), **change)
    output = tmp_path / "inventory" / "group_vars" / "serving.yml"
    rc, play = migrate(write_stack(tmp_path, data), output)
    assert rc != 0
    assert "The Pulumi stack has 1 problem(s); nothing was written:" in play
    assert expected in play
    assert not (tmp_path / "inventory").exists()


def test_unknown_model_field_fails_and_writes_nothing(tmp_path):
    data = yaml.safe_load(read(os.path.join(FIXTURES, "Pulumi.rke2.yaml")))
    data["app-serving:models"]["embedder"][0]["replicas"] = 2
    data["app-serving:models"]["generative"][0]["modelSource"]["storageclass"] = "x"
    output = tmp_path / "serving.yml"
    rc, play = migrate(write_stack(tmp_path, data), output)
    assert rc != 0
    assert "The Pulumi stack has 2 problem(s)" in play
    assert "app-serving:models model embedder/all-MiniLM-L6-v2-rke2: unknown field 'replicas'. Fix: use only " in play
    assert ("app-serving:models model generative/Qwen3-0.6B-rke2: unknown modelSource field 'storageclass' (did you "
            "mean 'storageClass'? names are case-sensitive)") in play
    assert not output.exists()


def test_other_namespaces_noted_and_default_models_dir(tmp_path):
    data = dict(yaml.safe_load(read(os.path.join(FIXTURES, "Pulumi.cloud.yaml"))),
                **{"kubernetes:context": "gke_project_zone_cluster"})
    inventory = new_inventory(tmp_path)
    output = inventory / "group_vars" / "serving.yml"
    rc, play = migrate(write_stack(tmp_path, {"config": data, "encryptionsalt": "v1:salt"}), output,
                       models_dir=None)
    assert rc == 0, play
    assert "kubernetes:context: a key of the Pulumi namespace 'kubernetes', not of the program (app-serving:*); " \
           "ignored" in play
    assert "encryptionsalt: Pulumi's secrets metadata, not a setting; ignored" in play
    written = yaml.safe_load(read(output))
    assert "aips_models_dir" not in written and "gke_project_zone_cluster" not in read(output)
    plan = plan_records(inventory, "-e", "vault_aips_harbor_token=cloud-robot-token")[0]
    assert plan["Qwen3-0.6B"]["values_files"]["gaie"] == os.path.join(
        MODELS, "generative", "Qwen3-0.6B", "gaie-qwen3-0-6b", "values.yaml")


def test_overwrite_needs_force_and_check_mode_shows_the_diff(tmp_path):
    output = tmp_path / "group_vars" / "serving.yml"
    output.parent.mkdir()
    output.write_text("---\naips_cloud_provider: on-prem\n")
    cloud = os.path.join(FIXTURES, "Pulumi.cloud.yaml")

    rc, play = migrate(cloud, output, verbose=False)
    assert rc != 0
    assert "exists and is left as it is" in play and "-e migrate_force=true" in play
    assert read(output) == "---\naips_cloud_provider: on-prem\n"

    rc, play = migrate(cloud, output, "--check", verbose=False)
    assert rc == 0, play
    assert "-aips_cloud_provider: on-prem\n" in play and "+aips_cloud_provider: cloud\n" in play
    assert "the real run needs -e migrate_force=true" in play
    assert read(output) == "---\naips_cloud_provider: on-prem\n"

    rc, play = migrate(cloud, output, "-e", "migrate_force=true", verbose=False)
    assert rc == 0, play
    assert yaml.safe_load(read(output))["aips_cloud_provider"] == "cloud"

    rc, play = migrate(cloud, output, "-e", "migrate_force=true", verbose=False)
    assert rc == 0, play
    assert "changed=0" in play


def test_settings_that_do_not_validate_write_nothing(tmp_path):
    # "vault" in the path: the stand-in token the play passes to the plan must not mask it.
    models = tmp_path / "vault-models"
    (models / "generative").mkdir(parents=True)
    output = tmp_path / "serving.yml"
    rc, play = migrate(os.path.join(FIXTURES, "Pulumi.cloud.yaml"), output, models_dir=str(models))
    assert rc != 0
    assert "The migrated settings do not validate, so nothing was written:" in play
    assert "generative/Qwen3-0.6B: name: no model folder %s/generative/Qwen3-0.6B" % models in play
    assert not output.exists()
    rc, play = migrate(os.path.join(FIXTURES, "Pulumi.cloud.yaml"), output, "-e", "migrate_validate=false",
                       models_dir=str(models))
    assert rc == 0, play
    assert yaml.safe_load(read(output))["aips_models_dir"] == str(models)


def test_missing_arguments_and_stack_file(tmp_path):
    rc, play = run(["ansible-playbook", MIGRATE])
    assert rc != 0 and "Name the stack file and the output" in play
    rc, play = migrate(tmp_path / "Pulumi.none.yaml", tmp_path / "out.yml", verbose=False)
    assert rc != 0 and "is not a file" in play


def test_output_hidden_by_a_group_folder_is_refused(tmp_path):
    inventory = new_inventory(tmp_path)
    (inventory / "group_vars" / "serving").mkdir()
    output = inventory / "group_vars" / "serving.yml"
    rc, play = migrate(os.path.join(FIXTURES, "Pulumi.cloud.yaml"), output, verbose=False)
    assert rc != 0
    assert "Ansible then reads only that folder and ignores %s" % output in play
    assert "-e migrate_output=%s/group_vars/serving/main.yml" % inventory in play
    assert not output.exists()
