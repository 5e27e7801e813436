# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every (inventory, model folder) pair of the repo renders with the real upstream charts.

playbooks/render.yml computes the values exactly as serving_stack does and runs `helm template`
(--kube-version of the lab) on llm-d-infra v1.3.0, inferencepool v1.2.0 and llm-d-modelservice
v0.4.12 as carried in shared/upstream/charts (what charts_download fetches), with the same
post-renderer. The assertions are the pod contract the plan promises. No cluster is needed; the
helm binary is the one the lab builds (`lab/lab env` puts it on PATH). Nothing here is a stand-in.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.lab import CHART_FILES, UPSTREAM_CHARTS, lab_binary

INVENTORIES = ("cloud", "rke2", "lab")
KUBE_VERSION = "1.33.13"  # lab/versions.env KUBERNETES_VERSION
ROUTING_PROXY = "routing-proxy"  # the chart's own sidecar: it takes no env from the values


def helm_binary():
    return lab_binary("helm")


def charts_dir():
    missing = [name for name, version in CHART_FILES.values()
               if not os.path.isfile(os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % (name, version)))]
    if missing:
        pytest.fail("real charts missing in %s: %s" % (UPSTREAM_CHARTS, ", ".join(missing)), pytrace=False)
    return UPSTREAM_CHARTS


