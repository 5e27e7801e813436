#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_pull_wait
short_description: Wait for the pull Jobs of models and check the digest each reports
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Watches the ORAS pull Job of one model (O(name), O(namespace), O(digest)), or of many models at once
    (O(jobs)), as created by M(ai_platform.serving.model_pull_job), until each is Complete, has Failed, or
    O(timeout) passes. No fixed sleeps; a watch on a Job's pods returns at its first change. With O(jobs) one loop
    waits for all of them, whichever finishes first; each Job's result is returned in RV(pulls), and the task
    fails when any Job failed, naming each model that did.
  - Succeeds only when the Job is Complete and the marker its pod reported through the termination message
    names the expected manifest O(digest). The result comes from the API alone; nothing reads the volume.
  - Fails at once when the Job has Failed (its backoffLimit exhausted, or a permanent error such as rejected
    credentials), with the reason, the pod's last log lines and the recovery steps.
  - Fails when the Job is blocked for O(stuck_grace) seconds on something waiting does not heal, naming the
    model, the reason and the fix. The Job cannot create its pod (C(FailedCreate), refused at admission by
    Pod Security, a quota or a webhook); the pod is unschedulable (C(PodScheduled=False), for example the
    hostPath node is gone); image pull back-off or a container config error; the pod was evicted. A pod
    unschedulable only because its claim is not bound yet gets six times O(stuck_grace), since binding a claim
    waits for the PV controller's next pass on a busy control plane.
  - Times out with the last observed state of the Job and its pod.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  name:
    description: Name of the pull Job, the plan record's C(storage.pull_job). With O(namespace) and O(digest), unless
      O(jobs) is given.
    type: str
  namespace:
    description: Namespace of the Job, the plan record's C(namespace).
    type: str
  digest:
    description: Manifest digest the Job must report, C(sha256:...).
    type: str
  jobs:
    description:
      - The pull Jobs of many models, waited for in one loop (instead of O(name), O(namespace), O(digest), O(slug),
        O(pvc), O(pv)). M(ai_platform.serving.model_pull_job) returns each model's entry as RV(ai_platform.serving.model_pull_job#module:wait).
      - O(timeout) is the budget of the whole wait.
    type: list
    elements: dict
    version_added: 0.1.0
    suboptions:
      name:
        description: Name of the pull Job.
        type: str
        required: true
      namespace:
        description: Namespace of the Job.
        type: str
        required: true
      digest:
        description: Manifest digest the Job must report.
        type: str
        required: true
      slug:
        description: Model slug, the prefix of its progress lines; names the model in the failures and recovery steps.
        type: str
      pvc:
        description: Model claim name, used in the recovery steps.
        type: str
      pv:
        description: Model PV name (on-prem), used in the recovery steps.
        type: str
      claim_annotations:
        description:
          - The model claim's annotations as M(ai_platform.serving.model_pull_job) read them when it made sure of the
            claim (its RV(ai_platform.serving.model_pull_job#module:wait) entry carries them), so the claim is not
            read again to settle what it records. Omitted, the claim is read once the pull is done.
        type: dict
        version_added: 0.1.0
  record_claims:
    description:
      - Once a pull is done, record on its model claim what it holds (the annotations RV(pulls) returns, a merge
        patch, only when they differ from the claim's), so no other task reads or patches the claim. Each pull then
        returns RV(recorded), and the task reports a change when a claim was patched.
      - V(false) leaves the claim as it is and only returns the annotations.
    type: bool
    default: false
    version_added: 0.1.0
  timeout:
    description: Seconds to wait in all.
    type: int
    default: 1800
  stuck_grace:
    description: Seconds the Job may stay blocked (admission refusal, unschedulable pod, image pull back-off,
      container config error, eviction) before the wait fails; six times as long for a claim not yet bound.
    type: int
    default: 30
  progress_seconds:
    description:
      - While waiting, the controller reads the log of every Job's pull pod this often and prints each one's newest
        progress line (bytes, percent, rate, ETA, files finished) under the task, prefixed with the model's slug, once
        per new line, whichever Job the wait is watching; when the wait ends it reads each log once more, so a pull
        that finished before the wait started (or between two reads) shows its last progress or summary line.
        V(0) prints nothing.
      - Done by the module's action plugin, which needs the kubernetes client on the controller and reads the logs
        on kubernetes.core's client with the task's auth options (a kubeconfig, O(host) and O(api_key), ...) and the
        E(K8S_AUTH_*) environment, as the module connects; when that client cannot be built nothing is printed.
    type: int
    default: 10
    version_added: 0.1.0
  log_lines:
    description: Lines of the pod's log to return on failure.
    type: int
    default: 20
  slug:
    description: Model slug, the prefix of the progress lines and used in the recovery steps.
    type: str
  pvc:
    description: Model claim name, used in the recovery steps.
    type: str
  pv:
    description: Model PV name (on-prem), used in the recovery steps.
    type: str
requirements:
  - kubernetes >= 24.2.0
attributes:
  check_mode:
    support: full
    description: Returns at once without reading the cluster.
  diff_mode:
    support: none
    description: Nothing changes, so there is no diff.
"""

EXAMPLES = r"""
- name: Start the pulls
  ai_platform.serving.model_pull_job:
    record: "{{ item }}"
    digest: "{{ artifacts[item.slug].digest }}"
  loop: "{{ records }}"
  register: jobs

- name: Wait for all of them at once, printing each model's progress
  ai_platform.serving.model_pull_wait:
    jobs: "{{ jobs.results | map(attribute='wait') | list }}"
    timeout: 3600
  register: waited

- name: Show what each claim holds
  ansible.builtin.debug:
    msg: "{{ item.slug }}: {{ item.digest }} {{ item.size }} bytes"
  loop: "{{ waited.pulls }}"

- name: Wait for the model weights
  ai_platform.serving.model_pull_wait:
    name: "{{ record.storage.pull_job }}"
    namespace: "{{ record.namespace }}"
    digest: "{{ artifact.digest }}"
    timeout: 3600
  register: pulled

- name: Show what the claim holds
  ansible.builtin.debug:
    msg: "{{ pulled.digest }} {{ pulled.size }} bytes {{ pulled.metadata.architectures }}"
"""

RETURN = r"""
pulls:
  description:
    - With O(jobs), one entry per Job in the order of O(jobs) - its C(slug), C(name), C(namespace), C(pvc), C(pv) and
      the keys a single-Job wait returns at the top level (RV(digest), RV(size), RV(files), RV(reused),
      RV(switched), RV(pull_seconds), RV(verify_seconds), RV(fetched_bytes), RV(fetched_files), RV(reused_files),
      RV(metadata), RV(marker), RV(annotations), RV(recorded), RV(progress),
      RV(duration), RV(state), RV(observed)). A Job that failed has C(failed=true), RV(reason), RV(log_tail) and
      RV(recovery) instead of the pull's keys (the task's C(msg) holds each failed model's message, log tail and
      recovery steps); C(duration) is the seconds until this Job settled.
  returned: with O(jobs)
  type: list
  elements: dict
  version_added: 0.1.0
digest:
  description: Manifest digest the Job reported (equal to O(digest) on success).
  returned: success
  type: str
size:
  description: Bytes pulled (sum of the artifact's layers).
  returned: success
  type: int
files:
  description: The model's files (the snapshot's files, refs/main not counted), as model_sync's C(file_count) and
    the lock file count them; the pull's log lines and the claim's C(files) annotation give the same count.
  returned: success
  type: int
progress:
  description: The last line printed for the Job while waiting (by the action plugin), a progress line such as
    C(812.0 MiB of 1.0 GiB (79%), 203.0 MiB/s, ETA 1s, 8 of 9 files) (files finished of the model's files) or the
    pull's summary line (C(pulled 1.0 GiB in 5s (204.8 MiB/s); verifying)); with O(jobs), in each entry of RV(pulls).
  returned: when a progress line was printed
  type: str
  version_added: 0.1.0
pull_seconds:
  description: Seconds this Job's oras pull took (0 when it reused the verified copy); with RV(size), the pull's rate.
  returned: success
  type: int
  version_added: 0.1.0
verify_seconds:
  description: Seconds the re-hash of every file against the manifest took (0 when the copy was reused).
  returned: success
  type: int
  version_added: 0.1.0
fetched_bytes:
  description:
    - Bytes this Job fetched from the registry. An upgrade takes every file whose digest a revision kept on the
      claim already holds from there (a hard link), so only the files that changed come over the wire; the first
      pull fetches the whole artifact (RV(size)); 0 when the copy was reused or switched to.
  returned: success
  type: int
  version_added: 0.1.0
fetched_files:
  description: Model files this Job fetched from the registry (0 when the copy was reused).
  returned: success
  type: int
  version_added: 0.1.0
reused_files:
  description: Model files taken from revisions already on the claim instead of the registry (each hashed against
    the manifest before the switch); all of RV(files) when the copy was reused or switched to.
  returned: success
  type: int
  version_added: 0.1.0
reused:
  description:
    - True when the volume already held a verified copy of O(digest) (its C(.pulled) marker names it and its files
      are in place), so the Job pulled nothing; false after a pull.
  returned: success
  type: bool
  version_added: 0.1.0
switched:
  description:
    - True when O(digest) was a revision kept on the volume beside the served one (an earlier pull); the Job
      pointed the hub cache's C(refs/main) back at its snapshot, without a download or a registry call.
  returned: success
  type: bool
  version_added: 0.1.0
metadata:
  description: Facts from the model's config.json (architectures, model_type, torch_dtype, transformers_version).
  returned: success
  type: dict
marker:
  description: Every key of the marker the Job reported.
  returned: success
  type: dict
annotations:
  description: PVC annotations recording the marker (digest, size, files, pulled_at, config.json facts).
  returned: success
  type: dict
recorded:
  description: Whether the model claim was patched with RV(annotations) (O(record_claims); false when it already
    carried them).
  returned: success with O(record_claims)
  type: bool
  version_added: 0.1.0
duration:
  description: Seconds the module waited.
  returned: always
  type: float
state:
  description: Last observed state, complete, failed, stuck, running (timed out), deleted or stale. With O(jobs),
    complete when every Job is, else failed.
  returned: always
  type: str
blocked:
  description: Why a C(stuck) Job could not run its pod, C(admission), C(unschedulable), C(image), C(config) or C(eviction).
  returned: state=stuck
  type: str
observed:
  description: One-line summary of the last observed Job and pod.
  returned: without O(jobs)
  type: str
reason:
  description: Why the wait failed.
  returned: failure
  type: str
log_tail:
  description: Last lines of the failed pod's log.
  returned: failure
  type: str
recovery:
  description: What to do next.
  returned: failure
  type: list
  elements: str
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker, pull_wait
from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import PullApi, run_module

try:
    from kubernetes.dynamic.exceptions import DynamicApiError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    DynamicApiError = Exception

# One Job's options, at the top level (one model) or in each element of ``jobs`` (many).
JOB_KEYS = ("name", "namespace", "digest", "slug", "pvc", "pv")


def argspec():
    return k8s_auth_argspec(
        name=dict(type="str"),
        namespace=dict(type="str"),
        digest=dict(type="str"),
        jobs=dict(type="list", elements="dict", options=dict(
            name=dict(type="str", required=True),
            namespace=dict(type="str", required=True),
            digest=dict(type="str", required=True),
            slug=dict(type="str"),
            pvc=dict(type="str"),
            pv=dict(type="str"),
            claim_annotations=dict(type="dict"),
        )),
        record_claims=dict(type="bool", default=False),
        timeout=dict(type="int", default=1800),
        stuck_grace=dict(type="int", default=30),
        log_lines=dict(type="int", default=20),
        progress_seconds=dict(type="int", default=10),
        slug=dict(type="str"),
        pvc=dict(type="str"),
        pv=dict(type="str"),
    )


def job_list(params):
    """(the Jobs to wait for as dicts of JOB_KEYS, whether they came as ``jobs``), or raise ValueError."""
    single = [key for key in JOB_KEYS if params.get(key)]
    if params.get("jobs") is not None:
        if single:
            raise ValueError("jobs is given with %s: name the Jobs either in jobs or with name, namespace and digest"
                             % ", ".join(single))
        return [dict(((key, job.get(key)) for key in JOB_KEYS), claim_annotations=job.get("claim_annotations"))
                for job in params["jobs"]], True
    missing = [key for key in ("name", "namespace", "digest") if not params.get(key)]
    if missing:
        raise ValueError("missing %s: name the Job with name, namespace and digest, or give jobs" % ", ".join(missing))
    return [dict((key, params.get(key)) for key in JOB_KEYS)], False


def describe(job, pods):
    state = pull_wait.job_state(job)
    status = (job or {}).get("status") or {}
    counts = ", ".join("%s %s" % (status[k], k) for k in ("active", "succeeded", "failed") if status.get(k))
    line = "job %s%s" % (state, " (%s)" % counts if counts else "")
    return "%s; %s" % (line, pull_wait.pod_summary(pull_wait.newest_pod(pods)))


def claim_annotations(client, params):
    """The annotations of the model claim (``pvc``): those model_pull_job read (``claim_annotations``), else read
    now; {} when it is not named or not there."""
    if params.get("claim_annotations") is not None:
        return params["claim_annotations"]
    if not params.get("pvc"):
        return {}
    try:
        claim = client.get(client.resource("PersistentVolumeClaim", "v1"), name=params["pvc"],
                           namespace=params["namespace"])
    except Exception:  # the claim's record is an optimisation here; the pull's result stands without it
        return {}
    return dict(((claim.to_dict() if hasattr(claim, "to_dict") else dict(claim)).get("metadata") or {}).get(
        "annotations") or {})


def outcome(client, api, waiter, params, job_params, elapsed, timeout):
    """One Job's result as a dict: the pull's keys on success, ``failed``, ``msg`` and the recovery on failure."""
    state, job, pods = waiter.state, waiter.last_job, waiter.last_pods
    observed = describe(job, pods)
    where = "%s/%s" % (job_params["namespace"], job_params["name"])
    result = dict(changed=False, duration=round(elapsed, 3), state=state, observed=observed)
    if state == pull_wait.COMPLETE:
        ok, marker, message = pull_wait.pull_result(job, pods, job_params["digest"])
        if ok:
            reused = marker.get("reused") == "true"
            result.update(
                digest=marker["digest"], size=marker.get("size"), files=pull_marker.model_file_count(marker),
                reused=reused,
                switched=marker.get("switched") == "true", pull_seconds=0 if reused else marker.get("pull_seconds", 0),
                verify_seconds=0 if reused else marker.get("verify_seconds", 0),
                fetched_bytes=0 if reused else marker.get("fetched_bytes", marker.get("size")),
                fetched_files=0 if reused else marker.get("fetched_files", pull_marker.model_file_count(marker)),
                reused_files=pull_marker.model_file_count(marker) if reused else marker.get("reused_files", 0),
                msg="%s %s" % (
                    ("switched to the revision kept on the volume, nothing pulled:"
                     if marker.get("switched") == "true" else
                     "reused the verified copy on the volume, nothing pulled:") if reused else "pulled",
                    marker["digest"]),
                metadata=pull_marker.model_metadata(marker), marker=marker)
            current = claim_annotations(client, job_params)
            result["annotations"] = pull_marker.settled_annotations(pull_marker.pvc_annotations(marker), current)
            if params["record_claims"]:
                try:
                    result["recorded"] = record_claim(client, job_params, current, result["annotations"])
                except DynamicApiError as exc:  # the pull is done and verified; only its record is missing
                    return failure(api, params, job_params, result, (
                        "pull Job %s completed, but what the claim %s holds could not be recorded on it (%s): re-run "
                        "the play (the Job finishes at once from the marker and the record is written again)"
                        % (where, job_params.get("pvc"), getattr(exc, "summary", lambda: exc)())), pods)
                result["changed"] = result["recorded"]
            return result
        return failure(api, params, job_params, result, "pull Job %s completed but %s" % (where, message), pods)
    if state == pull_wait.FAILED:
        pod, detail = pull_wait.failure_detail(pods)
        reason = pull_wait.failure_reason(job)
        if detail and detail.get("reason"):
            reason = "%s; the pull reported: %s" % (reason, detail["reason"])
        return failure(api, params, job_params, result, "pull Job %s failed: %s" % (where, reason), pods, pod)
    if state == pull_wait.STUCK:
        pod = pull_wait.newest_pod(pods)
        kind, detail = waiter.blocked
        result["blocked"] = kind
        return failure(api, params, job_params, result, "%s: pull Job %s cannot run its pod (%s, for %ds): %s. Fix: %s" % (
            job_params.get("slug") or job_params["name"], where, kind,
            pull_wait.grace_for(kind, params["stuck_grace"]), detail,
            pull_wait.blocked_fix(kind, job_params["namespace"], job_params["name"])), pods,
            pod if kind in ("image", "config") else None)
    if state == pull_wait.DELETED:
        return failure(api, params, job_params, result, "pull Job %s does not exist: create it with "
                       "ai_platform.serving.model_pull_job (the model_storage role does) before waiting" % where, pods)
    if state == pull_wait.STALE:
        return failure(api, params, job_params, result, "pull Job %s pulls digest %s, not %s: re-run the model_storage "
                       "role so the Job is replaced" % (where, ((job.get("metadata") or {}).get("annotations") or {}).get(
                           pull_marker.ANNOTATION_DIGEST), job_params["digest"]), pods)
    return failure(api, params, job_params, result, "timed out after %ds waiting for pull Job %s; last seen: %s"
                   % (timeout, where, observed), pods, pull_wait.newest_pod(pods))


def record_claim(client, job_params, current, annotations):
    """Merge-patch ``annotations`` onto the model claim when any differs from ``current``; True when patched."""
    if not job_params.get("pvc") or all(current.get(key) == value for key, value in annotations.items()):
        return False
    client.patch(client.resource("PersistentVolumeClaim", "v1"), {"metadata": {"annotations": annotations}},
                 name=job_params["pvc"], namespace=job_params["namespace"],
                 content_type="application/merge-patch+json")
    return True


def failure(api, params, job_params, result, message, pods, pod=None):
    """``result`` with failed, msg (the message, the pod's last log lines, the recovery), reason, log_tail, recovery."""
    names = dict(namespace=job_params["namespace"], job=job_params["name"], slug=job_params.get("slug") or "<slug>",
                 pvc=job_params.get("pvc") or "<slug>-model", pv=job_params.get("pv"))
    steps = pull_wait.recovery_steps(names)
    log_tail = ""
    if pod is not None:
        log_tail = api.pod_log(pod["metadata"]["name"], params["log_lines"]) or ""
    text = message
    if log_tail:
        text += "\nLast log lines of pod %s:\n%s" % (pod["metadata"]["name"], log_tail.rstrip())
    text += "\nRecovery:\n" + "\n".join("  - " + step.strip() for step in steps)
    result.update(failed=True, msg=text, reason=message, log_tail=log_tail, recovery=steps)
    return result


def named(job_params, text):
    """``text`` beginning with the model's slug (or the Job's name)."""
    label = job_params.get("slug") or job_params["name"]
    return text if text.startswith(label + ": ") else "%s: %s" % (label, text)


def execute_module(module, client):
    params = module.params
    jobs, many = job_list(params)
    apis = [PullApi(client, job["namespace"], job["name"]) for job in jobs]
    waiters = [pull_wait.PullWaiter(api, job["digest"], stuck_grace=params["stuck_grace"])
               for api, job in zip(apis, jobs)]
    if many:
        took, elapsed = pull_wait.wait_all(waiters, params["timeout"])
    else:
        elapsed = waiters[0].wait(params["timeout"])[3]
        took = [elapsed]
    outcomes = [outcome(client, api, waiter, params, job, seconds, params["timeout"])
                for api, waiter, job, seconds in zip(apis, waiters, jobs, took)]
    if not many:
        single = outcomes[0]
        if single.pop("failed", False):
            module.fail_json(**single)
        module.exit_json(**single)
    failed = [named(job, result["msg"]) for job, result in zip(jobs, outcomes) if result.get("failed")]
    pulls = []
    changed = False
    for job, result in zip(jobs, outcomes):
        changed = result.pop("changed", False) or changed
        job.pop("claim_annotations", None)
        if result.get("failed"):
            result.pop("msg")   # the task's msg carries it, with the pod's log tail and the recovery steps
        pulls.append(dict(job, **result))
    result = dict(changed=changed, duration=round(elapsed, 3), pulls=pulls,
                  state=pull_wait.FAILED if failed else pull_wait.COMPLETE)
    if failed:
        module.fail_json(msg="%d of %d pulls failed:\n%s" % (len(failed), len(jobs), "\n".join(failed)), **result)
    module.exit_json(msg="; ".join(named(job, pull["msg"]) for job, pull in zip(jobs, pulls)), **result)


def before_client(module):
    """Check the Job options; in check mode return at once without reading the cluster."""
    try:
        jobs, many = job_list(module.params)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    if not module.check_mode:
        return
    if not many:
        module.exit_json(changed=False, duration=0.0, state="skipped", observed="check mode: not waited",
                         digest=module.params["digest"])
    module.exit_json(changed=False, duration=0.0, state="skipped", msg="check mode: not waited",
                     pulls=[dict(((k, v) for k, v in job.items() if k != "claim_annotations"), duration=0.0,
                                 state="skipped", observed="check mode: not waited") for job in jobs])


def main():
    run_module(argspec(), execute_module, before_client=before_client)


if __name__ == "__main__":
    main()
