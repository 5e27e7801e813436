# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every role does first with the plan: check its records and select the ones to handle.

One function serves hostpath_dirs, model_storage and serving_stack (the ``plan_records`` filter), so a
role given no plan, a list that is not made of plan records, or a slug the plan does not hold fails the
same way, naming the role's variable and what to do.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import STORAGE_MODES

RECORD_KEYS = ("slug", "names", "storage")


class PlanRecordsError(ValueError):
    pass


def _shown(value, limit=200):
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def select(plan, models=None, role="role"):
    """The records of ``plan`` to handle: all of them, or those whose slug ``models`` names.

    ``plan`` None means no plan was built (the roles default to the ``aips_plan`` fact, which the plan
    play sets); an empty list is a plan of no models and selects nothing.
    """
    variable = "%s_plan" % role
    if plan is None:
        raise PlanRecordsError(
            "%s: no model plan was built (%s is unset and so is aips_plan): run the role after the plan, as "
            "playbooks/site.yml does (its first play imports playbooks/tasks/model_plan.yml), or pass %s "
            "the records of ai_platform.serving.model_plan ([] to handle no model)" % (role, variable, variable))
    if not isinstance(plan, list):
        raise PlanRecordsError("%s must be the list of ai_platform.serving.model_plan records; got %s"
                               % (variable, _shown(plan)))
    for index, record in enumerate(plan):
        if not isinstance(record, dict) or any(key not in record for key in RECORD_KEYS) \
                or not isinstance(record.get("names"), dict) or not isinstance(record.get("storage"), dict):
            raise PlanRecordsError(
                "%s[%d] is not an ai_platform.serving.model_plan record (it needs slug, names and storage); "
                "got %s" % (variable, index, _shown(record)))
    models = list(models or [])
    if not models:
        return list(plan)
    slugs = [record["slug"] for record in plan]
    unknown = [slug for slug in models if slug not in slugs]
    if unknown:
        raise PlanRecordsError("%s_models names %s, not in the plan (plan slugs: %s)"
                               % (role, ", ".join(unknown), ", ".join(slugs) or "none"))
    return [record for record in plan if record["slug"] in models]


def by_storage_mode(records):
    """``records`` split by ``storage.mode``: one list per mode of the schema (empty when none has it), plan order."""
    split = dict((mode, []) for mode in STORAGE_MODES)
    for record in records:
        split.setdefault(record["storage"].get("mode"), []).append(record)
    return split
