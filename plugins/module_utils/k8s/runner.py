# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model storage against the cluster API, on kubernetes.core's client.

``PullApi`` gives pull_wait.PullWaiter what it reads (the Job, its pods, a
bounded watch, the pod log). ``apply_storage`` creates the PV, the claim and
the pull Job of one plan record, replacing the Job when its spec changed
(Jobs are immutable) and never changing an existing PV or claim. ``run_module``
is the main() of the modules that work on the cluster.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import time

from ansible_collections.ai_platform.serving.plugins.module_utils import args_common, naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack.live_state import object_key
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.settled import index_objects
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.client import get_api_client
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.core import AnsibleK8SModule
from ansible_collections.kubernetes.core.plugins.module_utils.k8s.exceptions import CoreException

try:
    from kubernetes.client.rest import ApiException
    from kubernetes.dynamic.exceptions import DynamicApiError, ForbiddenError, NotFoundError, ResourceNotFoundError
except ImportError:  # handled by AnsibleK8SModule's requirement check
    ApiException = DynamicApiError = ForbiddenError = NotFoundError = ResourceNotFoundError = Exception


class PullApiError(Exception):
    """An API call failed; the message names the object."""


# The module class run_module builds: AnsibleModule, or (the last one pushed here) the stand-in of a module running in
# the playbook's process (plugins/plugin_utils/in_process.py, which pushes and pops it around the module's main()).
# The list is args_common's, which every module's main() reads (args_common.module_class).
MODULE_CLASS = args_common.MODULE_CLASS


def run_module(argument_spec, execute, errors=(), before_client=None):
    """Build the module (check mode supported), get kubernetes.core's cached client, ``execute(module, client)``.

    ``before_client(module)`` runs first and may exit without a client (argument checks, check mode
    that reads nothing). An exception of ``errors`` fails with its message, a CoreException as
    kubernetes.core fails with one.
    """
    module = AnsibleK8SModule(module_class=args_common.module_class(),
                              argument_spec=argument_spec, supports_check_mode=True)
    if before_client is not None:
        before_client(module)
    try:
        execute(module, get_api_client(module))
    except errors as exc:
        module.fail_json(msg=str(exc))
    except CoreException as exc:
        module.fail_from_exception(exc)


def live_objects(client, definitions):
    """{(apiVersion, kind, namespace, name): live object or None} for every definition, one read each (a kind the
    cluster does not serve: None). What stack/live_state.py compares against what the roles would apply."""
    found = {}
    for definition in definitions:
        key = object_key(definition)
        if key in found:
            continue
        api_version, kind, namespace, name = key
        try:
            resource = client.resource(kind, api_version)
            found[key] = _dict(client.get(resource, name=name, namespace=namespace or None))
        except (NotFoundError, ResourceNotFoundError):
            found[key] = None
    return found


def _dict(instance):
    if instance is None:
        return None
    return instance.to_dict() if hasattr(instance, "to_dict") else dict(instance)


class PullApi(object):
    """The reads PullWaiter needs, for one Job."""

    def __init__(self, client, namespace, job_name):
        self.client = client
        self.namespace = namespace
        self.job_name = job_name
        self.jobs = client.resource("Job", "batch/v1")
        self.pods = client.resource("Pod", "v1")
        self.pods_version = None

    def get_job(self):
        try:
            return _dict(self.client.get(self.jobs, name=self.job_name, namespace=self.namespace))
        except NotFoundError:
            return None

    def list_pods(self):
        found = _dict(self.client.get(self.pods, namespace=self.namespace,
                                      label_selector="job-name=%s" % self.job_name)) or {}
        self.pods_version = (found.get("metadata") or {}).get("resourceVersion")
        return found.get("items") or []

    def list_events(self):
        """Events of the Job (FailedCreate says why it has no pod)."""
        events = self.client.resource("Event", "v1")
        found = self.client.get(events, namespace=self.namespace,
                                field_selector="involvedObject.kind=Job,involvedObject.name=%s" % self.job_name)
        return (_dict(found) or {}).get("items") or []

    def watch_pods(self, timeout):
        """Return the pod of the first event on the Job's pods after the last list_pods() (None after ``timeout``).

        A pod's status changes the moment its container ends, before the Job controller marks the Job.
        """
        try:
            for event in self.client.client.watch(self.pods, namespace=self.namespace,
                                                  label_selector="job-name=%s" % self.job_name,
                                                  resource_version=self.pods_version,
                                                  timeout=max(1, int(timeout))):
                return _dict((event or {}).get("raw_object") or (event or {}).get("object"))
        except (ApiException, DynamicApiError):
            # 410 Gone (an old resourceVersion) and the like: the caller re-reads the Job and its pods.
            time.sleep(0.2)

    def pod_log(self, pod_name, lines=20, container=manifests.CONTAINER):
        from kubernetes.client import CoreV1Api
        try:
            api = CoreV1Api(self.client.client.client)
            return api.read_namespaced_pod_log(pod_name, self.namespace, container=container, tail_lines=lines)
        except Exception as exc:  # the log is extra detail; never hide the real failure behind it
            return "(no log: %s)" % exc


