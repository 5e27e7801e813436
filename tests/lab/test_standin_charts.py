"""The lab's STAND-IN Helm charts under lab/charts/ (llm-d-infra v1.3.0, GAIE inferencepool v1.2.0,
llm-d-modelservice v0.4.12): small charts written in this repository that take the upstream value
keys, because the upstream charts cannot be fetched here. Production uses the upstream charts.

`helm template` checks each rule the stand-ins implement; `helm install --wait` into a fresh
namespace checks that the lab's apiserver accepts the Gateway and the InferencePool (real CRDs) and
that a modelservice release running the inference-sim image, and the EPP the inferencepool
stand-in deploys with standin.deployEpp, become Ready.
"""

import json
import os
import subprocess
import uuid

import pytest
import yaml

from labctl import REPO_ROOT, docker_config_secret

CHARTS = REPO_ROOT / "lab" / "charts"
ISTIO_DR = "networking.istio.io/v1beta1/DestinationRule"
POOL_LABELS = {"llm-d.ai/inferenceServing": "true", "llm-d.ai/model": "ms-demo"}


def _helm(env, *args, check=True):
    proc = subprocess.run(["helm", *map(str, args)], env=dict(os.environ, **env), text=True,
                          capture_output=True, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"helm {' '.join(map(str, args))} failed:\n{proc.stderr}")
    return proc


def _render(env, tmp_path, chart, release, values=None, api_versions=(), check=True):
    """`helm template` -> {(kind, name): object}, or the failed process when check is False."""
    values_file = tmp_path / f"{chart}-{uuid.uuid4().hex[:6]}.json"
    values_file.write_text(json.dumps(values or {}))
    extra = [arg for api in api_versions for arg in ("--api-versions", api)]
    proc = _helm(env, "template", release, CHARTS / chart, "-n", "ns1", "-f", values_file, *extra,
                 check=check)
    if not check:
        return proc
    docs = [d for d in yaml.safe_load_all(proc.stdout) if d]
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def _fails(env, tmp_path, chart, values, message):
    proc = _render(env, tmp_path, chart, "ms-demo", values, check=False)
    assert proc.returncode != 0, f"{chart} rendered although it should fail with {message!r}"
    assert message in proc.stderr, proc.stderr


def _container(deployment, name="vllm"):
    return next(c for c in deployment["spec"]["template"]["spec"]["containers"] if c["name"] == name)


