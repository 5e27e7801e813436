"""Slug rules, slug discovery and the seed's resource names."""

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils import naming

SEED_NAMES = {
    "namespace": "llm-d-{s}",
    "infra_release": "infra-{s}",
    "gaie_release": "gaie-{s}",
    "ms_release": "ms-{s}",
    "gateway": "infra-{s}-inference-gateway",
    "httproute": "llm-d-{s}",
    "pvc": "{s}-model",
    "pv": "{s}-model-pv",
    "pull_job": "{s}-model-pull",
    "clear_job": "{s}-model-clear",
    "prune_job": "{s}-model-prune",
    "embeddings_service": "ms-{s}-embeddings",
    "gateway_service": "llmd-gateway-{s}",
    "gateway_defaults": "gateway-defaults-{s}",
    "epp_service": "gaie-{s}-epp",
    # the llm-d v0.10 stack's router, in every record whatever its stack (issue 29)
    "router_release": "router-{s}",
    "router_epp": "router-{s}-epp",
}


@pytest.mark.parametrize("slug", ["qwen3-0-6b", "qwen3-0-6b-rke2", "a", "0", "a" * 47, "x-1-y"])
def test_valid_slugs(slug):
    assert naming.slug_problem(slug) is None


@pytest.mark.parametrize("slug, why", [
    ("", "empty"),
    (None, "empty"),
    ("a" * 48, "48 characters"),
    ("Qwen", "lowercase"),
    ("qwen_3", "lowercase"),
    ("-qwen", "start and end"),
    ("qwen-", "start and end"),
    ("qw.en", "lowercase"),
])
def test_invalid_slugs(slug, why):
    assert why in naming.slug_problem(slug)


@pytest.mark.parametrize("folders, slug", [
    (["gaie-qwen3-0-6b", "ms-qwen3-0-6b"], "qwen3-0-6b"),
    (["ms-x", "notes", "gaie-x", "README"], "x"),
])
def test_slug_from_folders(folders, slug):
    assert naming.slug_from_folders(folders) == (slug, [])


@pytest.mark.parametrize("folders, problem", [
    ([], "no gaie-<slug>/ folder"),
    (["gaie-a"], "no ms-<slug>/ folder"),
    (["gaie-a", "gaie-b", "ms-a"], "2 gaie-<slug>/ folders (gaie-a/, gaie-b/)"),
    (["gaie-a", "ms-b"], "carry different slugs"),
])
def test_slug_from_folders_problems(folders, problem):
    slug, problems = naming.slug_from_folders(folders)
    assert slug is None
    assert any(problem in p for p in problems)


@pytest.mark.parametrize("slug", ["qwen3-0-6b", "qwen3-0-6b-rke2", "all-minilm-l6-v2-rke2"])
def test_resource_names_follow_the_seed(slug):
    assert naming.resource_names(slug) == dict((k, v.format(s=slug)) for k, v in SEED_NAMES.items())


def test_every_name_has_a_limit():
    assert sorted(naming.NAME_LIMITS) == sorted(SEED_NAMES)
    assert naming.NAME_LIMITS["clear_job"] == (
        "clear Job", 63, "the Job name becomes the job-name label of its pods, a label value of at most 63")
    assert naming.NAME_LIMITS["infra_release"][1:] == (53, "Helm release names are at most 53 characters")


@pytest.mark.parametrize("embedder, kind, stale", [
    (False, "httproute", "embeddings_service"),
    (True, "embeddings_service", "httproute"),
])
def test_routing_kind_and_the_other_branch(embedder, kind, stale):
    assert naming.routing_kind(embedder) == kind
    assert naming.stale_routing_kind(kind) == stale


def test_endpoints():
    names = naming.resource_names("m", namespace="team")
    assert naming.endpoint_url(names, "httproute", "cluster.local", 8200) == "http://llmd-gateway-m.team.svc.cluster.local"
    assert naming.endpoint_url(names, "embeddings_service", "c.example", 8200) == (
        "http://ms-m-embeddings.team.svc.c.example:8200")
    assert naming.gateway_class_service_name("infra-m-inference-gateway", "istio") == "infra-m-inference-gateway-istio"
    assert naming.service_fqdn("gaie-m-epp", "llm-d-m", "cluster.local") == "gaie-m-epp.llm-d-m.svc.cluster.local"


def test_one_label_set_and_annotation_keys():
    assert naming.managed_labels() == {"app.kubernetes.io/managed-by": "ai_platform.serving"}
    assert naming.model_labels("m") == {"app.kubernetes.io/managed-by": "ai_platform.serving",
                                        "ai-platform.serving/slug": "m"}
    assert naming.model_labels("m", naming.COMPONENT_MODEL_CACHE) == dict(
        naming.model_labels("m"), **{"app.kubernetes.io/component": "model-cache"})
    assert naming.label_selectors(naming.SELECTIONS["model_cache"]) == [
        "app.kubernetes.io/component=model-cache", "app.kubernetes.io/managed-by=ai_platform.serving"]
    assert naming.annotation_key("pulled_at") == "ai-platform.serving/pulled-at"


def test_overrides_change_namespace_release_and_gateway_only():
    names = naming.resource_names("m", namespace="team-a", release_name="gw")
    assert names["namespace"] == "team-a"
    assert names["infra_release"] == "gw"
    assert names["gateway"] == "gw-inference-gateway"
    assert names["httproute"] == "llm-d-m"


