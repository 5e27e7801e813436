"""Build pinned Go programs from the module proxy into a version-keyed cache.

Each component is built in a generated wrapper module that requires the upstream module.
Kubernetes requires its staging modules at a v0.0.0 placeholder and replaces them by paths
inside its own repository; the wrapper replaces each by its published release instead.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import log


@dataclass(frozen=True)
class GoComponent:
    name: str
    module: str
    version: str
    packages: tuple
    replace_version: str = ""  # published version of placeholder-required staging modules
    ldflags: tuple = ()
    tags: str = ""
    binary: str = ""  # output name for a single package whose path does not end in it

    @property
    def key(self):
        return f"{self.name}-{self.version}"

    def binaries(self):
        if self.binary:
            return (self.binary,)
        return tuple(p.split("/")[-1] for p in self.packages)


EXTPROC_CLIENT_SRC = Path(__file__).resolve().parent.parent / "extproc-client"
# CoreDNS with only the plugins the lab's Corefile uses (kube.coredns_argv); requires COREDNS_VERSION.
COREDNS_SRC = Path(__file__).resolve().parent.parent / "coredns"


@dataclass(frozen=True)
class LocalGoModule:
    """A Go module in this repository with pinned requirements (go.mod, go.sum) of its own.

    Its cache key is a digest of its sources, so any change rebuilds it; dependencies come
    from the module proxy at the versions its go.sum pins.
    """

    name: str
    src: Path

    @property
    def key(self):
        files = sorted(p for p in self.src.iterdir() if p.is_file())
        return f"{self.name}-{_file_digest(*files)[:12]}"

    def binaries(self):
        return (self.name,)


def _version_ldflags(version):
    minor = version.lstrip("v").split(".")[1]
    flags = []
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        flags += [
            f"-X {pkg}.gitVersion={version}",
            f"-X {pkg}.gitMajor=1",
            f"-X {pkg}.gitMinor={minor}",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.buildDate=1970-01-01T00:00:00Z",
        ]
    return tuple(flags)


def components(v):
    """All Go programs the lab needs, from the pinned versions."""
    k8s = v["KUBERNETES_VERSION"]
    kube_cmds = ("kube-apiserver", "kube-controller-manager", "kube-scheduler",
                 "kubelet", "kube-proxy", "kubectl")
    return (
        GoComponent(
            name="kubernetes", module="k8s.io/kubernetes", version=k8s,
            packages=tuple(f"k8s.io/kubernetes/cmd/{c}" for c in kube_cmds),
            replace_version=v["KUBERNETES_STAGING_VERSION"],
            ldflags=_version_ldflags(k8s), tags="providerless",
        ),
        GoComponent(
            name="etcd", module="go.etcd.io/etcd/server/v3", version=v["ETCD_VERSION"],
            packages=("go.etcd.io/etcd/server/v3",), binary="etcd",
        ),
        GoComponent(
            name="helm", module="helm.sh/helm/v3", version=v["HELM_VERSION"],
            packages=("helm.sh/helm/v3/cmd/helm",),
            ldflags=(f"-X helm.sh/helm/v3/internal/version.version={v['HELM_VERSION']}",),
        ),
        # Helm 4 under its own name, so that `helm` stays Helm 3 (the support matrix's two Helm majors).
        GoComponent(
            name="helm4", module="helm.sh/helm/v4", version=v["HELM4_VERSION"],
            packages=("helm.sh/helm/v4/cmd/helm",), binary="helm4",
            ldflags=(f"-X helm.sh/helm/v4/internal/version.version={v['HELM4_VERSION']}",),
        ),
        # Installed as a Helm plugin (install_helm_plugin), not as "diff" on PATH: coreutils' diff is needed there.
        GoComponent(name="helm-diff", module="github.com/databus23/helm-diff/v3", version=v["HELM_DIFF_VERSION"],
                    packages=("github.com/databus23/helm-diff/v3",), binary="helm-diff",
                    ldflags=(f"-X github.com/databus23/helm-diff/v3/cmd.Version={v['HELM_DIFF_VERSION'].lstrip('v')}",)),
        GoComponent(name="oras", module="oras.land/oras", version=v["ORAS_VERSION"],
                    packages=("oras.land/oras/cmd/oras",)),
        # upstream's main compiles every plugin; this one the six the Corefile names (lab/coredns/main.go)
        LocalGoModule(name="coredns", src=COREDNS_SRC),
        GoComponent(name="gaie-epp", module="sigs.k8s.io/gateway-api-inference-extension",
                    version=v["GAIE_VERSION"],
                    packages=("sigs.k8s.io/gateway-api-inference-extension/cmd/epp",)),
        # The lab's stand-in for llm-d-router's EPP (github.com/llm-d/llm-d-router is not served by the
        # module proxy here): GAIE's EPP at a newer version, as `epp-router` beside the seed's `epp`.
        GoComponent(name="gaie-epp-router", module="sigs.k8s.io/gateway-api-inference-extension",
                    version=v["ROUTER_EPP_STANDIN_GAIE_VERSION"],
                    packages=("sigs.k8s.io/gateway-api-inference-extension/cmd/epp",), binary="epp-router"),
        GoComponent(name="local-path-provisioner",
                    module="github.com/rancher/local-path-provisioner",
                    version=v["LOCAL_PATH_PROVISIONER_VERSION"],
                    packages=("github.com/rancher/local-path-provisioner",)),
        LocalGoModule(name="epp-extproc-client", src=EXTPROC_CLIENT_SRC),
    )


def go_env():
    return dict(os.environ, CGO_ENABLED="0", GOFLAGS="-trimpath -buildvcs=false")


def mod_download(module_at_version):
    """Download a module into the module cache and return `go mod download -json`."""
    out = subprocess.run(["go", "mod", "download", "-json", module_at_version],
                         check=True, capture_output=True, text=True, env=go_env()).stdout
    info = json.loads(out)
    if info.get("Error"):
        raise RuntimeError(f"go mod download {module_at_version}: {info['Error']}")
    return info


def path_replaces(gomod_text):
    """Modules an upstream go.mod replaces by a relative path (staging or sibling modules)."""
    found = []
    for line in gomod_text.splitlines():
        m = re.match(r"\s*(?:replace\s+)?(\S+)\s+=>\s+(\.\.?/\S*)\s*$", line)
        if m and "FORBIDDEN" not in m.group(2):
            found.append(m.group(1))
    return found


def required_version(gomod_text, module):
    """The version gomod_text requires of module, or None."""
    m = re.search(rf"^\s*(?:require\s+)?{re.escape(module)}\s+(v\S+)", gomod_text, re.MULTILINE)
    return m.group(1) if m else None


def placeholder_modules(gomod_text):
    """Path-replaced modules required only at a v0.0.0 placeholder (Kubernetes staging).

    Replace directives of a dependency are ignored, so these need a replace in the wrapper;
    path-replaced modules required at a real version (etcd's siblings) resolve as they are.
    """
    return [m for m in path_replaces(gomod_text)
            if (required_version(gomod_text, m) or "v0.0.0").startswith("v0.0.0")]


def go_directive(gomod_text):
    m = re.search(r"^go\s+(\S+)", gomod_text, re.MULTILINE)
    return m.group(1) if m else "1.22"


def wrapper_gomod(comp, upstream_gomod):
    # upstream's godebug lines keep its run-time defaults
    godebug = re.findall(r"^godebug\s.*$", upstream_gomod, re.MULTILINE)
    lines = [f"module lab.local/build/{comp.name}", "", f"go {go_directive(upstream_gomod)}", "",
             *godebug, f"require {comp.module} {comp.version}", ""]
    replaced = [m for m in placeholder_modules(upstream_gomod) if m != comp.module]
    if replaced:
        lines.append("replace (")
        lines += [f"\t{m} => {m} {comp.replace_version}" for m in replaced]
        lines.append(")")
    return "\n".join(lines) + "\n"


def _stamp(comp):
    go_version = subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True,
                                check=True).stdout.strip()
    return json.dumps({"module": comp.module, "version": comp.version, "go": go_version,
                       "replace": comp.replace_version, "ldflags": list(comp.ldflags),
                       "tags": comp.tags}, sort_keys=True)


def is_cached(comp, cache):
    if isinstance(comp, LocalGoModule):
        return _local_is_cached(comp, cache)
    out = cache / comp.key
    stamp = out / "stamp.json"
    if not stamp.exists() or stamp.read_text() != _stamp(comp):
        return False
    return all((out / "bin" / b).exists() for b in comp.binaries())


def prepare(comp, cache, log_dir):
    """Resolve comp's wrapper module and download what it needs (go get): the network part of a build.

    Separate from the compile so that build_all can fetch every uncached component's modules while another
    compiles (the module cache takes concurrent go commands). Returns the source dir; its output starts the
    component's build log.
    """
    if isinstance(comp, LocalGoModule):
        return prepare_local_module(comp, log_dir)
    src = cache / comp.key / "src"
    src.mkdir(parents=True, exist_ok=True)
    info = mod_download(f"{comp.module}@{comp.version}")
    (src / "go.mod").write_text(wrapper_gomod(comp, Path(info["GoMod"]).read_text()))
    (src / "go.sum").touch()
    with open(log_dir / f"build-{comp.name}.log", "w") as fh:
        subprocess.run(["go", "get"] + [f"{p}@{comp.version}" for p in comp.packages], cwd=src,
                       env=go_env(), stdout=fh, stderr=subprocess.STDOUT, check=True)
    return src


def build(comp, cache, log_dir, prepared=None):
    """Build comp into cache/<key>/bin unless a matching build is there.

    ``prepared``: a future of prepare(comp, ...) already started (build_all's prefetch); else it runs here.
    """
    if isinstance(comp, LocalGoModule):
        return build_local_module(comp, cache, log_dir, prepared)
    out = cache / comp.key
    if is_cached(comp, cache):
        log.info(f"{comp.key}: cached")
        return out / "bin"
    started = time.monotonic()
    logfile = log_dir / f"build-{comp.name}.log"
    log.info(f"{comp.key}: building (log: {logfile})")
    src = prepared.result() if prepared is not None else prepare(comp, cache, log_dir)
    with open(logfile, "a") as fh:
        bin_dir = out / "bin"
        bin_dir.mkdir(exist_ok=True)
        ldflags = " ".join(("-s", "-w") + comp.ldflags)
        tags = ["-tags", comp.tags] if comp.tags else []
        target = bin_dir / comp.binary if comp.binary else str(bin_dir) + "/"
        subprocess.run(["go", "build"] + tags + ["-ldflags", ldflags, "-o", str(target)] + list(comp.packages),
                       cwd=src, env=go_env(), stdout=fh, stderr=subprocess.STDOUT, check=True)
    (out / "stamp.json").write_text(_stamp(comp))
    log.info(f"{comp.key}: built in {time.monotonic() - started:.0f}s")
    return out / "bin"


def build_c_static(source, output):
    """The pause program: a static C binary, no libc dependencies at run time."""
    if output.exists() and output.stat().st_mtime >= source.stat().st_mtime:
        return output
    output.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["cc", "-static", "-Os", "-s", "-o", str(output), str(source)], check=True)
    return output


def build_go_local(src_dir, output, log_dir):
    """A program whose source is in this repository (stdlib only)."""
    newest = max(p.stat().st_mtime for p in src_dir.iterdir())
    if output.exists() and output.stat().st_mtime >= newest:
        return output
    output.parent.mkdir(parents=True, exist_ok=True)
    with open(log_dir / f"build-{src_dir.name}.log", "w") as fh:
        subprocess.run(["go", "build", "-ldflags", "-s -w", "-o", str(output), "."], cwd=src_dir,
                       env=go_env(), stdout=fh, stderr=subprocess.STDOUT, check=True)
    return output


# helm-diff's plugin.yaml, less its install hooks (they download a release binary; the lab builds it instead).
HELM_DIFF_PLUGIN_YAML = """name: "diff"
version: "{version}"
usage: "Preview helm upgrade changes as a diff"
description: "Preview helm upgrade changes as a diff (built by the lab from github.com/databus23/helm-diff)"
useTunnel: true
platformCommand:
  - command: "$HELM_PLUGIN_DIR/bin/diff"
"""


def install_helm_plugin(plugins_dir, binary, version):
    """Install the helm-diff binary as Helm's ``diff`` plugin in ``plugins_dir`` (the lab's HELM_PLUGINS)."""
    plugin = plugins_dir / "diff"
    (plugin / "bin").mkdir(parents=True, exist_ok=True)
    (plugin / "plugin.yaml").write_text(HELM_DIFF_PLUGIN_YAML.format(version=version.lstrip("v")))
    target = plugin / "bin" / "diff"
    if target.is_symlink() or target.exists():
        target.unlink()
    target.symlink_to(binary)
    return plugin


def link_bins(bin_dirs, lab_bin):
    """Put every built program on one PATH directory under the lab dir."""
    lab_bin.mkdir(parents=True, exist_ok=True)
    for d in bin_dirs:
        for exe in d.iterdir():
            target = lab_bin / exe.name
            if target.is_symlink() or target.exists():
                target.unlink()
            target.symlink_to(exe)


# ---------------------------------------------------------------- the infinity stand-in's root fs


INFINITY_STANDIN_SRC = Path(__file__).resolve().parent.parent / "images" / "infinity-standin"
INFINITY_STANDIN_PY = "3.11"  # Debian 12's Python; the wheels in requirements.txt are for it
# Trimmed from the image: documentation and stdlib parts a server never imports.
_ROOTFS_PRUNE = ("usr/share/doc", "usr/share/man", "usr/share/lintian", "usr/share/locale",
                 "usr/share/binfmts", "usr/share/applications", "usr/share/pixmaps",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/ensurepip",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/idlelib",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/lib2to3",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/pydoc_data",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/tkinter",
                 f"usr/lib/python{INFINITY_STANDIN_PY}/turtledemo")


def debian_candidates(packages, updated=False):
    """{package: version} apt would download now (`apt-cache policy`), failing on a missing one."""
    out = subprocess.run(["apt-cache", "policy", *packages], check=True, capture_output=True,
                         text=True).stdout
    found, current = {}, None
    for line in out.splitlines():
        if line and not line.startswith(" ") and line.endswith(":"):
            current = line[:-1]
        elif current and line.strip().startswith("Candidate:"):
            found[current] = line.split(":", 1)[1].strip()
    missing = [p for p in packages if found.get(p) in (None, "(none)")]
    if missing and not updated:
        subprocess.run(["apt-get", "update", "-qq"], check=True)
        return debian_candidates(packages, updated=True)
    if missing:
        raise RuntimeError(f"apt has no candidate for {', '.join(missing)}")
    return found


def _file_digest(*paths):
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def infinity_standin_stamp(versions):
    """Everything the stand-in's root fs is made of: Debian package versions, wheels, sources."""
    packages = versions["INFINITY_STANDIN_DEBIAN_PACKAGES"].split()
    src = INFINITY_STANDIN_SRC
    return json.dumps({
        "tag": versions["INFINITY_STANDIN_TAG"],
        "debian": debian_candidates(packages),
        "sources": _file_digest(src / "requirements.txt", src / "infinity_emb",
                                src / "infinity_standin.py"),
        "python": INFINITY_STANDIN_PY,
    }, sort_keys=True)


def build_infinity_standin_rootfs(versions, cache, log_dir):
    """The stand-in's root fs (Debian 12's Python + pinned wheels + the server) in the cache.

    Debian packages are unpacked with dpkg-deb (no maintainer scripts run); the wheels are
    installed for CPython 3.11 manylinux x86_64 with --no-deps from the complete pinned list;
    bytecode is compiled ahead (unchecked-hash pycs) so the server starts fast from a
    read-only layer. Rebuilt only when the stamp (versions, sources) changes.
    """
    out = cache / f"infinity-standin-{versions['INFINITY_STANDIN_TAG']}"

    def finish(rootfs, run):
        site = rootfs / "usr" / "lib" / "python3" / "dist-packages"
        run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-deps",
             "--only-binary=:all:", "--no-compile", "--target", str(site),
             "--implementation", "cp", "--python-version", INFINITY_STANDIN_PY,
             "--abi", f"cp{INFINITY_STANDIN_PY.replace('.', '')}", "--abi", "abi3",
             "--abi", "none", *[f"--platform={p}" for p in (
                 "manylinux_2_34_x86_64", "manylinux_2_28_x86_64", "manylinux_2_17_x86_64",
                 "manylinux2014_x86_64")],
             "-r", str(INFINITY_STANDIN_SRC / "requirements.txt")])
        for rel in _ROOTFS_PRUNE:
            shutil.rmtree(rootfs / rel, ignore_errors=True)
        app = rootfs / "opt" / "infinity-standin"
        app.mkdir(parents=True)
        shutil.copy(INFINITY_STANDIN_SRC / "infinity_standin.py", app)
        launcher = rootfs / "usr" / "local" / "bin" / "infinity_emb"
        launcher.parent.mkdir(parents=True)
        shutil.copy(INFINITY_STANDIN_SRC / "infinity_emb", launcher)
        launcher.chmod(0o755)
        _compile_bytecode(rootfs, run)

    return debian_rootfs(out, infinity_standin_stamp(versions), log_dir, "infinity-standin", finish)


