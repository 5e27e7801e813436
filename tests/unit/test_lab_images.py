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
        # llm-d v0.10's router: stand-ins under the tags the router chart pins
        "ghcr.io/llm-d/llm-d-router-endpoint-picker": (
            harbor + "/images-shaide/llm-d/llm-d-router-endpoint-picker:" + versions["ROUTER_EPP_TAG"],
            "ghcr.io/llm-d/llm-d-router-endpoint-picker:" + versions["ROUTER_EPP_TAG"]),
        "docker.io/envoyproxy/envoy": (
            harbor + "/images-shaide/envoyproxy/envoy:" + versions["ROUTER_ENVOY_TAG"],
            "docker.io/envoyproxy/envoy:" + versions["ROUTER_ENVOY_TAG"]),
    }


def test_the_router_images_are_tagged_as_the_chart_pins_them(lab):
    """The router chart's defaults name these tags; the lab builds other software under them (stand-ins)."""
    _images, versions = lab
    assert versions["ROUTER_EPP_TAG"] == "v0.10.0"
    assert versions["ROUTER_ENVOY_TAG"] == "distroless-v1.33.2"
    assert versions["ROUTER_EPP_STANDIN_GAIE_VERSION"] == "v1.5.0"
    assert versions["GAIE_VERSION"] == "v1.2.0"  # the seed's EPP stays as it is


def _lab_images(images, versions, tmp_path, monkeypatch):
    """lab_images with stand-in binaries and root fs builds that write nothing outside tmp_path."""
    bins = {}
    for name in ("pause", "oras", "epp", "epp-router", "inference-sim-standin", "envoy"):
        bins[name] = tmp_path / name
        bins[name].write_bytes(name.encode())
    rootfs = tmp_path / "rootfs"
    (rootfs / "usr" / "local" / "bin").mkdir(parents=True)
    (rootfs / "usr" / "local" / "bin" / "envoy").write_bytes(b"envoy")
    monkeypatch.setattr(images.build, "build_envoy_standin_rootfs", lambda *args: rootfs)
    monkeypatch.setattr(images.build, "build_infinity_standin_rootfs", lambda *args: rootfs)
    monkeypatch.setenv("AIPS_LAB_DIR", str(tmp_path / "lab"))
    monkeypatch.setattr(images, "busybox_layer", lambda ca_cert: images.oci.Layer())
    ca = tmp_path / "ca.crt"
    ca.write_text("CA")
    return dict((i.cloud_name.rsplit(":", 1)[0], i) for i in images.lab_images(versions, bins, ca))


def test_the_router_epp_image_is_the_gaie_standin_binary(lab, tmp_path, monkeypatch):
    images, versions = lab
    image = _lab_images(images, versions, tmp_path, monkeypatch)["ghcr.io/llm-d/llm-d-router-endpoint-picker"]
    assert image.entrypoint == ("/epp",)
    assert image.layers[-1].files["epp"] == (0o755, b"epp-router")  # not the seed's GAIE_VERSION `epp`


def test_the_envoy_image_runs_the_pinned_binary_as_nonroot(lab, tmp_path, monkeypatch):
    images, versions = lab
    image = _lab_images(images, versions, tmp_path, monkeypatch)["docker.io/envoyproxy/envoy"]
    # as the upstream image: `envoy` on PATH (the chart's command), the default config as arguments
    assert image.entrypoint == ("/usr/local/bin/envoy",)
    assert image.cmd == ("-c", "/etc/envoy/envoy.yaml")
    assert image.user == "65532:65532"
    assert image.layers[0].files["usr/local/bin/envoy"][1] == b"envoy"
    assert "bin/busybox" not in image.layers[0].files  # distroless: no shell
    assert image.layers[1].files["etc/ssl/certs/ca-certificates.crt"] == (0o644, b"CA")


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
