# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model on the llm-d v0.10 stack and the move between the stacks, decided from one read (stack/state.py):
a real seed record of the repo's models tree, the same record on llm-d v0.10, fixtures of ``helm list``."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import (
    helm_repair, live_state, modelserver, release_digest, removal, spec_v010, stacks, state)
from ansible_collections.ai_platform.serving.tests.unit.plugins.module_utils.stack.test_spec_v010 import (
    deployment, router_file)
from ansible_collections.ai_platform.serving.tests.unit.plugins.module_utils.stack.test_values_stack_spec import (
    GPU, records, spec)

GEN = "qwen3-0-6b-rke2"
CHARTS = {"infra": {"ref": "oci://h/charts/llm-d-infra", "version": "v1.3.0"},
          "gaie": {"ref": "oci://r/inferencepool", "version": "v1.2.0"},
          "modelservice": {"ref": "oci://h/charts/llm-d-modelservice", "version": "v0.4.12"},
          "router": {"ref": "oci://h/charts/llm-d-router-standalone", "version": "v0.10.0"}}
APPLY = {"normal": {"force": False}, "forced": {"force": True}}
RENDERER = "/r/gateway_placement.py"


@pytest.fixture(scope="module")
def seed():
    return records(toleration=GPU)[GEN]


@pytest.fixture(scope="module")
def v010(seed):
    files = {"router": "/m/router-%s/values.yaml" % GEN, "modelserver": "/m/modelserver-%s" % GEN}
    return dict(seed, stack=stacks.V010.name, values_files=files)


def v010_spec(record):
    out = spec_v010.stack_spec(record, router_file(), [deployment()])
    assert out["problems"] == []
    return out


def listing(record, keys, status="deployed", revision=1):
    return [{"namespace": record["namespace"], "name": record["names"][key], "revision": str(revision),
             "status": status} for key in keys]


def read(**given):
    found = dict(helm_list=[], digest_maps=[], claims=[], live={}, namespaces=None, apply_options=APPLY)
    found.update(given)
    return found


def everything_live(specs):
    """The ``live`` of a cluster where every object of the specs is as applied and no retired one exists."""
    objects, retired = state.stack_objects(specs)
    live = dict((live_state.object_key(d), d) for ds in objects.values() for d in ds)
    live.update((live_state.object_key(d), None) for ds in retired.values() for d in ds)
    return live


def recorded(records, specs, extras, helm_list):
    plan = release_digest.release_plan(records, specs, CHARTS, [], [], extras)
    return release_digest.record_definitions(records, plan, helm_list, [])


def test_stacks_union_and_others():
    assert stacks.all_chart_keys() == ("infra", "gaie", "modelservice", "router", "router_gateway")
    assert stacks.all_release_keys()[-1] == "router_release"
    assert stacks.all_post_rendered() == ("infra", "router", "router_gateway")
    assert stacks.others() == (stacks.V010,) and stacks.others(stacks.V010.name) == (stacks.SEED,)
    # the kinds the move back lists are the kinds a model server may hold
    assert tuple(kind for _api, kind in state.MODELSERVER_KINDS) == modelserver.ALLOWED_KINDS


def test_a_seed_only_site_is_decided_as_before(seed):
    """(a) nothing of v0.10 in the read: no uninstall, no leftover list, the gateway Service among the gateways."""
    specs = {GEN: spec(seed)}
    helm = listing(seed, stacks.release_keys())
    assert state.leftover_queries([seed], helm) == [] and state.moving_back([seed], helm) == []
    out = state.decide([seed], specs, CHARTS, read(helm_list=helm), post_renderer=RENDERER,
                       post_renderer_digest="p1")
    assert out["uninstall"] == [] and out["releases"]["router"] == []
    assert out["gateways"] == [specs[GEN]["objects"][0]]
    assert out["post_rendered"] == ["infra", "router", "router_gateway"] and out["apply_wait"] == 600
    assert [i["chart"] for i in out["render"]] == ["infra", "gaie", "modelservice"]