def debian_rootfs(out, stamp, log_dir, name, finish):
    """``out/rootfs``: the stamp's pinned Debian packages (its ``debian`` entry) unpacked, then ``finish(rootfs,
    run)`` (``run`` logs to ``build-<name>.log``); the cached one when ``out/stamp.json`` holds ``stamp``."""
    stamp_file, rootfs = out / "stamp.json", out / "rootfs"
    if stamp_file.exists() and stamp_file.read_text() == stamp and rootfs.is_dir():
        log.info(f"{out.name}: cached")
        return rootfs
    started = time.monotonic()
    shutil.rmtree(out, ignore_errors=True)
    debs = out / "debs"
    debs.mkdir(parents=True)
    rootfs.mkdir()
    logfile = log_dir / f"build-{name}.log"
    log.info(f"{out.name}: building (log: {logfile})")
    pinned = [f"{p}={v}" for p, v in json.loads(stamp)["debian"].items()]
    with open(logfile, "w", encoding="utf-8") as fh:
        def run(args, **kwargs):
            subprocess.run(args, stdout=fh, stderr=subprocess.STDOUT, check=True, **kwargs)

        unpack_debian(pinned, debs, rootfs, run)
        finish(rootfs, run)
    stamp_file.write_text(stamp)
    log.info(f"{out.name}: built in {time.monotonic() - started:.0f}s")
    return rootfs


