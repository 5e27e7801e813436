# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The stack spec of a plan record on the llm-d v0.10 stack (``stack: llm-d-v0.10``): the same shape as the seed's
(values.stack_spec), computed from the router values and the parsed model-server objects.

- ``values``: ``{"router": <router-<slug> values>}`` (stack/router.py), images pinned like the seed's releases.
- ``values``: in gateway mode ``{"router_gateway": ...}`` (the chart key of llm-d-router-gateway).
- ``objects``: the model-server objects with the owned fields (stack/modelserver.py), images pinned, then LAST the
  ExternalName Service ``llmd-gateway-<slug>`` pointing at the router's EPP Service
  (``router-<slug>-epp.<ns>.svc.<domain>``, port 80 the collection adds; gateway mode: the site Gateway's Service,
  ``<service>.<gateway namespace>.svc.<domain>``): serving_stack applies the list in order and waits for each
  definition, so a model moving from the seed's stack has its endpoint switched only once its new model-server
  Deployments are Available (state.py). An embedder in gateway mode has no ExternalName (no route on the site's
  Gateway leads to it; its endpoint is the embeddings Service): a former one is stale.
- ``routing``: an embedder's Service ``ms-<slug>-embeddings`` (the seed's name and port) selecting the owned pod
  labels, targetPort the model server's container port. A generative model: standalone, no routing object
  (clients reach the router through ``llmd-gateway-<slug>``), so ``routing`` is None; gateway mode, the HTTPRoute
  ``llm-d-<slug>`` (the seed's name: a move updates that one object) from the site's Gateway to the InferencePool
  ``router-<slug>``.
- ``stale``: standalone, the seed's HTTPRoute ``llm-d-<slug>`` of a generative model (the ExternalName no longer
  leads to it); the other routing branch's object. The seed's releases are the removal's (not built here).
- ``problems``: router.router_problems, modelserver.kind_problems, the values policy on the router file and the
  owned model-server objects, the air-gap check (images off Harbor) and unpinned images on-prem.

Pure functions.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import (
    modelserver, router, stacks, values_policy)
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values


def gateway_service(record, settings=None):
    """ExternalName Service ``llmd-gateway-<slug>``: the router's EPP Service (Envoy on port 80), by FQDN; in gateway
    mode the site Gateway's Service."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    names = record["names"]
    gateway = record.get("router_gateway") if router.gateway_mode(record) else None
    target = (naming.service_fqdn(gateway["service"], gateway["namespace"], cfg["cluster_domain"]) if gateway
              else naming.service_fqdn(names["router_epp"], names["namespace"], cfg["cluster_domain"]))
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": names["gateway_service"], "namespace": names["namespace"],
                         "labels": naming.model_labels(record["slug"])},
            "spec": {"type": "ExternalName", "externalName": target}}


def gateway_route(record, router_file, settings=None):
    """Gateway mode: HTTPRoute ``llm-d-<slug>`` from the site's Gateway to the InferencePool ``router-<slug>``."""
    return stack_values.httproute(record, settings, gateway=record["router_gateway"],
                                  pool=record["names"]["router_release"], timeout=router.route_timeout(router_file))