def test_a_fresh_v010_record_deploys_the_router_then_applies_the_model_server_then_the_switch(v010):
    """(b) a new model on llm-d v0.10: one router release (post-rendered), the model server then the ExternalName
    Service in ``apply`` (in that order), no gateways before the releases, the endpoint the gateway Service."""
    specs = {GEN: v010_spec(v010)}
    out = state.decide([v010], specs, CHARTS, read(), post_renderer=RENDERER, post_renderer_digest="p1",
                       timeout="5m30s")
    assert [(i["chart"], i["name"]) for i in out["render"]] == [("router", "router-" + GEN)]
    router = out["releases"]["router"][0]
    assert router["post_renderer"] == RENDERER and router["ref"] == CHARTS["router"]["ref"]
    plan = release_digest.release_plan([v010], specs, CHARTS, [], [], {"router": "p1", "infra": "p1"})
    assert router["digest"] == plan["digests"][GEN]["router-" + GEN]
    # the post-renderer's digest is in the router's release digest, like infra's
    other = release_digest.release_plan([v010], specs, CHARTS, [], [], {"router": "p2"})
    assert other["digests"][GEN]["router-" + GEN] != router["digest"]
    assert out["releases"]["infra"] == out["releases"]["gaie"] == out["releases"]["modelservice"] == []
    assert out["gateways"] == []
    assert [(d["kind"], d["metadata"]["name"]) for d in out["apply"]] == [
        ("Deployment", "q-decode"), ("Service", "llmd-gateway-" + GEN)]
    assert out["apply_wait"] == 330
    assert out["uninstall"] == [] and out["remove"] == [] and out["repairs"] == []
    assert out["endpoints"][GEN] == {"namespace": v010["namespace"], "kind": "Service",
                                     "name": "llmd-gateway-" + GEN, "endpoint": specs[GEN]["endpoint"]}


def test_a_v010_record_with_the_seed_releases_listed_uninstalls_them_after_the_apply(seed, v010):
    """(c) the model moved to v0.10: ms, gaie, infra go (in that order), the seed's HTTPRoute and gateway-defaults
    are retired; a pending seed release is not repaired (it goes anyway)."""
    specs = {GEN: v010_spec(v010)}
    helm = listing(seed, ("infra_release", "gaie_release")) + listing(seed, ("ms_release",), "pending-upgrade", 3)
    live = everything_live(specs)
    route, defaults = [d for d in specs[GEN]["stale"] if d["kind"] in ("HTTPRoute", "ConfigMap")]
    live[live_state.object_key(route)] = route
    live[live_state.object_key(defaults)] = defaults
    out = state.decide([v010], specs, CHARTS, read(helm_list=helm, live=live))
    assert [(i["name"], i["chart"], i["stack"]) for i in out["uninstall"]] == [
        ("ms-" + GEN, "modelservice", stacks.SEED.name), ("gaie-" + GEN, "gaie", stacks.SEED.name),
        ("infra-" + GEN, "infra", stacks.SEED.name)]
    item = out["uninstall"][0]
    assert item["namespace"] == v010["namespace"] and item["label"] == "%s: ms-%s (%s, moved to %s)" % (
        GEN, GEN, stacks.SEED.name, stacks.V010.name)
    assert item["failure"] == "%s: uninstall of ms-%s (chart modelservice of stack %s, left behind by the move to " \
        "%s) failed in namespace %s" % (v010["name"], GEN, stacks.SEED.name, stacks.V010.name, v010["namespace"])
    assert item["record"] == {"name": naming.slug_name("release_digests", GEN), "namespace": v010["namespace"]}
    assert out["remove"] == [route, defaults]
    assert out["repairs"] == []
    assert out["releases"]["router"] and out["gateways"] == []
    # no leftover list for a v0.10 record (its own objects are applied, not removed)
    assert state.leftover_queries([v010], helm) == []


