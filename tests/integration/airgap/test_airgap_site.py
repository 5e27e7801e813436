# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The air-gap runbook on the lab: bundle.yml with no registry reachable (Harbor at a closed port, every proxy
closed), load.yml into the lab registry, then site.yml from the lock file load.yml wrote, with
aips_allow_unpinned false, one model on each serving stack (the model entry's ``stack``, conftest.py): the embedder
on the seed's (llm-d-infra, inferencepool, llm-d-modelservice), the generative model on llm-d v0.10's (the
llm-d-router-standalone release router-<slug>, the model server objects of modelserver-<slug>/). One run of the
runbook covers both. Everything is deployed by digest: every pod image of the two models (seed: decode, EPP, pull
Job; v0.10: the EPP and Envoy containers of router-<slug>-epp, the model server Deployment's pods) is a reference by
the lock's digest of its image, each Helm release's chart is the lock's (seed: its three charts; v0.10:
llm-d-router-standalone), pulled by the lock's manifest digest, and the lab registry's access log
(lab/labkit/registry.py turns it on) shows no manifest request by tag for anything the lock pins.

What is real: the lab cluster, its containerd, the registry stand-in for Harbor, Helm and the real charts, the
lab's images (from the OCI layout the lab builds them into, the v0.10 router's stand-ins included: docs/lab.md) and
MiniLM. The images and charts go into a project of this test's own (images-shaide/ replaced in every values and
model-server file of the models), so no other session's pulls by tag of the shared projects can show in the log
window; the seed's EPP image still comes through the nodes' registry.k8s.io mirror (its chart takes no pull
secret), at the lock's digest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import time

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import parse_oci_reference
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import router, stacks
from ansible_collections.ai_platform.serving.tests.support import HARBOR, hub
from ansible_collections.ai_platform.serving.tests.support.bundle import (
    LAB_BUILT, ROUTER_BUILT, bundle_vars, closed_port, lab_images, offline_env, run_playbook)
from ansible_collections.ai_platform.serving.tests.support.lab import CHART_MIRRORS, UPSTREAM_CHARTS

# llm-d v0.10's router images (the chart's own references; the lab's stand-ins are pushed under them)
ROUTER_EPP, ENVOY = router.ROUTER_IMAGES["epp"], router.ROUTER_IMAGES["proxy"]
MANIFEST_REQUEST = re.compile(r'"(?:GET|HEAD) /v2/(?P<name>[^ ?]+)/manifests/(?P<ref>[^ ?"]+)')


def registry_log():
    from labkit import config  # pylint: disable=import-outside-toplevel,import-error
    return os.path.join(str(config.lab_paths().root), "logs", "registry.log")


def manifest_requests(log, mark):
    with open(log) as handle:
        handle.seek(mark)
        return [(match.group("name"), match.group("ref")) for match in map(MANIFEST_REQUEST.search, handle) if match]


def pod_images(kube, namespace):
    pods = json.loads(kube.run("get", "pods", "-n", namespace, "-o", "json").stdout)["items"]
    return dict(("%s/%s" % (pod["metadata"]["name"], container["name"]), container["image"])
                for pod in pods for key in ("initContainers", "containers")
                for container in pod["spec"].get(key) or [])


def helm_releases(kube, namespace):
    proc = subprocess.run(["helm", "list", "-n", namespace, "-o", "json"], env=kube.env, capture_output=True,
                          text=True, check=True)
    return json.loads(proc.stdout)


def tag_pulls_of_others(kube, namespaces):
    """``(repository path, tag)`` of every image a pod outside ``namespaces`` names by tag: what other sessions on the
    lab pull by tag, through a node mirror too (the mirror serves the repository path without its registry)."""
    pods = json.loads(kube.run("get", "pods", "-A", "-o", "json").stdout)["items"]
    found = set()
    for pod in pods:
        if pod["metadata"]["namespace"] in namespaces:
            continue
        for key in ("initContainers", "containers"):
            for container in pod["spec"].get(key) or []:
                try:
                    ref = parse_oci_reference(container["image"])
                except ValueError:
                    continue
                if ref["tag"] and not ref.get("digest"):
                    found.add((ref["repository"], ref["tag"]))
    return found


def carried(images, repository):
    """The source of the carried image of ``repository`` (registry/repository, no tag)."""
    return [image["source"] for image in images if image["source"].rsplit(":", 1)[0] == repository][0]


