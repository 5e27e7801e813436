# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The one place where names are derived: per-model resource names, labels, annotation keys, endpoints.

Every role, filter and module of the collection takes names from here (through
the model plan, its records or the name filters); none builds a name on its own.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

SLUG_MAX = 47
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
HELM_RELEASE_MAX = 53

SLUG_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?\Z")
DNS_LABEL_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?\Z")
DNS_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\Z")

GAIE_PREFIX = "gaie-"
MS_PREFIX = "ms-"
ROUTER_PREFIX = "router-"  # the llm-d v0.10 stack's router values folder and its Helm release
MODELSERVER_PREFIX = "modelserver-"  # the llm-d v0.10 stack's model server folder (Kustomize or manifests)

# The serving stacks a model may name (aips_serving_stack, a model's ``stack``): stack/stacks.py's, the seed's first.
SEED_STACK = stacks.SEED.name
V010_STACK = stacks.V010.name
ROUTER_MODES = tuple(sorted(stacks.ROUTER_MODES, key=lambda mode: mode != stacks.DEFAULT_ROUTER_MODE))
DEFAULT_ROUTER_MODE = stacks.DEFAULT_ROUTER_MODE
STACK_NAMES = (SEED_STACK,) + tuple(sorted(name for name in stacks.STACKS if name != SEED_STACK))
DEFAULT_STACK = stacks.DEFAULT_STACK
# stack -> the folder prefixes of its pair under models/<category>/<name>/ (the first holds the router's or
# GAIE's values.yaml, the second the model server's: ms-<slug>/values.yaml, or modelserver-<slug>/ manifests)
STACK_FOLDERS = {SEED_STACK: (GAIE_PREFIX, MS_PREFIX), V010_STACK: (ROUTER_PREFIX, MODELSERVER_PREFIX)}
HARBOR_PULL_SECRET = "harbor-creds"
GATEWAY_SUFFIX = "-inference-gateway"
LEASE_NAME = "ai-platform-serving"  # serialises model_storage runs in a model namespace (model_lease)

# The object that routes requests to a model, by its key in the names: the HTTPRoute of the
# Gateway (generative) or the embeddings Service (embedder). A record carries both names and
# its ``routing_kind``; the other name is the object to remove after a category change.
ROUTING_HTTPROUTE = "httproute"
ROUTING_EMBEDDINGS = "embeddings_service"
ROUTING_KINDS = (ROUTING_HTTPROUTE, ROUTING_EMBEDDINGS)

# One label set for every object the collection creates. The ``slug`` key is the one the pull
# Job's pod template, the claims and the cache listing have always carried (a Job template is
# immutable, so it stays); objects of the model cache add the component.
LABEL_MANAGED_BY = "app.kubernetes.io/managed-by"
LABEL_COMPONENT = "app.kubernetes.io/component"
LABEL_SLUG = "ai-platform.serving/slug"
HOSTNAME_LABEL = "kubernetes.io/hostname"  # the node label hostPath PVs, placement and Job affinity use
MANAGED_BY = "ai_platform.serving"
COMPONENT_MODEL_CACHE = "model-cache"
# serving_stack's record of what each release was deployed with (release_digest)
COMPONENT_RELEASE_DIGESTS = "release-digests"
ANNOTATION_PREFIX = "ai-platform.serving/"


def _name_limits(*rules):
    """NAME_LIMITS from ``(limit, why, {name key: what it names})`` rules, one rule per reason."""
    table = {}
    for limit, why, whats in rules:
        table.update((key, (what, limit, why)) for key, what in whats.items())
    return table


