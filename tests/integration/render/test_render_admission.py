# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values that Pod Security refuses are refused before any change, naming both knobs, and the named fix renders.

playbooks/render.yml on inventory/cloud (one model, Qwen3-0.6B), with a copy of the repo's model folders whose
ms values ask for SYS_NICE, a hostPath volume or an Unconfined seccomp profile. With the default Pod Security
(enforce baseline) each is refused by the values policy in a message that names the values file, the key, the
allow-list entry (serving_stack_values_policy_allow) and the level (aips_pod_security); nothing is rendered. With
only the allow-list entry the render before deploy (module serving_stack_render, real charts through helm
template) refuses the rendered pod, naming aips_pod_security. With both fixes exactly as the message names them
(parsed from it) the release renders and its decode pod carries the key. No cluster is needed.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import shutil
import subprocess

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support import ROOT

from test_render_models import KUBE_VERSION, charts_dir, helm_binary, manifests  # pylint: disable=import-error

MS = os.path.join("generative", "Qwen3-0.6B", "ms-qwen3-0-6b", "values.yaml")
SLUG = "qwen3-0-6b"
CASES = {
    "sys-nice": ({"securityContext": {"capabilities": {"add": ["SYS_NICE"]}}}, None,
                 "decode.containers[0].securityContext.capabilities.add", "added-capabilities"),
    "host-path": ({}, [{"name": "shm", "hostPath": {"path": "/dev/shm", "type": "Directory"}}],
                  "decode.volumes[0].hostPath", "host-path"),
    "unconfined": ({"securityContext": {"seccompProfile": {"type": "Unconfined"}}}, None,
                   "decode.containers[0].securityContext.seccompProfile.type", "seccomp-unconfined"),
}
ENTRY = re.compile(r"\{model: ([^,]+), rule: ([^,]+), key: ([^,]+), reason: <why>\}")
LEVELS = re.compile(r"set aips_pod_security to \{([^}]*)\}")


def models_with(tmp_path, case):
    container, volumes, _key, _rule = CASES[case]
    models = tmp_path / "models"
    shutil.copytree(os.path.join(ROOT, "models"), str(models))
    path = models / MS
    values = yaml.safe_load(path.read_text())
    values["decode"]["containers"][0].update(container)
    if volumes:
        values["decode"]["volumes"] = volumes
    path.write_text(yaml.safe_dump(values))
    return str(models), str(path)


