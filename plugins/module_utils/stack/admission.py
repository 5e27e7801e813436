# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The admission check of the rendered releases: will the API server let their pods in, will they install.

Pure functions over the manifests ``helm template`` printed for a model's releases (chart key
``infra``, ``gaie``, ``modelservice`` -> list of objects):

- ``pod_templates``: the pod spec of every workload (Deployment, StatefulSet, DaemonSet,
  ReplicaSet, Job, CronJob, Pod, LeaderWorkerSet).
- ``admission_problems``: each Pod Security check of the namespaces' enforce level
  (``aips_pod_security``) a rendered pod breaks, with the values key that asks for it, and a fix
  that deploys: the looser level, plus the values-policy allow-list entry when the policy refuses
  the same key.
- ``monitor_problems``: PodMonitor/ServiceMonitor objects whose CRD the cluster does not serve
  (Helm would fail on them mid-deploy); ``monitors_off`` the values that stop the charts making them.
- ``crd_problems``: the inference APIs the releases need that the cluster does not serve: the InferencePool
  (``inference.networking.k8s.io``) either stack's pool chart renders, and the ``llm-d.ai`` InferenceObjective and
  InferenceModelRewrite that llm-d-router's EPP watches (its Role lists them) whether or not its release renders
  one; each with where a site gets the CRD. The collection installs no CRD: they are cluster-wide, so a site
  installs them once, for every model.
- ``gpu_warnings``: on a hostPath claim every replica runs on the claim's node, so replicas times
  GPUs per pod must fit that node's allocatable ``nvidia.com/gpu``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import pod_standards, values_policy
from ansible_collections.ai_platform.serving.plugins.module_utils.stack.mappings import merged

POD_SECURITY_VARIABLE = "aips_pod_security"
MONITORS_VARIABLE = "serving_stack_monitors"
GPU_RESOURCE = "nvidia.com/gpu"
# chart key -> the values file the user wrote for it (record values_files key), or the site variable
MODELSERVER = "modelserver"  # the v0.10 model server's objects, checked as a chart of their own
CHART_ORDER = ("infra", "gaie", "modelservice", "router", "router_gateway", "modelserver")
# chart key -> the record's values_files key it reads (None: the collection writes its values); the v0.10 stack's
# model server ("modelserver") is no chart: its objects are checked under that key, from its folder
CHART_FILES = {"gaie": "gaie", "modelservice": "ms", "infra": None, "router": "router", "router_gateway": "router",
               "modelserver": "modelserver"}
# pod spec of each workload kind, as a path of keys from the object
POD_PATHS = {
    "Pod": (("spec",),),
    "Deployment": (("spec", "template", "spec"),),
    "StatefulSet": (("spec", "template", "spec"),),
    "DaemonSet": (("spec", "template", "spec"),),
    "ReplicaSet": (("spec", "template", "spec"),),
    "Job": (("spec", "template", "spec"),),
    "CronJob": (("spec", "jobTemplate", "spec", "template", "spec"),),
    "LeaderWorkerSet": (("spec", "leaderWorkerTemplate", "leaderTemplate", "spec"),
                        ("spec", "leaderWorkerTemplate", "workerTemplate", "spec")),
}
# Pod Security check -> the values-policy rule that refuses the same key
POLICY_RULES = {
    "privileged": "privileged",
    "host-namespaces": "host-namespaces",
    "host-ports": "host-ports",
    "host-path": "host-path",
    "capabilities": "added-capabilities",
    "capabilities-restricted": "added-capabilities",
    "seccomp": "seccomp-unconfined",
    "privilege-escalation": "privilege-escalation",
}
# objects of the Prometheus Operator the charts render: kind -> CRD name
MONITOR_CRDS = {
    ("monitoring.coreos.com", "PodMonitor"): "podmonitors.monitoring.coreos.com",
    ("monitoring.coreos.com", "ServiceMonitor"): "servicemonitors.monitoring.coreos.com",
}
# the inference APIs the charts render: (group, kind) -> CRD name; and where a site gets each CRD
STACK_CRDS = {
    ("inference.networking.k8s.io", "InferencePool"): "inferencepools.inference.networking.k8s.io",
    ("llm-d.ai", "InferenceObjective"): "inferenceobjectives.llm-d.ai",
    ("llm-d.ai", "InferenceModelRewrite"): "inferencemodelrewrites.llm-d.ai",
}
CRD_SOURCES = {
    "inferencepools.inference.networking.k8s.io": "the InferencePool CRD of GAIE v1.5.0 (config/crd/bases of "
                                                  "sigs.k8s.io/gateway-api-inference-extension v1.5.0, its "
                                                  "v1-manifests.yaml)",
    "inferenceobjectives.llm-d.ai": "the llm-d.ai CRDs of llm-d-router v0.10.0 (its config/crd)",
    "inferencemodelrewrites.llm-d.ai": "the llm-d.ai CRDs of llm-d-router v0.10.0 (its config/crd)",
}
# the router charts' EPP watches these whatever its release renders
ROUTER_CHARTS = ("router", "router_gateway")
ROUTER_WATCHED = ("inferenceobjectives.llm-d.ai", "inferencemodelrewrites.llm-d.ai")
# the values that turn every monitor of a chart off (llm-d-modelservice v0.4.12, inferencepool v1.2.0)
MONITORS_OFF = {
    "modelservice": {"decode": {"monitoring": {"podmonitor": {"enabled": False}}},
                     "prefill": {"monitoring": {"podmonitor": {"enabled": False}}}},
    "gaie": {"inferenceExtension": {"monitoring": {"prometheus": {"enabled": False}}}},
}
INDEX = re.compile(r"\[[^\]]*\]")


