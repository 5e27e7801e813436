# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The values policy: what a model's values files may not ask for.

A values file is merged into the chart values as written, so without a policy a model folder
could run its pods privileged, in the node's namespaces, on a node directory, with added
capabilities, or with a writable model mount. ``policy_problems`` walks every values file of
one model (and the site's llm-d-infra values) and reports each such key with the model, the
file, the key and the fix, before anything changes on the cluster.

Rules (ids as the allow-list names them):

- ``privileged``: ``privileged: true`` anywhere.
- ``privilege-escalation``: ``allowPrivilegeEscalation: true`` anywhere.
- ``host-namespaces``: ``hostNetwork``, ``hostPID`` or ``hostIPC`` true.
- ``host-ports``: a ``hostPort`` other than 0.
- ``host-path``: a ``hostPath`` volume source.
- ``added-capabilities``: a non-empty ``capabilities.add``.
- ``seccomp-unconfined``: a ``seccompProfile`` of type ``Unconfined`` (no system call filter).
- ``writable-model-mount``: ``modelArtifacts.readOnly: false`` on a model the plan does not serve
  from its claim (for one it does, the plan owns the key and ``stack_values`` reports it), or a
  ``persistentVolumeClaim`` volume of the model's claim that is not ``readOnly: true``.
- ``extra-objects``: an ``extraObjects`` entry (llm-d-modelservice renders each one, through ``tpl``, with
  the deploy's credentials): any object beside the chart's own workload.
- ``privileged-objects``: an ``extraObjects`` entry of an RBAC kind, a Secret or ServiceAccount, a
  cluster-scoped kind, or one naming another namespace; never excused by ``extra-objects``.
- ``helm-lookup``: a string holding a Helm ``lookup`` call (the charts pass values through ``tpl``, so
  it would read any object of the cluster, Secrets included, with the deploy's credentials), or a ``tpl``
  call: a nested ``tpl`` renders a template built from pieces (``print "look" "up"``, ``b64dec``) that no
  check of the text can see.
- ``tolerate-everything``: a toleration without a key and ``operator: Exists``: the pod tolerates
  every taint and may land on control-plane nodes.
- ``other-claims``: a ``persistentVolumeClaim`` volume, or a ``pvc://`` / ``pvc+hf://`` model URI,
  of a claim that is not the model's own (the plan also names the other model when it is one of
  the plan's).
- ``pull-image-off-harbor``: on-prem, the pull Job image (``aips_oras_image`` or the plan's ORAS image)
  off Harbor; the model plan checks it (key ``oras_image``), since the Job mounts ``harbor-creds``.

Exceptions are explicit: ``serving_stack_values_policy_allow`` (the ``values_policy_allow``
setting) is a list of ``{model, rule, key, reason}``; ``model`` is a slug, a model name or
``*``, ``key`` (optional) the exact key path as the message prints it, ``reason`` is required.

An exception alone may not deploy: the model namespaces enforce a Pod Security level
(``aips_pod_security``, the ``pod_security`` setting) that refuses most of these keys too. When
it does, the message names both fixes, the allow-list entry and the looser level.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import pod_standards

RULES = {
    "privileged": "a privileged container has every capability of the node's root",
    "privilege-escalation": "allowPrivilegeEscalation lets a process gain more privileges than its parent",
    "host-namespaces": "a pod in the node's network, PID or IPC namespace sees and reaches the node's processes",
    "host-ports": "a hostPort binds a port on the node itself",
    "host-path": "a hostPath volume exposes a node directory to the pod",
    "added-capabilities": "added Linux capabilities widen what the container may do to the node",
    "seccomp-unconfined": "an Unconfined seccomp profile lets the container make every system call",
    "writable-model-mount": "serving pods must never write the model's weights",
    "extra-objects": "extraObjects are rendered with the deploy's credentials, outside the chart's workload",
    "privileged-objects": "RBAC objects, Secrets, ServiceAccounts, cluster-scoped objects and objects of other "
                          "namespaces grant or reach more than the model's workload",
    "helm-lookup": "a Helm lookup reads any object of the cluster, Secrets included, with the deploy's credentials",
    "tolerate-everything": "a toleration without a key tolerates every taint, control-plane nodes included",
    "other-claims": "a model's pods mount only the model's own claim",
    "pull-image-off-harbor": "on-prem the pull Job mounts harbor-creds, so its image must come from Harbor",
}
RBAC_KINDS = ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding", "Secret", "ServiceAccount")
CLUSTER_KINDS = ("Namespace", "Node", "PersistentVolume", "StorageClass", "CustomResourceDefinition", "PriorityClass",
                 "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy",
                 "ValidatingAdmissionPolicyBinding", "APIService", "CSIDriver", "RuntimeClass", "IngressClass",
                 "GatewayClass", "ClusterIssuer", "VolumeSnapshotClass", "CertificateSigningRequest")
# a template action calling lookup, or tpl (which can build a lookup call from pieces); over-matching on purpose:
# a "}}" inside a string literal of the action would end a stricter pattern early
LOOKUP_RE = re.compile(r"\{\{.*?\b(lookup|tpl)\b", re.DOTALL)
HOST_NAMESPACE_KEYS = ("hostNetwork", "hostPID", "hostIPC")
ALLOW_FIELDS = ("model", "rule", "key", "reason")
ALLOW_VARIABLE = "serving_stack_values_policy_allow"
INFRA_VALUES = "serving_stack_infra_values"
POD_SECURITY_VARIABLE = "aips_pod_security"
# rule -> the strictest Pod Security level that admits a key it refuses (added-capabilities: see _pod_level)
POD_LEVELS = {
    "privileged": "privileged",
    "privilege-escalation": "baseline",
    "host-namespaces": "privileged",
    "host-ports": "privileged",
    "host-path": "privileged",
    "seccomp-unconfined": "privileged",
    "writable-model-mount": "restricted",
}


def _join(path, key):
    return "%s.%s" % (path, key) if path else str(key)


def _walk(node, path=""):
    """Yield ``(path, mapping)`` for every mapping in a values tree, depth first."""
    stack = [(path, node)]
    while stack:
        here, value = stack.pop()
        if isinstance(value, dict):
            yield here, value
            stack.extend(reversed([(_join(here, key), item) for key, item in value.items()]))
        elif isinstance(value, list):
            stack.extend(reversed([("%s[%d]" % (here, position), item) for position, item in enumerate(value)]))


walk = _walk
join = _join


def _model_claims(record):
    storage = record.get("storage") or {}
    return set(name for name in (storage.get("pvc"), storage.get("claim")) if name)


def _serves_from_claim(record):
    return str(record.get("model_artifacts_uri") or "").startswith("pvc")


def _claim_of_uri(uri):
    """The claim a ``pvc://[ns:]claim/...`` or ``pvc+hf://claim/...`` URI names, else None."""
    if not isinstance(uri, str) or not uri.startswith(("pvc://", "pvc+hf://")):
        return None
    return uri.split("://", 1)[1].split("/", 1)[0].split(":")[-1]


def _object_findings(here, objects, record):
    found = []
    for position, item in enumerate(objects if isinstance(objects, list) else [objects]):
        where = "%s[%d]" % (here, position)
        kind = item.get("kind") if isinstance(item, dict) else None
        namespace = ((item.get("metadata") or {}) if isinstance(item, dict) else {}).get("namespace")
        if isinstance(item, str) and re.search(r"(?m)^\s*kind:\s*(%s)\s*$" % "|".join(RBAC_KINDS + CLUSTER_KINDS), item):
            found.append(("privileged-objects", where, "<a template of a privileged kind>"))
        elif kind in RBAC_KINDS or kind in CLUSTER_KINDS \
                or (namespace and namespace != (record.get("names") or {}).get("namespace")):
            found.append(("privileged-objects", where, "%s%s" % (kind, " in namespace %s" % namespace if namespace else "")))
        else:
            found.append(("extra-objects", where, kind or "<a template>"))
    return found


def findings(record, values, chart=None):
    """``(rule, key path, value)`` for every key of ``values`` the policy rejects."""
    found = []
    claims = _model_claims(record)
    for path, mapping in _walk(values or {}):
        for key, value in mapping.items():
            here = _join(path, key)
            if key == "extraObjects" and value not in (None, [], {}, ""):
                found.extend(_object_findings(here, value, record))
                continue
            if key == "tolerations" and isinstance(value, list):
                for position, toleration in enumerate(value):
                    if isinstance(toleration, dict) and not toleration.get("key") \
                            and toleration.get("operator") == "Exists":
                        found.append(("tolerate-everything", "%s[%d]" % (here, position), toleration))
            called = LOOKUP_RE.search(key) if isinstance(key, str) else None
            if called:
                found.append(("helm-lookup", here, "<a key calling %s>" % called.group(1)))
            strings = [(here, value)] if isinstance(value, str) else \
                [("%s[%d]" % (here, position), item) for position, item in enumerate(value)
                 if isinstance(item, str)] if isinstance(value, list) else []
            for where, text in strings:
                called = LOOKUP_RE.search(text)
                if called:
                    found.append(("helm-lookup", where, "<a template calling %s>" % called.group(1)))
            if key == "persistentVolumeClaim" and isinstance(value, dict) and value.get("claimName") \
                    and value.get("claimName") not in claims:
                found.append(("other-claims", _join(here, "claimName"), value.get("claimName")))
            if key == "uri" and path.endswith("modelArtifacts") and _claim_of_uri(value) \
                    and _claim_of_uri(value) not in claims and not record.get("model_artifacts_uri"):
                found.append(("other-claims", here, value))
            if key == "privileged" and value is True:
                found.append(("privileged", here, value))
            elif key == "allowPrivilegeEscalation" and value is True:
                found.append(("privilege-escalation", here, value))
            elif key in HOST_NAMESPACE_KEYS and value is True:
                found.append(("host-namespaces", here, value))
            elif key == "hostPort" and value not in (None, 0, "0", ""):
                found.append(("host-ports", here, value))
            elif key == "hostPath" and value not in (None, {}, ""):
                found.append(("host-path", here, value))
            elif key == "capabilities" and isinstance(value, dict) and value.get("add"):
                found.append(("added-capabilities", _join(here, "add"), value["add"]))
            elif key == "seccompProfile" and isinstance(value, dict) and value.get("type") == "Unconfined":
                found.append(("seccomp-unconfined", _join(here, "type"), value["type"]))
            elif key == "persistentVolumeClaim" and isinstance(value, dict) \
                    and value.get("claimName") in claims and value.get("readOnly") is not True:
                found.append(("writable-model-mount", here, value))
    artifacts = (values or {}).get("modelArtifacts") if isinstance(values, dict) else None
    if chart == "ms" and isinstance(artifacts, dict) and artifacts.get("readOnly") is False \
            and not _serves_from_claim(record):
        found.append(("writable-model-mount", "modelArtifacts.readOnly", False))
    return found


def refused(record, rule, key, values, chart, allow):
    """True when the policy refuses ``key`` of ``values`` under ``rule`` and no allow-list entry excuses it."""
    chart = "ms" if chart == "modelservice" else chart
    return any(found_rule == rule and found_key == key for found_rule, found_key, _value in findings(record, values, chart)) \
        and not allowed(record, rule, key, allow)


def _pod_level(rule, value):
    if rule != "added-capabilities":
        return POD_LEVELS.get(rule, "restricted")
    added = value if isinstance(value, list) else [value]
    if any(cap not in pod_standards.BASELINE_CAPABILITIES for cap in added):
        return "privileged"
    return "restricted" if all(cap in pod_standards.RESTRICTED_CAPABILITIES for cap in added) else "baseline"


def levels_text(levels, enforce):
    """``levels`` ({mode: level}) with ``enforce`` set, as the messages print it: ``{enforce: privileged, ...}``."""
    fixed = dict(levels if isinstance(levels, dict) else {}, enforce=enforce)
    return "{%s}" % ", ".join("%s: %s" % (mode, fixed[mode])
                              for mode in sorted(fixed, key=lambda m: (m != "enforce", str(m))))


def pod_security_fix(rule, value, levels):
    """``(enforced level, needed level, aips_pod_security as text)`` when the enforced level refuses the value too,
    else None."""
    levels = levels if isinstance(levels, dict) else {}
    enforced = str(levels.get("enforce") or "privileged")
    needed = _pod_level(rule, value)
    if enforced not in pod_standards.LEVELS or pod_standards.rank(enforced) <= pod_standards.rank(needed):
        return None
    return enforced, needed, levels_text(levels, needed)


def allow_problems(allow):
    """Problems with the allow-list itself; an entry the policy cannot read excuses nothing."""
    problems = []
    if allow in (None, ""):
        return problems
    if not isinstance(allow, list):
        return ["%s must be a list of {model, rule, key, reason}, got %s. Fix: write it as a YAML list."
                % (ALLOW_VARIABLE, type(allow).__name__)]
    for position, entry in enumerate(allow):
        where = "%s[%d]" % (ALLOW_VARIABLE, position)
        if not isinstance(entry, dict):
            problems.append("%s is not a mapping. Fix: write {model: <slug>, rule: <rule>, key: <key>, "
                            "reason: <why>}." % where)
            continue
        unknown = sorted(set(entry) - set(ALLOW_FIELDS), key=str)
        if unknown:
            problems.append("%s has unknown fields %s. Fix: use only %s." % (where, unknown, ", ".join(ALLOW_FIELDS)))
        if entry.get("rule") not in RULES:
            problems.append("%s: rule %r is not a policy rule. Fix: use one of %s."
                            % (where, entry.get("rule"), ", ".join(sorted(RULES))))
        if not entry.get("model"):
            problems.append("%s has no model. Fix: name the model's slug (or * for every model)." % where)
        if not str(entry.get("reason") or "").strip():
            problems.append("%s has no reason. Fix: say why the site needs the exception (it is the only "
                            "record of it)." % where)
    return problems


def _usable(allow):
    if not isinstance(allow, list) or allow_problems(allow):
        return []
    return allow


def allowed(record, rule, key, allow):
    """True when an allow-list entry excuses ``rule`` at ``key`` for this model."""
    for entry in _usable(allow):
        if entry["model"] not in ("*", record.get("slug"), record.get("name")):
            continue
        if entry["rule"] != rule:
            continue
        if entry.get("key") in (None, "", key):
            return True
    return False


def shown(value):
    """A value as a refusal shows it: its repr, cut to 80 characters."""
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


_shown = shown


def policy_problems(record, files, settings=None):
    """One message per rejected key of the model's values ``files`` ({chart: values}).

    ``files`` maps ``gaie``/``ms`` to the parsed values files; the site's llm-d-infra values
    (``infra_values`` in ``settings``) are checked too. The messages name the model, the file,
    the key and the fix.
    """
    settings = settings or {}
    allow = settings.get("values_policy_allow")
    levels = settings.get("pod_security")
    problems = allow_problems(allow)
    paths = record.get("values_files") or {}
    sources = [(chart, paths.get(chart) or "%s-%s/values.yaml" % (chart, record.get("slug")), files.get(chart))
               for chart in ("gaie", "ms")]
    sources.append(("infra", INFRA_VALUES, settings.get("infra_values")))
    return problems + _source_problems(record, sources, allow, levels)


def _source_problems(record, sources, allow, levels):
    """The messages of ``policy_problems`` for ``[(chart, where, values)]``."""
    problems = []
    for chart, where, values in sources:
        for rule, key, value in findings(record, values, chart):
            if allowed(record, rule, key, allow):
                continue
            both = pod_security_fix(rule, value, levels)
            if both:
                enforced, needed, fixed = both
                problems.append(
                    "%s: %s: %s = %s is refused by the values policy (%s: %s) and by Pod Security %s, the level the "
                    "model namespaces enforce (%s). Fix: remove it, or apply both: allow it for this model in %s with "
                    "{model: %s, rule: %s, key: %s, reason: <why>} and set %s to %s (every model namespace; the "
                    "pods need %s); either one alone does not deploy."
                    % (record.get("name"), where, key, _shown(value), rule, RULES[rule], enforced, POD_SECURITY_VARIABLE,
                       ALLOW_VARIABLE, record.get("slug"), rule, key, POD_SECURITY_VARIABLE, fixed, needed))
                continue
            problems.append(
                "%s: %s: %s = %s is refused by the values policy (%s: %s). Fix: remove it, or allow it for this "
                "model in %s with {model: %s, rule: %s, key: %s, reason: <why>}."
                % (record.get("name"), where, key, _shown(value), rule, RULES[rule], ALLOW_VARIABLE,
                   record.get("slug"), rule, key))
    return problems


def object_problems(record, objects, settings=None):
    """``policy_problems`` for the llm-d v0.10 model-server objects (``[(where, object)]``, the owned fields
    applied): one message per rejected key, the key path inside the object."""
    settings = settings or {}
    return _source_problems(record, [(None, where, obj) for where, obj in objects or []],
                            settings.get("values_policy_allow"), settings.get("pod_security"))
