# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""serving_stack through playbooks/site.yml on the lab: two models, one inventory.

Charts: the real upstream llm-d charts from the lab registry's OCI copies. Model servers: the
embedder runs the lab's infinity STAND-IN (real embeddings), the generative model the inference-sim
STAND-IN.
The steps share one deployed stack and run in order (one xdist group).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import io
import json
import math
import os
import re
import subprocess
import tarfile
import time
import urllib.request

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT
from ansible_collections.ai_platform.serving.tests.support import hub as hub_fixture
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import stack_charts
from ansible_collections.ai_platform.serving.tests.support.lab import (
    CHART_FILES, CHART_MIRRORS, GPU_TOLERATION, UPSTREAM_CHARTS, publish)

pytestmark = pytest.mark.xdist_group("serving-stack-deployed")


def test_two_models_deploy_into_isolated_namespaces(deployed):
    stack, run = deployed
    assert run.rc == 0, str(run)
    # a first install is not forced (only a release left failed or pending is)
    assert ": forced)" not in run.output, run.output
    for category in ("embedder", "generative"):
        slug = stack.slug(category)
        assert stack.releases(category) == {"infra-" + slug, "gaie-" + slug, "ms-" + slug}, category
    kube = stack.kube
    gen, emb = stack.namespace("generative"), stack.namespace("embedder")
    # each model's objects are in its own namespace, and only there
    assert kube.get("service", "llmd-gateway-" + stack.slug("generative"), gen)["spec"]["externalName"] == (
        "infra-%s-inference-gateway-istio.%s.svc.cluster.local" % (stack.slug("generative"), gen))
    # the seed's gateway-defaults ConfigMap is read by nothing: not created
    assert kube.get("configmap", "gateway-defaults-" + stack.slug("embedder"), emb) is None
    assert kube.get("service", "llmd-gateway-" + stack.slug("embedder"), gen) is None
    secret = kube.get("secret", "harbor-creds", emb)
    assert secret["type"] == "kubernetes.io/dockerconfigjson"


def test_embedder_serves_the_pulled_model_read_only_to_another_namespace(deployed, query_secret):
    stack, run = deployed
    assert run.rc == 0, str(run)
    slug, namespace = stack.slug("embedder"), stack.namespace("embedder")
    pods = stack.kube.pods(namespace, "llm-d.ai/role=decode")
    assert len(pods) == 1
    spec = pods[0]["spec"]
    container = spec["containers"][0]
    env = dict((e["name"], e.get("value")) for e in container.get("env", []))
    assert env["HF_HUB_OFFLINE"] == "1" and env["HF_HUB_CACHE"] == "/model-cache/hub", env
    mount = [m for m in container["volumeMounts"] if m["mountPath"] == "/model-cache"]
    assert mount and mount[0]["readOnly"] is True
    volume = [v for v in spec["volumes"] if v["name"] == mount[0]["name"]][0]
    assert volume["persistentVolumeClaim"] == {"claimName": "%s-model" % slug, "readOnly": True}
    assert {"name": "harbor-creds"} in spec["imagePullSecrets"]
    assert "--port" in container["args"] and "8200" in container["args"]
    # the claim holds the pulled, verified artifact
    pvc = stack.kube.get("pvc", "%s-model" % slug, namespace)
    assert pvc["metadata"]["annotations"]["ai-platform.serving/digest"] == stack.published["digest"]
    service = stack.kube.get("service", "ms-%s-embeddings" % slug, namespace)
    assert service["spec"]["type"] == "ClusterIP" and service["spec"]["ports"][0]["port"] == 8200
    url = "http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models" % (slug, namespace)
    answer = stack.query(url)
    assert answer.returncode == 0, answer.stderr
    models = json.loads(answer.stdout)
    assert [m["id"] for m in models["data"]] == ["sentence-transformers/all-MiniLM-L6-v2"]
    # the server resolved the repo id in the mounted hub cache, to the snapshot the pull wrote
    assert models["data"][0]["root"] == (
        "/model-cache/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/%s" % hub_fixture.MINILM_COMMIT)
    assert_golden_embeddings(stack)
    # never both: the embedder has no HTTPRoute
    assert stack.kube.get("httproute", "llm-d-" + slug, namespace) is None


