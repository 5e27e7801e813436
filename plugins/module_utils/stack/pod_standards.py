# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The Pod Security Standards (Kubernetes 1.33) as pure predicates over one pod spec.

The API server's PodSecurity admission refuses a pod whose spec breaks a check of its
namespace's ``enforce`` level; a Deployment whose pods are refused is created, its ReplicaSet
is not able to make a pod, and ``helm --wait`` runs out of time. ``violations(pod_spec, level)``
answers, before anything is installed, which checks a pod spec breaks at a level, each as a
``Violation`` naming the check, the field, the value and the least strict level that admits it.

Levels, from loosest: ``privileged`` (no check), ``baseline`` (known privilege escalations),
``restricted`` (baseline plus hardening). The facts (allowed capabilities, volume types,
sysctls, SELinux types) are those of the Pod Security Standards documentation for 1.33.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections import namedtuple

LEVELS = ("privileged", "baseline", "restricted")
CONTAINER_KEYS = ("initContainers", "containers", "ephemeralContainers")

# baseline: capabilities a container may add
BASELINE_CAPABILITIES = frozenset((
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD", "NET_BIND_SERVICE", "SETFCAP",
    "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT"))
# restricted: the only capability a container may add (after dropping ALL)
RESTRICTED_CAPABILITIES = frozenset(("NET_BIND_SERVICE",))
BASELINE_SECCOMP = (None, "", "RuntimeDefault", "Localhost")
RESTRICTED_SECCOMP = ("RuntimeDefault", "Localhost")
BASELINE_APPARMOR = (None, "", "RuntimeDefault", "Localhost")
BASELINE_SELINUX_TYPES = (None, "", "container_t", "container_init_t", "container_kvm_t", "container_engine_t")
BASELINE_PROC_MOUNT = (None, "Default")
SAFE_SYSCTLS = frozenset((
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes", "net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"))
RESTRICTED_VOLUMES = frozenset(("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                                "projected", "secret"))
APPARMOR_ANNOTATION = "container.apparmor.security.beta.kubernetes.io/"
HOST_NAMESPACES = ("hostNetwork", "hostPID", "hostIPC")

# check id -> (the level whose rules contain it, what it protects)
CHECKS = {
    "host-process": ("baseline", "Windows HostProcess pods run with the node's privileges"),
    "host-namespaces": ("baseline", "the node's network, PID or IPC namespace must not be shared"),
    "privileged": ("baseline", "privileged containers are refused"),
    "capabilities": ("baseline", "capabilities beyond %s are refused" % ", ".join(sorted(BASELINE_CAPABILITIES))),
    "host-path": ("baseline", "hostPath volumes are refused"),
    "host-ports": ("baseline", "host ports are refused"),
    "apparmor": ("baseline", "the AppArmor profile must be RuntimeDefault or Localhost"),
    "selinux": ("baseline", "custom SELinux users, roles and types are refused"),
    "proc-mount": ("baseline", "the default /proc mask must be kept"),
    "seccomp": ("baseline", "seccompProfile Unconfined is refused"),
    "sysctls": ("baseline", "only the safe sysctls are allowed"),
    "volume-types": ("restricted", "only configMap, csi, downwardAPI, emptyDir, ephemeral, persistentVolumeClaim, "
                                   "projected and secret volumes are allowed"),
    "privilege-escalation": ("restricted", "every container must set allowPrivilegeEscalation: false"),
    "run-as-non-root": ("restricted", "runAsNonRoot: true must be set for the pod or every container"),
    "run-as-user": ("restricted", "runAsUser 0 (root) is refused"),
    "seccomp-restricted": ("restricted", "seccompProfile RuntimeDefault or Localhost must be set for the pod or "
                                         "every container"),
    "capabilities-restricted": ("restricted", "every container must drop ALL capabilities and add none but "
                                              "NET_BIND_SERVICE"),
}

Violation = namedtuple("Violation", "check level field value text")


def rank(level):
    """0 for privileged, 1 for baseline, 2 for restricted; an unknown level counts as privileged."""
    return LEVELS.index(level) if level in LEVELS else 0


def admits(level, violation):
    """True when Pod Security ``level`` admits a pod with ``violation``."""
    return rank(level) < rank(violation.level)


def least_level(violation):
    """The strictest level that admits ``violation``: the one just below the level that holds its check."""
    return LEVELS[rank(violation.level) - 1]


def containers(pod_spec):
    """``(field path, container)`` of every init, app and ephemeral container."""
    for key in CONTAINER_KEYS:
        for position, container in enumerate((pod_spec or {}).get(key) or []):
            if isinstance(container, dict):
                yield "%s[%d]" % (key, position), container


def _v(check, field, value, detail=""):
    level, text = CHECKS[check]
    return Violation(check, level, field, value, text + (" (%s)" % detail if detail else ""))


def _security_contexts(pod_spec):
    """``(field path, securityContext)`` of the pod, then of every container."""
    yield "securityContext", (pod_spec or {}).get("securityContext") or {}
    for where, container in containers(pod_spec):
        yield where + ".securityContext", container.get("securityContext") or {}


def baseline_violations(pod_spec, annotations=None):
    """Every baseline check ``pod_spec`` (and its pod template's ``annotations``) breaks."""
    pod_spec = pod_spec or {}
    found = []
    for key in HOST_NAMESPACES:
        if pod_spec.get(key) is True:
            found.append(_v("host-namespaces", key, True))
    for where, ctx in _security_contexts(pod_spec):
        windows = ctx.get("windowsOptions") or {}
        if windows.get("hostProcess") is True:
            found.append(_v("host-process", where + ".windowsOptions.hostProcess", True))
        seccomp = (ctx.get("seccompProfile") or {}).get("type")
        if seccomp not in BASELINE_SECCOMP:
            found.append(_v("seccomp", where + ".seccompProfile.type", seccomp))
        apparmor = (ctx.get("appArmorProfile") or {}).get("type")
        if apparmor not in BASELINE_APPARMOR:
            found.append(_v("apparmor", where + ".appArmorProfile.type", apparmor))
        selinux = ctx.get("seLinuxOptions") or {}
        if selinux.get("type") not in BASELINE_SELINUX_TYPES:
            found.append(_v("selinux", where + ".seLinuxOptions.type", selinux.get("type")))
        for key in ("user", "role"):
            if selinux.get(key):
                found.append(_v("selinux", "%s.seLinuxOptions.%s" % (where, key), selinux[key]))
    for where, container in containers(pod_spec):
        ctx = container.get("securityContext") or {}
        if ctx.get("privileged") is True:
            found.append(_v("privileged", where + ".securityContext.privileged", True))
        added = [cap for cap in (ctx.get("capabilities") or {}).get("add") or [] if cap not in BASELINE_CAPABILITIES]
        if added:
            found.append(_v("capabilities", where + ".securityContext.capabilities.add", added))
        if ctx.get("procMount") not in BASELINE_PROC_MOUNT:
            found.append(_v("proc-mount", where + ".securityContext.procMount", ctx.get("procMount")))
        for position, port in enumerate(container.get("ports") or []):
            if isinstance(port, dict) and port.get("hostPort") not in (None, 0):
                found.append(_v("host-ports", "%s.ports[%d].hostPort" % (where, position), port["hostPort"]))
    for position, volume in enumerate(pod_spec.get("volumes") or []):
        if isinstance(volume, dict) and "hostPath" in volume:
            found.append(_v("host-path", "volumes[%d].hostPath" % position, volume["hostPath"],
                            "volume %s" % volume.get("name")))
    for position, sysctl in enumerate((pod_spec.get("securityContext") or {}).get("sysctls") or []):
        if isinstance(sysctl, dict) and sysctl.get("name") not in SAFE_SYSCTLS:
            found.append(_v("sysctls", "securityContext.sysctls[%d].name" % position, sysctl.get("name")))
    for key, value in sorted((annotations or {}).items()):
        if key.startswith(APPARMOR_ANNOTATION) and value not in ("", "runtime/default") \
                and not str(value).startswith("localhost/"):
            found.append(_v("apparmor", "metadata.annotations[%s]" % key, value))
    return found


def restricted_only_violations(pod_spec):
    """Every check of restricted beyond baseline that ``pod_spec`` breaks."""
    pod_spec = pod_spec or {}
    found = []
    pod_ctx = pod_spec.get("securityContext") or {}
    for position, volume in enumerate(pod_spec.get("volumes") or []):
        if not isinstance(volume, dict):
            continue
        kinds = sorted(key for key in volume if key != "name")
        others = [kind for kind in kinds if kind not in RESTRICTED_VOLUMES and kind != "hostPath"]
        if others:
            found.append(_v("volume-types", "volumes[%d]" % position, others, "volume %s" % volume.get("name")))
    if pod_ctx.get("runAsUser") == 0:
        found.append(_v("run-as-user", "securityContext.runAsUser", 0))
    pod_non_root = pod_ctx.get("runAsNonRoot")
    pod_seccomp = (pod_ctx.get("seccompProfile") or {}).get("type")
    for where, container in containers(pod_spec):
        ctx = container.get("securityContext") or {}
        if ctx.get("allowPrivilegeEscalation") is not False:
            found.append(_v("privilege-escalation", where + ".securityContext.allowPrivilegeEscalation",
                            ctx.get("allowPrivilegeEscalation")))
        non_root = ctx["runAsNonRoot"] if "runAsNonRoot" in ctx else pod_non_root
        if non_root is not True:
            found.append(_v("run-as-non-root", where + ".securityContext.runAsNonRoot", non_root))
        if ctx.get("runAsUser") == 0:
            found.append(_v("run-as-user", where + ".securityContext.runAsUser", 0))
        seccomp = (ctx.get("seccompProfile") or {}).get("type") or pod_seccomp
        if seccomp not in RESTRICTED_SECCOMP and seccomp not in ("Unconfined",):
            found.append(_v("seccomp-restricted", where + ".securityContext.seccompProfile.type", seccomp))
        caps = ctx.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            found.append(_v("capabilities-restricted", where + ".securityContext.capabilities.drop", caps.get("drop"),
                            "ALL is not dropped"))
        added = [cap for cap in caps.get("add") or [] if cap in BASELINE_CAPABILITIES
                 and cap not in RESTRICTED_CAPABILITIES]
        if added:
            found.append(_v("capabilities-restricted", where + ".securityContext.capabilities.add", added))
    return found


def violations(pod_spec, level, annotations=None):
    """The checks of Pod Security ``level`` that ``pod_spec`` breaks (none for ``privileged``)."""
    if rank(level) == 0:
        return []
    found = baseline_violations(pod_spec, annotations)
    if rank(level) >= 2:
        found += restricted_only_violations(pod_spec)
    return found


def strictest_level(pod_spec, annotations=None):
    """The strictest level that admits ``pod_spec``."""
    for level in reversed(LEVELS):
        if not violations(pod_spec, level, annotations):
            return level
    return "privileged"
