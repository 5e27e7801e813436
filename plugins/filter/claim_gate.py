# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The serving gate on a claim: does the claim hold the plan's artifact, not just any pull."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils import pull_job


def claims_off_plan(claim_results):
    """One message per model whose claim records a pull of another artifact than its plan record's."""
    if not isinstance(claim_results, list):
        raise AnsibleFilterError("claims_off_plan: expects the results of a k8s_info loop over plan records")
    problems = []
    for result in claim_results:
        claims = result.get("resources") or []
        annotations = ((claims[0].get("metadata") or {}).get("annotations") or {}) if claims else {}
        problem = pull_job.claim_plan_problem(result.get("item") or {}, annotations)
        if problem:
            problems.append(problem)
    return problems


class FilterModule(object):
    def filters(self):
        return {"claims_off_plan": claims_off_plan}
