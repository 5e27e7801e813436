# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model plan's checks that are not one model entry's, and the problems every check reports.

``Problem`` is one finding (model, field, value, what is wrong, how to fix it; an error or a
warning); ``format_problems`` is the one failure message listing every error. ``check_settings``
checks the cluster settings (provider, on-prem credentials, the kubeconfig path, the GPU
toleration, the models mapping); ``check_collisions`` and ``check_sync`` check the built records
against each other and against ``model_sync_models``. plan/build.py checks each model entry and builds
its record.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import fnmatch
import re

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import sources as src
from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import (
    CATEGORIES, PROVIDERS, STORAGE_CLAIM, STORAGE_HARBOR)
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import offline, stacks, values_policy

ON_PREM_REQUIRED = ("kubeconfig", "harbor_hostname", "harbor_user", "harbor_token")
TOLERATION_OPERATORS = ("Equal", "Exists")
TOLERATION_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
KUBECONFIG_CONTENT_RE = re.compile(r"(^|\s)(apiVersion|clusters|users|contexts|current-context)\s*:|^\s*[{\[]")
VARIABLE_PREFIX = "aips_"
CLUSTER = "cluster"

# Namespaces no model may use (aips_protected_namespaces adds the site's own; shell patterns): the collection
# labels a model namespace with its Pod Security level, and removal with storage deletes it. Kubernetes' own,
# the default namespace, Istio's (the Gateway controller, istio-system), the name the collection keeps for
# itself, and Harbor's (derived from aips_harbor_hostname when it is <service>.<namespace>.svc...).
PROTECTED_NAMESPACES = ("kube-*", "default", "kube-node-lease", "kube-public", "kube-system", "istio-system",
                        naming.LEASE_NAME)
PULL_IMAGE_RULE = "pull-image-off-harbor"


class Problem(object):
    """One validation finding. ``severity`` is ``error`` or ``warning``."""

    def __init__(self, model, field, value, problem, fix, severity="error"):
        self.model = model
        self.field = field
        self.value = value
        self.problem = problem
        self.fix = fix
        self.severity = severity

    def as_dict(self):
        return dict(model=self.model, field=self.field, value=self.value, problem=self.problem,
                    fix=self.fix, severity=self.severity, message=str(self))

    def __str__(self):
        shown = "" if self.value is None else " (got %r)" % (self.value,)
        return "%s: %s: %s%s. Fix: %s" % (self.model, self.field, self.problem, shown, self.fix)


def setting_field(key):
    return VARIABLE_PREFIX + key


def check_settings(settings, problems):
    provider = settings.get("cloud_provider")
    if provider not in PROVIDERS:
        problems.append(Problem(CLUSTER, setting_field("cloud_provider"), provider,
                                "the cloud provider must be one of %s" % ", ".join(PROVIDERS),
                                "set %s to cloud or on-prem" % setting_field("cloud_provider")))
    if provider == "on-prem":
        for key in ON_PREM_REQUIRED:
            if not settings.get(key):
                problems.append(Problem(CLUSTER, setting_field(key), None,
                                        "on-prem needs %s and it is not set" % key,
                                        "set %s (store secrets with Ansible Vault)" % setting_field(key)))
    _check_kubeconfig(settings.get("kubeconfig"), problems)
    toleration = settings.get("gpu_toleration")
    if toleration:
        _check_toleration(toleration, problems, settings.get("values_policy_allow"))
    models = settings.get("models")
    if models is None:
        models = {}
    if not isinstance(models, dict):
        problems.append(Problem(CLUSTER, setting_field("models"), type(models).__name__,
                                "the models must be a mapping of category to list",
                                "write %s as {generative: [...], embedder: [...]}" % setting_field("models")))
        return {}
    for category in sorted(set(models) - set(CATEGORIES), key=str):
        problems.append(Problem(CLUSTER, "%s.%s" % (setting_field("models"), category), category,
                                "unknown model category",
                                "list models under generative or embedder only"))
    return models


