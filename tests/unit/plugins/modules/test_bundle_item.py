# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""bundle_item's source of an image: O(source_ref), else the O(source_refs) entry naming the same image (a Docker
Hub short name as the key of a fully qualified image), as playbooks/bundle.yml passes aips_bundle_image_sources."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.modules import bundle_item
from ansible_collections.ai_platform.serving.tests.support import ROOT

SOURCES = {"vllm/vllm-openai:v0.14.1-cu130": "oci:/srv/mirror:vllm", "busybox:1.36": "oci:/srv/mirror:busybox"}


@pytest.mark.parametrize("image, source_ref, wanted", [
    ("docker.io/vllm/vllm-openai:v0.14.1-cu130", None, "oci:/srv/mirror:vllm"),
    ("index.docker.io/library/busybox:1.36", None, "oci:/srv/mirror:busybox"),
    ("docker.io/library/busybox:1.36", "oci:/elsewhere:busybox", "oci:/elsewhere:busybox"),
    ("ghcr.io/llm-d/llm-d-cuda:v0.3.0", None, None),
])
def test_an_image_is_read_from_the_source_its_normalised_name_finds(image, source_ref, wanted):
    params = {"kind": "image", "image": image, "source_ref": source_ref, "source_refs": SOURCES}
    assert bundle_item.image_source_ref(params) == wanted


def test_the_bundle_playbook_hands_the_sources_to_the_module_not_an_exact_lookup():
    with open(os.path.join(ROOT, "playbooks", "bundle.yml")) as handle:
        text = handle.read()
    tasks = [t for t in yaml.safe_load(text)[0]["tasks"] if t.get("name") == "Write each image as an OCI archive"]
    assert tasks[0]["ai_platform.serving.bundle_item"]["source_refs"] == "{{ _bundle_image_sources }}"
    assert "source_ref" not in tasks[0]["ai_platform.serving.bundle_item"]
    assert "_bundle_image_sources[" not in text
    assert "source_refs" in bundle_item.argspec()
