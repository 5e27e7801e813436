# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack on Helm 4, the newest Helm of the support matrix (scripts/support-matrix.env).

Every Helm call of playbooks/site.yml goes to the lab's `helm4` (v4.3.x, built from helm.sh/helm/v4): the chart
push of the upload stage and serving_stack's releases through kubernetes.core.helm's Helm 4 path, with the
llm-d-infra post-renderer as a Helm 4 plugin (module_utils/stack/helm_compat.py). The stack deploys, a re-run
changes nothing, a new revision rolls out and a rollback switches back. The rest of the suite runs Helm 3.
Charts: the real upstream llm-d charts; model servers: the lab's infinity and inference-sim STAND-INs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import subprocess

import pytest

from ansible_collections.ai_platform.serving.tests.integration.serving_stack import test_serving_stack as base
from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.tests.support.lab import publish
from ansible_collections.ai_platform.serving.tests.support.site import Stack

pytestmark = pytest.mark.xdist_group("serving-stack-helm4")

HELM4 = dict(serving_stack_helm_binary="helm4", harbor_upload_helm_path="helm4")


@pytest.fixture(scope="module")
def deployed4(lab, kube, tmp_path_factory, minilm_hub):
    stack = Stack(lab, kube, tmp_path_factory.mktemp("stack-helm4"), minilm_hub,
                  hostpath_root="/var/tmp/aips-serving-stack-helm4-test")
    stack.fixed.update(HELM4)
    stack.placed = True
    stack.publish()
    run = stack.site(verbosity=1)
    yield stack, run
    stack.cleanup()


def helm4_releases(stack, category):
    """`helm4 list` of the model's namespace (Helm 4 lists every status without --all): {release name: (status, chart)}."""
    out = subprocess.run(["helm4", "list", "-n", stack.namespace(category), "--output", "json",
                          "--kubeconfig", stack.lab["KUBECONFIG"]], env=dict(os.environ, **stack.lab), capture_output=True,
                         text=True, check=True).stdout
    return dict((r["name"], (r["status"], r["chart"])) for r in json.loads(out or "[]"))


def test_helm4_deploys_the_stack_with_the_post_renderer_plugin(deployed4):
    stack, run = deployed4
    assert run.rc == 0, str(run)
    # kubernetes.core.helm ran helm4, and gave Helm 4 the post-renderer as the plugin (not as a path)
    assert re.search(r'"command": "helm4 [^"]*upgrade -i', run.output), str(run)
    assert "--post-renderer=aips-gateway-placement" in run.output, str(run)
    for category in ("embedder", "generative"):
        slug = stack.slug(category)
        releases = helm4_releases(stack, category)
        for release in ("infra-%s" % slug, "gaie-%s" % slug, "ms-%s" % slug):
            assert releases.get(release, ("missing",))[0] == "deployed", (release, releases)
    # the post-renderer ran under Helm 4: the gateway ConfigMap carries the model's placement
    base.test_gateway_pod_placement_is_in_the_configmap_istio_reads((stack, run))
    base.assert_serving(stack, stack.published["digest"], hub_fixture.MINILM_COMMIT)


def test_helm4_rerun_changes_nothing(deployed4):
    stack, run = deployed4
    assert run.rc == 0, str(run)
    again = stack.site()
    assert again.rc == 0 and again.changed == 0, str(again)


def test_helm4_upgrade_rolls_and_a_rollback_switches_back(deployed4, tmp_path):
    stack, run = deployed4
    assert run.rc == 0, str(run)
    v1 = stack.published
    v2 = publish(stack.lab, stack.tmp, hub_fixture.variant_hub(tmp_path, stack.suffix, b"revision 2\n" * 64,
                                                               base.V2_COMMIT), stack.repository)
    assert v2["digest"] != v1["digest"]
    upgrade = stack.site()
    assert upgrade.rc == 0, str(upgrade)
    base.assert_serving(stack, v2["digest"], base.V2_COMMIT)
    ms = "ms-%s" % stack.slug("embedder")
    revisions = subprocess.run(["helm4", "history", ms, "-n", stack.namespace("embedder"), "--output", "json",
                                "--kubeconfig", stack.lab["KUBECONFIG"]], env=dict(os.environ, **stack.lab), capture_output=True,
                               text=True, check=True).stdout
    assert len(json.loads(revisions)) >= 2, revisions   # the upgrade went to Helm 4 as a new revision
    back = stack.play("rollback.yml", rollback_model=stack.slug("embedder"))
    assert back.rc == 0, str(back)
    base.assert_serving(stack, v1["digest"], hub_fixture.MINILM_COMMIT)
    again = stack.site()
    assert again.rc == 0, str(again)
    base.assert_serving(stack, v2["digest"], base.V2_COMMIT)
    stack.published = v2
    rerun = stack.site()
    assert rerun.rc == 0 and rerun.changed == 0, str(rerun)