def test_a_seed_record_with_the_router_listed_removes_the_v010_objects_and_the_router(seed):
    """(d) the model moved back to the seed's stack: the v0.10 model-server objects are listed by label (only
    then) and removed after the apply, the router release uninstalled; the gateway Service switches in ``apply``
    after the seed's releases, not between them."""
    specs = {GEN: spec(seed)}
    helm = listing(seed, ("router_release",))
    queries = state.leftover_queries([seed], helm)
    assert queries == [{"slug": GEN, "namespace": seed["namespace"], "kinds": list(state.MODELSERVER_KINDS),
                        "selector": ["ai-platform.serving/slug=" + GEN, "ai-platform.serving/stack=llm-d-v0.10",
                                     "app.kubernetes.io/managed-by=ai_platform.serving"]}]
    owned, _notes = modelserver.owned_objects(seed, [deployment()])
    listed = dict(owned[0], metadata=dict(owned[0]["metadata"], uid="u1"))
    going = dict(listed, metadata=dict(listed["metadata"], deletionTimestamp="now"))
    foreign = dict(listed, metadata=dict(listed["metadata"], labels={"app": "x"}))
    out = state.decide([seed], specs, CHARTS, read(helm_list=helm, leftovers={GEN: [listed, going, foreign]}))
    assert [(i["name"], i["chart"], i["stack"]) for i in out["uninstall"]] == [
        ("router-" + GEN, "router", stacks.V010.name)]
    assert out["remove"] == [{"apiVersion": "apps/v1", "kind": "Deployment",
                              "metadata": {"name": "q-decode", "namespace": seed["namespace"]}}]
    gateway = specs[GEN]["objects"][0]
    assert out["gateways"] == [] and gateway in out["apply"]
    assert [i["chart"] for i in out["render"]] == ["infra", "gaie", "modelservice"]


def test_a_v010_rerun_with_nothing_to_change_has_nothing_to_do(v010):
    """(e) the router deployed and recorded, the objects as applied, nothing of the seed listed."""
    specs = {GEN: v010_spec(v010)}
    helm = listing(v010, ("router_release",))
    maps = recorded([v010], specs, {"infra": "p1", "router": "p1"}, helm)
    out = state.decide([v010], specs, CHARTS, read(helm_list=helm, digest_maps=maps, live=everything_live(specs)),
                       post_renderer=RENDERER, post_renderer_digest="p1")
    assert out["render"] == [] and all(items == [] for items in out["releases"].values())
    assert out["apply"] == out["gateways"] == out["remove"] == out["uninstall"] == out["repairs"] == []
    assert out["unchanged"] == ["%s/router-%s" % (v010["namespace"], GEN)]
    # a new post-renderer sends the router release again
    again = state.decide([v010], specs, CHARTS, read(helm_list=helm, digest_maps=maps, live=everything_live(specs)),
                         post_renderer=RENDERER, post_renderer_digest="p2")
    assert [i["chart"] for i in again["render"]] == ["router"]


def test_the_key_an_uninstalled_release_leaves_is_never_trusted(seed, v010):
    """The seed's recorded digests stay in the ConfigMap after the move; a move back finds no such release in
    helm list and deploys it (the key is rewritten with the new revision)."""
    specs = {GEN: spec(seed)}
    helm = listing(seed, stacks.release_keys())
    maps = recorded([seed], specs, {}, helm)
    plan = release_digest.release_plan([seed], specs, CHARTS, [], maps)
    assert plan["deploy"] == {"infra": [GEN], "gaie": [GEN], "modelservice": [GEN], "router": [], "router_gateway": []}
    assert release_digest.release_plan([seed], specs, CHARTS, helm, maps)["unchanged"]


def test_repairs_and_removal_see_each_records_releases(seed, v010):
    helm = listing(v010, ("router_release",), "pending-install", 1) + listing(seed, ("ms_release",), "failed", 1)
    assert [(r["name"], r["action"]) for r in helm_repair.repairs(helm, [v010])] == [("router-" + GEN, "uninstall")]
    assert [(r["name"], r["action"]) for r in helm_repair.repairs(helm, [seed])] == [("ms-" + GEN, "uninstall")]
    assert removal.names_of_releases(seed)[-1] == "router-" + GEN
    epp = {"kind": "Service", "metadata": {"name": "router-%s-epp" % GEN, "uid": "e"}}
    by_release = {"kind": "Deployment", "metadata": {"name": "x", "uid": "d",
                                                     "annotations": {removal.HELM_RELEASE_ANNOTATION: "router-" + GEN}}}
    assert removal.remaining_objects([epp, by_release], [seed]) == []


@pytest.mark.parametrize("duration,seconds", [("10m0s", 600), ("1h", 3600), ("90s", 90), ("300", 300),
                                              ("1m30s", 90), ("", 600), ("ten", 600), ("5x", 600)])