def _get(tree, path):
    for key in path:
        if not isinstance(tree, dict):
            return None
        tree = tree.get(key)
    return tree


def pod_templates(docs):
    """``(kind, name, pod spec, pod annotations, replicas)`` of every workload in ``docs``."""
    found = []
    for doc in docs or []:
        if not isinstance(doc, dict):
            continue
        kind = doc.get("kind")
        for path in POD_PATHS.get(kind, ()):
            spec = _get(doc, path)
            if not isinstance(spec, dict):
                continue
            meta = doc.get("metadata") if kind == "Pod" else _get(doc, path[:-1] + ("metadata",))
            replicas = _get(doc, ("spec", "replicas"))
            found.append((kind, (doc.get("metadata") or {}).get("name"), spec,
                          (meta or {}).get("annotations") or {}, 1 if replicas is None else replicas))
    return found


def _flat_path(path):
    return INDEX.sub("", path)


def _contains(haystack, needle):
    if haystack == needle:
        return True
    if isinstance(needle, list) and isinstance(haystack, list):
        return all(item in haystack for item in needle)
    if isinstance(haystack, list):
        return needle in haystack
    return False


def values_key(values, field, value):
    """The key path in ``values`` that sets ``field`` (a rendered pod field) to ``value``, or None.

    Matched by the field's last keys (indices dropped) and the value: ``containers[0].securityContext.
    capabilities.add`` = [SYS_NICE] is found at ``decode.containers[0].securityContext.capabilities.add``.
    """
    tail = [part for part in _flat_path(field).split(".") if part]
    tail = tail[-3:] if tail[-1] == "type" else tail[-2:]
    matches = []
    for path, mapping in values_policy.walk(values or {}):
        for key, item in mapping.items():
            here = values_policy.join(path, key)
            parts = [part for part in _flat_path(here).split(".") if part]
            if parts[-len(tail):] == tail and _contains(item, value if not isinstance(value, list) else value[:1]):
                matches.append(here)
            elif tail[-1] == "hostPath" and key == "hostPath" and item:
                matches.append(here)
    return matches[0] if matches else None


def _shown(value):
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def enforce_level(levels):
    """The Pod Security level the model namespaces enforce (no enforce label: privileged, Kubernetes' default)."""
    return str((levels or {}).get("enforce") or "privileged")


def level_fix(levels, needed):
    """The ``aips_pod_security`` mapping with ``enforce`` loosened to ``needed``, as the message shows it."""
    return values_policy.levels_text(levels, needed)


def _charts(rendered):
    """The chart keys of one model's ``rendered`` manifests, the known ones in deploy order (either stack), then any
    other."""
    known = [chart for chart in CHART_ORDER if chart in (rendered or {})]
    return known + sorted(chart for chart in (rendered or {}) if chart not in known)


def _source(record, chart):
    key = CHART_FILES.get(chart)
    if key is None:
        return values_policy.INFRA_VALUES
    return (record.get("values_files") or {}).get(key) or "%s-%s/values.yaml" % (key, record.get("slug"))


