# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Waiting for a model pull Job: pure predicates on Job/Pod dicts, and the watch loop.

The predicates (``job_state``, ``pull_result``, ``pod_summary``) take plain dicts
as the API returns them and are unit-tested on YAML fixtures. ``PullWaiter``
watches the Job (no fixed sleeps), reads the pod's termination message (the
marker the Job wrote) and returns or fails with what it saw.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.ai_platform.serving.plugins.module_utils.storage.manifests import CONTAINER, job_condition
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_marker import ANNOTATION_DIGEST, parse_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_script import PERMANENT_EXIT_CODE

COMPLETE = "complete"
FAILED = "failed"
RUNNING = "running"
DELETED = "deleted"
STALE = "stale"

# Pod waiting reasons that do not heal by waiting longer.
STUCK_REASONS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName", "CreateContainerConfigError",
                 "CreateContainerError")


PROGRESS_PREFIX = "model-pull: progress: "


def latest_progress(log_text):
    """The last progress line the pull pod logged (without its prefix), or None."""
    for line in reversed((log_text or "").splitlines()):
        if line.startswith(PROGRESS_PREFIX):
            return line[len(PROGRESS_PREFIX):].strip()
    return None


# The lines that end a pull's log story: oras is done ("pulled ... in Ns (rate); verifying"), the re-hash is done.
SUMMARY_PREFIXES = ("model-pull: pulled ", "model-pull: verified ")


def latest_status(log_text):
    """The last progress line (without its prefix) or pull summary line (without ``model-pull: ``), or None."""
    for line in reversed((log_text or "").splitlines()):
        if line.startswith(PROGRESS_PREFIX):
            return line[len(PROGRESS_PREFIX):].strip()
        if line.startswith(SUMMARY_PREFIXES):
            return line[len("model-pull: "):].strip()
    return None


def job_state(job, expected_digest=None):
    """``deleted`` (None), ``stale`` (the Job pulls another digest), ``complete``, ``failed`` or ``running``."""
    if not job:
        return DELETED
    annotations = (job.get("metadata") or {}).get("annotations") or {}
    if expected_digest and annotations.get(ANNOTATION_DIGEST) not in (None, expected_digest):
        return STALE
    if job_condition(job, "Complete") or job_condition(job, "SuccessCriteriaMet"):
        return COMPLETE
    if job_condition(job, "Failed") or job_condition(job, "FailureTarget"):
        return FAILED
    return RUNNING


def failure_reason(job):
    condition = job_condition(job, "Failed") or job_condition(job, "FailureTarget") or {}
    reason = condition.get("reason") or "Failed"
    message = condition.get("message") or ""
    return ("%s: %s" % (reason, message)) if message else reason


def _container_status(pod):
    for status in ((pod or {}).get("status") or {}).get("containerStatuses") or []:
        if status.get("name") == CONTAINER:
            return status
    return None


def termination(pod):
    """The pull container's terminated state (dict) or None."""
    status = _container_status(pod)
    if not status:
        return None
    return (status.get("state") or {}).get("terminated") or (status.get("lastState") or {}).get("terminated")


def pod_summary(pod):
    """One line: phase, container state and reason, node."""
    if not pod:
        return "no pod"
    meta = pod.get("metadata") or {}
    status = pod.get("status") or {}
    parts = ["pod %s %s" % (meta.get("name"), status.get("phase") or "Unknown")]
    node = (pod.get("spec") or {}).get("nodeName")
    parts.append("on %s" % node if node else "not scheduled")
    container = _container_status(pod)
    if container:
        state = container.get("state") or {}
        for kind in ("waiting", "running", "terminated"):
            if kind in state:
                detail = state[kind] or {}
                text = kind
                if detail.get("reason"):
                    text += " (%s)" % detail["reason"]
                if kind == "terminated" and detail.get("exitCode") is not None:
                    text += " exit %s" % detail["exitCode"]
                if detail.get("message") and kind == "waiting":
                    text += ": %s" % detail["message"]
                parts.append(text)
    for condition in status.get("conditions") or []:
        if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
            parts.append("unschedulable: %s" % (condition.get("message") or condition.get("reason")))
    return ", ".join(parts)


def stuck_reason(pod):
    """A waiting reason that will not heal (bad image, missing secret), or None."""
    container = _container_status(pod) or {}
    waiting = (container.get("state") or {}).get("waiting") or {}
    if waiting.get("reason") in STUCK_REASONS:
        return "%s: %s" % (waiting["reason"], waiting.get("message") or "")
    return None


