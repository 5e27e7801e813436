"""The lab's images for the llm-d v0.10 router chart, both **stand-ins** named as such: the endpoint picker
`ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0` is GAIE's EPP v1.5.0 (not llm-d-router's, which the Go
module proxy does not serve here), and `docker.io/envoyproxy/envoy:distroless-v1.33.2` is the real Envoy
1.40.0 of the pinned wheel under the tag the chart pins.

Each is in the lab registry under both names (Harbor's and the cloud name's mirror path), and the pod the
real standalone chart renders from the lab folder's router values starts with both containers Ready: the EPP
stand-in with the chart's own arguments and the values' plugin config, Envoy with the chart's envoy.yaml,
both as user 65532 as the collection's post-renderer sets it.
"""

# pytest fixtures are parameters named like the fixture functions
# pylint: disable=redefined-outer-name

import base64
import os
import ssl
import subprocess
import urllib.error
import urllib.request

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import UPSTREAM_CHARTS

CHART = os.path.join(UPSTREAM_CHARTS, "llm-d-router-standalone-v0.10.0.tgz")
VALUES = os.path.join(ROOT, "models", "generative", "sim-qwen3-lab", "router-sim-qwen3-lab", "values.yaml")
RELEASE = "router-labtest"
# upstream repository -> versions.env key of the tag the lab pushes it under
ROUTER_IMAGES = {
    "ghcr.io/llm-d/llm-d-router-endpoint-picker": "ROUTER_EPP_TAG",
    "docker.io/envoyproxy/envoy": "ROUTER_ENVOY_TAG",
}
MANIFEST_TYPES = ("application/vnd.oci.image.manifest.v1+json, "
                  "application/vnd.docker.distribution.manifest.v2+json")


def _manifest_digest(env, repository, tag):
    """The registry's digest of repository:tag (registry API, the robot's credentials), or None."""
    host = env["AIPS_LAB_HARBOR_HOST"]
    request = urllib.request.Request(f"https://{host}/v2/{repository}/manifests/{tag}", method="HEAD")
    creds = f"{env['AIPS_LAB_HARBOR_USER']}:{env['AIPS_LAB_HARBOR_TOKEN']}".encode()
    request.add_header("Authorization", "Basic " + base64.b64encode(creds).decode())
    request.add_header("Accept", MANIFEST_TYPES)
    context = ssl.create_default_context(cafile=env["AIPS_LAB_CA"])
    try:
        with urllib.request.urlopen(request, timeout=10, context=context) as response:
            return response.headers["Docker-Content-Digest"]
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


@pytest.mark.parametrize("upstream", sorted(ROUTER_IMAGES))
def test_router_image_is_served_under_both_names(env, versions, upstream):
    tag = versions[ROUTER_IMAGES[upstream]]
    path = upstream.split("/", 1)[1]  # the mirror path: the cloud name without its registry host
    harbor = _manifest_digest(env, "images-shaide/" + path, tag)
    mirror = _manifest_digest(env, path, tag)
    assert harbor, f"images-shaide/{path}:{tag} is not in the lab registry"
    assert mirror == harbor, (mirror, harbor)


def test_the_crds_of_both_stacks_are_established(kube):
    pool = kube.existing("crd", "inferencepools.inference.networking.k8s.io")
    assert pool["metadata"]["annotations"]["inference.networking.k8s.io/bundle-version"] == "v1.5.0"
    schema = pool["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    assert schema["appProtocol"]["default"] == "http"
    for name in ("inferenceobjectives.llm-d.ai", "inferencemodelrewrites.llm-d.ai",
                 "inferenceobjectives.inference.networking.x-k8s.io"):
        conditions = kube.existing("crd", name)["status"]["conditions"]
        assert any(c["type"] == "Established" and c["status"] == "True" for c in conditions), name


def _rendered(env, namespace):
    """The router chart's objects for the lab folder's values, as `helm template` renders them."""
    out = subprocess.run(["helm", "template", RELEASE, CHART, "-n", namespace, "-f", VALUES],
                         env=dict(os.environ, **env), capture_output=True, text=True, check=True).stdout
    return [doc for doc in yaml.safe_load_all(out) if doc]


def _as_post_rendered(objects, pull_secret):
    """What the collection's post-renderer adds to the EPP pod: the pull secret and a nonroot securityContext."""
    for obj in objects:
        if obj["kind"] == "Deployment":
            spec = obj["spec"]["template"]["spec"]
            spec["imagePullSecrets"] = [{"name": pull_secret}]
            spec["securityContext"] = {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                       "seccompProfile": {"type": "RuntimeDefault"}}
            for container in spec["containers"]:
                container["securityContext"] = {"allowPrivilegeEscalation": False,
                                                "capabilities": {"drop": ["ALL"]}}
    return objects


def _pod_ready(kube, namespace):
    pods = kube.pods(namespace, f"llm-d-router-gateway={RELEASE}-epp")
    if not pods:
        return None
    statuses = pods[0]["status"].get("containerStatuses", [])
    return pods[0] if len(statuses) == 2 and all(s.get("ready") for s in statuses) else None


def test_the_router_charts_pod_starts_on_the_stand_ins(kube, namespace, harbor_creds, versions):
    objects = _as_post_rendered(_rendered(kube.env, namespace), harbor_creds)
    deployment = [o for o in objects if o["kind"] == "Deployment"][0]
    images = dict((c["name"], c["image"]) for c in deployment["spec"]["template"]["spec"]["containers"])
    assert images["envoy-proxy"] == f"docker.io/envoyproxy/envoy:{versions['ROUTER_ENVOY_TAG']}"
    assert images["epp"].endswith(f"/llm-d/llm-d-router-endpoint-picker:{versions['ROUTER_EPP_TAG']}")
    kube.apply(*objects, namespace=namespace)
    try:
        pod = kube.wait_for("the router pod Ready (Envoy /ready, EPP gRPC health)",
                            lambda: _pod_ready(kube, namespace), timeout=180)
    except AssertionError:
        for container in ("epp", "envoy-proxy"):
            print(kube.run("logs", "-n", namespace, "deploy/" + RELEASE + "-epp", "-c", container,
                           check=False).stdout[-3000:])
        raise
    # as the post-renderer sets it; the EPP ran with the chart's arguments and the values' config for the stand-in
    assert pod["spec"]["securityContext"]["runAsUser"] == 65532
    args = [c for c in pod["spec"]["containers"] if c["name"] == "epp"][0]["args"]
    assert args[args.index("--config-file") + 1] == "/config/lab-standin-plugins.yaml"
    assert "--health-checking=true" in args
    logs = kube.run("logs", "-n", namespace, pod["metadata"]["name"], "-c", "epp", check=False).stdout
    assert "loaded configuration from file/text successfully" in logs, logs[-3000:]
