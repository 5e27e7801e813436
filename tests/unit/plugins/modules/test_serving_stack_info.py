# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack_info's one read, on a recording fake client and a canned helm (no cluster): which claims it reads
(issue 28: none when every Harbor model's model_storage result carries its claim's annotations)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest
from kubernetes.client.rest import ApiException

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat, render, state
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.plugins.modules import serving_stack_info
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.unit.plugins.module_utils.stack.test_values_stack_spec import (
    GPU, records, spec)

EMB = "all-minilm-l6-v2-rke2"
SERVED = "sha256:" + "3" * 64
CHARTS = {"infra": {"ref": "oci://h/charts/llm-d-infra", "version": "v1.3.0"},
          "gaie": {"ref": "oci://r/inferencepool", "version": "v1.2.0"},
          "modelservice": {"ref": "oci://h/charts/llm-d-modelservice", "version": "v0.4.12"}}


class Done(Exception):
    pass


class FakeModule(object):
    """The AnsibleK8SModule surface execute_module uses; helm answers ``version`` (Helm 3) and ``list`` (none)."""

    check_mode = False

    def __init__(self, params):
        self.params = params
        self.helm_calls = []
        self.result = None

    def run_command(self, argv):
        self.helm_calls.append(argv[1:])
        return (0, "v3.19.0+g3d8990f", "") if argv[1] == "version" else (0, "[]", "")

    def exit_json(self, **result):
        self.result = result
        raise Done()

    def fail_json(self, **result):
        self.result = dict(result, failed=True)
        raise Done()


class Kind(object):
    def __init__(self, kind):
        self.kind = kind


class RecordingClient(object):
    """Every get, as ``(kind, name or "list")``; lists return ``lists[kind]``, a named get NotFound."""

    def __init__(self, lists=None):
        self.lists = lists or {}
        self.calls = []

    def resource(self, kind, api_version):
        return Kind(kind)

    def get(self, resource, name=None, namespace=None, label_selector=None):
        self.calls.append((resource.kind, name or "list"))
        if name is None:
            return {"items": list(self.lists.get(resource.kind, []))}
        raise serving_stack_info.NotFoundError(ApiException(status=404, reason="Not Found"))


@pytest.fixture(scope="module")
def recs():
    return records(toleration=GPU)


def annotations(record):
    """A claim's annotations after a third pull: the served digest and three revisions kept."""
    oci = record["storage"]["oci"]
    revisions = [{"digest": "sha256:" + str(n) * 64, "pulled_at": "2026-01-0%dT00:00:00Z" % n} for n in (1, 2, 3)]
    return {sv.PULLED_DIGEST_ANNOTATION: SERVED,
            "ai-platform.serving/reference": "%s/%s@%s" % (oci["registry"], oci["repository"], SERVED),
            pull_marker.ANNOTATION_REVISIONS: json.dumps(revisions)}


def run(recs, client, storage_results):
    params = dict((key, value.get("default")) for key, value in serving_stack_info.argspec().items())
    params.update(records=[recs[slug] for slug in sorted(recs)], charts=CHARTS, storage_results=storage_results,
                  specs=dict((slug, spec(rec)) for slug, rec in recs.items()))
    module = FakeModule(params)
    with pytest.raises(Done):
        serving_stack_info.execute_module(module, client)
    assert not module.result.get("failed"), module.result
    return module.result


def claim_calls(client):
    return [call for call in client.calls if call[0] == "PersistentVolumeClaim"]


def test_no_claim_is_read_when_every_harbor_result_carries_its_claims_annotations(recs):
    client = RecordingClient()
    result = run(recs, client, {EMB: {"digest": SERVED, "claim_annotations": annotations(recs[EMB])}})
    assert claim_calls(client) == []
    assert [call[0] for call in client.calls if call[1] == "list"] == ["ConfigMap"]   # the release digests only
    # the prune is still decided, on the result's annotations (three revisions, keep 1)
    assert [r["slug"] for r in result["prune"]] == [EMB] and result["problems"] == []