def _env(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


# --- llm-d-infra -------------------------------------------------------------------------------

def test_infra_defaults_gateway_and_istio_parameters(env, tmp_path):
    objs = _render(env, tmp_path, "llm-d-infra", "infra-demo")
    gateway = objs["Gateway", "infra-demo-inference-gateway"]
    assert gateway["apiVersion"] == "gateway.networking.k8s.io/v1"
    assert gateway["spec"]["gatewayClassName"] == "istio"
    assert gateway["spec"]["listeners"] == [{"name": "default", "port": 80, "protocol": "HTTP",
                                             "allowedRoutes": {"namespaces": {"from": "All"}}}]
    assert gateway["metadata"]["labels"]["istio.io/enable-inference-extproc"] == "true"
    assert gateway["spec"]["infrastructure"]["parametersRef"] == {
        "group": "", "kind": "ConfigMap", "name": "infra-demo-inference-gateway"}
    params = objs["ConfigMap", "infra-demo-inference-gateway"]
    assert set(params["data"]) == {"deployment", "service"}
    assert yaml.safe_load(params["data"]["service"]) == {"spec": {"type": "ClusterIP"}}
    proxy = yaml.safe_load(params["data"]["deployment"])["spec"]["template"]["spec"]["containers"][0]
    assert proxy["name"] == "istio-proxy" and "--proxyLogLevel" in proxy["args"]
    assert not [k for k in objs if k[0] == "DestinationRule"]


def test_infra_keys_name_labels_listeners_service_type(env, tmp_path):
    release = "r" * 52  # 52 + "-inference-gateway" cut at 63 ends in "-", which is trimmed
    objs = _render(env, tmp_path, "llm-d-infra", release)
    assert ("Gateway", f"{release}-inference") in objs
    listeners = [{"name": "http", "port": 8080, "protocol": "HTTP"}]
    objs = _render(env, tmp_path, "llm-d-infra", "infra-demo", {"gateway": {
        "fullnameOverride": "my-gw", "labels": {"team": "a"}, "annotations": {"note": "b"},
        "listeners": listeners, "service": {"type": "NodePort"}}})
    gateway = objs["Gateway", "my-gw"]
    assert gateway["metadata"]["labels"]["team"] == "a"
    assert gateway["metadata"]["annotations"] == {"note": "b"}
    assert gateway["spec"]["listeners"] == listeners
    assert yaml.safe_load(objs["ConfigMap", "my-gw"]["data"]["service"])["spec"]["type"] == "NodePort"


def test_infra_parameters_only_for_istio_and_when_enabled(env, tmp_path):
    objs = _render(env, tmp_path, "llm-d-infra", "infra-demo",
                   {"gateway": {"gatewayClassName": "kgateway-standin"}})
    gateway = objs["Gateway", "infra-demo-inference-gateway"]
    assert "infrastructure" not in gateway["spec"]
    assert "istio.io/enable-inference-extproc" not in gateway["metadata"]["labels"]
    assert list(objs) == [("Gateway", "infra-demo-inference-gateway")]
    objs = _render(env, tmp_path, "llm-d-infra", "infra-demo",
                   {"gateway": {"gatewayParameters": {"enabled": False}}})
    assert list(objs) == [("Gateway", "infra-demo-inference-gateway")]
    assert "infrastructure" not in objs["Gateway", "infra-demo-inference-gateway"]["spec"]
    assert not _render(env, tmp_path, "llm-d-infra", "infra-demo", {"gateway": {"enabled": False}})


def test_infra_destination_rule_needs_enabled_and_the_istio_api(env, tmp_path):
    rule = {"enabled": True, "host": "gw.ns1.svc.cluster.local",
            "trafficPolicy": {"connectionPool": {"http": {"http1MaxPendingRequests": 1024}}}}
    values = {"gateway": {"destinationRule": rule}}
    objs = _render(env, tmp_path, "llm-d-infra", "infra-demo", values, api_versions=[ISTIO_DR])
    dr = objs["DestinationRule", "infra-demo-inference-gateway"]
    assert dr["apiVersion"] == "networking.istio.io/v1beta1"
    assert dr["spec"] == {"host": rule["host"], "trafficPolicy": rule["trafficPolicy"]}
    # The lab has no Istio: without the API the rule is left out.
    assert ("DestinationRule", "infra-demo-inference-gateway") not in _render(
        env, tmp_path, "llm-d-infra", "infra-demo", values)
    assert ("DestinationRule", "infra-demo-inference-gateway") not in _render(
        env, tmp_path, "llm-d-infra", "infra-demo", {"gateway": {}}, api_versions=[ISTIO_DR])


# --- inferencepool -----------------------------------------------------------------------------

POOL_VALUES = {"inferencePool": {"modelServers": {"matchLabels": POOL_LABELS},
                                 "targetPorts": [{"number": 8000}]}}


def test_inferencepool_pool_and_epp_service(env, tmp_path):
    objs = _render(env, tmp_path, "inferencepool", "gaie-demo", POOL_VALUES)
    pool = objs["InferencePool", "gaie-demo"]
    assert pool["apiVersion"] == "inference.networking.k8s.io/v1"
    assert pool["spec"] == {"targetPorts": [{"number": 8000}],
                            "selector": {"matchLabels": POOL_LABELS},
                            "endpointPickerRef": {"name": "gaie-demo-epp", "port": {"number": 9002}}}
    service = objs["Service", "gaie-demo-epp"]
    grpc = next(p for p in service["spec"]["ports"] if p["name"].startswith("grpc"))
    assert grpc["port"] == 9002
    # standin.deployEpp defaults to false: no EPP Deployment, no DestinationRule without Istio.
    assert {k[0] for k in objs} == {"InferencePool", "Service"}
    assert ("DestinationRule", "gaie-demo-epp") not in _render(
        env, tmp_path, "inferencepool", "gaie-demo", dict(POOL_VALUES, provider={"name": "istio"}))


def test_inferencepool_epp_deployment_behind_standin_value(env, tmp_path):
    image = {"hub": "harbor.example/images-shaide/gaie", "name": "epp", "tag": "v1.2.0",
             "pullPolicy": "IfNotPresent"}
    values = dict(POOL_VALUES, inferenceExtension={"image": image, "replicas": 2},
                  standin={"deployEpp": True})
    objs = _render(env, tmp_path, "inferencepool", "gaie-demo", values)
    deployment = objs["Deployment", "gaie-demo-epp"]
    assert deployment["spec"]["replicas"] == 2
    epp = deployment["spec"]["template"]["spec"]["containers"][0]
    assert epp["image"] == "harbor.example/images-shaide/gaie/epp:v1.2.0"
    assert epp["imagePullPolicy"] == "IfNotPresent"
    assert "--pool-name=gaie-demo" in epp["args"]
    selector = objs["Service", "gaie-demo-epp"]["spec"]["selector"]
    assert selector.items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
    # Upstream has no imagePullSecrets key, and neither has the stand-in.
    assert "imagePullSecrets" not in deployment["spec"]["template"]["spec"]


def test_inferencepool_istio_destination_rule(env, tmp_path):
    pool = {"http": {"maxRequestsPerConnection": 256000}}
    values = dict(POOL_VALUES, provider={"name": "istio", "istio": {
        "destinationRule": {"trafficPolicy": {"connectionPool": pool}}}})
    objs = _render(env, tmp_path, "inferencepool", "gaie-demo", values, api_versions=[ISTIO_DR])
    dr = objs["DestinationRule", "gaie-demo-epp"]
    assert dr["spec"]["host"] == "gaie-demo-epp.ns1.svc.cluster.local"
    assert dr["spec"]["trafficPolicy"]["connectionPool"] == pool
    values["provider"]["istio"]["destinationRule"]["host"] = "epp.example"
    objs = _render(env, tmp_path, "inferencepool", "gaie-demo", values, api_versions=[ISTIO_DR])
    assert objs["DestinationRule", "gaie-demo-epp"]["spec"]["host"] == "epp.example"
    values["provider"] = {"name": "none"}
    assert ("DestinationRule", "gaie-demo-epp") not in _render(
        env, tmp_path, "inferencepool", "gaie-demo", values, api_versions=[ISTIO_DR])


def test_inferencepool_needs_match_labels(env, tmp_path):
    proc = _render(env, tmp_path, "inferencepool", "gaie-demo", {}, check=False)
    assert proc.returncode != 0
    assert "inferencePool.modelServers.matchLabels is required" in proc.stderr


# --- llm-d-modelservice ------------------------------------------------------------------------

SIM = {"name": "vllm", "image": "sim:1", "modelCommand": "vllmServe", "mountModelVolume": True}


def _ms(env, tmp_path, release="ms-demo", uri="hf://org/name", proxy=True, decode=None, **values):
    values.setdefault("modelArtifacts", {})
    values["modelArtifacts"].setdefault("uri", uri)
    values.setdefault("routing", {"proxy": {"enabled": proxy, "image": "proxy:1"}})
    values["decode"] = {"containers": [SIM], **(decode or {})}
    values.setdefault("prefill", {"create": False})
    return _render(env, tmp_path, "llm-d-modelservice", release, values)


def test_modelservice_names_and_service_account(env, tmp_path):
    objs = _ms(env, tmp_path, prefill={"create": True, "replicas": 1, "containers": [SIM]})
    assert set(objs) == {("ServiceAccount", "ms-demo-llm-d-modelservice"),
                         ("Deployment", "ms-demo-llm-d-modelservice-decode"),
                         ("Deployment", "ms-demo-llm-d-modelservice-prefill")}
    pod = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == "ms-demo-llm-d-modelservice"
    # A release name containing the chart name is the full name.
    assert ("Deployment", "x-llm-d-modelservice-decode") in _ms(env, tmp_path, "x-llm-d-modelservice")
    assert ("Deployment", "mine-decode") in _ms(env, tmp_path, fullnameOverride="mine")
    assert ("Deployment", "ms-demo-mine-decode") in _ms(env, tmp_path, nameOverride="mine")
    long_name = "a" * 50
    assert ("Deployment", f"{long_name}-llm-decode") in _ms(env, tmp_path, long_name)  # cut at 55, "-" trimmed


def test_modelservice_pod_labels_and_selector(env, tmp_path):
    objs = _ms(env, tmp_path, modelArtifacts={"labels": POOL_LABELS},
               prefill={"create": True, "containers": [SIM]})
    for role in ("decode", "prefill"):
        deployment = objs["Deployment", f"ms-demo-llm-d-modelservice-{role}"]
        expected = dict(POOL_LABELS, **{"llm-d.ai/role": role})
        assert deployment["spec"]["template"]["metadata"]["labels"] == expected
        assert deployment["spec"]["selector"]["matchLabels"] == expected
    assert objs["Deployment", "ms-demo-llm-d-modelservice-prefill"]["spec"]["replicas"] == 0
    defaults = _ms(env, tmp_path)["Deployment", "ms-demo-llm-d-modelservice-decode"]
    assert defaults["spec"]["template"]["metadata"]["labels"] == {
        "llm-d.ai/inferenceServing": "true", "llm-d.ai/model": "random_model",
        "llm-d.ai/role": "decode"}


@pytest.mark.parametrize("uri, cache", [("pvc+hf://m-model/hub/Qwen/Qwen3-0.6B", "/model-cache/hub"),
                                        ("pvc+hf://m-model/a/b/Qwen/Qwen3-0.6B", "/model-cache/a/b")])
def test_modelservice_pvc_hf(env, tmp_path, uri, cache):
    container = dict(SIM, env=[{"name": "HF_HUB_OFFLINE", "value": "1"}], args=["--seed", "1"])
    objs = _ms(env, tmp_path, uri=uri, modelArtifacts={"uri": uri, "name": "Qwen/Qwen3-0.6B"},
               decode={"containers": [container]})
    deployment = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]
    vllm = _container(deployment)
    assert _env(vllm) == {"HF_HUB_OFFLINE": "1", "HF_HUB_CACHE": cache}
    assert vllm["command"] == ["vllm", "serve"]
    assert vllm["args"] == ["Qwen/Qwen3-0.6B", "--port", "8200",
                            "--served-model-name", "Qwen/Qwen3-0.6B", "--seed", "1"]
    assert vllm["volumeMounts"] == [{"name": "model-storage", "mountPath": "/model-cache",
                                     "readOnly": True}]
    assert deployment["spec"]["template"]["spec"]["volumes"] == [{
        "name": "model-storage", "persistentVolumeClaim": {"claimName": "m-model", "readOnly": True}}]


