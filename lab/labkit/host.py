"""Host preparation: Debian packages, kernel settings, the pod bridge, /etc/hosts, cleanup."""

import ipaddress
import os
import shlex
import signal
import subprocess
import time
from pathlib import Path

from . import log
from .config import BRIDGE, HOST_IP, HOSTS_MARKER, POD_CIDR

EGRESS_CHAIN = "AIPS-LAB-EGRESS"


def sh(*args, check=True, capture=False):
    return subprocess.run([str(a) for a in args], check=check, text=True,
                          capture_output=capture)


def ensure_debian_packages(names):
    missing = [n for n in names
               if sh("dpkg-query", "-W", "-f=${Status}", n, check=False,
                     capture=True).stdout != "install ok installed"]
    if not missing:
        return
    log.info(f"installing Debian packages: {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-q"], check=True, env=env, stdout=subprocess.DEVNULL)
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing],
                   check=True, env=env, stdout=subprocess.DEVNULL)


def ensure_kernel_settings():
    for module in ("overlay", "br_netfilter"):
        sh("modprobe", module, check=False, capture=True)
    for key in ("net/ipv4/ip_forward", "net/bridge/bridge-nf-call-iptables",
                "net/bridge/bridge-nf-call-ip6tables"):
        Path("/proc/sys", key).write_text("1\n")


def ensure_bridge():
    """The pod bridge, created before the CNI plugin so that listeners can bind its address."""
    if sh("ip", "link", "show", BRIDGE, check=False, capture=True).returncode != 0:
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
    prefix = ipaddress.ip_network(POD_CIDR).prefixlen
    addrs = sh("ip", "-o", "addr", "show", "dev", BRIDGE, capture=True).stdout
    if f" {HOST_IP}/" not in addrs:
        sh("ip", "addr", "add", f"{HOST_IP}/{prefix}", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")


def remove_bridge():
    if sh("ip", "link", "show", BRIDGE, check=False, capture=True).returncode == 0:
        sh("ip", "link", "del", BRIDGE)


def ensure_egress_guard():
    """Pods may reach this machine and each other, never an address beyond it."""
    if sh("iptables", "-w", "-n", "-L", EGRESS_CHAIN, check=False, capture=True).returncode != 0:
        sh("iptables", "-w", "-N", EGRESS_CHAIN)
        sh("iptables", "-w", "-A", EGRESS_CHAIN, "-d", POD_CIDR, "-j", "RETURN")
        sh("iptables", "-w", "-A", EGRESS_CHAIN, "-j", "REJECT")
    rule = ("FORWARD", "-s", POD_CIDR, "-j", EGRESS_CHAIN)
    if sh("iptables", "-w", "-C", *rule, check=False, capture=True).returncode != 0:
        sh("iptables", "-w", "-I", *rule)


def remove_egress_guard():
    rule = ("FORWARD", "-s", POD_CIDR, "-j", EGRESS_CHAIN)
    while sh("iptables", "-w", "-C", *rule, check=False, capture=True).returncode == 0:
        sh("iptables", "-w", "-D", *rule)
    if sh("iptables", "-w", "-n", "-L", EGRESS_CHAIN, check=False, capture=True).returncode == 0:
        sh("iptables", "-w", "-F", EGRESS_CHAIN)
        sh("iptables", "-w", "-X", EGRESS_CHAIN)


def set_hosts_entries(names, hosts_file=Path("/etc/hosts")):
    """Map names to the lab's address in /etc/hosts, on lines the lab marks as its own."""
    kept = [line for line in hosts_file.read_text().splitlines() if HOSTS_MARKER not in line]
    added = [f"{HOST_IP} {name} {HOSTS_MARKER}" for name in names]
    hosts_file.write_text("\n".join(kept + added) + "\n")


def mounts_under(root: Path):
    """Mount points below root, deepest first."""
    points = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        point = line.split()[4].replace("\\040", " ")
        if point == str(root) or point.startswith(str(root) + "/"):
            points.append(point)
    return sorted(set(points), key=lambda p: p.count("/"), reverse=True)


def unmount_all(paths):
    for point in paths:
        sh("umount", point, check=False, capture=True)
        if Path(point).is_mount():
            sh("umount", "-l", point, check=False, capture=True)


def _pod_pids(parent):
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if f"/{parent}/" in (proc / "cgroup").read_text():
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def kill_pod_processes(parent="kubepods", timeout=5):
    """SIGKILL anything still in a pod cgroup (left if a shim died before its containers)."""
    for pid in _pod_pids(parent):
        log.info(f"killing leftover pod process {pid}")
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while _pod_pids(parent) and time.monotonic() < deadline:
        time.sleep(0.1)


def remove_cgroups(parent="kubepods"):
    """Empty pod cgroups the kubelet created (cgroupfs driver), leaves first."""
    for controller in Path("/sys/fs/cgroup").iterdir():
        top = controller / parent
        if not top.is_dir():
            continue
        for d in sorted((p for p in top.rglob("*") if p.is_dir()),
                        key=lambda p: len(p.parts), reverse=True):
            _rmdir(d)
        _rmdir(top)


def _rmdir(path):
    try:
        path.rmdir()
    except OSError as err:
        log.info(f"could not remove cgroup {path}: {err.strerror}")


def remove_kube_iptables_chains():
    """Remove the KUBE-* chains the kubelet leaves behind (kube-proxy --cleanup removes its own)."""
    for tool in ("iptables", "ip6tables"):
        for table in ("filter", "nat", "mangle"):
            rules = sh(tool, "-w", "-t", table, "-S", check=False, capture=True).stdout.splitlines()
            chains = [r.split()[1] for r in rules if r.startswith("-N KUBE-")]
            for rule in rules:
                parts = shlex.split(rule)
                if parts[0] == "-A" and parts[1] not in chains and _jump(parts) in chains:
                    sh(tool, "-w", "-t", table, "-D", *parts[1:], check=False, capture=True)
            for chain in chains:
                sh(tool, "-w", "-t", table, "-F", chain, check=False, capture=True)
            for chain in chains:
                sh(tool, "-w", "-t", table, "-X", chain, check=False, capture=True)


def _jump(rule_parts):
    return rule_parts[rule_parts.index("-j") + 1] if "-j" in rule_parts else None