# name key -> (what it names, Kubernetes limit, why that limit applies)
NAME_LIMITS = _name_limits(
    (DNS_LABEL_MAX, "a namespace name is a DNS label", {"namespace": "Namespace"}),
    (HELM_RELEASE_MAX, "Helm release names are at most 53 characters",
     {"infra_release": "llm-d-infra Helm release", "gaie_release": "GAIE Helm release",
      "ms_release": "ModelService Helm release", "router_release": "llm-d-router Helm release"}),
    (DNS_LABEL_MAX, "llm-d-infra truncates the Gateway name to 63 characters, so the HTTPRoute would miss it",
     {"gateway": "Gateway"}),
    (DNS_SUBDOMAIN_MAX, "object names are DNS subdomains",
     {"httproute": "HTTPRoute", "pvc": "PersistentVolumeClaim", "pv": "PersistentVolume",
      "gateway_defaults": "gateway defaults ConfigMap"}),
    (DNS_LABEL_MAX, "the Job name becomes the job-name label of its pods, a label value of at most 63",
     {"pull_job": "pull Job", "clear_job": "clear Job", "prune_job": "prune Job"}),
    (DNS_LABEL_MAX, "a Service name is a DNS label",
     {"embeddings_service": "embeddings Service", "gateway_service": "ExternalName Service",
      "epp_service": "endpoint picker Service", "router_epp": "router endpoint picker Service"}),
)
# inferencepool v1.2.0 names its endpoint picker (Deployment, Service, DestinationRule) after the
# release, lowercased, trimmed and cut to this many characters, plus "-epp"; the llm-d-router charts the same.
EPP_RELEASE_MAX = 40
# the endpoint picker names (cut by the charts, so they never bind the slug) and the release each follows
EPP_KEYS = {"epp_service": "gaie_release", "router_epp": "router_release"}


def slug_problem(slug):
    """Return why ``slug`` is not a valid model slug, or None when it is."""
    if not isinstance(slug, str) or not slug:
        return "the slug is empty"
    if len(slug) > SLUG_MAX:
        return "the slug has %d characters, at most %d are allowed" % (len(slug), SLUG_MAX)
    if not SLUG_RE.match(slug):
        return ("the slug may hold only lowercase letters, digits and '-', "
                "and must start and end with a letter or digit")
    return None


def _folder_slugs(folder_names, prefix):
    return sorted(n[len(prefix):] for n in folder_names if n.startswith(prefix))


def slug_from_folders(folder_names, stack=None):
    """Find the slug from the sub-folder names of one model folder, as the seed scans them.

    The pair of the model's ``stack`` (STACK_FOLDERS; None: the seed's) is required: exactly one
    ``gaie-<slug>`` and one ``ms-<slug>`` folder (``router-<slug>`` and ``modelserver-<slug>`` for the
    llm-d v0.10 stack), with the same slug. The other stack's pair may sit beside it (a model moves
    between stacks by one inventory change), with the same slug; it is not read.
    Returns ``(slug, problems)``; ``slug`` is None when ``problems`` is not empty.
    Folders with other names are ignored.
    """
    stack = DEFAULT_STACK if stack is None else stack
    first, second = STACK_FOLDERS[stack]
    found = dict((prefix, _folder_slugs(folder_names, prefix)) for prefix in (first, second))
    problems = []
    for prefix in (first, second):
        if not found[prefix]:
            problems.append("no %s<slug>/ folder" % prefix)
        elif len(found[prefix]) > 1:
            problems.append("%d %s<slug>/ folders (%s), exactly one is allowed"
                            % (len(found[prefix]), prefix, ", ".join(prefix + s + "/" for s in found[prefix])))
    if problems:
        return None, problems
    if found[first][0] != found[second][0]:
        return None, ["%s%s/ and %s%s/ carry different slugs, they must be the same"
                      % (first, found[first][0], second, found[second][0])]
    slug = found[first][0]
    for other, prefixes in sorted(STACK_FOLDERS.items()):
        if other == stack:
            continue
        differing = ["%s%s/" % (prefix, theirs) for prefix in prefixes for theirs in _folder_slugs(folder_names, prefix)
                     if theirs != slug]
        if differing:
            problems.append("%s (the %s stack's folder%s) carr%s another slug than %s%s/ and %s%s/: one model folder "
                            "has one slug" % (", ".join(differing), other, "s" if len(differing) > 1 else "",
                                              "y" if len(differing) > 1 else "ies", first, slug, second, slug))
    if problems:
        return None, problems
    return slug, []


