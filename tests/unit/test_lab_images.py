"""The lab serves the product's images where the image plan puts them (no running lab needed)."""

import importlib.util
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def labkit_module(name):
    """lab/labkit/<name>.py, imported as a submodule of the labkit package from the checkout."""
    if "labkit" not in sys.modules:
        spec = importlib.util.spec_from_file_location("labkit", REPO / "lab" / "labkit" / "__init__.py",
                                                      submodule_search_locations=[str(REPO / "lab" / "labkit")])
        package = importlib.util.module_from_spec(spec)
        sys.modules["labkit"] = package
        spec.loader.exec_module(package)
    return __import__("labkit." + name, fromlist=[name])


@pytest.fixture
def lab():
    return labkit_module("images"), labkit_module("config").load_versions()


def test_lab_images_are_the_image_plans(lab):
    images, versions = lab
    names = dict((r["upstream"], (r["destination"], r["source"])) for r in images.product_images(versions))
    harbor = "harbor.harbor.svc.cluster.local"
    assert names == {
        "ghcr.io/oras-project/oras": (harbor + "/images-infra/oras-project/oras:" + versions["ORAS_VERSION"],
                                      "ghcr.io/oras-project/oras:" + versions["ORAS_VERSION"]),
        "ghcr.io/llm-d/llm-d-inference-sim": (
            harbor + "/images-shaide/llm-d/llm-d-inference-sim:" + versions["INFERENCE_SIM_TAG"],
            "ghcr.io/llm-d/llm-d-inference-sim:" + versions["INFERENCE_SIM_TAG"]),
        # where images.yml carries it and the models' gaie values pull it
        "registry.k8s.io/gateway-api-inference-extension/epp": (
            harbor + "/images-shaide/gateway-api-inference-extension/epp:" + versions["GAIE_VERSION"],
            "registry.k8s.io/gateway-api-inference-extension/epp:" + versions["GAIE_VERSION"]),
        "docker.io/michaelf34/infinity": (
            harbor + "/images-shaide/michaelf34/infinity:" + versions["INFINITY_STANDIN_TAG"],
            "docker.io/michaelf34/infinity:" + versions["INFINITY_STANDIN_TAG"]),
    }


def test_an_image_named_after_its_plan_record(lab):
    images, versions = lab
    record = [r for r in images.product_images(versions) if r["upstream"] == "ghcr.io/oras-project/oras"][0]
    image = images.product_image(record, ("layer",), entrypoint=("/bin/oras",))
    assert image.harbor_name == "images-infra/oras-project/oras:" + versions["ORAS_VERSION"]
    assert image.mirror_path() == "oras-project/oras:" + versions["ORAS_VERSION"]


def test_a_version_the_lab_does_not_build_is_refused(lab):
    images, versions = lab
    with pytest.raises(RuntimeError, match="other tag .*oras:v1.3.1 \\(lab/versions.env ORAS_VERSION=v9"):
        images.product_images(dict(versions, ORAS_VERSION="v9"))
