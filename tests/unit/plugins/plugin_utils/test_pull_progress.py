# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/pull_progress.py: the progress the model_pull_wait and model_storage_pull actions print while the pulls run."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import threading

from ansible_collections.ai_platform.serving.plugins.plugin_utils import pull_progress as action
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


def test_latest_status_is_the_last_progress_or_summary_line():
    pulled = LOG + "model-pull: pulled 1.0 GiB in 7s (146.3 MiB/s); verifying\n"
    assert pull_wait.latest_status(LOG) == "620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files"
    assert pull_wait.latest_status(pulled) == "pulled 1.0 GiB in 7s (146.3 MiB/s); verifying"
    assert pull_wait.latest_status(pulled + "model-pull: verified 9 files, 1073741824 bytes in 2s\n") == (
        "verified 9 files, 1073741824 bytes in 2s")
    assert pull_wait.latest_status("model-pull: marker holds sha256:aa: the cache is current, nothing to pull") is None
    assert pull_wait.latest_status(None) is None


def test_the_watcher_shows_each_new_line_once_and_survives_read_errors():
    logs = iter(["", LOG.splitlines()[1], RuntimeError("API down"), LOG.splitlines()[1], LOG])
    done = threading.Event()

    def read(namespace, job):
        assert (namespace, job) == ("llm-d-m", "m-model-pull")
        try:
            item = next(logs)
        except StopIteration:
            done.set()
            return LOG
        if isinstance(item, Exception):
            raise item
        return item

    shown = []
    watcher = action.ProgressWatcher([("m", "llm-d-m", "m-model-pull")], read, shown.append, 0.01)
    watcher.start()
    assert done.wait(5)
    watcher.stop()
    assert not watcher.is_alive()
    assert shown == ["m: 310.0 MiB of 1.0 GiB (30%), 155.0 MiB/s, ETA 4s, 3 of 9 files",
                     "m: 620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files"]


def test_every_job_shows_its_own_lines_while_the_others_run():
    """Two pulls at once: each read of the watcher reads both logs, whichever Job the module watches."""
    lines = {"a": ["model-pull: progress: %d MiB of 90 MiB, 1 of 14 files" % n for n in (10, 20, 30)],
             "b": ["model-pull: progress: %d MiB of 90 MiB, 2 of 14 files" % n for n in (5, 15)]}
    reads = {"a": 0, "b": 0}

    def read(namespace, job):
        slug = job.split("-")[0]
        reads[slug] += 1
        return "\n".join(lines[slug][:reads[slug]])

    shown = []
    watcher = action.ProgressWatcher([("a", "llm-d-a", "a-model-pull"), ("b", "llm-d-b", "b-model-pull")], read,
                                     shown.append, 60)
    for _turn in range(3):
        watcher.poll()
    assert shown == ["a: 10 MiB of 90 MiB, 1 of 14 files", "b: 5 MiB of 90 MiB, 2 of 14 files",
                     "a: 20 MiB of 90 MiB, 1 of 14 files", "b: 15 MiB of 90 MiB, 2 of 14 files",
                     "a: 30 MiB of 90 MiB, 1 of 14 files"]
    assert watcher.last(("b", "llm-d-b", "b-model-pull")) == "15 MiB of 90 MiB, 2 of 14 files"


def test_a_pull_that_ended_before_the_wait_shows_its_last_line_when_the_wait_ends():
    ended = LOG + "model-pull: pulled 1.0 GiB in 7s (146.3 MiB/s); verifying\n"
    shown = []
    watcher = action.ProgressWatcher([("m", "llm-d-m", "m-model-pull")], lambda namespace, job: ended, shown.append,
                                     60)
    watcher.start()
    watcher.stop()          # the module returned before the first interval
    assert shown == ["m: pulled 1.0 GiB in 7s (146.3 MiB/s); verifying"]


def test_targets_are_the_jobs_or_the_single_job_and_progress_goes_to_each_pull():
    jobs = [dict(name="a-model-pull", namespace="llm-d-a", slug="a"), dict(name="b-model-pull", namespace="llm-d-b")]
    assert action.targets_of({"jobs": jobs}) == [("a", "llm-d-a", "a-model-pull"),
                                                 ("b-model-pull", "llm-d-b", "b-model-pull")]
    assert action.targets_of({"name": "m-model-pull", "namespace": "llm-d-m", "slug": "m"}) == [
        ("m", "llm-d-m", "m-model-pull")]
    assert action.targets_of({}) == []
    watcher = action.ProgressWatcher(action.targets_of({"jobs": jobs}), None, None, 1)
    watcher.shown[("a", "llm-d-a", "a-model-pull")] = ["one", "two"]
    result = {"pulls": [{"slug": "a"}, {"slug": None}]}
    action.add_progress(result, watcher.targets, watcher)
    assert result["pulls"] == [{"slug": "a", "progress": "two"}, {"slug": None}]
    single = {}
    action.add_progress(single, watcher.targets, watcher)
    assert single == {"progress": "two"}     # a single-Job wait: its one Job


def test_no_reader_without_a_plain_kubeconfig():
    assert action.pod_log_reader({"host": "https://k8s:6443", "api_key": "x", "name": "j", "namespace": "n"}) is None
    assert action.pod_log_reader({"kubeconfig": {"clusters": []}, "name": "j", "namespace": "n"}) is None
