"""The images the lab builds from local binaries and pushes to its registry.

Every image is pushed under its air-gapped Harbor name and under the repository path of its
cloud name; containerd serves the cloud registries (docker.io, ghcr.io, registry.k8s.io) from
that path through its hosts.toml mirror. The product's images get both names from the
collection's image plan (plugins/module_utils/plan/images.py over group_vars/all/images.yml),
so the lab serves them exactly where harbor_upload puts them.
"""

import importlib
import json
import os
import subprocess
import sys
import types
from dataclasses import dataclass
from pathlib import Path

from . import build, log, oci
from .config import HARBOR_HOST, HARBOR_USER, HOST_IP, REPO_ROOT, lab_paths

PRODUCT_IMAGES = REPO_ROOT / "group_vars" / "all" / "images.yml"
IMAGE_PLAN = "ansible_collections.ai_platform.serving.plugins.module_utils.plan.images"
# The product images the lab builds a stand-in or a build of, and the versions.env key of the
# version it builds: the tag images.yml carries must be that version.
BUILT_VERSIONS = {
    "ghcr.io/oras-project/oras": "ORAS_VERSION",
    "ghcr.io/llm-d/llm-d-inference-sim": "INFERENCE_SIM_TAG",
    "registry.k8s.io/gateway-api-inference-extension/epp": "GAIE_VERSION",
    "docker.io/michaelf34/infinity": "INFINITY_STANDIN_TAG",
    # llm-d v0.10's router: stand-ins under the tags the chart pins (GAIE's EPP, the real Envoy ENVOY_VERSION)
    "ghcr.io/llm-d/llm-d-router-endpoint-picker": "ROUTER_EPP_TAG",
    "docker.io/envoyproxy/envoy": "ROUTER_ENVOY_TAG",
}

BUSYBOX = Path("/bin/busybox")


@dataclass(frozen=True)
class Image:
    harbor_name: str  # project/repository:tag in the Harbor stand-in
    cloud_name: str  # registry/repository:tag as a cloud cluster would pull it
    layers: tuple
    entrypoint: tuple = ()
    cmd: tuple = ()
    workdir: str = ""
    user: str = ""

    @property
    def tag(self):
        return self.harbor_name.rsplit(":", 1)[1]

    def mirror_path(self):
        """Repository path the mirror serves for the cloud name (registry host removed)."""
        return self.cloud_name.split("/", 1)[1]


