# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters of the serving stack; docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_native

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values


def _record(record, filter_name):
    if not isinstance(record, dict) or not isinstance(record.get("names"), dict) or "slug" not in record:
        raise AnsibleFilterError("%s: expects an ai_platform.serving.model_plan record" % filter_name)
    return record


def stack_spec(record, gaie_values=None, ms_values=None, settings=None):
    """The values of the three releases and the objects of one plan record."""
    _record(record, "stack_spec")
    for label, values in (("gaie_values", gaie_values), ("ms_values", ms_values), ("settings", settings)):
        if values is not None and not isinstance(values, dict):
            raise AnsibleFilterError("stack_spec: %s of %s must be a mapping, got %s"
                                     % (label, record.get("name"), type(values).__name__))
    try:
        return stack_values.stack_spec(*_plain(record, gaie_values or {}, ms_values or {}, settings or {}))
    except (KeyError, TypeError, ValueError) as exc:
        raise AnsibleFilterError("stack_spec: %s: %s" % (record.get("name"), to_native(exc)))


def stack_specs(records, gaie_values=None, ms_values=None, settings=None):
    """``{slug: stack spec}`` of every plan record (one step for all models); the values files in record order."""
    records = list(records or [])
    gaie_values = list(gaie_values) if gaie_values is not None else [None] * len(records)
    ms_values = list(ms_values) if ms_values is not None else [None] * len(records)
    if len(gaie_values) != len(records) or len(ms_values) != len(records):
        raise AnsibleFilterError("stack_specs: %d records but %d gaie and %d ms values files: give one of each per "
                                 "record, in the order of the records" % (len(records), len(gaie_values), len(ms_values)))
    settings = _plain(settings or {})[0]
    return dict((_record(record, "stack_specs")["slug"], stack_spec(record, gaie, ms, settings))
                for record, gaie, ms in zip(records, gaie_values, ms_values))


def _plain(*values):
    """Plain dicts, lists and strings: merging Ansible's tagged, lazily templated containers value by value costs
    about a second per model on a 2-core machine, the same merge on plain data well under a millisecond."""
    try:
        return json.loads(json.dumps(values, default=to_native))
    except (TypeError, ValueError):
        return values


class FilterModule(object):
    def filters(self):
        return {
            "stack_spec": stack_spec,
            "stack_specs": stack_specs,
        }
