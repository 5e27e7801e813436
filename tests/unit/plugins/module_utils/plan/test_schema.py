# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one record schema: model_plan's RETURN documents it, record_problems checks records against it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import schema as plan_schema
from ansible_collections.ai_platform.serving.plugins.modules import model_plan


def _documented():
    return yaml.safe_load(model_plan.RETURN)["records"]["contains"]


def test_model_plan_documents_every_record_field():
    assert sorted(_documented()) == sorted(field for field, _what in plan_schema.RECORD_FIELDS)


def test_model_plan_documents_every_storage_mode_and_field():
    text = " ".join(_documented()["storage"]["description"])
    for mode, fields in plan_schema.STORAGE_FIELDS.items():
        assert "V(%s)" % mode in text
        for field, _what in fields:
            assert re.search(r"\b%s\b" % field, text), field


def test_record_problems_name_missing_and_unknown_fields_and_modes():
    record = dict((field, None) for field, _what in plan_schema.RECORD_FIELDS)
    record["storage"] = {"mode": plan_schema.STORAGE_NONE, "job_affinity": None}
    assert plan_schema.record_problems(record) == []
    del record["slug"]
    record["extra"] = 1
    record["storage"] = {"mode": plan_schema.STORAGE_CLAIM, "job_affinity": None, "claim": "c", "sub_path": "m",
                         "namespace": "n", "model_artifacts_uri": "pvc://c/m", "pvc": "x"}
    assert plan_schema.record_problems(record) == ["missing field slug", "unknown field extra",
                                                   "unknown field storage.pvc"]
    record["storage"] = {"mode": "nfs"}
    assert "storage.mode 'nfs' is not one of harbor, claim, none" in plan_schema.record_problems(record)
