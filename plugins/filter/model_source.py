# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters that build and parse model source references; docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import sources as src
from ansible_collections.ai_platform.serving.plugins.module_utils.naming import slug_problem
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def pvc_hf_uri(slug, model_uri):
    why = slug_problem(slug)
    if why:
        raise AnsibleFilterError("pvc_hf_uri: slug %r: %s" % (slug, why))
    return filter_call("pvc_hf_uri", src.pvc_hf_uri, slug, model_uri, show_value=True)


def parse_pvc_uri(uri):
    return filter_call("parse_pvc_uri", src.parse_pvc_uri, uri, show_value=True)


def quantity_bytes(quantity):
    return filter_call("quantity_bytes", src.parse_quantity, quantity, show_value=True)


class FilterModule(object):
    def filters(self):
        return {
            "pvc_hf_uri": pvc_hf_uri,
            "parse_pvc_uri": parse_pvc_uri,
            "quantity_bytes": quantity_bytes,
        }
