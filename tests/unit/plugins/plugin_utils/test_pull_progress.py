# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""plugin_utils/pull_progress.py: the progress the model_pull_wait and model_storage_pull actions print while the pulls run."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import kubernetes.client
import pytest

from ansible_collections.ai_platform.serving.plugins.plugin_utils import pull_progress as action
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_wait
from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as k8s_core_client

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


KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- {name: lab, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}
- {name: other, cluster: {server: "https://127.0.0.1:2"}}
users:
- {name: admin, user: {token: kubeconfig-token}}
contexts:
- {name: lab, context: {cluster: lab, user: admin}}
- {name: other, context: {cluster: other, user: admin}}
current-context: lab
"""


@pytest.fixture
def fresh_client(monkeypatch, tmp_path):
    """kubernetes.core's client as a module run builds it, but with no client pooled from an earlier test, its API
    discovery cached under tmp_path, the kubernetes client's default configuration restored afterwards and no
    K8S_AUTH_* variable of the environment."""
    monkeypatch.setattr(k8s_core_client, "_pool", {})
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(kubernetes.client.Configuration, "_default", None)
    for name in list(os.environ):
        if name.startswith("K8S_AUTH_"):
            monkeypatch.delenv(name)


class NoDiscovery(object):
    """In place of kubernetes.core's LazyDiscoverer: what the client would ask the API server first, not asked."""

    def __init__(self, client, cache_file):
        self.client, self.cache_file = client, cache_file


def test_the_reader_is_built_from_a_kubeconfig_without_contacting_the_cluster(fresh_client, monkeypatch, tmp_path):
    """get_api_client reads the API discovery when it builds a client (the modules' runs cache it): without it,
    building only reads the kubeconfig (127.0.0.1:1 refuses every connection)."""
    monkeypatch.setattr(k8s_core_client, "LazyDiscoverer", NoDiscovery)
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(KUBECONFIG)
    read = action.pod_log_reader({"kubeconfig": str(kubeconfig), "name": "j", "namespace": "n"})
    configuration = read.api.api_client.configuration
    assert configuration.host == "https://127.0.0.1:1"
    assert list(configuration.api_key.values()) == ["Bearer kubeconfig-token"]
    other = action.pod_log_reader({"kubeconfig": str(kubeconfig), "context": "other"})
    assert other.api.api_client.configuration.host == "https://127.0.0.1:2"
    monkeypatch.setenv("K8S_AUTH_KUBECONFIG", str(kubeconfig))     # as kubernetes.core reads it
    monkeypatch.setenv("K8S_AUTH_CONTEXT", "other")
    assert action.pod_log_reader({"name": "j"}).api.api_client.configuration.host == "https://127.0.0.1:2"


POD = {"metadata": {"name": "m-model-pull-x", "creationTimestamp": "2026-01-01T00:00:00Z"},
       "status": {"phase": "Running"}}


class FakeApiServer(object):
    """A plain HTTP API server on 127.0.0.1: the discovery, one Job's pod list and its log; it records each request."""

    def __init__(self):
        self.requests = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # pylint: disable=invalid-name
                outer.requests.append((self.path, self.headers.get("Authorization")))
                path = self.path.split("?")[0]
                answers = {
                    "/version": {"major": "1", "minor": "33", "gitVersion": "v1.33.0"},
                    "/api": {"kind": "APIVersions", "versions": ["v1"]},
                    "/apis": {"kind": "APIGroupList", "apiVersion": "v1", "groups": []},
                    "/api/v1/namespaces/llm-d-m/pods": {"kind": "PodList", "apiVersion": "v1", "metadata": {},
                                                        "items": [POD]},
                }
                if path == "/api/v1/namespaces/llm-d-m/pods/m-model-pull-x/log":
                    body, kind = LOG.encode(), "text/plain"
                elif path in answers:
                    body, kind = json.dumps(answers[path]).encode(), "application/json"
                else:
                    self.send_response(404)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = HTTPServer(("127.0.0.1", 0), Handler)
        self.host = "http://127.0.0.1:%d" % self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_the_reader_reads_with_host_and_token_options(fresh_client):
    """host + api_key (before: nothing shown): the pods and the log are read with the task's token."""
    with FakeApiServer() as server:
        read = action.pod_log_reader({"host": server.host, "api_key": "task-token", "validate_certs": "no",
                                      "jobs": [{"name": "m-model-pull", "namespace": "llm-d-m", "slug": "m"}]})
        assert read("llm-d-m", "m-model-pull") == LOG
        assert pull_wait.latest_status(read("llm-d-m", "m-model-pull")) == (
            "620.0 MiB of 1.0 GiB (60%), 155.0 MiB/s, ETA 2s, 6 of 9 files")
    paths = [path for path, _auth in server.requests]
    assert "/api/v1/namespaces/llm-d-m/pods?labelSelector=job-name%3Dm-model-pull" in paths
    assert any(path.startswith("/api/v1/namespaces/llm-d-m/pods/m-model-pull-x/log?") and "container=oras-pull" in path
               and "tailLines=20" in path for path in paths)
    assert set(auth for _path, auth in server.requests) == {"Bearer task-token"}
    assert read.api.api_client.configuration.verify_ssl is False


def test_a_failing_build_gives_none_and_tells_no_secret(fresh_client, monkeypatch, tmp_path):
    told = []
    monkeypatch.setattr(action.display, "vvv", lambda msg, *args, **kwargs: told.append(msg))
    assert action.pod_log_reader({"kubeconfig": str(tmp_path / "missing")}) is None
    assert action.pod_log_reader({"kubeconfig": {"clusters": []}, "name": "j", "namespace": "n"}) is None
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(KUBECONFIG)
    assert action.pod_log_reader({"kubeconfig": str(kubeconfig)}) is None       # 127.0.0.1:1 refuses the discovery
    assert action.pod_log_reader({"host": "https://127.0.0.1:1", "validate_certs": "maybe"}) is None  # the module says
    assert len(told) == 4 and all(msg.startswith("model_pull_wait: no progress display (") for msg in told)

    def failing(**options):
        raise RuntimeError("refused %s and %s" % (options["api_key"], os.environ["K8S_AUTH_PASSWORD"]))

    monkeypatch.setattr(action, "get_api_client", failing)
    monkeypatch.setenv("K8S_AUTH_PASSWORD", "env-password")
    assert action.pod_log_reader({"host": "https://k8s:6443", "api_key": "task-token"}) is None
    assert "task-token" not in told[-1] and "env-password" not in told[-1] and "refused" in told[-1]


def test_a_failing_read_tells_no_secret(fresh_client, monkeypatch):
    monkeypatch.setattr(k8s_core_client, "LazyDiscoverer", NoDiscovery)
    read = action.pod_log_reader({"host": "https://127.0.0.1:1", "api_key": "task-token"})

    def leaky(*args, **kwargs):
        raise RuntimeError("401 for Bearer task-token")

    monkeypatch.setattr(read.api, "list_namespaced_pod", leaky)
    with pytest.raises(action.ProgressReadError) as failed:
        read("n", "j")
    assert "task-token" not in str(failed.value) and "401" in str(failed.value)