def test_modelservice_read_only_false_and_pvc(env, tmp_path):
    uri = "pvc://my-claim/models/tiny"
    objs = _ms(env, tmp_path, modelArtifacts={"uri": uri, "readOnly": False})
    deployment = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]
    vllm = _container(deployment)
    assert vllm["args"][0] == "/model-cache/models/tiny"
    assert "HF_HUB_CACHE" not in _env(vllm) and "HF_HOME" not in _env(vllm)
    assert vllm["volumeMounts"][0]["readOnly"] is False
    claim = deployment["spec"]["template"]["spec"]["volumes"][0]["persistentVolumeClaim"]
    assert claim == {"claimName": "my-claim", "readOnly": False}


def test_modelservice_hf_and_image_default(env, tmp_path):
    container = dict(SIM, modelCommand="imageDefault")
    objs = _ms(env, tmp_path, decode={"containers": [container]},
               modelArtifacts={"uri": "hf://org/name", "name": "org/name", "size": "1Gi"})
    deployment = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]
    vllm = _container(deployment)
    assert "command" not in vllm
    assert vllm["args"] == ["--model", "org/name", "--port", "8200", "--served-model-name", "org/name"]
    assert _env(vllm) == {"HF_HOME": "/model-cache"}
    assert deployment["spec"]["template"]["spec"]["volumes"] == [
        {"name": "model-storage", "emptyDir": {"sizeLimit": "1Gi"}}]


