"""The lab's parts for llm-d v0.10's router (no running lab needed): the EPP stand-in's build, the Envoy
image's files and the CRDs the lab applies (lab/labkit/build.py, cluster.py)."""

from pathlib import Path

import pytest
from labkit import build, cluster, envoy  # pylint: disable=import-error
from labkit.config import load_versions  # pylint: disable=import-error

GAIE = "sigs.k8s.io/gateway-api-inference-extension"


@pytest.fixture
def versions():
    return load_versions()


def _components(versions):
    return dict((c.name, c) for c in build.components(versions))


def test_the_router_epp_standin_is_gaie_epp_at_its_own_version(versions):
    comps = _components(versions)
    router, seed = comps["gaie-epp-router"], comps["gaie-epp"]
    assert (router.module, router.version) == (GAIE, versions["ROUTER_EPP_STANDIN_GAIE_VERSION"])
    assert router.packages == seed.packages == (GAIE + "/cmd/epp",)
    assert seed.version == versions["GAIE_VERSION"]
    # both land in the lab's one bin directory: other names, other cache keys
    assert seed.binaries() == ("epp",) and router.binaries() == ("epp-router",)
    assert router.key != seed.key


def test_no_two_components_put_the_same_program_on_path(versions):
    names = [b for c in build.components(versions) for b in c.binaries()]
    assert len(names) == len(set(names)), names


def test_the_standin_wrapper_requires_gaie_at_its_version(versions):
    router = _components(versions)["gaie-epp-router"]
    gomod = build.wrapper_gomod(router, "module " + GAIE + "\n\ngo 1.24.0\n")
    assert "module lab.local/build/gaie-epp-router" in gomod
    assert f"require {GAIE} {versions['ROUTER_EPP_STANDIN_GAIE_VERSION']}" in gomod


def test_the_envoy_image_files_name_the_nonroot_user():
    files = build.envoy_standin_files()
    assert "nonroot:x:65532:65532:" in files["etc/passwd"]
    assert "nonroot:x:65532:" in files["etc/group"]
    assert build.NONROOT_UID == 65532


def test_the_envoy_images_default_config_is_accepted_by_the_pinned_envoy(tmp_path):
    path = tmp_path / "envoy.yaml"
    path.write_text(build.envoy_standin_files()["etc/envoy/envoy.yaml"])
    ok, output = envoy.validate(envoy.binary(), path)
    assert ok, output


def test_the_envoy_image_stamp_changes_with_the_binary(versions, tmp_path, monkeypatch):
    monkeypatch.setattr(build, "debian_candidates", lambda packages: dict((p, "1") for p in packages))
    binary = tmp_path / "envoy"
    binary.write_bytes(b"one")
    first = build.envoy_standin_stamp(versions, binary)
    binary.write_bytes(b"two")
    assert build.envoy_standin_stamp(versions, binary) != first
    assert '"libc6": "1"' in first and versions["ENVOY_VERSION"] in first


def _crd_tree(tmp_path):
    def crds(root, *names):
        for name in names:
            Path(root, name).parent.mkdir(parents=True, exist_ok=True)
            Path(root, name).write_text(name)
        return root

    bases = "config/crd/bases/"
    pool_v1 = bases + cluster.INFERENCEPOOL_V1_CRD
    gw = crds(tmp_path / "gw", "config/crd/standard/gateway.networking.k8s.io_httproutes.yaml")
    seed = crds(tmp_path / "gaie-seed", pool_v1, bases + "inference.networking.x-k8s.io_inferencepools.yaml",
                bases + "inference.networking.x-k8s.io_inferenceobjectives.yaml")
    router = crds(tmp_path / "gaie-router", pool_v1, bases + "inference.networking.x-k8s.io_inferenceobjectives.yaml")
    istio = crds(tmp_path / "istio", "kubernetes/customresourcedefinitions.gen.yaml")
    llm_d = crds(tmp_path / "llm-d", "llm-d.ai_inferenceobjectives.yaml", "llm-d.ai_inferencemodelrewrites.yaml")
    return gw, seed, router, istio, llm_d


def test_inferencepool_v1_comes_from_the_routers_gaie_the_rest_from_the_seeds(tmp_path):
    gw, seed, router, istio, llm_d = _crd_tree(tmp_path)
    files = cluster.crd_paths(gw, seed, router, istio, llm_d)
    rel = [str(f.relative_to(tmp_path)) for f in files]
    assert rel == [
        "gw/config/crd/standard/gateway.networking.k8s.io_httproutes.yaml",
        "gaie-router/config/crd/bases/inference.networking.k8s.io_inferencepools.yaml",
        "gaie-seed/config/crd/bases/inference.networking.x-k8s.io_inferenceobjectives.yaml",
        "gaie-seed/config/crd/bases/inference.networking.x-k8s.io_inferencepools.yaml",
        "istio/kubernetes/customresourcedefinitions.gen.yaml",
        "llm-d/llm-d.ai_inferencemodelrewrites.yaml",
        "llm-d/llm-d.ai_inferenceobjectives.yaml",
    ]


def test_without_the_llm_d_crds_folder_the_rest_is_applied(tmp_path):
    gw, seed, router, istio, _llm_d = _crd_tree(tmp_path)
    files = cluster.crd_paths(gw, seed, router, istio, tmp_path / "nowhere")
    assert [f.name for f in files][-1] == "customresourcedefinitions.gen.yaml"


def test_the_llm_d_crds_are_the_projects_copy_beside_the_checkout(versions):
    expected = cluster.REPO_ROOT.parent / "shared" / "upstream" / "crds" / "llm-d-router-v0.10.0"
    assert cluster.llm_d_router_crds_dir(versions, environ={}) == expected
    assert cluster.llm_d_router_crds_dir(versions, environ={"AIPS_LAB_CRDS_DIR": "/x"}) == \
        Path("/x/llm-d-router-v0.10.0")
