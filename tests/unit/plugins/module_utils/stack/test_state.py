"""What serving_stack does, decided from one read of the cluster (module_utils/stack/state.py), on real plan
records of the repo's models tree and their stack specs."""

import copy
import hashlib
import json
from pathlib import Path

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import live_state, release_digest, stacks, state
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.tests.unit.plugins.module_utils.stack.test_values_stack_spec import (
    GPU, records, spec)

REPO = Path(__file__).resolve().parents[5]
EMB, GEN = "all-minilm-l6-v2-rke2", "qwen3-0-6b-rke2"
DIGEST_V1 = "sha256:" + "1" * 64
DIGEST_V2 = "sha256:" + "2" * 64
CHARTS = {"infra": {"ref": "oci://h/charts/llm-d-infra", "version": "v1.3.0"},
          "gaie": {"ref": "oci://r/inferencepool", "version": "v1.2.0"},
          "modelservice": {"ref": "oci://h/charts/llm-d-modelservice", "version": "v0.4.12"}}
APPLY = {"normal": {"force": False}, "forced": {"force": True}}


@pytest.fixture(scope="module")
def recs():
    return records(toleration=GPU)


@pytest.fixture(scope="module")
def specs(recs):
    return dict((slug, spec(rec)) for slug, rec in recs.items())


def ordered(recs):
    return [recs[slug] for slug in sorted(recs)]


def due(record, annotations, kept, dropped):
    """The ``prune`` entry of ``record``: the record with the decision model_revisions takes instead of a claim read."""
    return dict(record, prune={"annotations": annotations, "kept": kept, "dropped": dropped})


def claim(record, annotations=None):
    return {"metadata": {"name": record["storage"]["pvc"], "namespace": record["namespace"],
                         "annotations": annotations or {}}}


def pulled(record, digest=DIGEST_V1):
    oci = record["storage"]["oci"]
    return claim(record, {sv.PULLED_DIGEST_ANNOTATION: digest, "ai-platform.serving/reference":
                          "%s/%s@%s" % (oci["registry"], oci["repository"], digest)})


def helm_list(recs, status="deployed", revision=1):
    return [{"namespace": r["namespace"], "name": r["names"][key], "revision": str(revision), "status": status}
            for r in recs for _chart, key in stacks.charts()]


# --- the claim gate (was the filters unpulled_models and claims_off_plan) ----------------------------------

def test_a_claim_without_a_verified_pull_fails_naming_the_model_and_the_fix(recs):
    rec = recs[EMB]
    assert [r["slug"] for r in state.harbor_records(ordered(recs))] == [EMB]
    assert state.claim_records(ordered(recs), {}) == [rec]
    assert state.claim_records(ordered(recs), {EMB: {"digest": DIGEST_V1}}) == []
    assert state.claim_problems([rec], [pulled(rec)]) == []
    line = ("all-MiniLM-L6-v2-rke2: its claim holds no verified pull (no model_storage result in this play, no digest "
            "annotation on the claim). Fix: run model_storage first (site.yml --tags storage) and see "
            "playbooks/cache.yml for the claim state.")
    assert state.claim_problems([rec], [claim(rec)]) == [line]          # a claim without the annotation
    assert state.claim_problems([rec], []) == [line]                    # no claim at all
    bare = {"metadata": {"name": rec["storage"]["pvc"], "namespace": rec["namespace"]}}
    assert state.claim_problems([rec], [bare]) == [line]                # no annotations at all
    # another model's claim of the same name in another namespace is not this one's
    elsewhere = pulled(rec)
    elsewhere["metadata"]["namespace"] = "elsewhere"
    assert state.claim_problems([rec], [elsewhere]) == [line]


def test_the_serving_gate_wants_the_planned_artifact_not_any_pull(recs):
    rec = recs[EMB]
    oci = rec["storage"]["oci"]
    other = claim(rec, {sv.PULLED_DIGEST_ANNOTATION: DIGEST_V1, "ai-platform.serving/reference":
                        "%s/ai-models/other@%s" % (oci["registry"], DIGEST_V1)})
    problems = state.claim_problems([rec], [other])
    assert len(problems) == 1 and "all-MiniLM-L6-v2-rke2: its claim holds %s/ai-models/other" % oci["registry"] \
        in problems[0]
    pinned = dict(rec, storage=dict(rec["storage"], oci=dict(oci, digest=DIGEST_V2)))
    problems = state.claim_problems([pinned], [pulled(rec)])
    assert len(problems) == 1 and "but the plan pins %s" % DIGEST_V2 in problems[0] \
        and "Fix: run model_storage" in problems[0]
    # unpulled ones first, then the off-plan ones (one failure names every such model)
    second = dict(rec, name="Other", slug="other", namespace="other-ns")
    both = state.claim_problems([pinned, second], [pulled(rec)])
    assert both[0].startswith("Other: its claim holds no verified pull") and "but the plan pins" in both[1]


