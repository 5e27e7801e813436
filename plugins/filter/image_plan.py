# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters of the image plan (module_utils/plan/images.py); docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as plan
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def image_plan(images, harbor):
    return filter_call("image_plan", plan.image_plan, images, harbor)


def chart_plan(charts, harbor):
    return filter_call("chart_plan", plan.chart_plan, charts, harbor)


def model_sync_reference(entry, registry, project=None):
    if not isinstance(entry, dict) or not entry.get("repo_id") or not entry.get("tag"):
        raise AnsibleFilterError("model_sync_reference: a model_sync_models entry needs repo_id and tag: %r" % (entry,))
    return plan.sync_reference(entry, registry, project)


def model_sync_published(entries, registry, project=None):
    if not isinstance(entries, (list, tuple)):
        raise AnsibleFilterError("model_sync_published: expects the model_sync_models list")
    return plan.sync_published(entries, registry, project or None)


def bundle_lock_sections(items, harbor):
    """The lock file's images and charts sections from the items load.yml pushed."""
    # load.yml's loop results (the lock entry under item, manifest_digest beside it) or the entries themselves
    entries = [dict(entry["item"], manifest_digest=entry.get("manifest_digest"))
               if isinstance(entry.get("item"), dict) else entry for entry in items or [] if isinstance(entry, dict)]
    return filter_call("bundle_lock_sections", lambda: {"images": plan.image_lock(entries, harbor),
                                                        "charts": plan.chart_lock(entries, harbor)})


class FilterModule(object):
    def filters(self):
        return {
            "image_plan": image_plan,
            "chart_plan": chart_plan,
            "model_sync_reference": model_sync_reference,
            "model_sync_published": model_sync_published,
            "bundle_lock_sections": bundle_lock_sections,
        }
