# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage_pull: the Harbor path of model_storage in one task, each step's result handed on in Python.

The steps are the collection's storage modules, run as their own tasks would run them (in the playbook's process
where that is the same thing, ``plugin_utils/in_process.py``, else as module processes): model_storage_state,
model_namespace, kubernetes.core.k8s for the NetworkPolicies due (before them, with ``plan``, the records selected and
model_claim_check for each user-owned claim), then for the models not settled model_lock,
model_pull_job per model, model_pull_wait (the pulls' progress printed under this task) and model_lock's give-back,
which runs whatever failed after the Leases were taken. What each step is given and the results are decided in
``module_utils/storage/pull_task.py``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.parameters import remove_values

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_task
from ansible_collections.ai_platform.serving.plugins.plugin_utils import pull_progress
from ansible_collections.ai_platform.serving.plugins.plugin_utils.in_process import (
    InProcessModuleAction,
    run_in_process,
)


class StepFailed(Exception):
    """A step failed: ``result`` is its result (``msg`` says why)."""

    def __init__(self, result):
        super(StepFailed, self).__init__(result.get("msg"))
        self.result = result


class ActionModule(InProcessModuleAction):
    MODULE = "model_storage_pull"

    def step(self, module, args, task_vars):
        """Run one collection module (or the FQCN ``module``) with ``args``; its result, StepFailed when it failed."""
        check_mode, diff = self._play_context.check_mode, self._play_context.diff
        if "." not in module and self.in_process():
            done = run_in_process(module, args, check_mode, diff)
        else:
            name = module if "." in module else "ai_platform.serving." + module
            done = self._execute_module(module_name=name, module_args=args, task_vars=task_vars)
        for key in ("warnings", "deprecations"):
            self.notes[key].extend(done.get(key) or [])
        if done.get("diff"):
            self.notes["diff"].extend(done["diff"] if isinstance(done["diff"], list) else [done["diff"]])
        self.notes["changed"] = self.notes["changed"] or bool(done.get("changed"))
        if done.get("failed"):
            raise StepFailed(done)
        return done

    def run(self, tmp=None, task_vars=None):
        del tmp  # not used
        result = super(InProcessModuleAction, self).run(task_vars=task_vars)
        validation, params = self.validate_argument_spec(argument_spec=pull_task.argspec())
        self.notes = {"warnings": [], "deprecations": [], "diff": [], "changed": False}
        try:
            result.update(self.pull(params, task_vars or {}))
        except StepFailed as failed:
            result.update(dict((k, v) for k, v in failed.result.items() if k not in ("changed", "warnings", "diff")),
                          failed=True)
        result["changed"] = self.notes["changed"]
        for key in ("warnings", "deprecations"):
            if self.notes[key]:
                result[key] = self.notes[key]
        if self.notes["diff"]:
            result["diff"] = self.notes["diff"]
        return remove_values(result, validation._no_log_values)

    def pull(self, params, task_vars):
        done = {"storage_results": {}, "settled": {}, "pulls": [], "network_policies": [], "claims": {}}
        try:
            by_mode = pull_task.records_by_mode(params)
        except select.PlanRecordsError as exc:
            raise StepFailed({"msg": str(exc)})
        if by_mode["claim"]:
            done["claims"] = self.check_claims(params, by_mode["claim"], task_vars)
        records = by_mode["harbor"]
        if not records:
            return done
        unpinned = [] if params["allow_unpinned"] else pull_task.unpinned_images(records)
        if unpinned:
            raise StepFailed({"msg": unpinned})
        state = self.step("model_storage_state", pull_task.state_args(params, records), task_vars)
        problems = state["unreadable"] + state["misfits"] + state["unsigned"]
        if problems:  # each names its model and carries no credentials; nothing was created
            raise StepFailed(dict(state, msg=problems))
        done.update(artifacts=state["artifacts"], settled=state["settled"], reasons=state["reasons"],
                    storage_results=dict(state["storage_results"]), pull=state["pull"])
        live = None
        if params["manage_namespace"]:
            namespaces = self.step("model_namespace", pull_task.namespace_args(params, records), task_vars)
            live = namespaces.get("live")
            done["namespaces"] = namespaces
        due = pull_task.policies_due(state["network_policies"], records, live, self._play_context.check_mode)
        if due:  # none in check mode when every namespace is still to be created (an empty definition is an API error)
            self.step("kubernetes.core.k8s", dict(pull_task.auth(params), state="present", definition=due), task_vars)
            done["network_policies"] = due
        pulling = [record for record in records if record["slug"] in state["pull"]]
        if pulling:
            self.pull_under_leases(params, pulling, state["artifacts"], state.get("jobs") or {}, done, task_vars)
        return done

    def check_claims(self, params, records, task_vars):
        """model_claim_check for every user-owned claim (``pvc://``: read, never changed); fails on every problem at
        once. Per slug, what each check found."""
        found, problems = {}, []
        for record in records:
            try:
                found[record["slug"]] = self.step("model_claim_check", pull_task.claim_check_args(params, record),
                                                  task_vars)
            except StepFailed as failed:
                problems.append(failed.result.get("msg"))
        if problems:
            raise StepFailed({"msg": problems})
        return found

    def pull_under_leases(self, params, records, artifacts, built, done, task_vars):
        """Claims, PVs, Jobs, the wait and the claim records of ``records`` under their namespaces' Leases."""
        holder, failed_before = None, None
        try:
            if params["lock"]:
                try:
                    holder = self.step("model_lock", pull_task.lease_args(params, records), task_vars)["holder"]
                except StepFailed as failed:
                    holder = failed.result.get("holder")
                    raise
            jobs, failures = {}, []
            for record in records:
                try:
                    jobs[record["slug"]] = self.step(
                        "model_pull_job", pull_task.job_args(params, record, artifacts[record["slug"]],
                                                             built.get(record["slug"])), task_vars)
                except StepFailed as failed:
                    failures.append(failed.result.get("msg"))
            if failures:
                raise StepFailed({"msg": "\n".join(str(msg) for msg in failures)})
            done["jobs"] = dict((slug, job.get("actions")) for slug, job in jobs.items())
            if params["wait"]:
                done["pulls"] = self.wait(params, [jobs[r["slug"]]["wait"] for r in records], task_vars)
                done["storage_results"] = pull_task.storage_results(done["storage_results"], records, artifacts,
                                                                    jobs, done["pulls"])
        except StepFailed as failed:
            failed_before = failed
            raise
        finally:
            if holder:
                try:
                    self.step("model_lock", pull_task.lease_args(params, records, holder), task_vars)
                except StepFailed as back:
                    if failed_before is None:
                        raise
                    self.notes["warnings"].append("the namespace Leases of %s were not given back (%s); they expire "
                                                  "on their own" % (holder, back.result.get("msg")))

    def wait(self, params, waits, task_vars):
        """model_pull_wait for every Job at once, each pull's progress printed meanwhile; its ``pulls``."""
        args = pull_task.wait_args(params, waits)
        watcher, targets = pull_progress.watch(args, self._play_context.check_mode)
        waited = {}
        try:
            try:
                waited = self.step("model_pull_wait", args, task_vars)
            except StepFailed as failed:
                waited = failed.result
                raise
        finally:
            if watcher is not None:
                watcher.stop()
                pull_progress.add_progress(waited, targets, watcher)
        return waited["pulls"]