def admission_problems(record, rendered, levels, values=None, allow=None):
    """One message per Pod Security check that a rendered pod of ``record`` breaks at the enforce level.

    ``rendered``: chart key -> manifests; ``values``: chart key -> the values the release was rendered
    with (to name the key); ``allow``: ``serving_stack_values_policy_allow``.
    """
    level = enforce_level(levels)
    problems = []
    for chart in _charts(rendered):
        for kind, name, spec, annotations, _replicas in pod_templates((rendered or {}).get(chart)):
            for violation in pod_standards.violations(spec, level, annotations):
                problems.append(_admission_message(record, chart, kind, name, violation, level, levels,
                                                   (values or {}).get(chart), allow))
    return problems


def _admission_message(record, chart, kind, name, violation, level, levels, values, allow):
    needed = pod_standards.least_level(violation)
    key = values_key(values, violation.field, violation.value)
    source = _source(record, chart)
    rule = POLICY_RULES.get(violation.check)
    head = ("%s: %s release renders %s %s with %s = %s, which Pod Security %s (enforced on namespace %s) refuses: "
            "%s; its pods would never be created." % (
                record.get("name"), chart, kind, name, violation.field, _shown(violation.value), level,
                record.get("namespace"), violation.text))
    pod_fix = "set %s to %s (it applies to every model namespace)" % (POD_SECURITY_VARIABLE, level_fix(levels, needed))
    if chart == MODELSERVER:
        return head + " It comes from the model server's objects in %s. Fix: change it there, or %s." % (
            source, pod_fix)
    if key is None:
        return head + (" No values key sets it (the chart renders it). Fix: %s, or give the chart a values key that "
                       "overrides it in %s." % (pod_fix, source))
    policy_needed = rule in values_policy.RULES and values_policy.refused(record, rule, key, values, chart, allow)
    where = "It comes from %s: %s." % (source, key)
    if policy_needed:
        return head + (" %s Fix: remove it, or apply both: allow it in %s with {model: %s, rule: %s, key: %s, "
                       "reason: <why>} and %s; either one alone does not deploy." % (
                           where, values_policy.ALLOW_VARIABLE, record.get("slug"), rule, key, pod_fix))
    return head + " %s Fix: remove it from %s, or %s." % (where, source, pod_fix)


def monitors_off(chart, values):
    """``values`` with the chart's PodMonitor/ServiceMonitor switches off (``serving_stack_monitors: false``)."""
    off = MONITORS_OFF.get(chart)
    if not off:
        return values
    return merged(values, off)


def monitor_objects(docs):
    """``(kind, name, crd)`` of every Prometheus Operator object in ``docs``."""
    found = []
    for doc in docs or []:
        if not isinstance(doc, dict):
            continue
        group = str(doc.get("apiVersion") or "").split("/", maxsplit=1)[0]
        crd = MONITOR_CRDS.get((group, doc.get("kind")))
        if crd:
            found.append((doc["kind"], (doc.get("metadata") or {}).get("name"), crd))
    return found


def monitor_problems(record, rendered, served_crds):
    """The monitors of ``record``'s releases whose CRD is not in ``served_crds`` (a set of CRD names)."""
    problems = []
    for chart in _charts(rendered):
        for kind, name, crd in monitor_objects((rendered or {}).get(chart)):
            if crd in served_crds:
                continue
            problems.append(
                "%s: %s release renders %s %s, but the cluster has no CRD %s (the Prometheus Operator's): Helm would "
                "fail on it mid-deploy. Fix: install the Prometheus Operator's CRDs, or set %s: false (the charts' "
                "monitors off), or turn it off in %s." % (
                    record.get("name"), chart, kind, name, crd, MONITORS_VARIABLE, _source(record, chart)))
    return problems


def stack_crds(chart, docs):
    """``[(what, crd)]``: the inference CRDs one chart's manifests need (``what`` says why)."""
    found = []
    for doc in docs or []:
        if not isinstance(doc, dict):
            continue
        group = str(doc.get("apiVersion") or "").split("/", maxsplit=1)[0]
        crd = STACK_CRDS.get((group, doc.get("kind")))
        if crd and crd not in [c for _w, c in found]:
            found.append(("renders %s %s" % (doc["kind"], (doc.get("metadata") or {}).get("name")), crd))
    if chart in ROUTER_CHARTS:
        found.extend(("runs llm-d-router's EPP, which watches %s" % crd.split(".", 1)[0], crd)
                     for crd in ROUTER_WATCHED if crd not in [c for _w, c in found])
    return found


