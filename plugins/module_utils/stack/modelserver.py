# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The model-server objects of the llm-d v0.10 stack: ``modelserver-<slug>/`` as parsed, with the owned fields.

The model server is no Helm release: the collection applies these objects itself (server-side apply). What it
owns, on top of the objects as written (``owned_objects``):

- every object: ``metadata.namespace`` = the model's namespace; labels ``naming.model_labels(slug)``
  (``app.kubernetes.io/managed-by: ai_platform.serving``, ``ai-platform.serving/slug``) plus
  ``stacks.STACK_LABEL`` (the marker the removal of the other stack selects by);
- every pod template (Deployment, StatefulSet, ...): ``stacks.owned_labels`` on the template's labels, never on
  the selector (immutable; the router selects the pods by them); ``affinity`` (the model's hard nodeAffinity,
  replacing the file's) and the model's tolerations (merged by value); ``imagePullSecrets`` + the model's pull
  secret when it has one;
- a model served from its claim (values.serves_from_claim): volume ``model-cache`` from the claim
  (``storage.pvc``/``storage.claim``), read-only, replacing a volume of that name; mounted read-only at
  ``/model-cache`` in every container and init container; env ``HF_HOME=/model-cache`` (the claim holds
  ``hub/models--org--name``, so huggingface_hub finds the model) and ``HF_HUB_OFFLINE=1``; every Hugging Face
  token env from a Secret and every ``envFrom`` of such a Secret (one the env named, or named like
  ``*hf-token*``/``*huggingface*``) dropped, with a note;
- the serving pods' secure defaults of the serving_stack settings (stack/pod_defaults.py) where the object sets
  none: pod and container securityContext (Pod Security "restricted"), startup/readiness/liveness probes on the
  first container's port (``ports`` named ``http``, else the first, else ``--port``), requests.

Kinds: a model server is Deployments/StatefulSets and the plain objects around them; an object of another kind
(RBAC, Secrets, cluster-scoped kinds) is a problem (``kind_problems``). The values policy
(values_policy.object_problems) runs on the objects with the owned fields applied.

Pure functions on plain data.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import offline, pod_defaults, stacks
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values

MODEL_CACHE = "/model-cache"
MODEL_VOLUME = "model-cache"
POD_TEMPLATE_KINDS = ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job")
ALLOWED_KINDS = POD_TEMPLATE_KINDS[:2] + ("Service", "ServiceAccount", "ConfigMap", "PodDisruptionBudget",
                                          "HorizontalPodAutoscaler")
SECRET_NAME_HINTS = ("hf-token", "hf_token", "huggingface", "hugging-face")


def claim_name(record):
    storage = record.get("storage") or {}
    return storage.get("pvc") or storage.get("claim")


def _where(record, obj):
    folder = (record.get("values_files") or {}).get("modelserver", "modelserver-%s/" % record["slug"])
    return "%s: %s %s/%s" % (record["name"], folder, obj.get("kind"), (obj.get("metadata") or {}).get("name"))


def _set_env(container, entries):
    names = [entry["name"] for entry in entries]
    env = [e for e in container.get("env") or [] if not (isinstance(e, dict) and e.get("name") in names)]
    container["env"] = env + [dict(entry) for entry in entries]


def _drop_secrets(container, where):
    dropped = offline.drop_token_env(container, where)
    secrets = set(secret for _key, secret in dropped)
    env_from = container.get("envFrom")
    if isinstance(env_from, list):
        kept = []
        for position, entry in enumerate(env_from):
            name = ((entry or {}).get("secretRef") or {}).get("name") if isinstance(entry, dict) else None
            if name and (name in secrets or any(hint in name.lower() for hint in SECRET_NAME_HINTS)):
                dropped.append(("%s.envFrom[%d]" % (where, position), name))
            else:
                kept.append(entry)
        container["envFrom"] = kept
    return dropped


def _mount_claim(pod, claim):
    volumes = [v for v in pod.get("volumes") or [] if not (isinstance(v, dict) and v.get("name") == MODEL_VOLUME)]
    claim_source = {"claimName": claim, "readOnly": True}
    pod["volumes"] = volumes + [{"name": MODEL_VOLUME, "persistentVolumeClaim": claim_source}]
    for key in ("containers", "initContainers"):
        for container in pod.get(key) or []:
            if not isinstance(container, dict):
                continue
            mounts = [m for m in container.get("volumeMounts") or []
                      if not (isinstance(m, dict) and (m.get("name") == MODEL_VOLUME or m.get("mountPath") == MODEL_CACHE))]
            container["volumeMounts"] = mounts + [{"name": MODEL_VOLUME, "mountPath": MODEL_CACHE, "readOnly": True}]
            _set_env(container, [{"name": "HF_HOME", "value": MODEL_CACHE}, stack_values.OFFLINE_ENV])


def _secure_defaults(pod, cfg):
    containers = [c for c in pod.get("containers") or [] if isinstance(c, dict)]
    if cfg["pod_security_context"]:
        if not pod.get("securityContext"):
            pod["securityContext"] = pod_defaults.pod_security_context(cfg["pod_uid"])
        for key in ("containers", "initContainers"):
            for container in pod.get(key) or []:
                if isinstance(container, dict) and not container.get("securityContext"):
                    container["securityContext"] = pod_defaults.container_security_context()
    if cfg["pod_requests"]:
        for container in containers:
            if not container.get("resources"):
                container["resources"] = {"requests": copy.deepcopy(dict(cfg["pod_requests"]))}
    if cfg["pod_probes"] and containers and not any(containers[0].get(p) for p in pod_defaults.PROBE_KEYS):
        port = pod_defaults.server_port({}, "decode", containers[0])
        if port:
            containers[0].update(pod_defaults.probes(cfg["pod_probe_path"], port))


def _own_pod(record, obj, cfg, notes):
    template = obj.setdefault("spec", {}).setdefault("template", {})
    meta = template.setdefault("metadata", {})
    meta["labels"] = dict(meta.get("labels") or {}, **stacks.owned_labels(record["slug"]))
    pod = template.setdefault("spec", {})
    if record.get("affinity"):
        pod["affinity"] = copy.deepcopy(record["affinity"])
    tolerations = list(pod.get("tolerations") or [])
    for toleration in record.get("tolerations") or []:
        if toleration not in tolerations:
            tolerations.append(copy.deepcopy(toleration))
    if tolerations:
        pod["tolerations"] = tolerations
    secret = record["names"].get("harbor_pull_secret")
    if secret:
        pulls = [p for p in pod.get("imagePullSecrets") or [] if isinstance(p, dict) and p.get("name") != secret]
        pod["imagePullSecrets"] = pulls + [{"name": secret}]
    if stack_values.serves_from_claim(record):
        dropped = []
        for key in ("containers", "initContainers"):
            for position, container in enumerate(pod.get(key) or []):
                if isinstance(container, dict):
                    dropped.extend(_drop_secrets(container, "spec.template.spec.%s[%d]" % (key, position)))
        if dropped:
            notes.append("%s: dropped %s (Hugging Face token Secret %s): the model is served from its claim %s, "
                         "offline" % (_where(record, obj), ", ".join(key for key, _s in dropped),
                                      ", ".join(sorted(set(s for _k, s in dropped))), claim_name(record)))
        _mount_claim(pod, claim_name(record))
    _secure_defaults(pod, cfg)


def owned_objects(record, objects, settings=None):
    """``(objects, notes)``: the parsed model-server ``objects`` with the owned fields (module doc) applied; the
    objects given are not changed."""
    cfg = stack_values._settings(settings)  # pylint: disable=protected-access
    owned, notes = [], []
    for obj in objects or []:
        if not isinstance(obj, dict):
            continue
        obj = copy.deepcopy(obj)
        meta = obj.setdefault("metadata", {})
        meta["namespace"] = record["names"]["namespace"]
        meta["labels"] = dict(meta.get("labels") or {}, **dict(naming.model_labels(record["slug"]),
                                                               **{stacks.STACK_LABEL: stacks.V010.name}))
        if obj.get("kind") in POD_TEMPLATE_KINDS:
            _own_pod(record, obj, cfg, notes)
        owned.append(obj)
    return apply_order(owned), notes


# the order the objects are applied in (the apply waits on each workload until it is available): what a pod needs
# (its ServiceAccount, ConfigMaps) first, the workloads, then what refers to them
APPLY_ORDER = ("ServiceAccount", "ConfigMap", "Service", "Deployment", "StatefulSet", "PodDisruptionBudget",
               "HorizontalPodAutoscaler")


def apply_order(objects):
    """``objects`` in :data:`APPLY_ORDER` of their kinds (the given order within a kind; unknown kinds last)."""
    rank = dict((kind, index) for index, kind in enumerate(APPLY_ORDER))
    return [obj for _rank, _index, obj in sorted(
        (rank.get(obj.get("kind"), len(APPLY_ORDER)), index, obj) for index, obj in enumerate(objects))]


def kind_problems(record, objects):
    """One message per object that is not a mapping with a kind and name, or of a kind a model server has no
    business creating."""
    problems = []
    for position, obj in enumerate(objects or []):
        if not isinstance(obj, dict) or not obj.get("kind") or not (obj.get("metadata") or {}).get("name"):
            problems.append("%s: modelserver-%s/ object %d has no kind or metadata.name. Fix: write complete "
                            "Kubernetes objects." % (record["name"], record["slug"], position))
        elif obj["kind"] not in ALLOWED_KINDS:
            problems.append("%s: kind %s is not applied as part of a model server (allowed: %s). Fix: remove it; "
                            "RBAC, Secrets and cluster-wide objects are the site's." % (
                                _where(record, obj), obj["kind"], ", ".join(ALLOWED_KINDS)))
    return problems


def pod_template_labels(objects):
    """``{kind/name: labels}`` of every pod template of ``objects``."""
    return dict(("%s/%s" % (o["kind"], (o.get("metadata") or {}).get("name")),
                 ((((o.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels") or {}))
                for o in objects or [] if isinstance(o, dict) and o.get("kind") in POD_TEMPLATE_KINDS)


def serving_port(objects, default=8000):
    """The container port of the first pod template's first container (named ``http``, else the first), else
    ``default`` (the guides' 8000)."""
    for obj in objects or []:
        if isinstance(obj, dict) and obj.get("kind") in POD_TEMPLATE_KINDS:
            containers = (((obj.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
            if containers and isinstance(containers[0], dict):
                port = pod_defaults.server_port({}, "decode", dict(containers[0], modelCommand=None))
                if port:
                    return port
    return default