def _check_kubeconfig(kubeconfig, problems):
    """A path belongs here; a kubeconfig's contents (YAML with credentials) is refused, and never shown."""
    if not kubeconfig:
        return
    field = setting_field("kubeconfig")
    if not isinstance(kubeconfig, str):
        problems.append(Problem(CLUSTER, field, type(kubeconfig).__name__, "the kubeconfig must be a file path",
                                "set %s to the path of the kubeconfig file" % field))
        return
    if "\n" in kubeconfig or KUBECONFIG_CONTENT_RE.search(kubeconfig):
        problems.append(Problem(CLUSTER, field, "<%d characters of kubeconfig contents, not shown>" % len(kubeconfig),
                                "this holds a kubeconfig's contents where its path belongs (the contents carry "
                                "credentials and would be logged as a path)",
                                "write the kubeconfig to a file readable only by you and set %s to its path "
                                "(e.g. ~/.kube/rke2-cluster.yaml)" % field))


def _check_toleration(toleration, problems, allow=None):
    field = setting_field("gpu_toleration")
    if not isinstance(toleration, dict):
        problems.append(Problem(CLUSTER, field, toleration, "the toleration must be a mapping",
                                "write it as {key: ..., operator: Equal, value: ..., effect: NoSchedule}"))
        return
    if not toleration.get("key") and toleration.get("operator") == "Exists" \
            and not values_policy.allowed({"slug": "*", "name": "*"}, "tolerate-everything", "gpu_toleration", allow):
        problems.append(Problem(CLUSTER, field, toleration,
                                "a toleration with operator Exists and no key tolerates every taint: the model pods and "
                                "the pull Job could land on control-plane nodes",
                                "set key to the GPU taint's key (e.g. nvidia.com/gpu), or allow it in %s with {model: "
                                "'*', rule: tolerate-everything, key: gpu_toleration, reason: <why>}"
                                % setting_field("values_policy_allow")))
    unknown = sorted(set(toleration) - {"key", "operator", "value", "effect", "tolerationSeconds"})
    if unknown:
        problems.append(Problem(CLUSTER, field, unknown, "unknown toleration keys",
                                "use only key, operator, value, effect and tolerationSeconds"))
    operator = toleration.get("operator", "Equal")
    if operator not in TOLERATION_OPERATORS:
        problems.append(Problem(CLUSTER, field + ".operator", operator, "the operator must be Equal or Exists",
                                "set operator: Equal (with a value) or Exists"))
    if not toleration.get("key") and operator != "Exists":
        problems.append(Problem(CLUSTER, field + ".key", None, "a toleration with operator Equal needs a key",
                                "set key to the taint's key, e.g. dedicated"))
    if operator == "Equal" and toleration.get("value") in (None, ""):
        problems.append(Problem(CLUSTER, field + ".value", None, "operator Equal needs a value",
                                "set value to the taint's value, e.g. gpu, or use operator: Exists"))
    if operator == "Exists" and toleration.get("value") not in (None, ""):
        problems.append(Problem(CLUSTER, field + ".value", toleration.get("value"),
                                "a toleration with operator Exists must have no value (Kubernetes rejects it)",
                                "remove value to tolerate every value of the key, or use operator: Equal"))
    key = toleration.get("key")
    if key:
        why = naming.label_key_problem(key)
        if why:
            problems.append(Problem(CLUSTER, field + ".key", key, why + " (taint keys are label keys)",
                                    "set key to the taint's key as the node shows it, e.g. nvidia.com/gpu"))
    if toleration.get("tolerationSeconds") is not None and toleration.get("effect") != "NoExecute":
        problems.append(Problem(CLUSTER, field + ".tolerationSeconds", toleration.get("tolerationSeconds"),
                                "tolerationSeconds applies only to effect NoExecute (Kubernetes rejects it otherwise)",
                                "remove tolerationSeconds, or set effect: NoExecute"))
    effect = toleration.get("effect")
    if effect is not None and effect not in TOLERATION_EFFECTS:
        problems.append(Problem(CLUSTER, field + ".effect", effect, "unknown taint effect",
                                "use one of %s, as on the node's taint" % ", ".join(TOLERATION_EFFECTS)))


