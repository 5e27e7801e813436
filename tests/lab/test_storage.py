"""On-prem storage (static hostPath PV bound to the node) and cloud storage (default class)."""

import socket
import uuid
from pathlib import Path


def _writer_job(name, claim, image, command):
    return {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name},
        "spec": {"backoffLimit": 0, "template": {"spec": {
            "restartPolicy": "Never",
            "containers": [{"name": "main", "image": image, "command": command,
                            "volumeMounts": [{"name": "data", "mountPath": "/data"}]}],
            "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": claim}}],
        }}},
    }


def test_job_writes_into_hostpath_pv_bound_by_node_affinity(
        kube, env, namespace, busybox_image, harbor_creds):
    node = socket.gethostname().lower()
    host_dir = Path(env["AIPS_LAB_DIR"], "data", "hostpath-test", uuid.uuid4().hex[:8])
    host_dir.mkdir(parents=True)  # as the hostpath_dirs role does before the PV exists
    pv_name = f"{namespace}-pv"
    pv = {
        "apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": pv_name},
        "spec": {
            "capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
            "persistentVolumeReclaimPolicy": "Retain", "storageClassName": "hostpath",
            "hostPath": {"path": str(host_dir), "type": "Directory"},
            "claimRef": {"namespace": namespace, "name": "model"},
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": [node]}]}]}},
        },
    }
    pvc = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "model"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "hostpath",
                 "volumeName": pv_name, "resources": {"requests": {"storage": "1Gi"}}},
    }
    kube.apply(pv)
    try:
        job = _writer_job("write", "model", busybox_image,
                          ["sh", "-c", "echo from-pod > /data/.pulled"])
        job["spec"]["template"]["spec"]["imagePullSecrets"] = [{"name": harbor_creds}]
        # the claim bound first: a pod created before the binding waits for the scheduler's retry of unschedulable
        # pods (up to 5 minutes), which once outlasted the Job's wait on a freshly built lab
        kube.apply(pvc, namespace=namespace)
        kube.wait_for("claim %s/model to bind" % namespace,
                      lambda: (kube.get("pvc", "model", namespace) or {}).get("status", {}).get("phase") == "Bound")
        kube.apply(job, namespace=namespace)
        kube.wait_job_complete("write", namespace)
        assert kube.get("pvc", "model", namespace)["status"]["phase"] == "Bound"
        assert (host_dir / ".pulled").read_text() == "from-pod\n"
    finally:
        kube.run("delete", "pv", pv_name, "--wait=false", check=False)


def test_pvc_on_default_storage_class_binds_and_pod_writes(kube, namespace, versions):
    default = [sc["metadata"]["name"] for sc in kube.list("storageclass")
               if sc["metadata"].get("annotations", {}).get(
                   "storageclass.kubernetes.io/is-default-class") == "true"]
    assert default, "no default StorageClass"
    pvc = {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "cache"},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
    }
    image = f"docker.io/library/busybox:{versions['BUSYBOX_TAG']}"
    job = _writer_job("write", "cache", image,
                      ["sh", "-c", "echo dynamic > /data/file && cat /data/file"])
    kube.apply(pvc, job, namespace=namespace)
    kube.wait_job_complete("write", namespace, timeout=180)
    claim = kube.get("pvc", "cache", namespace)
    assert claim["status"]["phase"] == "Bound"
    assert claim["spec"]["storageClassName"] == default[0]
    assert kube.logs(namespace, kube.job_pod("write", namespace)).strip() == "dynamic"
