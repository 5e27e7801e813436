# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage on the lab: real pulls into a hostPath PV and a dynamic claim, re-runs, a moved tag."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import subprocess
import sys

from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.hub import MINILM_COMMIT, files_of, minilm_dir, variant_hub
from ansible_collections.ai_platform.serving.tests.support.lab import publish
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook
from ansible_collections.ai_platform.serving.tests.support.site import APPLY

REPO_ID = "sentence-transformers/all-MiniLM-L6-v2"

# model_storage's one task (model_storage_pull): its steps' order is tested in test_model_storage_pull_action.py
PULL_TASK = "TASK [ai_platform.serving.model_storage : Check the user-owned claims and pull the Harbor artifacts]"


def load_offline(hub):
    """snapshot_download + a file read with HF_HUB_OFFLINE=1 in a fresh interpreter, as a server would."""
    code = ("import os, huggingface_hub as h; p = h.snapshot_download(%r, cache_dir=%r, local_files_only=True); "
            "print(p); print(sorted(os.listdir(p)))" % (REPO_ID, hub))
    proc = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, HF_HUB_OFFLINE="1"),
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_hostpath_pull_loads_offline_and_rerun_changes_nothing(model_factory, minilm_hub, kube):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    run = model.apply()
    assert run.rc == 0, str(run)
    # one task (model_storage_pull) creates the namespace, its policy, the claim, PV and Job, and records the claim
    assert run.changed == 1 and "changed: [localhost]" in run.output, str(run)
    result = run.results["results"][model.slug]
    assert result["job"]["job"] == "created" and result["job"]["pvc"] == "created", result
    assert result["digest"] == entry["digest"]
    assert result["size"] == entry["size"]
    assert result["metadata"]["architectures"] == ["BertModel"]
    assert result["metadata"]["model_type"] == "bert"
    # the static PV at the hostPath dir, pinned to the node, bound to the claim
    pv = kube.get("pv", model.pv)
    assert pv["spec"]["hostPath"]["path"] == model.hostpath_dir
    assert pv["status"]["phase"] == "Bound"
    assert model.claim_dir() == model.hostpath_dir
    marker = model.marker()
    assert marker["digest"] == entry["digest"] and marker["size"] == entry["size"]
    assert "sentence-transformers--all-MiniLM-L6-v2" in load_offline(os.path.join(model.hostpath_dir, "hub"))
    # published as CNCF ModelPack (the default), laid out as the hub cache it always was: the wheel's files, byte
    # for byte, in the commit's snapshot, which refs/main names
    folder = os.path.join(model.hostpath_dir, "hub", "models--sentence-transformers--all-MiniLM-L6-v2")
    assert files_of(os.path.join(folder, "snapshots", MINILM_COMMIT)) == files_of(minilm_dir())
    with open(os.path.join(folder, "refs", "main")) as handle:
        assert handle.read() == MINILM_COMMIT
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"]
    assert annotations["ai-platform.serving/digest"] == entry["digest"]
    assert annotations["ai-platform.serving/architectures"] == "BertModel"
    job = kube.get("job", model.job, model.namespace)
    pod = job["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert job["spec"]["backoffLimit"] == 3 and job["spec"]["ttlSecondsAfterFinished"] == 86400

    again = model.apply()
    assert again.rc == 0, str(again)
    assert again.changed == 0, str(again)
    assert kube.get("job", model.job, model.namespace)["metadata"]["uid"] == job["metadata"]["uid"]
    assert len(model.job_pods()) == 1


def test_dynamic_claim_on_cloud_pulls_into_the_provisioned_volume(model_factory, minilm_hub, kube):
    model = model_factory(provider="cloud")
    model.source["storageClass"] = "local-path"
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    run = model.apply()
    assert run.rc == 0, str(run)
    assert run.results["results"][model.slug]["digest"] == entry["digest"]
    assert kube.get("pv", model.pv) is None      # no static PV on cloud
    pvc = kube.get("pvc", model.pvc, model.namespace)
    assert pvc["spec"]["storageClassName"] == "local-path" and pvc["status"]["phase"] == "Bound"
    assert model.marker()["digest"] == entry["digest"]
    assert "all-MiniLM-L6-v2" in load_offline(os.path.join(model.claim_dir(), "hub"))
    again = model.apply()
    assert again.rc == 0 and again.changed == 0, str(again)


def test_moved_tag_replaces_the_job_and_pulls_afresh(model_factory, minilm_hub, kube, tmp_path):
    model = model_factory()
    first = publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    old_uid = kube.get("job", model.job, model.namespace)["metadata"]["uid"]
    moved = publish(model.lab, model.tmp, variant_hub(tmp_path, "v2", b"new revision\n"), model.repository)
    assert moved["digest"] != first["digest"]
    run = model.apply()
    assert run.rc == 0, str(run)
    assert run.changed >= 1, str(run)
    assert run.results["results"][model.slug]["job"]["job"] == "replaced"
    job = kube.get("job", model.job, model.namespace)
    assert job["metadata"]["uid"] != old_uid
    assert model.marker()["digest"] == moved["digest"]
    assert "pulling afresh" in kube.logs(model.namespace, "job/" + model.job)
    snapshot = os.path.join(model.hostpath_dir, "hub", "models--sentence-transformers--all-MiniLM-L6-v2",
                            "snapshots", "c9745ed1d9f207416be6d2e6f8de32d1f16199bf")
    with open(os.path.join(snapshot, "extra.bin"), "rb") as handle:
        assert handle.read() == b"new revision\n"
    assert sorted(os.listdir(model.hostpath_dir)) == [".pulled", ".revisions", "hub"]
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"]
    assert annotations["ai-platform.serving/digest"] == moved["digest"]


def holder_pod(model):
    """A pod that mounts the model's claim as a serving pod does (busybox from the lab registry)."""
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "holder-" + model.slug, "namespace": model.namespace},
            "spec": {"imagePullSecrets": [{"name": "harbor-creds"}], "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "hold", "image": "%s/images-infra/library/busybox:1.35.0" % HARBOR,
                                     "command": ["sleep", "3600"],
                                     "volumeMounts": [{"name": "m", "mountPath": "/model-cache", "readOnly": True}]}],
                     "volumes": [{"name": "m", "persistentVolumeClaim": {"claimName": model.pvc, "readOnly": True}}]}}