# --- the served digest (was the filter stamp_served_digests) ------------------------------------------------

def test_the_served_digest_goes_on_the_pod_templates_so_a_new_pull_rolls_them(recs):
    rec = recs[EMB]
    specs = {EMB: spec(rec)}
    specs[EMB]["values"]["modelservice"]["decode"]["podAnnotations"] = {"team": "search"}
    kept = copy.deepcopy(specs)
    from_claim = state.stamp_served_digests(specs, state.served_digests([rec], [pulled(rec)], {}))
    decode = from_claim[EMB]["values"]["modelservice"]["decode"]
    assert decode["podAnnotations"] == {"team": "search", "ai-platform.serving/served-digest": DIGEST_V1}
    assert "podAnnotations" not in specs[EMB]["values"]["modelservice"].get("prefill", {}) or \
        specs[EMB]["values"]["modelservice"]["prefill"].get("create") is False
    # model_storage's result in this play wins over the (older) annotation: the new pull rolls the pods
    digests = state.served_digests([rec], [pulled(rec)], {EMB: {"digest": DIGEST_V2}})
    assert digests == {EMB: DIGEST_V2}
    stamped = state.stamp_served_digests(specs, digests)
    assert stamped[EMB]["values"]["modelservice"]["decode"]["podAnnotations"][sv.SERVED_DIGEST_ANNOTATION] == DIGEST_V2
    # no known digest: the values stay as they are; the input is never changed in place
    assert state.served_digests([rec], [claim(rec)], {EMB: {"digest": ""}, "x": "not a result"}) == {}
    assert state.stamp_served_digests(specs, {}) == specs
    assert specs == kept


# --- the post-renderer digest (was lookup('file') | hash('sha256') in present.yml) --------------------------

def test_the_post_renderer_digest_is_the_one_the_role_recorded_before():
    """Ansible's file lookup drops trailing whitespace before hash('sha256'): the same digest keeps the recorded
    llm-d-infra release digests valid, so an upgrade of the collection sends no release to Helm for it."""
    text = (REPO / "roles/serving_stack/files/gateway_placement.py").read_text()
    assert state.file_digest(text) == hashlib.sha256(text.rstrip().encode("utf-8")).hexdigest()
    assert state.file_digest("x\n\n") == state.file_digest("x") != state.file_digest("y")


# --- the live records, the release items and the rest of the ready lists ----------------------------------

def read(recs, **given):
    found = dict(helm_list=[], digest_maps=[], claims=[], live={}, namespaces=None, apply_options=APPLY)
    found.update(given)
    return found