def unpack_debian(pinned, debs, rootfs, run):
    """Download the pinned Debian packages ("name=version") into debs and unpack them into rootfs.

    dpkg-deb -x only: no maintainer scripts run, so the result is the packages' files as shipped.
    """
    run(["apt-get", "download", *pinned], cwd=debs)
    for deb in sorted(debs.glob("*.deb")):
        run(["dpkg-deb", "-x", str(deb), str(rootfs)])


# ---------------------------------------------------------------- the Envoy stand-in's root fs

# Envoy's release binary links glibc only (libc, libm, librt, libdl, libpthread and the loader): Debian 12's
# libc6 (and libgcc-s1, which glibc loads to unwind a cancelled thread) is what the image needs besides the
# binary (ENVOY_STANDIN_DEBIAN_PACKAGES). Trimmed: what a proxy never loads.
_ENVOY_ROOTFS_PRUNE = ("usr/share/doc", "usr/share/man", "usr/share/lintian", "usr/share/locale",
                       "usr/lib/x86_64-linux-gnu/gconv")
# distroless's nonroot user, which the upstream distroless image runs as (the collection's post-renderer
# sets runAsUser 65532 too)
NONROOT_UID = 65532


def envoy_standin_stamp(versions, envoy_bin):
    """Everything the Envoy image's root fs is made of: the Debian package versions and the binary."""
    return json.dumps({
        "tag": versions["ROUTER_ENVOY_TAG"],
        "envoy": versions["ENVOY_VERSION"],
        "binary": _file_digest(envoy_bin),
        "debian": debian_candidates(versions["ENVOY_STANDIN_DEBIAN_PACKAGES"].split()),
    }, sort_keys=True)