BLOCKED_FIXES = {
    "admission": ("the namespace's admission refused the pod (Pod Security level, a ResourceQuota, a LimitRange or "
                  "a webhook): the pull Job passes Pod Security restricted; check kubectl describe namespace {ns} and "
                  "its quotas and limit ranges, fix the policy or the Job's resources (model_storage_job_resources), "
                  "then re-run the play"),
    "unschedulable": ("no node can run the pod: the hostPath node may be gone, cordoned or tainted, or the model's "
                      "nodes full; check kubectl get nodes and kubectl describe pod -n {ns} -l job-name={job}. If the "
                      "hostpathNode is gone for good, set modelSource.hostpathNode to a live node and start clean "
                      "with playbooks/recover.yml"),
    "claim": ("the model claim is not bound to its volume: check kubectl get pvc,pv -n {ns} and kubectl describe "
              "pvc -n {ns}; the PV may be bound to another claim, or the claim's storage class may have no "
              "provisioner. Fix the claim (or start clean with playbooks/recover.yml), then re-run the play"),
    "image": ("the ORAS image cannot be pulled: check it is in Harbor (harbor_upload carries it; aips_oras_image / "
              "aips_oras_version) and that harbor-creds in {ns} holds a valid token, then re-run the play"),
    "config": ("the pod cannot be configured (a missing Secret or volume): check harbor-creds and the claim in {ns}, "
               "then re-run the play"),
    "eviction": ("the node evicted the pull pod (disk, memory or ephemeral-storage pressure, or the pod's own "
                 "ephemeral-storage limit): free the node or raise model_storage_job_resources, then re-run the play"),
}
IMAGE_REASONS = ("ErrImagePull", "ImagePullBackOff", "InvalidImageName")
# The scheduler's words for a pod whose claim the PV controller has not bound yet. Binding a claim to
# its pre-bound PV is normally immediate but waits for the controller's next pass (15 s) on a busy
# control plane, so this kind gets a longer grace than the others (CLAIM_GRACE_FACTOR x stuck_grace).
UNBOUND_CLAIM = "unbound immediate PersistentVolumeClaims"
CLAIM_GRACE_FACTOR = 6


def _condition(pod, kind):
    for condition in ((pod or {}).get("status") or {}).get("conditions") or []:
        if condition.get("type") == kind:
            return condition
    return None


def _job_events(job, events, reason):
    uid = ((job or {}).get("metadata") or {}).get("uid")
    found = [e for e in events or [] if e.get("reason") == reason
             and (not uid or ((e.get("involvedObject") or {}).get("uid") in (None, uid)))]
    return sorted(found, key=lambda e: e.get("lastTimestamp") or e.get("eventTime") or "")


def blocked(job, pods, events=None):
    """``(kind, detail)`` of a condition that waiting will not heal, or None.

    Kinds: ``admission`` (the Job cannot create its pod: FailedCreate), ``unschedulable``
    (PodScheduled=False, e.g. the hostPath node is gone), ``claim`` (unschedulable only because its
    claim is not bound yet), ``image`` (image pull back-off),
    ``config`` (container config error) and ``eviction``. The caller applies a grace period.
    """
    live = [p for p in pods or [] if ((p.get("status") or {}).get("phase")) in ("Pending", "Running", None)]
    pod = newest_pod(pods)
    if not live:
        refused = _job_events(job, events, "FailedCreate")
        if refused:
            return "admission", "FailedCreate: %s" % (refused[-1].get("message") or "").strip()
    if pod and (pod.get("status") or {}).get("reason") == "Evicted" and not live:
        return "eviction", "Evicted: %s" % ((pod.get("status") or {}).get("message") or "").strip()
    if pod in live:
        scheduled = _condition(pod, "PodScheduled")
        if scheduled and scheduled.get("status") == "False":
            message = (scheduled.get("message") or "").strip()
            kind = "claim" if UNBOUND_CLAIM in message else "unschedulable"
            return kind, "%s: %s" % (scheduled.get("reason") or "Unschedulable", message)
        reason = stuck_reason(pod)
        if reason:
            return ("image" if reason.split(":", 1)[0] in IMAGE_REASONS else "config"), reason
    return None


def grace_for(kind, stuck_grace):
    """Seconds a ``kind`` of block may last before the wait calls it stuck."""
    return stuck_grace * CLAIM_GRACE_FACTOR if kind == "claim" else stuck_grace


def blocked_fix(kind, namespace, job):
    return BLOCKED_FIXES[kind].format(ns=namespace, job=job)


def newest_pod(pods):
    pods = [p for p in pods or [] if p]
    if not pods:
        return None
    return sorted(pods, key=lambda p: (p.get("metadata") or {}).get("creationTimestamp") or "")[-1]


