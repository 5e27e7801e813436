# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which claims are pruned, and the annotation patch that keeps the rest; prune on a fake API, with the decisions
serving_stack_info hands over (no claim list) and without them (one list)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest
from kubernetes.client.rest import ApiException
from kubernetes.dynamic.exceptions import NotFoundError

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import revisions as model_revisions
from ansible_collections.ai_platform.serving.tests.support.storage_records import V1, V2, V3, load_records, revisions_annotations


@pytest.fixture
def records():
    return load_records()


def test_only_claims_that_keep_too_much_are_pruned_and_their_annotation_keeps_the_rest(records):
    record = records["on_prem"]
    full = {"metadata": {"namespace": record["namespace"], "name": record["storage"]["pvc"],
                         "annotations": revisions_annotations(V3, V3, V2, V1)}}
    found = model_revisions.plan_prunes([record, records["claim"]], [full], 1)
    assert [(r["slug"], kept, dropped) for r, _a, kept, dropped in found] == [(record["slug"], [V3, V2], [V1])]
    assert model_revisions.plan_prunes([record], [full], 2) == []
    patch = model_revisions.kept_revisions_patch(record, full["metadata"]["annotations"], [V3, V2])
    assert [r["digest"] for r in pull_marker.claim_revisions(patch["metadata"]["annotations"])] == [V3, V2]


# --- prune on a fake API -----------------------------------------------------------------------------------

class Kind(object):
    def __init__(self, kind):
        self.kind = kind


class RecordingClient(object):
    """Every call as ``(verb, kind, name or "list")``. Lists return ``lists[kind]``; a named get returns the object
    created (a Job comes back Complete, as its controller would mark it) or raises NotFound."""

    def __init__(self, lists=None):
        self.lists = lists or {}
        self.objects = {}
        self.calls = []
        self.patches = []

    def resource(self, kind, api_version):
        return Kind(kind)

    def get(self, resource, name=None, namespace=None, **params):
        self.calls.append(("get", resource.kind, name or "list"))
        if name is None:
            return {"items": copy.deepcopy(self.lists.get(resource.kind) or [])}
        if (resource.kind, namespace, name) not in self.objects:
            raise NotFoundError(ApiException(status=404, reason="Not Found"))
        return copy.deepcopy(self.objects[(resource.kind, namespace, name)])

    def create(self, resource, definition, namespace=None):
        self.calls.append(("create", resource.kind, definition["metadata"]["name"]))
        done = dict(copy.deepcopy(definition), status={"conditions": [{"type": "Complete", "status": "True"}]})
        self.objects[(resource.kind, namespace, definition["metadata"]["name"])] = done
        return definition

    def delete(self, resource, name=None, namespace=None, body=None):
        self.calls.append(("delete", resource.kind, name))
        del self.objects[(resource.kind, namespace, name)]

    def patch(self, resource, body, name=None, namespace=None, content_type=None):
        self.calls.append(("patch", resource.kind, name))
        self.patches.append((namespace, name, body))


def full_claim(record):
    """The claim of ``record`` serving V3 and keeping V3, V2, V1 (one too many with keep=1)."""
    return {"metadata": {"namespace": record["namespace"], "name": record["storage"]["pvc"],
                         "annotations": revisions_annotations(V3, V3, V2, V1)}}


def claim_lists(calls):
    return [c for c in calls if c[:3] == ("get", "PersistentVolumeClaim", "list")]


def test_records_carrying_their_decision_are_pruned_without_a_claim_list(records):
    on_prem, cloud = records["on_prem"], records["cloud"]
    annotations = revisions_annotations(V3, V3, V2, V1)
    carried = [dict(on_prem, prune=model_revisions.prune_decision(annotations, [V3, V2], [V1])),
               dict(cloud, prune=model_revisions.prune_decision(annotations, [V3], [V2, V1]))]
    client = RecordingClient()
    # keep does not apply to a carried decision: the second record drops two revisions with keep=5
    done = model_revisions.prune(client, carried, keep=5, timeout=5)
    assert done == {on_prem["slug"]: {"kept": [V3, V2], "dropped": [V1]},
                    cloud["slug"]: {"kept": [V3], "dropped": [V2, V1]}}
    assert [c for c in client.calls if c[1] == "PersistentVolumeClaim" and c[0] == "get"] == []
    # one prune Job per claim, created and deleted, then the annotation rewritten to the kept revisions
    jobs = [c for c in client.calls if c[1] == "Job" and c[0] in ("create", "delete")]
    assert jobs == [("create", "Job", on_prem["storage"]["prune_job"]), ("delete", "Job", on_prem["storage"]["prune_job"]),
                    ("create", "Job", cloud["storage"]["prune_job"]), ("delete", "Job", cloud["storage"]["prune_job"])]
    assert [(ns, name) for ns, name, _body in client.patches] == [
        (on_prem["namespace"], on_prem["storage"]["pvc"]), (cloud["namespace"], cloud["storage"]["pvc"])]
    assert client.patches[1][2] == model_revisions.kept_revisions_patch(cloud, annotations, [V3])
    assert [r["digest"] for r in pull_marker.claim_revisions(client.patches[0][2]["metadata"]["annotations"])] == [V3, V2]


