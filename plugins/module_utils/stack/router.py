# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Helm values of the llm-d v0.10 router release (``router-<slug>``, chart llm-d-router-standalone v0.10.0).

The values are ``router-<slug>/values.yaml`` merged (values.merge_values: the programmatic side wins, lists are
replaced) with what the collection owns:

- ``router.modelServers.matchLabels``: the file's labels plus the two owned ones (stacks.owned_labels), so the
  InferencePool selects only this model's v0.10 pods, never the seed's (which carry neither).
- ``router.extraServicePorts``: an ``http`` port 80 to Envoy's 8081, appended when the file has no ``http`` entry.
  The model's endpoint, the ExternalName Service ``llmd-gateway-<slug>``, is called on port 80, so a file's own
  ``http`` entry on another port is a problem (refused, not rewritten: the author chose it); one on port 80 is
  kept as written.
- ``router.epp.affinity`` / ``router.epp.tolerations``: the model's hard nodeAffinity and tolerations; both are
  pod-level, so the Envoy sidecar goes with the EPP.
- Images: ``router.epp.image`` (``registry``/``repository``/``tag``; the chart joins them) and ``router.proxy.image``
  (Envoy, a string that overrides the chart's preset) are set from the ``router_images`` setting (the upstream
  v0.10 references; on-prem their Harbor references, where the plan's image plan, the ``images`` setting, carries
  them, else ``<registry_host>/images-shaide/<path>``) unless the file sets its own; then,
  like every release, pinned by values.pin_values (``tag: v0.10.0@sha256:...``).
- ``router.epp.podAnnotations``: ``ai-platform.serving/epp-pod`` (JSON) tells the post-renderer
  (roles/serving_stack/files/gateway_placement.py) what the chart has no key for: the pull secret and the
  restricted securityContext of the EPP pod.