def build_envoy_standin_rootfs(versions, envoy_bin, cache, log_dir):
    """The root fs of the lab's image for the chart's Envoy: glibc from Debian 12 and the pinned binary.

    Laid out like the upstream distroless image: /usr/local/bin/envoy, a default /etc/envoy/envoy.yaml
    (the lab's own: an admin listener on localhost only), the nonroot user 65532 in /etc/passwd.
    Rebuilt only when the stamp (package versions, binary digest) changes.
    """
    out = cache / f"envoy-standin-{versions['ENVOY_VERSION']}"

    def finish(rootfs, _run):
        for rel in _ENVOY_ROOTFS_PRUNE:
            shutil.rmtree(rootfs / rel, ignore_errors=True)
        for rel, text in envoy_standin_files().items():
            path = rootfs / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        binary = rootfs / "usr" / "local" / "bin" / "envoy"
        binary.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(envoy_bin, binary)
        binary.chmod(0o755)
        for rel, mode in (("tmp", 0o1777), ("home/nonroot", 0o755)):
            (rootfs / rel).mkdir(parents=True, exist_ok=True)
            (rootfs / rel).chmod(mode)

    return debian_rootfs(out, envoy_standin_stamp(versions, envoy_bin), log_dir, "envoy-standin", finish)


def envoy_standin_files():
    """The text files of the Envoy image: users and groups as distroless has them, a default config."""
    uid = NONROOT_UID
    return {
        "etc/passwd": f"root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:"
                      f"/sbin/nologin\nnonroot:x:{uid}:{uid}:nonroot:/home/nonroot:/sbin/nologin\n",
        "etc/group": f"root:x:0:\nnobody:x:65534:\nnonroot:x:{uid}:\n",
        # without a -c of its own the image starts with this: the admin interface on localhost, nothing else
        "etc/envoy/envoy.yaml": "admin:\n  address:\n    socket_address: {address: 127.0.0.1, port_value: 9901}\n",
    }


