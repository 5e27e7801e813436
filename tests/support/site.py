# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lab site builder of the cluster test folders (model_storage, serving_stack, cache_gc, hardening).

A Site is one test's own site: models on one MiniLM artifact under fresh slugs (a random suffix), their
values folders, an inventory (the controller and, where the nodes stage runs, the lab node), the site
variables, the playbook runs, and the cleanup of what those made: namespaces, PVs, hostPath directories.
Tests never share a slug, a namespace, a PV or a tag. The names are the seed's (tests assert them).
A RequestLoop is a bounded loop of GETs from a pod in `default` during a run (a stack move), and
``loop_summary`` what its log says (total, failed, the longest outage).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import calendar
import copy
import json
import os
import shutil
import subprocess
import sys
import time
import uuid

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import oras_image
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import CARRIED, GPU_TOLERATION, pod, publish, real_chart_variables
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook

PULL_UID = 65532  # the pull Job's non-root uid: hostpath_dirs gives it the model directories
MINILM_URI = "hub/sentence-transformers/all-MiniLM-L6-v2"
ORAS_IMAGE = oras_image(CARRIED["aips_images"], HARBOR, on_prem=True)
# model_storage alone: the real plan, then the role, its results written to aips_test_results
APPLY = os.path.join(ROOT, "tests", "integration", "model_storage", "apply.yml")
# the lab's own models (models/<category>/<folder>/{gaie,ms}-<slug>), whose values name the lab's images
LAB_VALUES = {"embedder": ("all-MiniLM-L6-v2-lab", "minilm-lab"), "generative": ("sim-qwen3-lab", "sim-qwen3-lab")}
MINIMAL_VALUES = {"gaie": "--- {}\n", "ms": "---\ndecode:\n  replicas: 1\n"}
BUSYBOX = "%s/images-infra/library/busybox:1.35.0" % HARBOR
# The request loop's script (sh -c SCRIPT request-loop URL COUNT INTERVAL TIMEOUT): at most COUNT GETs of URL, one
# every INTERVAL s, each given TIMEOUT s; one line per request, `<epoch seconds when it started> ok|fail`, then
# `end <n>`. It stops by itself after COUNT requests, or at its next request once /tmp/stop exists (RequestLoop.stop).
# busybox 1.35's date has no %N: a time is the first epoch second after the script started (it waits for it) plus
# /proc/uptime's hundredths since then. `timeout`, not wget -T: busybox 1.35's wget -T crashes (SIGSEGV).
LOOP_SCRIPT = r"""
url=$1 count=$2 interval=$3 timeout=$4 i=0
hundredths() { read -r up _ < /proc/uptime; echo $((${up%.*} * 100 + 1${up#*.} - 100)); }
second=$(date +%s)
while [ "$(date +%s)" = "$second" ]; do :; done
base=$(((second + 1) * 100 - $(hundredths)))
while [ "$i" -lt "$count" ] && [ ! -e /tmp/stop ]; do
  now=$((base + $(hundredths)))
  t=$((now / 100)).$(printf %02d $((now % 100)))
  if timeout "$timeout" wget -q -O /dev/null "$url"; then echo "$t ok"; else echo "$t fail"; fi
  i=$((i + 1))
  sleep "$interval"
done
echo "end $i"
"""


def namespace_of(slug):
    return "llm-d-" + slug


def pv_of(slug):
    return slug + "-model-pv"


def pvc_of(slug):
    return slug + "-model"


def job_of(slug):
    return slug + "-model-pull"


def values_path(models_dir, category, name, slug, prefix):
    return os.path.join(models_dir, category, name, "%s-%s" % (prefix, slug), "values.yaml")


def write_inventory(path, node=None):
    """The `serving` hosts of a site inventory: `controller` (localhost) and, given the lab node's name, the
    `k8s_nodes` host `lab-node` (local too: the lab's node is this machine)."""
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable}
    groups = {"controller": {"hosts": {"localhost": local}}}
    if node:
        groups["k8s_nodes"] = {"hosts": {"lab-node": dict(local, hostpath_dirs_node_name=node)}}
    with open(path, "w") as handle:
        yaml.safe_dump({"all": {"children": {"serving": {"children": groups}}}}, handle)
    return path


