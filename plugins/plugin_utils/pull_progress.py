# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pulls' progress under a task while it waits: model_pull_wait's and model_storage_pull's actions.

A module's output reaches the play only when it returns, so a pull of tens of gigabytes would show
nothing for many minutes. While the wait runs, a thread reads the log of every
Job's pull pod every ``progress_seconds`` and prints each one's newest progress line (bytes, percent,
rate, ETA, files finished) under the task, prefixed with the model's slug, once per new line: the
wait covers all the Jobs at once (``jobs``), and every pull shows while it runs, whichever Job
finishes first. When the wait returns, each log is read once more, so a pull that finished before
the wait started (or between two reads) shows its last progress or summary line. The thread only
reads and only prints: the wait's result is the record. Without the kubernetes client or with
auth options other than a kubeconfig (host, api_key, ...), nothing is printed and the wait is unchanged.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import threading

from ansible.utils.display import Display

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_wait

try:
    from kubernetes import client as k8s_client
    from kubernetes import config as k8s_config
except ImportError:  # the module reports a missing client; this action just prints nothing
    k8s_client = k8s_config = None

display = Display()

# Options that mean "not a plain kubeconfig": the watcher stays quiet rather than guess the auth.
OTHER_AUTH = ("host", "api_key", "username", "password", "client_cert", "client_key", "ca_cert",
              "proxy", "impersonate_user")


def targets_of(args):
    """(label, namespace, job) of every Job the task waits for: its ``jobs``, or the single-Job options."""
    jobs = args.get("jobs")
    if isinstance(jobs, list):
        return [((job.get("slug") or job.get("name")), job.get("namespace"), job.get("name"))
                for job in jobs if isinstance(job, dict) and job.get("name") and job.get("namespace")]
    if args.get("name") and args.get("namespace"):
        return [(args.get("slug") or args.get("name"), args.get("namespace"), args.get("name"))]
    return []


def log_pod(pods):
    """The pod whose log tells how the pull goes: the newest one that started (a pending pod has no log yet)."""
    started = [p for p in pods if p.status and p.status.phase in ("Running", "Succeeded", "Failed")]
    if not started:
        return None
    return sorted(started, key=lambda p: p.metadata.creation_timestamp)[-1]


def pod_log_reader(args):
    """A function (namespace, job) -> the log tail of the Job's newest started pod, or None when it cannot be built."""
    if k8s_client is None or any(args.get(key) for key in OTHER_AUTH):
        return None
    kubeconfig = args.get("kubeconfig") or os.environ.get("K8S_AUTH_KUBECONFIG") or None
    if kubeconfig is not None and not isinstance(kubeconfig, str):
        return None
    try:
        api = k8s_client.CoreV1Api(k8s_config.new_client_from_config(
            config_file=kubeconfig, context=args.get("context") or os.environ.get("K8S_AUTH_CONTEXT") or None))
    except Exception as exc:  # pylint: disable=broad-except
        display.vvv("model_pull_wait: no progress display (%s)" % exc)
        return None

    def read(namespace, job):
        pod = log_pod(api.list_namespaced_pod(namespace, label_selector="job-name=%s" % job).items)
        if pod is None:
            return ""
        return api.read_namespaced_pod_log(pod.metadata.name, namespace, container=manifests.CONTAINER,
                                           tail_lines=20, _request_timeout=10)
    return read


class ProgressWatcher(threading.Thread):
    """Every ``every`` seconds, for each (label, namespace, job) of ``targets``, ``show`` the newest status line
    (pull_wait.latest_status) ``read(namespace, job)`` returns as ``label: line``, once per new line of that Job."""

    def __init__(self, targets, read, show, every):
        threading.Thread.__init__(self, name="model-pull-progress")
        self.daemon = True
        self.targets, self.read, self.show, self.every = list(targets), read, show, every
        self.finished = threading.Event()
        self.shown = dict((target, []) for target in self.targets)

    def poll(self):
        """Read every Job's log once and show what is new."""
        for target in self.targets:
            label, namespace, job = target
            try:
                line = pull_wait.latest_status(self.read(namespace, job))
            except Exception as exc:  # pylint: disable=broad-except
                display.vvv("model_pull_wait: progress of %s not read (%s)" % (label, exc))
                continue
            shown = self.shown[target]
            if line and (not shown or shown[-1] != line):
                shown.append(line)
                self.show("%s: %s" % (label, line))

    def run(self):
        while not self.finished.wait(self.every):
            self.poll()

    def stop(self):
        """Stop the thread, then read each log a last time (a pull that ended before the wait or between reads)."""
        self.finished.set()
        self.join(self.every + 15 * max(1, len(self.targets)))
        if not self.is_alive():
            self.poll()

    def last(self, target):
        shown = self.shown.get(target) or []
        return shown[-1] if shown else None


def watch(args, check_mode):
    """(watcher, targets) for the Jobs of ``args`` (model_pull_wait's arguments): the watcher started, or None when
    no log can be read (check mode, no progress interval, no Jobs, no plain kubeconfig)."""
    try:
        every = int(args.get("progress_seconds", manifests.DEFAULT_PROGRESS_SECONDS))
    except (TypeError, ValueError):
        every = 0  # the module reports the bad value
    targets = targets_of(args)
    read = pod_log_reader(args) if every > 0 and targets and not check_mode else None
    if read is None:
        return None, targets
    watcher = ProgressWatcher(targets, read, lambda line: display.display("  %s" % line), every)
    watcher.start()
    return watcher, targets


def add_progress(result, targets, watcher):
    """The last line shown per Job: ``progress`` of each entry of ``pulls`` (``jobs``), or of the result."""
    pulls = result.get("pulls")
    if isinstance(pulls, list):
        for pull, target in zip(pulls, targets):
            if isinstance(pull, dict) and watcher.last(target):
                pull["progress"] = watcher.last(target)
    elif targets and watcher.last(targets[0]):
        result["progress"] = watcher.last(targets[0])
