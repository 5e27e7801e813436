# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The model plan: validated inputs in, one fully resolved record per enabled model out.

``build_plan(settings)`` checks everything first and collects every problem
(model, field, value, what is wrong, how to fix it) instead of stopping at the
first. Roles apply the records; none derives a name or a path on its own.
The record's fields are plan/schema.py's; the checks that are not one model
entry's, and ``Problem``/``format_problems``, are plan/checks.py's.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import posixpath

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import sources as src
from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import inputs as plan_inputs
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import stack_inputs
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import (
    CLUSTER, VARIABLE_PREFIX, Problem, check_collisions, check_namespace, check_pull_image, check_settings,
    check_sync, check_values_policy, setting_field)
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import (
    ACCESS_MODES, ACCESS_RWO, ACCESS_RWX, CATEGORIES, DEFAULT_ROUTER_MODE, DEFAULT_STACK, MODEL_FIELDS,
    ROUTER_GATEWAY_FIELDS, ROUTER_MODES, SOURCE_FIELDS, STACK_NAMES, STORAGE_CLAIM, STORAGE_HARBOR, STORAGE_NONE,
    V010_STACK)
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import reference
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import chart_facts

HOSTNAME_LABEL = naming.HOSTNAME_LABEL

DEFAULT_HOSTPATH_ROOT = "/var/lib/hostpath/models"


def hostpath_root(root=None):
    """The hostPath root the roles use: ``root``, or DEFAULT_HOSTPATH_ROOT when it is empty."""
    if root is not None and not isinstance(root, str):
        raise ValueError("expects a directory path or an empty value, got %r" % (root,))
    return root or DEFAULT_HOSTPATH_ROOT


MODEL_CACHE_MOUNT = "/model-cache"
PULL_MARKER = "/model-cache/.pulled"


def _list_subdirs(path):
    with os.scandir(path) as entries:
        return sorted(entry.name for entry in entries if entry.is_dir())