# The per-model names that follow from the slug alone, by key ("{slug}" stands for the slug).
SLUG_NAMES = {
    "gaie_release": GAIE_PREFIX + "{slug}",
    "ms_release": MS_PREFIX + "{slug}",
    # the llm-d v0.10 stack's router (llm-d-router chart); every record carries it, whatever its stack
    "router_release": ROUTER_PREFIX + "{slug}",
    "httproute": "llm-d-{slug}",
    "pvc": "{slug}-model",
    "pv": "{slug}-model-pv",
    "pull_job": "{slug}-model-pull",
    # empties the claim (playbooks/cache.yml), beside the pull Job
    "clear_job": "{slug}-model-clear",
    # removes the revisions the claim no longer keeps (serving_stack, after a rollout)
    "prune_job": "{slug}-model-prune",
    "embeddings_service": MS_PREFIX + "{slug}-embeddings",
    "gateway_service": "llmd-gateway-{slug}",
    "gateway_defaults": "gateway-defaults-{slug}",
    # the ConfigMap recording the digest each of a model's releases was deployed with (release_digest);
    # not a record name
    "release_digests": "{slug}-release-digests",
    # the NetworkPolicy of the model's Job pods (pull, clear, prune: manifests.job_network_policy); not a
    # record name
    "job_network_policy": "{slug}-model-jobs",
}


def slug_name(key, slug):
    """The SLUG_NAMES ``key`` name of ``slug``."""
    return SLUG_NAMES[key].format(slug=slug)


def model_namespace(slug, override=None):
    return override or "llm-d-%s" % slug


def infra_release_name(slug, override=None):
    return override or "infra-%s" % slug


def gateway_name(slug, infra_release=None):
    """llm-d-infra names its Gateway ``<release>-inference-gateway``."""
    return infra_release_name(slug, infra_release) + GATEWAY_SUFFIX


def epp_service_name(gaie_release):
    """The GAIE chart's endpoint picker Service: ``<release, at most 40 characters>-epp`` (the llm-d-router
    charts name theirs by the same rule)."""
    return "%s-epp" % gaie_release.lower().strip()[:EPP_RELEASE_MAX]


def resource_names(slug, namespace=None, release_name=None):
    """Every per-model name, keyed as in NAME_LIMITS."""
    names = dict((key, slug_name(key, slug)) for key in SLUG_NAMES if key in NAME_LIMITS)
    names.update(namespace=model_namespace(slug, namespace), infra_release=infra_release_name(slug, release_name),
                 gateway=gateway_name(slug, release_name), epp_service=epp_service_name(names["gaie_release"]),
                 router_epp=epp_service_name(names["router_release"]))
    return names


def routing_kind(embedder):
    """The names key of the object that routes to a model (see ROUTING_KINDS)."""
    return ROUTING_EMBEDDINGS if embedder else ROUTING_HTTPROUTE


def stale_routing_kind(kind):
    """The other routing object's names key: what a model of ``kind`` must not keep."""
    return ROUTING_HTTPROUTE if kind == ROUTING_EMBEDDINGS else ROUTING_EMBEDDINGS


def service_fqdn(name, namespace, cluster_domain):
    return "%s.%s.svc.%s" % (name, namespace, cluster_domain)


def gateway_class_service_name(gateway, gateway_class):
    """Istio names the Service of a Gateway it deploys ``<gateway>-<gateway class>``."""
    return "%s-%s" % (gateway, gateway_class)


def endpoint_url(names, kind, cluster_domain, embeddings_port):
    """Where clients reach a model: the embeddings Service on its port, or the Gateway through its
    ExternalName Service (``names`` of a plan record, ``kind`` its routing_kind)."""
    if kind == ROUTING_EMBEDDINGS:
        return "http://%s:%s" % (service_fqdn(names[ROUTING_EMBEDDINGS], names["namespace"], cluster_domain),
                                 embeddings_port)
    return "http://%s" % service_fqdn(names["gateway_service"], names["namespace"], cluster_domain)


def managed_labels():
    """The label of every object the collection creates.

    On a Namespace it means "created by the collection": model_namespace puts it only on a namespace
    that did not exist before (never on one it found), and removal deletes no other namespace."""
    return {LABEL_MANAGED_BY: MANAGED_BY}


def created_by_collection(obj):
    """True when ``obj`` (a Namespace, say) carries the collection's managed-by label."""
    labels = ((obj or {}).get("metadata") or {}).get("labels") or {}
    return labels.get(LABEL_MANAGED_BY) == MANAGED_BY


def model_labels(slug, component=None):
    """The labels of one model's objects; ``component`` for those of the model cache."""
    labels = managed_labels()
    labels[LABEL_SLUG] = slug
    if component:
        labels[LABEL_COMPONENT] = component
    return labels


