# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_pull_wait's entry point on recorded Jobs: one Job as before, many Jobs in one wait, each model's result."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import json

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner as cluster
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import ForbiddenError

from ansible_collections.ai_platform.serving.plugins.modules import model_pull_wait
from ansible_collections.ai_platform.serving.tests.support.module_main import run_main

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "storage", "fixtures", "pull_wait")
DIGEST = "sha256:" + "a" * 64


def load(name):
    with open(os.path.join(FIXTURES, name + ".yml")) as handle:
        return yaml.safe_load(handle)


class Api(object):
    """The recorded Job and pods of one fixture, the same at every read."""

    def __init__(self, case):
        self.case = case

    def get_job(self):
        return self.case["job"]

    def list_pods(self):
        return self.case["pods"]

    def list_events(self):
        return []

    def watch_pods(self, timeout):
        return None

    def pod_log(self, name, lines=20):
        return "model-pull: FAILED: oras pull: unauthorized\n"


class Client(object):
    """No claim to read; records the claim patches."""

    def __init__(self):
        self.patches = []

    def get(self, *args, **kwargs):
        raise RuntimeError("no claim in these tests")

    def patch(self, resource, body, name=None, namespace=None, content_type=None):
        self.patches.append((resource, namespace, name, body, content_type))

    def resource(self, kind, api_version):
        return kind


class PatchRefused(Client):
    """The API server refuses the claim patch (a webhook, RBAC, the claim gone)."""

    def patch(self, resource, body, name=None, namespace=None, content_type=None):
        raise ForbiddenError(ApiException(status=403, reason="Forbidden"))


class ReadsRefused(Client):
    def get(self, *args, **kwargs):
        raise AssertionError("the claim was read again: model_pull_job's annotations were given")


@pytest.fixture
def client():
    return Client()


@pytest.fixture
def cases(monkeypatch, client):
    """namespace -> fixture name of the Job waited for there."""
    chosen = {}
    monkeypatch.setattr(cluster, "get_api_client", lambda module: client)
    monkeypatch.setattr(model_pull_wait, "PullApi", lambda client, namespace, name: Api(load(chosen[namespace])))
    return chosen


def run(capsys, check_mode=False, **args):
    return run_main(model_pull_wait.main, capsys, args, check_mode)


def job(slug):
    return dict(name="%s-model-pull" % slug, namespace="llm-d-%s" % slug, digest=DIGEST, slug=slug,
                pvc="%s-model" % slug, pv="%s-model-pv" % slug)


def test_a_single_job_returns_its_result_at_the_top_level_as_before(capsys, cases):
    cases["llm-d-a"] = "complete"
    out = run(capsys, name="a-model-pull", namespace="llm-d-a", digest=DIGEST, slug="a", timeout=5)
    assert not out.get("failed"), out
    # the MiniLM artifact: 13 model files (model_sync's file_count), 14 layers with refs/main (the marker's files=)
    assert out["digest"] == DIGEST and out["size"] == 91618941 and out["files"] == 13 and out["reused"] is False
    assert out["pull_seconds"] == 3 and out["verify_seconds"] == 1 and out["state"] == "complete"
    # a marker without the transfer figures (written before they were): the whole artifact came over the wire
    assert (out["fetched_bytes"], out["fetched_files"], out["reused_files"]) == (91618941, 13, 0)
    assert out["metadata"]["architectures"] == ["BertModel"] and "pulls" not in out


def test_many_jobs_in_one_wait_return_each_models_result_in_order(capsys, cases):
    cases.update({"llm-d-a": "complete", "llm-d-b": "complete"})
    out = run(capsys, jobs=[job("a"), job("b")], timeout=5)
    assert not out.get("failed") and out["state"] == "complete", out
    assert [p["slug"] for p in out["pulls"]] == ["a", "b"]
    for pull in out["pulls"]:
        assert pull["digest"] == DIGEST and pull["size"] == 91618941 and pull["files"] == 13
        assert pull["annotations"]["ai-platform.serving/files"] == "13"
        assert pull["reused"] is False and pull["pull_seconds"] == 3 and pull["verify_seconds"] == 1
        assert pull["annotations"]["ai-platform.serving/digest"] == DIGEST
        assert pull["pvc"] == "%s-model" % pull["slug"] and pull["namespace"] == "llm-d-%s" % pull["slug"]
        assert "changed" not in pull and pull["duration"] >= 0


