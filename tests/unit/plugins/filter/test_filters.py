"""The name and source filters, imported as plain functions."""

import pytest

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.filter import model_source, naming, reference


def test_filter_maps_expose_every_filter():
    assert sorted(naming.FilterModule().filters()) == [
        "label_selectors", "model_slug", "resource_name", "resource_names", "slug_from_folders"]
    assert sorted(model_source.FilterModule().filters()) == ["parse_pvc_uri", "pvc_hf_uri", "quantity_bytes"]
    assert sorted(reference.FilterModule().filters()) == ["parse_oci_reference", "pinned_reference"]


def test_model_slug():
    assert naming.model_slug("qwen3-0-6b") == "qwen3-0-6b"
    with pytest.raises(AnsibleFilterError, match="lowercase"):
        naming.model_slug("Qwen3")


def test_slug_from_folders():
    assert naming.slug_from_folders(["gaie-m-rke2", "ms-m-rke2"]) == "m-rke2"
    with pytest.raises(AnsibleFilterError, match="different slugs"):
        naming.slug_from_folders(["gaie-a", "ms-b"])
    with pytest.raises(AnsibleFilterError, match="list of folder names"):
        naming.slug_from_folders("gaie-a")
    with pytest.raises(AnsibleFilterError, match="lowercase"):
        naming.slug_from_folders(["gaie-A", "ms-A"])


@pytest.mark.parametrize("kind, name", [
    ("namespace", "llm-d-m"), ("infra_release", "infra-m"), ("gaie_release", "gaie-m"), ("ms_release", "ms-m"),
    ("gateway", "infra-m-inference-gateway"), ("httproute", "llm-d-m"), ("pvc", "m-model"), ("pv", "m-model-pv"),
    ("pull_job", "m-model-pull"), ("clear_job", "m-model-clear"), ("prune_job", "m-model-prune"),
    ("embeddings_service", "ms-m-embeddings"), ("gateway_service", "llmd-gateway-m"),
    ("gateway_defaults", "gateway-defaults-m"), ("epp_service", "gaie-m-epp"),
])
def test_resource_name(kind, name):
    assert naming.resource_name("m", kind) == name
    assert naming.resource_names("m")[kind] == name


def test_label_selectors():
    assert naming.label_selectors("managed") == ["app.kubernetes.io/managed-by=ai_platform.serving"]
    assert naming.label_selectors("model_cache") == ["app.kubernetes.io/component=model-cache",
                                                     "app.kubernetes.io/managed-by=ai_platform.serving"]
    with pytest.raises(AnsibleFilterError, match="unknown selection 'pods'; use one of managed, model_cache"):
        naming.label_selectors("pods")


def test_resource_name_overrides_and_errors():
    assert naming.resource_name("m", "namespace", namespace="team") == "team"
    assert naming.resource_name("m", "gateway", release_name="gw") == "gw-inference-gateway"
    with pytest.raises(AnsibleFilterError, match="unknown kind 'svc'"):
        naming.resource_name("m", "svc")


def test_source_filters():
    assert model_source.pvc_hf_uri("m", "hub/o/n") == "pvc+hf://m-model/hub/o/n"
    assert model_source.parse_pvc_uri("pvc://ns:c/p")["namespace"] == "ns"
    assert reference.parse_oci_reference("h.io/p/n:t")["tag"] == "t"
    assert model_source.quantity_bytes("1Ki") == 1024
    for function, args in ((model_source.parse_pvc_uri, ("pvc://c",)), (reference.parse_oci_reference, ("x",)),
                           (model_source.quantity_bytes, ("1GB",)), (model_source.pvc_hf_uri, ("BAD", "hub/o/n")),
                           (model_source.pvc_hf_uri, ("m", "o/n"))):
        with pytest.raises(AnsibleFilterError):
            function(*args)


def test_hostpath_root_has_one_default():
    from ansible_collections.ai_platform.serving.plugins.filter import plan_records
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import DEFAULT_HOSTPATH_ROOT
    assert plan_records.hostpath_root("") == plan_records.hostpath_root(None) == DEFAULT_HOSTPATH_ROOT
    assert plan_records.hostpath_root("/srv/models") == "/srv/models"
    with pytest.raises(AnsibleFilterError, match="hostpath_root"):
        plan_records.hostpath_root(["/srv"])
