# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Secure defaults for the serving pods (decode, prefill) of llm-d-modelservice v0.4.12, unless the values set their own.

Each is one setting (the serving_stack role's variables), off unless given, and applies only where the model's
values file says nothing on the matter:

- ``pod_security_context``: per role the pod's ``extraConfig.securityContext`` (the chart's key; its older
  ``podSecurityContext`` counts as the values' own too) with ``runAsNonRoot``, ``runAsUser``/``runAsGroup``
  ``pod_uid`` and the RuntimeDefault seccomp profile; per container (and init container) of the values
  ``extraConfig.securityContext`` (or the older ``securityContext``) with ``allowPrivilegeEscalation: false``,
  ``capabilities.drop: [ALL]``, ``runAsNonRoot`` and RuntimeDefault seccomp - the container rules of Pod Security
  "restricted". The root filesystem stays writable (vLLM writes caches); the chart's own routing-proxy sidecar
  keeps the chart's context (no key for it), which does not drop capabilities.
- ``probes``: the first container of each role (the model server) gets a startup, readiness and liveness probe,
  ``httpGet`` on ``probe_path`` (``/health``: vLLM, llm-d-inference-sim and infinity serve it) at the server's port,
  unless it sets any probe itself. The port: its ``ports`` (the one named ``http``, else the first), else a
  ``--port`` in its args, else, for ``vllmServe``/``imageDefault`` (the chart passes ``--port``), the chart's rule
  (prefill or no proxy: ``routing.servicePort``, else ``routing.proxy.targetPort``); a ``custom`` container with
  none of these gets no probe. The startup probe allows 30 minutes for a model to load.
- ``requests``: every container without ``resources`` gets ``resources.requests`` of this mapping (the chart
  still adds the accelerator count).

Pure functions on the merged values (stack/values.py ``stack_spec`` calls ``apply``).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

MODEL_ROLES = ("decode", "prefill")
DEFAULT_UID = 65532
RUNTIME_DEFAULT = {"type": "RuntimeDefault"}
PROBE_KEYS = ("startupProbe", "readinessProbe", "livenessProbe")
CHART_DEFAULT_PORTS = {"servicePort": 8000, "targetPort": 8200}
# (period seconds, failure threshold, timeout seconds) per probe
PROBE_TIMING = {"startupProbe": (10, 180, 5), "readinessProbe": (5, 3, 5), "livenessProbe": (10, 3, 5)}


def pod_security_context(uid=DEFAULT_UID):
    uid = int(uid)
    if uid <= 0:
        raise ValueError("serving_stack_pod_uid must be a positive number, not %d (runAsNonRoot refuses root)" % uid)
    return {"runAsNonRoot": True, "runAsUser": uid, "runAsGroup": uid, "seccompProfile": dict(RUNTIME_DEFAULT)}


def container_security_context():
    return {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
            "seccompProfile": dict(RUNTIME_DEFAULT)}


def _extra(entry):
    extra = entry.get("extraConfig")
    return extra if isinstance(extra, dict) else {}


def _sets(entry, key):
    """True when ``entry`` (a role section or a container) sets ``key`` itself or in its ``extraConfig``."""
    return entry.get(key) not in (None, {}, []) or _extra(entry).get(key) not in (None, {}, [])


def _set_extra(entry, key, value):
    extra = dict(_extra(entry))
    extra[key] = value
    entry["extraConfig"] = extra


def _arg_port(args):
    args = [str(a) for a in args or []]
    for position, arg in enumerate(args):
        if arg.startswith("--port="):
            value = arg.split("=", 1)[1]
        elif arg == "--port" and position + 1 < len(args):
            value = args[position + 1]
        else:
            continue
        if value.isdigit():
            return int(value)
    return None


def server_port(values, role, container):
    """The port the role's model server listens on (see the module doc), or None when it cannot be told."""
    ports = [p for p in container.get("ports") or [] if isinstance(p, dict) and p.get("containerPort")]
    named = [p for p in ports if p.get("name") == "http"]
    if named or ports:
        return (named or ports)[0]["containerPort"]
    port = _arg_port(container.get("args"))
    if port:
        return port
    if container.get("modelCommand") not in ("vllmServe", "imageDefault"):
        return None
    routing = values.get("routing") if isinstance(values.get("routing"), dict) else {}
    proxy = routing.get("proxy") if isinstance(routing.get("proxy"), dict) else {}
    if role == "prefill" or proxy.get("enabled", True) is False:
        return routing.get("servicePort", CHART_DEFAULT_PORTS["servicePort"])
    return proxy.get("targetPort", CHART_DEFAULT_PORTS["targetPort"])


def probes(path, port):
    made = {}
    for key in PROBE_KEYS:
        period, failures, timeout = PROBE_TIMING[key]
        made[key] = {"httpGet": {"path": path, "port": port}, "periodSeconds": period, "failureThreshold": failures,
                     "timeoutSeconds": timeout}
    return made


def apply(values, pod_security_context_on=False, uid=DEFAULT_UID, probes_on=False, probe_path="/health",
          requests=None):
    """``values`` (merged llm-d-modelservice values) with the defaults switched on, where the values set none."""
    values = copy.deepcopy(values or {})
    if not (pod_security_context_on or probes_on or requests):
        return values
    for role in MODEL_ROLES:
        section = values.get(role)
        if not isinstance(section, dict) or section.get("create") is False:
            continue
        if pod_security_context_on and not (_sets(section, "securityContext") or _sets(section, "podSecurityContext")):
            _set_extra(section, "securityContext", pod_security_context(uid))
        for key in ("containers", "initContainers"):
            named = [c for c in section.get(key) or [] if isinstance(c, dict) and c.get("name")]
            for position, container in enumerate(named):
                if pod_security_context_on and not _sets(container, "securityContext"):
                    _set_extra(container, "securityContext", container_security_context())
                if requests and key == "containers" and not container.get("resources"):
                    container["resources"] = {"requests": copy.deepcopy(dict(requests))}
                if probes_on and key == "containers" and position == 0 \
                        and not any(_sets(container, probe) for probe in PROBE_KEYS):
                    port = server_port(values, role, container)
                    if port:
                        for probe, spec in probes(probe_path, port).items():
                            _set_extra(container, probe, spec)
    return values
