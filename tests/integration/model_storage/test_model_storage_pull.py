# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage on the lab: real pulls into a hostPath PV and a dynamic claim, re-runs, a moved tag."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys

from conftest import publish

REPO_ID = "sentence-transformers/all-MiniLM-L6-v2"


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
    assert run.rc == 0, run
    assert run.changed >= 3, run
    result = run.results["results"][model.slug]
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
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"]
    assert annotations["ai-platform.serving/digest"] == entry["digest"]
    assert annotations["ai-platform.serving/architectures"] == "BertModel"
    job = kube.get("job", model.job, model.namespace)
    pod = job["spec"]["template"]["spec"]
    assert pod["automountServiceAccountToken"] is False
    assert job["spec"]["backoffLimit"] == 3 and job["spec"]["ttlSecondsAfterFinished"] == 86400

    again = model.apply()
    assert again.rc == 0, again
    assert again.changed == 0, again
    assert kube.get("job", model.job, model.namespace)["metadata"]["uid"] == job["metadata"]["uid"]
    assert len(model.job_pods()) == 1
