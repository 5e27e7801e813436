# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The sources family: where a model's files come from and how much they weigh - its pvc URIs, the hostPath root,
Kubernetes quantities and byte counts (module_utils/plan/sources.py, plan/build.py, storage/cache.py). Docs in the
<filter>.yml files beside this one; tests in tests/unit/plugins/filter/test_sources.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build, sources as src
from ansible_collections.ai_platform.serving.plugins.module_utils.naming import slug_problem
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cache
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def pvc_hf_uri(slug, model_uri):
    why = slug_problem(slug)
    if why:
        raise AnsibleFilterError("pvc_hf_uri: slug %r: %s" % (slug, why))
    return filter_call("pvc_hf_uri", src.pvc_hf_uri, slug, model_uri, show_value=True)


def parse_pvc_uri(uri):
    return filter_call("parse_pvc_uri", src.parse_pvc_uri, uri, show_value=True)


def hostpath_root(root=None):
    return filter_call("hostpath_root", build.hostpath_root, root)


def quantity_bytes(quantity):
    return filter_call("quantity_bytes", src.parse_quantity, quantity, show_value=True)


def human_bytes(count):
    """Bytes as a short IEC size, e.g. 92274688 -> '88.0 MiB'."""
    try:
        return cache.human_bytes(int(count or 0))
    except (TypeError, ValueError):
        raise AnsibleFilterError("human_bytes: expects a number of bytes, got %r" % (count,))


class FilterModule(object):
    def filters(self):
        return {
            "pvc_hf_uri": pvc_hf_uri,
            "parse_pvc_uri": parse_pvc_uri,
            "hostpath_root": hostpath_root,
            "quantity_bytes": quantity_bytes,
            "human_bytes": human_bytes,
        }