def embeddings_service(record, objects, settings=None):
    """ClusterIP Service ``ms-<slug>-embeddings`` on the embeddings port, to the model's v0.10 pods."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    names = record["names"]
    port = int(cfg["embeddings_port"])
    return {"apiVersion": "v1", "kind": "Service",
            "metadata": {"name": names["embeddings_service"], "namespace": names["namespace"],
                         "labels": naming.model_labels(record["slug"])},
            "spec": {"type": "ClusterIP", "selector": stacks.owned_labels(record["slug"]),
                     "ports": [{"name": "http", "port": port, "targetPort": modelserver.serving_port(objects),
                                "protocol": "TCP"}]}}


def _stale(record, kind):
    """The seed's HTTPRoute (standalone mode has none; gateway mode's is the routing object of a generative model),
    the embeddings Service of a model that is no longer an embedder, and the seed's ``gateway-defaults-<slug>``
    ConfigMap."""
    names = record["names"]
    stale = []
    if not (router.gateway_mode(record) and kind == naming.ROUTING_HTTPROUTE):
        stale.append(stack_values.ROUTING_OBJECTS[naming.ROUTING_HTTPROUTE] + (names[naming.ROUTING_HTTPROUTE],))
    if kind != naming.ROUTING_EMBEDDINGS:
        stale.append(stack_values.ROUTING_OBJECTS[naming.ROUTING_EMBEDDINGS] + (names[naming.ROUTING_EMBEDDINGS],))
    if names.get("gateway_defaults"):
        stale.append(("v1", "ConfigMap", names["gateway_defaults"]))
    if router.gateway_mode(record) and kind == naming.ROUTING_EMBEDDINGS:
        # an embedder behind the site's Gateway has no route there: its endpoint is the embeddings Service alone
        stale.append(("v1", "Service", names["gateway_service"]))
    return [{"apiVersion": api, "kind": object_kind, "metadata": {"name": name, "namespace": names["namespace"]}}
            for api, object_kind, name in stale]


def air_gap_problems(record, router_values, objects, settings=None):
    """On-prem, every image of the router values and the model-server objects must come from Harbor or a
    node-mirrored registry."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    if not cfg["air_gapped"]:
        return []
    allowed = [cfg["registry_host"]] + list(cfg["mirrored_registries"] or [])
    return ["%s: %s %s = %s is not in %s. Fix: mirror it there (harbor_upload) and use that reference." % (
        record["name"], what, where, image, " or ".join(h for h in allowed if h))
        for what, tree in (("router values", router_values), ("model server objects", objects))
        for where, image in stack_values.images_off_registry(tree, allowed)]


def _pin(cfg, record, what, tree, problems):
    if not (cfg["image_pins"] or (cfg["air_gapped"] and not cfg["allow_unpinned"])):
        return tree
    pinned, unpinned = stack_values.pin_values(tree, cfg["image_pins"] or {})
    if cfg["air_gapped"] and not cfg["allow_unpinned"]:
        problems.extend(stack_values.unpinned_image_problems(record, what, unpinned, cfg["lock_file"]))
    return pinned


def stack_spec(record, router_file, modelserver_objects, settings=None):
    """Everything serving_stack applies for one v0.10 plan record (module doc), in values.stack_spec's shape:
    ``{slug, values, objects, routing, endpoint, stale, problems, warnings, notes}``."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    names = record["names"]
    kind = record["routing_kind"]
    router_values, notes = router.router_values(record, router_file, settings)
    objects, more = modelserver.owned_objects(record, modelserver_objects, settings)
    notes = notes + more
    router_where = (record.get("values_files") or {}).get("router", "router-%s/values.yaml" % record["slug"])
    problems = (router.router_problems(record, router_file, router_values, objects, settings)
                + modelserver.kind_problems(record, modelserver_objects)
                + values_policy.allow_problems(cfg.get("values_policy_allow"))
                + values_policy.object_problems(
                    record, [(router_where, router_file or {})]
                    + [(modelserver._where(record, obj).split(": ", 1)[1], obj)  # pylint: disable=protected-access
                       for obj in objects], settings)
                + air_gap_problems(record, router_values, objects, settings))
    router_values = _pin(cfg, record, "router", router_values, problems)
    objects = _pin(cfg, record, "modelserver", objects, problems)
    if kind == naming.ROUTING_EMBEDDINGS:
        routing = embeddings_service(record, objects, settings)
    else:
        routing = gateway_route(record, router_file, settings) if router.gateway_mode(record) else None
    return {
        "slug": record["slug"],
        "values": {stacks.for_record(record).releases[0].chart: router_values},
        "objects": objects + ([] if router.gateway_mode(record) and kind == naming.ROUTING_EMBEDDINGS
                              else [gateway_service(record, settings)]),
        "routing": routing,
        "endpoint": naming.endpoint_url(names, kind, cfg["cluster_domain"], int(cfg["embeddings_port"])),
        "stale": _stale(record, kind),
        "problems": problems,
        "warnings": [],
        "notes": notes,
    }
