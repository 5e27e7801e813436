# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Checks on claims: preflight, user-owned claims, conflicts with the plan, the node holding a single-node claim."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests
from ansible_collections.ai_platform.serving.tests.support.storage_records import DIGEST, V2, load_records


@pytest.fixture
def records():
    return load_records()


@pytest.mark.parametrize("storage,artifact,headroom,fits", [
    (5 * 1024 ** 3, 91618941, 10, True),
    (100, 90, 10, True),       # 90 + 9 = 99
    (100, 91, 10, False),      # 91 + 10% rounded up = 101
    (1024 ** 3, 1024 ** 3, 10, False),
    (1024 ** 3, 1024 ** 3, 0, True),
])
def test_preflight_arithmetic(storage, artifact, headroom, fits):
    problem = claims.preflight_problem("m", "x", storage, artifact, headroom)
    assert (problem is None) == fits


def test_preflight_message_suggests_a_size():
    problem = claims.preflight_problem("m", "1Gi", 1024 ** 3, 2 * 1024 ** 3, 10)
    assert "storageSize 1Gi" in problem and "at least 3Gi" in problem and "nothing was created" in problem


def test_claim_problems(records):
    record = records["claim"]
    missing = claims.claim_problems(record, None)
    assert len(missing) == 1 and "llm-d-llama/model-storage does not exist" in missing[0]
    assert "never creates" in missing[0]
    bound_rwo = {"spec": {"accessModes": ["ReadWriteOnce"]}, "status": {"phase": "Bound",
                                                                        "accessModes": ["ReadWriteOnce"]}}
    assert claims.claim_problems(record, bound_rwo, replicas=1) == []
    problems = claims.claim_problems(record, bound_rwo, replicas=2)
    assert len(problems) == 1 and "ReadWriteOnce" in problems[0] and "2 serving replicas" in problems[0]
    rox = {"spec": {"accessModes": ["ReadOnlyMany"]}, "status": {"phase": "Bound", "accessModes": ["ReadOnlyMany"]}}
    assert claims.claim_problems(record, rox, replicas=4) == []
    pending = {"spec": {"accessModes": ["ReadOnlyMany"]}, "status": {"phase": "Pending"}}
    assert "Pending, not Bound" in claims.claim_problems(record, pending)[0]


def test_conflicts(records):
    pvc = manifests.pvc_manifest(records["on_prem"])
    live = copy.deepcopy(pvc)
    assert claims.pvc_conflicts(pvc, live) == []
    live["spec"]["storageClassName"] = "local-path"
    assert "storageClassName" in claims.pvc_conflicts(pvc, live)[0]
    pv = manifests.pv_manifest(records["on_prem"])
    live_pv = copy.deepcopy(pv)
    assert claims.pv_conflicts(pv, live_pv) == []
    live_pv["spec"]["hostPath"]["path"] = "/elsewhere"
    assert "hostPath" in claims.pv_conflicts(pv, live_pv)[0]


def pod_on(node, claim, phase="Running", job=None):
    labels = {"job-name": job} if job else {}
    return {"metadata": {"namespace": "ns", "name": "p-" + node, "labels": labels},
            "spec": {"nodeName": node, "volumes": [{"persistentVolumeClaim": {"claimName": claim}}]},
            "status": {"phase": phase}}


def test_a_single_node_cloud_claim_in_use_pins_its_jobs_to_the_serving_pods_node(records):
    cloud = copy.deepcopy(records["cloud"])
    claim = cloud["storage"]["pvc"]
    pods = [pod_on("n2", claim), pod_on("n1", "other"), pod_on("n3", claim, job=cloud["storage"]["pull_job"])]
    assert claims.claim_holder_node(cloud, pods, [cloud["storage"]["pull_job"]]) == "n2"
    assert claims.claim_holder_node(cloud, [pod_on("n2", claim, phase="Succeeded")]) is None
    job = manifests.job_manifest(cloud, DIGEST, holder_node="n2")
    plain = manifests.job_manifest(cloud, DIGEST)
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n2"]}]}]
    # where the serving pods run is not part of the Job's identity: a finished Job is not replaced for it
    assert job["metadata"]["annotations"] == plain["metadata"]["annotations"]
    prune = manifests.prune_job_manifest(cloud, [V2], holder_node="n2")
    assert prune["metadata"]["name"] == cloud["storage"]["prune_job"]
    assert prune["spec"]["template"]["spec"]["affinity"] == job["spec"]["template"]["spec"]["affinity"]
    env = dict((e["name"], e["value"]) for e in prune["spec"]["template"]["spec"]["containers"][0]["env"])
    assert env["AIPS_KEEP"] == V2
    # RWX claims and hostPath claims (pinned by the plan) need no holder
    rwx = copy.deepcopy(cloud)
    rwx["storage"]["access_mode"] = "ReadWriteMany"
    assert claims.claim_holder_node(rwx, pods) is None
    assert claims.claim_holder_node(records["on_prem"], [pod_on("n2", records["on_prem"]["storage"]["pvc"])]) is None