def assert_golden_embeddings(stack):
    """The embedder serves real embeddings from the pulled claim (the lab's infinity STAND-IN computes them with
    huggingface_hub, tokenizers, safetensors and numpy), equal to sentence-transformers' own (the golden fixture),
    through the embeddings Service's cluster IP."""
    service = stack.kube.get("service", "ms-%s-embeddings" % stack.slug("embedder"), stack.namespace("embedder"))
    with open(os.path.join(ROOT, "tests", "fixtures", "minilm_golden_embeddings.json")) as handle:
        golden = json.load(handle)
    request = urllib.request.Request(
        "http://%s:8200/v1/embeddings" % service["spec"]["clusterIP"],
        data=json.dumps({"model": golden["repo_id"], "input": golden["sentences"]}).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        served = [item["embedding"] for item in sorted(json.loads(answer.read())["data"], key=lambda d: d["index"])]
    assert len(served) == len(golden["embeddings"])
    for sentence, vector, expected in zip(golden["sentences"], served, golden["embeddings"]):
        assert cosine(vector, expected) >= 0.9999, sentence


def cosine(a, b):
    return sum(x * y for x, y in zip(a, b)) / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))


def test_generative_route_binds_the_gateway_to_the_pool(deployed):
    stack, run = deployed
    assert run.rc == 0, str(run)
    slug, namespace = stack.slug("generative"), stack.namespace("generative")
    route = stack.kube.get("httproute", "llm-d-" + slug, namespace)
    parent = route["spec"]["parentRefs"][0]
    backend = route["spec"]["rules"][0]["backendRefs"][0]
    assert (parent["kind"], parent["name"]) == ("Gateway", "infra-%s-inference-gateway" % slug)
    assert (backend["group"], backend["kind"], backend["name"]) == (
        "inference.networking.k8s.io", "InferencePool", "gaie-" + slug)
    # both exist as real custom resources, validated by the apiserver against their CRDs
    assert stack.kube.get("gateway", parent["name"], namespace)["spec"]["gatewayClassName"] == "istio"
    pool = stack.kube.get("inferencepool", backend["name"], namespace)
    assert pool["spec"]["selector"]["matchLabels"]["llm-d.ai/model"] == slug
    pods = stack.kube.pods(namespace, ",".join("%s=%s" % kv for kv in pool["spec"]["selector"]["matchLabels"].items()))
    assert len(pods) == 1, "the pool selects the decode pod"
    assert pool["spec"]["targetPorts"] == [{"number": 8200}]
    assert stack.kube.get("service", "ms-%s-embeddings" % slug, namespace) is None
    # the real EPP of the inferencepool chart runs (its Service is the DestinationRule's host)
    epp = stack.kube.pods(namespace, "inferencepool=gaie-%s-epp" % slug)
    assert len(epp) == 1 and all(c["ready"] for c in epp[0]["status"]["containerStatuses"]), epp
    rule = stack.kube.get("destinationrules.networking.istio.io", "gaie-%s-epp" % slug, namespace)
    assert rule["spec"]["host"] == "gaie-%s-epp.%s.svc.cluster.local" % (slug, namespace)


def test_gateway_pod_placement_is_in_the_configmap_istio_reads(deployed):
    """Istio merges the `deployment` overlay of the ConfigMap the Gateway's parametersRef names into the
    gateway's Deployment: that ConfigMap carries the model's hard nodeAffinity and the GPU toleration."""
    stack, run = deployed
    assert run.rc == 0, str(run)
    slug, namespace = stack.slug("generative"), stack.namespace("generative")
    gateway = stack.kube.get("gateway", "infra-%s-inference-gateway" % slug, namespace)
    ref = gateway["spec"]["infrastructure"]["parametersRef"]
    assert (ref["group"], ref["kind"]) == ("", "ConfigMap")
    overlay = yaml.safe_load(stack.kube.get("configmap", ref["name"], namespace)["data"]["deployment"])
    pod = overlay["spec"]["template"]["spec"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert terms == [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In",
                                            "values": [stack.lab["AIPS_LAB_NODE"]]}]}]
    assert pod["tolerations"] == [GPU_TOLERATION]
    assert pod["containers"][0]["name"] == "istio-proxy", "the chart's own overlay is kept"
    # the decode pod has the same placement
    decode = stack.kube.pods(namespace, "llm-d.ai/role=decode")[0]["spec"]
    assert GPU_TOLERATION in decode["tolerations"]


# The one module both roles call (model_storage's call is a step of its one task, model_storage_pull); the second call
# of a run (serving_stack's) finds what the first made.
NAMESPACES_TASKS = ["ai_platform.serving.model_storage : Check the user-owned claims and pull the Harbor artifacts",
                    "ai_platform.serving.serving_stack : Create the model namespaces and their harbor-creds"]