def check_collisions(records, problems, values=None):
    """Problems of models that would share something: slug, infra release, hostPath directory, claim, a name in a
    namespace (after chart truncation), a claim mounted through another model's values file (``values``: slug ->
    {chart: parsed values}). Each names both models and the field."""
    _check_hostpaths(records, problems)
    owners = _check_claims(records, problems)
    _check_values_claims(records, problems, values or {}, owners)
    seen = {}
    clashing = set()
    for record in records:
        key = record["slug"]
        if key in seen:
            clashing.add(key)
            problems.append(Problem(record["category"] + "/" + record["name"], "slug", key,
                                    "the slug is also used by %s; names and namespaces would collide" % seen[key],
                                    "give one of the two models a different slug (rename its gaie-/ms- folders)"))
        else:
            seen[key] = record["category"] + "/" + record["name"]
    releases = {}
    for record in records:
        if record["slug"] in clashing:
            continue
        key = (record["namespace"], record["names"]["infra_release"])
        label = record["category"] + "/" + record["name"]
        if key in releases and releases[key] != label:
            problems.append(Problem(label, "releaseName", key[1],
                                    "release %s in namespace %s is also used by %s" % (key[1], key[0], releases[key]),
                                    "set a different releaseName or nameSpace"))
        releases.setdefault(key, label)
    _check_names(records, problems, clashing)


def check_sync(records, settings, problems):
    """Where aips_models and model_sync_models name the same artifact or the same Hugging Face repo,
    they must agree: one problem per disagreeing field, with both values and the fix."""
    published = []
    for entry in settings.get("sync_models") or []:
        try:
            published.append(dict(entry, oci=reference.parse_oci_reference(entry["reference"])))
        except (ValueError, KeyError, TypeError):
            continue  # the model_sync role reports a malformed entry itself
    for record in records:
        storage = record["storage"]
        if storage.get("mode") != STORAGE_HARBOR:
            continue
        label = "%s/%s" % (record["category"], record["name"])
        oci, repo_id = storage["oci"], storage["repo_id"]
        same_artifact = [p for p in published if (p["oci"]["registry"], p["oci"]["repository"])
                         == (oci["registry"], oci["repository"])]
        for entry in same_artifact:
            if entry["repo_id"] != repo_id:
                problems.append(Problem(label, "modelSource.modelUri", storage["model_uri"],
                                        "model_sync_models publishes %s to %s, while modelUri names %s"
                                        % (entry["repo_id"], entry["reference"], repo_id),
                                        "set modelUri to hub/%s, or fix repo_id (or artifact) of the model_sync_models "
                                        "entry" % entry["repo_id"]))
        if oci["tag"] and same_artifact and not any(p["oci"]["tag"] == oci["tag"] for p in same_artifact):
            problems.append(Problem(label, "modelSource.harborRef", oci["reference"],
                                    "the tag %s is not what model_sync_models publishes for this artifact (%s)"
                                    % (oci["tag"], ", ".join(p["reference"] for p in same_artifact)),
                                    "set harborRef to %s, or the tag of the model_sync_models entry to %s"
                                    % (same_artifact[0]["reference"], oci["tag"])))
        same_repo = [p for p in published if p["repo_id"] == repo_id]
        if same_repo and not same_artifact:
            problems.append(Problem(label, "modelSource.harborRef", oci["reference"],
                                    "model_sync_models publishes %s as %s, not to this artifact"
                                    % (repo_id, ", ".join(p["reference"] for p in same_repo)),
                                    "set harborRef to %s, or project/artifact/tag of the model_sync_models entry "
                                    "to match harborRef" % same_repo[0]["reference"]))


def format_problems(problems):
    """One failure message listing every error."""
    errors = [p for p in problems if p.severity == "error"]
    lines = ["The model plan has %d problem%s:" % (len(errors), "" if len(errors) == 1 else "s")]
    lines.extend("  - %s" % p for p in errors)
    return "\n".join(lines)


def harbor_namespace(harbor_hostname):
    """The namespace of an in-cluster Harbor (``<service>.<namespace>.svc[.<domain>]``), else None."""
    if not isinstance(harbor_hostname, str):
        return None
    labels = harbor_hostname.split(":", 1)[0].lower().split(".")
    if len(labels) >= 3 and labels[2] == "svc" and labels[1]:
        return labels[1]
    return None