def _get(client, resource, name, namespace=None):
    try:
        return _dict(client.get(resource, name=name, namespace=namespace))
    except NotFoundError:
        return None


def _create(client, resource, definition, check_mode):
    if check_mode:
        return definition
    try:
        return _dict(client.create(resource, definition, namespace=definition["metadata"].get("namespace")))
    except (ApiException, DynamicApiError) as exc:
        detail = exc.summary() if hasattr(exc, "summary") else exc
        raise PullApiError("creating %s %s failed: %s" % (definition["kind"], definition["metadata"]["name"], detail))


def wait_gone(client, resource, name, namespace, timeout=180):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _get(client, resource, name, namespace) is None:
            return True
        time.sleep(0.5)
    return False


def delete(client, resource, name, namespace=None, check_mode=False, timeout=180):
    """Delete with foreground propagation (a Job's pods go first) and wait until it is gone."""
    if _get(client, resource, name, namespace) is None:
        return False
    if check_mode:
        return True
    body = {"kind": "DeleteOptions", "apiVersion": "v1", "propagationPolicy": "Foreground"}
    try:
        client.delete(resource, name=name, namespace=namespace, body=body)
    except NotFoundError:
        return True
    if not wait_gone(client, resource, name, namespace, timeout):
        raise PullApiError("%s %s%s is still there %ds after its deletion (finalizers? a pod still mounting it?)"
                           % (resource.kind, ("%s/" % namespace) if namespace else "", name, timeout))
    return True


def _ensure(client, resource, wanted, conflicts, check_mode, what, kinds, seen=None):
    """Create ``wanted`` when it is missing and return "created"; an existing one that matches is "present".

    One that does not match (``conflicts(wanted, live)`` lists how) is an error: ``what`` names it
    ("<slug>: claim <ns>/<name>"), ``kinds`` says what is never changed ("Claims"). ``seen`` (a list) gets the
    object as read (None when missing).
    """
    meta = wanted["metadata"]
    live = _get(client, resource, meta["name"], meta.get("namespace"))
    if seen is not None:
        seen.append(live)
    problems = conflicts(wanted, live)
    if problems:
        raise PullApiError("%s exists but %s. %s are never changed: delete it (playbooks/recover.yml) to have it "
                           "recreated" % (what, "; ".join(problems), kinds))
    if live is not None:
        return "present"
    _create(client, resource, wanted, check_mode)
    return "created"


def apply_storage(client, record, digest, expected_size=0, check_mode=False, replace_failed=True,
                  hostpath_storage_class="", job_options=None, job=None):
    """Create what is missing for ``record``; return (changed, actions, manifests): the PV, claim and Job manifests
    and ``claim_annotations``, those of the claim as read ({} when it was created). ``job``: the pull Job already
    built (model_storage_state's), placed here on the claim's holder instead of built again from ``job_options``."""
    job_options = job_options or {}
    pv_res = client.resource("PersistentVolume", "v1")
    pvc_res = client.resource("PersistentVolumeClaim", "v1")
    job_res = client.resource("Job", "batch/v1")
    storage = record["storage"]
    namespace = record["namespace"]
    wanted_pv = manifests.pv_manifest(record, hostpath_storage_class)
    wanted_pvc = manifests.pvc_manifest(record, hostpath_storage_class)
    holder = claim_holder(client, record)
    if job:
        pulls = ((job.get("metadata") or {}).get("annotations") or {}).get(manifests.ANNOTATION_DIGEST)
        if pulls != digest:
            raise manifests.StorageError("%s: the pull Job given pulls %s, not the artifact's %s"
                                         % (record["slug"], pulls, digest))
        wanted_job = manifests.placed(job, holder)
    else:
        wanted_job = manifests.job_manifest(record, digest, expected_size=expected_size, holder_node=holder,
                                            **job_options)
    actions = {}
    if wanted_pv:
        actions["pv"] = _ensure(client, pv_res, wanted_pv, claims.pv_conflicts, check_mode,
                                "%s: PersistentVolume %s" % (record["slug"], storage["pv"]), "PVs")
    seen_claim = []
    actions["pvc"] = _ensure(client, pvc_res, wanted_pvc, claims.pvc_conflicts, check_mode,
                             "%s: claim %s/%s" % (record["slug"], namespace, storage["pvc"]), "Claims", seen_claim)
    changed = "created" in actions.values()
    live_job = _get(client, job_res, storage["pull_job"], namespace)
    action, why = manifests.job_action(live_job, wanted_job, replace_failed)
    if action == "replace":
        delete(client, job_res, storage["pull_job"], namespace, check_mode)
    if action in ("create", "replace"):
        _create(client, job_res, wanted_job, check_mode)
        changed = True
    actions["job"] = {"create": "created", "replace": "replaced", "keep": "kept"}[action]
    actions["job_reason"] = why
    annotations = ((seen_claim[0] or {}).get("metadata") or {}).get("annotations") or {}
    return changed, actions, {"pv": wanted_pv, "pvc": wanted_pvc, "job": wanted_job, "claim_annotations": annotations}


