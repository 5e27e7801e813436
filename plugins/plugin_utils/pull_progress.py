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
reads and only prints: the wait's result is the record.

The logs are read on kubernetes.core's client, built as the collection's modules build theirs
(``module_utils/k8s/runner.py``): ``get_api_client`` with the task's options of kubernetes.core's
AUTH_ARG_SPEC (a kubeconfig, its context, host and token, user and password, client certificates, proxy,
impersonation, ...) and the K8S_AUTH_* environment as kubernetes.core reads it; the pods are listed and
their logs read through its API client. Without the kubernetes client, or when the client cannot be built
(``-vvv`` tells why, without the task's secrets), nothing is printed and the wait is unchanged.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import threading

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.utils.display import Display

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_wait
from ansible_collections.kubernetes.core.plugins.module_utils import args_common as k8s_args
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client

try:
    from kubernetes.client import CoreV1Api
except ImportError:  # the module reports a missing client; this action just prints nothing
    CoreV1Api = None

display = Display()


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


def auth_options(args):
    """(options, secrets): the task's options of kubernetes.core's AUTH_ARG_SPEC (aliases included) checked and
    converted as a module would (None when they do not pass: the module reports them), and the values never to be
    printed, theirs (no_log options, a kubeconfig's credentials) and those of the K8S_AUTH_* environment."""
    spec = k8s_args.AUTH_ARG_SPEC
    names = set(spec)
    for option in spec.values():
        names.update(option.get("aliases") or ())
    given = dict((key, value) for key, value in args.items() if key in names and value is not None)
    result = ArgumentSpecValidator(spec).validate(given)
    secrets = set(str(value) for value in result._no_log_values if value)  # pylint: disable=protected-access
    for name, option in spec.items():
        if option.get("no_log"):
            secrets.add(os.environ.get("K8S_AUTH_%s" % name.upper()))
        for sub, suboption in (option.get("options") or {}).items():
            if suboption.get("no_log"):
                secrets.add(os.environ.get("K8S_AUTH_%s_%s" % (name.upper(), sub.upper())))
    kubeconfig = given.get("kubeconfig")
    sensitive = getattr(k8s_args, "extract_sensitive_values_from_kubeconfig", None)  # kubernetes.core >= 6.3
    if isinstance(kubeconfig, dict) and sensitive is not None:
        secrets.update(sensitive(kubeconfig))
    secrets.discard(None)
    secrets.discard("")
    if result.error_messages:
        return None, secrets
    return dict((key, value) for key, value in result.validated_parameters.items() if key in spec), secrets


def pod_log_reader(args):
    """A function (namespace, job) -> the log tail of the Job's newest started pod, or None when it cannot be built.

    The client is kubernetes.core's (``get_api_client``, which reads the cluster's API discovery, or its cache, as
    it does for every module) with the task's auth options; the function's ``api`` is the CoreV1Api it reads with.
    """
    if CoreV1Api is None:
        return None
    options, secrets = auth_options(args)

    def told(exc):
        return remove_values(str(exc), secrets)

    if options is None:
        display.vvv("model_pull_wait: no progress display (the auth options do not pass; the module says why)")
        return None
    try:
        api = CoreV1Api(get_api_client(**options).client.client)
    except Exception as exc:  # pylint: disable=broad-except
        display.vvv("model_pull_wait: no progress display (%s)" % told(exc))
        return None

    def read(namespace, job):
        try:
            pod = log_pod(api.list_namespaced_pod(namespace, label_selector="job-name=%s" % job).items)
            if pod is None:
                return ""
            return api.read_namespaced_pod_log(pod.metadata.name, namespace, container=manifests.CONTAINER,
                                               tail_lines=20, _request_timeout=10)
        except Exception as exc:  # pylint: disable=broad-except
            raise ProgressReadError(told(exc)) from None  # its cause may carry a secret
    read.api = api
    return read


class ProgressReadError(Exception):
    """A log read failed; the message carries none of the task's secrets."""


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
    no log can be read (check mode, no progress interval, no Jobs, no client)."""
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
