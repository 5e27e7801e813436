# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""module_utils/storage/pull_task.py: what each step of model_storage_pull is given, and its results."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_task
from ansible_collections.ai_platform.serving.plugins.modules import (
    model_claim_check,
    model_lock,
    model_namespace,
    model_pull_job,
    model_pull_wait,
    model_storage_state,
)


def params(**given):
    given.setdefault("records", [{"slug": "a", "namespace": "llm-d-a"}])
    validated = ArgumentSpecValidator(pull_task.argspec()).validate(given)
    assert not validated.error_messages, validated.error_messages
    return validated.validated_parameters


def valid(argspec, args):
    return ArgumentSpecValidator(argspec).validate(args).error_messages


def test_model_storage_state_takes_the_state_options_of_the_one_spec():
    assert model_storage_state.argspec() == pull_task.state_argspec()
    assert set(pull_task.argspec()) == set(pull_task.state_argspec()) | set(pull_task.PULL_OPTIONS)
    assert not pull_task.argspec()["records"].get("required")  # or the plan


def plan_record(slug, mode):
    storage = {"mode": mode, "pvc": slug + "-model"}
    if mode == "claim":
        storage["claim"] = "theirs"
    return {"slug": slug, "namespace": "llm-d-" + slug, "names": {}, "storage": storage,
            "values_files": {"ms": "/models/ms-%s/values.yaml" % slug}}


def test_the_plan_is_checked_selected_and_split_as_every_role_does():
    plan = [plan_record("a", "harbor"), plan_record("b", "claim"), plan_record("c", "harbor")]
    split = pull_task.records_by_mode(params(records=None, plan=plan))
    assert [r["slug"] for r in split["harbor"]] == ["a", "c"] and [r["slug"] for r in split["claim"]] == ["b"]
    split = pull_task.records_by_mode(params(records=None, plan=plan, models=["c"]))
    assert [r["slug"] for r in split["harbor"]] == ["c"] and split["claim"] == []
    given = pull_task.records_by_mode(params(records=[{"slug": "x"}], plan=plan))
    assert given == {"harbor": [{"slug": "x"}], "claim": []}  # records given: all Harbor, the plan not read
    for plan_given, models, says in ((None, [], "model_storage: no model plan was built"),
                                     ("nope", [], "model_storage_plan must be the list"),
                                     (plan, ["zz"], "model_storage_models names zz, not in the plan")):
        try:
            pull_task.records_by_mode(params(records=None, plan=plan_given, models=models))
        except select.PlanRecordsError as exc:
            assert str(exc).startswith(says), str(exc)
        else:
            raise AssertionError("no error for %r" % (plan_given,))


def test_a_claim_check_counts_the_role_replicas_else_the_values_file():
    record = plan_record("b", "claim")
    args = pull_task.claim_check_args(params(kubeconfig="/k", replicas={"b": 3}), record)
    assert args["replicas"] == 3 and args["values_file"] == "/models/ms-b/values.yaml" and args["kubeconfig"] == "/k"
    assert "replicas" not in pull_task.claim_check_args(params(), record)
    del record["values_files"]
    assert "values_file" not in pull_task.claim_check_args(params(), record)


def test_each_step_is_given_only_options_its_module_takes():
    given = params(kubeconfig="/k", harbor_token="t", registry_password="p", lock_file="/l")
    record = {"slug": "a", "namespace": "llm-d-a", "storage": {"pvc": "a-model"}}
    records = given["records"]
    assert valid(model_storage_state.argspec(), pull_task.state_args(given, records)) == []
    state = pull_task.state_args(given, records)
    assert state["registry_password"] == "p" and "harbor_token" not in state and "plan" not in state
    assert valid(model_namespace.argspec(), pull_task.namespace_args(given, records)) == []
    assert valid(model_claim_check.argspec(), pull_task.claim_check_args(given, record)) == []
    assert valid(model_lock.argspec(), pull_task.lease_args(given, [record])) == []
    assert valid(model_lock.argspec(), pull_task.lease_args(given, [record], "me")) == []
    assert valid(model_pull_job.argspec(), pull_task.job_args(given, record, {"digest": "sha256:x", "size": 5})) == []
    wait = {"name": "a-model-pull", "namespace": "llm-d-a", "digest": "sha256:x"}
    assert valid(model_pull_wait.argspec(), pull_task.wait_args(given, [wait])) == []
    assert all(state["kubeconfig"] == args["kubeconfig"] for args in (
        pull_task.namespace_args(given, records), pull_task.lease_args(given, [record]), pull_task.wait_args(given, [])))


