# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack description: the seed stack as naming, the plan's chart plan, the carried charts and the release
lists that read it see it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import ast
import os
import re

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import artifacts
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import (
    chart_facts, helm_repair, removal, spec_task, stacks, state)
from ansible_collections.ai_platform.serving.tests.support import ROOT

HARBOR = "harbor.harbor.svc.cluster.local"


def chart_mirrors():
    """group_vars/all/images.yml's aips_chart_mirrors: the charts the lab and the tests carry, as
    ``<name>-<version>.tgz`` (tests/support/lab.py CHART_FILES)."""
    with open(os.path.join(ROOT, "group_vars", "all", "images.yml")) as handle:
        return yaml.safe_load(handle)["aips_chart_mirrors"]


def test_the_seed_stack_is_the_default_and_its_releases_go_in_the_seed_order():
    assert stacks.DEFAULT_STACK == stacks.SEED.name == "llm-d-modelservice"
    assert stacks.STACKS == {"llm-d-modelservice": stacks.SEED, "llm-d-v0.10": stacks.V010}
    assert stacks.get() is stacks.get(stacks.SEED.name) is stacks.get(stacks.SEED) is stacks.SEED
    assert stacks.chart_keys() == ("infra", "gaie", "modelservice")
    assert stacks.release_keys() == ("infra_release", "gaie_release", "ms_release")
    assert stacks.charts() == (("infra", "infra_release"), ("gaie", "gaie_release"), ("modelservice", "ms_release"))
    assert stacks.values_files() == ("gaie", "ms")
    assert stacks.post_rendered() == ("infra",)
    assert stacks.chart_names() == {"infra": "llm-d-infra", "gaie": "inferencepool",
                                    "modelservice": "llm-d-modelservice"}
    for helper in (stacks.chart_keys, stacks.release_keys, stacks.charts, stacks.values_files, stacks.post_rendered,
                   stacks.chart_names):
        assert helper(stacks.SEED.name) == helper(stacks.SEED) == helper()


def test_an_unknown_stack_is_refused_with_the_known_ones():
    with pytest.raises(ValueError, match="unknown serving stack 'llm-d-router'.*llm-d-modelservice"):
        stacks.chart_keys("llm-d-router")


def test_each_key_and_name_is_given_once():
    for what in (stacks.chart_keys(), stacks.release_keys(), stacks.values_files(),
                 tuple(stacks.chart_names().values())):
        assert len(set(what)) == len(what), what


def test_the_release_keys_are_the_names_naming_derives_and_limits():
    names = naming.resource_names("q", release_name="my-infra")
    for key in stacks.release_keys():
        assert key in names and key in naming.NAME_LIMITS
    assert stacks.release_names({"names": names}) == ["my-infra", "gaie-q", "ms-q"]
    assert naming.infra_release_name("q") == naming.resource_names("q")["infra_release"]


def test_each_values_folder_prefix_is_its_release_name_prefix():
    # models/<category>/<name>/{gaie,ms}-<slug>/values.yaml: the folder and the release share the prefix
    prefixes = {"gaie": naming.GAIE_PREFIX, "ms": naming.MS_PREFIX}
    assert set(prefixes) == set(stacks.values_files())
    for release in stacks.releases():
        if release.values_file:
            assert naming.SLUG_NAMES[release.name_key] == prefixes[release.values_file] + "{slug}"
            assert prefixes[release.values_file] == release.values_file + "-"
    assert naming.slug_from_folders(["%s-q" % key for key in stacks.values_files()]) == ("q", [])


def test_release_names_skips_what_a_record_leaves_out():
    assert stacks.release_names({"names": {"gaie_release": "gaie-q", "ms_release": ""}}) == ["gaie-q"]
    assert stacks.release_names({}) == stacks.release_names(None) == []


def test_all_chart_keys_are_every_stacks_the_default_stacks_first():
    assert stacks.all_chart_keys() == ("infra", "gaie", "modelservice", "router", "router_gateway")
    assert stacks.all_chart_keys()[:len(stacks.chart_keys())] == stacks.chart_keys()
    assert set(stacks.all_chart_keys()) == set(key for stack in stacks.VARIANTS
                                               for key in stacks.chart_keys(stack))


