# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The plan family: the plan records a role handles, the image and chart plans, what model_sync publishes and the
lock file's sections (module_utils/plan/select.py, plan/images.py). Docs in the <filter>.yml files beside this one;
tests in tests/unit/plugins/filter/test_plan.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as plan_images, select
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def plan_records(plan, models=None, role="role", by_mode=False):
    """The plan records a role handles, checked (the roles' first step); with ``by_mode`` split by storage mode."""
    try:
        records = select.select(plan, models, role)
    except select.PlanRecordsError as exc:
        raise AnsibleFilterError(str(exc))
    return select.by_storage_mode(records) if by_mode else records


def image_plan(images, harbor):
    return filter_call("image_plan", plan_images.image_plan, images, harbor)


def chart_plan(charts, harbor):
    return filter_call("chart_plan", plan_images.chart_plan, charts, harbor)


def model_sync_reference(entry, registry, project=None):
    if not isinstance(entry, dict) or not entry.get("repo_id") or not entry.get("tag"):
        raise AnsibleFilterError("model_sync_reference: a model_sync_models entry needs repo_id and tag: %r" % (entry,))
    return plan_images.sync_reference(entry, registry, project)


def model_sync_published(entries, registry, project=None):
    if not isinstance(entries, (list, tuple)):
        raise AnsibleFilterError("model_sync_published: expects the model_sync_models list")
    return plan_images.sync_published(entries, registry, project or None)


def bundle_lock_sections(items, harbor):
    """The lock file's images and charts sections from the items load.yml pushed."""
    return filter_call("bundle_lock_sections", plan_images.lock_sections, items, harbor)


class FilterModule(object):
    def filters(self):
        return {
            "plan_records": plan_records,
            "image_plan": image_plan,
            "chart_plan": chart_plan,
            "model_sync_reference": model_sync_reference,
            "model_sync_published": model_sync_published,
            "bundle_lock_sections": bundle_lock_sections,
        }
