# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The llm-d v0.10 stack's inputs in a model folder, read and checked by the plan (plan/build.py calls them).

- ``router-<slug>/values.yaml``: the llm-d-router chart's values (everything under ``router.*``; ``provider`` and
  ``httpRoute`` for gateway mode). ``router_values_problems`` refuses what the chart's templates would fail on
  before Helm runs: the four top-level keys of GAIE's charts it refuses (``DEPRECATED_KEYS``, each with the
  ``router.*`` key it moved to), a ``router`` that is not a mapping, and an EPP resource request written as null
  (the chart requires ``router.epp.resources.requests.cpu`` and ``.memory``).
- ``modelserver-<slug>/``: the model server's objects, either a Kustomize overlay (``kustomization.yaml``, rendered
  with ``<kubectl_binary> kustomize <dir>``) or plain manifest files (every ``*.yaml``/``*.yml``, sorted,
  multi-document, read with plan/safe_yaml.py's limits). ``read_modelserver`` returns the objects;
  ``modelserver_problems`` checks them (apiVersion/kind/metadata.name, an apps/v1 Deployment with a container,
  the model's namespace only, no name of the seed's stack or of the collection's own objects, no cluster-scoped
  kind); ``modelserver_replicas`` counts the Deployments' pods.

Every problem is ``(key, problem, fix)``: the caller adds the model and the file.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import shutil
import subprocess

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml

# top-level keys of GAIE's inferencepool values the llm-d-router charts fail on -> where each moved
DEPRECATED_KEYS = (
    ("inferenceExtension", "router.epp (and the other router.* keys)"),
    ("inferencePool", "router.modelServers and router.inferencePool"),
    ("experimentalHttpRoute", "httpRoute (gateway chart; the standalone chart has no HTTPRoute)"),
    ("inferenceObjectives", "router.inferenceObjectives"),
)
EPP_REQUESTS = ("router", "epp", "resources", "requests")
KUSTOMIZATION_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")
MANIFEST_SUFFIXES = (".yaml", ".yml")
DEFAULT_KUBECTL = "kubectl"
KUSTOMIZE_TIMEOUT = 120
# kinds a model server may not carry: cluster-scoped, so not the model's namespace's to own
CLUSTER_KINDS = ("Namespace", "ClusterRole", "ClusterRoleBinding", "CustomResourceDefinition", "PersistentVolume",
                 "StorageClass", "PriorityClass", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration",
                 "APIService", "Node")


def router_values_problems(values):
    """``[(key, problem, fix)]`` of parsed router values (a mapping) the llm-d-router chart would refuse."""
    problems = []
    for key, moved in DEPRECATED_KEYS:
        if key in values:
            problems.append((key, "the llm-d-router chart refuses the top-level key %s (a GAIE inferencepool key, "
                             "deprecated)" % key, "move its settings to %s, and remove %s" % (moved, key)))
    router = values.get("router")
    if router is not None and not isinstance(router, dict):
        problems.append(("router", "router must be a mapping (the chart reads every value under router.*), it is "
                         "a %s" % type(router).__name__, "write router: {epp: {...}, modelServers: {...}, ...}"))
        return problems
    node, path = values, []
    for key in EPP_REQUESTS:
        path.append(key)
        if not isinstance(node, dict) or key not in node:
            return problems  # unset: the chart's defaults apply
        node = node[key]
        if node is None:
            problems.append((".".join(path), "%s is null, which removes the chart's default EPP resource requests; "
                             "the chart fails without router.epp.resources.requests.cpu and .memory" % ".".join(path),
                             "set router.epp.resources.requests.cpu and .memory (e.g. 100m and 256Mi), or remove "
                             "the null"))
            return problems
        if not isinstance(node, dict):
            where = ".".join(path)
            problems.append((where, "%s must be a mapping, it is a %s" % (where, type(node).__name__),
                             "write it as a mapping (requests: {cpu: 100m, memory: 256Mi})"))
            return problems
    for key in ("cpu", "memory"):
        if key in node and node[key] is None:
            problems.append(("router.epp.resources.requests.%s" % key,
                             "router.epp.resources.requests.%s is null: the chart fails without it" % key,
                             "set it (e.g. %s) or remove the null to keep the chart's default"
                             % ("cpu: 100m" if key == "cpu" else "memory: 256Mi")))
    return problems


def kustomization(directory):
    """The Kustomize file of ``directory``, or None when it holds plain manifests."""
    for name in KUSTOMIZATION_FILES:
        if os.path.isfile(os.path.join(directory, name)):
            return os.path.join(directory, name)
    return None


def manifest_files(directory):
    """The plain manifest files of ``directory``: every ``*.yaml``/``*.yml`` file, sorted."""
    return sorted(os.path.join(directory, name) for name in os.listdir(directory)
                  if name.endswith(MANIFEST_SUFFIXES) and os.path.isfile(os.path.join(directory, name)))


def kubectl_path(binary):
    """The kubectl ``binary`` (a path, or a name looked up on PATH) as run, or None when there is none."""
    binary = binary or DEFAULT_KUBECTL
    if os.sep in binary:
        return binary if os.path.isfile(binary) and os.access(binary, os.X_OK) else None
    return shutil.which(binary)


def run_kustomize(kubectl, directory, timeout=KUSTOMIZE_TIMEOUT):
    """The text ``<kubectl> kustomize <directory>`` prints; ValueError with its error output when it fails."""
    try:
        # pylint: disable-next=ansible-bad-function  # no AnsibleModule here: the plan runs in the action's process
        done = subprocess.run([kubectl, "kustomize", directory], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise ValueError("kubectl kustomize did not finish in %d s (a remote base in an air-gapped site?)" % timeout)
    except OSError as exc:
        raise ValueError("kubectl cannot be run (%s)" % (exc.strerror or type(exc).__name__))
    if done.returncode != 0:
        error = done.stderr.decode("utf-8", "replace").strip().splitlines()
        last = error[-1] if error else "no error output"
        raise ValueError("kubectl kustomize failed (exit %d): %s" % (done.returncode, last))
    if len(done.stdout) > safe_yaml.MAX_BYTES:
        raise ValueError("kubectl kustomize printed %d bytes, over the limit of %d"
                         % (len(done.stdout), safe_yaml.MAX_BYTES))
    try:
        return done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("kubectl kustomize printed text that is not UTF-8")


class ModelServerError(ValueError):
    """The model server folder cannot be read: ``field`` (the setting or file), ``value``, ``reason``, ``fix``."""

    def __init__(self, field, value, reason, fix):
        ValueError.__init__(self, "%s: %s. Fix: %s" % (value, reason, fix))
        self.field = field
        self.value = value
        self.reason = reason
        self.fix = fix


def read_modelserver(directory, root=None, kubectl_binary=None, kubectl_field="aips_kubectl_binary",
                     runner=run_kustomize):
    """The model server objects of ``directory`` (a list, empty documents dropped), or ModelServerError.

    With a kustomization file, what ``<kubectl_binary> kustomize <directory>`` prints (``runner`` runs it), else
    every manifest file. ``root``: the files must not resolve outside it (safe_yaml)."""
    kustomize = kustomization(directory)
    if kustomize:
        binary = kubectl_binary or DEFAULT_KUBECTL
        kubectl = kubectl_path(binary)
        if kubectl is None:
            raise ModelServerError(kubectl_field, binary, "%s renders the model server with kubectl kustomize, and "
                                   "no kubectl %s is found" % (kustomize, "at that path" if os.sep in binary
                                                               else "on PATH"),
                                   "install kubectl on the controller, or set %s to its path (or write the model "
                                   "server as plain manifests, without %s)"
                                   % (kubectl_field, os.path.basename(kustomize)))
        if root is not None and not safe_yaml.inside(kustomize, root):
            raise ModelServerError("values_files.modelserver", kustomize, "refused: it resolves to a file outside %s"
                                   % root, "replace the link with the folder itself, inside %s" % root)
        try:
            text = runner(kubectl, directory)
        except ValueError as exc:
            raise ModelServerError("values_files.modelserver", directory, str(exc),
                                   "fix the overlay until `kubectl kustomize %s` renders it" % directory)
        try:
            documents = safe_yaml.loads_all(text, "kubectl kustomize %s" % directory)
        except safe_yaml.YamlFileError as exc:
            raise ModelServerError("values_files.modelserver", directory, exc.reason, exc.fix)
        return [doc for doc in documents if doc is not None]
    files = manifest_files(directory)
    if not files:
        raise ModelServerError("values_files.modelserver", directory, "the model server folder holds neither a "
                               "kustomization.yaml nor a manifest file (*.yaml, *.yml)",
                               "add the model server's Deployment as a manifest file, or a Kustomize overlay "
                               "(kustomization.yaml)")
    objects = []
    for path in files:
        try:
            documents = safe_yaml.load_file_all(path, root=root)
        except safe_yaml.YamlFileError as exc:
            raise ModelServerError("values_files.modelserver", path, exc.reason, exc.fix)
        objects.extend(doc for doc in documents if doc is not None)
    return objects


def reserved_names(slug, names, seed_fullname=None):
    """Names a model server object may not take: the seed's model server (llm-d-modelservice's ``ms-<slug>``,
    ``ms-<slug>-decode``, ``ms-<slug>-prefill``, or with ``seed_fullname``, the ``fullnameOverride`` of the folder's
    ``ms-<slug>/values.yaml``, that name and its ``-decode``/``-prefill``) and the objects the collection or the
    router make for the model."""
    reserved = dict((base + suffix, "the seed stack's model server") for suffix in ("", "-decode", "-prefill")
                    for base in [naming.MS_PREFIX + slug] + ([seed_fullname] if seed_fullname else []))
    for key in ("epp_service", "router_epp", "gateway_service", "embeddings_service", "pvc", "gateway_defaults",
                "httproute"):
        if names.get(key):
            reserved.setdefault(names[key], "the model's %s" % naming.NAME_LIMITS[key][0])
    return reserved


def _describe(obj, index):
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    kind = obj.get("kind") if isinstance(obj, dict) else None
    return "%s %s" % (kind or "object", name) if name else "object #%d" % (index + 1)


def modelserver_problems(objects, slug, names, seed_fullname=None):
    """``[(key, problem, fix)]`` of the model server ``objects`` of the model ``slug`` (``names``: its record's
    names, for its namespace and the reserved names; ``seed_fullname``: :func:`reserved_names`)."""
    problems = []
    namespace = names["namespace"]
    reserved = reserved_names(slug, names, seed_fullname)
    seen = set()
    deployments = 0
    for index, obj in enumerate(objects):
        what = _describe(obj, index)
        if not isinstance(obj, dict):
            problems.append((what, "every document must be a Kubernetes object (a mapping), this one is a %s"
                             % type(obj).__name__, "remove it, or write it as an object with apiVersion, kind "
                             "and metadata.name"))
            continue
        meta = obj.get("metadata")
        missing = [key for key, value in (("apiVersion", obj.get("apiVersion")), ("kind", obj.get("kind")),
                                          ("metadata.name", meta.get("name") if isinstance(meta, dict) else None))
                   if not isinstance(value, str) or not value]
        if missing:
            problems.append((what, "the object has no %s" % ", ".join(missing),
                             "give every object apiVersion, kind and metadata.name"))
            continue
        kind, name = obj["kind"], meta["name"]
        if kind in CLUSTER_KINDS:
            problems.append((what, "%s is cluster-scoped; a model server holds only objects of the model's "
                             "namespace" % kind, "remove it from the model server (cluster objects are the "
                             "site's, outside the collection)"))
        other = meta.get("namespace")
        if other is not None and other != namespace:
            problems.append((what, "its metadata.namespace is %s, not the model's namespace %s" % (other, namespace),
                             "remove metadata.namespace (the collection applies the objects in %s), or set "
                             "nameSpace to %s" % (namespace, other)))
        if name in reserved and kind not in CLUSTER_KINDS:
            problems.append((what, "the name %s is %s's: both stacks live in the namespace during a move"
                             % (name, reserved[name]),
                             "rename it (a Kustomize namePrefix: %s-vllm- gives %s-vllm-decode)" % (slug, slug)))
        if (obj["apiVersion"], kind, name) in seen:
            problems.append((what, "the object is defined twice", "keep one definition of %s" % what))
        seen.add((obj["apiVersion"], kind, name))
        if kind == "Deployment" and obj["apiVersion"] == "apps/v1":
            deployments += 1
            problems.extend(_deployment_problems(obj, what))
    if not deployments:
        problems.append(("objects", "the model server has no apps/v1 Deployment",
                         "add the decode Deployment (%s-decode, container modelserver)" % slug))
    return problems


def _deployment_problems(obj, what):
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    template = spec.get("template") if isinstance(spec.get("template"), dict) else {}
    pod = template.get("spec") if isinstance(template.get("spec"), dict) else {}
    problems = []
    if not isinstance(pod.get("containers"), list) or not pod["containers"]:
        problems.append((what, "the Deployment has no container (spec.template.spec.containers)",
                         "give it the model server container (e.g. modelserver, vllm serve <org/name>)"))
    replicas = spec.get("replicas")
    if replicas is not None and (isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0):
        problems.append(("%s spec.replicas" % what, "spec.replicas must be a whole number (0 or more), it is %r"
                         % (replicas,), "write e.g. replicas: 1"))
    return problems


def modelserver_replicas(objects):
    """Pods of the model server: the sum of its apps/v1 Deployments' spec.replicas (1 when unset); None when a
    count cannot be read."""
    total = 0
    for obj in objects or []:
        if not isinstance(obj, dict) or obj.get("kind") != "Deployment" or obj.get("apiVersion") != "apps/v1":
            continue
        spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
        replicas = spec.get("replicas", 1)
        if replicas is None:
            replicas = 1
        if isinstance(replicas, bool) or not isinstance(replicas, int) or replicas < 0:
            return None
        total += replicas
    return total