def test_the_carried_charts_are_the_stack_charts_by_key_and_name():
    # every stack's charts are carried, each under its key with its stack's chart name
    keyed = dict((chart["key"], chart["name"]) for chart in chart_mirrors() if chart.get("key"))
    assert sorted(keyed) == sorted(stacks.all_chart_keys())
    named = {}
    for stack in stacks.VARIANTS:
        named.update(stacks.chart_names(stack))
    assert keyed == named
    assert stacks.chart_names()["modelservice"] == chart_facts.MODELSERVICE
    assert stacks.chart_names()["gaie"] == chart_facts.INFERENCEPOOL
    assert stacks.chart_names(stacks.V010) == {"router": "llm-d-router-standalone"}


@pytest.mark.parametrize("harbor", [None, HARBOR])
def test_the_plan_chart_plan_has_the_stack_chart_keys(harbor):
    # the chart plan carries every stack's charts; a plan of the default stack's records asks for none more
    assert sorted(image_plan.stack_charts(chart_mirrors(), harbor)) == sorted(stacks.all_chart_keys())
    settings = dict(images=None, chart_mirrors=chart_mirrors(), charts=None, harbor_hostname=harbor or "",
                    cloud_provider="on-prem" if harbor else "cloud", allow_unpinned=True, lock_file="")
    planned, problems = artifacts.plan_artifacts(settings, {}, serving=True)
    assert problems == []
    assert sorted(planned["charts"]) == sorted(planned["helm_charts"]) == sorted(stacks.all_chart_keys())
    for stack in stacks.VARIANTS:
        assert artifacts.plan_artifacts(settings, {}, serving=set(stacks.chart_keys(stack)))[1] == []


def test_the_chart_checks_name_every_stack_chart_key_in_order():
    assert spec_task.unset_charts({}) == list(stacks.chart_keys())
    settings = dict(images=None, chart_mirrors=None, charts={"gaie": {"ref": "g"}}, harbor_hostname="",
                    cloud_provider="cloud", allow_unpinned=True, lock_file="")
    _planned, problems = artifacts.plan_artifacts(settings, {}, serving=True)
    assert [p.field.rsplit(".", 1)[-1] for p in problems] == ["infra", "modelservice"]


def test_the_release_lists_read_the_description():
    record = {"slug": "q", "namespace": "llm-d-q", "names": naming.resource_names("q")}
    helm_list = [{"namespace": "llm-d-q", "name": name, "status": "pending-install", "revision": 1}
                 for name in stacks.release_names(record)]
    assert sorted(r["name"] for r in helm_repair.repairs(helm_list, [record])) == ["gaie-q", "infra-q", "ms-q"]
    assert state.release_names([record]) == set("llm-d-q/%s" % name for name in ("infra-q", "gaie-q", "ms-q"))
    # an object of one of the model's releases (Helm's instance label) is the model's, not a remaining one
    released = [{"kind": "ConfigMap", "metadata": {"name": "x-%s" % name, "uid": name,
                                                   "labels": {removal.HELM_INSTANCE_LABEL: name}}}
                for name in stacks.release_names(record)]
    other = {"kind": "ConfigMap", "metadata": {"name": "x", "uid": "x", "labels": {removal.HELM_INSTANCE_LABEL: "y"}}}
    assert removal.remaining_objects(released + [other], [record]) == [other]


def role_tasks(name):
    with open(os.path.join(ROOT, "roles", "serving_stack", "tasks", name)) as handle:
        return yaml.safe_load(handle)


def listed_product(text):
    """The list literal of a ``product([...])`` in a Jinja expression."""
    found = re.search(r"product\((\[[^]]*\])\)", text)
    assert found, text
    return ast.literal_eval(found.group(1))


