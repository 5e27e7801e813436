# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for serving_stack on the lab: playbooks/site.yml against the real cluster.

The llm-d charts are the real upstream charts (shared/upstream/charts), pushed into the lab registry
by site.yml's upload stage and installed from there as OCI charts. The model server is the lab's
inference-sim STAND-IN; the registry is a Harbor STAND-IN (docker-registry). Everything else is
real: the cluster, the pull Job, Helm, the Gateway API, InferencePool and Istio CRDs, the EPP.
Each Stack has its own slugs, namespaces and artifact, so tests never share anything.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    docker_config_secret, kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import Stack


@pytest.fixture(scope="session")
def query_secret(lab, kube):  # pylint: disable=redefined-outer-name
    """A pull secret in `default` for the query pod's busybox (the nodes have no Harbor credentials)."""
    kube.apply(docker_config_secret("sst-pull", lab, namespace="default"))
    return "sst-pull"


@pytest.fixture
def stack_factory(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    made = []

    def make():
        path = tmp_path / ("s%d" % len(made))
        path.mkdir()
        stack = Stack(lab, kube, path, minilm_hub)
        made.append(stack)
        return stack
    yield make
    for stack in made:
        stack.cleanup()


@pytest.fixture(scope="module")
def deployed(lab, kube, tmp_path_factory, minilm_hub):  # pylint: disable=redefined-outer-name
    """One stack published and deployed with site.yml, shared by a module's tests (run in order).
    Its generative model is placed on the lab node with GPU_TOLERATION."""
    stack = Stack(lab, kube, tmp_path_factory.mktemp("stack"), minilm_hub)
    stack.placed = True
    stack.publish()
    run = stack.site()
    yield stack, run
    stack.cleanup()