def exited_ok(pod):
    """True when the pull container's current state is terminated with exit code 0.

    The kubelet reports the container's terminated state (exit code, termination message) in the same
    status update that ends it, which can come before the pod's phase turns Succeeded.
    """
    status = _container_status(pod) or {}
    terminated = (status.get("state") or {}).get("terminated") or {}
    return terminated.get("exitCode") == 0


def succeeded_pod(pods):
    """The newest pod that succeeded: phase Succeeded, or its pull container terminated with exit code 0."""
    for pod in sorted(pods or [], key=lambda p: (p.get("metadata") or {}).get("creationTimestamp") or "",
                      reverse=True):
        if ((pod.get("status") or {}).get("phase")) == "Succeeded" or exited_ok(pod):
            return pod
    return None


def own_pods(job, pods):
    """The pods the Job owns: a replaced Job's pods (same name, same job-name label) may linger."""
    uid = ((job or {}).get("metadata") or {}).get("uid")
    if not uid:
        return list(pods or [])
    return [p for p in pods or [] if any(ref.get("uid") == uid for ref in
                                         (p.get("metadata") or {}).get("ownerReferences") or [])
            or not (p.get("metadata") or {}).get("ownerReferences")]


def pod_reported(job, pods, expected_digest):
    """True once a pod of this Job succeeded and reported the expected digest in its termination message.

    That is the end of the pull (the marker is written and synced before the container exits): the
    pull container's terminated state with exit code 0 and the digest in its message is the signal,
    whatever the pod's phase says yet. The Job's Complete condition follows only when the Job
    controller has processed the pod, seconds later, and stays the record.
    """
    pod = succeeded_pod(own_pods(job, pods))
    if pod is None:
        return False
    return parse_marker((termination(pod) or {}).get("message") or "").get("digest") == expected_digest


def pull_result(job, pods, expected_digest):
    """For a complete Job: (ok, marker dict, message). ok only when the reported digest is the expected one."""
    pod = succeeded_pod(pods)
    if pod is None:
        return False, {}, ("the Job is Complete but its pods are gone, so its marker cannot be read: re-run "
                           "the play (the Job is recreated and finishes at once from the marker)")
    term = termination(pod) or {}
    marker = parse_marker(term.get("message") or "")
    digest = marker.get("digest")
    if not digest:
        return False, marker, "the pull pod reported no marker digest (termination message: %r)" % (
            (term.get("message") or "")[:200])
    if digest != expected_digest:
        return False, marker, "the pull pod reported digest %s, expected %s" % (digest, expected_digest)
    return True, marker, "the cache holds %s" % digest


def failure_detail(pods):
    """The last failed pod's reported reason (termination message), exit code and whether it was permanent."""
    failed = [p for p in pods or [] if (p.get("status") or {}).get("phase") == "Failed"]
    pod = newest_pod(failed)
    if not pod:
        return None, None
    term = termination(pod) or {}
    marker = parse_marker(term.get("message") or "")
    reason = marker.get("reason") or term.get("reason")
    return pod, dict(reason=reason, exit_code=term.get("exitCode"),
                     permanent=term.get("exitCode") == PERMANENT_EXIT_CODE)


def recovery_steps(record_like):
    """The seed's manual recovery, with this model's names, plus the playbook that does it."""
    ns = record_like["namespace"]
    job = record_like["job"]
    steps = [
        "kubectl logs -n %s job/%s" % (ns, job),
        "fix the cause (credentials in harbor-creds, the artifact in Harbor, the registry's reachability)",
        "re-run the play: a failed Job is replaced by a new one",
        "or start clean: ansible-playbook playbooks/recover.yml -e recover_model=%s -e recover_confirm=%s"
        % (record_like.get("slug", "<slug>"), record_like.get("slug", "<slug>")),
        "  (kubectl delete job %s -n %s; kubectl delete pvc %s -n %s%s; then re-run the play)"
        % (job, ns, record_like.get("pvc", "<pvc>"), ns,
           "; kubectl delete pv %s" % record_like["pv"] if record_like.get("pv") else ""),
    ]
    return steps


def clock(total, start=None):
    """Remaining seconds of a ``total`` budget on time.monotonic(), yielded until it runs out."""
    start = time.monotonic() if start is None else start
    while True:
        left = total - (time.monotonic() - start)
        if left <= 0:
            return
        yield left


STUCK = "stuck"
SETTLED = (COMPLETE, FAILED, DELETED, STALE, STUCK)
# While several Jobs are waited on in one loop, each one's watch lasts this long (a watch ends at the first event
# on that Job's pods), so every Job is looked at again within a few seconds.
TURN_SECONDS = 1