def test_longest_slug_fits_every_limit_but_the_gateway():
    problems = naming.name_limit_problems(naming.resource_names("a" * 47))
    # and the v0.10 router release (router-<47> is 54), which binds only llm-d v0.10 models (plan/build.py)
    assert [problem[0] for problem in problems] == ["gateway", "router_release"]


def test_gateway_fits_up_to_a_39_character_slug():
    assert naming.name_limit_problems(naming.resource_names("a" * 39)) == []
    assert naming.name_limit_problems(naming.resource_names("a" * 40))[0][0] == "gateway"


def test_epp_service_follows_the_chart_truncation():
    """inferencepool v1.2.0: <release | lower | trim | trunc 40>-epp."""
    release = naming.slug_name("gaie_release", "a" * 47)
    assert naming.epp_service_name(release) == release[:40] + "-epp"
    assert len(naming.epp_service_name(release)) == 44


ALL_KEYS = ["namespace", "infra_release", "gaie_release", "ms_release", "gateway", "gateway_service",
            "gateway_defaults", "httproute", "pvc", "pv", "pull_job"]


@pytest.mark.parametrize("namespace, release, limit, key", [
    (None, None, 39, "gateway"),
    (None, "infra-m", 47, None),
    ("llm-d-m", "infra-m", 47, None),
])
def test_slug_limit_is_the_binding_derived_name(namespace, release, limit, key):
    assert naming.slug_limit(ALL_KEYS, namespace, release) == (limit, key)
    names = naming.resource_names("a" * limit, namespace, release)
    assert naming.name_limit_problems(names, ALL_KEYS) == []


@pytest.mark.parametrize("key", ["nodegroup", "kubernetes.io/hostname", "nvidia.com/gpu.present", "A_b.c-1"])
def test_valid_label_keys(key):
    assert naming.label_key_problem(key) is None


@pytest.mark.parametrize("key, why", [
    ("", "non-empty"), ("gpu pool", "name 'gpu pool'"), ("/gpu", "prefix ''"), ("Example.com/gpu", "prefix"),
    ("a/" + "n" * 64, "at most 63"), ("-gpu", "starting and ending"), (7, "non-empty string"),
])
def test_invalid_label_keys(key, why):
    assert why in naming.label_key_problem(key)


@pytest.mark.parametrize("value, ok", [
    ("", True), ("gpu-pool", True), ("A.b_c", True), ("g" * 63, True), ("g" * 64, False), ("a b", False),
    ("-a", False), ("a/b", False), (1, False),
])
def test_label_values(value, ok):
    assert (naming.label_value_problem(value) is None) is ok


V010_KEYS = ["namespace", "router_release", "gateway_service", "gateway_defaults", "httproute", "pvc", "pv",
             "pull_job", "router_epp"]


def test_the_router_release_binds_the_v010_slug_at_46():
    assert naming.slug_limit(V010_KEYS) == (46, "router_release")
    assert naming.name_limit_problems(naming.resource_names("a" * 46), V010_KEYS) == []
    assert naming.NAME_LIMITS["router_release"] == ("llm-d-router Helm release", 53,
                                                    "Helm release names are at most 53 characters")
    assert naming.NAME_LIMITS["router_epp"][1] == 63


def test_router_epp_follows_the_chart_truncation():
    names = naming.resource_names("a" * 46)
    assert names["router_epp"] == ("router-" + "a" * 46)[:40] + "-epp"


@pytest.mark.parametrize("folders, stack, slug", [
    (["gaie-q", "ms-q"], None, "q"),
    (["router-q", "modelserver-q"], "llm-d-v0.10", "q"),
    (["gaie-q", "ms-q", "router-q", "modelserver-q"], "llm-d-v0.10", "q"),
    (["gaie-q", "ms-q", "router-q", "modelserver-q"], "llm-d-modelservice", "q"),
    (["gaie-q", "ms-q", "router-q"], None, "q"),  # half of the other pair: not read, not required
    (["router-q", "modelserver-q", "ms-q"], "llm-d-v0.10", "q"),
])
def test_slug_from_either_pair(folders, stack, slug):
    assert naming.slug_from_folders(folders, stack) == (slug, [])


@pytest.mark.parametrize("folders, stack, problem", [
    (["router-q", "modelserver-q"], None, "no gaie-<slug>/ folder"),
    (["gaie-q", "ms-q"], "llm-d-v0.10", "no router-<slug>/ folder"),
    (["router-q"], "llm-d-v0.10", "no modelserver-<slug>/ folder"),
    (["router-q", "modelserver-r"], "llm-d-v0.10", "router-q/ and modelserver-r/ carry different slugs"),
    (["router-q", "router-r", "modelserver-q"], "llm-d-v0.10", "2 router-<slug>/ folders (router-q/, router-r/)"),
    (["gaie-q", "ms-q", "router-r", "modelserver-r"], None,
     "router-r/, modelserver-r/ (the llm-d-v0.10 stack's folders) carry another slug than gaie-q/ and ms-q/"),
    (["gaie-r", "ms-q", "router-q", "modelserver-q"], "llm-d-v0.10",
     "gaie-r/ (the llm-d-modelservice stack's folder) carries another slug"),
])
def test_slug_from_either_pair_problems(folders, stack, problem):
    slug, problems = naming.slug_from_folders(folders, stack)
    assert slug is None
    assert any(problem in p for p in problems), problems


def test_the_plan_accepts_the_two_stack_names():
    assert naming.STACK_NAMES == ("llm-d-modelservice", "llm-d-v0.10")
    assert naming.DEFAULT_STACK == "llm-d-modelservice"
