"""The llm-d-infra post-renderer (roles/serving_stack/files/gateway_placement.py) on rendered manifests."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values

SCRIPT = Path(__file__).resolve().parents[3] / "roles" / "serving_stack" / "files" / "gateway_placement.py"
SPEC = importlib.util.spec_from_file_location("gateway_placement", SCRIPT)
gp = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(gp)

AFFINITY = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "workload", "operator": "In", "values": ["gpu"]}]}]}}}
GPU = {"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}
# what llm-d-infra v1.3.0 renders (templates/gateway-infrastructure/configmap.yaml, gateway.yaml), shortened
OVERLAY = """spec:
  template:
    spec:
      containers:
      - name: istio-proxy
        args: [proxy, router]
"""


def manifests(placement=None, ref="infra-m-inference-gateway"):
    annotations = {gp.ANNOTATION: json.dumps(placement)} if placement is not None else {}
    return [
        {"apiVersion": "v1", "kind": "ConfigMap",
         "metadata": {"name": "infra-m-inference-gateway", "annotations": dict(annotations)},
         "data": {"deployment": OVERLAY, "service": "spec:\n  type: ClusterIP\n"}},
        {"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
         "metadata": {"name": "infra-m-inference-gateway", "annotations": dict(annotations)},
         "spec": {"infrastructure": {"parametersRef": {"group": "", "kind": "ConfigMap", "name": ref}}}},
    ]


def test_placement_is_merged_into_the_overlay_istio_reads():
    docs, placed = gp.place(manifests({"affinity": AFFINITY, "tolerations": [GPU]}))
    assert placed == ["infra-m-inference-gateway"]
    pod = yaml.safe_load(docs[0]["data"]["deployment"])["spec"]["template"]["spec"]
    assert pod["affinity"] == AFFINITY and pod["tolerations"] == [GPU]
    assert pod["containers"] == [{"name": "istio-proxy", "args": ["proxy", "router"]}]
    assert docs[0]["data"]["service"] == "spec:\n  type: ClusterIP\n"


def test_without_the_annotation_nothing_changes():
    before = manifests()
    docs, placed = gp.place(manifests())
    assert placed == [] and docs == before


def test_a_gateway_naming_an_unplaced_configmap_is_an_error():
    docs = manifests({"tolerations": [GPU]}, ref="some-other-configmap")
    with pytest.raises(ValueError, match="names ConfigMap some-other-configmap"):
        gp.place(docs)


def test_tolerations_already_there_are_not_repeated():
    overlay = gp.place_overlay("spec:\n  template:\n    spec:\n      tolerations:\n      - {key: dedicated, "
                               "operator: Equal, value: gpu, effect: NoSchedule}\n", {"tolerations": [GPU]})
    assert yaml.safe_load(overlay)["spec"]["template"]["spec"]["tolerations"] == [GPU]


def test_runs_as_a_helm_post_renderer():
    """stdin → stdout, as helm calls it; the output parses back to the placed manifests."""
    text = yaml.safe_dump_all(manifests({"affinity": AFFINITY}))
    # helm executes the file itself: sh starts AIPS_PYTHON on it
    env = dict(os.environ, AIPS_PYTHON=sys.executable)
    proc = subprocess.run([str(SCRIPT)], input=text, capture_output=True, text=True, check=True, env=env)
    docs = list(yaml.safe_load_all(proc.stdout))
    assert yaml.safe_load(docs[0]["data"]["deployment"])["spec"]["template"]["spec"]["affinity"] == AFFINITY
    bad = yaml.safe_dump_all(manifests({"affinity": AFFINITY}, ref="x"))
    proc = subprocess.run([sys.executable, str(SCRIPT)], input=bad, capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "gateway_placement: Gateway infra-m-inference-gateway names ConfigMap x" in proc.stderr


def test_the_script_reads_the_annotation_the_values_write():
    """The post-renderer runs outside the collection (its own copy of the key): it must be naming's."""
    assert gp.ANNOTATION == stack_values.GATEWAY_PLACEMENT_ANNOTATION == "ai-platform.serving/gateway-placement"


def epp_deployment(settings, security=None):
    annotations = {gp.EPP_POD_ANNOTATION: json.dumps(settings)} if settings is not None else {}
    envoy = {"name": "envoy-proxy", "image": "docker.io/envoyproxy/envoy:distroless-v1.33.2"}
    if security:
        envoy["securityContext"] = security
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "router-m-epp"},
            "spec": {"template": {"metadata": {"annotations": annotations},
                                  "spec": {"containers": [envoy, {"name": "epp", "image": "e"}]}}}}


def test_the_epp_pod_gets_the_pull_secret_and_the_restricted_context():
    docs, secured = gp.secure_epp([epp_deployment({"imagePullSecrets": [{"name": "harbor-creds"}],
                                                   "securityContext": True}, security={"runAsUser": 101})])
    assert secured == ["router-m-epp"]
    pod = docs[0]["spec"]["template"]["spec"]
    assert pod["imagePullSecrets"] == [{"name": "harbor-creds"}]
    assert pod["securityContext"] == {"runAsNonRoot": True, "runAsUser": 65532, "runAsGroup": 65532,
                                      "seccompProfile": {"type": "RuntimeDefault"}}
    envoy, epp = pod["containers"]
    assert envoy["securityContext"] == {"runAsUser": 101}  # the chart's proxy.securityContext is kept
    assert epp["securityContext"] == {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}


def test_an_epp_without_the_annotation_or_secret_is_left_as_rendered():
    before = [epp_deployment(None)]
    docs, secured = gp.secure_epp([epp_deployment(None)])
    assert secured == [] and docs == before
    docs, _secured = gp.secure_epp([epp_deployment({"securityContext": True})])
    assert "imagePullSecrets" not in docs[0]["spec"]["template"]["spec"]


def test_the_router_values_annotation_is_what_the_post_renderer_reads():
    from ansible_collections.ai_platform.serving.plugins.module_utils.stack import router
    assert router.EPP_POD_ANNOTATION == gp.EPP_POD_ANNOTATION
