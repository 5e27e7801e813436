# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_pull_wait on the controller: runs the module, and meanwhile prints the pull's progress.

A module's output reaches the play only when it returns, so a pull of tens of gigabytes would show
nothing for many minutes. While the module waits, a thread of this action reads the pull pod's log
every ``progress_seconds`` and prints its newest progress line (bytes, percent, rate, ETA, files)
under the task, once per new line. The thread only reads and only prints: the module's result is
the record. Without the kubernetes client or with auth options other than a kubeconfig (host,
api_key, ...), nothing is printed and the wait is unchanged.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import threading

from ansible.plugins.action import ActionBase
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


def pod_log_reader(args):
    """A function returning the newest pull pod's log tail, or None when it cannot be built."""
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
    namespace, job = args.get("namespace"), args.get("name")

    def read():
        pods = api.list_namespaced_pod(namespace, label_selector="job-name=%s" % job).items
        running = [p for p in pods if p.status and p.status.phase == "Running"]
        if not running:
            return ""
        newest = sorted(running, key=lambda p: p.metadata.creation_timestamp)[-1]
        return api.read_namespaced_pod_log(newest.metadata.name, namespace, container=manifests.CONTAINER,
                                           tail_lines=20, _request_timeout=10)
    return read


class ProgressWatcher(threading.Thread):
    """Every ``every`` seconds, ``show`` the newest progress line ``read`` returns, once per line."""

    def __init__(self, read, show, every):
        threading.Thread.__init__(self, name="model-pull-progress")
        self.daemon = True
        self.read, self.show, self.every = read, show, every
        self.finished = threading.Event()
        self.shown = []

    def run(self):
        while not self.finished.wait(self.every):
            try:
                line = pull_wait.latest_progress(self.read())
            except Exception as exc:  # pylint: disable=broad-except
                display.vvv("model_pull_wait: progress not read (%s)" % exc)
                continue
            if line and (not self.shown or self.shown[-1] != line):
                self.shown.append(line)
                self.show(line)

    def stop(self):
        self.finished.set()
        self.join(self.every + 15)


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset()  # the module validates its own arguments

    def run(self, tmp=None, task_vars=None):
        result = super(ActionModule, self).run(tmp, task_vars)
        args = self._task.args
        every = args.get("progress_seconds", manifests.DEFAULT_PROGRESS_SECONDS)
        watcher = None
        try:
            every = int(every)
        except (TypeError, ValueError):
            every = 0  # the module reports the bad value
        read = pod_log_reader(args) if every > 0 and not self._play_context.check_mode else None
        if read is not None:
            label = args.get("slug") or args.get("name")
            watcher = ProgressWatcher(read, lambda line: display.display("  %s: %s" % (label, line)), every)
            watcher.start()
        try:
            result.update(self._execute_module(module_name="ai_platform.serving.model_pull_wait",
                                               module_args=args, task_vars=task_vars))
        finally:
            if watcher is not None:
                watcher.stop()
        if watcher is not None and watcher.shown:
            result["progress"] = watcher.shown[-1]
        return result