def protected_namespaces(settings):
    """``[(pattern, why)]``: the default list, Harbor's namespace and the site's aips_protected_namespaces."""
    found = [(pattern, "a namespace the collection does not own") for pattern in PROTECTED_NAMESPACES]
    harbor = harbor_namespace(settings.get("harbor_hostname"))
    if harbor:
        found.append((harbor, "Harbor's namespace (%s)" % settings.get("harbor_hostname")))
    extra = settings.get("protected_namespaces") or []
    if isinstance(extra, str):
        extra = [extra]
    found.extend((str(pattern), "listed in %s" % setting_field("protected_namespaces")) for pattern in extra
                 if pattern)
    return found


def check_namespace(namespace, overridden, settings):
    """``[(field, value, problem, fix)]`` when a model's namespace is a protected one."""
    for pattern, why in protected_namespaces(settings):
        if fnmatch.fnmatchcase(namespace, pattern):
            field = "nameSpace" if overridden else "slug"
            return [(field, namespace,
                     "the namespace %s is protected (%s, matches %s): the collection labels a model's namespace "
                     "and removal with storage deletes it" % (namespace, why, pattern),
                     "set nameSpace to a namespace of the model's own (the default is llm-d-<slug>)"
                     if overridden else "rename the slug folders, or set nameSpace to a namespace of the model's own")]
    return []


def _host(registry):
    """The host name of ``host[:port]``, lower case: the pull image on Harbor's host counts as Harbor's whatever port
    either names (a Harbor reached on another port, the tests' relay in front of it); another host never does."""
    host = registry.lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def check_pull_image(image, slug, name, settings):
    """``[(field, value, problem, fix)]`` for the pull Job image: a reference, on Harbor on-prem.

    The pull Job mounts harbor-creds; on-prem its image comes from Harbor, unless a values policy exception
    (``aips_values_policy_allow``, rule pull-image-off-harbor) names the model.
    """
    field = setting_field("oras_image") if settings.get("oras_image") else setting_field("images")
    try:
        parts = reference.parse_oci_reference(image)
    except ValueError as exc:
        return [(field, image, "the pull Job's ORAS image is not a usable reference: %s" % exc,
                 "write host/project/oras:<tag> (on-prem on %s)" % (settings.get("harbor_hostname") or "Harbor"))]
    harbor = settings.get("harbor_hostname")
    if settings.get("cloud_provider") != "on-prem" or not harbor or _host(parts["registry"]) == _host(harbor):
        return []
    model = {"slug": slug, "name": name}
    if values_policy.allowed(model, PULL_IMAGE_RULE, "oras_image", settings.get("values_policy_allow")):
        return []
    problem = "on-prem the pull Job image must come from Harbor (%s), not %s: the Job mounts harbor-creds" % (
        harbor, parts["registry"])
    fix = ("mirror the image into Harbor (harbor_upload) and point %s at it, or allow it in %s with {model: %s, "
           "rule: %s, key: oras_image, reason: <why>}" % (field, setting_field("values_policy_allow"), slug,
                                                          PULL_IMAGE_RULE))
    return [(field, image, problem, fix)]


def _label(record):
    return "%s/%s" % (record["category"], record["name"])


def _nested(one, other):
    return one == other or other.startswith(one.rstrip("/") + "/") or one.startswith(other.rstrip("/") + "/")


def _check_hostpaths(records, problems):
    """One owner per hostPath directory per node: no two models on equal or nested directories."""
    seen = []
    for record in records:
        storage = record["storage"]
        node, directory = storage.get("hostpath_node"), storage.get("hostpath_dir")
        if not node or not directory:
            continue
        for other, other_node, other_dir in seen:
            if other_node.lower() == node.lower() and _nested(directory, other_dir):
                how = "is" if directory == other_dir else "is nested with"
                problems.append(Problem(
                    _label(record), "modelSource.hostpathDir", directory,
                    "the hostPath directory %s %s %s's %s on node %s: two PVs on one directory, each pull replaces "
                    "or prunes the other's weights" % (directory, how, _label(other), other_dir, node),
                    "give one of the two models its own directory (hostpathDir, or drop it for <root>/<slug>) "
                    "that neither contains nor lies inside the other's"))
                break
        seen.append((record, node, directory))