class _ModelChecker(object):
    """Validate one model entry and build its record."""

    def __init__(self, settings, category, index, entry, problems):
        self.settings = settings
        self.category = category
        self.entry = entry
        self.problems = problems
        name = entry.get("name") if isinstance(entry, dict) else None
        self.label = "%s/%s" % (category, name if isinstance(name, str) and name else "#%d" % index)
        self.ok = True
        # values_files key -> what the plan read: gaie, ms -> the parsed values files (the seed's stack); router ->
        # the parsed router values, modelserver -> the model server's objects (a list; llm-d v0.10)
        self.values = {}
        self.stack = DEFAULT_STACK
        self.router_mode = None

    def fail(self, field, value, problem, fix, severity="error"):
        self.problems.append(Problem(self.label, field, value, problem, fix, severity))
        if severity == "error":
            self.ok = False

    def warn(self, field, value, problem, fix):
        self.fail(field, value, problem, fix, severity="warning")

    def enabled(self):
        """True, False, or None when the entry is unusable."""
        if not isinstance(self.entry, dict):
            self.fail("entry", type(self.entry).__name__, "a model entry must be a mapping",
                      "write it as {name: <folder>, enabled: true, ...}")
            return None
        enabled = self.entry.get("enabled")
        if not isinstance(enabled, bool):
            self.fail("enabled", enabled, "enabled must be a boolean", "write enabled: true or enabled: false")
            return None
        return enabled

    def build(self):
        entry = self.entry
        unknown = sorted(set(entry) - set(MODEL_FIELDS), key=str)
        if unknown:
            self.fail("entry", unknown, "unknown model fields",
                      "use only %s (field names are case-sensitive)" % ", ".join(MODEL_FIELDS))
        self.stack = self._stack()
        if self.stack is None:
            return None
        self.router_mode = self._router_mode()
        if self.stack == V010_STACK and self.router_mode is None:
            return None
        name = entry.get("name")
        if not isinstance(name, str) or not name or "/" in name or name in (".", ".."):
            self.fail("name", name, "name must be the model's folder name under models/%s/" % self.category,
                      "set name to a folder name such as Qwen3-0.6B")
            return None
        if name != name.strip():  # plan_inputs: the name is refused, never trimmed
            self.fail("name", name, "the name has whitespace around it (a block scalar's newline?), so it is not "
                      "the folder's name", "write the folder name on one line, without spaces or a block scalar")
            return None
        node_selector = self._node_selector()
        namespace = self._optional_name("nameSpace", naming.DNS_LABEL_RE, naming.DNS_LABEL_MAX,
                                        "a namespace name (a DNS label)")
        release = self._optional_name("releaseName", naming.DNS_SUBDOMAIN_RE, naming.HELM_RELEASE_MAX,
                                      "a Helm release name (lowercase, digits, '-', at most 53)")
        model_dir = os.path.join(self.settings["models_dir"], self.category, name)
        slug = self._slug(model_dir)
        if slug is None:
            return None
        if not self._slug_fits(slug, namespace, release):
            return None
        names = naming.resource_names(slug, namespace, release)
        self._check_name_limits(names)
        if self.stack == V010_STACK:
            self._read_modelserver(model_dir, slug, names)
        for field, value, problem, fix in check_namespace(names["namespace"], bool(namespace), self.settings):
            self.fail(field, value, problem, fix)
        storage = self._storage(slug, names)
        if not self.ok:
            return None
        return self._record(name, slug, model_dir, names, node_selector, storage)

    def _stack(self):
        """The model's stack: its ``stack`` field, else aips_serving_stack, else the seed's (DEFAULT_STACK); an
        unknown name is a problem of the model (None: nothing else is checked); an unknown site default is
        reported once, by build_plan, and the model is checked as the seed's."""
        value = self.entry.get("stack")
        if value is None:
            site = self.settings.get("serving_stack")
            return site if site in STACK_NAMES else DEFAULT_STACK
        if value not in STACK_NAMES:
            self.fail("stack", value, "unknown serving stack", "set stack to one of %s, or remove it to use %s"
                      % (", ".join(STACK_NAMES), setting_field("serving_stack")))
            return None
        return value

    def _router_mode(self):
        """llm-d v0.10's router mode: the model's ``routerMode``, else aips_router_mode, else standalone (None on the
        seed's stack; an unknown site default is reported once, by build_plan). ``routerMode`` on a model of the
        seed's stack, or unknown, is a problem of the model."""
        value = self.entry.get("routerMode")
        if self.stack != V010_STACK:
            if value is not None:
                self.fail("routerMode", value, "routerMode is a setting of the %s stack, and the model's stack is %s"
                          % (V010_STACK, self.stack), "remove routerMode, or set stack: %s" % V010_STACK)
            return None
        if value is None:
            site = self.settings.get("router_mode")
            return site if site in ROUTER_MODES else DEFAULT_ROUTER_MODE
        if value not in ROUTER_MODES:
            self.fail("routerMode", value, "unknown router mode", "set routerMode to one of %s, or remove it to use "
                      "%s" % (", ".join(ROUTER_MODES), setting_field("router_mode")))
            return None
        return value

    def _router_gateway(self, names):
        """Gateway mode: the site Gateway the model's HTTPRoute attaches to (aips_router_gateway; build_plan has
        checked its shape), its namespace defaulted to the model's and its Service to Istio's ``<name>-istio``.
        A site without one is a problem of the model."""
        if self.router_mode != "gateway":
            return None
        gateway = self.settings.get("router_gateway") or {}
        if not isinstance(gateway, dict) or not gateway.get("name"):
            self.fail("routerMode", self.router_mode, "gateway mode attaches the model's HTTPRoute %s to the site's "
                      "Gateway, and %s names none" % (names["httproute"], setting_field("router_gateway")),
                      "set %s: {name: <Gateway>, namespace: <its namespace>, service: <its Service>}, or set "
                      "routerMode: standalone" % setting_field("router_gateway"))
            return None
        return {"name": gateway["name"], "namespace": gateway.get("namespace") or names["namespace"],
                "service": gateway.get("service") or naming.gateway_class_service_name(gateway["name"], "istio")}

    def _stack_fix(self, fix):
        """``fix`` prefixed, for the llm-d v0.10 stack, with where the model's stack came from."""
        if self.stack == DEFAULT_STACK:
            return fix
        return "the model's stack is %s (%s / stack): %s" % (self.stack, setting_field("serving_stack"), fix)

    def _node_selector(self):
        selector = self.entry.get("nodeSelector") or {}
        if not isinstance(selector, dict):
            self.fail("nodeSelector", selector, "nodeSelector must be a mapping of label to value",
                      "write it as {workload: gpu}")
            return {}
        for key, value in selector.items():
            if not isinstance(key, str) or not key or not isinstance(value, str):
                self.fail("nodeSelector.%s" % key, value, "node labels and values must be strings",
                          "quote the value, e.g. workload: \"gpu\"")
                continue
            why = naming.label_key_problem(key)
            if why:
                self.fail("nodeSelector", key, why, "use the node label's key as `kubectl get node --show-labels` "
                          "prints it, e.g. nodegroup or node.kubernetes.io/instance-type")
            why = naming.label_value_problem(value)
            if why:
                self.fail("nodeSelector.%s" % key, value, why, "use the node label's value as `kubectl get node "
                          "--show-labels` prints it, e.g. gpu-pool")
        return selector

    def _optional_name(self, field, pattern, limit, what):
        value = self.entry.get(field)
        if value is None:
            return None
        if not isinstance(value, str) or len(value) > limit or not pattern.match(value):
            self.fail(field, value, "%s must be %s" % (field, what),
                      "use lowercase letters, digits and '-' (at most %d characters), or drop %s" % (limit, field))
            return None
        return value

    def _slug(self, model_dir):
        first, second = naming.STACK_FOLDERS[self.stack]
        if not os.path.isdir(model_dir):
            if self.stack == DEFAULT_STACK:
                fix = ("create %s/gaie-<slug>/values.yaml and %s/ms-<slug>/values.yaml, or fix the name"
                       % (model_dir, model_dir))
            else:
                fix = self._stack_fix("create %s/router-<slug>/values.yaml and %s/modelserver-<slug>/ (a "
                                      "kustomization.yaml or manifest files), or fix the name" % (model_dir, model_dir))
            self.fail("name", self.entry["name"], "no model folder %s" % model_dir, fix)
            return None
        slug, folder_problems = naming.slug_from_folders(_list_subdirs(model_dir), self.stack)
        for problem in folder_problems:
            self.fail("folders", model_dir, problem,
                      self._stack_fix("keep exactly one %s<slug>/ and one %s<slug>/ folder with the same slug"
                                      % (first, second)))
        if slug is None:
            return None
        # the length is checked once, against every derived name, by _slug_fits
        why = naming.slug_problem(slug[:naming.SLUG_MAX])
        if why:
            self.fail("slug", slug, why, "rename %s%s/ and %s%s/ to a slug of lowercase letters, digits "
                      "and '-'" % (first, slug, second, slug))
            return None
        if self.stack == V010_STACK:
            self._read_router(model_dir, slug)
            return slug
        for chart, prefix in (("gaie", naming.GAIE_PREFIX), ("ms", naming.MS_PREFIX)):
            values = os.path.join(model_dir, prefix + slug, "values.yaml")
            if not os.path.isfile(values):
                self.fail("folders", values, "the values file is missing",
                          "create %s (it may hold only {})" % values)
                continue
            self.values[chart] = self._read_values(chart, values)
        return slug

    def _read_router(self, model_dir, slug):
        """llm-d v0.10: router-<slug>/values.yaml, parsed and checked for what the router chart refuses."""
        path = os.path.join(model_dir, naming.ROUTER_PREFIX + slug, "values.yaml")
        if not os.path.isfile(path):
            self.fail("folders", path, "the router values file is missing",
                      self._stack_fix("create %s (the llm-d-router chart's values, router.*; it may hold only {})"
                                      % path))
            return
        values = self._read_values("router", path)
        if values is None:
            return
        for key, problem, fix in stack_inputs.router_values_problems(values):
            self.fail("values_files.router", key, "%s: %s" % (path, problem), fix)
        self.values["router"] = values

    def _read_modelserver(self, model_dir, slug, names):
        """llm-d v0.10: the objects of modelserver-<slug>/ (kubectl kustomize, or the manifest files), checked."""
        directory = os.path.join(model_dir, naming.MODELSERVER_PREFIX + slug)
        try:
            objects = stack_inputs.read_modelserver(directory, root=self.settings["models_dir"],
                                                    kubectl_binary=self.settings.get("kubectl_binary"),
                                                    kubectl_field=setting_field("kubectl_binary"))
        except stack_inputs.ModelServerError as exc:
            self.fail(exc.field, exc.value, exc.reason, exc.fix)
            return
        seed_fullname = self._seed_fullname(model_dir, slug)
        for key, problem, fix in stack_inputs.modelserver_problems(objects, slug, names, seed_fullname):
            self.fail("values_files.modelserver", key, "%s: %s" % (directory, problem), fix)
        self.values["modelserver"] = objects

    def _seed_fullname(self, model_dir, slug):
        """The seed's model server name when the folder still holds ``ms-<slug>/values.yaml`` with a
        ``fullnameOverride`` (llm-d-modelservice names its Deployments ``<fullname>-decode``): a model that moves
        keeps the seed's objects until the move ends, so the v0.10 objects may not take those names. None
        otherwise (unreadable: the seed's own plan says so when the model is on it)."""
        path = os.path.join(model_dir, naming.MS_PREFIX + slug, "values.yaml")
        if not os.path.isfile(path):
            return None
        try:
            values = safe_yaml.load_file(path, root=self.settings["models_dir"])
        except safe_yaml.YamlFileError:
            return None
        name = values.get("fullnameOverride") if isinstance(values, dict) else None
        return name if isinstance(name, str) and name else None

    def _read_values(self, chart, path):
        """The parsed values file (safe_yaml: size, alias, depth limits, no link out of the models tree)."""
        try:
            values = safe_yaml.load_file(path, root=self.settings["models_dir"])
        except safe_yaml.YamlFileError as exc:
            self.fail("values_files.%s" % chart, path, exc.reason, exc.fix)
            return None
        if values is None:
            return {}
        if not isinstance(values, dict):
            self.fail("values_files.%s" % chart, path, "the values file must hold a mapping, it holds a %s"
                      % type(values).__name__, "write the chart values as a YAML mapping (or {})")
            return None
        return values

    def _limited_keys(self):
        if self.stack == V010_STACK:  # no Gateway nor seed releases of its own: the router release binds
            keys = ["namespace", "router_release", "gateway_service", "gateway_defaults"]
        else:
            keys = ["namespace", "infra_release", "gaie_release", "ms_release", "gateway",
                    "gateway_service", "gateway_defaults"]
        keys.append(naming.routing_kind(self.category == "embedder"))
        if self.entry.get("modelSource"):
            keys.extend(["pvc", "pv", "pull_job", "clear_job", "prune_job"])
        return keys

    def _slug_fits(self, slug, namespace, release):
        """One message with the real slug limit: the seed's 47, or less where a derived name binds."""
        limit, key = naming.slug_limit(self._limited_keys(), namespace, release)
        if len(slug) <= limit:
            return True
        if key is None:
            why = "the slug has %d characters, at most %d are allowed" % (len(slug), limit)
        else:
            what, name_limit, reason = naming.NAME_LIMITS[key]
            example = naming.resource_names(slug, namespace, release)[key]
            why = ("the slug has %d characters, at most %d are allowed for this model: the %s name '%s' "
                   "would have %d characters, over the limit of %d (%s)"
                   % (len(slug), limit, what, example, len(example), name_limit, reason))
        first, second = naming.STACK_FOLDERS[self.stack]
        fix = self._stack_fix("rename %s%s/ and %s%s/ to a slug of at most %d characters"
                              % (first, slug, second, slug, limit))
        if key in ("infra_release", "gateway"):
            fix += ", or set releaseName (the Gateway is named after it)"
        elif key == "namespace":
            fix += ", or set nameSpace"
        self.fail("slug", slug, why, fix)
        return False

    def _check_name_limits(self, names):
        keys = self._limited_keys()
        for key, message in naming.name_limit_problems(names, keys):
            field = {"namespace": "nameSpace", "infra_release": "releaseName", "gateway": "releaseName"}.get(key, "slug")
            if field != "slug" and not self.entry.get(field):
                field = "slug"
            what = "slug folders" if field == "slug" else field
            self.fail(field, names[key], message,
                      "shorten the %s so every derived name fits" % what if "characters, over the limit" in message
                      else "write the %s with lowercase letters, digits and '-' only (no dots: the Gateway's Service "
                      "is named after it and must be a DNS label)" % what)

    def _storage(self, slug, names):
        source = self.entry.get("modelSource")
        if source is None:
            return {"mode": STORAGE_NONE}
        if isinstance(source, str):
            return self._claim(source, names)
        if not isinstance(source, dict):
            self.fail("modelSource", source, "modelSource must be a mapping (Harbor artifact) or a pvc:// URI",
                      "write {harborRef, modelUri, storageSize, ...} or pvc://[namespace:]claim/sub/path")
            return None
        return self._harbor(slug, names, source)

    def _claim(self, uri, names):
        try:
            claim = src.parse_pvc_uri(uri)
        except ValueError as exc:
            self.fail("modelSource", uri, "invalid pvc:// URI: %s" % exc,
                      "write pvc://claim/sub/path, or pvc://%s:claim/sub/path" % names["namespace"])
            return None
        if claim["namespace"] and claim["namespace"] != names["namespace"]:
            self.fail("modelSource", uri,
                      "the claim's namespace '%s' is not the model's namespace '%s'; a pod mounts only "
                      "claims in its own namespace" % (claim["namespace"], names["namespace"]),
                      "drop the namespace from the URI, or set nameSpace: %s" % claim["namespace"])
            return None
        return {
            "mode": STORAGE_CLAIM,
            "claim": claim["claim"],
            "sub_path": claim["sub_path"],
            "namespace": names["namespace"],
            "model_artifacts_uri": claim["chart_uri"],
        }

    def _harbor(self, slug, names, source):
        settings = self.settings
        on_prem = settings.get("cloud_provider") == "on-prem"
        unknown = sorted(set(source) - set(SOURCE_FIELDS), key=str)
        if unknown:
            self.fail("modelSource", unknown, "unknown modelSource fields",
                      "use only %s (field names are case-sensitive)" % ", ".join(SOURCE_FIELDS))
        oci = self._parsed(source, "harborRef", reference.parse_oci_reference,
                           "write host/project/name:tag or host/project/name@sha256:<64 hex digits>")
        model_uri = self._parsed(source, "modelUri", src.parse_model_uri,
                                 "write hub/<org>/<name>, e.g. hub/Qwen/Qwen3-0.6B")
        size_bytes = self._parsed(source, "storageSize", _storage_quantity,
                                  "write a Kubernetes quantity with a binary suffix, e.g. 40Gi")
        harbor_host = settings.get("harbor_hostname")
        if oci and harbor_host and oci["registry"].lower() != harbor_host.lower():
            if on_prem:
                # air-gapped, harbor-creds goes wherever harborRef points: only Harbor itself may receive it
                self.fail("modelSource.harborRef", source.get("harborRef"),
                          "on-prem the artifact must be on Harbor (%s), not on %s: the pull Job sends harbor-creds "
                          "to that registry" % (harbor_host, oci["registry"]),
                          "point harborRef at %s/<project>/<name>:<tag> (no aips_values_policy_allow entry excuses "
                          "this: the Harbor robot's token would go to another host)" % harbor_host)
            else:
                self.warn("modelSource.harborRef", source.get("harborRef"),
                          "the artifact is not on %s, so harbor-creds may not authenticate the pull" % harbor_host,
                          "point harborRef at %s or check the registry's credentials" % harbor_host)
        if not on_prem and not (settings.get("harbor_user") and settings.get("harbor_token")):
            self.fail("modelSource", source.get("harborRef"),
                      "a Harbor modelSource needs harbor_user and harbor_token: the pull Job authenticates "
                      "with the harbor-creds secret", "set %s and %s (Vault for the token)"
                      % (setting_field("harbor_user"), setting_field("harbor_token")))
        storage_class = source.get("storageClass")
        node = source.get("hostpathNode")
        hostpath_dir = source.get("hostpathDir")
        # on-prem with a storageClass and no hostpathNode: a dynamic claim on RWX storage (NFS, Longhorn),
        # ReadWriteMany unless accessMode says otherwise; with a hostpathNode the hostPath PV wins, as before
        dynamic_on_prem = on_prem and bool(storage_class) and not node
        access_mode = source.get("accessMode", ACCESS_RWX if dynamic_on_prem else ACCESS_RWO)
        if access_mode not in ACCESS_MODES:
            self.fail("modelSource.accessMode", access_mode, "accessMode must be one of %s" % ", ".join(ACCESS_MODES),
                      "write ReadWriteOnce (one node mounts the claim), or ReadWriteMany with a storageClass that "
                      "offers it (NFS, Longhorn, EFS, Filestore, Azure Files)")
        elif on_prem and not dynamic_on_prem and access_mode != ACCESS_RWO:
            self.fail("modelSource.accessMode", access_mode,
                      "on-prem without a storageClass the claim binds to a hostPath PV, which only the node holding "
                      "the directory mounts",
                      "remove accessMode (ReadWriteOnce), add a storageClass of ReadWriteMany storage (NFS, "
                      "Longhorn), or serve from a ReadWriteMany claim you own with a pvc:// modelSource")
        if on_prem and not dynamic_on_prem:
            if storage_class:
                self.warn("modelSource.storageClass", storage_class,
                          "storageClass is ignored on-prem with a hostpathNode: the claim binds to a static hostPath PV",
                          "remove storageClass, or remove hostpathNode for a dynamic claim of that class")
                storage_class = None
            if not isinstance(node, str) or not node:
                self.fail("modelSource.hostpathNode", node, "on-prem needs the node that holds the hostPath directory",
                          "set hostpathNode to the node's kubernetes.io/hostname label, or a storageClass of "
                          "ReadWriteMany storage (NFS, Longhorn) for a dynamic claim")
            elif naming.label_value_problem(node):
                self.fail("modelSource.hostpathNode", node, "hostpathNode is matched against the node's "
                          "kubernetes.io/hostname label: " + naming.label_value_problem(node),
                          "set hostpathNode to the value of the node's kubernetes.io/hostname label "
                          "(kubectl get nodes -L kubernetes.io/hostname)")
            hostpath_dir = self._hostpath_dir(slug, hostpath_dir)
        else:
            where = "with a storageClass (a dynamic claim)" if dynamic_on_prem else "on cloud"
            for field, value in (("hostpathNode", node), ("hostpathDir", hostpath_dir)):
                if value:
                    self.warn("modelSource.%s" % field, value, "%s is ignored %s" % (field, where),
                              "remove %s, or remove storageClass for a hostPath claim" % field if dynamic_on_prem
                              else "remove %s, or set %s: on-prem" % (field, setting_field("cloud_provider")))
            node = hostpath_dir = None
        oras = self._oras_image()
        if oras:
            for field, value, problem, fix in check_pull_image(oras, slug, self.entry.get("name"), settings):
                self.fail(field, value, problem, fix)
        if not self.ok:
            return None
        return {
            "mode": STORAGE_HARBOR,
            "pvc": names["pvc"],
            "pv": names["pv"] if on_prem and not dynamic_on_prem else None,
            "pull_job": names["pull_job"],
            "clear_job": names["clear_job"],
            "prune_job": names["prune_job"],
            "size": source["storageSize"],
            "size_bytes": size_bytes,
            "storage_class": storage_class,
            "access_mode": access_mode,
            "hostpath_node": node,
            "hostpath_dir": hostpath_dir,
            "oci": dict(oci, reference=source["harborRef"]),
            "model_uri": source["modelUri"],
            "repo_id": model_uri["repo_id"],
            "oras_image": oras,
            "mount_path": MODEL_CACHE_MOUNT,
            "working_dir": MODEL_CACHE_MOUNT + "/" + model_uri["cache"],
            "marker": PULL_MARKER,
            "model_artifacts_uri": src.pvc_hf_uri(slug, source["modelUri"]),
        }

    def _placement(self, node_selector, storage, replicas):
        """The model pods' node selector, aligned with a single-node claim when more than one replica mounts it.

        A hostPath claim lives on its node: every replica is pinned there (the hostname label joins the
        selector). A dynamic ReadWriteOnce claim is attached to whichever node its first pod lands on, so a
        second replica elsewhere could never start: the plan fails with the two ways out.
        """
        node = storage.get("hostpath_node")
        pinned = (node_selector or {}).get(HOSTNAME_LABEL)
        if storage.get("mode") == STORAGE_HARBOR and node and pinned not in (None, node):
            # one replica or many: a pod pinned away from its hostPath PV never starts
            self.fail("nodeSelector", node_selector,
                      "%s must run where the hostPath claim is (%s), but nodeSelector asks for %s=%s"
                      % ("%d replicas" % replicas if replicas and replicas > 1 else "the serving pod", node,
                         HOSTNAME_LABEL, pinned),
                      "remove %s from nodeSelector (the plan pins the replicas to hostpathNode), or move "
                      "hostpathNode to %s" % (HOSTNAME_LABEL, pinned))
            return node_selector
        if storage.get("mode") != STORAGE_HARBOR or not replicas or replicas <= 1:
            return node_selector
        if node:
            return dict(node_selector or {}, **{HOSTNAME_LABEL: node})
        if storage.get("access_mode") == ACCESS_RWO:
            v010 = self.stack == V010_STACK
            self.fail("modelSource.accessMode", storage.get("access_mode"),
                      "%d replicas (%s) would share a ReadWriteOnce claim, "
                      "which only one node can mount: the replicas scheduled elsewhere never start"
                      % (replicas, "the Deployments' spec.replicas in modelserver-<slug>/" if v010
                         else "decode + prefill in ms-<slug>/values.yaml"),
                      "set modelSource.accessMode: ReadWriteMany with a storageClass that offers it (NFS, Longhorn, "
                      "EFS, Filestore, Azure Files), or serve one replica (%s)"
                      % ("one Deployment with replicas: 1" if v010 else "decode.replicas: 1, no prefill"))
        return node_selector

    def _parsed(self, source, field, parser, fix):
        value = source.get(field)
        if value is None:
            self.fail("modelSource.%s" % field, None, "%s is required" % field, fix)
            return None
        try:
            return parser(value)
        except ValueError as exc:
            self.fail("modelSource.%s" % field, value, str(exc), fix)
            return None

    def _hostpath_dir(self, slug, hostpath_dir):
        if hostpath_dir is None:
            return posixpath.join(self.settings.get("hostpath_root") or DEFAULT_HOSTPATH_ROOT, slug)
        if not isinstance(hostpath_dir, str) or not posixpath.isabs(hostpath_dir) \
                or posixpath.normpath(hostpath_dir) != hostpath_dir.rstrip("/") or hostpath_dir == "/":
            self.fail("modelSource.hostpathDir", hostpath_dir,
                      "hostpathDir must be an absolute, normalised directory path other than /",
                      "write e.g. %s/%s" % (DEFAULT_HOSTPATH_ROOT, slug))
            return None
        hostpath_dir = hostpath_dir.rstrip("/")
        root = (self.settings.get("hostpath_root") or DEFAULT_HOSTPATH_ROOT).rstrip("/") or "/"
        if not hostpath_dir.startswith(root.rstrip("/") + "/"):
            self.fail("modelSource.hostpathDir", hostpath_dir,
                      "hostpathDir must be a directory below the allowed root %s (hostpath_dirs refuses other "
                      "paths, and a PV must never expose a node path outside it)" % root,
                      "write %s/%s, or move the allowed root with %s" % (root, slug, setting_field("hostpath_root")))
            return None
        return hostpath_dir

    def _oras_image(self):
        """The oras_image setting, else the ORAS entry of the images list (image_plan.oras_image)."""
        settings = self.settings
        if settings.get("oras_image"):
            return settings["oras_image"]
        try:
            return image_plan.oras_image(settings.get("images"), settings.get("harbor_hostname"),
                                         settings.get("cloud_provider") == "on-prem", settings.get("oras_version"),
                                         plan=settings.get("image_records"))
        except ValueError as exc:
            self.fail("modelSource", self.entry["modelSource"].get("harborRef"),
                      "the pull Job has no ORAS image: %s" % exc,
                      "add the %s image to %simages (group_vars/all/images.yml), or set %s"
                      % (image_plan.ORAS_REPOSITORY, VARIABLE_PREFIX, setting_field("oras_image")))
            return None

    def _record(self, name, slug, model_dir, names, node_selector, storage):
        toleration = self.settings.get("gpu_toleration")
        embedder = self.category == "embedder"
        storage = dict(storage)
        storage["job_affinity"] = (node_affinity({HOSTNAME_LABEL: storage["hostpath_node"]})
                                   if storage.get("hostpath_node") else None)
        if self.stack == V010_STACK:
            values_files = {
                "router": os.path.join(model_dir, naming.ROUTER_PREFIX + slug, "values.yaml"),
                "modelserver": os.path.join(model_dir, naming.MODELSERVER_PREFIX + slug),
            }
            replicas = stack_inputs.modelserver_replicas(self.values.get("modelserver"))
        else:
            values_files = {
                "gaie": os.path.join(model_dir, naming.GAIE_PREFIX + slug, "values.yaml"),
                "ms": os.path.join(model_dir, naming.MS_PREFIX + slug, "values.yaml"),
            }
            replicas = count_replicas(self.values.get("ms"), self.settings.get("modelservice_defaults"))
        node_selector = self._placement(node_selector, storage, replicas)
        return {
            "name": name,
            "category": self.category,
            "embedder": embedder,
            "slug": slug,
            "stack": self.stack,
            "router_mode": self.router_mode,
            "router_gateway": self._router_gateway(names),
            "names": dict(names,
                          harbor_pull_secret=naming.HARBOR_PULL_SECRET if self.settings.get("harbor_token") else None),
            "routing_kind": naming.routing_kind(embedder),
            "namespace": names["namespace"],
            "node_selector": node_selector,
            "affinity": node_affinity(node_selector),
            "replicas": replicas,
            "tolerations": [toleration] if toleration else [],
            "model_dir": model_dir,
            "values_files": values_files,
            "storage": storage,
            "model_artifacts_uri": storage.get("model_artifacts_uri"),
        }


