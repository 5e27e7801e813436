# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The air-gap runbook on the lab: bundle.yml with no registry reachable (Harbor at a closed port, every proxy
closed), load.yml into the lab registry, then site.yml from the lock file load.yml wrote, with
aips_allow_unpinned false. Everything is deployed by digest: every pod image of the two models (decode, EPP,
pull Job) is a reference by the lock's digest, each Helm release's chart is the lock's, and the lab registry's
access log (lab/labkit/registry.py turns it on) shows no manifest request by tag for anything the lock pins.

What is real: the lab cluster, its containerd, the registry stand-in for Harbor, Helm and the real charts, the
lab's images (from the OCI layout the lab builds them into) and MiniLM. The images and charts go into a
project of this test's own (the lab values' images-shaide/ replaced), so no other session's pulls by tag of
the shared projects can show in the log window; the EPP image still comes through the nodes' registry.k8s.io
mirror (its chart takes no pull secret), at the lock's digest.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess
import time

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks
from ansible_collections.ai_platform.serving.tests.support import HARBOR, hub
from ansible_collections.ai_platform.serving.tests.support.bundle import (
    bundle_vars, closed_port, lab_images, offline_env, run_playbook)
from ansible_collections.ai_platform.serving.tests.support.lab import CHART_MIRRORS, UPSTREAM_CHARTS
from ansible_collections.ai_platform.serving.tests.support.site import values_path

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


def test_bundle_carry_load_and_site_deploy_everything_by_digest(stack, lab, kube, minilm_hub, tmp_path):
    project = "airgap-%s" % stack.suffix
    images, sources = lab_images()
    images = [dict(image, project=project) for image in images]
    charts = [dict(chart, project=project) for chart in CHART_MIRRORS]
    for category in ("embedder", "generative"):
        path = values_path(stack.models_dir, category, stack.names[category], stack.slug(category), "ms")
        with open(path) as handle:
            text = handle.read()
        with open(path, "w") as handle:
            handle.write(text.replace("%s/images-shaide/" % HARBOR, "%s/%s/" % (HARBOR, project)))
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

    # every pod image of both models by the lock's digest
    digests = set(entry["digest"] for entry in lock["images"].values())
    for category in ("embedder", "generative"):
        found = pod_images(kube, stack.namespace(category))
        assert found, category
        for where, image in found.items():
            assert "@sha256:" in image and image.rsplit("@", 1)[1] in digests, (category, where, image)
    job = kube.get("job", "%s-model-pull" % stack.slug("embedder"), stack.namespace("embedder"))
    job_images = [container["image"] for container in job["spec"]["template"]["spec"]["containers"]]
    assert job_images and all(image == lock["images"]["ghcr.io/oras-project/oras:v1.3.1"]["pinned_reference"]
                              for image in job_images), job_images
    claim = kube.get("pvc", "%s-model" % stack.slug("embedder"), stack.namespace("embedder"))
    assert claim["metadata"]["annotations"]["ai-platform.serving/digest"] == model_entry["digest"]

    # each release's chart is the lock's (name-version), pulled by the lock's manifest digest
    requests = manifest_requests(log, mark)
    # the lock carries every stack's charts; the models (on the seed's stack) install the seed's three
    seed_charts = set(stacks.chart_names().values())
    installed = dict((name, entry) for name, entry in lock["charts"].items() if name in seed_charts)
    assert len(installed) == len(seed_charts), lock["charts"]
    for category in ("embedder", "generative"):
        listed = helm_releases(kube, stack.namespace(category))
        assert sorted(release["chart"] for release in listed) == sorted(
            "%s-%s" % (name, entry["version"]) for name, entry in installed.items()), listed
    for name, entry in installed.items():
        assert ("%s/%s" % (project, name), entry["digest"]) in requests, (name, requests)

    # no manifest request by tag for anything the lock pins: its images (Harbor path and mirror path), charts, model
    pinned = set("%s/%s" % (project, image.get("path") or image["source"].split("/", 1)[1].rsplit(":", 1)[0])
                 for image in images)
    pinned |= set(image["source"].split("/", 1)[1].rsplit(":", 1)[0] for image in images)
    pinned |= set("%s/%s" % (project, name) for name in lock["charts"])
    pinned.add("ai-models/%s" % stack.repository)
    by_tag = [(name, ref) for name, ref in requests if name in pinned and not ref.startswith("sha256:")]
    assert by_tag == [], by_tag
    print("registry manifest requests of the deploy: %d, by digest %d, by tag of a pinned item %d"
          % (len(requests), len([r for r in requests if r[1].startswith("sha256:")]), len(by_tag)))