def test_a_lease_outlives_the_wait_and_names_each_namespace_once():
    records = [{"namespace": "n2"}, {"namespace": "n1"}, {"namespace": "n2"}]
    args = pull_task.lease_args(params(wait_timeout=60, lock_wait=5), records)
    assert args["namespaces"] == ["n1", "n2"] and args["duration"] == 660 and args["wait"] == 5
    assert "state" not in args and "holder" not in args


def test_unpinned_images_are_named_once():
    records = [{"storage": {"oras_image": "r/oras:v1"}}, {"storage": {"oras_image": "r/oras:v1"}},
               {"storage": {"oras_image": "r/oras@sha256:" + "0" * 64}}]
    problems = pull_task.unpinned_images(records)
    assert len(problems) == 1 and problems[0].startswith("the pull Job image r/oras:v1 is not pinned by digest.")


def test_policies_due_in_check_mode_only_where_the_namespace_exists():
    records = [{"namespace": "a"}, {"namespace": "b"}]
    policies = [{"metadata": {"namespace": "a"}}, {"metadata": {"namespace": "b"}}]
    assert pull_task.policies_due(policies, records, [{"namespace": "a"}], False) == policies
    assert pull_task.policies_due(policies, records, [{"namespace": "a"}], True) == policies[:1]
    assert pull_task.policies_due(policies, records, None, True) == policies
    assert pull_task.policies_due(policies, records, [], True) == []


def test_the_claim_after_a_record_is_a_merge_patch():
    assert pull_task.claim_after({"a": "1", "b": "2"}, {"b": "3", "a": None, "c": "4"}) == {"b": "3", "c": "4"}
    assert pull_task.claim_after(None, None) == {}


def test_storage_results_keep_the_settled_and_add_each_pull():
    record = {"slug": "a", "namespace": "n", "storage": {"oci": {"reference": "h/m:v1"}}}
    pull = {"slug": "a", "pvc": "a-model", "namespace": "n", "digest": "sha256:d", "size": None, "files": 2,
            "duration": 3.0, "reused": True, "annotations": {"k": "v"}}
    jobs = {"a": {"actions": {"job": "created"}, "wait": {"claim_annotations": {"old": "x"}}}}
    results = pull_task.storage_results({"s": {"digest": "1"}}, [record], {"a": {"digest": "sha256:d", "size": 9}},
                                        jobs, [pull])
    assert results["s"] == {"digest": "1"}
    entry = results["a"]
    assert entry["size"] is None  # reported by the wait (as None), not the artifact's
    assert entry["pull_duration"] == 3.0 and entry["reused"] is True and entry["metadata"] == {}
    assert entry["claim_annotations"] == {"old": "x", "k": "v"} and entry["job"] == {"job": "created"}
    skipped = dict(pull)
    for key in ("size", "annotations", "reused"):
        del skipped[key]
    entry = pull_task.storage_results({}, [record], {"a": {"digest": "sha256:d", "size": 9}}, jobs, [skipped])["a"]
    assert entry["size"] == 9 and entry["reused"] is False and "claim_annotations" not in entry


def test_the_state_gets_the_plans_lock_entries_only_for_the_same_lock_file():
    models = {"h/m/a:v1": {"digest": "sha256:1"}}
    artifacts = {"models": models, "lock_file": "/srv/models.lock.yml"}
    records = [{"slug": "a"}]
    same = pull_task.state_args(params(lock_file="/srv/models.lock.yml", plan_artifacts=artifacts), records)
    assert same["locked"] == models and same["lock_file"] == "/srv/models.lock.yml"
    for given in (dict(lock_file="/other.lock.yml", plan_artifacts=artifacts), dict(plan_artifacts=artifacts),
                  dict(lock_file="/srv/models.lock.yml", plan_artifacts={}),
                  dict(lock_file="/srv/models.lock.yml")):
        assert "locked" not in pull_task.state_args(params(**given), records), given
    assert valid(model_storage_state.argspec(), same) == []


def test_the_pull_job_gets_the_job_the_state_built():
    record = {"slug": "a", "namespace": "n"}
    job = {"kind": "Job"}
    assert pull_task.job_args(params(), record, {"digest": "d", "size": 1}, job)["job"] == job
    assert "job" not in pull_task.job_args(params(), record, {"digest": "d", "size": 1})
