# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_storage on the lab when things are wrong: too small, wrong credentials, corrupt blob, user claims."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import pytest

from ansible_collections.ai_platform.serving.tests.support.hub import variant_hub
from ansible_collections.ai_platform.serving.tests.support.lab import publish


def registry_blob(lab, digest):
    """The file the lab registry serves ``digest`` from."""
    root = os.path.join(lab["AIPS_LAB_DIR"], "data", "registry", "docker", "registry", "v2", "blobs", "sha256")
    hexdigest = digest.split(":", 1)[1]
    return os.path.join(root, hexdigest[:2], hexdigest, "data")


def test_too_small_claim_fails_before_anything_is_created(model_factory, minilm_hub, kube):
    model = model_factory(storage_size="10Mi")
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    run = model.apply()
    assert run.rc != 0, str(run)
    assert "storageSize 10Mi" in run.output and "cannot hold the artifact" in run.output, str(run)
    assert "%d bytes" % entry["size"] in run.output
    assert kube.get("namespace", model.namespace) is None
    assert kube.get("pv", model.pv) is None


def test_wrong_credentials_fail_clearly_and_the_token_is_never_shown(model_factory, minilm_hub, kube):
    model = model_factory()
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    wrong = "not-the-token-" + model.suffix
    run = model.apply(verbosity=3, aips_harbor_token=wrong)
    assert run.rc != 0, str(run)
    assert "rejected user '%s'" % model.lab["AIPS_LAB_HARBOR_USER"] in run.output, str(run)
    assert wrong not in run.output
    assert model.lab["AIPS_LAB_HARBOR_TOKEN"] not in run.output
    assert kube.get("namespace", model.namespace) is None


def test_wrong_credentials_in_the_cluster_fail_the_job_at_once(model_factory, minilm_hub, kube):
    """The preflight reads the lock file, so only the Job meets the wrong token: it fails without retries."""
    model = model_factory()
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    wrong = "not-the-token-" + model.suffix
    run = model.apply(verbosity=3, aips_harbor_token=wrong,
                      model_storage_lock_file=os.path.join(str(model.tmp), "models.lock.yml"))
    assert run.rc != 0, str(run)
    assert "pull Job %s/%s failed: PodFailurePolicy" % (model.namespace, model.job) in run.output, str(run)
    assert "unauthorized" in run.output.lower()
    assert "Recovery:" in run.output and "playbooks/recover.yml -e recover_model=%s" % model.slug in run.output
    assert wrong not in run.output and model.lab["AIPS_LAB_HARBOR_TOKEN"] not in run.output
    pods = model.job_pods()
    assert len(pods) == 1                     # a permanent error is not retried
    assert model.marker() is None
    # fixing the credentials and re-running replaces the failed Job and pulls
    again = model.apply()
    assert again.rc == 0, str(again)
    assert model.marker() is not None


@pytest.mark.parametrize("rehash", [True, False], ids=["rehash", "oras-verifies-as-it-writes"])
def test_corrupted_blob_fails_the_pull_and_writes_no_marker(model_factory, kube, tmp_path, rehash):
    model = model_factory()
    extra = ("unique content %s\n" % model.suffix).encode() * 64
    entry = publish(model.lab, model.tmp, variant_hub(tmp_path, model.suffix, extra), model.repository)
    import hashlib
    blob = registry_blob(model.lab, "sha256:" + hashlib.sha256(extra).hexdigest())
    with open(blob, "r+b") as handle:
        handle.write(b"X" * 16)           # same size, other bytes
    run = model.apply(model_storage_verify=rehash)
    assert run.rc != 0, str(run)
    assert "pull Job %s/%s failed" % (model.namespace, model.job) in run.output, str(run)
    if not rehash:   # oras-go checks each blob's digest and size while it writes the file
        assert "mismatch" in run.output, run.output[-4000:]
    # ... over HTTP/1.1, one connection per blob, as every pull Job does unless model_storage_pull_http2
    container = kube.get("job", model.job, model.namespace)["spec"]["template"]["spec"]["containers"][0]
    assert {"name": "GODEBUG", "value": "http2client=0"} in container["env"]
    assert model.marker() is None
    assert entry["digest"]


def test_missing_user_claim_fails_clearly(model_factory, kube):
    model = model_factory(source="pvc://no-such-claim/models/minilm")
    run = model.apply()
    assert run.rc != 0, str(run)
    assert "%s/no-such-claim does not exist" % model.namespace in run.output, str(run)
    assert "never creates" in run.output


def test_unbound_user_claim_fails_and_is_left_alone(model_factory, kube):
    model = model_factory(source="pvc://waiting-claim/models/minilm")
    kube.run("create", "namespace", model.namespace)
    claim = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
             "metadata": {"name": "waiting-claim", "namespace": model.namespace},
             "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "local-path",
                      "resources": {"requests": {"storage": "1Gi"}}}}
    kube.apply(claim)
    before = kube.get("pvc", "waiting-claim", model.namespace)["metadata"]["resourceVersion"]
    run = model.apply()
    assert run.rc != 0, str(run)
    assert "is Pending, not Bound" in run.output, str(run)
    after = kube.get("pvc", "waiting-claim", model.namespace)
    assert after["metadata"]["resourceVersion"] == before
    assert json.dumps(after).count("ai-platform.serving") == 0