def crd_problems(record, rendered, served_crds):
    """The inference CRDs ``record``'s releases need (:func:`stack_crds`) that are not in ``served_crds``."""
    problems = []
    for chart in _charts(rendered):
        for what, crd in stack_crds(chart, (rendered or {}).get(chart)):
            if crd in served_crds:
                continue
            problems.append("%s: %s release %s, but the cluster has no CRD %s: Helm would fail on it mid-deploy (or "
                            "the EPP would not start). Fix: install %s on the cluster (once: it is cluster-wide), "
                            "then run again." % (record.get("name"), chart, what, crd, CRD_SOURCES[crd]))
    return problems


def monitor_warnings(record, rendered):
    """Without a cluster to read: the monitors whose CRD could not be checked."""
    found = [(chart, kind, name) for chart in _charts(rendered)
             for kind, name, _crd in monitor_objects((rendered or {}).get(chart))]
    if not found:
        return []
    return ["%s: renders %s; could not check the cluster for the Prometheus Operator's CRDs they need (no cluster "
            "read). Without them Helm fails; %s: false turns them off." % (
                record.get("name"), ", ".join("%s %s (%s)" % (kind, name, chart) for chart, kind, name in found),
                MONITORS_VARIABLE)]


def _gpus(pod_spec):
    total = 0
    for key in ("containers",):
        for container in pod_spec.get(key) or []:
            resources = container.get("resources") or {}
            amount = (resources.get("limits") or {}).get(GPU_RESOURCE) or (resources.get("requests") or {}).get(GPU_RESOURCE)
            try:
                total += int(str(amount)) if amount not in (None, "") else 0
            except ValueError:
                pass
    init = 0
    for container in pod_spec.get("initContainers") or []:
        resources = container.get("resources") or {}
        amount = (resources.get("limits") or {}).get(GPU_RESOURCE) or (resources.get("requests") or {}).get(GPU_RESOURCE)
        try:
            init = max(init, int(str(amount)) if amount not in (None, "") else 0)
        except ValueError:
            pass
    return max(total, init)


def gpu_demand(rendered):
    """``(total GPUs, [(kind/name, replicas, GPUs per pod)])`` of the model's releases."""
    parts = []
    for chart in ("modelservice", "gaie", "infra"):
        for kind, name, spec, _annotations, replicas in pod_templates((rendered or {}).get(chart)):
            per_pod = _gpus(spec)
            try:
                count = int(replicas)
            except (TypeError, ValueError):
                count = 1
            if per_pod and count:
                parts.append(("%s/%s" % (kind, name), count, per_pod))
    return sum(count * per_pod for _name, count, per_pod in parts), parts


def _hostpath_node(record):
    storage = record.get("storage") or {}
    if storage.get("mode") != "harbor" or not storage.get("pv"):
        return None
    return storage.get("hostpath_node") or None


def gpu_warnings(record, rendered, allocatable=None):
    """A warning when a hostPath-claim model asks its node for more GPUs than it offers.

    ``allocatable`` maps node name to its allocatable ``nvidia.com/gpu`` (None: the cluster was not read).
    """
    node = _hostpath_node(record)
    if not node:
        return []
    total, parts = gpu_demand(rendered)
    if not total:
        return []
    detail = ", ".join("%s %d x %d" % (name, count, per_pod) for name, count, per_pod in parts)
    if allocatable is None:
        return ["%s: its hostPath claim pins every replica to node %s, which must offer %d GPUs (%s); could not "
                "check the node's allocatable %s (no cluster read)." % (
                    record.get("name"), node, total, detail, GPU_RESOURCE)]
    offered = allocatable.get(node)
    if offered is None:
        return ["%s: its hostPath claim pins every replica to node %s, which must offer %d GPUs (%s), but the cluster "
                "has no node %s: nothing will schedule. Fix: correct modelSource.hostpathNode." % (
                    record.get("name"), node, total, detail, node)]
    if total > offered:
        return ["%s: its hostPath claim pins every replica to node %s, which offers %d %s but the releases ask for %d "
                "(%s): %d pod(s) will stay Pending. Fix: lower the replicas or the GPUs per pod in the ms values, or "
                "serve from a ReadOnlyMany claim (pvc://) that other nodes can mount." % (
                    record.get("name"), node, offered, GPU_RESOURCE, total, detail,
                    _pending(parts, offered))]
    return []


def _pending(parts, offered):
    left, pending = offered, 0
    for _name, count, per_pod in parts:
        for _replica in range(count):
            if per_pod <= left:
                left -= per_pod
            else:
                pending += 1
    return pending
