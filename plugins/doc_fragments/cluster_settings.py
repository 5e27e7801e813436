# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: the cluster-wide settings every model shares, as the model_plan module documents them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The cluster-wide settings every model shares (the seed's stack config)."""

    DOCUMENTATION = r"""
options:
  cloud_provider:
    description:
      - V(cloud) or V(on-prem). V(on-prem) requires O(kubeconfig), O(harbor_hostname), O(harbor_user) and
        O(harbor_token).
    type: str
  kubeconfig:
    description: Path of the kubeconfig the API tasks use.
    type: str
  harbor_hostname:
    description: Harbor host, for example C(harbor.harbor.svc.cluster.local).
    type: str
  harbor_user:
    description: Harbor robot account, for example C(robot$k8s-puller).
    type: str
  harbor_token:
    description: Harbor robot token. Never logged or returned.
    type: str
"""