def test_the_apply_wait_is_the_helm_timeout_in_seconds(duration, seconds):
    assert state.wait_seconds(duration) == seconds


def test_the_removal_task_lists_the_kinds_and_labels_the_move_back_selects():
    """roles/serving_stack/tasks/absent.yml removes the v0.10 model-server objects by the same kinds and labels."""
    import yaml  # pylint: disable=import-outside-toplevel

    from ansible_collections.ai_platform.serving.tests.support import ROOT  # pylint: disable=import-outside-toplevel
    with open("%s/roles/serving_stack/tasks/absent.yml" % ROOT) as handle:
        tasks = yaml.safe_load(handle)
    task = [t for t in tasks if t["name"] == "Remove the llm-d v0.10 model-server objects"][0]
    kinds = task["vars"]["serving_stack__modelserver_kinds"]
    assert [(k["api_version"], k["kind"]) for k in kinds] == list(state.MODELSERVER_KINDS)
    selectors = [s.replace("{{ 'ai-platform.serving/slug=' ~ item.0.slug }}", "ai-platform.serving/slug=" + GEN)
                 for s in task["kubernetes.core.k8s"]["label_selectors"]]
    assert sorted(selectors) == sorted(state.leftover_queries(
        [records(toleration=GPU)[GEN]], [{"namespace": "llm-d-" + GEN, "name": "router-" + GEN}])[0]["selector"])
    uninstall = [t for t in tasks if t["name"] == "Uninstall the releases"][0]
    assert "router_release" in uninstall["loop"]


GATEWAY_CHARTS = dict(CHARTS, router_gateway={"ref": "oci://h/charts/llm-d-router-gateway", "version": "v0.10.0"})


@pytest.fixture(scope="module")
def gateway(v010):
    return dict(v010, router_mode="gateway",
                router_gateway={"name": "gw", "namespace": "gateway-system", "service": "gw-istio"})


def test_a_gateway_mode_record_moving_from_the_seed_goes_to_the_gateway_chart_and_switches_its_route(seed, gateway):
    """(f) gateway mode: the release on llm-d-router-gateway (post-rendered), the seed's releases uninstalled; the
    HTTPRoute llm-d-<slug> is the new stack's routing object (applied, updated in place), never removed."""
    specs = {GEN: v010_spec(gateway)}
    helm = listing(seed, ("infra_release", "gaie_release", "ms_release"))
    live = everything_live({GEN: spec(seed)})
    out = state.decide([gateway], specs, GATEWAY_CHARTS, read(helm_list=helm, live=live), post_renderer=RENDERER,
                       post_renderer_digest="p1")
    assert [(i["chart"], i["name"]) for i in out["render"]] == [("router_gateway", "router-" + GEN)]
    item = out["releases"]["router_gateway"][0]
    assert item["ref"] == GATEWAY_CHARTS["router_gateway"]["ref"] and item["post_renderer"] == RENDERER
    assert out["releases"]["router"] == [] and "router_gateway" in out["post_rendered"]
    assert [i["name"] for i in out["uninstall"]] == ["ms-" + GEN, "gaie-" + GEN, "infra-" + GEN]
    route = specs[GEN]["routing"]
    assert route["kind"] == "HTTPRoute" and route in out["apply"]
    assert route["spec"]["rules"][0]["backendRefs"][0]["name"] == "router-" + GEN
    assert not any(d["kind"] == "HTTPRoute" for d in out["remove"]), out["remove"]
    assert out["endpoints"][GEN]["kind"] == "HTTPRoute"


def test_a_mode_change_is_an_upgrade_of_the_same_release_not_a_move(v010, gateway):
    """(g) standalone -> gateway: router-<slug> to the other chart; nothing uninstalled."""
    specs = {GEN: v010_spec(v010)}
    helm = listing(v010, ("router_release",))
    maps = recorded([v010], specs, {"infra": "p1", "router": "p1"}, helm)
    moved = {GEN: v010_spec(gateway)}
    out = state.decide([gateway], moved, GATEWAY_CHARTS, read(helm_list=helm, digest_maps=maps),
                       post_renderer=RENDERER, post_renderer_digest="p1")
    assert [(i["chart"], i["name"]) for i in out["render"]] == [("router_gateway", "router-" + GEN)]
    assert out["uninstall"] == []