def busybox_layer(ca_cert: Path):
    """busybox with every applet linked, root's home, /tmp and the lab CA as system trust."""
    layer = oci.Layer()
    layer.add_file("bin/busybox", BUSYBOX.read_bytes(), 0o755)
    applets = subprocess.run([str(BUSYBOX), "--list-full"], check=True, capture_output=True,
                             text=True).stdout.split()
    for applet in applets:
        if applet != "bin/busybox":
            layer.symlinks[applet] = "/bin/busybox"
    layer.add_file("etc/passwd",
                   b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534::/:/bin/false\n")
    layer.add_file("etc/group", b"root:x:0:\nnobody:x:65534:\n")
    layer.add_file("etc/ssl/certs/ca-certificates.crt", ca_cert.read_bytes())
    layer.dirs.update({"tmp": 0o1777, "root": 0o700, "workspace": 0o755})
    return layer


def single_file_layer(path_in_image, source: Path):
    layer = oci.Layer()
    layer.add_file(path_in_image, source.read_bytes(), 0o755)
    return layer


def image_plan_module():
    """The collection's image plan module, imported from this checkout (the lab installs no collection)."""
    try:
        return importlib.import_module(IMAGE_PLAN)
    except ImportError:
        pass
    for package, path in (("ansible_collections", []), ("ansible_collections.ai_platform", []),
                          ("ansible_collections.ai_platform.serving", [str(REPO_ROOT)])):
        if package not in sys.modules:
            module = types.ModuleType(package)
            module.__path__ = path
            sys.modules[package] = module
    return importlib.import_module(IMAGE_PLAN)


def product_images(versions):
    """The image plan records of the product images the lab builds, at HARBOR_HOST.

    Fails when images.yml carries a tag other than the version the lab builds (lab/versions.env).
    """
    import yaml  # the lab's Python has PyYAML (ansible-core's dependency); only this reads YAML

    plan = image_plan_module().image_plan(yaml.safe_load(PRODUCT_IMAGES.read_text())["aips_images"], HARBOR_HOST)
    records = [record for record in plan if record["upstream"] in BUILT_VERSIONS]
    missing = sorted(set(BUILT_VERSIONS) - {record["upstream"] for record in records})
    wrong = [f"{r['source']} (lab/versions.env {BUILT_VERSIONS[r['upstream']]}={versions[BUILT_VERSIONS[r['upstream']]]})"
             for r in records if r["tag"] != versions[BUILT_VERSIONS[r["upstream"]]]]
    if missing or wrong:
        raise RuntimeError(f"{PRODUCT_IMAGES} and the lab disagree: not carried {missing}, other tag {wrong}")
    return records


def product_image(record, layers, **config):
    """An Image named as the image plan says: Harbor destination without the host, and the source."""
    return Image(record["destination"].split("/", 1)[1], record["source"], layers, **config)


def lab_images(versions, bins: dict, ca_cert: Path):
    """bins maps program names to built binaries (pause, oras, epp, epp-router, inference-sim-standin, envoy)."""
    base = busybox_layer(ca_cert)
    pause_tag, busybox_tag = versions["PAUSE_TAG"], versions["BUSYBOX_TAG"]
    builds = {
        "ghcr.io/oras-project/oras": lambda: dict(
            layers=(base, single_file_layer("bin/oras", bins["oras"])), entrypoint=("/bin/oras",),
            workdir="/workspace"),
        "ghcr.io/llm-d/llm-d-inference-sim": lambda: dict(
            layers=(base, single_file_layer("app/llm-d-inference-sim", bins["inference-sim-standin"])),
            entrypoint=("/app/llm-d-inference-sim",)),
        "registry.k8s.io/gateway-api-inference-extension/epp": lambda: dict(
            layers=(base, single_file_layer("epp", bins["epp"])), entrypoint=("/epp",)),
        "docker.io/michaelf34/infinity": lambda: infinity_standin(versions, base),
        # stand-in: GAIE's EPP ROUTER_EPP_STANDIN_GAIE_VERSION, not llm-d-router's (not served here)
        "ghcr.io/llm-d/llm-d-router-endpoint-picker": lambda: dict(
            layers=(base, single_file_layer("epp", bins["epp-router"])), entrypoint=("/epp",)),
        "docker.io/envoyproxy/envoy": lambda: envoy_standin(versions, bins["envoy"], ca_cert),
    }
    # The lab's own images (the node's sandbox and a shell for tests), not carried by the product.
    own = (
        Image(f"images-infra/pause:{pause_tag}", f"registry.k8s.io/pause:{pause_tag}",
              (single_file_layer("pause", bins["pause"]),), entrypoint=("/pause",)),
        Image(f"images-infra/library/busybox:{busybox_tag}",
              f"docker.io/library/busybox:{busybox_tag}", (base,), cmd=("sh",)),
    )
    return own + tuple(product_image(record, **builds[record["upstream"]]())
                       for record in product_images(versions))


def tree_layer(root: Path):
    """A layer holding a directory tree as it is (files with their modes, symlinks, dirs)."""
    layer = oci.Layer()
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        for name in dirnames + filenames:
            path = here / name
            rel = str(path.relative_to(root))
            if path.is_symlink():
                layer.symlinks[rel] = os.readlink(path)
            elif path.is_dir():
                layer.dirs[rel] = path.stat().st_mode & 0o7777
            else:
                layer.add_file(rel, path.read_bytes(), path.stat().st_mode & 0o7777)
    return layer


def infinity_standin(versions, base):
    """The lab's stand-in for infinity (not infinity; real ML), pushed under infinity's image names.

    Built into the lab cache from Debian 12's Python and pinned wheels (build.py); its
    entrypoint is infinity's `infinity_emb`, taking infinity's `v2` flags.
    """
    paths = lab_paths()
    paths.logs.mkdir(parents=True, exist_ok=True)
    rootfs = build.build_infinity_standin_rootfs(versions, paths.cache, paths.logs)
    return dict(layers=(base, tree_layer(rootfs)), entrypoint=("/usr/local/bin/infinity_emb",))


def envoy_standin(versions, envoy_bin, ca_cert):
    """The lab's image for the router chart's Envoy tag: the real Envoy ENVOY_VERSION, distroless-like.

    No shell: glibc, the binary at /usr/local/bin/envoy (the chart's `command: [envoy]` finds it on PATH),
    the entrypoint and default arguments of the upstream image, and user 65532 as the upstream distroless
    image runs (the collection's post-renderer sets runAsUser 65532 too). The lab CA is the system trust.
    """
    paths = lab_paths()
    paths.logs.mkdir(parents=True, exist_ok=True)
    rootfs = build.build_envoy_standin_rootfs(versions, envoy_bin, paths.cache, paths.logs)
    trust = oci.Layer()
    trust.add_file("etc/ssl/certs/ca-certificates.crt", ca_cert.read_bytes())
    return dict(layers=(tree_layer(rootfs), trust), entrypoint=("/usr/local/bin/envoy",),
                cmd=("-c", "/etc/envoy/envoy.yaml"), user=f"{build.NONROOT_UID}:{build.NONROOT_UID}")


def build_and_push(paths, images, token, cert_dir):
    """Write each image into the lab's OCI layout and push it under both names.

    A push is skipped when the registry got the same digest under that name before
    (recorded in data/pushed.json; the registry's storage lives beside it).
    """
    layout = paths.data / "oci-layout"
    record_file = paths.data / "pushed.json"
    pushed = json.loads(record_file.read_text()) if record_file.exists() else {}
    creds = f"{HARBOR_USER}:{token}"
    for image in images:
        ref_name = image.mirror_path().replace("/", "_").replace(":", "-")
        digest = oci.write_image(layout, ref_name, image.layers, entrypoint=image.entrypoint,
                                 cmd=image.cmd, workdir=image.workdir, user=image.user)
        dests = (f"{HARBOR_HOST}/{image.harbor_name}", f"{HOST_IP}/{image.mirror_path()}")
        if all(pushed.get(d) == digest for d in dests):
            continue
        for dest in dests:
            oci.push(layout, ref_name, dest, cert_dir, creds)
            pushed[dest] = digest
        record_file.write_text(json.dumps(pushed, indent=1))
        log.info(f"pushed {image.harbor_name} and {image.cloud_name} ({digest[:19]})")
