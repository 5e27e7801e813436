# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures for the model cache collection on the lab: deploy storage, remove, gc, as a user runs them.

The lab must be up (`lab/lab up`); when it is not, every test fails (never skips). The lab's node is
this machine, so the hostPath directories are real directories here. Each site has its own slugs,
namespaces, artifact and allowed root (gc sees only its own root), so tests never share anything.
Storage is deployed with `site.yml --tags plan,nodes,storage`; removal is `site.yml --tags serving
-e serving_stack_state=absent` (no chart is installed or read).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import CacheSite


@pytest.fixture
def site(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    """Models a and b on one published artifact, in an allowed root of their own."""
    made = CacheSite(lab, kube, tmp_path, minilm_hub)
    made.publish()
    yield made
    made.cleanup()