def own_project(models_dir, category, name, project):
    """Every values and model-server file of the model with the lab's images-shaide project replaced by
    ``project`` (both forms the files write: ``<harbor>/images-shaide/<path>:<tag>`` and the router's
    ``registry: <harbor>/images-shaide``)."""
    top = os.path.join(models_dir, category, name)
    for folder, _dirs, files in os.walk(top):
        for entry in files:
            path = os.path.join(folder, entry)
            with open(path) as handle:
                text = handle.read()
            with open(path, "w") as handle:
                handle.write(text.replace("%s/images-shaide" % HARBOR, "%s/%s" % (HARBOR, project)))


def test_bundle_carry_load_and_site_deploy_everything_by_digest(stack, lab, kube, minilm_hub, tmp_path):
    project = "airgap-%s" % stack.suffix
    images, sources = lab_images(LAB_BUILT + ROUTER_BUILT)
    images = [dict(image, project=project) for image in images]
    charts = [dict(chart, project=project) for chart in CHART_MIRRORS]
    for category in ("embedder", "generative"):
        own_project(stack.models_dir, category, stack.names[category], project)
    model = dict(repo_id=hub.MINILM_REPO, revision="main", tag="v1", source="local_cache", local_path=minilm_hub,
                 artifact=stack.repository)

    # internet side: nothing reachable
    bundle_dir = tmp_path / "bundle"
    variables = bundle_vars(bundle_dir, tmp_path / "bundle-work", "127.0.0.1:%d" % closed_port(),
                            aips_bundle_images=images, aips_bundle_image_sources=sources,
                            aips_bundle_charts=charts, aips_bundle_models=[model])
    started = time.monotonic()
    bundled = run_playbook("bundle.yml", variables, tmp_path, env=offline_env())
    bundle_seconds = time.monotonic() - started
    assert bundled.rc == 0, bundled
    with open(str(bundle_dir / "bundle.lock.yml")) as handle:
        bundle_lock = yaml.safe_load(handle)
    total = bundle_lock["total"]
    print("bundle: %d items, %d bytes in %.1f s" % (total["items"], total["size"], bundle_seconds))

    # air-gapped side: load into the lab registry
    lock_file = str(tmp_path / "models.lock.yml")
    load = dict(aips_load_bundle_dir=str(bundle_dir), aips_load_registry=HARBOR, aips_load_projects=False,
                aips_load_lock_file=lock_file, aips_harbor_hostname=HARBOR,
                harbor_upload_user=lab["AIPS_LAB_HARBOR_USER"], harbor_upload_token=lab["AIPS_LAB_HARBOR_TOKEN"],
                harbor_upload_registry_ca_file=lab["AIPS_LAB_CA"])
    started = time.monotonic()
    loaded = run_playbook("load.yml", load, tmp_path, env=lab)
    print("load: %.1f s" % (time.monotonic() - started))
    assert loaded.rc == 0, loaded
    with open(lock_file) as handle:
        lock = yaml.safe_load(handle)
    assert sorted(lock["images"]) == sorted(image["source"] for image in images), lock
    assert sorted(lock["charts"]) == sorted(chart["name"] for chart in charts), lock
    model_entry = lock["models"]["%s/ai-models/%s:v1" % (HARBOR, stack.repository)]

    # site.yml from the lock file, pins required (the lab inventory's switch off)
    log = registry_log()
    mark = os.path.getsize(log)
    started = time.monotonic()
    site = stack.site(aips_lock_file=lock_file, aips_allow_unpinned=False, aips_images=images,
                      aips_chart_mirrors=charts, aips_site_upload=False,
                      harbor_upload_chart_dir=UPSTREAM_CHARTS)
    print("site.yml from the lock: %.1f s" % (time.monotonic() - started))
    assert site.rc == 0, str(site)

    # every pod image of both models by the lock's digest, and each serving pod's images its own images'
    digests = set(entry["digest"] for entry in lock["images"].values())
    slugs = dict((category, stack.slug(category)) for category in ("embedder", "generative"))
    # {category: {pod name prefix: the sources of its containers' images}}
    serving = {
        # the seed's: the decode pods of llm-d-modelservice (fullnameOverride: the slug), GAIE's EPP
        "embedder": {"%s-decode-" % slugs["embedder"]: [carried(images, "docker.io/michaelf34/infinity")],
                     "gaie-%s-epp-" % slugs["embedder"]: [
                         carried(images, "registry.k8s.io/gateway-api-inference-extension/epp")]},
        # llm-d v0.10's: the router's EPP pod (the EPP and its Envoy sidecar), the model server Deployment of
        # modelserver-<slug>/deployment.yaml (<slug>-sim-decode)
        "generative": {"router-%s-epp-" % slugs["generative"]: [ROUTER_EPP, ENVOY],
                       "%s-sim-decode-" % slugs["generative"]: [carried(images, "ghcr.io/llm-d/llm-d-inference-sim")]},
    }
    pods = dict((category, pod_images(kube, stack.namespace(category))) for category in serving)
    for category, found in pods.items():
        assert found, category
        for where, image in found.items():
            assert "@sha256:" in image and image.rsplit("@", 1)[1] in digests, (category, where, image)
        for prefix, wanted in serving[category].items():
            got = sorted(set(image.rsplit("@", 1)[1] for where, image in found.items() if where.startswith(prefix)))
            assert got == sorted(lock["images"][source]["digest"] for source in wanted), (category, prefix, found)
    router_pod = [image for where, image in pods["generative"].items()
                  if where.startswith("router-%s-epp-" % slugs["generative"])]
    # the v0.10 images from the test's project in Harbor (the EPP pod's pull secret), not a mirror
    assert sorted(image.split("@", 1)[0].rsplit(":", 1)[0] for image in router_pod) == sorted(
        lock["images"][source]["reference"].rsplit(":", 1)[0] for source in (ROUTER_EPP, ENVOY)), router_pod
    job = kube.get("job", "%s-model-pull" % slugs["embedder"], stack.namespace("embedder"))
    job_images = [container["image"] for container in job["spec"]["template"]["spec"]["containers"]]
    assert job_images and all(image == lock["images"]["ghcr.io/oras-project/oras:v1.3.1"]["pinned_reference"]
                              for image in job_images), job_images
    claim = kube.get("pvc", "%s-model" % slugs["embedder"], stack.namespace("embedder"))
    assert claim["metadata"]["annotations"]["ai-platform.serving/digest"] == model_entry["digest"]

    # each release's chart is the lock's (name-version), pulled by the lock's manifest digest: the lock carries
    # every stack's charts; the embedder installs the seed's three, the generative model llm-d v0.10's router
    requests = manifest_requests(log, mark)
    installed = {}
    for category, stack_name in (("embedder", stacks.SEED.name), ("generative", stacks.V010.name)):
        names = set(stacks.chart_names(stack_name).values())
        wanted = dict((name, entry) for name, entry in lock["charts"].items() if name in names)
        assert len(wanted) == len(names), (category, lock["charts"])
        listed = helm_releases(kube, stack.namespace(category))
        assert sorted(release["chart"] for release in listed) == sorted(
            "%s-%s" % (name, entry["version"]) for name, entry in wanted.items()), (category, listed)
        installed.update(wanted)
    assert "router-%s" % slugs["generative"] in [release["name"] for release in
                                                 helm_releases(kube, stack.namespace("generative"))]
    for name, entry in installed.items():
        assert ("%s/%s" % (project, name), entry["digest"]) in requests, (name, requests)

    # no manifest request by tag for anything the lock pins: its images (Harbor path, and the mirror path of those
    # the pods pull through a node mirror), charts, model. The mirror paths are shared: other sessions on the lab
    # pull the v0.10 router's images through the ghcr.io/docker.io mirrors by tag (a CI run's lab checks, the
    # serving_stack tests), so only the paths this deploy pulls from count (here the seed's EPP, registry.k8s.io).
    pinned = set("%s/%s" % (project, image.get("path") or image["source"].split("/", 1)[1].rsplit(":", 1)[0])
                 for image in images)
    mirrored = set(image.split("@", 1)[0].split("/", 1)[1].rsplit(":", 1)[0] for found in pods.values()
                   for image in found.values() if not image.startswith("%s/%s/" % (HARBOR, project)))
    assert mirrored == set(["gateway-api-inference-extension/epp"]), mirrored
    pinned |= mirrored
    pinned |= set("%s/%s" % (project, name) for name in lock["charts"])
    pinned.add("ai-models/%s" % stack.repository)
    by_tag = [(name, ref) for name, ref in requests if name in pinned and not ref.startswith("sha256:")]
    # a by-tag request on a shared mirror path that a pod of another session names by that tag is that session's
    # (this deploy's pods name their images by digest, asserted above)
    others = tag_pulls_of_others(kube, [stack.namespace(category) for category in serving])
    theirs = [request for request in by_tag if request[0] in mirrored and request in others]
    by_tag = [request for request in by_tag if request not in theirs]
    assert by_tag == [], by_tag
    print("registry manifest requests of the deploy: %d, by digest %d, by tag of a pinned item %d (and %d by tag "
          "on a shared mirror path, of other sessions' pods)"
          % (len(requests), len([r for r in requests if r[1].startswith("sha256:")]), len(by_tag), len(theirs)))
