"""The model plan through ansible-playbook: every rule's message, and the seed's examples.

Runs playbooks/plan.yml as a user would, on generated inventories (one per case of
tests/fixtures/plan_cases.yml) and on the example inventories kept in the repo.
"""

import os
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support.plan_cases import (
    ROOT, case_settings, chart_lock_file, expected_names, load_cases, write_inventory)

CASES = load_cases()
PLAYBOOK = os.path.join(ROOT, "playbooks", "plan.yml")


def run_plan(inventory, *extra):
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run(["ansible-playbook", "-i", str(inventory), PLAYBOOK] + list(extra),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_rule_message_through_ansible_playbook(tmp_path, case):
    rc, output = run_plan(write_inventory(tmp_path, case_settings(tmp_path, case)))
    errors = case["errors"]
    for expected in errors + (case.get("warnings") or []):
        assert expected in output, output
    if errors:
        assert rc != 0, output
        plural = "" if len(errors) == 1 else "s"
        assert "The model plan has %d problem%s:" % (len(errors), plural) in output, output
    else:
        assert rc == 0, output
    assert "not-a-real-token" not in output
    for secret in case.get("never_shown") or []:
        assert secret not in output


def plan_of(tmp_path, inventory, *extra, **kwargs):
    out = tmp_path / "plan.yml"
    os.environ["AIPS_HARBOR_TOKEN"] = kwargs.get("env_token", "example-token")
    try:
        rc, output = run_plan(os.path.join(ROOT, "inventory", inventory), "-e", "aips_plan_output=%s" % out, *extra)
    finally:
        del os.environ["AIPS_HARBOR_TOKEN"]
    assert rc == 0, output
    with open(str(out)) as handle:
        return dict((r["name"], r) for r in yaml.safe_load(handle))


def test_seed_cloud_example(tmp_path):
    record = plan_of(tmp_path, "cloud")["Qwen3-0.6B"]
    assert record["slug"] == "qwen3-0-6b"
    assert record["names"] == expected_names("qwen3-0-6b", embedder=False)
    storage = record["storage"]
    assert record["model_artifacts_uri"] == "pvc+hf://qwen3-0-6b-model/hub/Qwen/Qwen3-0.6B"
    assert (storage["mode"], storage["pv"], storage["storage_class"]) == ("harbor", None, "standard-rwo")
    assert storage["oras_image"] == "ghcr.io/oras-project/oras:v1.3.1"
    assert record["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"] == [{"matchExpressions": [{"key": "nodegroup", "operator": "In", "values": ["gpu-pool"]}]}]


def test_seed_on_prem_example_with_rke2_variants(tmp_path):
    # as on a site after playbooks/load.yml: the lock file pins the carried charts (the plan refuses them unpinned)
    plan = plan_of(tmp_path, "rke2", "-e", "aips_lock_file=%s" % chart_lock_file(tmp_path))
    generative, embedder = plan["Qwen3-0.6B-rke2"], plan["all-MiniLM-L6-v2-rke2"]
    assert generative["names"] == expected_names("qwen3-0-6b-rke2", embedder=False)
    assert embedder["names"] == expected_names("all-minilm-l6-v2-rke2", embedder=True)
    assert generative["model_artifacts_uri"] == "pvc+hf://qwen3-0-6b-rke2-model/hub/Qwen/Qwen3-0.6B"
    assert embedder["model_artifacts_uri"] == \
        "pvc+hf://all-minilm-l6-v2-rke2-model/hub/sentence-transformers/all-MiniLM-L6-v2"
    storage = generative["storage"]
    assert storage["hostpath_dir"] == "/var/lib/hostpath/models/qwen3-0-6b-rke2"
    assert storage["oras_image"] == "harbor.harbor.svc.cluster.local/images-infra/oras-project/oras:v1.3.1"
    assert storage["job_affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][
        "nodeSelectorTerms"][0]["matchExpressions"] == [
            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["gpu-node-1"]}]
    toleration = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
    assert generative["tolerations"] == embedder["tolerations"] == [toleration]
    assert generative["values_files"]["ms"].endswith(
        "models/generative/Qwen3-0.6B-rke2/ms-qwen3-0-6b-rke2/values.yaml")


