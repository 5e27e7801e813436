# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What a removal with storage may delete: whole namespaces, or only the removed models' own objects.

serving_stack (``serving_stack_state: absent`` with ``serving_stack_remove_storage``) reads each removed model's
namespace and the objects left in it after the releases went (the module ``serving_stack_removal``), and this
module decides. A namespace is deleted only when all of these hold:

- it carries the collection's label ``app.kubernetes.io/managed-by=ai_platform.serving``, which model_namespace
  puts only on a namespace it created (never on one it found);
- no model of the plan that is not being removed lives in it (the seed's ``nameSpace`` override lets models share
  one), and no object of another model of the collection (its slug label) is left in it;
- no model removed with it serves from a user-owned claim (``pvc://``), which is never deleted;
- no object the collection did not make is left in it, among the kinds of ``INSPECTED_KINDS``.

Otherwise the namespace stays, with one report line naming it, why it stays and what remains; the removed models'
own objects in it go one by one instead (``model_objects``): their claim, Jobs (pull, clear, prune), the Job
pods' NetworkPolicy, their release records, and, when no model is left in the namespace, the namespace's
``harbor-creds`` and Lease of the collection.

Objects that never count as remaining: those being deleted (``deletionTimestamp``), those a removed model owns
(its slug label, its names, its Helm releases' objects, its Jobs' pods), the namespace's own (the
``kube-root-ca.crt`` and ``istio-ca-root-cert`` ConfigMaps, the ``default`` ServiceAccount and its token
Secret), and objects owned (ownerReferences) by one of those or by an object that is already gone. An object
owned by a kind outside ``INSPECTED_KINDS`` (a custom resource) counts as the owner's: it remains.

Pure functions on plain dicts (the objects as the API returns them); unit-tested on fixtures.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