def test_a_carried_decision_in_check_mode_runs_no_job_and_patches_nothing(records):
    record = records["on_prem"]
    carried = dict(record, prune=model_revisions.prune_decision(revisions_annotations(V3, V3, V2, V1), [V3, V2], [V1]))
    client = RecordingClient()
    assert model_revisions.prune(client, [carried], check_mode=True) == {
        record["slug"]: {"kept": [V3, V2], "dropped": [V1]}}
    # only the look for a leftover prune Job (check mode deletes nothing)
    assert client.calls == [("get", "Job", record["storage"]["prune_job"])] and client.patches == []


def test_records_without_a_decision_are_decided_on_one_claim_list(records):
    record = records["on_prem"]
    full = full_claim(record)
    client = RecordingClient(lists={"PersistentVolumeClaim": [full]})
    done = model_revisions.prune(client, [record, records["claim"]], keep=1, timeout=5)
    assert done == {record["slug"]: {"kept": [V3, V2], "dropped": [V1]}}
    assert len(claim_lists(client.calls)) == 1
    assert client.patches == [(record["namespace"], record["storage"]["pvc"],
                               model_revisions.kept_revisions_patch(record, full["metadata"]["annotations"], [V3, V2]))]
    # the same records in check mode: the one list, no Job, no patch
    client = RecordingClient(lists={"PersistentVolumeClaim": [full]})
    assert model_revisions.prune(client, [record], keep=1, check_mode=True) == done
    assert claim_lists(client.calls) == [("get", "PersistentVolumeClaim", "list")]
    assert [c for c in client.calls if c[0] in ("create", "delete", "patch")] == []


def test_only_the_records_without_a_decision_are_looked_up_in_the_list(records):
    on_prem, cloud = records["on_prem"], records["cloud"]
    carried = dict(on_prem, prune=model_revisions.prune_decision(revisions_annotations(V3, V3, V2, V1), [V3], [V2, V1]))
    # the list also returns on_prem's claim as it stands (keep=1 would drop V1 only): the carried decision wins
    client = RecordingClient(lists={"PersistentVolumeClaim": [full_claim(on_prem), full_claim(cloud)]})
    done = model_revisions.prune(client, [carried, cloud], keep=1, check_mode=True)
    assert done == {on_prem["slug"]: {"kept": [V3], "dropped": [V2, V1]},
                    cloud["slug"]: {"kept": [V3, V2], "dropped": [V1]}}
    assert len(claim_lists(client.calls)) == 1


def test_a_carried_decision_that_drops_nothing_or_no_harbor_record_costs_no_call(records):
    nothing = dict(records["on_prem"], prune=model_revisions.prune_decision(revisions_annotations(V3, V3), [V3], []))
    user_claim = dict(records["claim"], prune=model_revisions.prune_decision({}, [], [V1]))
    client = RecordingClient()
    assert model_revisions.prune(client, [nothing, user_claim]) == {}
    assert client.calls == []


@pytest.mark.parametrize("decision", [[], "drop", {"kept": [V3], "dropped": [V1]},
                                      {"annotations": None, "kept": [V3], "dropped": [V1]},
                                      {"annotations": {}, "kept": V3, "dropped": [V1]}])
def test_a_prune_entry_that_is_no_decision_fails_before_any_call(records, decision):
    client = RecordingClient()
    with pytest.raises(ValueError, match="all-minilm-l6-v2-rke2: its prune entry is no decision"):
        model_revisions.prune(client, [dict(records["on_prem"], prune=decision)])
    assert client.calls == []


def test_split_decided_keeps_the_undecided_records_in_order(records):
    on_prem, cloud, user_claim = records["on_prem"], records["cloud"], records["claim"]
    annotations = revisions_annotations(V3, V3, V2)
    carried = dict(cloud, prune=model_revisions.prune_decision(annotations, [V3], [V2]))
    decided, undecided = model_revisions.split_decided([on_prem, carried, user_claim])
    assert decided == [(carried, annotations, [V3], [V2])] and undecided == [on_prem, user_claim]
    assert model_revisions.split_decided([]) == ([], [])
