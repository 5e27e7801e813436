# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The references family: OCI references parsed and pinned by digest (module_utils/registry/reference.py). Docs in
the <filter>.yml files beside this one; tests in tests/unit/plugins/filter/test_references.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def parse_oci_reference(ref):
    return filter_call("parse_oci_reference", reference.parse_oci_reference, ref, show_value=True)


def pinned_reference(ref, digest):
    return filter_call("pinned_reference", reference.pinned_reference, ref, digest)


class FilterModule(object):
    def filters(self):
        return {
            "parse_oci_reference": parse_oci_reference,
            "pinned_reference": pinned_reference,
        }