def serving_replicas(ms_values, defaults=None):
    """Pods of the modelservice that mount the model (decode + prefill), from its values file merged into the
    chart's defaults (chart_facts: prefill is created by default, with 0 replicas; a LeaderWorkerSet counts its
    group size). ``defaults`` are chart_facts.chart_defaults of llm-d-modelservice (None: its known facts).

    None when the file cannot be read or counted (the stack spec reports that).
    """
    try:
        values = safe_yaml.load_file(ms_values)
    except safe_yaml.YamlFileError:
        return None
    return count_replicas(values or {}, defaults)


def count_replicas(values, defaults=None):
    """``serving_replicas`` of parsed ms values; None when they are not a mapping."""
    if not isinstance(values, dict):
        return None
    try:
        return chart_facts.serving_pods(values, defaults)
    except ValueError:
        return None


def _storage_quantity(value):
    """parse_quantity, refusing a bare number: ``storageSize: 40`` would be 40 bytes, never what was meant."""
    size = src.parse_quantity(value)
    if isinstance(value, int) or str(value).isdigit():
        raise ValueError("a bare number has no unit, so Kubernetes would read it as %s byte%s"
                         % (value, "" if size == 1 else "s"))
    if size < 1024 ** 2:
        raise ValueError("%s is %d bytes, less than 1Mi: too small for model weights (check the unit: "
                         "Mi, Gi or Ti)" % (value, size))
    return size


