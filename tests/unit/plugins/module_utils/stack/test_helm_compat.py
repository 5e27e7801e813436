# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Helm 3 / Helm 4 differences serving_stack relies on (module_utils/stack/helm_compat.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_compat
from ansible_collections.ai_platform.serving.tests.support import ROOT

SCRIPT = "/c/roles/serving_stack/files/gateway_placement.py"
PLUGINS = "/c/roles/serving_stack/files/helm4-plugins"


@pytest.mark.parametrize("shown,major", [
    ("v3.19.5+g5bd7b1d", 3), ("v3.19.5", 3), ("v4.3.2", 4), ("v4.3.2+gabcdef0\n", 4), ("4.3.0", 4)])
def test_helm_major_reads_helm_version_short(shown, major):
    assert helm_compat.helm_major(shown) == major


@pytest.mark.parametrize("shown", ["", "version.BuildInfo{}", "v2.17.0", "v5.0.0"])
def test_helm_major_refuses_what_it_cannot_read_or_support(shown):
    with pytest.raises(helm_compat.HelmVersionError):
        helm_compat.helm_major(shown)


def test_helm3_takes_the_post_renderer_as_a_path_and_no_environment():
    assert helm_compat.post_renderer(3, SCRIPT, PLUGINS, "/root/.local/share/helm/plugins") == dict(arg=SCRIPT, env={})


def test_helm4_takes_the_plugin_name_with_its_directory_first_on_helm_plugins():
    got = helm_compat.post_renderer(4, SCRIPT, PLUGINS, "/lab/helm-plugins:/other")
    assert got == dict(arg="aips-gateway-placement", env={"HELM_PLUGINS": PLUGINS + ":/lab/helm-plugins:/other"})
    # named once even when the user's path already holds it
    again = helm_compat.post_renderer(4, SCRIPT, PLUGINS, PLUGINS + ":/lab/helm-plugins")
    assert again["env"]["HELM_PLUGINS"] == PLUGINS + ":/lab/helm-plugins"
    assert helm_compat.post_renderer(4, SCRIPT, PLUGINS, "")["env"] == {"HELM_PLUGINS": PLUGINS}


def test_the_shipped_helm4_plugin_runs_the_same_post_renderer_helm3_runs():
    files = os.path.join(ROOT, "roles", "serving_stack", "files")
    plugin_dir = os.path.join(files, "helm4-plugins", helm_compat.POST_RENDERER_PLUGIN)
    with open(os.path.join(plugin_dir, "plugin.yaml")) as handle:
        plugin = yaml.safe_load(handle)
    assert plugin["name"] == helm_compat.POST_RENDERER_PLUGIN
    assert (plugin["type"], plugin["apiVersion"], plugin["runtime"]) == ("postrenderer/v1", "v1", "subprocess")
    command = plugin["runtimeConfig"]["platformCommand"][0]["command"]
    target = os.path.normpath(command.replace("${HELM_PLUGIN_DIR}", plugin_dir))
    assert target == os.path.join(files, "gateway_placement.py")
    assert os.access(target, os.X_OK)


def test_list_all_args_keeps_all_for_helm3_and_drops_it_for_helm4():
    assert helm_compat.list_all_args(3) == ["list", "--all-namespaces", "--all", "--output", "json"]
    # Helm 4 has no --all: without a status flag it lists every status
    assert helm_compat.list_all_args(4) == ["list", "--all-namespaces", "--output", "json"]


def test_helm4_releases_apply_client_side_and_a_forced_one_is_force_alone():
    assert helm_compat.apply_options(3) == dict(normal=dict(force=False), forced=dict(force=True))
    helm4 = helm_compat.apply_options(4)
    # server-side apply refuses llm-d-infra v1.3.0's Gateway (spec.listeners[].path is not in the schema)
    assert helm4["normal"] == dict(server_side="false")
    # kubernetes.core refuses force beside server_side; force alone is --server-side=false --force-replace on Helm 4
    assert helm4["forced"] == dict(force=True)


