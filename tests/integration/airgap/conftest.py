# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the air-gap runbook on the lab: bundle with no registry reachable, load into the lab registry,
site.yml from the lock file load.yml wrote (tests/support/site.py's Stack: its own slugs and namespaces)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import Stack


@pytest.fixture
def stack(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    made = Stack(lab, kube, tmp_path, minilm_hub)
    yield made
    made.cleanup()
