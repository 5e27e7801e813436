"""The model pull path: a Job running the ORAS image pulls an artifact over TLS with the
docker config mounted from the pull secret, as the model_storage role's Job does."""

import hashlib
import json
import subprocess
import uuid


def _push_artifact(env, tmp_path, ref):
    (tmp_path / "hello.txt").write_text("weights-for-the-lab\n")
    out = subprocess.run(
        ["oras", "push", "--ca-file", env["AIPS_LAB_CA"],
         "--registry-config", env["AIPS_LAB_DOCKER_CONFIG"], "--format", "json",
         ref, "hello.txt:text/plain"],
        cwd=tmp_path, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["digest"]


def test_oras_job_pulls_artifact_with_mounted_docker_config(
        kube, env, namespace, versions, harbor_creds, tmp_path):
    harbor = env["AIPS_LAB_HARBOR_HOST"]
    ref = f"{harbor}/ai-models/lab-test:{uuid.uuid4().hex[:8]}"
    digest = _push_artifact(env, tmp_path, ref)
    expected_sha = hashlib.sha256(b"weights-for-the-lab\n").hexdigest()
    script = (f"oras pull {ref}@{digest} && sha256sum hello.txt && "
              "test -s /root/.docker/config.json && touch /model-cache/.pulled")
    job = {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "model-pull"},
        "spec": {"backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never",
            "imagePullSecrets": [{"name": harbor_creds}],
            "containers": [{
                "name": "oras",
                "image": f"{harbor}/images-infra/oras-project/oras:{versions['ORAS_VERSION']}",
                "command": ["/bin/sh", "-c", script],
                "workingDir": "/model-cache/hub",
                "volumeMounts": [{"name": "cache", "mountPath": "/model-cache"},
                                 {"name": "docker", "mountPath": "/root/.docker",
                                  "readOnly": True}],
            }],
            "initContainers": [{"name": "mkdir", "image": f"{harbor}/images-infra/library/"
                                f"busybox:{versions['BUSYBOX_TAG']}",
                                "command": ["mkdir", "-p", "/model-cache/hub"],
                                "volumeMounts": [{"name": "cache", "mountPath": "/model-cache"}]}],
            "volumes": [
                {"name": "cache", "emptyDir": {}},
                {"name": "docker", "secret": {"secretName": harbor_creds, "items": [
                    {"key": ".dockerconfigjson", "path": "config.json"}]}},
            ],
        }}},
    }
    kube.apply(job, namespace=namespace)
    kube.wait_job_complete("model-pull", namespace)
    logs = kube.logs(namespace, kube.job_pod("model-pull", namespace))
    assert f"{expected_sha}  hello.txt" in logs, logs


def test_wrong_token_is_refused(env, tmp_path):
    ref = f"{env['AIPS_LAB_HARBOR_HOST']}/ai-models/lab-test:refused"
    _push_artifact(env, tmp_path, ref)
    proc = subprocess.run(["oras", "pull", "--ca-file", env["AIPS_LAB_CA"],
                           "--registry-config", str(tmp_path / "none.json"),
                           "--username", env["AIPS_LAB_HARBOR_USER"], "--password", "wrong", ref],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode != 0
    assert "401" in proc.stderr or "unauthorized" in proc.stderr.lower(), proc.stderr