def test_modelservice_ports_with_and_without_proxy(env, tmp_path):
    prefill = {"create": True, "containers": [SIM]}
    objs = _ms(env, tmp_path, prefill=prefill)
    pod = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]["spec"]["template"]["spec"]
    assert pod["containers"][0]["args"][1:3] == ["--port", "8200"]
    proxy = pod["initContainers"][0]
    assert proxy["name"] == "routing-proxy" and proxy["restartPolicy"] == "Always"
    assert proxy["image"] == "proxy:1"
    assert proxy["ports"] == [{"containerPort": 8000}]
    prefill_pod = objs["Deployment", "ms-demo-llm-d-modelservice-prefill"]["spec"]["template"]["spec"]
    assert prefill_pod["containers"][0]["args"][1:3] == ["--port", "8000"]
    assert "initContainers" not in prefill_pod
    objs = _ms(env, tmp_path, proxy=False, prefill=prefill)
    pod = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]["spec"]["template"]["spec"]
    assert pod["containers"][0]["args"][1:3] == ["--port", "8000"]
    assert "initContainers" not in pod


def test_modelservice_pod_spec_from_values(env, tmp_path):
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "gpu", "operator": "In", "values": ["a100"]}]}]}}}
    tolerations = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    decode = {"replicas": 3, "nodeSelector": {"pool": "gpu"}, "tolerations": tolerations,
              "extraConfig": {"affinity": affinity, "imagePullSecrets": [{"name": "harbor-creds"}]}}
    deployment = _ms(env, tmp_path, decode=decode)["Deployment", "ms-demo-llm-d-modelservice-decode"]
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["spec"]["replicas"] == 3
    assert pod["imagePullSecrets"] == [{"name": "harbor-creds"}]
    assert pod["affinity"] == affinity
    assert pod["tolerations"] == tolerations
    assert pod["nodeSelector"] == {"pool": "gpu"}


