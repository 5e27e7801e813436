# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Before serving: does the claim hold the plan's artifact; which releases did an interrupted Helm run leave."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_repair
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, pull_marker


def claims_off_plan(claim_results):
    """One message per model whose claim records a pull of another artifact than its plan record's."""
    if not isinstance(claim_results, list):
        raise AnsibleFilterError("claims_off_plan: expects the results of a k8s_info loop over plan records")
    problems = []
    for result in claim_results:
        problem = claims.claim_plan_problem(result.get("item") or {}, pull_marker.looked_up_claim_annotations(result))
        if problem:
            problems.append(problem)
    return problems


def helm_repairs(helm_list, records, timeout="5m0s"):
    """The records' releases an interrupted Helm run left pending (or a failed first install), with the fix."""
    if not isinstance(helm_list, list):
        raise AnsibleFilterError("helm_repairs: expects the parsed output of helm list --all --output json")
    return helm_repair.repairs(helm_list, records, timeout)


class FilterModule(object):
    def filters(self):
        return {"claims_off_plan": claims_off_plan, "helm_repairs": helm_repairs}
