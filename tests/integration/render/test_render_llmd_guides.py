# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values files users bring (llm-d's legacy guides, tests/fixtures/llmd_guides) through playbooks/render.yml and
`helm template` with the real charts (shared/upstream/charts), on an on-prem and a cloud site (sites.yml there).

Each pair either renders with the contract intact (the claim read-only in every serving container, HF_HUB_CACHE
and HF_HUB_OFFLINE, the plan's affinity and tolerations, harbor-creds, every image pinned by the lock's digest
and on-prem from Harbor or a mirrored registry, no reference to a Secret nothing creates), or the play fails
before rendering anything with a message naming the model, the file, the key and the fix; the fixes the messages
name, applied as written, render with the same contract. The plan's replica count equals the serving pods the chart
renders, for every ms fixture (issue 26). The lock file is written here in load.yml's format (made-up digests:
`helm template` pulls nothing)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import hashlib
import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan_build
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import chart_lock, image_lock
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import normalize_image
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import pod_standards
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT, epp_fix
from ansible_collections.ai_platform.serving.tests.support.lab import CARRIED, CHART_MIRRORS

from test_render_models import (  # pylint: disable=import-error
    KUBE_VERSION, ROUTING_PROXY, charts_dir, env_of, helm_binary, images, manifests)

GUIDES = os.path.join(ROOT, "tests", "fixtures", "llmd_guides")
with open(os.path.join(GUIDES, "sites.yml")) as _sites:
    SITES = yaml.safe_load(_sites)
# (site, model) -> substrings of the one message that refuses it; the unit test test_values_llmd_guides.py holds the same
# refused by the plan itself (its values policy, issue 27), naming both knobs: the plan task fails, nothing renders
PLAN_REFUSED = {
    "InferenceSchedulingCPU": ["generative/InferenceSchedulingCPU: ", "ms-inference-scheduling-cpu/values.yaml",
                               "decode.containers[0].securityContext.capabilities.add = ['SYS_NICE']",
                               "decode.containers[0].securityContext.seccompProfile.type = 'Unconfined'",
                               "and by Pod Security baseline", "aips_values_policy_allow with {model: "
                               "inference-scheduling-cpu, rule: added-capabilities", "set aips_pod_security to"],
}
REFUSED = {
    ("rke2", "SimulatedAccelerators"): ["SimulatedAccelerators: gaie values inferencePool.modelServers.matchLabels",
                                        "Fix: make modelArtifacts.labels in ms-sim/values.yaml carry"],
    ("cloud", "SimulatedAccelerators"): ["SimulatedAccelerators: gaie values inferencePool.modelServers.matchLabels",
                                         "Fix: make modelArtifacts.labels in ms-sim/values.yaml carry"],
    ("rke2", "PrecisePrefixCacheAware"): ["PrecisePrefixCacheAware: ", "gaie-kv-events/values.yaml: "
                                          "inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token",
                                          "Fix: remove that env entry",
                                          "its uds tokenizer is served by a tokenizer sidecar",
                                          "and remove inferenceExtension.sidecar"],
}
# One EPP finding as the play prints it: model, file, key, why, fix (up to the message's end in the JSON list).
EPP_FINDING = re.compile(r"PrecisePrefixCacheAware: [^\"]*?gaie-kv-events/values\.yaml: [^\"]*?Fix: [^\"]*")
# (site, model) -> Helm's error: values the values step passes that the pinned chart cannot render. The kv-events
# GAIE file is written for inferencepool v1.3+ (sidecar.image a string); v1.2.0 reads sidecar.image.pullPolicy.
# (On-prem its EPP token refuses it first.) Issue 26 defect 8: render before deploy reports this per model.
RENDER_FAILS = {
    ("cloud", "PrecisePrefixCacheAware"): "inferencepool/templates/epp-deployment.yaml:33:35",
}
SERVING_KINDS = ("Deployment", "LeaderWorkerSet")
MODELSERVICE_CHART = "llm-d-modelservice-v0.4.12.tgz"
# the fix a values-policy refusal names, as its message writes it: the allow-list entry and the Pod Security mapping
ALLOW_ENTRY = re.compile(r"aips_values_policy_allow with \{model: ([^,]+), rule: ([^,]+), key: ([^,]+), reason: <why>\}")
POD_SECURITY = re.compile(r"set aips_pod_security to \{([^}]*)\}")