def _compile_bytecode(rootfs, run):
    """Unchecked-hash pycs (valid whatever the files' mtimes), by the image's own Python."""
    python = rootfs / "usr" / "bin" / f"python{INFINITY_STANDIN_PY}"
    loader = rootfs / "lib64" / "ld-linux-x86-64.so.2"
    libs = ":".join(str(rootfs / d) for d in ("lib/x86_64-linux-gnu", "usr/lib/x86_64-linux-gnu"))
    dirs = [str(rootfs / "usr" / "lib" / f"python{INFINITY_STANDIN_PY}"),
            str(rootfs / "usr" / "lib" / "python3" / "dist-packages"),
            str(rootfs / "opt" / "infinity-standin")]
    # the image's interpreter through the image's loader and libraries, paths as in the image
    run([str(loader), "--library-path", libs, str(python), "-s", "-m", "compileall", "-q",
         "-j", "0", "--invalidation-mode", "unchecked-hash", "-s", str(rootfs), "-p", "/", *dirs],
        env={"PYTHONHOME": str(rootfs / "usr")})


def _local_stamp(comp):
    return json.dumps({"key": comp.key, "go": _go_version()}, sort_keys=True)


def _local_is_cached(comp, cache):
    out = cache / comp.key
    return (out / "bin" / comp.name).exists() and (out / "stamp.json").exists() \
        and (out / "stamp.json").read_text() == _local_stamp(comp)


