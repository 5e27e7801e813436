# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 30 on the lab: a CNCF ModelPack artifact that another client pushed (modelpack-client, PyPI, not ours) is
deployed by site.yml as it stands and served: the pull Job lays it out as a hub cache (no revision annotation, so
the snapshot is named by the manifest digest), the embedder resolves the repo id offline to that snapshot and its
embeddings equal sentence-transformers' own.

The embedder runs the lab's infinity STAND-IN (real embeddings from the pulled claim) behind the real llm-d charts;
the registry is the lab's Harbor STAND-IN (docker-registry).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.tests.integration.serving_stack import test_serving_stack as base
from ansible_collections.ai_platform.serving.tests.support import artifacts
from ansible_collections.ai_platform.serving.tests.support.hub import minilm_dir


def test_a_modelpack_artifact_another_client_pushed_is_deployed_and_served(stack_factory):
    stack = stack_factory()
    pushed = artifacts.client_push(stack.lab, stack.repository, minilm_dir())
    models = {"generative": [], "embedder": [{"name": stack.names["embedder"], "enabled": True, "nodeSelector": {},
                                              "modelSource": stack.artifact_source()}]}
    run = stack.site(aips_models=models)
    assert run.rc == 0, str(run)
    slug, namespace = stack.slug("embedder"), stack.namespace("embedder")
    claim = stack.kube.get("pvc", "%s-model" % slug, namespace)
    assert claim["metadata"]["annotations"]["ai-platform.serving/digest"] == pushed.digest
    # the snapshot is named by the manifest digest (the client wrote no revision), and the server resolved it
    assert base.served_root(stack) == base.SNAPSHOTS + pushed.digest[len("sha256:"):][:40]
    base.assert_golden_embeddings(stack)
    # every serving Deployment stamped with the client's digest and rolled out
    stamped = base.served_digests(stack.kube, namespace)
    assert stamped, "no serving Deployment in %s carries the served digest" % namespace
    for name, (served, updated, available, replicas) in stamped.items():
        assert served == pushed.digest and updated == replicas and available == replicas, (
            name, served, updated, available, replicas)
