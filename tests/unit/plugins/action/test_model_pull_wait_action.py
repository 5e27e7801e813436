# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The progress the model_pull_wait action prints while the module waits."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.ai_platform.serving.plugins.action import model_pull_wait as action
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_wait

LOG = """model-pull: pulling h/ai-models/m@sha256:aa (9 files, 1073741824 bytes; 5368709120 bytes free)
model-pull: progress: 310.0 MiB of 1.0 GiB (30%), 155.0 MiB/s, ETA 4s, 3 of 9 files
model-pull: progress: 620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files
some oras output
"""


def test_latest_progress_is_the_last_progress_line_without_its_prefix():
    assert pull_wait.latest_progress(LOG) == "620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files"
    assert pull_wait.latest_progress("model-pull: pulled 1.0 GiB in 5s") is None
    assert pull_wait.latest_progress("") is None and pull_wait.latest_progress(None) is None


def test_the_watcher_shows_each_new_line_once_and_survives_read_errors():
    logs = iter(["", LOG.splitlines()[1], RuntimeError("API down"), LOG.splitlines()[1], LOG])
    done = threading.Event()

    def read():
        try:
            item = next(logs)
        except StopIteration:
            done.set()
            return LOG
        if isinstance(item, Exception):
            raise item
        return item

    shown = []
    watcher = action.ProgressWatcher(read, shown.append, 0.01)
    watcher.start()
    assert done.wait(5)
    watcher.stop()
    assert not watcher.is_alive()
    assert shown == ["310.0 MiB of 1.0 GiB (30%), 155.0 MiB/s, ETA 4s, 3 of 9 files",
                     "620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files"]


def test_no_reader_without_a_plain_kubeconfig():
    assert action.pod_log_reader({"host": "https://k8s:6443", "api_key": "x", "name": "j", "namespace": "n"}) is None
    assert action.pod_log_reader({"kubeconfig": {"clusters": []}, "name": "j", "namespace": "n"}) is None
