# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which claims are pruned, and the annotation patch that keeps the rest."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import revisions as model_revisions
from ansible_collections.ai_platform.serving.tests.support.storage_records import V1, V2, V3, load_records, revisions_annotations


@pytest.fixture
def records():
    return load_records()


def test_only_claims_that_keep_too_much_are_pruned_and_their_annotation_keeps_the_rest(records):
    record = records["on_prem"]
    full = {"metadata": {"namespace": record["namespace"], "name": record["storage"]["pvc"],
                         "annotations": revisions_annotations(V3, V3, V2, V1)}}
    found = model_revisions.plan_prunes([record, records["claim"]], [full], 1)
    assert [(r["slug"], kept, dropped) for r, _a, kept, dropped in found] == [(record["slug"], [V3, V2], [V1])]
    assert model_revisions.plan_prunes([record], [full], 2) == []
    patch = model_revisions.kept_revisions_patch(record, full["metadata"]["annotations"], [V3, V2])
    assert [r["digest"] for r in pull_marker.claim_revisions(patch["metadata"]["annotations"])] == [V3, V2]
