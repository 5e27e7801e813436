# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fixtures of the air-gap runbook on the lab: bundle with no registry reachable, load into the lab registry,
site.yml from the lock file load.yml wrote (tests/support/site.py's Stack: its own slugs and namespaces), one model
on each serving stack (the model entry's ``stack`` field): the embedder on the seed's, the generative model on
llm-d v0.10's (its router-<slug>/ and modelserver-<slug>/ folders are the lab's, copied by the Stack)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks
from ansible_collections.ai_platform.serving.tests.support.lab import (  # noqa: F401  pylint: disable=unused-import
    kube, lab, minilm_hub)
from ansible_collections.ai_platform.serving.tests.support.site import Stack

# the stack of each model (absent: the site's default, the seed's llm-d-modelservice)
MODEL_STACKS = {"generative": stacks.V010.name}


class TwoStacks(Stack):
    """The Stack's two models, the generative one on llm-d v0.10 by its entry's ``stack`` field (no site default:
    aips_serving_stack stays unset, so the embedder is on the seed's stack)."""

    def models(self):
        models = super(TwoStacks, self).models()
        for category, stack in MODEL_STACKS.items():
            for entry in models[category]:
                entry["stack"] = stack
        return models


@pytest.fixture
def stack(lab, kube, tmp_path, minilm_hub):  # pylint: disable=redefined-outer-name
    made = TwoStacks(lab, kube, tmp_path, minilm_hub)
    yield made
    made.cleanup()
