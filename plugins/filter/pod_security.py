# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The pod security family: a namespace's Pod Security admission labels (module_utils/k8s/pod_security.py). Docs in
pod_security_labels.yml beside this file; tests in tests/unit/plugins/filter/test_pod_security.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security
from ansible_collections.ai_platform.serving.plugins.plugin_utils.filter_errors import filter_call


def pod_security_labels(levels):
    """``{enforce: restricted}`` -> ``{pod-security.kubernetes.io/enforce: restricted}``."""
    return filter_call("pod_security_labels", pod_security.namespace_labels, levels)


class FilterModule(object):
    def filters(self):
        return {"pod_security_labels": pod_security_labels}