@pytest.fixture(scope="module", params=INVENTORIES)
def rendered(request, tmp_path_factory):
    inventory = request.param
    out = str(tmp_path_factory.mktemp("render-" + inventory))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               AIPS_HARBOR_TOKEN="render-test-token", AIPS_LAB_HARBOR_TOKEN="render-test-token")
    # inventory/lab reads its kubeconfig path from the environment; rendering never opens it
    env.setdefault("KUBECONFIG", os.path.join(out, "no-cluster.kubeconfig"))
    helm = helm_binary()
    proc = subprocess.run(
        ["ansible-playbook", "-i", os.path.join(ROOT, "inventory", inventory),
         os.path.join(ROOT, "playbooks", "render.yml"), "-e",
         json.dumps({"aips_render_dir": out, "aips_render_chart_dir": charts_dir(),
                     "aips_render_kube_version": KUBE_VERSION, "serving_stack_helm_binary": helm,
                     # renders by tag (no bundle loaded): the lab switch; test_render_pinned renders by digest
                     "aips_allow_unpinned": True})],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    with open(os.path.join(out, "plan.json")) as handle:
        plan = json.load(handle)
    return inventory, out, plan


def manifests(out, slug, chart):
    with open(os.path.join(out, slug, chart + ".yaml")) as handle:
        return [doc for doc in yaml.safe_load_all(handle) if doc]


def one(docs, kind, name=None):
    found = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, (kind, name, [(d["kind"], d["metadata"]["name"]) for d in docs])
    return found[0]


def images(tree):
    if isinstance(tree, dict):
        for key, value in tree.items():
            if key == "image" and isinstance(value, str):
                yield value
            else:
                yield from images(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from images(value)


def env_of(container):
    return dict((e["name"], e.get("value")) for e in container.get("env") or [])


def test_every_model_folder_of_the_repo_is_covered(rendered):
    """The pairs rendered are exactly the enabled models of the inventory, and together all folders."""
    inventory, out, plan = rendered
    assert plan["records"], inventory
    for record in plan["records"]:
        for chart in ("infra", "gaie", "modelservice"):
            assert manifests(out, record["slug"], chart), (record["slug"], chart)


def test_all_model_folders_belong_to_an_inventory():
    folders = set()
    for inventory in INVENTORIES:
        with open(os.path.join(ROOT, "inventory", inventory, "group_vars", "serving.yml")) as handle:
            models = yaml.safe_load(handle)["aips_models"]
        folders.update(m["name"] for entries in models.values() for m in entries)
    shipped = set(os.listdir(os.path.join(ROOT, "models", "generative"))) | set(
        os.listdir(os.path.join(ROOT, "models", "embedder")))
    assert shipped == folders, "model folders no inventory renders: %s" % (shipped - folders)


def _server_port(container):
    args = [str(a) for a in container.get("args") or []]
    ports = [p["containerPort"] for p in container.get("ports") or []]
    return ports + [int(args[i + 1]) for i, arg in enumerate(args[:-1]) if arg == "--port"]


def _values_container(record):
    """The first decode container of the model's ms values file: what the values set themselves."""
    with open(record["values_files"]["ms"]) as handle:
        values = yaml.safe_load(handle) or {}
    containers = (values.get("decode") or {}).get("containers") or [{}]
    return containers[0]


def assert_secure_defaults(record, pod, where):
    """Issue 27: serving_stack's secure defaults (role defaults serving_stack_pod_security_context, _pod_probes,
    _pod_requests, all on) as helm renders them, where the values file sets none of its own."""
    assert pod["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                      "seccompProfile": {"type": "RuntimeDefault"}}, where
    restricted = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}, "runAsNonRoot": True,
                  "seccompProfile": {"type": "RuntimeDefault"}}
    for container in pod["containers"]:
        assert container["securityContext"] == restricted, (where, container["name"])
        requests = (container.get("resources") or {}).get("requests") or {}
        assert requests.get("cpu") and requests.get("memory"), (where, container["name"], container.get("resources"))
    for container in pod.get("initContainers") or []:
        # the chart's routing-proxy keeps the chart's own context (no values key for it): never privileged
        context = container.get("securityContext") or {}
        assert context.get("allowPrivilegeEscalation") is False and context.get("runAsNonRoot") is True, (
            where, container["name"], context)
    server, own = pod["containers"][0], _values_container(record)
    own_extra = own.get("extraConfig") or {}
    own_probes = dict((key, own.get(key) or own_extra.get(key))
                      for key in ("startupProbe", "readinessProbe", "livenessProbe"))
    if not any(own_probes.values()):
        port = _server_port(server)
        assert port, where
        for key, (period, failures) in (("startupProbe", (10, 180)), ("readinessProbe", (5, 3)),
                                        ("livenessProbe", (10, 3))):
            assert server[key] == {"httpGet": {"path": "/health", "port": port[0]}, "periodSeconds": period,
                                   "failureThreshold": failures, "timeoutSeconds": 5}, (where, key, server.get(key))
    else:  # the values' own probes are kept as written, and no default is added beside them
        for key, probe in own_probes.items():
            assert server.get(key) == probe, (where, key)
    if not own.get("resources"):
        assert {"cpu": "100m", "memory": "1Gi"}.items() <= server["resources"]["requests"].items(), where


def assert_placement(record, pod, where):
    """The placement the plan gives a model pod (affinity, tolerations) and its Harbor pull secret."""
    if record.get("affinity"):
        assert pod["affinity"] == record["affinity"], where
    for toleration in record.get("tolerations") or []:
        assert toleration in pod["tolerations"], where
    if record["names"].get("harbor_pull_secret"):
        assert {"name": "harbor-creds"} in pod["imagePullSecrets"], where


def test_decode_pod_contract(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        docs = manifests(out, record["slug"], "modelservice")
        decode = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"].endswith("-decode")]
        assert len(decode) == 1, (inventory, record["slug"])
        pod = decode[0]["spec"]["template"]["spec"]
        containers = pod["containers"]
        served = list(containers)
        uri = record.get("model_artifacts_uri") or ""
        where = "%s/%s" % (inventory, record["slug"])
        if uri.startswith("pvc"):
            # the claim, read-only, at /model-cache, in every serving container, with the hub cache env
            volume = [v for v in pod["volumes"] if v["name"] == "model-storage"]
            assert volume == [{"name": "model-storage", "persistentVolumeClaim": {
                "claimName": record["storage"]["pvc"], "readOnly": True}}], where
            for container in served:
                mounts = [m for m in container.get("volumeMounts") or [] if m["name"] == "model-storage"]
                assert mounts == [{"name": "model-storage", "mountPath": "/model-cache", "readOnly": True}], (
                    where, container["name"])
                env = env_of(container)
                assert env.get("HF_HUB_CACHE") == "/model-cache/hub", (where, container["name"], env)
                assert env.get("HF_HUB_OFFLINE") == "1", (where, container["name"], env)
            for container in pod.get("initContainers") or []:
                if container["name"] != ROUTING_PROXY:
                    assert env_of(container).get("HF_HUB_OFFLINE") == "1", (where, container["name"])
        else:
            assert not [v for v in pod.get("volumes") or [] if "persistentVolumeClaim" in v], where
        assert_placement(record, pod, where)
        assert_secure_defaults(record, pod, where)


def test_every_image_is_pinned_and_on_prem_comes_from_harbor_or_a_mirror(rendered):
    inventory, out, plan = rendered
    allowed = tuple(h.rstrip("/") + "/" for h in [plan["harbor_hostname"]] + plan["mirrored_registries"])
    for record in plan["records"]:
        for chart in ("infra", "gaie", "modelservice"):
            for image in images(manifests(out, record["slug"], chart)):
                where = (inventory, record["slug"], chart, image)
                assert ":" in image.rsplit("/", 1)[-1] and not image.endswith(":latest"), where
                if plan["cloud_provider"] == "on-prem":
                    assert image.startswith(allowed), where


def test_the_pool_selects_the_decode_pods_on_the_port_they_serve(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        where = "%s/%s" % (inventory, record["slug"])
        pool = one(manifests(out, record["slug"], "gaie"), "InferencePool", record["names"]["gaie_release"])
        decode = [d for d in manifests(out, record["slug"], "modelservice")
                  if d["kind"] == "Deployment" and d["metadata"]["name"].endswith("-decode")][0]
        labels = decode["spec"]["template"]["metadata"]["labels"]
        selector = pool["spec"]["selector"]["matchLabels"]
        assert all(labels.get(k) == v for k, v in selector.items()), (where, selector, labels)
        pod = decode["spec"]["template"]["spec"]
        proxy = [c for c in pod.get("initContainers") or [] if c["name"] == ROUTING_PROXY]
        serving = proxy or pod["containers"]
        ports = set(p["containerPort"] for c in serving for p in c.get("ports") or [])
        assert [p["number"] for p in pool["spec"]["targetPorts"]] and all(
            p["number"] in ports for p in pool["spec"]["targetPorts"]), (where, pool["spec"]["targetPorts"], ports)
        # the EPP the pool names is the chart's, and the DestinationRule the collection points at it
        epp = pool["spec"]["endpointPickerRef"]["name"]
        assert epp == record["names"]["epp_service"], where
        one(manifests(out, record["slug"], "gaie"), "Service", epp)


def test_gateway_name_and_placement(rendered):
    inventory, out, plan = rendered
    for record in plan["records"]:
        where = "%s/%s" % (inventory, record["slug"])
        docs = manifests(out, record["slug"], "infra")
        gateway = one(docs, "Gateway", record["names"]["gateway"])
        rule = one(docs, "DestinationRule")
        assert rule["spec"]["host"] == "%s.%s.svc.cluster.local" % (record["names"]["epp_service"], record["namespace"])
        ref = gateway["spec"]["infrastructure"]["parametersRef"]
        overlay = yaml.safe_load(one(docs, "ConfigMap", ref["name"])["data"]["deployment"])
        pod = overlay["spec"]["template"]["spec"]
        assert pod["containers"][0]["name"] == "istio-proxy", where
        if record.get("affinity"):
            assert pod["affinity"] == record["affinity"], where
        else:
            assert "affinity" not in pod, where
        assert pod.get("tolerations", []) == (record.get("tolerations") or []), where
