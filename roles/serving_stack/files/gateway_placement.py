#!/bin/sh
# pylint: disable=pointless-string-statement
# sh runs the next line (Ansible's Python from AIPS_PYTHON, else python3); Python sees a string.
''''exec "${AIPS_PYTHON:-python3}" "$0" "$@" # '''
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helm post-renderer of the llm-d-infra and llm-d-router releases: what their charts have no key for.

llm-d-infra: place the Istio gateway pod with its model.

Istio builds a Gateway's Deployment from its own template and merges, as a strategic merge
patch, the ``deployment`` key of the ConfigMap the Gateway names in
``spec.infrastructure.parametersRef``. llm-d-infra v1.3.0 renders that ConfigMap itself, with
only the istio-proxy container's args and resources in it. The serving_stack role puts the
model's placement (hard nodeAffinity, tolerations) as JSON into the annotation
``ai-platform.serving/gateway-placement`` (``gateway.annotations``, rendered on the Gateway and
on that ConfigMap); this program merges it into the ConfigMap's ``deployment`` overlay, so the
gateway pod lands on the model's nodes with the GPU toleration. Manifests without the
annotation pass through unchanged.

llm-d-router-standalone v0.10.0 (the llm-d v0.10 stack): its EPP pod (EPP and Envoy sidecar) has no key
for ``imagePullSecrets`` or a pod/EPP securityContext. The role puts ``ai-platform.serving/epp-pod``
(JSON ``{"imagePullSecrets": [...], "securityContext": true}``) into ``router.epp.podAnnotations``; on
the workload whose pod template carries it, this program adds the pull secrets (by name) and, where the
chart set none, the Pod Security "restricted" context: pod ``runAsNonRoot`` as uid/gid 65532 (the
distroless images' nonroot user: the EPP's and Envoy's ``distroless-*`` image, whose user the kubelet
could not check as a name) with the RuntimeDefault seccomp profile; every container
``allowPrivilegeEscalation: false`` and ``capabilities.drop: [ALL]`` (Envoy listens on 8081/19001, above
1024, and writes only to stdout).

stdin: the rendered manifests; stdout: the same manifests, the ConfigMap completed.
Needs PyYAML: helm runs it through sh, which starts AIPS_PYTHON (serving_stack sets it to
Ansible's Python), else the ``python3`` on PATH.
"""

import json
import sys

try:
    import yaml
except ImportError:  # pragma: no cover - depends on the interpreter sh found
    sys.exit("gateway_placement: PyYAML is missing in %s; set AIPS_PYTHON to a Python that has it (Ansible's)."
             % sys.executable)

ANNOTATION = "ai-platform.serving/gateway-placement"
EPP_POD_ANNOTATION = "ai-platform.serving/epp-pod"
NONROOT_UID = 65532
WORKLOAD_KINDS = ("Deployment", "StatefulSet")


def place_overlay(overlay_text, placement):
    """The ConfigMap's ``deployment`` overlay (YAML text) with ``placement`` merged into its pod spec."""
    overlay = yaml.safe_load(overlay_text or "") or {}
    pod = overlay.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
    if placement.get("affinity"):
        pod["affinity"] = placement["affinity"]
    tolerations = list(pod.get("tolerations") or [])
    for toleration in placement.get("tolerations") or []:
        if toleration not in tolerations:
            tolerations.append(toleration)
    if tolerations:
        pod["tolerations"] = tolerations
    return yaml.safe_dump(overlay, default_flow_style=False, sort_keys=False)


def _annotation(doc):
    return ((doc.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION)


def place(documents):
    """Complete every annotated ConfigMap of ``documents``; return the names of those placed.

    An annotated Gateway whose ``parametersRef`` names a ConfigMap that was not placed is an
    error (ValueError): its pod would land anywhere.
    """
    placed = []
    for doc in documents:
        if not isinstance(doc, dict) or doc.get("kind") != "ConfigMap" or not _annotation(doc):
            continue
        if "deployment" not in (doc.get("data") or {}):
            continue
        doc["data"]["deployment"] = place_overlay(doc["data"]["deployment"], json.loads(_annotation(doc)))
        placed.append(doc["metadata"]["name"])
    for doc in documents:
        if not isinstance(doc, dict) or doc.get("kind") != "Gateway" or not _annotation(doc):
            continue
        ref = ((doc.get("spec") or {}).get("infrastructure") or {}).get("parametersRef") or {}
        if ref.get("kind") == "ConfigMap" and ref.get("name") not in placed:
            raise ValueError("Gateway %s names ConfigMap %s for its pod, but the release renders no such ConfigMap "
                             "with a deployment overlay" % (doc["metadata"]["name"], ref.get("name")))
    return documents, placed


def secure_pod(pod, settings):
    """``pod`` (a pod spec, changed in place) with the pull secrets and restricted context of ``settings``."""
    secrets = list(pod.get("imagePullSecrets") or [])
    known = set(entry.get("name") for entry in secrets if isinstance(entry, dict))
    for entry in settings.get("imagePullSecrets") or []:
        if entry.get("name") not in known:
            secrets.append(entry)
            known.add(entry.get("name"))
    if secrets:
        pod["imagePullSecrets"] = secrets
    if not settings.get("securityContext"):
        return pod
    if not pod.get("securityContext"):
        pod["securityContext"] = {"runAsNonRoot": True, "runAsUser": NONROOT_UID, "runAsGroup": NONROOT_UID,
                                  "seccompProfile": {"type": "RuntimeDefault"}}
    for key in ("initContainers", "containers"):
        for container in pod.get(key) or []:
            if isinstance(container, dict) and not container.get("securityContext"):
                container["securityContext"] = {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}}
    return pod


def secure_epp(documents):
    """Complete the pod of every workload whose pod template carries the epp-pod annotation; return their names."""
    secured = []
    for doc in documents:
        if not isinstance(doc, dict) or doc.get("kind") not in WORKLOAD_KINDS:
            continue
        template = (doc.get("spec") or {}).get("template") or {}
        text = ((template.get("metadata") or {}).get("annotations") or {}).get(EPP_POD_ANNOTATION)
        if not text:
            continue
        secure_pod(template.setdefault("spec", {}), json.loads(text))
        secured.append(doc["metadata"]["name"])
    return documents, secured


def main():
    documents = [doc for doc in yaml.safe_load_all(sys.stdin) if doc is not None]
    try:
        documents, _placed = place(documents)
        documents, _secured = secure_epp(documents)
    except ValueError as exc:
        sys.exit("gateway_placement: %s" % exc)
    yaml.safe_dump_all(documents, sys.stdout, default_flow_style=False, sort_keys=False)


if __name__ == "__main__":
    main()
