# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model_storage_pull action: its steps in order, each given what the previous one returned, the Leases given
back whatever fails after they were taken, nothing created on a refused input. The steps are recorded here in place
of the modules; each module's own behaviour is tested in its own tests and on the lab
(tests/integration/model_storage)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from unittest import mock

from ansible.playbook.task import Task

from ansible_collections.ai_platform.serving.plugins.action import model_storage_pull as action

PINNED = "harbor.example/oras@sha256:" + "a" * 64


def record(slug, image=PINNED):
    return {"slug": slug, "namespace": "llm-d-" + slug,
            "storage": {"mode": "harbor", "pvc": slug + "-model", "pull_job": slug + "-model-pull", "oras_image": image,
                        "oci": {"reference": "harbor.example/models/%s:v1" % slug}}}


def artifact(slug):
    return {"digest": "sha256:" + slug[0] * 64, "size": 100}


class Steps(object):
    """Canned results per module; every call recorded as (module, args)."""

    def __init__(self, pull=(), fail=None, settled=None):
        self.calls, self.pull, self.fail, self.settled = [], list(pull), fail or {}, settled or {}

    def __call__(self, module, args, task_vars):
        del task_vars
        self.calls.append((module, args))
        if module in self.fail:
            raise action.StepFailed(dict(self.fail[module], failed=True))
        if module == "model_storage_state":
            slugs = [r["slug"] for r in args["records"]]
            return {"changed": False, "unreadable": [], "misfits": [], "unsigned": [],
                    "artifacts": dict((s, artifact(s)) for s in slugs), "settled": self.settled,
                    "reasons": {}, "pull": self.pull,
                    "storage_results": dict((s, {"digest": "d", "claim_annotations": {}}) for s in self.settled),
                    "network_policies": [{"kind": "NetworkPolicy", "metadata": {"namespace": "llm-d-" + s}}
                                         for s in slugs]}
        if module == "model_namespace":
            return {"changed": True, "live": [{"namespace": r["namespace"]} for r in args["records"]]}
        if module == "model_lock":
            return {"changed": False, "holder": args.get("holder") or "me@here/1", "leases": {}}
        if module == "model_pull_job":
            slug = args["record"]["slug"]
            return {"changed": True, "actions": {"job": "created"},
                    "wait": {"name": slug + "-model-pull", "namespace": "llm-d-" + slug, "slug": slug,
                             "digest": args["digest"], "pvc": slug + "-model", "claim_annotations": {"old": "1"}}}
        if module == "model_pull_wait":
            return {"changed": True, "pulls": [dict(job, size=100, files=3, reused=False, duration=1.5,
                                                    annotations={"ai-platform.io/digest": job["digest"]})
                                               for job in args["jobs"]]}
        return {"changed": True}


def run(steps, check_mode=False, **args):
    task = Task()
    task.args = dict(args)
    module = action.ActionModule(task, mock.MagicMock(), mock.MagicMock(check_mode=check_mode, diff=False),
                                 loader=None, templar=None, shared_loader_obj=None)
    module.step_run = steps
    with mock.patch.object(action.ActionModule, "step", lambda self, m, a, tv: (
            self.notes.__setitem__("changed", True) if m not in ("model_storage_state", "model_lock") else None)
            or steps(m, a, tv)):
        with mock.patch.object(action.pull_progress, "watch", lambda args, check: (None, [])):
            return module.run(task_vars={})


def modules(steps):
    return [module for module, _args in steps.calls]


def test_a_no_op_run_asks_the_state_and_the_namespaces_only():
    steps = Steps(settled={"a": {"digest": "d"}})
    result = run(steps, records=[record("a")])
    assert not result.get("failed"), result
    assert modules(steps) == ["model_storage_state", "model_namespace", "kubernetes.core.k8s"]
    assert result["storage_results"] == {"a": {"digest": "d", "claim_annotations": {}}}
    assert result["pulls"] == []


def test_the_pulls_run_under_the_leases_and_their_results_carry_the_claim_after_the_record():
    steps = Steps(pull=["a", "b"])
    result = run(steps, records=[record("a"), record("b")], wait_timeout=100, lock_wait=7, harbor_token="s3cret")
    assert not result.get("failed"), result
    assert modules(steps) == ["model_storage_state", "model_namespace", "kubernetes.core.k8s", "model_lock",
                              "model_pull_job", "model_pull_job", "model_pull_wait", "model_lock"]
    take, give = steps.calls[3][1], steps.calls[-1][1]
    assert take["namespaces"] == ["llm-d-a", "llm-d-b"] and take["duration"] == 700 and take["wait"] == 7
    assert give["holder"] == "me@here/1" and give["state"] == "absent"
    wait = steps.calls[6][1]
    assert [j["slug"] for j in wait["jobs"]] == ["a", "b"] and wait["record_claims"] is True
    entry = result["storage_results"]["a"]
    assert entry["digest"] == artifact("a")["digest"] and entry["size"] == 100 and entry["pull_duration"] == 1.5
    assert entry["reference"] == "harbor.example/models/a:v1" and entry["job"] == {"job": "created"}
    assert entry["claim_annotations"] == {"old": "1", "ai-platform.io/digest": artifact("a")["digest"]}
    assert result["changed"] is True
    assert "s3cret" not in repr(result)