def _claims(record):
    """``[(claim, managed, sub_path)]`` the model holds in its namespace."""
    storage = record["storage"]
    if storage.get("mode") == STORAGE_HARBOR:
        return [(storage["pvc"], True, None)]
    if storage.get("mode") == STORAGE_CLAIM:
        return [(storage["claim"], False, storage["sub_path"])]
    return []


def _check_claims(records, problems):
    """One owner per claim: a managed claim is its model's alone; user claims only on disjoint sub-paths."""
    owners = {}
    for record in records:
        for claim, managed, sub_path in _claims(record):
            key = (record["namespace"], claim)
            for other, other_managed, other_path in owners.get(key, []):
                if managed or other_managed:
                    whose = record if managed else other
                    problems.append(Problem(
                        _label(record), "modelSource", claim,
                        "the claim %s in namespace %s is the one the collection manages for %s, which it re-pulls, "
                        "prunes and clears" % (claim, key[0], _label(whose)),
                        "serve %s from a claim of its own (a pvc:// claim you own, or a Harbor modelSource)"
                        % _label(record)))
                elif _nested(sub_path, other_path):
                    problems.append(Problem(
                        _label(record), "modelSource", claim,
                        "the claim %s in namespace %s is also %s's, on the same or a nested sub-path (%s, %s)"
                        % (claim, key[0], _label(other), sub_path, other_path),
                        "give each model its own directory on the claim, or its own claim"))
            owners.setdefault(key, []).append((record, managed, sub_path))
    return owners


# name keys that share one kind's namespace-wide name space: Helm releases, Services
_NAME_GROUPS = (("Helm release", stacks.release_keys()),
                ("Service", ("epp_service", "gateway_service", "embeddings_service")))


def _check_names(records, problems, skip):
    """One owner per name in a namespace, after the charts' own truncation (the EPP's 40 characters)."""
    for what, keys in _NAME_GROUPS:
        owners = {}
        for record in records:
            if record["slug"] in skip:
                continue
            for key in keys:
                name = record["names"][key]
                index = (record["namespace"], name)
                other = owners.get(index)
                if other is None:
                    owners[index] = (record, key)
                    continue
                if other[0] is record or (key == other[1] == "infra_release"):
                    continue  # one model's own names; two infra releases: check_collisions' releaseName message
                why = ""
                if key == "epp_service":
                    why = (" (inferencepool names its endpoint picker's Service and Deployment after the release cut "
                           "to %d characters, so slugs that agree in their first %d characters collide)"
                           % (naming.EPP_RELEASE_MAX, naming.EPP_RELEASE_MAX - len(naming.GAIE_PREFIX)))
                problems.append(Problem(
                    _label(record), "slug", record["slug"],
                    "the %s name %s in namespace %s is also %s's%s" % (what, name, index[0], _label(other[0]), why),
                    "make the two slugs differ within their first %d characters, or give one model its own nameSpace"
                    % (naming.EPP_RELEASE_MAX - len(naming.GAIE_PREFIX)) if key == "epp_service"
                    else "rename one model's slug folders or releaseName, or give one model its own nameSpace"))


def _mounted_claims(values, path=""):
    """``(key path, claim)`` of every persistentVolumeClaim and pvc:// model URI in a values tree."""
    stack = [(path, values)]
    while stack:
        here, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                where = "%s.%s" % (here, key) if here else str(key)
                if key == "persistentVolumeClaim" and isinstance(value, dict) and isinstance(value.get("claimName"), str):
                    yield where + ".claimName", value["claimName"]
                elif key == "uri" and isinstance(value, str) and value.startswith((src.PVC_SCHEME, src.PVC_HF_SCHEME)):
                    yield where, value.split("://", 1)[1].split("/", 1)[0].split(":")[-1]
                else:
                    stack.append((where, value))
        elif isinstance(node, list):
            stack.extend(("%s[%d]" % (here, position), item) for position, item in enumerate(node))