def test_a_first_run_sends_every_release_to_helm_in_chart_order(recs, specs):
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[pulled(recs[EMB])]), keep=1,
                       post_renderer="/r/gateway_placement.py", post_renderer_digest="p1")
    assert out["problems"] == []
    assert [(i["chart"], i["slug"]) for i in out["render"]] == [
        (chart, slug) for chart, _key in stacks.charts() for slug in sorted(recs)]
    assert dict((chart, [i["slug"] for i in items]) for chart, items in out["releases"].items()) == dict(
        [(chart, sorted(recs)) for chart, _key in stacks.charts()] + [("router", []), ("router_gateway", [])])
    infra = out["releases"]["infra"][0]
    rec = recs[EMB]
    assert (infra["name"], infra["namespace"], infra["model"]) == (
        rec["names"]["infra_release"], rec["namespace"], "all-MiniLM-L6-v2-rke2")
    assert (infra["ref"], infra["version"], infra["repo"]) == ("oci://h/charts/llm-d-infra", "v1.3.0", "")
    assert infra["post_renderer"] == "/r/gateway_placement.py" and infra["force"] is False
    assert all("post_renderer" not in i for i in out["releases"]["gaie"] + out["releases"]["modelservice"])
    assert infra["label"] == "%s: %s" % (EMB, rec["names"]["infra_release"])
    # the values carry the chart mark, with the post-renderer's digest in llm-d-infra's
    plan = release_digest.release_plan(ordered(recs), state.stamp_served_digests(specs, {EMB: DIGEST_V1}), CHARTS,
                                       [], [], {"infra": "p1"})
    assert infra["values"]["global"][release_digest.MARK_KEY] == plan["marks"]["infra"]["global"][
        release_digest.MARK_KEY]
    assert infra["digest"] == plan["digests"][EMB][rec["names"]["infra_release"]]
    assert infra["record"] == {"name": naming.slug_name("release_digests", EMB), "namespace": rec["namespace"],
                               "labels": naming.model_labels(EMB, naming.COMPONENT_RELEASE_DIGESTS)}
    # the values with the served digest stamped (the claim's annotation)
    ms = [i for i in out["releases"]["modelservice"] if i["slug"] == EMB][0]
    assert ms["values"]["decode"]["podAnnotations"][sv.SERVED_DIGEST_ANNOTATION] == DIGEST_V1
    assert ms["failure"] == "all-MiniLM-L6-v2-rke2: chart modelservice (oci://h/charts/llm-d-modelservice v0.4.12) " \
        "failed in namespace %s" % rec["namespace"]
    gaie = [i for i in out["releases"]["gaie"] if i["slug"] == EMB][0]
    assert gaie["failure"] == ("all-MiniLM-L6-v2-rke2: chart gaie (oci://r/inferencepool v1.2.0) failed in namespace "
                               "llm-d-all-minilm-l6-v2-rke2")
    # nothing on the cluster yet: every object is due, the gateway Services among them, nothing to remove
    assert out["apply"] == [d for slug in sorted(recs) for d in specs[slug]["objects"] + [specs[slug]["routing"]]]
    assert out["gateways"] == [d for slug in sorted(recs) for d in specs[slug]["objects"]]
    assert out["remove"] == [] and out["repairs"] == [] and out["prune"] == [] and out["unchanged"] == []
    assert out["endpoints"][GEN] == {"namespace": "llm-d-qwen3-0-6b-rke2", "kind": "HTTPRoute",
                                     "name": "llm-d-qwen3-0-6b-rke2", "endpoint": specs[GEN]["endpoint"]}
    assert out["endpoints"][EMB]["kind"] == "Service" and out["endpoints"][EMB]["endpoint"].endswith(":8200")


def recorded(recs, specs, digests, extras, revision=1):
    """The release-digest ConfigMaps a deploy of ``recs`` wrote (what release.yml records, key by key)."""
    plan = release_digest.release_plan(recs, state.stamp_served_digests(specs, digests), CHARTS, [], [], extras)
    return release_digest.record_definitions(recs, plan, helm_list(recs, revision=revision), [])


def test_a_rerun_with_nothing_to_change_has_nothing_to_do(recs, specs):
    objects, retired = state.stack_objects(specs)
    live = dict((live_state.object_key(d), d) for ds in objects.values() for d in ds)
    live.update((live_state.object_key(d), None) for ds in retired.values() for d in ds)
    cluster = read(recs, helm_list=helm_list(ordered(recs)), claims=[pulled(recs[EMB])], live=live,
                   digest_maps=recorded(ordered(recs), specs, {EMB: DIGEST_V1}, {"infra": "p1"}))
    out = state.decide(ordered(recs), specs, CHARTS, cluster, post_renderer_digest="p1")
    assert out["render"] == [] and out["releases"] == {"infra": [], "gaie": [], "modelservice": [], "router": [], "router_gateway": []}
    assert out["apply"] == out["gateways"] == out["remove"] == out["repairs"] == out["prune"] == []
    assert sorted(out["unchanged"]) == sorted("%s/%s" % (r["namespace"], r["names"][key])
                                              for r in ordered(recs) for _c, key in stacks.charts())
    assert sorted(out["endpoints"]) == sorted(recs)
    # a new post-renderer sends only the llm-d-infra releases; a new pull only the modelservice release it serves
    moved = state.decide(ordered(recs), specs, CHARTS, cluster, post_renderer_digest="p2")
    assert [i["chart"] for i in moved["render"]] == ["infra", "infra"]
    newer = state.decide(ordered(recs), specs, CHARTS, cluster, {EMB: {"digest": DIGEST_V2}},
                         post_renderer_digest="p1")
    assert [(i["chart"], i["slug"]) for i in newer["render"]] == [("modelservice", EMB)]
    # an edited object is due again, with the gateway Service among the gateways; a retired one that exists goes
    edited = dict(live)
    gateway = specs[GEN]["objects"][0]
    edited[live_state.object_key(gateway)] = dict(gateway, spec={"type": "ExternalName", "externalName": "x"})
    stale = retired[GEN][0] if retired[GEN] else retired[EMB][0]
    edited[live_state.object_key(stale)] = stale
    out = state.decide(ordered(recs), specs, CHARTS, dict(cluster, live=edited), post_renderer_digest="p1")
    assert out["apply"] == out["gateways"] == [gateway] and out["remove"] == [stale] and out["render"] == []