class PullWaiter(object):
    """Watch one pull Job until it completes, fails, or the timeout passes.

    ``api`` offers get_job(), list_pods(), watch_pods(timeout) and pod_log(name, lines);
    the module gives one built on kubernetes.core's client, tests a fake. The pull is complete as soon as a pod of the Job
    succeeded with the expected digest (``pod_reported``), so the wait watches the pods, where
    that shows first; the Job's own state stays the record of failures and deletions.

    ``wait(timeout)`` waits for this Job alone; ``wait_all(waiters, timeout)`` waits for many in one loop, with the
    same steps: ``begin()`` (the first read), ``check()`` (a block that outlived its grace is ``stuck``),
    ``step(seconds)`` (a bounded watch, then a read).
    """

    def __init__(self, api, expected_digest, stuck_grace=30):
        self.api = api
        self.expected = expected_digest
        self.stuck_grace = stuck_grace
        self.last_job = None
        self.last_pods = []
        self.last_events = []
        self.blocked = None
        self.state = None
        self.stuck_since = None

    def observe(self):
        self.last_job = self.api.get_job()
        self.last_pods = self.api.list_pods() if self.last_job else []
        live = [p for p in self.last_pods if ((p.get("status") or {}).get("phase")) in ("Pending", "Running", None)]
        # the Job's events tell why it has no pod (admission); read them only then
        if self.last_job and not live and hasattr(self.api, "list_events"):
            self.last_events = self.api.list_events()
        else:
            self.last_events = []
        state = job_state(self.last_job, self.expected)
        if state == RUNNING and pod_reported(self.last_job, self.last_pods, self.expected):
            return COMPLETE
        return state

    def settled(self):
        return self.state in SETTLED

    def begin(self):
        self.stuck_since = None
        self.state = self.observe()
        return self.state

    def check(self):
        """Note what blocks the Job (``blocked``); once a block outlived its grace the state is ``stuck``."""
        found = blocked(self.last_job, self.last_pods, self.last_events)
        if found:
            if not self.blocked or self.blocked[0] != found[0]:
                self.stuck_since = time.monotonic()
            self.blocked = found
            if time.monotonic() - self.stuck_since >= grace_for(found[0], self.stuck_grace):
                self.state = STUCK
        else:
            self.stuck_since = None
            self.blocked = None
        return self.state

    def watch_seconds(self):
        """How long the next watch may last: trouble (or no pod yet) is re-read every few seconds."""
        return 2 if self.stuck_since or not newest_pod(self.last_pods) else 15

    def step(self, seconds):
        """A bounded watch on the Job's pods (the next event ends it at once), then the state."""
        changed = self.api.watch_pods(seconds)
        # The event's own pod, when it is this Job's and reports the digest, ends the wait without
        # another read; anything else is read again in full.
        if isinstance(changed, dict) and own_pods(self.last_job, [changed]) \
                and pod_reported(self.last_job, [changed], self.expected):
            self.last_pods = [changed] + [p for p in self.last_pods if (p.get("metadata") or {}).get("name")
                                          != (changed.get("metadata") or {}).get("name")]
            self.state = COMPLETE
            return self.state
        self.state = self.observe()
        return self.state

    def wait(self, timeout):
        """Return (state, job, pods, elapsed)."""
        start = time.monotonic()
        self.begin()
        for left in clock(timeout, start):
            if self.settled() or self.check() == STUCK:
                break
            self.step(min(left, self.watch_seconds()))
        return self.state, self.last_job, self.last_pods, time.monotonic() - start


def wait_all(waiters, timeout):
    """Wait for every waiter's Job in one loop, whichever settles first; return (seconds each took, seconds in all).

    Each turn looks at every Job not settled yet (``check``, then a watch of at most TURN_SECONDS); once one Job is
    left, its watches last as long as ``PullWaiter.wait``'s. A Job still running when ``timeout`` passes keeps the
    state ``running``.
    """
    start = time.monotonic()
    took = [None] * len(waiters)
    for waiter in waiters:
        waiter.begin()
    for left in clock(timeout, start):
        pending = []
        for index, waiter in enumerate(waiters):
            if took[index] is not None:
                continue
            if waiter.settled() or waiter.check() == STUCK:
                took[index] = time.monotonic() - start
            else:
                pending.append(waiter)
        if not pending:
            break
        for waiter in pending:
            seconds = waiter.watch_seconds() if len(pending) == 1 else TURN_SECONDS
            waiter.step(min(left, seconds))
    elapsed = time.monotonic() - start
    return [elapsed if seconds is None else seconds for seconds in took], elapsed