def statuses(output, task):
    """The status (ok, changed, skipping, fatal, ...) of each run of ``task`` in a playbook's output."""
    found = []
    for part in output.split("TASK [%s]" % task)[1:]:
        # the first status line; indented lines before it are what the task printed while it ran (pull progress)
        status = [line for line in part.splitlines()[1:] if line.strip() and not line.startswith(" ")][:1]
        found.append(status[0].split(":", 1)[0] if status else "none")
    return found


def test_check_mode_then_a_rerun_change_nothing(deployed):
    stack, run = deployed
    assert run.rc == 0, str(run)
    # each role calls model_namespace once (model_storage for the Harbor model, in its pull task; serving_stack for
    # both: it creates the generative model's namespace, which has no Harbor source); the re-runs write nothing
    assert [statuses(run.output, task) for task in NAMESPACES_TASKS] == [["changed"], ["changed"]], str(run)
    check = stack.site(check=True)
    assert check.rc == 0 and check.changed == 0, str(check)
    assert [statuses(check.output, task) for task in NAMESPACES_TASKS] == [["ok"], ["ok"]], str(check)
    again = stack.site()
    assert again.rc == 0 and again.changed == 0, str(again)
    assert [statuses(again.output, task) for task in NAMESPACES_TASKS] == [["ok"], ["ok"]], str(again)
    # every object the re-run applies reads back as written: kubernetes.core warns (and, on ansible-core 2.21,
    # prints a deprecation of its own) when an apply changes only metadata, as the Job NetworkPolicy's empty
    # ingress list did on every run
    for run_ in (check, again):
        assert "may not be idempotent" not in run_.output and "[DEPRECATION WARNING]: Passing `warnings`" \
            not in run_.output, str(run_)


def test_a_rerun_puts_back_an_edited_object_and_removes_a_retired_one(deployed):
    """The re-run applies only what its one read (serving_stack_info) found missing or different: an edit on
    the cluster is still put back, and a retired object (the seed's gateway-defaults ConfigMap) still goes."""
    stack, run = deployed
    assert run.rc == 0, str(run)
    slug, namespace = stack.slug("embedder"), stack.namespace("embedder")
    service = "ms-%s-embeddings" % slug
    stack.kube.run("patch", "service", service, "-n", namespace, "--type=json",
                   "-p", '[{"op": "replace", "path": "/spec/ports/0/port", "value": 8300}]')
    stack.kube.run("create", "configmap", "gateway-defaults-" + slug, "-n", namespace, "--from-literal=left=over")
    again = stack.site()
    assert again.rc == 0 and again.changed == 2, str(again)   # the apply and the removal, nothing else
    assert stack.kube.get("service", service, namespace)["spec"]["ports"][0]["port"] == 8200
    assert stack.kube.get("configmap", "gateway-defaults-" + slug, namespace) is None
    settled = stack.site()
    assert settled.rc == 0 and settled.changed == 0, str(settled)


def push_probe_chart(lab, tmp_path):
    """The real llm-d-infra chart with one template added (a ConfigMap ``<release>-aips-probe``), same name and
    version, pushed to ``oci://<harbor>/charts/probe``; its manifest digest."""
    name, version = CHART_FILES["infra"]
    original = os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % (name, version))
    probe = tmp_path / ("%s-%s.tgz" % (name, version))
    template = (b"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-aips-probe\n"
                b"data:\n  chart: changed under the same version\n")
    with tarfile.open(original) as source, tarfile.open(str(probe), "w:gz") as target:
        for member in source.getmembers():
            target.addfile(member, source.extractfile(member) if member.isfile() else None)
        added = tarfile.TarInfo("%s/templates/aips-probe.yaml" % name)
        added.size, added.mode = len(template), 0o644
        target.addfile(added, io.BytesIO(template))
    env = dict(os.environ, **lab)
    env["HELM_REGISTRY_CONFIG"] = str(tmp_path / "registry.json")  # never the user's own helm login
    subprocess.run(["helm", "registry", "login", HARBOR, "--username", lab["AIPS_LAB_HARBOR_USER"], "--password-stdin",
                    "--ca-file", lab["AIPS_LAB_CA"]], input=lab["AIPS_LAB_HARBOR_TOKEN"], env=env, text=True,
                   capture_output=True, check=True)
    pushed = subprocess.run(["helm", "push", str(probe), "oci://%s/charts/probe" % HARBOR, "--ca-file", lab["AIPS_LAB_CA"]],
                            env=env, text=True, capture_output=True, check=True)
    digest = re.search(r"Digest: (sha256:[0-9a-f]{64})", pushed.stdout + pushed.stderr)
    assert digest, pushed
    return digest.group(1)


