# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/recover.yml and playbooks/cache.yml on the lab."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

from ansible_collections.ai_platform.serving.tests.support.lab import publish


def test_recover_needs_the_confirmation(model_factory, minilm_hub, kube):
    model = model_factory()
    publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    run = model.play("recover.yml", recover_model=model.slug, recover_confirm="yes")
    assert run.rc != 0 and "recover_confirm=<slug>" in run.output, str(run)
    assert kube.get("pvc", model.pvc, model.namespace) is not None


def test_recover_deletes_job_claim_and_pv_and_pulls_again(model_factory, minilm_hub, kube):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    old = kube.get("pvc", model.pvc, model.namespace)["metadata"]["uid"]
    run = model.play("recover.yml", recover_model=model.slug, recover_confirm=model.slug)
    assert run.rc == 0, str(run)
    assert "deleted job, pvc, pv" in run.output
    pvc = kube.get("pvc", model.pvc, model.namespace)
    assert pvc["metadata"]["uid"] != old and pvc["status"]["phase"] == "Bound"
    assert pvc["metadata"]["annotations"]["ai-platform.serving/digest"] == entry["digest"]


def test_cache_lists_claims_and_clears_one(model_factory, minilm_hub, kube):
    model = model_factory()
    entry = publish(model.lab, model.tmp, minilm_hub, model.repository)
    assert model.apply().rc == 0
    listed = model.play("cache.yml")
    assert listed.rc == 0, str(listed)
    assert "%s: %s/%s Bound, digest %s" % (model.slug, model.namespace, model.pvc, entry["digest"]) in \
        " ".join(listed.output.split()), str(listed)
    # the kept revision as claim_pull_record's revision_lines gives it: digest (tag, commit, pull time)
    assert re.search(r"revisions kept \(most recently served first\): %s \(\S+:v1, commit [0-9a-f]{12}, pulled 20"
                     % re.escape(entry["digest"]), " ".join(listed.output.split())), str(listed)
    cleared = model.play("cache.yml", cache_clear=model.slug, cache_confirm=model.slug)
    assert cleared.rc == 0, str(cleared)
    assert model.marker() is None
    assert not os.path.exists(os.path.join(model.hostpath_dir, "hub"))
    annotations = kube.get("pvc", model.pvc, model.namespace)["metadata"].get("annotations") or {}
    assert "ai-platform.serving/digest" not in annotations
    assert kube.get("job", model.job, model.namespace) is None
    again = model.apply()
    assert again.rc == 0, str(again)
    assert model.marker()["digest"] == entry["digest"]


def test_cache_clear_and_rollback_need_a_model_with_a_harbor_source(model_factory):
    # cache.yml's clear and rollback.yml select the record through playbooks/tasks/harbor_model.yml
    model = model_factory()
    unknown = model.slug + "-none"
    for playbook, variables in (("cache.yml", dict(cache_clear=unknown, cache_confirm=unknown)),
                                ("rollback.yml", dict(rollback_model=unknown))):
        run = model.play(playbook, **variables)
        assert run.rc != 0, str(run)
        assert "%s is not a model with a Harbor modelSource in this plan" % unknown in " ".join(run.output.split()), \
            str(run)
