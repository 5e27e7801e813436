# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Pod Security for the pods the collection itself runs (the pull Job, the clear Job).

Pure functions: the pod and container security contexts that pass the Pod Security
Standard "restricted" (non-root uid/gid with fsGroup, every capability dropped, the
runtime's default seccomp profile, a read-only root filesystem), the namespace labels
that make the API server enforce a level, and ``restricted_problems``, a reading of
the restricted rules the unit tests hold every Job of the collection to.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

# The uid and gid the collection's Jobs run as (the "nonroot" user of distroless images);
# hostpath_dirs gives the model directories to it, since a hostPath volume ignores fsGroup.
DEFAULT_UID = 65532
LABEL_PREFIX = "pod-security.kubernetes.io/"
MODES = ("enforce", "audit", "warn")
LEVELS = ("privileged", "baseline", "restricted")
# Volume types the restricted level admits.
RESTRICTED_VOLUMES = ("configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret")


def pod_security_context(uid=DEFAULT_UID):
    """Run every container as ``uid``:``uid``, volumes group-owned by it, under RuntimeDefault seccomp."""
    uid = int(uid)
    if uid <= 0:
        raise ValueError("the Job's uid must be a positive number, not %d (root is refused by Pod Security "
                         "restricted)" % uid)
    return {
        "runAsNonRoot": True,
        "runAsUser": uid,
        "runAsGroup": uid,
        "fsGroup": uid,
        "fsGroupChangePolicy": "OnRootMismatch",
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def container_security_context():
    return {
        "allowPrivilegeEscalation": False,
        "privileged": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
        "seccompProfile": {"type": "RuntimeDefault"},
    }


def _amount(key, value):
    """A comparable number for a cpu (cores) or byte quantity; None when it cannot be read."""
    text = str(value)
    try:
        if key == "cpu":
            return float(text[:-1]) / 1000 if text.endswith("m") else float(text)
        suffixes = {"Ki": 2 ** 10, "Mi": 2 ** 20, "Gi": 2 ** 30, "Ti": 2 ** 40, "k": 10 ** 3, "M": 10 ** 6,
                    "G": 10 ** 9, "T": 10 ** 12}
        for suffix, factor in sorted(suffixes.items(), key=lambda item: -len(item[0])):
            if text.endswith(suffix):
                return float(text[:-len(suffix)]) * factor
        return float(text)
    except ValueError:
        return None


def with_limits(resources, defaults):
    """``resources`` with every request and limit of ``defaults`` it does not set itself.

    An added limit is never below the request given for the same resource.
    """
    merged = copy.deepcopy(resources or {})
    for section in ("requests", "limits"):
        for key, value in (defaults.get(section) or {}).items():
            merged.setdefault(section, {}).setdefault(key, value)
    requests, limits = merged.get("requests") or {}, merged.get("limits") or {}
    for key, limit in list(limits.items()):
        given = (resources or {}).get("limits") or {}
        if key in given or key not in requests:
            continue
        request_amount, limit_amount = _amount(key, requests[key]), _amount(key, limit)
        if request_amount is not None and limit_amount is not None and request_amount > limit_amount:
            limits[key] = requests[key]
    return merged


def label_problems(levels):
    """Why ``levels`` ({mode: level}) cannot become namespace labels; empty when they can."""
    if levels in (None, ""):
        return []
    if not isinstance(levels, dict):
        return ["pod security levels must be a mapping of mode (%s) to level (%s), got %s"
                % (", ".join(MODES), ", ".join(LEVELS), type(levels).__name__)]
    problems = []
    for mode, level in levels.items():
        base = mode[:-len("-version")] if isinstance(mode, str) and mode.endswith("-version") else mode
        if base not in MODES:
            problems.append("pod security mode %r is not one of %s (or <mode>-version)" % (mode, ", ".join(MODES)))
        elif base == mode and level not in LEVELS:
            problems.append("pod security level %r of %s is not one of %s" % (level, mode, ", ".join(LEVELS)))
        elif base != mode and not isinstance(level, str):
            problems.append("%s must be a Kubernetes minor version such as v1.33, or latest" % mode)
    return problems


def namespace_labels(levels):
    """``{enforce: restricted}`` -> ``{pod-security.kubernetes.io/enforce: restricted}``."""
    problems = label_problems(levels)
    if problems:
        raise ValueError("; ".join(problems))
    return dict((LABEL_PREFIX + mode, str(level)) for mode, level in (levels or {}).items())


def _containers(pod_spec):
    for key in ("initContainers", "containers", "ephemeralContainers"):
        for container in pod_spec.get(key) or []:
            yield key, container


def restricted_problems(pod_spec):
    """The rules of Pod Security "restricted" (Kubernetes 1.33) that ``pod_spec`` breaks."""
    problems = []
    pod = pod_spec.get("securityContext") or {}
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if pod_spec.get(key):
            problems.append("%s is true" % key)
    for volume in pod_spec.get("volumes") or []:
        kinds = [key for key in volume if key != "name"]
        if not all(kind in RESTRICTED_VOLUMES for kind in kinds):
            problems.append("volume %s is of type %s" % (volume.get("name"), ", ".join(kinds)))
    if pod.get("runAsUser") == 0:
        problems.append("the pod runs as uid 0")
    pod_seccomp = (pod.get("seccompProfile") or {}).get("type")
    for key, container in _containers(pod_spec):
        where = "%s %s" % (key, container.get("name"))
        ctx = container.get("securityContext") or {}
        if ctx.get("privileged"):
            problems.append("%s is privileged" % where)
        if ctx.get("allowPrivilegeEscalation") is not False:
            problems.append("%s does not set allowPrivilegeEscalation: false" % where)
        caps = ctx.get("capabilities") or {}
        if "ALL" not in (caps.get("drop") or []):
            problems.append("%s does not drop ALL capabilities" % where)
        if [cap for cap in caps.get("add") or [] if cap != "NET_BIND_SERVICE"]:
            problems.append("%s adds capabilities" % where)
        if not (ctx.get("runAsNonRoot", pod.get("runAsNonRoot"))):
            problems.append("%s does not set runAsNonRoot: true" % where)
        if ctx.get("runAsUser") == 0:
            problems.append("%s runs as uid 0" % where)
        seccomp = (ctx.get("seccompProfile") or {}).get("type") or pod_seccomp
        if seccomp not in ("RuntimeDefault", "Localhost"):
            problems.append("%s has no RuntimeDefault or Localhost seccomp profile" % where)
        for port in container.get("ports") or []:
            if port.get("hostPort"):
                problems.append("%s uses hostPort %s" % (where, port["hostPort"]))
    return problems