def test_a_failed_or_pending_release_is_forced_and_repaired_first(recs, specs):
    rec = recs[GEN]
    listing = helm_list(ordered(recs))
    for item in listing:
        if item["name"] == rec["names"]["gaie_release"]:
            item.update(status="pending-upgrade", revision="4")
        if item["name"] == rec["names"]["ms_release"]:
            item.update(status="failed", revision="1")
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, helm_list=listing, claims=[pulled(recs[EMB])]),
                       timeout="4m0s", helm_binary="/bin/helm", kubeconfig="/k")
    gaie = [i for i in out["releases"]["gaie"] if i["slug"] == GEN][0]
    assert gaie["force"] is True and gaie["label"] == "%s: %s (pending-upgrade: forced)" % (
        GEN, rec["names"]["gaie_release"])
    assert [i["force"] for i in out["releases"]["infra"]] == [False, False]
    ns = rec["namespace"]
    assert out["repairs"] == [
        {"argv": ["/bin/helm", "rollback", rec["names"]["gaie_release"], "--namespace", ns, "--wait", "--timeout",
                  "4m0s", "--kubeconfig", "/k"],
         "label": "%s/%s: pending-upgrade revision 4 -> rollback" % (ns, rec["names"]["gaie_release"])},
        {"argv": ["/bin/helm", "uninstall", rec["names"]["ms_release"], "--namespace", ns, "--wait", "--timeout",
                  "4m0s", "--kubeconfig", "/k"],
         "label": "%s/%s: failed revision 1 -> uninstall" % (ns, rec["names"]["ms_release"])}]
    # Helm 4: a normal upgrade applies client-side, a forced one is force alone
    helm4 = {"normal": {"server_side": "false"}, "forced": {"force": True}}
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, helm_list=listing, apply_options=helm4,
                                                          claims=[pulled(recs[EMB])]))
    gaie = [i for i in out["releases"]["gaie"] if i["slug"] == GEN][0]
    assert gaie["force"] is True and "server_side" not in gaie
    assert [i["server_side"] for i in out["releases"]["infra"]] == ["false", "false"]
    assert all("force" not in i for i in out["releases"]["infra"])


def test_helm_repairs_undo_only_what_blocks_an_upgrade(recs):
    """(was the filter helm_repairs) Only pending releases above revision 1 are rolled back, a pending or failed
    first install uninstalled; other models' and other namespaces' releases are left alone."""
    rec = recs[EMB]
    ns, names = rec["namespace"], rec["names"]

    def release(name, status, revision, namespace=ns):
        return {"name": name, "namespace": namespace, "status": status, "revision": str(revision)}
    listing = [release(names["infra_release"], "deployed", 3), release(names["gaie_release"], "pending-upgrade", 4),
               release(names["ms_release"], "pending-install", 1),
               release(names["ms_release"], "failed", 1, namespace="elsewhere"),
               release("unrelated", "pending-upgrade", 2)]
    found = state.repairs(listing, [rec], "4m0s")
    assert [item["label"].split(": ", 1)[1] for item in found] == [
        "pending-upgrade revision 4 -> rollback", "pending-install revision 1 -> uninstall"]
    assert found[0]["argv"] == ["helm", "rollback", names["gaie_release"], "--namespace", ns, "--wait", "--timeout",
                                "4m0s"]
    assert found[1]["argv"][:3] == ["helm", "uninstall", names["ms_release"]]
    assert [i["label"].rsplit(" ", 1)[1] for i in state.repairs([release(names["ms_release"], "failed", 1)], [rec],
                                                                "5m0s")] == ["uninstall"]
    # a failed upgrade (revision > 1) is left to the forced upgrade
    assert state.repairs([release(names["ms_release"], "failed", 2), release(names["infra_release"], "superseded", 1)],
                         [rec], "5m0s") == []