def digest(text):
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def fixture_images():
    """Every image the fixtures' values name, fully qualified, as aips_images entries (what a site carries)."""
    found = set()
    for folder, _dirs, files in os.walk(os.path.join(GUIDES, "models")):
        if "values.yaml" in files:
            with open(os.path.join(folder, "values.yaml")) as handle:
                values = yaml.safe_load(handle)
            found.update(images(values))
            image = (values.get("inferenceExtension") or {}).get("image")
            if isinstance(image, dict):
                found.add("%s/%s:%s" % (image["hub"], image["name"], image["tag"]))
    return [{"source": normalize_image(image), "project": "images-llmd"} for image in sorted(found)]


def outcome(site, name):
    if name in PLAN_REFUSED:
        return "plan-refused"
    if (site, name) in REFUSED:
        return "refused"
    return "render-fails" if (site, name) in RENDER_FAILS else "deployed"


def models_of(site, wanted, names=None):
    """The site's models, enabled when their outcome (deployed, refused, render-fails) is ``wanted``, or when their
    name is in ``names``."""
    models = copy.deepcopy(SITES[site]["aips_models"])
    for entry in models["generative"]:
        entry["enabled"] = entry["name"] in names if names is not None else outcome(site, entry["name"]) == wanted
    return models


def fixture_names():
    """The model of every ms fixture (generative/<model>/ms-*/values.yaml)."""
    root = os.path.join(GUIDES, "models", "generative")
    return sorted(name for name in os.listdir(root)
                  if any(folder.startswith("ms-") for folder in os.listdir(os.path.join(root, name))))


def named_fixes(text):
    """Every aips_values_policy_allow entry and the one aips_pod_security mapping the refusals in ``text`` name, as
    group variables (the keys the messages name)."""
    entries = sorted(set(ALLOW_ENTRY.findall(text)))
    levels = set(POD_SECURITY.findall(text))
    assert entries and len(levels) == 1, (entries, levels, text[-3000:])
    return {"aips_values_policy_allow": [{"model": model, "rule": rule, "key": key,
                                          "reason": "the render test applies the fix the refusal names"}
                                         for model, rule, key in entries],
            "aips_pod_security": dict(part.strip().split(": ", 1) for part in levels.pop().split(","))}