def list_model_cache(client, namespaces, with_volumes=True):
    """The model cache's claims, PVs and pull Jobs (label selection ``model_cache``), each indexed by
    (namespace, name) (storage.settled.index_objects): one list call per kind, whatever the number of models.

    Claims and Jobs of several namespaces come from one list across all namespaces, kept to ``namespaces``;
    where that list is forbidden (an account whose rights stop at namespaces), one list per kind and namespace.
    PVs are listed only ``with_volumes`` (on-prem records have one)."""
    selector = ",".join(naming.label_selectors(naming.SELECTIONS["model_cache"]))
    wanted = set(namespaces)

    def items(kind, api_version, namespace=None):
        found = client.get(client.resource(kind, api_version), namespace=namespace, label_selector=selector)
        return (_dict(found) or {}).get("items") or []

    def namespaced(kind, api_version):
        if len(wanted) > 1:
            try:
                return [item for item in items(kind, api_version)
                        if (item.get("metadata") or {}).get("namespace") in wanted]
            except ForbiddenError:
                pass
        listed = []
        for namespace in sorted(wanted):
            listed += items(kind, api_version, namespace)
        return listed

    claims = namespaced("PersistentVolumeClaim", "v1")
    jobs = namespaced("Job", "batch/v1")
    volumes = items("PersistentVolume", "v1") if with_volumes else []
    return index_objects(claims), index_objects(volumes), index_objects(jobs)


def claim_holder(client, record):
    """The node whose serving pods hold the record's single-node claim (claims.claim_holder_node); None
    without such a claim or pods (one pod list only for a dynamic ReadWriteOnce claim)."""
    storage = record["storage"]
    if not claims.single_node_claim(storage):
        return None
    pods = (_dict(client.get(client.resource("Pod", "v1"), namespace=record["namespace"])) or {}).get("items") or []
    return claims.claim_holder_node(record, pods, [storage["pull_job"], storage.get("prune_job")])


def run_claim_job(client, job, timeout, check_mode=False):
    """Create a short Job on a claim (replacing a leftover one), wait for it, delete it; return its pod log
    tail on failure as a PullApiError."""
    job_res = client.resource("Job", "batch/v1")
    name, namespace = job["metadata"]["name"], job["metadata"]["namespace"]
    delete(client, job_res, name, namespace, check_mode)
    if check_mode:
        return
    _create(client, job_res, job, check_mode)
    deadline = time.monotonic() + timeout
    state = None
    while time.monotonic() < deadline:
        live = _get(client, job_res, name, namespace)
        if manifests.job_condition(live, "Complete"):
            state = "Complete"
            break
        if manifests.job_condition(live, "Failed"):
            state = "Failed"
            break
        time.sleep(0.5)
    if state != "Complete":
        api = PullApi(client, namespace, name)
        pods = api.list_pods()
        log = api.pod_log(pods[-1]["metadata"]["name"], container=job["spec"]["template"]["spec"]["containers"][0][
            "name"]) if pods else "(no pod)"
        raise PullApiError("Job %s/%s %s: %s" % (namespace, name, "failed" if state else "did not finish in %ds" % timeout,
                                                 log.strip()[-600:]))
    delete(client, job_res, name, namespace)


def remove_storage(client, record, check_mode=False, keep_claim=False):
    """Delete the Job, the claim and the PV of ``record`` (the seed's recovery); return the deleted kinds."""
    storage = record["storage"]
    namespace = record["namespace"]
    removed = []
    if delete(client, client.resource("Job", "batch/v1"), storage["pull_job"], namespace, check_mode):
        removed.append("job")
    if not keep_claim:
        if delete(client, client.resource("PersistentVolumeClaim", "v1"), storage["pvc"], namespace, check_mode):
            removed.append("pvc")
        if storage.get("pv") and delete(client, client.resource("PersistentVolume", "v1"), storage["pv"], None,
                                        check_mode):
            removed.append("pv")
    return removed
