"""Which releases a run sends to Helm: the digest recorded per release against the one computed now."""

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import release_digest

CHARTS = {"infra": {"ref": "oci://h/charts/llm-d-infra", "version": "v1.3.0"},
          "gaie": {"ref": "oci://h/charts/inferencepool", "version": "v1.2.0"},
          "modelservice": {"ref": "oci://h/charts/llm-d-modelservice", "version": "v0.4.12"}}


def record(slug):
    names = naming.resource_names(slug)
    return {"slug": slug, "name": slug, "namespace": names["namespace"], "names": names}


def spec(replicas=1):
    return {"values": {"infra": {"gateway": {"x": 1}}, "gaie": {"pool": 2}, "modelservice": {"decode": {"replicas": replicas}}}}


def helm_list(records, status="deployed", revision=1):
    return [{"namespace": r["namespace"], "name": r["names"][key], "revision": str(revision), "status": status}
            for r in records for key in ("infra_release", "gaie_release", "ms_release")]


def deployed(records, specs, revision=1):
    """The ConfigMaps a first deploy writes."""
    plan = release_digest.release_plan(records, specs, CHARTS, [], [])
    return release_digest.record_definitions(records, plan, helm_list(records, revision=revision), [])


def test_first_run_deploys_everything_and_records_each_model():
    records = [record("a"), record("b")]
    specs = {"a": spec(), "b": spec()}
    plan = release_digest.release_plan(records, specs, CHARTS, [], [])
    assert plan["deploy"] == {"infra": ["a", "b"], "gaie": ["a", "b"], "modelservice": ["a", "b"], "router": [], "router_gateway": []}
    assert plan["unchanged"] == []
    maps = release_digest.record_definitions(records, plan, helm_list(records), [])
    assert [m["metadata"]["name"] for m in maps] == ["a-release-digests", "b-release-digests"]
    assert maps[0]["metadata"]["namespace"] == "llm-d-a"
    assert maps[0]["metadata"]["labels"][naming.LABEL_COMPONENT] == naming.COMPONENT_RELEASE_DIGESTS
    assert maps[0]["data"]["ms-a"] == "1 " + plan["digests"]["a"]["ms-a"]


def test_unchanged_releases_get_no_helm_call_and_no_new_record():
    records = [record("a"), record("b")]
    specs = {"a": spec(), "b": spec()}
    maps = deployed(records, specs)
    plan = release_digest.release_plan(records, specs, CHARTS, helm_list(records), maps)
    assert plan["deploy"] == {"infra": [], "gaie": [], "modelservice": [], "router": [], "router_gateway": []}
    assert len(plan["unchanged"]) == 6
    assert release_digest.record_definitions(records, plan, helm_list(records), maps) == []


def test_changed_values_chart_or_extra_go_to_helm():
    records = [record("a"), record("b")]
    maps = deployed(records, {"a": spec(), "b": spec()})
    plan = release_digest.release_plan(records, {"a": spec(2), "b": spec()}, CHARTS, helm_list(records), maps)
    assert plan["deploy"] == {"infra": [], "gaie": [], "modelservice": ["a"], "router": [], "router_gateway": []}
    newer = dict(CHARTS, gaie={"ref": CHARTS["gaie"]["ref"], "version": "v1.3.0"})
    plan = release_digest.release_plan(records, {"a": spec(), "b": spec()}, newer, helm_list(records), maps)
    assert plan["deploy"]["gaie"] == ["a", "b"]
    plan = release_digest.release_plan(records, {"a": spec(), "b": spec()}, CHARTS, helm_list(records), maps,
                                       {"infra": "another post-renderer"})
    assert plan["deploy"] == {"infra": ["a", "b"], "gaie": [], "modelservice": [], "router": [], "router_gateway": []}


def test_a_release_not_deployed_or_at_another_revision_goes_to_helm():
    records = [record("a")]
    maps = deployed(records, {"a": spec()})
    for status, revision in (("failed", 1), ("pending-upgrade", 1), ("deployed", 2)):
        plan = release_digest.release_plan(records, {"a": spec()}, CHARTS,
                                           helm_list(records, status=status, revision=revision), maps)
        assert plan["deploy"] == {"infra": ["a"], "gaie": ["a"], "modelservice": ["a"], "router": [], "router_gateway": []}, (status, revision)
    # uninstalled by hand: not in helm list at all
    plan = release_digest.release_plan(records, {"a": spec()}, CHARTS, [], maps)
    assert plan["deploy"]["modelservice"] == ["a"]


def test_record_after_an_upgrade_carries_the_new_revision_and_skips_failed_releases():
    records = [record("a")]
    maps = deployed(records, {"a": spec()})
    plan = release_digest.release_plan(records, {"a": spec(3)}, CHARTS, helm_list(records), maps)
    after = helm_list(records, revision=2)
    after[0]["status"] = "failed"  # the infra release
    new = release_digest.record_definitions(records, plan, after, maps)
    assert len(new) == 1
    assert new[0]["data"]["ms-a"] == "2 " + plan["digests"]["a"]["ms-a"]
    assert "infra-a" not in new[0]["data"]


def test_foreign_configmaps_are_ignored():
    records = [record("a")]
    maps = deployed(records, {"a": spec()})
    maps[0]["metadata"]["labels"] = {naming.LABEL_COMPONENT: "something-else"}
    plan = release_digest.release_plan(records, {"a": spec()}, CHARTS, helm_list(records), maps)
    assert plan["deploy"]["infra"] == ["a"]


def test_digest_is_order_independent():
    assert (release_digest.values_digest(CHARTS["gaie"], {"a": 1, "b": {"c": 2, "d": 3}})
            == release_digest.values_digest(CHARTS["gaie"], {"b": {"d": 3, "c": 2}, "a": 1}))
    assert release_digest.values_digest(CHARTS["gaie"], {"a": 1}) != release_digest.values_digest(CHARTS["gaie"], {"a": 2})


def test_the_chart_mark_changes_with_the_chart_or_post_renderer_and_not_with_the_values():
    """Helm's own check sees only chart name, version and values: the mark in the values is what makes a chart
    whose content changed under the same version (a new digest) or a new post-renderer an upgrade."""
    records = [record("a")]

    def marks(charts, extras=None, specs=None):
        plan = release_digest.release_plan(records, specs or {"a": spec()}, charts, [], [], extras)
        return dict((chart, values["global"][release_digest.MARK_KEY]) for chart, values in plan["marks"].items())

    first = marks(CHARTS)
    # every chart key of every stack (the seed's three and the v0.10 router)
    assert len(set(first.values())) == 4 and all(len(mark) == 20 for mark in first.values())
    assert marks(CHARTS, specs={"a": spec(4)}) == first
    pinned = dict(CHARTS, infra=dict(CHARTS["infra"], ref=CHARTS["infra"]["ref"] + "@sha256:" + "1" * 64))
    moved = marks(pinned)
    assert moved["infra"] != first["infra"] and moved["gaie"] == first["gaie"]
    renderer = marks(CHARTS, {"infra": "another post-renderer"})
    assert renderer["infra"] != first["infra"] and renderer["modelservice"] == first["modelservice"]