def node_affinity(node_selector):
    """A hard nodeAffinity requiring every label of ``node_selector``; None when empty."""
    if not node_selector:
        return None
    expressions = [{"key": key, "operator": "In", "values": [value]}
                   for key, value in sorted(node_selector.items())]
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": expressions}]}}}


def _check_router_settings(settings, problems):
    """aips_router_mode is a known mode; aips_router_gateway, when set, a mapping of name, namespace and service,
    each a DNS name (the Gateway's name a DNS subdomain, its namespace and Service DNS labels)."""
    mode = settings.get("router_mode")
    if mode is not None and mode not in ROUTER_MODES:
        problems.append(Problem(CLUSTER, setting_field("router_mode"), mode, "unknown router mode",
                                "set %s to one of %s (the default is %s)" % (setting_field("router_mode"),
                                                                             ", ".join(ROUTER_MODES),
                                                                             DEFAULT_ROUTER_MODE)))
    gateway = settings.get("router_gateway")
    field = setting_field("router_gateway")
    if gateway in (None, {}):
        return
    if not isinstance(gateway, dict):
        problems.append(Problem(CLUSTER, field, type(gateway).__name__, "the router's Gateway must be a mapping",
                                "write %s as {name: <Gateway>, namespace: <its namespace>, service: <its Service>}"
                                % field))
        return
    for key in sorted(set(gateway) - set(ROUTER_GATEWAY_FIELDS), key=str):
        problems.append(Problem(CLUSTER, "%s.%s" % (field, key), gateway[key], "unknown field of the router's Gateway",
                                "use only %s" % ", ".join(ROUTER_GATEWAY_FIELDS)))
    rules = (("name", naming.DNS_SUBDOMAIN_RE, naming.DNS_SUBDOMAIN_MAX, "a Gateway name (a DNS subdomain)"),
             ("namespace", naming.DNS_LABEL_RE, naming.DNS_LABEL_MAX, "a namespace name (a DNS label)"),
             ("service", naming.DNS_LABEL_RE, naming.DNS_LABEL_MAX, "a Service name (a DNS label)"))
    for key, pattern, limit, what in rules:
        value = gateway.get(key)
        if value in (None, "") and key != "name":
            continue
        if not isinstance(value, str) or len(value) > limit or not pattern.match(value):
            problems.append(Problem(CLUSTER, "%s.%s" % (field, key), value, "%s.%s must be %s" % (field, key, what),
                                    "use lowercase letters, digits and '-' (at most %d characters)" % limit))


