# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The plan records a role handles, checked (the roles' first step), and the plan's hostPath root."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select as records
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import DEFAULT_HOSTPATH_ROOT


def plan_records(plan, models=None, role="role"):
    try:
        return records.select(plan, models, role)
    except records.PlanRecordsError as exc:
        raise AnsibleFilterError(str(exc))


def hostpath_root(root=None):
    if root is not None and not isinstance(root, str):
        raise AnsibleFilterError("hostpath_root: expects a directory path or an empty value, got %r" % (root,))
    return root or DEFAULT_HOSTPATH_ROOT


class FilterModule(object):
    def filters(self):
        return {"plan_records": plan_records, "hostpath_root": hostpath_root}