def read_marker(directory):
    """The parsed `.pulled` marker in ``directory``, or None."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_marker import parse_marker
    path = os.path.join(directory, ".pulled")
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return parse_marker(handle.read())


def edit_yaml(path, change):
    with open(path) as handle:
        values = yaml.safe_load(handle) or {}
    change(values)
    with open(path, "w") as handle:
        yaml.safe_dump(values, handle)


def loop_requests(text):
    """``[(epoch seconds, ok)]`` of a request loop's log (LOOP_SCRIPT's lines; any other line is left out)."""
    found = []
    for line in (text or "").splitlines():
        fields = line.split()
        if len(fields) != 2 or fields[1] not in ("ok", "fail"):
            continue
        try:
            found.append((float(fields[0]), fields[1] == "ok"))
        except ValueError:
            continue
    return found


def loop_summary(text, switch=None):
    """What a request loop's log says: ``total``, ``failed``, ``first``/``last`` (the first and last request's
    time), ``first_failure``/``last_failure`` (None without failures), ``longest_outage`` (seconds, the longest run
    of consecutive failures: from its first request to the next request that succeeded, or to its last request when
    none did), ``longest_run`` (that run's count of failed requests), ``ended`` (the loop printed its `end` line)
    and, given ``switch`` (epoch seconds), ``before``/``after`` and ``failed_before``/``failed_after`` (the requests
    started before / at or after it)."""
    requests = loop_requests(text)
    failures = [when for when, ok in requests if not ok]
    summary = {"total": len(requests), "failed": len(failures),
               "first": requests[0][0] if requests else None, "last": requests[-1][0] if requests else None,
               "first_failure": failures[0] if failures else None, "last_failure": failures[-1] if failures else None,
               "ended": any(line.startswith("end ") for line in (text or "").splitlines())}
    runs, start, count, latest = [], None, 0, None
    for when, ok in requests:
        if not ok:
            start, count, latest = when if start is None else start, count + 1, when
        elif start is not None:
            runs.append((when - start, count))
            start, count = None, 0
    if start is not None:
        runs.append((latest - start, count))
    summary["longest_outage"], summary["longest_run"] = max(runs) if runs else (0.0, 0)
    if switch is not None:
        summary["before"] = len([1 for when, _ok in requests if when < switch])
        summary["after"] = summary["total"] - summary["before"]
        summary["failed_before"] = len([1 for when in failures if when < switch])
        summary["failed_after"] = summary["failed"] - summary["failed_before"]
    return summary


def last_change(obj):
    """Epoch seconds of the newest ``metadata.managedFields`` time of a live object (when a client last changed
    it: a Service's selector or ExternalName switch, say), or None."""
    times = [entry.get("time") for entry in (obj or {}).get("metadata", {}).get("managedFields") or []]
    times = [calendar.timegm(time.strptime(when, "%Y-%m-%dT%H:%M:%SZ")) for when in times if when]
    return float(max(times)) if times else None


def loop_line(what, summary):
    """``<what>: F of N requests failed, longest outage S s`` (and the first and last failure's time)."""
    line = "%s: %d of %d requests failed, longest outage %.1f s" % (
        what, summary["failed"], summary["total"], summary["longest_outage"])
    if summary["failed"]:
        line += " (%d in a row; failures from %.2f to %.2f)" % (
            summary["longest_run"], summary["first_failure"], summary["last_failure"])
    return line


class Site(object):
    """The base of a test's site. Subclasses name their models and say which exist (``slugs()``, ``models()``);
    ``fixed`` holds the variables every run of the folder's tests adds."""

    def __init__(self, lab, kube, tmp, hub=None, prefix="tst", hostpath_root=None, nodes=True):
        self.lab, self.kube, self.tmp, self.hub = lab, kube, tmp, hub
        self.suffix = uuid.uuid4().hex[:6]
        self.repository = "%s-minilm-%s" % (prefix, self.suffix)
        self.models_dir = os.path.join(str(tmp), "models")
        self.hostpath_root = hostpath_root
        self.inventory = write_inventory(os.path.join(str(tmp), "hosts.yml"), lab["AIPS_LAB_NODE"] if nodes else None)
        self.results = os.path.join(str(tmp), "results-%s.json" % self.suffix)
        self.published = None
        self.fixed = {}
        self.scratch = []  # directories removed at cleanup

    def all_slugs(self):
        raise NotImplementedError

    def models(self):
        """aips_models of the site."""
        raise NotImplementedError

    def make_folders(self, category, name, slug, lab_values=False):
        """The model's gaie-/ms-<slug> values folders: minimal ones, or the lab model's of ``category`` under
        this slug."""
        for prefix in ("gaie", "ms"):
            path = values_path(self.models_dir, category, name, slug, prefix)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            text = MINIMAL_VALUES[prefix]
            if lab_values:
                folder, lab_slug = LAB_VALUES[category]
                with open(values_path(os.path.join(ROOT, "models"), category, folder, lab_slug, prefix)) as handle:
                    text = handle.read().replace(lab_slug, slug)
            with open(path, "w") as handle:
                handle.write(text)
        if lab_values:
            self.copy_v010_folders(category, name, slug)

    def copy_v010_folders(self, category, name, slug):
        """The lab model's llm-d v0.10 pair (router-<slug>/, modelserver-<slug>/) of ``category`` under this slug,
        beside its seed pair (a model moves between the stacks with aips_serving_stack)."""
        folder, lab_slug = LAB_VALUES[category]
        for prefix in ("router", "modelserver"):
            source = os.path.join(ROOT, "models", category, folder, "%s-%s" % (prefix, lab_slug))
            target = os.path.join(self.models_dir, category, name, "%s-%s" % (prefix, slug))
            os.makedirs(target, exist_ok=True)
            for entry in sorted(os.listdir(source)):
                with open(os.path.join(source, entry)) as handle:
                    text = handle.read().replace(lab_slug, slug)
                with open(os.path.join(target, entry), "w") as handle:
                    handle.write(text)

    def artifact_source(self, **extra):
        """The modelSource of a model on the site's artifact, its hostPath on the lab node."""
        return dict({"harborRef": "%s/ai-models/%s:v1" % (HARBOR, self.repository), "modelUri": MINILM_URI,
                     "storageSize": "1Gi", "hostpathNode": self.lab["AIPS_LAB_NODE"]}, **extra)

    def publish(self):
        self.published = publish(self.lab, self.tmp, self.hub, self.repository)
        return self.published

    def variables(self, **overrides):
        variables = dict(
            aips_cloud_provider="on-prem",
            aips_kubeconfig=self.lab["KUBECONFIG"],
            aips_harbor_hostname=HARBOR,
            aips_harbor_user=self.lab["AIPS_LAB_HARBOR_USER"],
            aips_harbor_token=self.lab["AIPS_LAB_HARBOR_TOKEN"],
            aips_hostpath_root=self.hostpath_root,
            aips_models_dir=self.models_dir,
            aips_models=self.models(),
            model_storage_registry_ca_file=self.lab["AIPS_LAB_CA"],
            model_storage_wait_timeout=300,
            # these sites deploy by tag (publish pushes by tag, no bundle loaded): the lab switch
            aips_allow_unpinned=True,
        )
        variables.update(copy.deepcopy(self.fixed))
        variables.update(overrides)
        return variables

    def play(self, name, *args, check=False, verbosity=0, **overrides):
        """playbooks/<name> on the site's inventory; ``args`` go to ansible-playbook."""
        return ansible_playbook(self.lab, os.path.join(ROOT, "playbooks", name), self.variables(**overrides),
                                self.tmp, verbosity=verbosity, check=check, inventory=self.inventory,
                                extra_args=list(args))

    def apply(self, verbosity=0, check=False, **overrides):
        """model_storage alone (tests/integration/model_storage/apply.yml), its results in ``self.results``."""
        if os.path.exists(self.results):
            os.unlink(self.results)
        variables = dict(aips_repo_root=ROOT, aips_test_results=self.results)
        variables.update(self.variables(**overrides))
        return ansible_playbook(self.lab, APPLY, variables, self.tmp, verbosity=verbosity, check=check)

    def cleanup(self):
        for slug in self.all_slugs():
            self.kube.run("delete", "namespace", namespace_of(slug), "--wait=true", "--timeout=180s", check=False)
            self.kube.run("delete", "pv", pv_of(slug), "--wait=true", "--timeout=60s", check=False)
        for path in self.scratch:
            shutil.rmtree(path, ignore_errors=True)


class OneModel(Site):
    """One embedder on the MiniLM artifact (model_storage, hardening): slug ``<prefix>-<suffix>``, on-prem in
    a hostPath directory made as hostpath_dirs makes it, or on cloud in a dynamic claim; ``source`` replaces
    the modelSource (a ``pvc://`` string, say)."""

    def __init__(self, lab, kube, tmp, hub=None, prefix="mst", name="MiniLM", hostpath_root=None,
                 provider="on-prem", storage_size="1Gi", source=None, nodes=False):
        super(OneModel, self).__init__(lab, kube, tmp, hub, prefix, hostpath_root, nodes)
        self.slug = "%s-%s" % (prefix, self.suffix)
        self.name = "%s-%s" % (name, self.suffix)
        self.namespace, self.pvc = namespace_of(self.slug), pvc_of(self.slug)
        self.pv, self.job = pv_of(self.slug), job_of(self.slug)
        self.provider = provider
        self.make_folders("embedder", self.name, self.slug)
        self.hostpath_dir = os.path.join(hostpath_root, self.slug)
        self.scratch.append(self.hostpath_dir)
        if provider == "on-prem":
            # as hostpath_dirs makes it: owned by the pull Job's non-root uid (a hostPath ignores fsGroup)
            os.makedirs(self.hostpath_dir, exist_ok=True)
            os.chown(self.hostpath_dir, PULL_UID, PULL_UID)
        self.source = source or self.artifact_source(storageSize=storage_size)
        if isinstance(self.source, dict) and provider != "on-prem":
            del self.source["hostpathNode"]
        self.fixed = dict(aips_repo_root=ROOT, aips_test_results=self.results, aips_cloud_provider=provider,
                          aips_oras_image=ORAS_IMAGE)

    def all_slugs(self):
        return [self.slug]

    def models(self):
        return {"generative": [], "embedder": [{"name": self.name, "enabled": True,
                                                "modelSource": copy.deepcopy(self.source)}]}

    def values_file(self, prefix):
        return values_path(self.models_dir, "embedder", self.name, self.slug, prefix)

    def edit_values(self, prefix, change):
        edit_yaml(self.values_file(prefix), change)

    def use_lab_values(self):
        """The lab embedder's values files under this model's slug."""
        shutil.rmtree(os.path.join(self.models_dir, "embedder", self.name))
        self.make_folders("embedder", self.name, self.slug, lab_values=True)

    def job_pods(self):
        return self.kube.pods(self.namespace, "job-name=%s" % self.job)

    def claim_dir(self):
        """Where the claim's data lives on this (single) node."""
        claim = self.kube.get("pvc", self.pvc, self.namespace)
        spec = self.kube.get("pv", claim["spec"]["volumeName"])["spec"]
        return (spec.get("hostPath") or spec.get("local"))["path"]

    def marker(self):
        return read_marker(self.claim_dir())

    def marker_path(self):
        return os.path.join(self.hostpath_dir, ".pulled")

    def events(self, kind, name):
        return self.kube.events(self.namespace, kind, name)


class Stack(Site):
    """serving_stack's two models, the lab's embedder and generative values under new slugs; ``placed`` puts
    the generative model on the lab node with GPU_TOLERATION. Charts: the real ones (real_chart_variables)."""

    def __init__(self, lab, kube, tmp, hub, hostpath_root="/var/tmp/aips-serving-stack-test"):
        super(Stack, self).__init__(lab, kube, tmp, hub, "sst", hostpath_root)
        self.slugs = {"embedder": "sse-%s" % self.suffix, "generative": "ssg-%s" % self.suffix}
        self.names = {"embedder": "Emb-%s" % self.suffix, "generative": "Gen-%s" % self.suffix}
        for category in LAB_VALUES:
            self.make_folders(category, self.names[category], self.slugs[category], lab_values=True)
        self.scratch.append(os.path.join(hostpath_root, self.slugs["embedder"]))
        self.fixed = dict(aips_site_registries=False, aips_nodes_become=False, serving_stack_helm_timeout="4m0s")
        self.placed = False

    def all_slugs(self):
        return list(self.slugs.values())

    def slug(self, category):
        return self.slugs[category]

    def namespace(self, category):
        return namespace_of(self.slugs[category])

    def values_file(self, category, prefix):
        return values_path(self.models_dir, category, self.names[category], self.slugs[category], prefix)

    def edit_values(self, category, prefix, change):
        edit_yaml(self.values_file(category, prefix), change)

    def models(self):
        node = {"kubernetes.io/hostname": self.lab["AIPS_LAB_NODE"]} if self.placed else {}
        return {"generative": [{"name": self.names["generative"], "enabled": True, "nodeSelector": node}],
                "embedder": [{"name": self.names["embedder"], "enabled": True, "nodeSelector": {},
                              "modelSource": self.artifact_source()}]}

    def variables(self, **overrides):
        extra = real_chart_variables(self.lab)
        if self.placed:
            extra["aips_gpu_toleration"] = GPU_TOLERATION
        extra.update(overrides)
        return super(Stack, self).variables(**extra)

    def site(self, *args, **kwargs):
        return self.play("site.yml", *args, **kwargs)

    def releases(self, category):
        out = self.kube.run("get", "secrets", "-n", self.namespace(category), "-l", "owner=helm",
                            "-o", "json", check=False)
        if out.returncode != 0:
            return set()
        return set(item["metadata"]["labels"]["name"] for item in json.loads(out.stdout)["items"])

    def query(self, url, post=None):
        """GET url (POST the JSON text ``post``) from a pod in the default namespace (another namespace than the
        model's): the pod's exit code and its log. Not `kubectl run -i --rm`: its attach can miss the output of a pod that ends first
        (a CI run saw rc 0 and an empty answer), so the pod runs to its end and its log is read after."""
        name = "sst-query-%s" % uuid.uuid4().hex[:6]
        argv = ["wget", "-qO-", url]
        if post is not None:
            argv += ["--header", "Content-Type: application/json", "--post-data", post]
        self.kube.apply(pod(name, BUSYBOX, argv, pull_secret="sst-pull"), namespace="default")
        try:
            def ended():
                state = (self.kube.existing("pod", name, "default").get("status", {})
                         .get("containerStatuses") or [{}])[0].get("state", {})
                return state.get("terminated")
            terminated = self.kube.wait_for("query pod %s to end" % name, ended, timeout=180)
            return subprocess.CompletedProcess(
                argv, terminated.get("exitCode", 1), self.kube.logs("default", name),
                "" if terminated.get("exitCode") == 0 else self.kube.describe("pod", name, "default"))
        finally:
            self.kube.run("delete", "pod", name, "-n", "default", "--wait=false", "--ignore-not-found", check=False)

    def request_loop(self, url, **options):
        """A RequestLoop on ``url`` from the default namespace, started (its first request made)."""
        return RequestLoop(self.kube, url, **options).start()


class RequestLoop(object):
    """GETs of ``url`` from a busybox pod in `default` (the query pod's image and pull secret) while something
    runs: LOOP_SCRIPT, at most ``count`` requests every ``interval`` s (2400 at 0.25 s: ten minutes and more; the
    pod stops by itself), each given ``timeout`` s. ``start`` waits for its first request; ``stop`` ends the loop,
    reads the pod's log and deletes the pod: ``loop_summary`` of the log, ``switch`` given, and the log itself."""

    # timeout 20 s: a routing failure (no endpoint, refused, reset) fails at once; on the loaded 2-core lab a served
    # request took over 5 s while a second stack's pods started beside the first (seen: 2 of 167 at 5 s)
    def __init__(self, kube, url, count=2400, interval=0.25, timeout=20, pull_secret="sst-pull"):
        self.kube, self.url = kube, url
        self.count, self.interval, self.timeout, self.pull_secret = count, interval, timeout, pull_secret
        self.name = "sst-loop-%s" % uuid.uuid4().hex[:6]
        self.log = ""

    def start(self):
        argv = ["sh", "-c", LOOP_SCRIPT, "request-loop", self.url, str(self.count), str(self.interval),
                str(self.timeout)]
        self.kube.apply(pod(self.name, BUSYBOX, argv, pull_secret=self.pull_secret), namespace="default")
        try:
            self.kube.wait_for("request loop %s to make its first request" % self.name,
                               lambda: loop_requests(self.kube.logs("default", self.name)), timeout=180)
        except AssertionError:
            print(self.kube.describe("pod", self.name, "default"))
            self.delete()
            raise
        return self

    def terminated(self):
        state = (((self.kube.get("pod", self.name, "default") or {}).get("status") or {})
                 .get("containerStatuses") or [{}])[0].get("state") or {}
        return state.get("terminated")

    def stop(self, switch=None, after=None):
        """End the loop (/tmp/stop: it ends at its next request), once it made a request that started ``after``
        (epoch seconds) when given; read its log (also when it did not end in time: the summary's ``ended`` is then
        False), delete the pod: the summary (``switch``: loop_summary's), with the ``url``."""
        def past():
            requests = loop_requests(self.kube.logs("default", self.name))
            return self.terminated() or (requests and requests[-1][0] > after)
        try:
            if after is not None:
                self.kube.wait_for("request loop %s to make a request after %.2f" % (self.name, after), past,
                                   timeout=self.timeout + self.interval + 60)
            if not self.terminated():
                self.kube.run("exec", self.name, "-n", "default", "--", "touch", "/tmp/stop", check=False)
                try:
                    self.kube.wait_for("request loop %s to end" % self.name, self.terminated,
                                       timeout=self.timeout + self.interval + 60)
                except AssertionError as exc:
                    print(exc)
            self.log = self.kube.logs("default", self.name)
        finally:
            self.delete()
        summary = loop_summary(self.log, switch)
        summary["url"] = self.url
        return summary

    def delete(self):
        self.kube.run("delete", "pod", self.name, "-n", "default", "--wait=false", "--ignore-not-found", check=False)


class CacheSite(Site):
    """cache_gc's models named <letter>-<suffix> on one artifact, the lab node, and an allowed root of their
    own (gc sees only it) beside a directory outside it. ``hostpath_dirs[letter]`` sets a model's hostpathDir."""

    def __init__(self, lab, kube, tmp, hub, letters=("a", "b"), base="/var/tmp/aips-cache-gc-test"):
        super(CacheSite, self).__init__(lab, kube, tmp, hub, "cgc")
        self.hostpath_root = self.root = os.path.join(base, self.suffix, "models")
        self.outside = os.path.join(base, self.suffix, "outside")
        os.makedirs(self.root)
        os.makedirs(self.outside)
        self.scratch.append(os.path.join(base, self.suffix))
        self.hostpath_dirs = {}
        self.letters = list(letters)
        for letter in self.letters:
            self.add_folders(letter)
        self.fixed = dict(aips_site_registries=False, aips_nodes_become=False)

    def add_folders(self, letter):
        self.make_folders("embedder", self.name(letter), self.slug(letter))

    def all_slugs(self):
        return [self.slug(letter) for letter in self.letters]

    def slug(self, letter):
        return "cgc-%s-%s" % (self.suffix, letter)

    def name(self, letter):
        return "Cgc-%s-%s" % (self.suffix, letter)

    def namespace(self, letter):
        return namespace_of(self.slug(letter))

    def pv(self, letter):
        return pv_of(self.slug(letter))

    def pvc(self, letter):
        return pvc_of(self.slug(letter))

    def dir(self, letter):
        return self.hostpath_dirs.get(letter) or os.path.join(self.root, self.slug(letter))

    def model(self, letter):
        extra = {"hostpathDir": self.hostpath_dirs[letter]} if letter in self.hostpath_dirs else {}
        return {"name": self.name(letter), "enabled": True, "nodeSelector": {},
                "modelSource": self.artifact_source(**extra)}

    def models(self):
        return {"generative": [], "embedder": [self.model(letter) for letter in self.letters]}

    def deploy(self, *letters, check=False):
        """Claims, PVs and pulls of the models (all when none named): site.yml --tags plan,nodes,storage."""
        extra = {"model_storage_models": [self.slug(x) for x in letters]} if letters else {}
        return self.play("site.yml", "--tags", "plan,nodes,storage", check=check, **extra)

    def remove(self, *letters, storage=True, check=False):
        return self.play("site.yml", "--tags", "serving", check=check, serving_stack_state="absent",
                         serving_stack_remove_storage=storage,
                         serving_stack_models=[self.slug(x) for x in letters])

    def gc(self, confirm=False, check=False):
        return self.play("cache.yml", check=check, cache_action="gc", cache_gc_confirm=confirm)

    def marker(self, letter):
        return read_marker(self.dir(letter))

    def dir_bytes(self, letter):
        total = 0
        for top, _dirs, names in os.walk(self.dir(letter)):
            for name in names:
                path = os.path.join(top, name)
                if os.path.isfile(path) and not os.path.islink(path):
                    total += os.lstat(path).st_size
        return total

    def forget(self, letter):
        """What a user does by hand: delete the model's namespace (claim) and its PV; the directory stays."""
        self.kube.run("delete", "namespace", self.namespace(letter), "--wait=true", "--timeout=180s")
        self.kube.run("delete", "pv", self.pv(letter), "--wait=true", "--timeout=60s", check=False)

    def cleanup(self):
        super(CacheSite, self).cleanup()
        for path in self.hostpath_dirs.values():
            shutil.rmtree(path, ignore_errors=True)
