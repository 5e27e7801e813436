# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model plan's shapes, defined once: the ``aips_models`` entries it reads and the record it returns.

A plan record (``model_plan``'s ``records``, the ``aips_plan`` fact) is a dict with the
``RECORD_FIELDS`` below. Its ``storage`` dict has the fields of its ``mode``
(``STORAGE_FIELDS``): ``STORAGE_HARBOR`` - the collection pulls a Harbor artifact onto a
claim it owns; ``STORAGE_CLAIM`` - a user-owned ``pvc://`` claim the collection only
checks; ``STORAGE_NONE`` - no model storage. model_plan's RETURN documents the same fields
for users, and a unit test keeps the two and every built record in step.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils import naming

# --- inputs: aips_models ({category: [entry, ...]}) and aips_cloud_provider
CATEGORIES = ("generative", "embedder")
PROVIDERS = ("cloud", "on-prem")
# the seed's model fields (what a Pulumi stack file may carry, migrate/pulumi.py), and the collection's own: stack,
# routerMode (llm-d v0.10 only)
SEED_MODEL_FIELDS = ("name", "enabled", "nodeSelector", "nameSpace", "releaseName", "modelSource")
MODEL_FIELDS = SEED_MODEL_FIELDS + ("stack", "routerMode")
# --- serving stacks (aips_serving_stack, a model's ``stack``): naming.STACK_NAMES (stack/stacks.py's STACKS)
STACK_NAMES = naming.STACK_NAMES
DEFAULT_STACK = naming.DEFAULT_STACK
V010_STACK = naming.V010_STACK
# --- llm-d v0.10's router modes (aips_router_mode, a model's ``routerMode``; stack/stacks.py's ROUTER_MODES) and the
# site Gateway a gateway-mode router sits behind (aips_router_gateway: name, namespace, service)
ROUTER_MODES = naming.ROUTER_MODES
DEFAULT_ROUTER_MODE = naming.DEFAULT_ROUTER_MODE
ROUTER_GATEWAY_FIELDS = ("name", "namespace", "service")
SOURCE_FIELDS = ("harborRef", "modelUri", "storageSize", "storageClass", "accessMode", "hostpathNode", "hostpathDir")

# --- storage modes and claim access modes (storage.mode, storage.access_mode)
STORAGE_HARBOR = "harbor"
STORAGE_CLAIM = "claim"
STORAGE_NONE = "none"
STORAGE_MODES = (STORAGE_HARBOR, STORAGE_CLAIM, STORAGE_NONE)
ACCESS_RWO = "ReadWriteOnce"
ACCESS_RWX = "ReadWriteMany"
ACCESS_MODES = (ACCESS_RWO, ACCESS_RWX)

# --- the record: field -> what it holds
RECORD_FIELDS = (
    ("name", "the model's folder name under models/<category>/"),
    ("category", "one of CATEGORIES"),
    ("embedder", "True for embedders (a ClusterIP Service instead of an HTTPRoute)"),
    ("slug", "the slug of the model's folder pair (gaie-<slug>/ms-<slug>, or router-<slug>/modelserver-<slug>)"),
    ("stack", "the serving stack the model runs on, one of STACK_NAMES (its stack field, else aips_serving_stack)"),
    ("router_mode", "llm-d v0.10: standalone or gateway, one of ROUTER_MODES (its routerMode field, else "
                    "aips_router_mode); None on the seed's stack"),
    ("router_gateway", "gateway mode: the site Gateway {name, namespace, service} (aips_router_gateway, namespace "
                       "defaulted to the model's, service to <name>-istio); None otherwise"),
    ("names", "every resource name of the model (naming.resource_names) plus harbor_pull_secret"),
    ("routing_kind", "the key in names of the object that routes to the model (httproute or embeddings_service)"),
    ("namespace", "the model's namespace (names.namespace)"),
    ("node_selector", "the model's nodeSelector, pinned to hostpathNode for several replicas on a hostPath claim"),
    ("affinity", "a hard nodeAffinity built from node_selector, or None"),
    ("replicas", "pods that mount the model (decode + prefill; llm-d v0.10: the Deployments' spec.replicas), None "
                 "when ms-<slug>/values.yaml cannot be read"),
    ("tolerations", "the GPU toleration as a one-element list, or empty"),
    ("model_dir", "the model's folder"),
    ("values_files", "paths of the gaie and ms values files; llm-d v0.10: the router values file (router) and the "
                     "model server folder (modelserver)"),
    ("storage", "the model's storage, by mode (STORAGE_FIELDS)"),
    ("model_artifacts_uri", "modelArtifacts.uri for llm-d-modelservice (pvc+hf:// or pvc://), or None"),
)
# fields every storage mode has
_COMMON_STORAGE = (
    ("mode", "one of STORAGE_MODES"),
    ("job_affinity", "the hard node affinity of the claim's Jobs (the hostPath node), or None"),
)
STORAGE_FIELDS = {
    STORAGE_HARBOR: _COMMON_STORAGE + (
        ("pvc", "the claim the collection creates"),
        ("pv", "the static hostPath PV (on-prem without a storageClass), else None"),
        ("pull_job", "the pull Job's name"),
        ("clear_job", "the clear Job's name"),
        ("prune_job", "the prune Job's name"),
        ("size", "modelSource.storageSize as written"),
        ("size_bytes", "storageSize in bytes"),
        ("storage_class", "the claim's storage class, or None (the cluster's default, or the hostPath PV)"),
        ("access_mode", "one of ACCESS_MODES"),
        ("hostpath_node", "the node holding the hostPath directory, or None"),
        ("hostpath_dir", "the hostPath directory, or None"),
        ("oci", "the parsed harborRef: registry, repository, tag, digest, reference"),
        ("model_uri", "modelSource.modelUri"),
        ("repo_id", "the Hugging Face repo id of modelUri"),
        ("oras_image", "the image the claim's Jobs run"),
        ("mount_path", "where the claim is mounted in the Jobs and the serving pods"),
        ("working_dir", "the hub cache on the claim"),
        ("marker", "the pull marker's path"),
        ("model_artifacts_uri", "modelArtifacts.uri (pvc+hf://)"),
    ),
    STORAGE_CLAIM: _COMMON_STORAGE + (
        ("claim", "the user-owned claim's name"),
        ("sub_path", "the model's path on the claim"),
        ("namespace", "the claim's namespace (the model's)"),
        ("model_artifacts_uri", "modelArtifacts.uri (pvc://)"),
    ),
    STORAGE_NONE: _COMMON_STORAGE,
}


def record_problems(record):
    """Why ``record`` is not a plan record of this schema: missing or unknown fields, an unknown storage mode."""
    problems = []
    wanted = [field for field, _what in RECORD_FIELDS]
    problems.extend("missing field %s" % field for field in wanted if field not in record)
    problems.extend("unknown field %s" % field for field in sorted(set(record) - set(wanted)))
    storage = record.get("storage") or {}
    mode = storage.get("mode")
    if mode not in STORAGE_FIELDS:
        return problems + ["storage.mode %r is not one of %s" % (mode, ", ".join(STORAGE_MODES))]
    fields = [field for field, _what in STORAGE_FIELDS[mode]]
    problems.extend("missing field storage.%s" % field for field in fields if field not in storage)
    problems.extend("unknown field storage.%s" % field for field in sorted(set(storage) - set(fields)))
    return problems