# (apiVersion, kind) listed in each namespace a removal with storage would delete: what a user or another tool
# most often leaves in a namespace. Kinds the API does not serve are skipped.
INSPECTED_KINDS = (
    ("v1", "Pod"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("apps/v1", "ReplicaSet"),
    ("batch/v1", "Job"),
    ("batch/v1", "CronJob"),
    ("v1", "Service"),
    ("v1", "ConfigMap"),
    ("v1", "Secret"),
    ("v1", "PersistentVolumeClaim"),
    ("v1", "ServiceAccount"),
    ("rbac.authorization.k8s.io/v1", "Role"),
    ("rbac.authorization.k8s.io/v1", "RoleBinding"),
    ("networking.k8s.io/v1", "NetworkPolicy"),
    ("networking.k8s.io/v1", "Ingress"),
    ("gateway.networking.k8s.io/v1", "HTTPRoute"),
    ("gateway.networking.k8s.io/v1", "Gateway"),
    ("coordination.k8s.io/v1", "Lease"),
)
INSPECTED = frozenset(kind for _api, kind in INSPECTED_KINDS)

# What every namespace holds from its creation on (kube-controller-manager, Istio's CA publisher).
NAMESPACE_OWN = {
    "ConfigMap": ("kube-root-ca.crt", "istio-ca-root-cert"),
    "ServiceAccount": ("default",),
}
HELM_RELEASE_ANNOTATION = "meta.helm.sh/release-name"
HELM_INSTANCE_LABEL = "app.kubernetes.io/instance"
HELM_SECRET_TYPE = "helm.sh/release.v1"
JOB_NAME_LABELS = ("batch.kubernetes.io/job-name", "job-name")
GATEWAY_NAME_LABEL = "gateway.networking.k8s.io/gateway-name"
SA_TOKEN_TYPE = "kubernetes.io/service-account-token"
SA_NAME_ANNOTATION = "kubernetes.io/service-account.name"
# How many remaining objects a report line names before "and N more".
REPORT_MAX = 8


def _meta(obj):
    return (obj or {}).get("metadata") or {}


def _labels(obj):
    return _meta(obj).get("labels") or {}


def _ident(obj):
    return "%s %s" % (obj.get("kind"), _meta(obj).get("name"))


def model_own_names(record):
    """kind -> names of the objects one model has in its namespace, from its plan record."""
    names = record.get("names") or {}
    storage = record.get("storage") or {}
    slug = record["slug"]
    own = {
        "Job": [storage.get(key) for key in ("pull_job", "clear_job", "prune_job")],
        "ConfigMap": [naming.slug_name("release_digests", slug), names.get("gateway_defaults")],
        "Service": [names.get(key) for key in ("embeddings_service", "gateway_service", "epp_service", "router_epp")],
        "HTTPRoute": [names.get("httproute")],
        "Gateway": [names.get("gateway")],
        "NetworkPolicy": [naming.slug_name("job_network_policy", slug)],
    }
    if storage.get("mode") == "harbor":
        own["PersistentVolumeClaim"] = [storage.get("pvc")]
    return dict((kind, set(n for n in found if n)) for kind, found in own.items())


def names_of_releases(record):
    """The release names of ``record`` of every stack (stacks.all_release_keys): the seed's and the router's."""
    names = record.get("names") or {}
    return [names[key] for key in stacks.all_release_keys() if names.get(key)]


def _is_models(obj, records):
    """True when ``obj`` is an object of one of the models of ``records`` (all in its namespace)."""
    meta, labels = _meta(obj), _labels(obj)
    kind, name = obj.get("kind"), meta.get("name")
    if labels.get(naming.LABEL_MANAGED_BY) == naming.MANAGED_BY and labels.get(naming.LABEL_SLUG) in \
            set(r["slug"] for r in records):
        return True
    for record in records:
        if name in model_own_names(record).get(kind, ()):
            return True
        # both stacks' releases: a model that moved may have left the other stack's (llm-d v0.10 router included)
        releases = set(names_of_releases(record))
        if (meta.get("annotations") or {}).get(HELM_RELEASE_ANNOTATION) in releases:
            return True
        if labels.get(HELM_INSTANCE_LABEL) in releases:
            return True
        if kind == "Secret" and obj.get("type") == HELM_SECRET_TYPE and labels.get("name") in releases:
            return True
        jobs = model_own_names(record)["Job"]
        if kind == "Pod" and any(labels.get(key) in jobs for key in JOB_NAME_LABELS):
            return True
        if labels.get(GATEWAY_NAME_LABEL) and labels.get(GATEWAY_NAME_LABEL) in model_own_names(record)["Gateway"]:
            return True
    return False


def _is_namespace_own(obj):
    kind, meta = obj.get("kind"), _meta(obj)
    if meta.get("name") in NAMESPACE_OWN.get(kind, ()):
        return True
    return (kind == "Secret" and obj.get("type") == SA_TOKEN_TYPE
            and (meta.get("annotations") or {}).get(SA_NAME_ANNOTATION) in NAMESPACE_OWN["ServiceAccount"])


def _is_collection_shared(obj):
    """The collection's namespace-level objects (harbor-creds, the Lease): managed, no slug label."""
    labels = _labels(obj)
    return labels.get(naming.LABEL_MANAGED_BY) == naming.MANAGED_BY and not labels.get(naming.LABEL_SLUG)


def other_model_slug(obj, removed_slugs):
    """The slug of the collection's model ``obj`` belongs to, when that model is not being removed; else None."""
    labels = _labels(obj)
    slug = labels.get(naming.LABEL_SLUG)
    if labels.get(naming.LABEL_MANAGED_BY) == naming.MANAGED_BY and slug and slug not in removed_slugs:
        return slug
    return None


def remaining_objects(objects, models):
    """The objects of one namespace that are neither the objects of ``models`` (the records of that namespace:
    those removed and those that stay) nor the namespace's own nor the collection's shared ones.

    ``objects``: what the API listed in the namespace (each with kind and metadata). Returns the objects that
    count (see the module doc), in the order listed, each told once: an object whose owner counts is left to it.
    """
    live = [obj for obj in objects if not _meta(obj).get("deletionTimestamp")]
    by_uid = dict((_meta(obj).get("uid"), obj) for obj in live if _meta(obj).get("uid"))
    gone = set()  # uids that do not count: removed models', the namespace's own, the collection's shared ones
    for obj in live:
        if _is_models(obj, models) or _is_namespace_own(obj) or _is_collection_shared(obj):
            gone.add(_meta(obj).get("uid") or id(obj))

    def counts(obj, seen=()):
        uid = _meta(obj).get("uid") or id(obj)
        if uid in gone:
            return False
        owners = _meta(obj).get("ownerReferences") or []
        if not owners:
            return True
        for owner in owners:
            if owner.get("uid") in seen:
                continue
            parent = by_uid.get(owner.get("uid"))
            if parent is not None:
                if counts(parent, tuple(seen) + (uid,)):
                    return True
            elif owner.get("kind") not in INSPECTED:
                # owned by a kind not listed (a custom resource): counts, unless it is a removed model's Gateway
                if not (owner.get("kind") == "Gateway"
                        and any(owner.get("name") in model_own_names(r)["Gateway"] for r in models)):
                    return True
            # an owner of a listed kind that is not there any more: garbage the collector removes
        return False

    counting = [obj for obj in live if counts(obj)]
    # an object whose owner counts is told through its owner (the Deployment, not its ReplicaSet and pods)
    roots = set(_meta(obj).get("uid") for obj in counting if _meta(obj).get("uid"))
    return [obj for obj in counting
            if not any(owner.get("uid") in roots for owner in _meta(obj).get("ownerReferences") or [])]


def describe(objects, limit=REPORT_MAX):
    """``Deployment web, ConfigMap settings and 3 more``."""
    shown = [_ident(obj) for obj in objects[:limit]]
    more = len(objects) - len(shown)
    return ", ".join(shown) + (" and %d more" % more if more > 0 else "")


def decide(removed, plan_records, namespaces, objects, unlisted=None):
    """The removal of the namespaces of ``removed`` (the records being removed with their storage).

    ``plan_records``: every record of the plan (the models that stay among them); ``namespaces``: name -> the
    live Namespace (None when it does not exist); ``objects``: name -> the objects listed in it; ``unlisted``:
    name -> the kinds that could not be listed there (a refused list keeps the namespace: what it holds is unknown).

    Returns ``{"delete": [namespace], "kept": [{namespace, reasons, remaining, message}],
    "model_objects": [{apiVersion, kind, name, namespace, slug}]}``: the namespaces to delete, the ones kept with
    their report line, and the removed models' own objects to delete one by one in the kept namespaces.
    """
    removed_slugs = set(r["slug"] for r in removed)
    by_namespace = {}
    for record in removed:
        by_namespace.setdefault(record["namespace"], []).append(record)
    result = {"delete": [], "kept": [], "model_objects": []}
    for namespace in sorted(by_namespace):
        records = by_namespace[namespace]
        live = namespaces.get(namespace)
        if live is None:
            continue
        reasons = []
        if not naming.created_by_collection(live):
            reasons.append("the collection did not create it (no %s=%s label)"
                           % (naming.LABEL_MANAGED_BY, naming.MANAGED_BY))
        staying = [r for r in plan_records or [] if r.get("namespace") == namespace and r["slug"] not in removed_slugs]
        if staying:
            reasons.append("model%s %s of the plan still live%s in it" % (
                "s" if len(staying) > 1 else "", ", ".join("%s (%s)" % (r.get("name"), r["slug"]) for r in staying),
                "" if len(staying) > 1 else "s"))
        listed = objects.get(namespace) or []
        others = sorted(set(s for s in (other_model_slug(obj, removed_slugs) for obj in listed) if s)
                        - set(r["slug"] for r in staying))
        if others:
            reasons.append("objects of model%s %s (not in this removal) are in it"
                           % ("s" if len(others) > 1 else "", ", ".join(others)))
        claims = [r for r in records if (r.get("storage") or {}).get("mode") == "claim"]
        if claims:
            reasons.append("%s serve%s from a user-owned claim (%s), never deleted" % (
                ", ".join(r["slug"] for r in claims), "s" if len(claims) == 1 else "",
                ", ".join((r.get("storage") or {}).get("claim") or "?" for r in claims)))
        remaining = [obj for obj in remaining_objects(listed, records + staying)
                     if not other_model_slug(obj, removed_slugs)]
        if remaining:
            reasons.append("objects the collection did not make are in it")
        if (unlisted or {}).get(namespace):
            reasons.append("its %s could not be listed" % ", ".join(sorted((unlisted or {})[namespace])))
        if not reasons:
            result["delete"].append(namespace)
            continue
        message = "%s: kept the namespace: %s; remains: %s" % (
            namespace, "; ".join(reasons), describe(remaining) if remaining else "no object of another kind")
        result["kept"].append({"namespace": namespace, "reasons": reasons,
                               "remaining": [_ident(obj) for obj in remaining], "message": message})
        result["model_objects"].extend(model_objects(records, namespace, listed, models_left=bool(staying or others)))
    return result


def model_objects(records, namespace, listed, models_left):
    """The removed models' own objects in a namespace that stays, to delete one by one: their Jobs and the Job
    pods' NetworkPolicy, then their claims (a user-owned pvc:// claim never), then, only when no model is left
    there, the namespace's harbor-creds and Lease. Only objects listed there and labelled as the collection's
    (an object of that name the collection did not make stays)."""
    managed = set((obj.get("kind"), _meta(obj).get("name")) for obj in listed
                  if _labels(obj).get(naming.LABEL_MANAGED_BY) == naming.MANAGED_BY)
    found = []
    for record in records:
        storage = record.get("storage") or {}
        slug = record["slug"]
        for key in ("pull_job", "clear_job", "prune_job"):
            if storage.get(key):
                found.append(("batch/v1", "Job", storage[key], slug))
        found.append(("networking.k8s.io/v1", "NetworkPolicy", naming.slug_name("job_network_policy", slug), slug))
    for record in records:
        storage = record.get("storage") or {}
        if storage.get("mode") == "harbor" and storage.get("pvc"):
            found.append(("v1", "PersistentVolumeClaim", storage["pvc"], record["slug"]))
    if not models_left:
        secret = (records[0].get("names") or {}).get("harbor_pull_secret") or naming.HARBOR_PULL_SECRET
        found.append(("v1", "Secret", secret, None))
        found.append(("coordination.k8s.io/v1", "Lease", naming.LEASE_NAME, None))
    return [{"apiVersion": api, "kind": kind, "name": name, "namespace": namespace, "slug": slug}
            for api, kind, name, slug in found if (kind, name) in managed]
