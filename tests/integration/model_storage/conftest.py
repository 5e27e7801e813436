# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for model_storage on the lab: a real cluster and the registry standing in for Harbor.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips).
The MiniLM artifact is published with the provisioner's model_sync role, each test
under its own repository, so tests never share a tag (or a namespace, or a PV).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import OneModel

HOSTPATH_ROOT = "/var/tmp/aips-model-storage-test"


@pytest.fixture
def model_factory(lab, kube, tmp_path):  # pylint: disable=redefined-outer-name
    """One embedder of slug mst-<id> (<prefix>-<id> with prefix=) per call (on-prem in HOSTPATH_ROOT unless provider="cloud")."""
    made = []

    def make(**kwargs):
        path = tmp_path / ("m%d" % len(made))
        path.mkdir()
        kwargs.setdefault("prefix", "mst")
        kwargs.setdefault("name", "MiniLM")
        model = OneModel(lab, kube, path, hostpath_root=HOSTPATH_ROOT, **kwargs)
        made.append(model)
        return model
    yield make
    for model in made:
        model.cleanup()