def test_a_failed_wait_still_gives_the_leases_back():
    steps = Steps(pull=["a"], fail={"model_pull_wait": {"msg": "1 of 1 pulls failed", "pulls": []}})
    result = run(steps, records=[record("a")])
    assert result["failed"] and result["msg"] == "1 of 1 pulls failed"
    assert modules(steps)[-1] == "model_lock" and steps.calls[-1][1]["state"] == "absent"


def test_a_lease_held_by_another_run_gives_back_what_this_run_took():
    steps = Steps(pull=["a"], fail={"model_lock": {"msg": "held by them", "holder": "me@here/2"}})
    result = run(steps, records=[record("a")])
    assert result["failed"] and result["msg"] == "held by them"
    # the take failed, then the give-back (failing too here) is tried with the holder the take returned
    assert [m for m in modules(steps) if m == "model_lock"] == ["model_lock", "model_lock"]
    assert steps.calls[-1][1]["holder"] == "me@here/2"
    assert "model_pull_job" not in modules(steps)


def test_every_pull_job_is_tried_and_the_failures_told_together():
    steps = Steps(pull=["a", "b"], fail={"model_pull_job": {"msg": "a: the claim differs"}})
    result = run(steps, records=[record("a"), record("b")])
    assert result["failed"] and result["msg"] == "a: the claim differs\na: the claim differs"
    assert modules(steps).count("model_pull_job") == 2 and "model_pull_wait" not in modules(steps)
    assert steps.calls[-1][1]["state"] == "absent"


def test_an_unpinned_pull_image_is_refused_before_any_step():
    steps = Steps()
    result = run(steps, records=[record("a", image="harbor.example/oras:v1")])
    assert result["failed"] and "the pull Job image harbor.example/oras:v1 is not pinned by digest" in result["msg"][0]
    assert steps.calls == []
    steps = Steps(settled={"a": {}})
    assert not run(steps, records=[record("a", image="harbor.example/oras:v1")], allow_unpinned=True).get("failed")


def test_unreadable_artifacts_fail_before_anything_is_created():
    steps = Steps()
    original = steps.__call__

    def unreadable(module, args, task_vars):
        done = original(module, args, task_vars)
        if module == "model_storage_state":
            done["unreadable"] = ["a: no such tag"]
        return done
    result = run(unreadable, records=[record("a")])
    assert result["failed"] and result["msg"] == ["a: no such tag"]
    assert modules(steps) == ["model_storage_state"]


def test_with_the_plan_the_user_owned_claims_are_checked_first_and_every_problem_told_at_once():
    claim = dict(record("b"), storage={"mode": "claim", "claim": "theirs", "pvc": "b-model"}, names={})
    plan = [dict(record("a"), names={}), claim, dict(claim, slug="c")]
    steps = Steps(settled={"a": {}})
    result = run(steps, plan=plan, replicas={"b": 2})
    assert not result.get("failed"), result
    assert modules(steps)[:2] == ["model_claim_check", "model_claim_check"]
    assert steps.calls[0][1]["replicas"] == 2 and "replicas" not in steps.calls[1][1]
    assert [r["slug"] for r in steps.calls[2][1]["records"]] == ["a"]  # the state gets the Harbor records only
    steps = Steps(fail={"model_claim_check": {"msg": "b: claim theirs is not Bound"}})
    result = run(steps, plan=plan)
    assert result["failed"] and result["msg"] == ["b: claim theirs is not Bound"] * 2
    assert modules(steps) == ["model_claim_check", "model_claim_check"]  # nothing else ran


def test_a_plan_of_claims_only_runs_no_storage_step():
    claim = dict(record("b"), storage={"mode": "claim", "claim": "theirs", "pvc": "b-model"}, names={})
    steps = Steps()
    result = run(steps, plan=[claim])
    assert not result.get("failed") and modules(steps) == ["model_claim_check"], result
    assert result["storage_results"] == {}


def test_no_plan_fails_naming_the_role_variable():
    steps = Steps()
    result = run(steps)
    assert result["failed"] and "model_storage: no model plan was built" in result["msg"] and steps.calls == []


def test_check_mode_applies_policies_only_in_namespaces_that_exist():
    steps = Steps(settled={"a": {}, "b": {}})

    def some_live(module, args, task_vars):
        if module == "model_namespace":
            steps.calls.append((module, args))
            return {"changed": True, "live": [{"namespace": "llm-d-a"}]}
        return steps(module, args, task_vars)
    result = run(some_live, check_mode=True, records=[record("a"), record("b")], manage_namespace=True)
    assert not result.get("failed"), result
    assert [p["metadata"]["namespace"] for p in result["network_policies"]] == ["llm-d-a"]