def prepare_local_module(comp, log_dir):
    """Download the modules a LocalGoModule's packages need, at the versions its go.sum pins.

    `go list -deps` fetches only the modules that provide a package of the build (`go mod download`
    would fetch every module in the graph, test-only ones included). Returns the source dir.
    """
    with open(log_dir / f"build-{comp.name}.log", "w", encoding="utf-8") as fh:
        subprocess.run(["go", "list", "-mod=readonly", "-deps", "."], cwd=comp.src, env=go_env(),
                       stdout=subprocess.DEVNULL, stderr=fh, check=True)
    return comp.src


def build_local_module(comp, cache, log_dir, prepared=None):
    """Build a LocalGoModule into cache/<name>-<source digest>/bin unless it is there.

    ``prepared``: a future of prepare(comp, ...) already started (build_all's prefetch).
    """
    out = cache / comp.key
    if _local_is_cached(comp, cache):
        log.info(f"{comp.key}: cached")
        return out / "bin"
    started = time.monotonic()
    binary = out / "bin" / comp.name
    binary.parent.mkdir(parents=True, exist_ok=True)
    logfile = log_dir / f"build-{comp.name}.log"
    log.info(f"{comp.key}: building (log: {logfile})")
    if prepared is not None:
        prepared.result()
    else:
        prepare_local_module(comp, log_dir)
    with open(logfile, "a", encoding="utf-8") as fh:
        subprocess.run(["go", "build", "-mod=readonly", "-ldflags", "-s -w", "-o", str(binary),
                        "."], cwd=comp.src, env=go_env(), stdout=fh, stderr=subprocess.STDOUT,
                       check=True)
    (out / "stamp.json").write_text(_local_stamp(comp))
    log.info(f"{comp.key}: built in {time.monotonic() - started:.0f}s")
    return out / "bin"


def _go_version():
    return subprocess.run(["go", "env", "GOVERSION"], capture_output=True, text=True,
                          check=True).stdout.strip()