Gateway mode (a record of ``stacks.V010_GATEWAY``, chart llm-d-router-gateway v0.10.0): no proxy and no client
port (the site's Gateway calls the InferencePool); ``provider`` from the ``gaie_provider`` setting (Istio: the
DestinationRule to ``router-<slug>-epp``, as for GAIE's chart) and ``httpRoute.create: false``: the HTTPRoute is the
collection's own ``llm-d-<slug>`` (spec_v010.py), the seed's name, so a move switches that one object; the file's
``httpRoute.requestTimeout`` is its timeout. ``httpRoute.baseModel`` / ``headerMatches``, which only the chart's
route would carry, are refused.

Problems (``router_problems``): the old GAIE top-level keys the chart refuses, an ``http`` service port not on 80,
``router.tokenizer.enabled`` on a model served from its claim or on-prem (its sidecar downloads from Hugging Face),
and an InferencePool that selects no pod template of the model-server objects.

Pure functions on plain data.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import offline, stacks
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values

# the upstream images of llm-d v0.10's router (the chart's own defaults)
ROUTER_IMAGES = {"epp": "ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0",
                 "proxy": "docker.io/envoyproxy/envoy:distroless-v1.33.2"}
# the Harbor project of the serving images (group_vars/all/images.yml)
IMAGE_PROJECT = "images-shaide"
HTTP_PORT_NAME = "http"
CLIENT_PORT = 80
ENVOY_PORT = 8081
HTTP_PORT = {"name": HTTP_PORT_NAME, "port": CLIENT_PORT, "protocol": "TCP", "targetPort": ENVOY_PORT}
# the top-level keys the chart refuses (charts/router/templates/_helpers.tpl, validations.deprecations)
REFUSED_KEYS = ("inferenceExtension", "inferencePool", "experimentalHttpRoute", "inferenceObjectives")
# read by the post-renderer (roles/serving_stack/files/gateway_placement.py)
EPP_POD_ANNOTATION = naming.annotation_key("epp_pod")
POD_TEMPLATE_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")
# gateway mode: the chart's default request timeout of its HTTPRoute (values.yaml httpRoute.requestTimeout), and
# the keys only the chart's own HTTPRoute reads
ROUTE_TIMEOUT = "300s"
CHART_ROUTE_ONLY = ("baseModel", "headerMatches")


def _section(values, *keys):
    node = values if isinstance(values, dict) else {}
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node if isinstance(node, dict) else {}


def _where(record):
    return "%s: %s" % (record["name"], (record.get("values_files") or {}).get(
        "router", "router-%s/values.yaml" % record["slug"]))


def harbor_image(source, registry_host, project=IMAGE_PROJECT):
    """The Harbor reference of an upstream image, by the image plan's rule (``<harbor>/<project>/<path>:<tag>``)."""
    return image_plan.image_plan([{"source": source, "project": project}], registry_host)[0]["destination"]


def carried_image(ref, cfg):
    """The Harbor reference of the upstream image ``ref`` on-prem: its record's ``destination`` in the plan's image
    plan (the ``images`` setting: the project and path the site carries it to), else the default rule."""
    for record in cfg.get("images") or []:
        if isinstance(record, dict) and record.get("source") == ref and record.get("destination"):
            return record["destination"]
    return harbor_image(ref, cfg["registry_host"])


def router_images(cfg):
    """``{"epp": ref, "proxy": ref}``: the ``router_images`` setting over ROUTER_IMAGES; on-prem (``air_gapped``
    with a ``registry_host``) each upstream reference becomes its Harbor reference (:func:`carried_image`)."""
    images = dict(ROUTER_IMAGES, **dict((k, v) for k, v in (cfg.get("router_images") or {}).items() if v))
    if cfg.get("air_gapped") and cfg.get("registry_host"):
        images = dict((key, carried_image(ref, cfg) if ref == ROUTER_IMAGES.get(key) else ref)
                      for key, ref in images.items())
    return images


def image_mapping(reference):
    """``registry/repository:tag`` as the chart's ``{registry, repository, tag}`` (split at the last ``/``)."""
    name, tag = reference, ""
    if ":" in reference.rsplit("/", 1)[-1]:
        name, tag = reference.rsplit(":", 1)
    registry, repository = name.rsplit("/", 1)
    return {"registry": registry, "repository": repository, "tag": tag}


def http_port(file_values):
    """The file's ``http`` entry of ``router.extraServicePorts``, or None."""
    for entry in _section(file_values, "router").get("extraServicePorts") or []:
        if isinstance(entry, dict) and entry.get("name") == HTTP_PORT_NAME:
            return entry
    return None


def epp_pod(record):
    """What the post-renderer adds to the EPP pod: the pull secret (when the model has one) and the restricted
    securityContext where the chart set none."""
    pod = {"securityContext": True}
    secret = record["names"].get("harbor_pull_secret")
    if secret:
        pod["imagePullSecrets"] = [{"name": secret}]
    return pod


def gateway_mode(record):
    """Whether the record's router sits behind the site's Gateway (llm-d-router-gateway)."""
    return stacks.for_record(record) is stacks.V010_GATEWAY


def chart_name(record):
    """The router chart of the record's mode, as its messages name it."""
    return "%s v0.10.0" % stacks.releases(stacks.for_record(record))[0].chart_name


def route_timeout(file_values):
    """The request timeout of the model's HTTPRoute in gateway mode: the file's ``httpRoute.requestTimeout``, else
    the chart's default."""
    return _section(file_values, "httpRoute").get("requestTimeout") or ROUTE_TIMEOUT


def router_overrides(record, file_values, settings=None):
    """The programmatic values of one plan record (see the module doc): ``router.*``, and in gateway mode
    ``provider`` and ``httpRoute``."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    file_router = _section(file_values, "router")
    epp = {"podAnnotations": {EPP_POD_ANNOTATION: json.dumps(epp_pod(record), sort_keys=True)}}
    if record.get("affinity"):
        epp["affinity"] = record["affinity"]
    if record.get("tolerations"):
        epp["tolerations"] = record["tolerations"]
    images = router_images(cfg)
    file_epp_image = _section(file_router, "epp", "image")
    if not file_epp_image.get("repository"):
        epp["image"] = image_mapping(images["epp"])
    router = {"epp": epp, "modelServers": {"matchLabels": stacks.owned_labels(record["slug"])}}
    if gateway_mode(record):
        overrides = {"router": router, "httpRoute": {"create": False}}
        overrides.update(stack_values.provider_values(record, cfg, record["names"]["router_epp"]))
        return overrides
    proxy = _section(file_router, "proxy")
    if proxy.get("enabled", True) is not False and proxy.get("proxyType", "envoy") == "envoy" \
            and not isinstance(proxy.get("image"), str):
        router["proxy"] = {"image": images["proxy"]}
    if http_port(file_values) is None:
        ports = [copy.deepcopy(p) for p in file_router.get("extraServicePorts") or []]
        router["extraServicePorts"] = ports + [dict(HTTP_PORT)]
    return {"router": router}


def router_values(record, file_values, settings=None):
    """``(values, notes)``: ``router-<slug>/values.yaml`` merged with the collection's values; a model served from
    its claim loses the Hugging Face token env of its EPP (``router.epp.env``), with a note."""
    values = stack_values.merge_values(file_values or {}, router_overrides(record, file_values or {}, settings))
    notes = []
    if gateway_mode(record) and _section(file_values, "httpRoute").get("create") is True:
        notes.append("%s: httpRoute.create is true: the model's HTTPRoute is the collection's %s (to the same "
                     "InferencePool, on %s), so the chart's is off" % (
                         _where(record), record["names"]["httproute"], (record.get("router_gateway") or {})
                         .get("name", "the site's Gateway")))
    if stack_values.serves_from_claim(record):
        epp = values["router"]["epp"]
        dropped = offline.drop_token_env(epp, "router.epp")
        if dropped:
            notes.append("%s: dropped %s (Hugging Face token from Secret %s): the model is served from its claim "
                         "and the EPP loads nothing from Hugging Face" % (
                             _where(record), ", ".join(key for key, _secret in dropped),
                             ", ".join(sorted(set(secret for _key, secret in dropped)))))
    return values, notes


def pod_templates(objects):
    """``[(kind/name, pod template labels)]`` of the objects that carry a pod template."""
    found = []
    for obj in objects or []:
        if not isinstance(obj, dict) or obj.get("kind") not in POD_TEMPLATE_KINDS:
            continue
        template = _section(obj, "spec", "template")
        found.append(("%s/%s" % (obj["kind"], _section(obj, "metadata").get("name")),
                      _section(template, "metadata", "labels")))
    return found


def _flat(labels):
    return ", ".join("%s=%s" % (k, labels[k]) for k in sorted(labels)) or "{}"


def selection_problems(record, values, objects):
    """The InferencePool (``router.modelServers.matchLabels``) must select a pod template of the model-server
    objects (the owned labels applied), or the router leads nowhere."""
    wanted = _section(values, "router", "modelServers").get("matchLabels") or {}
    templates = pod_templates(objects)
    for _name, labels in templates:
        if all(labels.get(k) == str(v) for k, v in wanted.items()):
            return []
    shown = "; ".join("%s: %s" % (name, _flat(labels)) for name, labels in templates) or "no pod template"
    return ["%s: router.modelServers.matchLabels %s select no pod of the model server (%s). Fix: give the pod "
            "template the file's labels in modelserver-%s/, or match its labels in router.modelServers.matchLabels."
            % (_where(record), _flat(wanted), shown, record["slug"])]


def router_problems(record, file_values, values, objects, settings=None):
    """What in ``router-<slug>/values.yaml`` the chart or the collection refuses (see the module doc); ``values``
    are the merged values, ``objects`` the model-server objects with the owned fields applied."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    where = _where(record)
    file_values = file_values or {}
    problems = []
    for key in REFUSED_KEYS:
        if file_values.get(key):
            problems.append("%s: %s is a key of the seed's GAIE values, which %s refuses. Fix: move its settings "
                            "under router.* (router.epp, router.modelServers, router.inferencePool, "
                            "router.inferenceObjectives)%s." % (
                                where, key, chart_name(record),
                                "; an HTTPRoute's under httpRoute" if key == "experimentalHttpRoute"
                                and gateway_mode(record) else ""))
    if gateway_mode(record):
        route = _section(file_values, "httpRoute")
        for key in CHART_ROUTE_ONLY:
            if route.get(key):
                problems.append("%s: httpRoute.%s is read only by the chart's own HTTPRoute, and in gateway mode the "
                                "model's HTTPRoute is the collection's %s (the chart's is off). Fix: remove "
                                "httpRoute.%s, or route by header with an HTTPRoute of the site's own beside it."
                                % (where, key, record["names"].get("httproute"), key))
    port = None if gateway_mode(record) else http_port(file_values)  # gateway mode has no client port
    if port is not None and port.get("port") != CLIENT_PORT:
        problems.append("%s: router.extraServicePorts http port is %s, but the model's endpoint %s reaches the "
                        "router on port %d. Fix: set its port to %d (targetPort %d, Envoy's listener) or remove the "
                        "entry (the collection adds it)." % (where, port.get("port"), record["names"].get(
                            "gateway_service"), CLIENT_PORT, CLIENT_PORT, ENVOY_PORT))
    if _section(file_values, "router", "tokenizer").get("enabled") is True and (
            stack_values.serves_from_claim(record) or cfg["air_gapped"]):
        problems.append("%s: router.tokenizer.enabled is true: its vllm-render sidecar downloads the tokenizer "
                        "from Hugging Face when it starts, which %s. Fix: remove router.tokenizer.enabled and use a "
                        "scorer that needs no tokenizer." % (where, "a model served from its claim must not do"
                                                             if stack_values.serves_from_claim(record)
                                                             else "a cluster without internet cannot reach"))
    problems.extend(selection_problems(record, values, objects))
    return problems