def render(tmp_path, site, wanted, models_dir=None, names=None, group_vars=None):
    inventory = tmp_path / ("inventory-%s-%s" % (site, wanted))
    (inventory / "group_vars").mkdir(parents=True)
    (inventory / "hosts.yml").write_text(yaml.safe_dump({"all": {"children": {"serving": {"children": {"controller": {
        "hosts": {"localhost": {"ansible_connection": "local",
                                "ansible_python_interpreter": "{{ ansible_playbook_python }}"}}}}}}}}))
    group = dict(SITES[site], aips_models=models_of(site, wanted, names),
                 aips_models_dir=str(models_dir or os.path.join(GUIDES, "models")),
                 aips_harbor_token="{{ lookup('ansible.builtin.env', 'AIPS_HARBOR_TOKEN') }}", **(group_vars or {}))
    # on-prem the plan derives the Harbor chart mirrors from aips_chart_mirrors and pins them by the lock below
    (inventory / "group_vars" / "serving.yml").write_text(yaml.safe_dump(group))
    carried = CARRIED["aips_images"] + fixture_images()
    items = [{"kind": "image", "name": image["source"], "project": image["project"], "image_path": image.get("path"),
              "digest": digest(image["source"])} for image in carried]
    items += [{"kind": "chart", "name": chart["name"], "version": chart["version"], "project": chart["project"],
               "manifest_digest": digest(chart["name"])} for chart in CHART_MIRRORS]
    lock = tmp_path / ("models-%s.lock.yml" % site)
    lock.write_text(yaml.safe_dump({"lock_version": 1, "models": {}, "images": image_lock(items, HARBOR),
                                    "charts": chart_lock(items, HARBOR)}))
    out = str(tmp_path / ("render-%s-%s" % (site, wanted)))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               AIPS_HARBOR_TOKEN="render-test-token")
    variables = {"aips_render_dir": out, "aips_render_chart_dir": charts_dir(), "aips_render_kube_version": KUBE_VERSION,
                 "serving_stack_helm_binary": helm_binary(), "aips_lock_file": str(lock), "aips_images": carried}
    proc = subprocess.run(["ansible-playbook", "-i", str(inventory), os.path.join(ROOT, "playbooks", "render.yml"),
                           "-e", json.dumps(variables)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False)
    return proc, out, set(item["digest"] for item in items if item["kind"] == "image")


@pytest.fixture(scope="module", params=sorted(SITES))
def deployed(request, tmp_path_factory):
    site = request.param
    proc, out, digests = render(tmp_path_factory.mktemp("guides-" + site), site, "deployed")
    assert proc.returncode == 0, proc.stdout[-8000:] + proc.stderr[-3000:]
    with open(os.path.join(out, "plan.json")) as handle:
        plan = json.load(handle)
    # warnings (the GPU and monitor checks of the render) go to stderr
    return site, out, plan, digests, " ".join((proc.stdout + " " + proc.stderr).split())


def all_manifests(out, slug):
    return [doc for chart in ("infra", "gaie", "modelservice") for doc in manifests(out, slug, chart)]


def pod_specs(docs):
    """``(kind/name, replicas, pod spec)`` of every workload the releases render."""
    for doc in docs:
        spec = doc.get("spec") or {}
        if doc["kind"] == "LeaderWorkerSet":
            template = spec["leaderWorkerTemplate"]
            size = int(template.get("size", 1))
            yield doc["kind"] + "/" + doc["metadata"]["name"], int(spec.get("replicas", 1)) * size, (
                template.get("workerTemplate") or template.get("leaderTemplate"))["spec"]
        elif doc["kind"] in ("Deployment", "StatefulSet", "ReplicaSet", "Job", "DaemonSet"):
            yield doc["kind"] + "/" + doc["metadata"]["name"], int(spec.get("replicas", 1)), spec["template"]["spec"]


def serving_pods(docs):
    """The decode and prefill pods the modelservice manifests ``docs`` create (replicas, times the group size of a
    LeaderWorkerSet)."""
    return sum(replicas for kind_name, replicas, _pod in pod_specs(docs)
               if kind_name.split("/")[0] in SERVING_KINDS and kind_name.rsplit("-", 1)[-1] in ("decode", "prefill"))


def assert_claim_contract(out, record, where):
    """The contract in every pod the modelservice release of ``record`` renders: the claim read-only at
    /model-cache, HF_HUB_CACHE and HF_HUB_OFFLINE, the plan's affinity and tolerations, harbor-creds."""
    checked = 0
    for kind_name, replicas, pod in pod_specs(manifests(out, record["slug"], "modelservice")):
        if not replicas:
            continue
        checked += 1
        volume = [v for v in pod["volumes"] if v["name"] == "model-storage"]
        assert volume == [{"name": "model-storage", "persistentVolumeClaim": {
            "claimName": record["storage"]["pvc"], "readOnly": True}}], (where, kind_name)
        for container in pod["containers"]:
            mounts = [m for m in container.get("volumeMounts") or [] if m["name"] == "model-storage"]
            assert mounts == [{"name": "model-storage", "mountPath": "/model-cache", "readOnly": True}], (
                where, kind_name, container["name"])
            env = env_of(container)
            assert env.get("HF_HUB_CACHE") == "/model-cache/hub" and env.get("HF_HUB_OFFLINE") == "1", (
                where, kind_name, container["name"], env)
        for container in pod.get("initContainers") or []:
            if container["name"] != ROUTING_PROXY:
                assert env_of(container).get("HF_HUB_OFFLINE") == "1", (where, container["name"])
        assert pod["affinity"] == record["affinity"], (where, kind_name)
        for toleration in record.get("tolerations") or []:
            assert toleration in pod["tolerations"], (where, kind_name)
        assert {"name": "harbor-creds"} in pod["imagePullSecrets"], (where, kind_name)
    assert checked, (where, "no serving pod rendered")


def fixed_plan(out):
    with open(os.path.join(out, "plan.json")) as handle:
        return json.load(handle)


def secret_references(pod):
    for container in (pod.get("containers") or []) + (pod.get("initContainers") or []):
        for entry in container.get("env") or []:
            ref = (entry.get("valueFrom") or {}).get("secretKeyRef")
            if ref and not ref.get("optional"):
                yield "%s env %s" % (container["name"], entry["name"]), ref["name"]
        for entry in container.get("envFrom") or []:
            if entry.get("secretRef") and not entry["secretRef"].get("optional"):
                yield "%s envFrom" % container["name"], entry["secretRef"]["name"]
    for volume in pod.get("volumes") or []:
        if volume.get("secret") and not volume["secret"].get("optional"):
            yield "volume " + volume["name"], volume["secret"]["secretName"]


def test_the_deployable_pairs_render(deployed):
    site, out, plan, _digests, _stdout = deployed
    wanted = sorted(e["name"] for e in models_of(site, "deployed")["generative"] if e["enabled"])
    assert sorted(r["name"] for r in plan["records"]) == wanted and wanted
    for record in plan["records"]:
        assert manifests(out, record["slug"], "modelservice"), (site, record["name"])


def test_the_plan_counts_the_serving_pods_the_chart_renders(deployed):
    site, out, plan, _digests, _stdout = deployed
    for record in plan["records"]:
        pods = serving_pods(manifests(out, record["slug"], "modelservice"))
        assert record["replicas"] == pods, (site, record["name"], record["replicas"], pods)


@pytest.fixture(scope="module", params=sorted(SITES))
def planned(request):
    """The plan of every fixture on a site (plan.build, the chart defaults read from the real archive); the models
    the plan refuses for their values policy are planned again with the fixes their refusals name."""
    group = SITES[request.param]
    settings = {"cloud_provider": group["aips_cloud_provider"], "kubeconfig": group.get("aips_kubeconfig"),
                "harbor_hostname": group["aips_harbor_hostname"], "harbor_user": group["aips_harbor_user"],
                "harbor_token": "render-test-token", "gpu_toleration": group.get("aips_gpu_toleration") or {},
                "models_dir": os.path.join(GUIDES, "models"), "models": group["aips_models"],
                "chart_dir": charts_dir(), "pod_security": {"enforce": "baseline", "warn": "restricted",
                                                            "audit": "restricted"}}
    records, problems = plan_build.build_plan(settings)
    assert records == [] and problems, "the CPU guide is expected to be refused by the plan"
    fixes = named_fixes(" ".join(str(p) for p in problems))
    settings.update(values_policy_allow=fixes["aips_values_policy_allow"], pod_security=fixes["aips_pod_security"])
    records, problems = plan_build.build_plan(settings)
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    return request.param, dict((r["name"], r) for r in records)


@pytest.mark.parametrize("name", fixture_names())
def test_the_plan_counts_the_serving_pods_helm_renders_for_every_fixture(planned, name):
    """Issue 26, acceptance: for every ms fixture, as the user wrote it, `helm template` of llm-d-modelservice
    v0.4.12 creates as many decode and prefill pods as the plan's replica count (deployed or refused later)."""
    site, records = planned
    assert name in records, (site, sorted(records))
    record = records[name]
    proc = subprocess.run([helm_binary(), "template", record["slug"], os.path.join(charts_dir(), MODELSERVICE_CHART),
                           "-f", record["values_files"]["ms"], "--kube-version", KUBE_VERSION],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    docs = [doc for doc in yaml.safe_load_all(proc.stdout) if doc]
    decode = [kind_name for kind_name, replicas, _pod in pod_specs(docs) if kind_name.endswith("-decode") and replicas]
    assert decode, (site, name, [d["kind"] + "/" + d["metadata"]["name"] for d in docs])
    pods = serving_pods(docs)
    assert isinstance(record["replicas"], int) and record["replicas"] == pods, (site, name, record["replicas"], pods)


def test_the_claim_contract_holds_in_every_serving_pod(deployed):
    site, out, plan, _digests, _stdout = deployed
    for record in plan["records"]:
        assert_claim_contract(out, record, "%s/%s" % (site, record["name"]))


def test_no_pod_names_a_secret_nothing_creates(deployed):
    """Defect 1: the guides' llm-d-hf-token (authSecretName, the EPP's HF_TOKEN) is gone from every pod."""
    site, out, plan, _digests, _stdout = deployed
    for record in plan["records"]:
        docs = all_manifests(out, record["slug"])
        rendered = set(d["metadata"]["name"] for d in docs if d["kind"] == "Secret")
        for kind_name, _replicas, pod in pod_specs(docs):
            for what, secret in secret_references(pod):
                assert secret in rendered, (site, record["name"], kind_name, what, secret)


def test_every_image_is_pinned_and_on_prem_comes_from_harbor_or_a_mirror(deployed):
    site, out, plan, digests, _stdout = deployed
    allowed = [plan["harbor_hostname"]] + plan["mirrored_registries"]
    for record in plan["records"]:
        for image in images(all_manifests(out, record["slug"])):
            where = (site, record["name"], image)
            assert "@sha256:" in image and image.rsplit("@", 1)[1] in digests, where
            if plan["cloud_provider"] == "on-prem":
                assert normalize_image(image).split("/", 1)[0] in allowed, where


def test_notes_are_printed(deployed):
    site, _out, plan, _digests, stdout = deployed
    for record in plan["records"]:
        notes = plan["notes"][record["slug"]]
        assert notes and notes[0].startswith("%s: %s: dropped modelArtifacts.authSecretName" % (
            record["name"], record["values_files"]["ms"])), (site, record["name"], notes)
        assert plan["warnings"][record["slug"]] == []
        for line in notes:
            assert " ".join(line.split()) in stdout


def gpus_of(pod):
    return sum(int(((c.get("resources") or {}).get("limits") or {}).get("nvidia.com/gpu") or 0)
               for c in pod.get("containers") or [])


def test_the_gpu_and_monitor_warnings_are_printed(deployed):
    """Issue 26, B7: on-prem a hostPath claim pins every serving pod to one node, and the render (no cluster read)
    warns with the GPUs that node must offer, counted from the rendered pods (InferenceScheduling 8 x 2 = 16,
    PDDisaggregation 1 x 4 + 4 x 1 = 8); on cloud there is no such pin. Every guide renders Prometheus monitors,
    and the render warns naming each of them and the switch serving_stack_monitors."""
    site, out, plan, _digests, text = deployed
    demand = {}
    for record in plan["records"]:
        docs = all_manifests(out, record["slug"])
        total = sum(replicas * gpus_of(pod) for kind_name, replicas, pod in pod_specs(
            manifests(out, record["slug"], "modelservice")) if kind_name.split("/")[0] in SERVING_KINDS)
        node = record["storage"].get("hostpath_node")
        pin = "[WARNING]: %s: its hostPath claim pins every replica to node %s, which must offer %d GPUs (" % (
            record["name"], node, total)
        if node and total:
            demand[record["name"]] = total
            assert pin in text, (site, pin, text[-6000:])
            assert "could not check the node's allocatable nvidia.com/gpu (no cluster read)." in text
        monitors = [d for d in docs if d["kind"] in ("PodMonitor", "ServiceMonitor")]
        assert monitors, (site, record["name"])
        for monitor in monitors:
            assert "%s %s (" % (monitor["kind"], monitor["metadata"]["name"]) in text, (site, monitor["metadata"])
        assert ("[WARNING]: %s: renders " % record["name"]) in text, (site, record["name"])
    assert "could not check the cluster for the Prometheus Operator's CRDs they need (no cluster read). Without them " \
        "Helm fails; serving_stack_monitors: false turns them off." in text
    if plan["cloud_provider"] == "on-prem":
        assert demand == {"InferenceScheduling": 16, "PDDisaggregation": 8}, demand
    else:
        assert demand == {} and "its hostPath claim pins" not in text


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_refused_pairs_fail_before_anything_renders(tmp_path, site):
    proc, out, _digests = render(tmp_path, site, "refused")
    assert proc.returncode != 0, proc.stdout[-4000:]
    text = " ".join(proc.stdout.split())
    # the one task that computes and checks every model's values (serving_stack_spec) fails, listing every problem
    assert "Select the records and compute every model's releases and objects" in text, text[-4000:]
    for (where, _name), parts in REFUSED.items():
        if where == site:
            for part in parts:
                assert part in text, (site, part, text[-4000:])
    assert not os.path.exists(os.path.join(out, "plan.json")), "rendered although refused"


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_plan_refuses_what_needs_both_knobs_before_anything_renders(tmp_path, site):
    proc, out, _digests = render(tmp_path, site, "plan-refused")
    assert proc.returncode != 0, proc.stdout[-4000:]
    text = " ".join(proc.stdout.replace('\\"', '"').split())
    for parts in PLAN_REFUSED.values():
        for part in parts:
            assert part in text, (site, part, text[-4000:])
    assert not os.path.exists(os.path.join(out, "plan.json")), "rendered although refused"


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_cpu_guides_named_fix_renders_with_the_contract_and_pods_the_named_level_admits(tmp_path, site):
    """inference-scheduling-cpu (SYS_NICE, seccomp Unconfined) is refused by the plan naming both knobs; both, set
    as the refusals write them (every allow-list entry and the aips_pod_security mapping, parsed from the text), give
    a release that renders through the real charts with the contract intact, its replicas the plan's, and decode
    pods that keep what the guide asks and that Pod Security admits at the named level (and baseline does not)."""
    proc, out, _digests = render(tmp_path, site, "plan-refused")
    assert proc.returncode != 0, proc.stdout[-4000:]
    text = " ".join(proc.stdout.replace('\\"', '"').split())
    fixes = named_fixes(text)
    assert sorted(e["rule"] for e in fixes["aips_values_policy_allow"]) == ["added-capabilities", "seccomp-unconfined"]
    assert set(e["model"] for e in fixes["aips_values_policy_allow"]) == {"inference-scheduling-cpu"}
    level = fixes["aips_pod_security"]["enforce"]
    proc, out, _digests = render(tmp_path, site, "cpu-fixed", names=["InferenceSchedulingCPU"], group_vars=fixes)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    (record,) = fixed_plan(out)["records"]
    assert record["name"] == "InferenceSchedulingCPU"
    assert_claim_contract(out, record, "%s/InferenceSchedulingCPU (named fix)" % site)
    docs = manifests(out, record["slug"], "modelservice")
    assert record["replicas"] == serving_pods(docs) == 2, (record["replicas"], serving_pods(docs))
    decode = [(kind_name, pod) for kind_name, replicas, pod in pod_specs(docs) if replicas]
    assert [kind_name.rsplit("-", 1)[-1] for kind_name, _pod in decode] == ["decode"], decode
    for kind_name, pod in decode:
        vllm = [c for c in pod["containers"] if c["name"] == "vllm"][0]
        assert "SYS_NICE" in vllm["securityContext"]["capabilities"]["add"], (kind_name, vllm["securityContext"])
        assert vllm["securityContext"]["seccompProfile"] == {"type": "Unconfined"}, (kind_name, vllm["securityContext"])
        assert pod_standards.violations(pod, level) == [], (kind_name, level)
        assert pod_standards.violations(pod, "baseline"), (kind_name, "baseline admits it: the fix was not needed")


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_pool_label_fix_the_refusal_names_renders_a_pool_that_selects_the_decode_pods(tmp_path, site):
    """simulated-accelerators is refused (its pool selects no decode pod); the labels the message names, written
    where it says, give a release whose InferencePool selects the rendered decode pods."""
    models = tmp_path / "models"
    shutil.copytree(os.path.join(GUIDES, "models"), str(models))
    proc, _out, _digests = render(tmp_path, site, "pool-refused", models, ["SimulatedAccelerators"])
    assert proc.returncode != 0, proc.stdout[-4000:]
    text = " ".join(proc.stdout.replace('\\"', '"').split())
    fix = re.search(r"Fix: make modelArtifacts.labels in (ms-[a-z0-9-]+)/values.yaml carry ([^ ]+=[^ ]+(?:, [^ ]+=[^ ]+)*)\.",
                    text)
    assert fix, text[-4000:]
    folder, wanted = fix.groups()
    path = models / "generative" / "SimulatedAccelerators" / folder / "values.yaml"
    values = yaml.safe_load(path.read_text())
    values.setdefault("modelArtifacts", {}).setdefault("labels", {}).update(
        dict(pair.split("=", 1) for pair in wanted.split(", ")))
    path.write_text(yaml.safe_dump(values))
    proc, out, _digests = render(tmp_path, site, "pool-fixed", models, ["SimulatedAccelerators"])
    assert proc.returncode == 0, proc.stdout[-6000:]
    slug = folder[len("ms-"):]
    (record,) = fixed_plan(out)["records"]
    assert_claim_contract(out, record, "%s/SimulatedAccelerators (pool fix)" % site)
    assert record["replicas"] == serving_pods(manifests(out, slug, "modelservice"))
    pool = [d for d in manifests(out, slug, "gaie") if d["kind"] == "InferencePool"][0]
    selector = pool["spec"]["selector"]["matchLabels"]
    decode = [d for d in manifests(out, slug, "modelservice") if d["kind"] == "Deployment"
              and d["metadata"]["name"].endswith("-decode")]
    assert decode, "no decode Deployment rendered"
    for deployment in decode:
        labels = deployment["spec"]["template"]["metadata"]["labels"]
        assert all(labels.get(k) == v for k, v in selector.items()), (selector, labels)


@pytest.mark.parametrize("site, name", sorted(RENDER_FAILS))
def test_values_the_pinned_chart_cannot_render_fail_with_helms_error(tmp_path, site, name):
    """The values step passes the pair (on cloud the EPP's Hugging Face token is a warning, its Secret dropped with a
    note, both printed first); `helm template` of the pinned chart then fails, naming the release."""
    proc, out, _digests = render(tmp_path, site, "render-fails")
    assert proc.returncode != 0, proc.stdout[-4000:]
    # the values step's warnings are Ansible warnings (stderr)
    text = " ".join((proc.stdout + " " + proc.stderr).split())
    assert RENDER_FAILS[(site, name)] in text, text[-4000:]
    values = os.path.join(GUIDES, "models", "generative", name, "gaie-kv-events", "values.yaml")
    assert "%s: release gaie of chart inferencepool (" % name in text, text[-4000:]
    assert "v1.2.0) does not render with helm template: Error:" in text, text[-4000:]
    assert values in text, (values, text[-4000:])
    assert "Nothing was installed" in text, text[-4000:]
    assert not os.path.exists(os.path.join(out, "kv-events", "gaie.yaml")), "a manifest was written although it failed"
    assert "[WARNING]: %s: " % name in text and "inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token" in text
    assert "%s: " % name in text and "dropped inferenceExtension.env[0] (HF_TOKEN)" in text


def warning_lines(stderr):
    """Each Ansible warning of ``stderr`` (on cloud the values step's findings) as one quoted string, so that a
    finding ends where its warning ends, as a quoted item of a failure message does."""
    return ['"%s"' % " ".join((chunk.splitlines() or [""])[0].replace('"', "'").split())
            for chunk in stderr.split("[WARNING]: ")[1:]]


@pytest.mark.parametrize("site", sorted(SITES))
def test_the_epp_fixes_the_messages_name_applied_render_an_epp_without_hugging_face(tmp_path, site):
    """precise-prefix-cache-aware: on-prem refused before anything renders, on cloud warned and then refused by
    the pinned chart (its sidecar); the fixes the messages name, applied as written to the user's GAIE file, give a
    release that renders with the claim contract intact and an EPP that names no Secret, runs no sidecar and loads
    no tokenizer."""
    models = tmp_path / "models"
    shutil.copytree(os.path.join(GUIDES, "models"), str(models))
    proc, _out, _digests = render(tmp_path, site, "epp-refused", models, ["PrecisePrefixCacheAware"])
    assert proc.returncode != 0, proc.stdout[-4000:]
    text = " ".join(proc.stdout.replace('\\"', "'").split() + warning_lines(proc.stderr))
    messages = sorted(set(m.strip() for m in EPP_FINDING.findall(text)))
    assert len(messages) == 2, (messages, text[-6000:])
    path = models / "generative" / "PrecisePrefixCacheAware" / "gaie-kv-events" / "values.yaml"
    path.write_text(yaml.safe_dump(epp_fix.apply_named_fixes(yaml.safe_load(path.read_text()), messages)))
    proc, out, digests = render(tmp_path, site, "epp-fixed", models, ["PrecisePrefixCacheAware"])
    assert proc.returncode == 0, proc.stdout[-6000:]
    assert "its uds tokenizer" not in proc.stdout and "HF_TOKEN" not in proc.stdout
    (record,) = fixed_plan(out)["records"]
    assert_claim_contract(out, record, "%s/PrecisePrefixCacheAware (EPP fixes)" % site)
    assert record["replicas"] == serving_pods(manifests(out, record["slug"], "modelservice"))
    docs = all_manifests(out, "kv-events")
    epp = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"].endswith("-epp")]
    assert len(epp) == 1, [d["metadata"]["name"] for d in docs if d["kind"] == "Deployment"]
    pod = epp[0]["spec"]["template"]["spec"]
    assert [c["name"] for c in pod["containers"]] == ["epp"], pod["containers"]
    assert list(secret_references(pod)) == [], list(secret_references(pod))
    config = [d for d in docs if d["kind"] == "ConfigMap" and "precise-prefix-cache-config.yaml" in (d.get("data") or {})]
    assert config and "prefix-cache-scorer" in config[0]["data"]["precise-prefix-cache-config.yaml"]
    assert "tokenizersPoolConfig" not in config[0]["data"]["precise-prefix-cache-config.yaml"]
    for _name, _replicas, serving in pod_specs(d for d in docs if d["kind"] in SERVING_KINDS):
        assert list(secret_references(serving)) == []
