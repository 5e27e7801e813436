# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan family (plugins/filter/plan.py), its filters imported as plain functions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import plan

HARBOR = "harbor.harbor.svc.cluster.local"
DIGEST = "sha256:" + "e" * 64


def test_the_lock_sections_filter_and_the_pin_filters_gone():
    """bundle_lock_sections stays a filter (load.yml); the pins are the plan's (plan/artifacts.py), not filters."""
    filters = plan.FilterModule().filters()
    sections = filters["bundle_lock_sections"](
        [{"item": {"kind": "chart", "name": "inferencepool", "version": "v1.2.0", "project": "charts"},
          "manifest_digest": DIGEST}], HARBOR)
    assert sections["images"] == {} and sections["charts"]["inferencepool"]["digest"] == DIGEST
    assert sections["charts"]["inferencepool"]["pinned_reference"] == "oci://%s/charts/inferencepool@%s" % (HARBOR, DIGEST)
    assert not set(filters) & {"stack_charts", "image_pins", "locked_images", "pin_charts"}
    assert set(filters) == {"plan_records", "image_plan", "chart_plan", "model_sync_reference", "model_sync_published",
                            "bundle_lock_sections"}


def test_plan_records_selects_and_names_the_role():
    records = [{"slug": "a", "names": {}, "storage": {}}, {"slug": "b", "names": {}, "storage": {}}]
    assert plan.plan_records(records) == records
    assert plan.plan_records(records, ["b"], "model_storage") == [records[1]]
    assert plan.plan_records([]) == []
    claims = [dict(records[1], storage={"mode": "claim"})]
    assert plan.plan_records(claims, role="model_storage", by_mode=True) == {"harbor": [], "claim": claims, "none": []}
    with pytest.raises(AnsibleFilterError, match="model_storage_models names c, not in the plan"):
        plan.plan_records(records, ["c"], "model_storage")
    with pytest.raises(AnsibleFilterError, match="hostpath_dirs: no model plan was built"):
        plan.plan_records(None, role="hostpath_dirs")


def test_image_and_chart_plans():
    image = plan.image_plan([{"source": "registry.k8s.io/x/epp:v1", "project": "images-shaide"}], HARBOR)[0]
    assert image["destination"] == HARBOR + "/images-shaide/x/epp:v1"
    chart = plan.chart_plan([{"name": "inferencepool", "version": "v1.2.0", "project": "charts"}], HARBOR)[0]
    assert chart["destination"] == "oci://%s/charts/inferencepool" % HARBOR
    assert chart["archive"] == "inferencepool-v1.2.0.tgz"
    with pytest.raises(AnsibleFilterError, match="image_plan: the images must be a list"):
        plan.image_plan("x", HARBOR)
    with pytest.raises(AnsibleFilterError, match="chart_plan: a chart entry needs name, version and project"):
        plan.chart_plan([{"name": "inferencepool"}], HARBOR)


def test_model_sync_reference_and_published():
    entry = {"repo_id": "Qwen/Qwen3-0.6B", "tag": "v1"}
    assert plan.model_sync_reference(entry, "reg") == "reg/ai-models/qwen3-0.6b:v1"
    assert plan.model_sync_reference(entry, "reg", "p") == "reg/p/qwen3-0.6b:v1"
    with pytest.raises(AnsibleFilterError, match="model_sync_reference: a model_sync_models entry needs repo_id and tag"):
        plan.model_sync_reference({"repo_id": "o/n"}, "reg")
    published = plan.model_sync_published([entry, {"repo_id": "o/n"}, "x"], "reg", "")
    assert published == [{"repo_id": "Qwen/Qwen3-0.6B", "reference": "reg/ai-models/qwen3-0.6b:v1"}]
    with pytest.raises(AnsibleFilterError, match="model_sync_published: expects the model_sync_models list"):
        plan.model_sync_published({"repo_id": "o/n"}, "reg")
