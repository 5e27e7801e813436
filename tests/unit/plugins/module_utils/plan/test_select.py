# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select as plan_records


def record(slug):
    return {"slug": slug, "names": {"namespace": "llm-d-" + slug}, "storage": {"mode": "harbor"}}


PLAN = [record("a"), record("b"), record("c")]


def test_every_record_without_a_selection_and_the_named_ones_in_plan_order():
    assert plan_records.select(PLAN, [], "model_storage") == PLAN
    assert [r["slug"] for r in plan_records.select(PLAN, ["c", "a"], "model_storage")] == ["a", "c"]
    assert plan_records.select([], None, "serving_stack") == []


@pytest.mark.parametrize("plan, models, words", [
    (None, [], ["serving_stack: no model plan was built", "serving_stack_plan", "playbooks/site.yml", "[]"]),
    ({"slug": "a"}, [], ["serving_stack_plan must be the list", "'slug'"]),
    ([record("a"), {"slug": "b"}], [], ["serving_stack_plan[1]", "needs slug, names and storage"]),
    ([dict(record("a"), names="x")], [], ["serving_stack_plan[0]"]),
    (PLAN, ["a", "zz", "yy"], ["serving_stack_models names zz, yy", "plan slugs: a, b, c"]),
])
def test_what_cannot_be_handled_is_named(plan, models, words):
    with pytest.raises(plan_records.PlanRecordsError) as err:
        plan_records.select(plan, models, "serving_stack")
    for word in words:
        assert word in str(err.value)


def test_records_split_by_storage_mode_keep_plan_order_and_every_mode():
    claim = dict(record("d"), storage={"mode": "claim"})
    split = plan_records.by_storage_mode([record("a"), claim, record("b")])
    assert [r["slug"] for r in split["harbor"]] == ["a", "b"]
    assert split["claim"] == [claim] and split["none"] == []
    assert plan_records.by_storage_mode([]) == {"harbor": [], "claim": [], "none": []}