def helm_revision(stack, category, release):
    listed = json.loads(subprocess.run(["helm", "list", "--all", "-n", stack.namespace(category), "-o", "json"],
                                       env=dict(os.environ, **stack.lab), text=True, capture_output=True,
                                       check=True).stdout)
    return dict((item["name"], (item["status"], int(item["revision"]))) for item in listed)[release]


def test_a_chart_changed_under_the_same_version_is_deployed(deployed, tmp_path):
    """Helm's own check (kubernetes.core.helm without helm diff) compares chart name, version and values only: a
    chart whose content changed under the same version, pinned by its new digest, is deployed because the release
    values carry the chart mark (global.aipsChartMark); with the lab's helm-diff the module diffs the rendered
    release, and the change is deployed as well. Back on the original chart, the added object goes."""
    stack, run = deployed
    assert run.rc == 0, str(run)
    namespace, release = stack.namespace("generative"), "infra-" + stack.slug("generative")
    status, before = helm_revision(stack, "generative", release)
    assert status == "deployed"
    digest = push_probe_chart(stack.lab, tmp_path)
    # a site's own aips_charts (plain data) wins over the charts the plan derives from aips_chart_mirrors
    charts = stack_charts(CHART_MIRRORS, HARBOR)
    charts["infra"] = dict(charts["infra"], ref="oci://%s/charts/probe/%s@%s" % (HARBOR, CHART_FILES["infra"][0], digest),
                           version="")
    probed = stack.site(aips_charts=charts)
    assert probed.rc == 0 and probed.changed > 0, str(probed)
    # the lab's helm has the diff plugin (HELM_PLUGINS): kubernetes.core.helm diffs instead of warning
    assert "Install helm diff" not in probed.output, probed.output[-3000:]
    assert helm_revision(stack, "generative", release) == ("deployed", before + 1)
    assert stack.kube.get("configmap", release + "-aips-probe", namespace) is not None, str(probed)
    settled = stack.site(aips_charts=charts)
    assert settled.rc == 0 and settled.changed == 0, str(settled)
    back = stack.site()
    assert back.rc == 0, str(back)
    assert helm_revision(stack, "generative", release) == ("deployed", before + 2)
    assert stack.kube.get("configmap", release + "-aips-probe", namespace) is None, str(back)


SERVED = "ai-platform.serving/served-digest"


def served_digests(kube, namespace):
    """The served-digest annotation of every Deployment's pod template in ``namespace``, and its rollout."""
    found = {}
    for item in json.loads(kube.run("get", "deployments", "-n", namespace, "-o", "json").stdout)["items"]:
        annotations = item["spec"]["template"]["metadata"].get("annotations") or {}
        if SERVED in annotations:
            status = item.get("status") or {}
            found[item["metadata"]["name"]] = (annotations[SERVED], status.get("updatedReplicas"),
                                               status.get("availableReplicas"), item["spec"].get("replicas"))
    return found


def served_root(stack):
    """The snapshot the embedder's server resolved its model to, as its /v1/models reports it (through the
    embeddings Service's cluster IP, which the lab node reaches)."""
    slug, namespace = stack.slug("embedder"), stack.namespace("embedder")
    service = stack.kube.get("service", "ms-%s-embeddings" % slug, namespace)
    with urllib.request.urlopen("http://%s:8200/v1/models" % service["spec"]["clusterIP"], timeout=60) as answer:
        return json.loads(answer.read())["data"][0]["root"]


SNAPSHOTS = "/model-cache/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/"
V2_COMMIT = hashlib.sha1(b"revision 2").hexdigest()


def assert_serving(stack, digest, commit):
    """Every serving Deployment of the embedder stamped with ``digest`` and rolled out; the server on ``commit``."""
    for name, (served, updated, available, replicas) in served_digests(stack.kube, stack.namespace("embedder")).items():
        assert served == digest and updated == replicas and available == replicas, (
            name, served, updated, available, replicas)
    assert served_root(stack) == SNAPSHOTS + commit