def _check_values_claims(records, problems, values, owners):
    """A values file may not mount a claim another model of its namespace holds (writable or not)."""
    for record in records:
        for chart, tree in sorted((values.get(record["slug"]) or {}).items()):
            if not isinstance(tree, dict):
                continue
            for where, claim in _mounted_claims(tree):
                if where == "modelArtifacts.uri" and record.get("model_artifacts_uri"):
                    continue  # the plan's own URI replaces it
                for other, _managed, _sub in owners.get((record["namespace"], claim), []):
                    if other is record:
                        continue
                    problems.append(Problem(
                        _label(record), "values_files.%s" % chart, "%s = %s" % (where, claim),
                        "%s mounts the claim %s of %s (%s): its pods could read or overwrite the other model's "
                        "weights" % (record["values_files"][chart], claim, _label(other), where),
                        "remove the volume from %s; each model mounts only its own claim" % record["values_files"][chart]))
                    break


def check_embedded_yaml(records, values, problems):
    """YAML texts inside the values (the EPP plugin configs, stack/offline.py:plugin_configs) read under the safe
    reader's limits at plan time: an alias bomb or nesting too deep in one fails the plan, naming the model, the
    values file and the key, before any play changes anything (serving_stack would otherwise parse it later)."""
    for record in records:
        tree = (values.get(record["slug"]) or {}).get("gaie")
        if not isinstance(tree, dict):
            continue
        path = record["values_files"]["gaie"]
        for key, reason, fix in offline.plugin_configs(tree, path)[1]:
            problems.append(Problem(_label(record), "values_files.gaie", None,
                                    "%s: %s: %s" % (path, key, reason), fix))


def check_values_policy(records, values, settings, problems):
    """The values policy (stack/values_policy.py) on every model's values files, at plan time: a refused key fails
    the plan before any play changes anything. ``values``: slug -> {chart: parsed values}. The exceptions are
    ``values_policy_allow`` (aips_values_policy_allow); a claim of another model of the plan is left to
    check_collisions, which names both models."""
    allow = settings.get("values_policy_allow")
    for text in values_policy.allow_problems(allow):
        problem, _sep, fix = text.partition(" Fix: ")
        problems.append(Problem(CLUSTER, setting_field("values_policy_allow"), None, problem.rstrip("."),
                                fix.rstrip(".") or "correct the entry"))
    check_embedded_yaml(records, values, problems)
    held = {}
    for record in records:
        for claim, _managed, _sub in _claims(record):
            held.setdefault((record["namespace"], claim), set()).add(record["slug"])
    for record in records:
        for chart in ("gaie", "ms"):
            tree = (values.get(record["slug"]) or {}).get(chart)
            if not isinstance(tree, dict):
                continue
            path = record["values_files"][chart]
            for rule, key, value in values_policy.findings(record, tree, chart):
                claim = str(value).rsplit("://", maxsplit=1)[-1].split("/", maxsplit=1)[0].rsplit(":", maxsplit=1)[-1]
                if rule == "other-claims" and held.get((record["namespace"], claim)):
                    continue
                if values_policy.allowed(record, rule, key, allow):
                    continue
                refused = "%s = %s is refused by the values policy (%s: %s)" % (
                    key, values_policy.shown(value), rule, values_policy.RULES[rule])
                entry = "allow it for this model in %s with {model: %s, rule: %s, key: %s, reason: <why>}" % (
                    setting_field("values_policy_allow"), record["slug"], rule, key)
                # the namespaces' Pod Security level refuses it too: the fix names both knobs (issue 26)
                both = values_policy.pod_security_fix(rule, value, settings.get("pod_security"))
                if both:
                    enforced, needed, fixed = both
                    problems.append(Problem(
                        _label(record), path, None,
                        "%s and by Pod Security %s, the level the model namespaces enforce (%s)"
                        % (refused, enforced, values_policy.POD_SECURITY_VARIABLE),
                        "remove it, or apply both: %s and set %s to %s (every model namespace; the pods need %s); "
                        "either one alone does not deploy" % (entry, values_policy.POD_SECURITY_VARIABLE, fixed, needed)))
                    continue
                problems.append(Problem(_label(record), path, None, refused, "remove it, or " + entry))
