# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters of the serving stack; docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import release_digest


def _record(record, filter_name):
    if not isinstance(record, dict) or not isinstance(record.get("names"), dict) or "slug" not in record:
        raise AnsibleFilterError("%s: expects an ai_platform.serving.model_plan record" % filter_name)
    return record


def serving_endpoints(records, specs):
    """``{slug: {namespace, kind, name, endpoint}}``: how clients reach each record's model (its stack spec)."""
    endpoints = {}
    for record in records or []:
        slug = _record(record, "serving_endpoints")["slug"]
        if slug not in (specs or {}):
            raise AnsibleFilterError("serving_endpoints: %s has no stack spec (serving_stack_spec)" % record.get("name", slug))
        routing = specs[slug]["routing"]
        endpoints[slug] = {"namespace": record["namespace"], "kind": routing["kind"],
                           "name": routing["metadata"]["name"], "endpoint": specs[slug]["endpoint"]}
    return endpoints


def _plain(*values):
    """Plain dicts, lists and strings: merging Ansible's tagged, lazily templated containers value by value costs
    about a second per model on a 2-core machine, the same merge on plain data well under a millisecond."""
    try:
        return json.loads(json.dumps(values, default=to_native))
    except (TypeError, ValueError):
        return values


def unpulled_models(claim_results):
    """Names of the models whose claim (a k8s_info result per record) carries no pulled digest."""
    names = []
    for result in claim_results or []:
        record = result.get("item") or {}
        if not pull_marker.looked_up_claim_annotations(result).get(stack_values.PULLED_DIGEST_ANNOTATION):
            names.append(record.get("name") or record.get("slug") or "?")
    return names


def stamp_served_digests(specs, storage_results=None, claim_results=None):
    """The stack specs with the digest each model's claim holds on its pod templates.

    The digest is model_storage's result in this play, else the claim's digest annotation; a model with
    neither (no Harbor source, or check mode before the pull) keeps its values as they are.
    """
    if not isinstance(specs, dict) or not isinstance(storage_results or {}, dict) \
            or not isinstance(claim_results or [], list):
        raise AnsibleFilterError("stamp_served_digests: expects the stack specs by slug, model_storage_results (a "
                                 "mapping) and the results of a k8s_info loop over plan records")
    specs = _plain(specs)[0]
    digests = {}
    for result in claim_results or []:
        slug = (result.get("item") or {}).get("slug")
        digest = pull_marker.looked_up_claim_annotations(result).get(stack_values.PULLED_DIGEST_ANNOTATION)
        if slug and digest:
            digests[slug] = digest
    for slug, result in (storage_results or {}).items():
        if isinstance(result, dict) and result.get("digest"):
            digests[slug] = result["digest"]
    return dict((slug, stack_values.stamp_served_digest(spec, digests[slug]) if slug in digests else spec)
                for slug, spec in specs.items())


def helm_failure(result, chart_key, chart=None):
    """One line naming the model, the chart and the Helm error of a failed kubernetes.core.helm result."""
    record = result.get("item") or {}
    chart = chart or {}
    error = (result.get("stderr") or result.get("msg") or "no error text").strip()
    # helm prints progress (an OCI chart's "Pulled:", "Digest:", warnings) before its error
    if "Error: " in error:
        error = error[error.rindex("Error: "):]
    return "%s: chart %s (%s %s) failed in namespace %s: %s" % (
        record.get("name") or record.get("slug") or "?", chart_key, chart.get("ref", "?"),
        chart.get("version") or "", record.get("namespace", "?"), error)


def release_plan(records, specs, charts, helm_list, configmaps, extras=None):
    """Which releases need a helm call; the digests to record (module_utils/stack/release_digest.py)."""
    for record in records or []:
        _record(record, "release_plan")
    try:
        return release_digest.release_plan(*_plain(records, specs, charts, helm_list, configmaps, extras))
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("release_plan: %s" % to_native(exc))


def release_digest_records(records, plan, helm_list, configmaps):
    """The release-digest ConfigMaps to write after a deploy (module_utils/stack/release_digest.py)."""
    try:
        return release_digest.record_definitions(*_plain(records, plan, helm_list, configmaps))
    except (KeyError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("release_digest_records: %s" % to_native(exc))


class FilterModule(object):
    def filters(self):
        return {
            "serving_endpoints": serving_endpoints,
            "unpulled_models": unpulled_models,
            "stamp_served_digests": stamp_served_digests,
            "helm_failure": helm_failure,
            "release_plan": release_plan,
            "release_digest_records": release_digest_records,
        }
