# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Filters on OCI references (module_utils/registry/reference.py); docs in the <filter>.yml files beside this one."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference


def parse_oci_reference(ref):
    try:
        return reference.parse_oci_reference(ref)
    except ValueError as exc:
        raise AnsibleFilterError("parse_oci_reference: %r: %s" % (ref, exc))


def pinned_reference(ref, digest):
    try:
        return reference.pinned_reference(ref, digest)
    except ValueError as exc:
        raise AnsibleFilterError("pinned_reference: %s" % exc)


class FilterModule(object):
    def filters(self):
        return {
            "parse_oci_reference": parse_oci_reference,
            "pinned_reference": pinned_reference,
        }
