# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 26 on the lab: a values file with ``modelArtifacts.authSecretName`` (most of llm-d's guides set it) and an
``HF_TOKEN`` env from that Secret deploys for a model served from its claim. The chart would add a non-optional
``HF_TOKEN`` from the Secret, which nothing creates, so the pods would wait in CreateContainerConfigError until Helm's
timeout; the collection drops both with a note naming the model and the file, and the pods become Ready from the
claim with no Secret in the namespace.

The embedder runs the lab's infinity STAND-IN (real embeddings from the pulled claim) behind the real llm-d charts.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from ansible_collections.ai_platform.serving.tests.integration.serving_stack import test_serving_stack as base
from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.tests.support.playbook import flat

SECRET = "llm-d-hf-token"


def with_hugging_face_secret(values):
    values["modelArtifacts"]["authSecretName"] = SECRET
    values["decode"]["containers"][0].setdefault("env", []).append(
        {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": SECRET, "key": "HF_TOKEN"}}})


def test_auth_secret_name_is_dropped_and_the_pods_are_ready_from_the_claim(stack_factory):
    stack = stack_factory()
    stack.edit_values("embedder", "ms", with_hugging_face_secret)
    stack.publish()
    models = {"generative": [], "embedder": [{"name": stack.names["embedder"], "enabled": True, "nodeSelector": {},
                                              "modelSource": stack.artifact_source()}]}
    run = stack.site(aips_models=models)
    assert run.rc == 0, str(run)
    text = flat(run.output).replace('\\"', '"')
    assert "%s: %s: dropped modelArtifacts.authSecretName" % (
        stack.names["embedder"], stack.values_file("embedder", "ms")) in text, str(run)
    assert "(HF_TOKEN) (Secret %s): the model is served from its claim" % SECRET in text, str(run)
    namespace = stack.namespace("embedder")
    assert stack.kube.get("secret", SECRET, namespace) is None, "the test must not have made the Secret"
    pods = stack.kube.pods(namespace, "llm-d.ai/role=decode")
    assert pods, stack.kube.run("get", "all", "-n", namespace, check=False).stdout
    for pod in pods:
        assert SECRET not in json.dumps(pod["spec"]), pod["spec"]
        ready = [c for c in pod["status"].get("conditions") or [] if c["type"] == "Ready"]
        assert ready and ready[0]["status"] == "True", pod["status"]
    # served from the claim: the server resolved the pulled snapshot offline
    assert base.served_root(stack) == base.SNAPSHOTS + hub_fixture.MINILM_COMMIT
