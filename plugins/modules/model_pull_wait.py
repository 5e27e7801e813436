#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_pull_wait
short_description: Wait for a model's pull Job and check the digest it reports
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Watches the ORAS pull Job of one model (created by M(ai_platform.serving.model_pull_job)) until it is
    Complete, has Failed, or O(timeout) passes. No fixed sleeps; a watch on the Job returns at its first change.
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
    description: Name of the pull Job, the plan record's C(storage.pull_job).
    type: str
    required: true
  namespace:
    description: Namespace of the Job, the plan record's C(namespace).
    type: str
    required: true
  digest:
    description: Manifest digest the Job must report, C(sha256:...).
    type: str
    required: true
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
      - While waiting, the controller reads the pull pod's log this often and prints its newest progress line
        (bytes, percent, rate, ETA, files) under the task, once per new line; V(0) prints nothing.
      - Done by the module's action plugin, which needs the kubernetes client on the controller and a kubeconfig
        (O(kubeconfig), E(K8S_AUTH_KUBECONFIG) or the default); with other auth options nothing is printed.
    type: int
    default: 10
    version_added: 0.1.0
  log_lines:
    description: Lines of the pod's log to return on failure.
    type: int
    default: 20
  slug:
    description: Model slug, used in the recovery steps.
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
digest:
  description: Manifest digest the Job reported (equal to O(digest) on success).
  returned: success
  type: str