class FakeHelm(object):
    """helm as a table of answers, recording the calls."""

    def __init__(self, answers):
        self.answers, self.calls = answers, []

    def __call__(self, args):
        self.calls.append(args)
        return self.answers[" ".join(args)]


def test_probe_reads_the_version_and_for_helm_4_the_plugin_path_once():
    helm = FakeHelm({"version --short": (0, "v4.3.2+g1\n", ""), "env HELM_PLUGINS": (0, "/other\n", "")})
    facts = helm_compat.probe(helm, SCRIPT, PLUGINS)
    assert facts["helm"] == dict(version="v4.3.2+g1", major=4, list_args=helm_compat.list_all_args(4),
                                 apply=helm_compat.apply_options(4))
    assert facts["post_renderer"] == dict(arg="aips-gateway-placement", env={"HELM_PLUGINS": PLUGINS + ":/other"})
    assert helm.calls == [["version", "--short"], ["env", "HELM_PLUGINS"]]


def test_probe_of_helm_3_asks_for_no_plugin_path_and_without_a_script_gives_no_post_renderer():
    helm = FakeHelm({"version --short": (0, "v3.19.5+gabc", "")})
    assert helm_compat.probe(helm, SCRIPT, PLUGINS)["post_renderer"] == dict(arg=SCRIPT, env={})
    assert "post_renderer" not in helm_compat.probe(helm)
    assert helm.calls == [["version", "--short"]] * 2


@pytest.mark.parametrize("answers, error, words", [
    ({"version --short": (1, "", "exec format error")}, helm_compat.HelmCallError, "helm version failed (rc 1): exec"),
    ({"version --short": (0, "v2.17.0", "")}, helm_compat.HelmVersionError, "outside the support matrix"),
    ({"version --short": (0, "v4.3.2", ""), "env HELM_PLUGINS": (2, "boom", "")}, helm_compat.HelmCallError,
     "helm env failed (rc 2): boom"),
])
def test_probe_failures_say_which_call_and_why(answers, error, words):
    with pytest.raises(error) as raised:
        helm_compat.probe(FakeHelm(answers), SCRIPT, PLUGINS)
    assert words in str(raised.value)


@pytest.mark.parametrize("answers", [
    {"version --short": (0, "v3.19.5+gabc", "")},
    {"version --short": (0, "v4.3.2", ""), "env HELM_PLUGINS": (0, "/other", "")},
])
def test_a_handed_probe_gives_the_post_renderer_form_the_probe_found(answers):
    """serving_stack_info hands its probe on (RV helm); serving_stack_render takes the form from it, no helm call."""
    facts = helm_compat.probe(FakeHelm(answers), SCRIPT, PLUGINS)
    handed = helm_compat.handed(facts)
    assert handed == dict(facts["helm"], post_renderer=facts["post_renderer"])
    assert helm_compat.given_post_renderer(handed, SCRIPT, PLUGINS) == facts["post_renderer"]
    assert helm_compat.given_post_renderer(handed, None, PLUGINS) is None
    # without a script the probe holds no form, and handing it on adds none
    assert "post_renderer" not in helm_compat.handed(helm_compat.probe(FakeHelm(answers)))


@pytest.mark.parametrize("helm, words", [
    (None, "major None"),
    (dict(major=2, post_renderer=dict(arg=SCRIPT, env={})), "major 2"),
    (dict(major=3), "no post_renderer form"),
    (dict(major=3, post_renderer=dict(arg="/elsewhere/gateway_placement.py", env={})), "another post-renderer"),
    (dict(major=4, post_renderer=dict(arg="aips-gateway-placement", env={"HELM_PLUGINS": "/other:" + PLUGINS})),
     "another post-renderer"),
    (dict(major=4, post_renderer=dict(arg=SCRIPT, env={"HELM_PLUGINS": PLUGINS})), "another post-renderer"),
])
def test_a_handed_probe_made_for_another_post_renderer_or_helm_is_refused(helm, words):
    with pytest.raises(helm_compat.HelmVersionError) as raised:
        helm_compat.given_post_renderer(helm, SCRIPT, PLUGINS)
    assert words in str(raised.value)