def test_check_mode_changes_only_the_records_whose_namespace_exists(recs, specs):
    """In check mode nothing can be dry-run in a namespace that does not exist yet: its record is rendered (the
    render check still sees a new model's releases) but gets no release, object, repair, prune or endpoint."""
    rec = recs[GEN]
    assert state.live_records(ordered(recs)) == ordered(recs)
    assert state.live_records(ordered(recs), [rec["namespace"], "default"]) == [rec]
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, namespaces=[rec["namespace"]]))
    assert sorted(set(i["slug"] for i in out["render"])) == sorted(recs)
    assert all(i["slug"] == GEN for items in out["releases"].values() for i in items)
    assert [len(items) for items in out["releases"].values()] == [1, 1, 1, 0, 0]
    assert out["apply"] == specs[GEN]["objects"] + [specs[GEN]["routing"]]
    assert list(out["endpoints"]) == [GEN]
    # the Harbor model without a pull is still reported (the module fails with it outside check mode)
    assert out["problems"] and out["problems"][0].startswith("all-MiniLM-L6-v2-rke2: its claim holds no verified pull")


def test_the_claims_that_keep_too_many_revisions_are_pruned_for_live_records_only(recs, specs):
    rec = recs[EMB]
    revisions = [{"digest": DIGEST_V1, "pulled_at": "2026-01-01T00:00:00Z"},
                 {"digest": DIGEST_V2, "pulled_at": "2026-01-02T00:00:00Z"},
                 {"digest": "sha256:" + "3" * 64, "pulled_at": "2026-01-03T00:00:00Z"}]
    annotations = dict(pulled(rec, "sha256:" + "3" * 64)["metadata"]["annotations"])
    annotations[pull_marker.ANNOTATION_REVISIONS] = json.dumps(revisions)
    full = claim(rec, annotations)
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[full]), keep=0)
    # the entry carries the annotations of the claim it was decided on and the digests kept and dropped
    assert out["prune"] == [due(rec, annotations, ["sha256:" + "3" * 64], [DIGEST_V1, DIGEST_V2])]
    assert state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[full]), keep=1)["prune"] == [
        due(rec, annotations, ["sha256:" + "3" * 64, DIGEST_V1], [DIGEST_V2])]
    out["prune"][0]["prune"]["annotations"]["x"] = "y"                    # a copy: the read claim is not changed
    assert "x" not in full["metadata"]["annotations"] and "prune" not in rec
    assert state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[full], namespaces=[]), keep=0)["prune"] == []
    assert state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[full]), keep=5)["prune"] == []


def test_endpoints_need_every_records_stack_spec(recs, specs):
    with pytest.raises(ValueError, match="all-MiniLM-L6-v2-rke2 has no stack spec"):
        state.endpoints(ordered(recs), {})
    assert state.endpoints(ordered(recs), specs) == state.decide(ordered(recs), specs, CHARTS, read(recs))["endpoints"]


# --- the claims model_storage's results carry (issue 28: the claims are read at most twice per run) ---------

def three_revisions(record):
    """The annotations of ``record``'s claim after a third pull: the served digest and three revisions kept."""
    revisions = [{"digest": "sha256:" + str(n) * 64, "pulled_at": "2026-01-0%dT00:00:00Z" % n} for n in (1, 2, 3)]
    annotations = dict(pulled(record, "sha256:" + "3" * 64)["metadata"]["annotations"])
    annotations[pull_marker.ANNOTATION_REVISIONS] = json.dumps(revisions)
    return annotations


def harbor_gen(recs):
    """The generation model pulled from Harbor as well (a second Harbor record with its own claim)."""
    rec = recs[GEN]
    return dict(rec, storage=dict(recs[EMB]["storage"], pvc="qwen3-0-6b-rke2-model"))