def test_without_claim_annotations_the_claims_are_listed_once_and_a_missing_one_read(recs):
    rec = recs[EMB]
    client = RecordingClient()
    result = run(recs, client, {EMB: {"digest": SERVED}})
    assert claim_calls(client) == [("PersistentVolumeClaim", "list"), ("PersistentVolumeClaim", rec["storage"]["pvc"])]
    assert result["prune"] == []                       # no claim found: nothing known to prune
    listed = {"metadata": {"name": rec["storage"]["pvc"], "namespace": rec["namespace"],
                           "annotations": annotations(rec)}}
    client = RecordingClient({"PersistentVolumeClaim": [listed]})
    result = run(recs, client, {EMB: {"digest": SERVED}})
    assert claim_calls(client) == [("PersistentVolumeClaim", "list")]
    assert [r["slug"] for r in result["prune"]] == [EMB]


def test_the_result_hands_on_the_helm_probe_and_what_the_render_reads_of_each_record(recs):
    """issue 28: serving_stack_render takes RV helm (with the post-renderer form) and the render items as they are."""
    script = os.path.join(ROOT, "roles", "serving_stack", "files", "gateway_placement.py")
    plugins = os.path.join(ROOT, "roles", "serving_stack", "files", "helm4-plugins")
    params = dict((key, value.get("default")) for key, value in serving_stack_info.argspec().items())
    params.update(records=[recs[slug] for slug in sorted(recs)], charts=CHARTS, post_renderer=script,
                  post_renderer_plugins=plugins, specs=dict((slug, spec(rec)) for slug, rec in recs.items()))
    module = FakeModule(params)
    with pytest.raises(Done):
        serving_stack_info.execute_module(module, RecordingClient())
    result = module.result
    assert [call[0] for call in module.helm_calls].count("version") == 1
    assert result["helm"] == dict(version="v3.19.0+g3d8990f", major=3, list_args=helm_compat.list_all_args(3),
                                  apply=helm_compat.apply_options(3), post_renderer=dict(arg=script, env={}))
    assert result["post_renderer"] == result["helm"]["post_renderer"]
    assert helm_compat.given_post_renderer(result["helm"], script, plugins) == dict(arg=script, env={})
    assert result["render"], "nothing recorded as deployed: every release renders"
    for item in result["render"]:
        assert item["plan_record"] == render.record_part(recs[item["slug"]])
        assert (item["ref"], item["version"]) == (CHARTS[item["chart"]]["ref"], CHARTS[item["chart"]]["version"])


class MovedBackModule(FakeModule):
    """helm list shows the llm-d v0.10 router release of one seed model: it moved back."""

    listing = []

    def run_command(self, argv):
        if argv[1] == "list":
            self.helm_calls.append(argv[1:])
            return 0, json.dumps(self.listing), ""
        return FakeModule.run_command(self, argv)


def test_the_v010_objects_are_listed_by_label_only_for_a_model_that_moved_back(recs):
    gen = "qwen3-0-6b-rke2"
    rec = recs[gen]
    client = RecordingClient()
    result = run(recs, client, {EMB: {"digest": SERVED, "claim_annotations": annotations(recs[EMB])}})
    assert result["uninstall"] == [] and [c[0] for c in client.calls if c[1] == "list"] == ["ConfigMap"]
    deployment = {"apiVersion": "apps/v1", "kind": "Deployment",
                  "metadata": {"name": "q-decode", "namespace": rec["namespace"],
                               "labels": state.leftover_selector(gen)}}
    client = RecordingClient({"Deployment": [deployment]})
    MovedBackModule.listing = [{"namespace": rec["namespace"], "name": "router-" + gen, "revision": "2",
                                "status": "deployed"}]
    params = dict((key, value.get("default")) for key, value in serving_stack_info.argspec().items())
    params.update(records=[recs[slug] for slug in sorted(recs)], charts=CHARTS,
                  storage_results={EMB: {"digest": SERVED, "claim_annotations": annotations(recs[EMB])}},
                  specs=dict((slug, spec(r)) for slug, r in recs.items()))
    module = MovedBackModule(params)
    with pytest.raises(Done):
        serving_stack_info.execute_module(module, client)
    result = module.result
    assert [c[0] for c in client.calls if c[1] == "list"] == ["ConfigMap"] + [k for _a, k in state.MODELSERVER_KINDS]
    assert [i["name"] for i in result["uninstall"]] == ["router-" + gen]
    assert {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "q-decode", "namespace": rec["namespace"]}} in result["remove"]