def test_the_task_files_keep_the_stack_order():
    # deploy.yml includes release.yml per chart key of every stack in deploy order (the gateway Services between
    # infra and gaie, the router after modelservice), absent.yml uninstalls both stacks' releases in the reverse
    # order (the router first), release.yml gives the post-renderer's environment to the charts the read lists as
    # post-rendered (infra, router).
    deployed = [task["vars"]["serving_stack__chart"] for task in role_tasks("deploy.yml")
                if "serving_stack__chart" in (task.get("vars") or {})]
    assert tuple(deployed) == stacks.all_chart_keys()
    uninstall = [task for task in role_tasks("absent.yml") if task.get("name") == "Uninstall the releases"]
    assert len(uninstall) == 1
    assert listed_product(uninstall[0]["loop"]) == list(reversed(stacks.all_release_keys()))
    with open(os.path.join(ROOT, "roles", "serving_stack", "tasks", "release.yml")) as handle:
        assert "if serving_stack__chart in serving_stack__read.post_rendered" in handle.read()
    # playbooks/render.yml writes what serving_stack_render returns (its files: render.output_files): no chart list
    with open(os.path.join(ROOT, "playbooks", "render.yml")) as handle:
        assert "'infra'" not in handle.read()


def test_the_v010_stack_is_one_post_rendered_router_release():
    assert stacks.chart_keys(stacks.V010.name) == ("router",)
    assert stacks.release_keys(stacks.V010) == ("router_release",)
    assert stacks.values_files(stacks.V010) == ("router",)
    assert stacks.post_rendered(stacks.V010) == ("router",)
    assert stacks.chart_names(stacks.V010) == {"router": "llm-d-router-standalone"}
    assert stacks.release_names({"names": {"router_release": "router-q", "gaie_release": "gaie-q"}},
                                stacks.V010) == ["router-q"]


def test_gateway_mode_is_a_variant_of_the_v010_stack_on_the_gateway_chart():
    gateway = stacks.for_record({"stack": "llm-d-v0.10", "router_mode": "gateway"})
    assert gateway is stacks.V010_GATEWAY and gateway.name == stacks.V010.name
    assert stacks.for_record({"stack": "llm-d-v0.10", "router_mode": "standalone"}) is stacks.V010
    assert stacks.for_record({"stack": "llm-d-v0.10", "router_mode": None}) is stacks.V010
    # the mode is read on llm-d v0.10 only
    assert stacks.for_record({"router_mode": "gateway"}) is stacks.SEED
    with pytest.raises(ValueError, match="unknown router mode 'mesh'"):
        stacks.for_record({"stack": "llm-d-v0.10", "router_mode": "mesh"})
    assert stacks.chart_names(gateway) == {"router_gateway": "llm-d-router-gateway"}
    assert stacks.release_keys(gateway) == stacks.release_keys(stacks.V010) == ("router_release",)
    assert stacks.post_rendered(gateway) == ("router_gateway",)
    assert stacks.is_v010(gateway) and stacks.is_v010(stacks.V010.name) and not stacks.is_v010(stacks.SEED)
    # a mode change is no move: the other stacks of either mode are the seed's
    assert stacks.others(gateway) == stacks.others(stacks.V010) == (stacks.SEED,)
    # both modes name their one release router_release: listed once
    assert stacks.all_release_keys().count("router_release") == 1


def test_a_record_names_its_stack_and_defaults_to_the_seed():
    assert stacks.for_record({}) is stacks.for_record(None) is stacks.for_record({"stack": None}) is stacks.SEED
    assert stacks.for_record({"stack": "llm-d-v0.10"}) is stacks.V010
    with pytest.raises(ValueError, match="unknown serving stack 'v9'"):
        stacks.for_record({"stack": "v9"})


def test_the_owned_labels_name_the_stack_and_the_model():
    assert stacks.owned_labels("q") == {"ai-platform.serving/stack": "llm-d-v0.10", "ai-platform.serving/model": "q"}
    assert stacks.STACK_LABEL.startswith(naming.ANNOTATION_PREFIX) and stacks.MODEL_LABEL != naming.LABEL_SLUG


def test_the_chart_mirror_keys_harbor_upload_accepts_are_every_stacks():
    # harbor_upload's argument spec checks aips_chart_mirrors' key against a choices list: it must take every chart
    # key of every stack variant, or site.yml fails at its argument check once images.yml carries that chart
    with open(os.path.join(ROOT, "roles", "harbor_upload", "meta", "argument_specs.yml")) as handle:
        spec = yaml.safe_load(handle)
    found = []

    def walk(node):
        if isinstance(node, dict):
            if isinstance(node.get("key"), dict) and "choices" in node["key"]:
                found.append(node["key"]["choices"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)
    walk(spec)
    assert found and all(sorted(choices) == sorted(stacks.all_chart_keys()) for choices in found), found
