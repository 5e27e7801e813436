# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The air-gap bundle tests' helpers: the lab's images as bundle.yml reads them (the OCI layout the lab
builds them into), the variables of bundle.yml and load.yml, a closed network for the internet side."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import image_plan
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT
from ansible_collections.ai_platform.serving.tests.support import registry as lab_registry
from ansible_collections.ai_platform.serving.tests.support.lab import CARRIED, UPSTREAM_CHARTS
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook

# The images the lab builds (lab/labkit/images.py), carried by the product (group_vars/all/images.yml).
LAB_BUILT = ("ghcr.io/oras-project/oras", "ghcr.io/llm-d/llm-d-inference-sim",
             "registry.k8s.io/gateway-api-inference-extension/epp", "docker.io/michaelf34/infinity")
# The llm-d v0.10 router's images the lab builds stand-ins of (the EPP, the Envoy sidecar): a bundle of a site
# with a model on that stack carries them too.
ROUTER_BUILT = ("ghcr.io/llm-d/llm-d-router-endpoint-picker", "docker.io/envoyproxy/envoy")


def lab_layout():
    """The OCI layout the lab writes its images into (lab/labkit/images.py build_and_push)."""
    layout = os.path.join(os.environ.get("AIPS_LAB_DIR") or os.path.join(ROOT, ".lab"), "data", "oci-layout")
    if not os.path.isfile(os.path.join(layout, "index.json")):
        raise RuntimeError("%s holds no OCI layout: run lab/lab up (it builds the lab's images there)" % layout)
    return layout


def lab_images(built=LAB_BUILT):
    """The carried images the lab builds whose repository is in ``built`` (default: the seed stack's and the pull
    Job's; add ROUTER_BUILT for llm-d v0.10's router), and where bundle.yml reads each: the lab's layout, by the
    ref name the lab gives it (the source without its registry, '/' -> '_', ':' -> '-')."""
    layout = lab_layout()
    images = [image for image in CARRIED["aips_images"] if image["source"].rsplit(":", 1)[0] in built]
    refs = dict((image["source"], image["source"].split("/", 1)[1].replace("/", "_").replace(":", "-"))
                for image in images)
    sources = dict((source, "oci:%s:%s" % (layout, ref)) for source, ref in refs.items())
    return images, sources


def closed_port():
    """A loopback port nothing listens on."""
    return lab_registry.free_port()


def offline_env():
    """Every HTTP(S) client of the run (skopeo, helm, oras, huggingface_hub) sent to a closed port."""
    proxy = "http://127.0.0.1:%d" % closed_port()
    return dict(HTTPS_PROXY=proxy, HTTP_PROXY=proxy, https_proxy=proxy, http_proxy=proxy, NO_PROXY="", no_proxy="",
                HF_HUB_OFFLINE="1")


def bundle_vars(bundle_dir, work_dir, harbor, **extra):
    images, sources = lab_images()
    variables = dict(aips_bundle_dir=str(bundle_dir), aips_bundle_work_dir=str(work_dir),
                     aips_bundle_chart_dir=UPSTREAM_CHARTS, aips_bundle_images=images,
                     aips_bundle_image_sources=sources, aips_harbor_hostname=harbor)
    variables.update(extra)
    return variables


def load_vars(registry, tools, bundle_dir, lock_file, **extra):  # pylint: disable=redefined-outer-name
    variables = dict(aips_load_bundle_dir=str(bundle_dir), aips_load_registry=registry.relay_host,
                     aips_load_projects=False, aips_load_lock_file=str(lock_file),
                     harbor_upload_user=registry.user, harbor_upload_token=registry.password,
                     harbor_upload_registry_ca_file=registry.ca, harbor_upload_skopeo_path=tools["skopeo"],
                     harbor_upload_helm_path=tools["helm"], model_sync_oras_path=tools["oras"],
                     aips_harbor_hostname=HARBOR)
    variables.update(extra)
    return variables


def run_playbook(name, variables, workdir, env=None, verbosity=0, check=False):
    return ansible_playbook(env, os.path.join(ROOT, "playbooks", name), variables, workdir, verbosity=verbosity,
                            check=check, inventory=os.path.join(ROOT, "inventory", "lab"))


def image_destinations(lock, registry_host):
    """{lock item name: destination reference} of the images, from the image plan."""
    return dict((item["name"], image_plan([{"source": item["name"], "project": item["project"],
                                            "path": item["image_path"]}], registry_host)[0]["destination"])
                for item in lock["items"] if item["kind"] == "image")