@pytest.mark.parametrize("client", [ReadsRefused()])
def test_the_claim_is_recorded_from_the_annotations_model_pull_job_read_and_only_when_they_differ(
        capsys, cases, client):
    cases.update({"llm-d-a": "complete", "llm-d-b": "complete"})
    out = run(capsys, jobs=[dict(job("a"), claim_annotations={}), dict(job("b"), claim_annotations={})],
              record_claims=True, timeout=5)
    assert out["changed"] and [p["recorded"] for p in out["pulls"]] == [True, True], out
    assert [(p[1], p[2], p[4]) for p in client.patches] == [
        ("llm-d-a", "a-model", "application/merge-patch+json"), ("llm-d-b", "b-model", "application/merge-patch+json")]
    assert client.patches[0][3] == {"metadata": {"annotations": out["pulls"][0]["annotations"]}}
    assert "claim_annotations" not in out["pulls"][0]
    # a claim that already records this pull is not patched, and the task reports no change
    held = out["pulls"][0]["annotations"]
    del client.patches[:]
    out = run(capsys, jobs=[dict(job("a"), claim_annotations=held)], record_claims=True, timeout=5)
    assert not out["changed"] and out["pulls"][0]["recorded"] is False and client.patches == []
    # without record_claims nothing is patched: the annotations are only returned
    out = run(capsys, jobs=[dict(job("a"), claim_annotations={})], timeout=5)
    assert "recorded" not in out["pulls"][0] and client.patches == [] and out["pulls"][0]["annotations"]


def test_a_failed_job_among_many_fails_the_task_naming_the_model_and_keeps_the_others(capsys, cases):
    failed = load("failed")
    cases.update({"llm-d-a": "complete", failed["job"]["metadata"]["namespace"]: "failed"})
    other = dict(job("b"), namespace=failed["job"]["metadata"]["namespace"], digest=failed["expected_digest"])
    out = run(capsys, jobs=[job("a"), other], timeout=5)
    assert out["failed"] and out["state"] == "failed", out
    assert out["msg"].startswith("1 of 2 pulls failed:\nb: pull Job %s/b-model-pull failed: PodFailurePolicy"
                                 % other["namespace"]), out["msg"]
    assert "Recovery:" in out["msg"] and "recover_model=b" in out["msg"]
    done, broken = out["pulls"]
    assert done["digest"] == DIGEST and not done.get("failed")
    assert broken["failed"] and broken["reason"].startswith("pull Job") and broken["recovery"]
    assert "msg" not in broken and out["msg"].count("Recovery:") == 1     # the message once, in the task's msg
    assert "unauthorized" in broken["log_tail"]


def test_check_mode_reads_nothing_and_names_every_job(capsys, cases):
    out = run(capsys, check_mode=True, jobs=[job("a"), job("b")])
    assert out["state"] == "skipped" and [p["slug"] for p in out["pulls"]] == ["a", "b"]
    assert all(p["digest"] == DIGEST and p["state"] == "skipped" for p in out["pulls"])
    out = run(capsys, check_mode=True, name="a-model-pull", namespace="llm-d-a", digest=DIGEST)
    assert out["state"] == "skipped" and out["digest"] == DIGEST and "pulls" not in out


@pytest.mark.parametrize("args, text", [
    (dict(jobs=[job("a")], name="a-model-pull"), "jobs is given with name"),
    (dict(name="a-model-pull", namespace="llm-d-a"), "missing digest"),
    (dict(), "missing name, namespace, digest"),
])
def test_the_jobs_are_named_one_way_or_the_other(capsys, cases, args, text):
    out = run(capsys, **args)
    assert out["failed"] and text in out["msg"], out


@pytest.mark.parametrize("client", [PatchRefused()])
def test_a_claim_record_the_api_refuses_fails_that_pull_naming_the_claim_and_the_fix(capsys, cases, client):
    cases.update({"llm-d-a": "complete", "llm-d-b": "complete"})
    out = run(capsys, jobs=[dict(job("a"), claim_annotations={}), dict(job("b"), claim_annotations={})],
              record_claims=True, timeout=5)
    assert out["failed"] and out["msg"].startswith("2 of 2 pulls failed:"), out
    assert "what the claim a-model holds could not be recorded on it" in out["msg"] and "re-run the play" in out["msg"]
    assert [p["state"] for p in out["pulls"]] == ["complete", "complete"]  # the pulls themselves are done
    assert "Traceback" not in json.dumps(out)