size:
  description: Bytes pulled (sum of the artifact's layers).
  returned: success
  type: int
files:
  description: Layers (files) pulled.
  returned: success
  type: int
progress:
  description: The last progress line printed while waiting (by the action plugin), for example
    C(812.0 MiB of 1.0 GiB (79%), 203.0 MiB/s, ETA 1s, 8 of 9 files).
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
duration:
  description: Seconds the module waited.
  returned: always
  type: float
state:
  description: Last observed state, complete, failed, stuck, running (timed out), deleted or stale.
  returned: always
  type: str
blocked:
  description: Why a C(stuck) Job could not run its pod, C(admission), C(unschedulable), C(image), C(config) or C(eviction).
  returned: state=stuck
  type: str
observed:
  description: One-line summary of the last observed Job and pod.
  returned: always
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
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.cluster import PullApi, run_module


def argspec():
    return k8s_auth_argspec(
        name=dict(type="str", required=True),
        namespace=dict(type="str", required=True),
        digest=dict(type="str", required=True),
        timeout=dict(type="int", default=1800),
        stuck_grace=dict(type="int", default=30),
        log_lines=dict(type="int", default=20),
        progress_seconds=dict(type="int", default=10),
        slug=dict(type="str"),
        pvc=dict(type="str"),
        pv=dict(type="str"),
    )


def describe(job, pods):
    state = pull_wait.job_state(job)
    status = (job or {}).get("status") or {}
    counts = ", ".join("%s %s" % (status[k], k) for k in ("active", "succeeded", "failed") if status.get(k))
    line = "job %s%s" % (state, " (%s)" % counts if counts else "")
    return "%s; %s" % (line, pull_wait.pod_summary(pull_wait.newest_pod(pods)))


def claim_annotations(client, params):
    """The annotations of the model claim (``pvc``), {} when it is not named or not there."""
    if not params.get("pvc"):
        return {}
    try:
        claim = client.get(client.resource("PersistentVolumeClaim", "v1"), name=params["pvc"],
                           namespace=params["namespace"])
    except Exception:  # the claim's record is an optimisation here; the pull's result stands without it
        return {}
    return dict(((claim.to_dict() if hasattr(claim, "to_dict") else dict(claim)).get("metadata") or {}).get(
        "annotations") or {})


def execute_module(module, client):
    params = module.params
    api = PullApi(client, params["namespace"], params["name"])
    waiter = pull_wait.PullWaiter(api, params["digest"], stuck_grace=params["stuck_grace"])
    state, job, pods, elapsed = waiter.wait(params["timeout"])
    observed = describe(job, pods)
    where = "%s/%s" % (params["namespace"], params["name"])
    result = dict(changed=False, duration=round(elapsed, 3), state=state, observed=observed)
    if state == pull_wait.COMPLETE:
        ok, marker, message = pull_wait.pull_result(job, pods, params["digest"])
        if ok:
            reused = marker.get("reused") == "true"
            module.exit_json(digest=marker["digest"], size=marker.get("size"), files=marker.get("files"),
                             reused=reused, switched=marker.get("switched") == "true", pull_seconds=0 if reused else marker.get("pull_seconds", 0),
                             verify_seconds=0 if reused else marker.get("verify_seconds", 0), msg="%s %s" % (
                                 ("switched to the revision kept on the volume, nothing pulled:"
                                  if marker.get("switched") == "true" else
                                  "reused the verified copy on the volume, nothing pulled:") if reused else "pulled",
                                 marker["digest"]),
                             metadata=pull_marker.model_metadata(marker), marker=marker,
                             annotations=pull_marker.settled_annotations(pull_marker.pvc_annotations(marker),
                                                                         claim_annotations(client, params)), **result)
        fail(module, api, params, result, "pull Job %s completed but %s" % (where, message), pods)
    if state == pull_wait.FAILED:
        pod, detail = pull_wait.failure_detail(pods)
        reason = pull_wait.failure_reason(job)
        if detail and detail.get("reason"):
            reason = "%s; the pull reported: %s" % (reason, detail["reason"])
        fail(module, api, params, result, "pull Job %s failed: %s" % (where, reason), pods, pod)
    if state == "stuck":
        pod = pull_wait.newest_pod(pods)
        kind, detail = waiter.blocked
        result["blocked"] = kind
        fail(module, api, params, result, "%s: pull Job %s cannot run its pod (%s, for %ds): %s. Fix: %s" % (
            params.get("slug") or params["name"], where, kind, pull_wait.grace_for(kind, params["stuck_grace"]), detail,
            pull_wait.blocked_fix(kind, params["namespace"], params["name"])), pods,
            pod if kind in ("image", "config") else None)
    if state == pull_wait.DELETED:
        fail(module, api, params, result, "pull Job %s does not exist: create it with "
             "ai_platform.serving.model_pull_job (the model_storage role does) before waiting" % where, pods)
    if state == pull_wait.STALE:
        fail(module, api, params, result, "pull Job %s pulls digest %s, not %s: re-run the model_storage role so "
             "the Job is replaced" % (where, ((job.get("metadata") or {}).get("annotations") or {}).get(
                 pull_marker.ANNOTATION_DIGEST), params["digest"]), pods)
    fail(module, api, params, result, "timed out after %ds waiting for pull Job %s; last seen: %s"
         % (params["timeout"], where, observed), pods, pull_wait.newest_pod(pods))


def fail(module, api, params, result, message, pods, pod=None):
    names = dict(namespace=params["namespace"], job=params["name"], slug=params.get("slug") or "<slug>",
                 pvc=params.get("pvc") or "<slug>-model", pv=params.get("pv"))
    steps = pull_wait.recovery_steps(names)
    log_tail = ""
    if pod is not None:
        log_tail = api.pod_log(pod["metadata"]["name"], params["log_lines"]) or ""
    text = message
    if log_tail:
        text += "\nLast log lines of pod %s:\n%s" % (pod["metadata"]["name"], log_tail.rstrip())
    text += "\nRecovery:\n" + "\n".join("  - " + step.strip() for step in steps)
    module.fail_json(msg=text, reason=message, log_tail=log_tail, recovery=steps, **result)


def skip_in_check_mode(module):
    if module.check_mode:
        module.exit_json(changed=False, duration=0.0, state="skipped", observed="check mode: not waited",
                         digest=module.params["digest"])


def main():
    run_module(argspec(), execute_module, before_client=skip_in_check_mode)


if __name__ == "__main__":
    main()