def build_plan(settings, image_records=None, parsed=None):
    """Validate ``settings`` and return ``(records, problems)``.

    ``settings`` holds cloud_provider, kubeconfig, harbor_hostname, harbor_user,
    harbor_token, gpu_toleration, models ({generative: [...], embedder: [...]}),
    models_dir, and optionally serving_stack (the site's default stack, naming.STACK_NAMES; a model's ``stack``
    overrides it), kubectl_binary (renders an llm-d v0.10 model server's Kustomize overlay; default kubectl),
    hostpath_root, oras_image, oras_version, chart_dir (the carried chart archives
    the chart defaults are read from, chart_facts), images (the aips_images list the
    ORAS image is taken from) and sync_models ([{repo_id, reference}] that model_sync publishes, checked
    against the models' modelSource).
    ``image_records``: the image plan of ``images`` built already (plan/task.py:plan_result builds it once per
    run), each model's ORAS image is read from it; None: each model builds it from ``images``.
    ``parsed``: a dict filled with each record's values files as read here (``{slug: {chart: values}}``, a copy
    taken before any check reads them), so that no later step reads the files again: ``{gaie, ms}`` for the
    seed's stack, ``{router: <values>, modelserver: [<objects>]}`` for llm-d v0.10.
    ``records`` is empty when any problem is an error.
    """
    settings, problems = plan_inputs.clean(settings)
    models = check_settings(settings, problems)
    site_stack = settings.get("serving_stack")
    if site_stack is not None and site_stack not in STACK_NAMES:
        problems.append(Problem(CLUSTER, setting_field("serving_stack"), site_stack, "unknown serving stack",
                                "set %s to one of %s (the default is %s)" % (setting_field("serving_stack"),
                                                                             ", ".join(STACK_NAMES), DEFAULT_STACK)))
    _check_router_settings(settings, problems)
    settings = dict(settings, image_records=image_records)
    try:
        settings["modelservice_defaults"] = chart_facts.chart_defaults(chart_facts.MODELSERVICE,
                                                                       settings.get("chart_dir"))[0]
    except ValueError as exc:
        problems.append(Problem(CLUSTER, setting_field("chart_dir"), settings.get("chart_dir"),
                                "the carried llm-d-modelservice chart cannot be read: %s" % exc,
                                "carry the chart again (harbor_upload, step charts_download), or unset %s to use "
                                "the known facts of %s %s" % (setting_field("chart_dir"), chart_facts.MODELSERVICE,
                                                              chart_facts.KNOWN_FACTS[chart_facts.MODELSERVICE]["version"])))
        return [], problems
    if not settings.get("models_dir") or not os.path.isdir(settings["models_dir"]):
        problems.append(Problem(CLUSTER, setting_field("models_dir"), settings.get("models_dir"),
                                "the models folder does not exist",
                                "point %s at the folder holding generative/ and embedder/"
                                % setting_field("models_dir")))
        return [], problems
    records = []
    values = {}  # slug -> {chart: parsed values}, for the checks across models
    for category in CATEGORIES:
        entries = models.get(category) or []
        if not isinstance(entries, list):
            problems.append(Problem(CLUSTER, "%s.%s" % (setting_field("models"), category),
                                    type(entries).__name__, "a category must hold a list of models",
                                    "write %s as a YAML list of entries" % category))
            continue
        for index, entry in enumerate(entries):
            checker = _ModelChecker(settings, category, index, entry, problems)
            if checker.enabled():
                record = checker.build()
                if record:
                    records.append(record)
                    values.setdefault(record["slug"], checker.values)
                    if parsed is not None:
                        parsed.setdefault(record["slug"], copy.deepcopy(checker.values))
    check_collisions(records, problems, values)
    check_values_policy(records, values, settings, problems)
    check_sync(records, settings, problems)
    if any(p.severity == "error" for p in problems):
        return [], problems
    return records, problems