def claim_annotations(stack):
    return stack.kube.get("pvc", "%s-model" % stack.slug("embedder"), stack.namespace("embedder"))["metadata"][
        "annotations"]


def kept(stack):
    return [r["digest"] for r in json.loads(claim_annotations(stack)["ai-platform.serving/revisions"])]


def test_upgrade_pulls_beside_rolls_and_a_rollback_switches_back_without_the_registry(deployed, tmp_path):
    stack, run = deployed
    assert run.rc == 0, str(run)
    v1 = stack.published
    assert_serving(stack, v1["digest"], hub_fixture.MINILM_COMMIT)
    # v2, another commit, under the same tag: pulled beside v1, the pods roll onto it, v1 stays (keep 1)
    v2 = publish(stack.lab, stack.tmp, hub_fixture.variant_hub(tmp_path, stack.suffix, b"revision 2\n" * 64,
                                                               V2_COMMIT), stack.repository)
    assert v2["digest"] != v1["digest"]
    upgrade = stack.site()
    assert upgrade.rc == 0, str(upgrade)
    assert_serving(stack, v2["digest"], V2_COMMIT)
    assert claim_annotations(stack)["ai-platform.serving/digest"] == v2["digest"]
    assert kept(stack) == [v2["digest"], v1["digest"]]
    # the rollback: a switch on the claim (no request for the model's repository), then the pods roll
    from labkit import config  # pylint: disable=import-outside-toplevel,import-error
    log = os.path.join(str(config.lab_paths().root), "logs", "registry.log")   # the lab registry's access log
    mark = os.path.getsize(log)
    started = time.monotonic()
    back = stack.play("rollback.yml", rollback_model=stack.slug("embedder"))
    took = time.monotonic() - started
    assert back.rc == 0, str(back)
    print("rollback to v1 took %.1f s (playbook, switch on the claim, rollout)" % took)
    assert "switched on the claim, nothing downloaded" in back.output, back.output
    with open(log) as handle:
        handle.seek(mark)
        model_requests = [line for line in handle if "/v2/ai-models/%s/" % stack.repository in line]
    assert model_requests == [], model_requests
    assert_serving(stack, v1["digest"], hub_fixture.MINILM_COMMIT)
    assert kept(stack) == [v1["digest"], v2["digest"]]
    again = stack.play("rollback.yml", rollback_model=stack.slug("embedder"))
    assert again.rc == 0 and again.changed == 0, str(again)
    assert "keeps no revision pulled before the served one" in again.output
    # site.yml returns to the tag's v2 (kept: switched, not downloaded); with 0 kept, v1 goes after the rollout
    pv = stack.kube.get("pv", "%s-model-pv" % stack.slug("embedder"))
    v1_dir = os.path.join(pv["spec"]["hostPath"]["path"], "hub", "models--sentence-transformers--all-MiniLM-L6-v2",
                          "snapshots", hub_fixture.MINILM_COMMIT)
    assert os.path.isdir(v1_dir)
    forward = stack.site(aips_keep_revisions=0)
    assert forward.rc == 0, str(forward)
    assert_serving(stack, v2["digest"], V2_COMMIT)
    assert kept(stack) == [v2["digest"]] and not os.path.exists(v1_dir)
    stack.published = v2
    rerun = stack.site(aips_keep_revisions=0)
    assert rerun.rc == 0 and rerun.changed == 0, str(rerun)


def test_absent_removes_one_model_and_leaves_the_other_serving(deployed, query_secret):
    stack, run = deployed
    assert run.rc == 0, str(run)
    gen, slug = stack.namespace("generative"), stack.slug("generative")
    gone = stack.site("--tags", "serving", serving_stack_state="absent", serving_stack_models=[slug])
    assert gone.rc == 0 and gone.changed > 0, str(gone)
    assert stack.releases("generative") == set()
    assert stack.kube.get("httproute", "llm-d-" + slug, gen) is None
    assert stack.kube.get("service", "llmd-gateway-" + slug, gen) is None
    assert stack.kube.get("namespace", gen) is not None       # kept: serving_stack_remove_storage is false
    emb = stack.slug("embedder")
    assert stack.releases("embedder") == {"infra-" + emb, "gaie-" + emb, "ms-" + emb}
    url = "http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models" % (emb, stack.namespace("embedder"))
    answer = stack.query(url)
    assert answer.returncode == 0 and "all-MiniLM-L6-v2" in answer.stdout, answer.stderr