def test_modelservice_custom_command_and_failures(env, tmp_path):
    custom = {"name": "vllm", "image": "sim:1", "command": ["/app/sim"], "args": ["--port", "1"],
              "mountModelVolume": True}
    objs = _ms(env, tmp_path, uri="oci://registry/models/tiny:1", decode={"containers": [custom]})
    deployment = objs["Deployment", "ms-demo-llm-d-modelservice-decode"]
    vllm = _container(deployment)
    assert (vllm["command"], vllm["args"]) == (["/app/sim"], ["--port", "1"])
    assert deployment["spec"]["template"]["spec"]["volumes"][0]["image"]["reference"] == \
        "registry/models/tiny:1"
    chart = "llm-d-modelservice"
    no_command = {"decode": {"containers": [{"name": "vllm", "image": "sim:1"}]},
                  "prefill": {"create": False}}
    _fails(env, tmp_path, chart, no_command, 'decode container "vllm": modelCommand is custom '
           "(the default), so command is required")
    oci = {"modelArtifacts": {"uri": "oci://registry/models/tiny:1"}, "prefill": {"create": False},
           "decode": {"containers": [SIM]}}
    _fails(env, tmp_path, chart, oci, "use modelCommand: custom")
    no_proxy_image = {"routing": {"proxy": {"image": ""}}, "prefill": {"create": False},
                      "decode": {"containers": [SIM]}}
    _fails(env, tmp_path, chart, no_proxy_image, "routing.proxy.image must be specified")


# --- installed into the lab --------------------------------------------------------------------

def test_charts_install_into_the_lab(kube, env, versions, namespace, tmp_path):
    ns = namespace
    kube.apply(docker_config_secret("harbor-creds", env), namespace=ns)
    image = (f"{env['AIPS_LAB_HARBOR_HOST']}/images-shaide/llm-d/llm-d-inference-sim:"
             f"{versions['INFERENCE_SIM_TAG']}")
    ms_values = {
        "modelArtifacts": {"uri": "hf://org/tiny-model", "name": "org/tiny-model",
                           "labels": POOL_LABELS},
        "routing": {"proxy": {"enabled": False}},
        "decode": {"replicas": 1, "extraConfig": {"imagePullSecrets": [{"name": "harbor-creds"}]},
                   "containers": [{
                       "name": "vllm", "image": image, "imagePullPolicy": "IfNotPresent",
                       "modelCommand": "custom", "command": ["/app/llm-d-inference-sim"],
                       "args": ["--model", "x", "--port", "8200"], "mountModelVolume": True,
                       "ports": [{"containerPort": 8200, "name": "http"}],
                       "readinessProbe": {"httpGet": {"path": "/health", "port": 8200},
                                          "periodSeconds": 1}}]},
        "prefill": {"create": False},
    }
    # standin.deployEpp: the real EPP (lab-built image, minimal plugin config) runs against the pool.
    gaie_values = dict(POOL_VALUES, standin={"deployEpp": True},
                       inferenceExtension={"image": {"pullPolicy": "IfNotPresent"}})
    releases = [("infra-standin", "llm-d-infra", {}), ("gaie-standin", "inferencepool", gaie_values),
                ("ms-standin", "llm-d-modelservice", ms_values)]
    for release, chart, values in releases:
        values_file = tmp_path / f"{release}.json"
        values_file.write_text(json.dumps(values))
        _helm(env, "install", release, CHARTS / chart, "-n", ns, "-f", values_file,
              "--wait", "--timeout", "180s")
    gateway = kube.get("gateway", "infra-standin-inference-gateway", ns)
    assert gateway["spec"]["infrastructure"]["parametersRef"]["kind"] == "ConfigMap"
    assert kube.get("configmap", "infra-standin-inference-gateway", ns)["data"]["service"]
    pool = kube.get("inferencepool", "gaie-standin", ns)
    assert pool["spec"]["endpointPickerRef"]["name"] == "gaie-standin-epp"
    assert kube.get("service", "gaie-standin-epp", ns)["spec"]["ports"][0]["port"] == 9002
    assert kube.get("deployment", "gaie-standin-epp", ns)["status"].get("readyReplicas") == 1
    decode = kube.get("deployment", "ms-standin-llm-d-modelservice-decode", ns)
    assert decode["status"].get("readyReplicas") == 1
    selector = ",".join(f"{k}={v}" for k, v in pool["spec"]["selector"]["matchLabels"].items())
    pods = kube.list("pods", ns, selector=selector)
    assert len(pods) == 1 and pods[0]["metadata"]["labels"]["llm-d.ai/role"] == "decode"
    assert any(c["type"] == "Ready" and c["status"] == "True"
               for c in pods[0]["status"]["conditions"])