def render(tmp_path, models, **extra):
    out = str(tmp_path / ("render-%d" % len(os.listdir(str(tmp_path)))))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               AIPS_HARBOR_TOKEN="render-test-token")
    variables = dict({"aips_render_dir": out, "aips_render_chart_dir": charts_dir(), "aips_models_dir": models,
                      "aips_render_kube_version": KUBE_VERSION, "serving_stack_helm_binary": helm_binary(),
                      "aips_allow_unpinned": True}, **extra)
    proc = subprocess.run(["ansible-playbook", "-i", os.path.join(ROOT, "inventory", "cloud"),
                           os.path.join(ROOT, "playbooks", "render.yml"), "-e", json.dumps(variables)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False)
    # JSON output escapes the message's quotes; the words are what the tests read (warnings go to stderr)
    text = proc.stdout + " " + proc.stderr
    return proc, out, " ".join(text.replace("\\n", " ").replace('\\"', '"').split())


def named_fix(text):
    """The allow-list entry and the aips_pod_security mapping the refusal names, as extra vars."""
    entry = ENTRY.search(text)
    levels = LEVELS.search(text)
    assert entry and levels, text[-3000:]
    model, rule, key = entry.groups()
    pod_security = dict(part.strip().split(": ", 1) for part in levels.group(1).split(","))
    return {"serving_stack_values_policy_allow": [{"model": model, "rule": rule, "key": key,
                                                   "reason": "the render test applies the named fix"}],
            "aips_pod_security": pod_security}


def decode_pod(out):
    docs = manifests(out, SLUG, "modelservice")
    (decode,) = [d for d in docs if d["kind"] == "Deployment" and d["metadata"]["name"].endswith("-decode")]
    return decode["spec"]["template"]["spec"]


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_before_any_change_naming_both_knobs_and_the_named_fix_renders(tmp_path, case):
    models, path = models_with(tmp_path, case)
    _container, _volumes, key, rule = CASES[case]
    proc, out, text = render(tmp_path, models)
    assert proc.returncode != 0, text[-3000:]
    where = "Qwen3-0.6B: %s: %s = " % (path, key)
    assert where in text, text[-4000:]
    assert "refused by the values policy (%s: " % rule in text
    assert "and by Pod Security baseline, the level the model namespaces enforce (aips_pod_security)" in text
    assert "aips_values_policy_allow with {model: %s, rule: %s, key: %s, reason: <why>}" % (
        SLUG, rule, key) in text
    assert "set aips_pod_security to {enforce: privileged, audit: restricted, warn: restricted}" in text
    assert not os.path.exists(os.path.join(out, SLUG, "modelservice.yaml")), "rendered although refused"

    fix = named_fix(text)
    # the allow-list entry alone: the render before deploy refuses the rendered pod, naming the level
    proc, out, text = render(tmp_path, models, serving_stack_values_policy_allow=fix[
        "serving_stack_values_policy_allow"])
    assert proc.returncode != 0, text[-3000:]
    assert "Qwen3-0.6B: modelservice release renders Deployment" in text, text[-4000:]
    assert "which Pod Security baseline (enforced on namespace llm-d-%s) refuses" % SLUG in text
    assert "It comes from %s: %s." % (path, key) in text
    assert "set aips_pod_security to {enforce: privileged, audit: restricted, warn: restricted}" in text
    assert not os.path.exists(os.path.join(out, SLUG, "modelservice.yaml"))

    # both, as named: renders, and the pod asks for what the values file asked
    proc, out, text = render(tmp_path, models, **fix)
    assert proc.returncode == 0, text[-4000:] + proc.stderr[-2000:]
    pod = decode_pod(out)
    vllm = [c for c in pod["containers"] if c["name"] == "vllm"][0]
    if case == "sys-nice":
        assert vllm["securityContext"]["capabilities"]["add"] == ["SYS_NICE"]
    elif case == "unconfined":
        assert vllm["securityContext"]["seccompProfile"] == {"type": "Unconfined"}
    else:
        assert {"name": "shm", "hostPath": {"path": "/dev/shm", "type": "Directory"}} in pod["volumes"]


def test_a_values_key_the_pinned_chart_cannot_render_fails_naming_model_chart_and_helms_error(tmp_path):
    """A GAIE values file written for a later inferencepool: Helm's own error, per model and chart, nothing rendered."""
    models = tmp_path / "models"
    shutil.copytree(os.path.join(ROOT, "models"), str(models))
    path = models / "generative" / "Qwen3-0.6B" / "gaie-qwen3-0-6b" / "values.yaml"
    values = yaml.safe_load(path.read_text())
    # a later inferencepool's EPP sidecar, its image as one string: v1.2.0's template reads image.pullPolicy of it
    values.setdefault("inferenceExtension", {})["sidecar"] = {
        "enabled": True, "name": "uds-tokenizer", "image": "ghcr.io/llm-d/llm-d-uds-tokenizer:v0.4.0"}
    path.write_text(yaml.safe_dump(values))
    proc, out, text = render(tmp_path, str(models))
    assert proc.returncode != 0, text[-3000:]
    assert "Qwen3-0.6B: release gaie of chart inferencepool (" in text, text[-4000:]
    assert "v1.2.0) does not render with helm template: Error:" in text
    assert "Nothing was installed" in text
    assert not os.path.exists(os.path.join(out, SLUG, "gaie.yaml"))


def test_monitors_are_rendered_as_asked_with_a_warning_and_the_switch_turns_them_off(tmp_path):
    """A values file asking for the decode PodMonitor: rendered (render.yml reads no cluster, so the CRD check is
    a warning naming the switch); serving_stack_monitors false renders none, the rest unchanged."""
    models = tmp_path / "models"
    shutil.copytree(os.path.join(ROOT, "models"), str(models))
    path = models / MS
    values = yaml.safe_load(path.read_text())
    values["decode"]["monitoring"] = {"podmonitor": {"enabled": True}}
    path.write_text(yaml.safe_dump(values))
    proc, out, text = render(tmp_path, str(models))
    assert proc.returncode == 0, text[-4000:]
    kinds = [d["kind"] for d in manifests(out, SLUG, "modelservice")]
    assert "PodMonitor" in kinds, kinds
    assert "could not check the cluster for the Prometheus Operator's CRDs" in text and \
        "serving_stack_monitors: false turns them off" in text, text[-4000:]
    proc, out_off, text = render(tmp_path, str(models), serving_stack_monitors=False)
    assert proc.returncode == 0, text[-4000:]
    kinds_off = [d["kind"] for d in manifests(out_off, SLUG, "modelservice")]
    assert "PodMonitor" not in kinds_off and sorted(k for k in kinds if k != "PodMonitor") == sorted(kinds_off)