def test_seed_on_prem_without_a_lock_file_refuses_each_unpinned_chart(tmp_path):
    """The plan derives the Harbor chart mirrors from aips_chart_mirrors and refuses, before anything changes, every
    chart no lock file pins (on-prem, aips_allow_unpinned false); the lock file named but missing is refused too."""
    os.environ["AIPS_HARBOR_TOKEN"] = "example-token"
    try:
        rc, output = run_plan(os.path.join(ROOT, "inventory", "rke2"))
        missing_rc, missing = run_plan(os.path.join(ROOT, "inventory", "rke2"),
                                       "-e", "aips_lock_file=%s" % (tmp_path / "absent.lock.yml"))
        allowed_rc, allowed = run_plan(os.path.join(ROOT, "inventory", "rke2"), "-e", "aips_allow_unpinned=true")
    finally:
        del os.environ["AIPS_HARBOR_TOKEN"]
    assert rc != 0 and "The model plan has 3 problems" in output, output
    for key, name, version in (("infra", "llm-d-infra", "v1.3.0"), ("gaie", "inferencepool", "v1.2.0"),
                               ("modelservice", "llm-d-modelservice", "v0.4.12")):
        assert "chart %s (oci://harbor.harbor.svc.cluster.local/charts/%s %s) is not pinned" % (key, name, version) \
            in output, output
    assert missing_rc != 0 and "aips_lock_file: the lock file does not exist" in missing, missing
    assert allowed_rc == 0 and "failed=0" in allowed, allowed


def test_seed_on_prem_without_token_fails_before_anything(tmp_path):
    rc, output = run_plan(os.path.join(ROOT, "inventory", "rke2"))
    assert rc != 0
    assert "cluster: aips_harbor_token: on-prem needs harbor_token and it is not set" in output


SECRET_CASES = [case for case in CASES if case.get("never_shown")]


@pytest.mark.parametrize("case", SECRET_CASES, ids=[c["id"] for c in SECRET_CASES])
def test_secrets_never_shown_at_any_verbosity(tmp_path, case):
    """issue 27: the token (or a reference's user:token@) is in no line of the run, even with -vvvv."""
    rc, output = run_plan(write_inventory(tmp_path, case_settings(tmp_path, case)), "-vvvv")
    assert rc != 0, output
    for secret in case["never_shown"] + ["not-a-real-token"]:
        assert secret not in output, secret


def test_a_passing_plan_at_vvvv_and_its_written_file_never_show_the_token(tmp_path):
    """issue 27 (audit gap 5): a plan that succeeds, at -vvvv (the module's full result shown), with the
    token set and the full plan written to aips_plan_output: the token is in neither the output nor the file."""
    case = next(c for c in CASES if c["id"] == "block-scalar-newlines-are-trimmed")
    settings = case_settings(tmp_path, case)
    token = settings["harbor_token"]
    written = tmp_path / "plan-out.yml"
    rc, output = run_plan(write_inventory(tmp_path, settings), "-vvvv", "-e", "aips_plan_output=%s" % written)
    assert rc == 0, output
    # -vvvv shows the module's whole result (every record): the check below has teeth
    assert '"harbor_pull_secret": "harbor-creds"' in output and '"namespace": "team-m"' in output, output
    assert token not in output
    text = written.read_text()
    records = yaml.safe_load(text)
    assert [record["slug"] for record in records] == ["m"] and records[0]["namespace"] == "team-m"
    assert token not in text


def test_null_models_is_zero_models(tmp_path):
    """issue 27: aips_models: null plans no model instead of failing on its type."""
    settings = case_settings(tmp_path, {"folders": {}})
    settings["models"] = None
    rc, output = run_plan(write_inventory(tmp_path, settings))
    assert rc == 0, output