def test_results_with_claim_annotations_stand_for_every_claim_and_nothing_is_read(recs, specs):
    rec = recs[EMB]
    annotations = three_revisions(rec)
    results = {EMB: {"digest": "sha256:" + "3" * 64, "claim_annotations": annotations}}
    assert state.claims_to_read(ordered(recs), results) == []
    known = state.known_claims(ordered(recs), results)
    assert known == [{"metadata": {"name": "all-minilm-l6-v2-rke2-model", "namespace": "llm-d-all-minilm-l6-v2-rke2",
                                   "annotations": annotations}}]
    known[0]["metadata"]["annotations"]["x"] = "y"                     # a copy: the result is not changed
    assert "x" not in results[EMB]["claim_annotations"]
    # the module read no claim (read claims=[]): the prune is decided on the result's annotations - three revisions
    # kept beside none allowed but one is still one too many
    out = state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[]), results, keep=1)
    assert out["prune"] == [due(rec, annotations, ["sha256:" + "3" * 64, "sha256:" + "1" * 64], ["sha256:" + "2" * 64])]
    assert out["problems"] == []
    ms = [i for i in out["releases"]["modelservice"] if i["slug"] == EMB][0]
    assert ms["values"]["decode"]["podAnnotations"][sv.SERVED_DIGEST_ANNOTATION] == "sha256:" + "3" * 64
    assert state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[]), results, keep=2)["prune"] == []
    # an empty dict is a known claim without annotations (nothing to prune, nothing to read)
    bare = {EMB: {"digest": DIGEST_V1, "claim_annotations": {}}}
    assert state.claims_to_read(ordered(recs), bare) == []
    assert state.decide(ordered(recs), specs, CHARTS, read(recs), bare, keep=0)["prune"] == []


def test_only_the_records_whose_result_carries_no_claim_annotations_are_read(recs, specs):
    emb, gen = recs[EMB], harbor_gen(recs)
    both = [gen, emb]
    results = {EMB: {"digest": "sha256:" + "3" * 64, "claim_annotations": {sv.PULLED_DIGEST_ANNOTATION: DIGEST_V1}}}
    assert state.claims_to_read(both, results) == [gen]
    assert [c["metadata"]["name"] for c in state.known_claims(both, results)] == [emb["storage"]["pvc"]]
    # the module's one list by label also returns the covered claim as it stood before: the result's annotations
    # win (they are the state after this play's pull), the read one stands for the other record
    listed = [claim(emb, three_revisions(emb)), claim(gen, three_revisions(gen))]
    used = state.claims_in_use(both, listed, results)
    assert live_state.claims_by_key(used) == {
        "%s/%s" % (emb["namespace"], emb["storage"]["pvc"]): state.known_claims(both, results)[0],
        "%s/%s" % (gen["namespace"], gen["storage"]["pvc"]): listed[1]}
    out = state.decide(both, specs, CHARTS, read(recs, claims=listed), results, keep=1)
    assert out["prune"] == [due(gen, three_revisions(gen), ["sha256:" + "3" * 64, "sha256:" + "1" * 64],
                                ["sha256:" + "2" * 64])]
    # the record without a result is still checked on its read claim; without one it fails as before
    assert out["problems"] == []
    unread = state.decide(both, specs, CHARTS, read(recs, claims=[]), results, keep=1)
    assert unread["prune"] == [] and len(unread["problems"]) == 1
    assert unread["problems"][0].startswith("Qwen3-0.6B-rke2: its claim holds no verified pull")


@pytest.mark.parametrize("result", [{"digest": DIGEST_V1}, {"digest": DIGEST_V1, "claim_annotations": None},
                                    {"digest": DIGEST_V1, "claim_annotations": "not a dict"}, "not a result"])
def test_results_without_claim_annotations_read_every_claim_as_before(recs, specs, result):
    """An older caller or check mode: no claim_annotations, the claims are read and decide uses only them."""
    rec = recs[EMB]
    results = {EMB: result}
    assert state.claims_to_read(ordered(recs), results) == state.harbor_records(ordered(recs)) == [rec]
    assert state.known_claims(ordered(recs), results) == []
    full = claim(rec, three_revisions(rec))
    assert state.claims_in_use(ordered(recs), [full], results) == [full]
    assert [r["slug"] for r in state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[full]), results,
                                            keep=1)["prune"]] == [EMB]
    assert state.decide(ordered(recs), specs, CHARTS, read(recs, claims=[]), results, keep=1)["prune"] == []


@pytest.mark.parametrize("unknown", [None, "not a dict", ["a list"]])
def test_claim_annotations_that_are_no_dict_decide_as_a_result_without_them(recs, specs, unknown):
    rec = recs[EMB]
    full = claim(rec, three_revisions(rec))
    cluster = read(recs, claims=[full])
    without = state.decide(ordered(recs), specs, CHARTS, cluster, {EMB: {"digest": DIGEST_V2}}, keep=1)
    assert without["prune"] == [due(rec, full["metadata"]["annotations"], ["sha256:" + "3" * 64, "sha256:" + "1" * 64],
                                    ["sha256:" + "2" * 64])]
    assert state.decide(ordered(recs), specs, CHARTS, cluster,
                        {EMB: {"digest": DIGEST_V2, "claim_annotations": unknown}}, keep=1) == without