def test_a_dynamic_rwo_claim_held_by_a_pod_is_pulled_again_on_that_pods_node(model_factory, minilm_hub, kube,
                                                                             tmp_path):
    model = model_factory(provider="cloud")
    model.source["storageClass"] = "local-path"
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    job = kube.get("job", model.job, model.namespace)
    assert "affinity" not in job["spec"]["template"]["spec"]     # nothing holds the claim yet
    kube.apply(holder_pod(model))
    kube.run("wait", "--for=condition=Ready", "pod/holder-" + model.slug, "-n", model.namespace, "--timeout=180s")
    node = kube.get("pod", "holder-" + model.slug, model.namespace)["spec"]["nodeName"]
    # a re-run with the Job done keeps it: where the holder runs is not part of the Job's identity
    again = model.apply()
    assert again.rc == 0 and again.changed == 0, str(again)
    moved = publish(model.lab, model.tmp, variant_hub(tmp_path, "v2", b"new revision\n"), model.repository)
    run = model.apply()
    assert run.rc == 0, str(run)
    job = kube.get("job", model.job, model.namespace)
    terms = job["spec"]["template"]["spec"]["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]
    assert [p["spec"]["nodeName"] for p in model.job_pods()] == [node]
    assert model.marker()["digest"] == moved["digest"]


def test_ttl_deleted_job_is_recreated_and_finishes_from_the_marker(model_factory, minilm_hub, kube):
    model = model_factory()
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    pulled_at = model.marker()["pulled_at"]
    kube.run("delete", "job", model.job, "-n", model.namespace, "--cascade=foreground", "--wait=true")
    run = model.apply()
    assert run.rc == 0, str(run)
    assert "nothing to pull" in kube.logs(model.namespace, "job/" + model.job)
    assert model.marker()["pulled_at"] == pulled_at


def test_check_mode_creates_nothing(model_factory, minilm_hub, kube):
    model = model_factory()
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    run = model.apply(check=True)
    assert run.rc == 0, str(run)
    assert run.changed >= 1, str(run)
    assert kube.get("namespace", model.namespace) is None
    assert kube.get("pv", model.pv) is None


def test_many_models_start_all_jobs_before_waiting(model_factory, minilm_hub, kube, tmp_path):
    """Two models in one run: both Jobs exist before the first wait starts (model_storage_pull's step order)."""
    first = model_factory()
    second = model_factory()
    publish(first.lab, first.tmp, minilm_hub, first.repository)
    publish(second.lab, second.tmp, minilm_hub, second.repository)
    # second's folders into first's models dir, both models in one plan
    shutil.copytree(os.path.join(second.models_dir, "embedder", second.name),
                    os.path.join(first.models_dir, "embedder", second.name))
    both = first.variables()
    both["aips_models"]["embedder"].append({"name": second.name, "enabled": True, "modelSource": second.source})
    run = ansible_playbook(first.lab, APPLY, both, tmp_path)
    assert run.rc == 0, str(run)
    out = run.output
    # one task creates both Jobs, then waits for both (the step order: test_model_storage_pull_action.py)
    assert out.count(PULL_TASK) == 1, out[-8000:]
    # the wait ends on the pull pod's own record; the Job controller writes completionTime a moment later
    kube.wait_for("both Jobs to record their completion", lambda: all(
        (kube.existing("job", m.job, m.namespace).get("status") or {}).get("completionTime") for m in (first, second)),
        60)
    jobs = [kube.get("job", m.job, m.namespace) for m in (first, second)]
    starts = sorted(j["status"]["startTime"] for j in jobs)
    completions = sorted(j["status"]["completionTime"] for j in jobs)
    assert starts[1] <= completions[0], (starts, completions)   # the second started before the first finished
    assert set(run.results["results"]) == {first.slug, second.slug}