# What playbooks select by (the label_selectors filter): everything the collection manages, or
# the model claims (and PVs, Jobs) of the model cache.
SELECTIONS = {
    "managed": managed_labels(),
    "model_cache": dict(managed_labels(), **{LABEL_COMPONENT: COMPONENT_MODEL_CACHE}),
    "release_digests": dict(managed_labels(), **{LABEL_COMPONENT: COMPONENT_RELEASE_DIGESTS}),
}


def model_selectors(selection, slug):
    """The selectors of one SELECTIONS entry narrowed to one model (its slug label)."""
    return label_selectors(dict(SELECTIONS[selection], **{LABEL_SLUG: slug}))


def label_selectors(labels):
    """``key=value`` selectors (kubernetes.core's label_selectors) matching all of ``labels``."""
    return ["%s=%s" % (key, labels[key]) for key in sorted(labels)]


def annotation_key(field):
    """The collection's annotation for a field: ``pulled_at`` -> ``ai-platform.serving/pulled-at``."""
    return ANNOTATION_PREFIX + field.replace("_", "-")


def name_limit_problems(names, keys=None):
    """Return ``(key, message)`` for every name in ``names`` over its Kubernetes limit."""
    problems = []
    for key in keys or sorted(names):
        name = names[key]
        what, limit, why = NAME_LIMITS[key]
        if len(name) > limit:
            problems.append((key, "%s name '%s' has %d characters, over the limit of %d: %s"
                             % (what, name, len(name), limit, why)))
        elif not (DNS_LABEL_RE if limit == DNS_LABEL_MAX else DNS_SUBDOMAIN_RE).match(name):
            problems.append((key, "%s name '%s' is not a %s (lowercase letters, digits and '-'%s, starting and "
                             "ending with a letter or digit)"
                             % (what, name, "DNS label" if limit == DNS_LABEL_MAX else "DNS subdomain",
                                "" if limit == DNS_LABEL_MAX else ", dots between labels")))
    return problems


def slug_limit(keys, namespace=None, release_name=None):
    """The longest slug whose derived names in ``keys`` all fit their Kubernetes limits.

    Returns ``(limit, key)``: the binding limit (never above SLUG_MAX) and the name
    key that binds it (None when the seed's SLUG_MAX binds). Names fixed by the
    ``nameSpace``/``releaseName`` overrides do not depend on the slug and are skipped.
    """
    short = resource_names("a", namespace, release_name)
    longer = resource_names("aa", namespace, release_name)
    best, binding = SLUG_MAX, None
    for key in keys:
        if key in EPP_KEYS or len(longer[key]) == len(short[key]):
            continue
        fits = NAME_LIMITS[key][1] - (len(short[key]) - 1)
        if fits < best:
            best, binding = fits, key
    return best, binding


LABEL_NAME_MAX = 63
LABEL_PREFIX_MAX = 253
LABEL_NAME_RE = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?\Z")


def label_key_problem(key):
    """Why ``key`` is not a Kubernetes label key (``[prefix/]name``), or None."""
    if not isinstance(key, str) or not key:
        return "a label key must be a non-empty string"
    prefix, sep, name = key.rpartition("/")
    if sep and (not prefix or len(prefix) > LABEL_PREFIX_MAX or not DNS_SUBDOMAIN_RE.match(prefix)):
        return "the label key's prefix '%s' must be a lowercase DNS subdomain of at most %d characters" % (
            prefix, LABEL_PREFIX_MAX)
    if len(name) > LABEL_NAME_MAX or not LABEL_NAME_RE.match(name):
        return ("the label key's name '%s' must be at most %d characters of letters, digits, '-', '_' and '.', "
                "starting and ending with a letter or digit" % (name, LABEL_NAME_MAX))
    return None


def label_value_problem(value):
    """Why ``value`` is not a Kubernetes label value (empty, or a label name), or None."""
    if not isinstance(value, str):
        return "a label value must be a string"
    if value and (len(value) > LABEL_NAME_MAX or not LABEL_NAME_RE.match(value)):
        return ("a label value must be at most %d characters of letters, digits, '-', '_' and '.', "
                "starting and ending with a letter or digit" % LABEL_NAME_MAX)
    return None
