# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Helm values of the serving stack: the model's values file merged with what the plan owns.

The merge rule (the seed's "file + programmatic", made explicit):

- Mappings merge key by key; for a key both sides set, the programmatic side wins.
- Lists are replaced as a whole (as a plain Helm values merge does), except the lists
  the plan extends rather than owns, merged by identity so the model author's entries stay:
  ``containers`` (by ``name``), ``env`` (by ``name``; the programmatic entry replaces the file's whole, so
  its ``value`` never sits beside the file's ``valueFrom``), ``imagePullSecrets`` (by ``name``),
  ``tolerations`` (by the whole toleration).
- The programmatic side owns: per role (``decode``, ``prefill``) ``extraConfig.affinity``
  (hard nodeAffinity from nodeSelector), the GPU toleration and the ``harbor-creds`` pull secret.
  For a model the plan serves from a claim (``modelArtifacts.uri`` is the plan's
  ``pvc+hf://``/``pvc://`` URI) it also owns what makes that URI work on llm-d-modelservice
  v0.4.12: ``modelArtifacts.readOnly: true``, ``mountModelVolume: true`` on every container of
  the role (the chart mounts the claim and sets ``HF_HUB_CACHE`` only for those, and a values
  file's own ``containers`` replace the chart's defaults), and ``HF_HUB_OFFLINE=1`` in every
  container and init container (the chart never sets it; a read-only cache breaks the server
  without it). A values file that contradicts this is a problem (``modelservice_problems``).
  Such a model's pods also lose every Hugging Face token Secret the values name (``authSecretName``,
  ``HF_TOKEN`` from a Secret; offline.py), with a note, and an EPP that would reach Hugging Face is a
  problem on-prem, a warning on cloud. The chart's defaults (pod labels) come from chart_facts.py.

The other two releases and the plain objects around them (``stack_spec``):

- llm-d-infra: the site's ``serving_stack_infra_values`` under the programmatic side, which owns
  ``gateway.fullnameOverride`` (the plan's Gateway name), ``gateway.gatewayClassName``,
  ``gateway.service.type`` and ``gateway.destinationRule`` (one-way TLS to the EPP).
- GAIE inferencepool: ``gaie-<slug>/values.yaml`` under ``provider.name`` and
  ``provider.istio.destinationRule`` (host = the EPP Service, the connection pool).
- Gateway pod placement: Istio reads per-Gateway Deployment overrides only from the ConfigMap
  the Gateway names in ``infrastructure.parametersRef``, which llm-d-infra v1.3.0 renders itself
  (no affinity key). The plan's placement goes into ``gateway.annotations`` (so a change is a
  values change), and the post-renderer ``roles/serving_stack/files/gateway_placement.py`` merges
  it into that ConfigMap's ``deployment`` overlay (``gateway_placement``).
- Objects: the ExternalName Service ``llmd-gateway-<slug>``, then either the HTTPRoute
  ``llm-d-<slug>`` (generative) or the Service ``ms-<slug>-embeddings`` on 8200 (embedder).
  The seed's ``gateway-defaults-<slug>`` ConfigMap is read by nothing and only removed.

Pure functions: the serving_stack role calls them through the ``stack_spec`` filter.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import (
    admission, chart_facts, offline, pod_defaults, stacks, values_policy)

MODEL_ROLES = ("decode", "prefill")
OFFLINE_ENV = {"name": "HF_HUB_OFFLINE", "value": "1"}


def _by_name(entry):
    return entry.get("name") if isinstance(entry, dict) else entry


def _by_value(entry):
    return repr(sorted(entry.items())) if isinstance(entry, dict) else repr(entry)


# list key -> function giving an entry's identity
_KEYED_LISTS = {"containers": _by_name, "initContainers": _by_name, "env": _by_name, "imagePullSecrets": _by_name,
                "tolerations": _by_value}


def _merge_list(key, base, override):
    identity = _KEYED_LISTS[key]
    merged = [copy.deepcopy(entry) for entry in base]
    index = dict((identity(entry), position) for position, entry in enumerate(merged))
    for entry in override:
        position = index.get(identity(entry))
        if position is None:
            index[identity(entry)] = len(merged)
            merged.append(copy.deepcopy(entry))
        elif key != "env" and isinstance(entry, dict) and isinstance(merged[position], dict):
            merged[position] = merge_values(merged[position], entry)
        else:
            merged[position] = copy.deepcopy(entry)
    return merged


def merge_values(base, override):
    """Merge ``override`` (programmatic) into ``base`` (the values file) by the rule above."""
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in override.items():
        current = result.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            result[key] = merge_values(current, value)
        elif key in _KEYED_LISTS and isinstance(value, list) and isinstance(current, list):
            result[key] = _merge_list(key, current, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def serves_from_claim(record):
    """True when the plan gives the model a claim URI (``pvc+hf://`` or ``pvc://``)."""
    return str(record.get("model_artifacts_uri") or "").startswith("pvc")


def _named(entries):
    return [entry for entry in entries or [] if isinstance(entry, dict) and entry.get("name")]


def modelservice_overrides(record, file_values):
    """The programmatic llm-d-modelservice values of one plan record."""
    overrides = {}
    from_claim = serves_from_claim(record)
    if record.get("model_artifacts_uri"):
        overrides["modelArtifacts"] = {"uri": record["model_artifacts_uri"]}
        if from_claim:
            overrides["modelArtifacts"]["readOnly"] = True
    pull_secret = record["names"].get("harbor_pull_secret")
    for role in MODEL_ROLES:
        section = file_values.get(role)
        if not isinstance(section, dict) or section.get("create") is False:
            continue
        role_values = {}
        extra = {}
        if record.get("affinity"):
            extra["affinity"] = record["affinity"]
        if pull_secret:
            extra["imagePullSecrets"] = [{"name": pull_secret}]
        if extra:
            role_values["extraConfig"] = extra
        if record.get("tolerations"):
            role_values["tolerations"] = record["tolerations"]
        if from_claim:
            role_values["containers"] = [{"name": c["name"], "mountModelVolume": True, "env": [OFFLINE_ENV]}
                                         for c in _named(section.get("containers"))]
            init = _named(section.get("initContainers"))
            if init:
                role_values["initContainers"] = [{"name": c["name"], "env": [OFFLINE_ENV]} for c in init]
        overrides[role] = role_values
    return overrides


SERVED_DIGEST_ANNOTATION = naming.annotation_key("served_digest")


def stamp_served_digest(spec, digest):
    """``spec`` with ``digest`` (the artifact the model's claim holds) on its decode and prefill pod templates.

    A new pull (a moved tag, a new harborRef) changes the pod templates, so Helm rolls the serving pods
    onto the new weights; the same digest leaves the values as they were.
    """
    spec = copy.deepcopy(spec)
    ms = spec["values"].get("modelservice") or {}
    for role in MODEL_ROLES:
        section = ms.get(role)
        if isinstance(section, dict) and section.get("create") is not False:
            annotations = section.get("podAnnotations") if isinstance(section.get("podAnnotations"), dict) else {}
            section["podAnnotations"] = dict(annotations, **{SERVED_DIGEST_ANNOTATION: digest})
    # the llm-d v0.10 stack: the model server's own workloads (the objects carrying the stack's label)
    for obj in spec.get("objects") or []:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        template = (obj.get("spec") or {}).get("template")
        if labels.get(stacks.STACK_LABEL) == stacks.V010.name and isinstance(template, dict):
            meta = template.setdefault("metadata", {})
            meta["annotations"] = dict(meta.get("annotations") or {}, **{SERVED_DIGEST_ANNOTATION: digest})
    return spec


def modelservice_values(record, file_values):
    """The values file of ``ms-<slug>`` merged with the plan's values."""
    return merge_values(file_values or {}, modelservice_overrides(record, file_values or {}))


MODEL_COMMANDS = ("vllmServe", "imageDefault", "custom")


def modelservice_problems(record, file_values):
    """What in ``ms-<slug>/values.yaml`` contradicts what the plan owns, or what the chart rejects.

    Each problem names the model, the file, the key and the fix; found before anything changes.
    """
    file_values = file_values or {}
    where = "%s: %s" % (record["name"], record.get("values_files", {}).get("ms", "ms-%s/values.yaml" % record["slug"]))
    problems = []
    from_claim = serves_from_claim(record)
    artifacts = file_values.get("modelArtifacts") or {}
    if from_claim and artifacts.get("readOnly") is False:
        problems.append("%s: modelArtifacts.readOnly is false, but the model is served from the claim the pull Job "
                        "verified (%s), which serving pods must never write. Fix: remove the key (the collection "
                        "sets it true)." % (where, record["model_artifacts_uri"]))
    for role in MODEL_ROLES:
        section = file_values.get(role)
        if not isinstance(section, dict) or section.get("create") is False:
            continue
        for key in ("containers", "initContainers"):
            for position, container in enumerate(section.get(key) or []):
                here = "%s.%s[%d]" % (role, key, position)
                if not isinstance(container, dict) or not container.get("name"):
                    problems.append("%s: %s has no name. Fix: give it a name (the collection merges its "
                                    "settings into containers by name)." % (where, here))
                    continue
                if key == "initContainers":
                    continue
                here = "%s (%s)" % (here, container["name"])
                command = container.get("modelCommand", "custom")
                if command not in MODEL_COMMANDS:
                    problems.append("%s: %s.modelCommand is %r; llm-d-modelservice accepts %s. Fix: use one of "
                                    "them." % (where, here, command, ", ".join(MODEL_COMMANDS)))
                elif command == "custom" and not container.get("command"):
                    problems.append("%s: %s has modelCommand custom (the chart's default) but no command, which "
                                    "llm-d-modelservice rejects. Fix: set command (and args), or modelCommand "
                                    "vllmServe or imageDefault." % (where, here))
                if from_claim and container.get("mountModelVolume") is False:
                    problems.append("%s: %s.mountModelVolume is false, so the pod would get neither the claim nor "
                                    "HF_HUB_CACHE and could not find %s. Fix: remove the key (the collection sets it "
                                    "true on every serving container)." % (where, here, record["model_artifacts_uri"]))
    return problems


def image_references(values, path=""):
    """Yield ``(path, reference)`` for every container image a values tree names.

    An image is a string under a key named ``image``, or an ``image`` mapping with
    ``hub``/``registry``/``repository``/``name``/``tag`` parts (the GAIE chart's form).
    """
    if isinstance(values, dict):
        for key, value in values.items():
            here = "%s.%s" % (path, key) if path else str(key)
            if key == "image" and isinstance(value, str):
                yield here, value
            elif key == "image" and isinstance(value, dict):
                parts = [value.get(k) for k in ("hub", "registry", "repository", "name") if value.get(k)]
                if parts:
                    yield here, "/".join(parts) + (":%s" % value["tag"] if value.get("tag") else "")
            else:
                yield from image_references(value, here)
    elif isinstance(values, list):
        for position, value in enumerate(values):
            yield from image_references(value, "%s[%d]" % (path, position))


def images_off_registry(values, registry_hosts):
    """The ``(path, image)`` of ``values`` not pulled from ``registry_hosts`` (a host or a list; air-gap check).

    Each image is resolved as containerd resolves it (reference.split_image): ``vllm/vllm-openai:v1`` is pulled
    from ``docker.io``, so a mirrored ``docker.io`` (or ``index.docker.io``) accepts it. The image is returned as
    the values wrote it."""
    hosts = [registry_hosts] if isinstance(registry_hosts, str) else list(registry_hosts)
    allowed = set(reference.normalize_registry(host) for host in hosts if host)
    return [(where, image) for where, image in image_references(values)
            if reference.image_registry(image) not in allowed]


def pin_values(values, pins):
    """``values`` with every image ``pins`` (image_plan.image_pins) has rewritten to its ``@sha256:`` reference.

    A string image is replaced; an image mapping (the GAIE chart's ``hub``/``name``/``tag``, which the chart joins
    as ``hub/name:tag``) gets ``tag: <tag>@sha256:...``. Returns ``(values, unpinned)``: unpinned lists the
    ``(path, image)`` neither pinned already nor in ``pins``. ``values`` itself is not changed.
    """
    values = copy.deepcopy(values)
    unpinned = []

    def visit(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                here = "%s.%s" % (path, key) if path else str(key)
                if key == "image" and isinstance(value, str):
                    pinned = image_plan.pin_image(value, pins)
                    if pinned is None:
                        unpinned.append((here, value))
                    else:
                        node[key] = pinned
                elif key == "image" and isinstance(value, dict):
                    refs = list(image_references({"image": value}))
                    if not refs:
                        continue
                    image = refs[0][1]
                    pinned = image_plan.pin_image(image, pins) if value.get("tag") else None
                    if pinned is None:
                        unpinned.append((here, image))
                    elif pinned != image:
                        value["tag"] = "%s@%s" % (value["tag"], pinned.rsplit("@", 1)[1])
                else:
                    visit(value, here)
        elif isinstance(node, list):
            for position, value in enumerate(node):
                visit(value, "%s[%d]" % (path, position))

    visit(values, "")
    return values, unpinned


def unpinned_image_problems(record, chart, unpinned, lock_file):
    """One message per image of a release's values that ``pin_values`` left on a tag, naming model, chart, key."""
    return ["%s: %s values %s = %s is not pinned: the lock file %s has no digest for it. Fix: load the bundle "
            "that carries it (playbooks/load.yml writes the lock file; its path goes in aips_lock_file), or set "
            "%s: true to deploy by tag (a lab)" % (record["name"], chart, where, image, lock_file or "(none set)",
                                                   image_plan.ALLOW_UNPINNED)
            for where, image in unpinned]


# ---------------------------------------------------------------------------------------------
# llm-d-infra, GAIE, the plain objects and the air-gap check

# model_storage writes it on the claim once the pull is verified.
PULLED_DIGEST_ANNOTATION = pull_marker.ANNOTATION_DIGEST
INFERENCE_POOL_GROUP = "inference.networking.k8s.io"
# routing kind (naming.ROUTING_KINDS) -> (apiVersion, kind) of its object
ROUTING_OBJECTS = {naming.ROUTING_HTTPROUTE: ("gateway.networking.k8s.io/v1", "HTTPRoute"),
                   naming.ROUTING_EMBEDDINGS: ("v1", "Service")}
# On llm-d-infra's Gateway and its ConfigMap: the placement the post-renderer merges into the
# ConfigMap's Deployment overlay (roles/serving_stack/files/gateway_placement.py reads this key).
GATEWAY_PLACEMENT_ANNOTATION = naming.annotation_key("gateway_placement")

DEFAULT_SETTINGS = {
    # llm-d-infra / Istio
    "gateway_class": "istio",
    "gateway_service_type": "ClusterIP",
    "gateway_listener": "",
    "infra_values": {},
    # GAIE provider (gke | istio | none) and the DestinationRule connection pool
    "gaie_provider": "istio",
    "connection_pool": {},
    "cluster_domain": "cluster.local",
    "embeddings_port": 8200,
    # air gap: images must come from the registry host or a node-mirrored registry
    "air_gapped": False,
    "registry_host": "",
    "mirrored_registries": [],
    # pinned deploys (image_plan.image_pins of the lock file): on-prem every image by digest unless allowed
    "image_pins": {},
    # the plan's image plan (plan/images.py:image_plan): the Harbor references of the images the collection sets
    "images": [],
    "allow_unpinned": False,
    "lock_file": "",
    # the carried chart archives (chart_facts): the charts' defaults; empty: the known facts
    "chart_dir": "",
    # serving_stack_monitors: false turns the charts' PodMonitor/ServiceMonitor objects off (admission.monitors_off)
    "monitors": True,
    # the Pod Security labels of the model namespaces: the values policy names the level a refused key needs
    "pod_security": {},
    # secure defaults of the serving pods where the values set none (stack/pod_defaults.py); the role turns them on
    "pod_security_context": False,
    "pod_uid": pod_defaults.DEFAULT_UID,
    "pod_probes": False,
    "pod_probe_path": "/health",
    "pod_requests": {},
}


def _settings(settings):
    merged = dict(DEFAULT_SETTINGS)
    merged.update(dict((k, v) for k, v in (settings or {}).items() if v is not None))
    return merged


def _epp_fqdn(record, cfg):
    """GAIE v1.2.0's endpoint-picker Service (the plan's names.epp_service), by FQDN."""
    names = record["names"]
    return naming.service_fqdn(names["epp_service"], names["namespace"], cfg["cluster_domain"])


def model_pod_labels(ms_values, role="decode", defaults=None):
    """The labels llm-d-modelservice puts on the ``role`` pods of these values: the chart's default
    ``modelArtifacts.labels`` (chart_facts; ``defaults`` None: the known facts) merged with the values', plus
    ``llm-d.ai/role``."""
    return chart_facts.pod_labels(ms_values, role, defaults)


def pool_selection_problems(record, gaie, ms, defaults=None):
    """The InferencePool must select the decode pods, or the HTTPRoute leads nowhere."""
    wanted = ((gaie.get("inferencePool") or {}).get("modelServers") or {}).get("matchLabels") or {}
    labels = model_pod_labels(ms, "decode", defaults)
    missing = dict((k, v) for k, v in wanted.items() if labels.get(k) != str(v))
    if not missing:
        return []
    return ["%s: gaie values inferencePool.modelServers.matchLabels %s select no decode pod (ms values "
            "modelArtifacts.labels give %s). Fix: make modelArtifacts.labels in ms-%s/values.yaml carry %s."
            % (record["name"], _flat(wanted), _flat(labels), record["slug"], _flat(missing))]


def _flat(labels):
    return ", ".join("%s=%s" % (k, labels[k]) for k in sorted(labels)) or "{}"


def infra_values(record, settings=None):
    """The llm-d-infra values of one record: the site's values under the programmatic ones."""
    cfg = _settings(settings)
    names = record["names"]
    programmatic = {
        "gateway": {
            "fullnameOverride": names["gateway"],
            "gatewayClassName": cfg["gateway_class"],
            "service": {"type": cfg["gateway_service_type"]},
            "destinationRule": {
                "enabled": True,
                "host": _epp_fqdn(record, cfg),
                "trafficPolicy": {"tls": {"mode": "SIMPLE", "insecureSkipVerify": True}},
            },
        },
    }
    placement = gateway_placement(record)
    if placement:
        programmatic["gateway"]["annotations"] = {GATEWAY_PLACEMENT_ANNOTATION: json.dumps(placement, sort_keys=True)}
    return merge_values(cfg["infra_values"] or {}, programmatic)


def gateway_placement(record):
    """The gateway pod's placement: the model's hard nodeAffinity and tolerations (empty: none)."""
    placement = {}
    if record.get("affinity"):
        placement["affinity"] = record["affinity"]
    if record.get("tolerations"):
        placement["tolerations"] = record["tolerations"]
    return placement


def provider_values(record, settings=None, epp_service=None):
    """``{"provider": ...}`` of a chart with GAIE's provider keys (inferencepool, llm-d-router-gateway): the
    ``gaie_provider`` setting and, for Istio, the DestinationRule to the EPP Service ``epp_service`` (default the
    seed's, names.epp_service) by FQDN, with the connection pool."""
    cfg = _settings(settings)
    names = record["names"]
    provider = {"name": cfg["gaie_provider"]}
    if cfg["gaie_provider"] == "istio":
        rule = {"host": naming.service_fqdn(epp_service or names["epp_service"], names["namespace"],
                                            cfg["cluster_domain"])}
        if cfg["connection_pool"]:
            rule["trafficPolicy"] = {"connectionPool": cfg["connection_pool"]}
        provider["istio"] = {"destinationRule": rule}
    return {"provider": provider}


def gaie_values(record, file_values, settings=None):
    """``gaie-<slug>/values.yaml`` merged with the provider and its DestinationRule."""
    return merge_values(file_values or {}, provider_values(record, settings))


def _meta(record, name):
    return {"name": name, "namespace": record["names"]["namespace"], "labels": naming.model_labels(record["slug"])}


def gateway_service(record, settings=None):
    """ExternalName Service ``llmd-gateway-<slug>``: Istio's Service of the Gateway, by FQDN."""
    cfg = _settings(settings)
    names = record["names"]
    target = naming.gateway_class_service_name(names["gateway"], cfg["gateway_class"])
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(record, names["gateway_service"]),
            "spec": {"type": "ExternalName",
                     "externalName": naming.service_fqdn(target, names["namespace"], cfg["cluster_domain"])}}


def httproute(record, settings=None, gateway=None, pool=None, timeout=None):
    """HTTPRoute ``llm-d-<slug>``: the Gateway's listener, all paths, to the InferencePool. The seed's: the model's
    own Gateway (names.gateway) and pool (names.gaie_release); llm-d v0.10 in gateway mode passes the site's
    ``gateway`` ({name, namespace}: the record's router_gateway), its ``pool`` (names.router_release) and the
    request ``timeout`` (its chart's httpRoute.requestTimeout)."""
    cfg = _settings(settings)
    names = record["names"]
    gateway = gateway or {"name": names["gateway"]}
    parent = {"group": "gateway.networking.k8s.io", "kind": "Gateway", "name": gateway["name"]}
    if gateway.get("namespace") and gateway["namespace"] != names["namespace"]:
        parent["namespace"] = gateway["namespace"]
    if cfg["gateway_listener"]:
        parent["sectionName"] = cfg["gateway_listener"]
    rule = {"matches": [{"path": {"type": "PathPrefix", "value": "/"}}],
            "backendRefs": [{"group": INFERENCE_POOL_GROUP, "kind": "InferencePool",
                             "name": pool or names["gaie_release"]}]}
    if timeout:
        rule["timeouts"] = {"request": timeout}
    return {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
            "metadata": _meta(record, names["httproute"]),
            "spec": {"parentRefs": [parent], "rules": [rule]}}


def embeddings_service(record, ms_values, settings=None, defaults=None):
    """ClusterIP Service ``ms-<slug>-embeddings``: straight to the decode pods on 8200."""
    cfg = _settings(settings)
    names = record["names"]
    selector = model_pod_labels(ms_values, "decode", defaults)
    port = int(cfg["embeddings_port"])
    return {"apiVersion": "v1", "kind": "Service", "metadata": _meta(record, names["embeddings_service"]),
            "spec": {"type": "ClusterIP", "selector": selector,
                     "ports": [{"name": "http", "port": port, "targetPort": port, "protocol": "TCP"}]}}


def air_gap_problems(record, releases, settings=None):
    """Problems with images a node without internet cannot pull (on-prem only)."""
    cfg = _settings(settings)
    if not cfg["air_gapped"]:
        return []
    allowed = [cfg["registry_host"]] + list(cfg["mirrored_registries"] or [])
    problems = []
    for chart, values in releases:
        for where, image in images_off_registry(values, allowed):
            problems.append("%s: %s values %s = %s is not in %s. Fix: mirror it there (harbor_upload) and "
                            "use that reference in the values file." % (record["name"], chart, where, image,
                                                                        " or ".join(h for h in allowed if h)))
    ms = dict(releases).get("modelservice") or {}
    proxy = (ms.get("routing") or {}).get("proxy") or {}
    if proxy.get("enabled", True) is not False and not isinstance(proxy.get("image"), str):
        problems.append("%s: modelservice values routing.proxy.image is unset, so the chart would pull its "
                        "internet default (:latest, Always). Fix: set it to the Harbor mirror, pinned." % record["name"])
    return problems


def serving_pod_defaults(ms, cfg):
    """``ms`` with the serving pods' secure defaults of ``cfg`` (securityContext, probes, requests) where the
    values set none (stack/pod_defaults.py)."""
    return pod_defaults.apply(ms, cfg["pod_security_context"], cfg["pod_uid"], cfg["pod_probes"],
                              cfg["pod_probe_path"], cfg["pod_requests"])


def stack_spec(record, gaie_file, ms_file, settings=None):
    """Everything serving_stack applies for one plan record, computed before anything changes.

    ``problems`` fail the play; ``warnings`` and ``notes`` (what the collection changed in the values, e.g. a
    Hugging Face token Secret dropped for a claim-served model) are printed. Every check reads the images as the
    values and lock files write them; only then are they pinned, so no message shows a reference the collection
    made up.
    """
    cfg = _settings(settings)
    defaults = chart_facts.chart_defaults(chart_facts.MODELSERVICE, cfg["chart_dir"])[0]
    gaie = gaie_values(record, gaie_file, settings)
    cfg = _settings(settings)
    ms = serving_pod_defaults(modelservice_values(record, ms_file), cfg)
    infra = infra_values(record, settings)
    notes = []
    if serves_from_claim(record):
        ms, gaie, notes = offline.drop_claim_secrets(record, ms, gaie)
    names = record["names"]
    kind = record["routing_kind"]
    if kind == naming.ROUTING_EMBEDDINGS:
        routing = embeddings_service(record, ms, settings, defaults)
    else:
        routing = httproute(record, settings)
    stale_kind = naming.stale_routing_kind(kind)
    # the other branch's object, and the ConfigMap of earlier versions of the collection (nothing reads it)
    stale = [ROUTING_OBJECTS[stale_kind] + (names[stale_kind],), ("v1", "ConfigMap", names["gateway_defaults"])]
    releases = [("infra", infra), ("gaie", gaie), ("modelservice", ms)]
    if cfg["monitors"] in (False, "false", "False"):
        releases = [(chart, admission.monitors_off(chart, values)) for chart, values in releases]
        infra, gaie, ms = [values for _chart, values in releases]
    hub = offline.epp_hub_findings(record, gaie_file)
    problems = (offline.embedded_yaml_problems(record, gaie_file)
                + modelservice_problems(record, ms_file) + pool_selection_problems(record, gaie, ms, defaults)
                + air_gap_problems(record, releases, settings) + (hub if cfg["air_gapped"] else [])
                + values_policy.policy_problems(record, {"gaie": gaie_file, "ms": ms_file}, settings))
    if cfg["image_pins"] or (cfg["air_gapped"] and not cfg["allow_unpinned"]):
        pinned_releases = []
        for chart, values in releases:
            values, unpinned = pin_values(values, cfg["image_pins"] or {})
            pinned_releases.append((chart, values))
            if cfg["air_gapped"] and not cfg["allow_unpinned"]:
                problems.extend(unpinned_image_problems(record, chart, unpinned, cfg["lock_file"]))
        releases = pinned_releases
    return {
        "slug": record["slug"],
        "values": dict(releases),
        "objects": [gateway_service(record, settings)],
        "routing": routing,
        "endpoint": naming.endpoint_url(names, kind, cfg["cluster_domain"], int(cfg["embeddings_port"])),
        # the other branch's object (a model that changed category) and objects no longer made
        "stale": [{"apiVersion": api, "kind": stale_object, "metadata": {"name": name, "namespace": names["namespace"]}}
                  for api, stale_object, name in stale],
        "problems": problems,
        "warnings": [] if cfg["air_gapped"] else hub,
        "notes": notes,
    }
