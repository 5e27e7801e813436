"""Images come from the Harbor stand-in by their production name, and its auth is real."""

from ansible_collections.ai_platform.serving.tests.support.lab import pod


def test_pod_with_pull_secret_runs(kube, namespace, harbor_creds, busybox_image):
    kube.apply(pod("with-secret", busybox_image, ["sh", "-c", "echo pulled-ok"],
                   pull_secret=harbor_creds, pull_policy="Always"), namespace=namespace)
    kube.wait_pod_succeeded("with-secret", namespace)
    assert kube.logs(namespace, "with-secret").strip() == "pulled-ok"


def test_pod_without_pull_secret_fails_with_auth_error(kube, namespace, busybox_image):
    kube.apply(pod("no-secret", busybox_image, ["true"], pull_policy="Always"),
               namespace=namespace)

    def pull_error():
        statuses = kube.get("pod", "no-secret", namespace)["status"].get("containerStatuses", [])
        waiting = statuses[0]["state"].get("waiting", {}) if statuses else {}
        if waiting.get("reason") in ("ErrImagePull", "ImagePullBackOff") and waiting.get("message"):
            return waiting["message"]
        return None

    message = kube.wait_for("the pull to fail", pull_error, timeout=90)
    assert "401 Unauthorized" in message or "unauthorized" in message.lower(), message
    assert kube.pod_phase("no-secret", namespace) == "Pending"


def test_cloud_image_name_is_served_by_the_mirror(kube, namespace, versions):
    """ghcr.io/... resolves through containerd's hosts.toml to the local registry, no secret."""
    image = f"ghcr.io/oras-project/oras:{versions['ORAS_VERSION']}"
    kube.apply(pod("cloud-name", image, ["oras", "version"], pull_policy="Always"),
               namespace=namespace)
    kube.wait_pod_succeeded("cloud-name", namespace)
    assert versions["ORAS_VERSION"].lstrip("v") in kube.logs(namespace, "cloud-name")
