# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model plan's checks that are not one model entry's, and the problems every check reports.

``Problem`` is one finding (model, field, value, what is wrong, how to fix it; an error or a
warning); ``format_problems`` is the one failure message listing every error. ``check_settings``
checks the cluster settings (provider, on-prem credentials, the kubeconfig path, the GPU
toleration, the models mapping); ``check_collisions`` and ``check_sync`` check the built records
against each other and against ``model_sync_models``. plan.py checks each model entry and builds
its record.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan_schema import CATEGORIES, PROVIDERS, STORAGE_HARBOR
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference

ON_PREM_REQUIRED = ("kubeconfig", "harbor_hostname", "harbor_user", "harbor_token")
TOLERATION_OPERATORS = ("Equal", "Exists")
TOLERATION_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
KUBECONFIG_CONTENT_RE = re.compile(r"(^|\s)(apiVersion|clusters|users|contexts|current-context)\s*:|^\s*[{\[]")
VARIABLE_PREFIX = "aips_"
CLUSTER = "cluster"


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
        _check_toleration(toleration, problems)
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


def _check_toleration(toleration, problems):
    field = setting_field("gpu_toleration")
    if not isinstance(toleration, dict):
        problems.append(Problem(CLUSTER, field, toleration, "the toleration must be a mapping",
                                "write it as {key: ..., operator: Equal, value: ..., effect: NoSchedule}"))
        return
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


def check_collisions(records, problems):
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
