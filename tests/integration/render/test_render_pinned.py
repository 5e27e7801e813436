# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pinned deploys through playbooks/render.yml on inventory/rke2 (on-prem), with the real charts: with no lock
file and aips_allow_unpinned false (the default) the model plan fails naming each unpinned chart, before the values
step; with a lock file pinning only the charts, the values step fails naming each unpinned image; with a lock file
pinning the carried images and charts, every image of the rendered manifests is a reference by the lock's digest.

The lock file is written here in load.yml's format (the digests are made up: `helm template` pulls nothing);
tests/integration/airgap runs the real bundle, load and deploy on the lab.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import chart_lock, image_lock
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import CARRIED, CHART_MIRRORS

from test_render_models import KUBE_VERSION, charts_dir, helm_binary, images, manifests  # pylint: disable=import-error


def digest(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def render(tmp_path, **extra):
    out = str(tmp_path / "render")
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               AIPS_HARBOR_TOKEN="render-test-token")
    variables = dict({"aips_render_dir": out, "aips_render_chart_dir": charts_dir(),
                      "aips_render_kube_version": KUBE_VERSION, "serving_stack_helm_binary": helm_binary()}, **extra)
    proc = subprocess.run(["ansible-playbook", "-i", os.path.join(ROOT, "inventory", "rke2"),
                           os.path.join(ROOT, "playbooks", "render.yml"), "-e", json.dumps(variables)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    return proc, out


def chart_items():
    return [{"kind": "chart", "name": chart["name"], "version": chart["version"], "project": chart["project"],
             "manifest_digest": digest(chart["name"])} for chart in CHART_MIRRORS]


def test_unpinned_on_prem_fails_naming_each_chart_in_the_plan_then_each_image(tmp_path):
    proc, _out = render(tmp_path)
    assert proc.returncode != 0, proc.stdout[-3000:]
    text = " ".join(proc.stdout.split())
    for key, name, version in (("infra", "llm-d-infra", "v1.3.0"), ("gaie", "inferencepool", "v1.2.0"),
                               ("modelservice", "llm-d-modelservice", "v0.4.12")):
        assert "chart %s (oci://%s/charts/%s %s) is not pinned" % (key, HARBOR, name, version) in text, text[-4000:]
    assert "The model plan has 3 problems" in text and "aips_allow_unpinned: true" in text, text[-4000:]
    assert "Compute every model's releases and objects" not in text  # refused by the plan, before the values step
    # the charts pinned, the images not: the values step names each unpinned image
    lock = tmp_path / "charts.lock.yml"
    lock.write_text(yaml.safe_dump({"lock_version": 1, "models": {}, "images": {},
                                    "charts": chart_lock(chart_items(), HARBOR)}))
    proc, _out = render(tmp_path, aips_lock_file=str(lock))
    assert proc.returncode != 0, proc.stdout[-3000:]
    text = " ".join(proc.stdout.split())
    assert ("Qwen3-0.6B-rke2: modelservice values decode.containers[0].image = %s/images-shaide/llm-d/llm-d-cuda:v0.3.0 "
            "is not pinned: the lock file %s has no digest for it" % (HARBOR, lock)) in text, text[-4000:]
    assert "chart gaie" not in text and "aips_allow_unpinned: true" in text, text[-4000:]


def carried_lock(tmp_path):
    """A lock file in load.yml's format pinning every carried image and chart (made-up digests); its items."""
    items = [{"kind": "image", "name": image["source"], "project": image["project"], "image_path": image.get("path"),
              "digest": digest(image["source"])} for image in CARRIED["aips_images"]]
    items += chart_items()
    lock = tmp_path / "models.lock.yml"
    lock.write_text(yaml.safe_dump({"lock_version": 1, "models": {}, "images": image_lock(items, HARBOR),
                                    "charts": chart_lock(items, HARBOR)}))
    return lock, items


def test_a_lock_file_pins_every_rendered_image(tmp_path):
    lock, items = carried_lock(tmp_path)
    proc, out = render(tmp_path, aips_lock_file=str(lock))
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    wanted = set(item["digest"] for item in items if item["kind"] == "image")
    with open(os.path.join(out, "plan.json")) as handle:
        plan = json.load(handle)
    found = []
    for record in plan["records"]:
        for chart in ("infra", "gaie", "modelservice"):
            for image in images(manifests(out, record["slug"], chart)):
                found.append(image)
                assert "@sha256:" in image and image.rsplit("@", 1)[1] in wanted, (record["slug"], chart, image)
    assert len(found) >= 4, found


@pytest.mark.parametrize("mode", ["standalone", "gateway"])
def test_a_lock_file_pins_every_image_of_the_v010_stack(tmp_path, mode):
    """The llm-d v0.10 stack (aips_serving_stack), in both router modes: the router chart (standalone or gateway)
    installs by the lock's digest, and every image of the rendered router (EPP, and standalone's Envoy sidecar) and
    of the model server objects is Harbor's, by the lock's digest."""
    lock, items = carried_lock(tmp_path)
    extra = {"aips_router_mode": "gateway", "aips_router_gateway": {"name": "gw", "namespace": "gateway-system"}} \
        if mode == "gateway" else {}
    proc, out = render(tmp_path, aips_lock_file=str(lock), aips_serving_stack="llm-d-v0.10", **extra)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    wanted = set(item["digest"] for item in items if item["kind"] == "image")
    with open(os.path.join(out, "plan.json")) as handle:
        plan = json.load(handle)
    key = "router_gateway" if mode == "gateway" else "router"
    router_chart = [chart for chart in CHART_MIRRORS if chart.get("key") == key][0]
    assert plan["charts"][key]["pinned_ref"] == "oci://%s/charts/%s@%s" % (
        HARBOR, router_chart["name"], digest(router_chart["name"])), plan["charts"][key]
    for record in plan["records"]:
        assert record["stack"] == "llm-d-v0.10" and record["router_mode"] == mode, record["slug"]
        found = []
        for chart in (key, "modelserver"):
            for image in images(manifests(out, record["slug"], chart)):
                found.append(image)
                assert image.startswith(HARBOR + "/"), (record["slug"], chart, image)
                assert "@sha256:" in image and image.rsplit("@", 1)[1] in wanted, (record["slug"], chart, image)
        # the EPP (and standalone's Envoy sidecar) and at least one model server container
        assert len(found) >= (3 if mode == "standalone" else 2), found
        assert any("llm-d-router-endpoint-picker" in image for image in found), found
        assert any("envoy" in image for image in found) == (mode == "standalone"), found
