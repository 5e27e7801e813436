# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Values files users bring (llm-d's legacy guides, tests/fixtures/llmd_guides) through the plan and the values
step, on an on-prem and a cloud site: each either yields values with the contract intact or is refused with a
message naming the model, the file, the key and the fix (issue 26). The render test renders the same with helm."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build as plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import normalize_image
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as sv
from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT, epp_fix

GUIDES = os.path.join(ROOT, "tests", "fixtures", "llmd_guides")
with open(os.path.join(GUIDES, "sites.yml")) as _sites:
    SITES = yaml.safe_load(_sites)

# model -> serving pods the chart creates (decode + prefill replicas)
PODS = {"InferenceScheduling": 8, "InferenceSchedulingCPU": 2, "PDDisaggregation": 5, "SimulatedAccelerators": 4,
        "PrecisePrefixCacheAware": 8}
# (site, model) -> what refuses it (per problem, substrings of it); absent: deploys
POOL_REFUSED = [["inferencePool.modelServers.matchLabels", "select no decode pod",
                 "Fix: make modelArtifacts.labels in ms-sim/values.yaml carry"]]
REFUSED = {
    ("rke2", "SimulatedAccelerators"): POOL_REFUSED,
    ("cloud", "SimulatedAccelerators"): POOL_REFUSED,
    ("rke2", "PrecisePrefixCacheAware"): [
        ["gaie-kv-events/values.yaml: inferenceExtension.pluginsCustomConfig[precise-prefix-cache-config.yaml] "
         "plugins[1].parameters.indexerConfig.tokenizersPoolConfig: its uds tokenizer is served by a tokenizer sidecar",
         "(Qwen/Qwen3-32B) at run time", "Fix: use prefix-cache-scorer", "and remove inferenceExtension.sidecar"],
        ["gaie-kv-events/values.yaml: inferenceExtension.env[0] (HF_TOKEN) from Secret llm-d-hf-token gives the EPP "
         "a Hugging Face token", "Fix: remove that env entry"]],
}


# model -> what refuses it in the plan already (the values policy runs in the plan, issue 27), on every site
# (SYS_NICE and seccomp Unconfined; with the default aips_pod_security, baseline enforced, both knobs are named)
PLAN_REFUSED = {"InferenceSchedulingCPU": [
    ["ms-inference-scheduling-cpu/values.yaml: decode.containers[0].securityContext.capabilities.add", "SYS_NICE",
     "refused by the values policy (added-capabilities", "and by Pod Security baseline",
     "Fix: remove it, or apply both: allow it for this model in aips_values_policy_allow with",
     "and set aips_pod_security to"],
    ["ms-inference-scheduling-cpu/values.yaml: decode.containers[0].securityContext.seccompProfile.type",
     "'Unconfined'", "refused by the values policy (seccomp-unconfined", "and by Pod Security baseline",
     "and set aips_pod_security to"]]}


def site_settings(site, without=()):
    group = SITES[site]
    models = dict((category, [m for m in entries if m["name"] not in without])
                  for category, entries in group["aips_models"].items())
    return {"cloud_provider": group["aips_cloud_provider"], "kubeconfig": group.get("aips_kubeconfig"),
            "harbor_hostname": group["aips_harbor_hostname"], "harbor_user": group["aips_harbor_user"],
            "harbor_token": "t0ken", "gpu_toleration": group.get("aips_gpu_toleration") or {},
            "models_dir": os.path.join(GUIDES, "models"), "models": models,
            "pod_security": {"enforce": "baseline", "warn": "restricted", "audit": "restricted"}}


def stack_settings(site):
    group = SITES[site]
    return {"air_gapped": group["aips_cloud_provider"] == "on-prem", "registry_host": group["aips_harbor_hostname"],
            "mirrored_registries": group.get("serving_stack_mirrored_registries") or [], "allow_unpinned": True}


def load(path):
    with open(path) as handle:
        return yaml.safe_load(handle)


@pytest.fixture(scope="module", params=sorted(SITES))
def site(request):
    records, problems = plan.build_plan(site_settings(request.param, without=PLAN_REFUSED))
    assert not [p for p in problems if p.severity == "error"], [str(p) for p in problems]
    specs = dict((r["name"], sv.stack_spec(r, load(r["values_files"]["gaie"]), load(r["values_files"]["ms"]),
                                           stack_settings(request.param))) for r in records)
    return request.param, dict((r["name"], r) for r in records), specs


def test_every_fixture_pair_is_planned(site):
    _site, records, _specs = site
    assert sorted(records) == sorted(set(PODS) - set(PLAN_REFUSED))


@pytest.mark.parametrize("name_of_site", sorted(SITES))
def test_the_plan_refuses_what_the_values_policy_refuses_naming_model_file_key_and_fix(name_of_site):
    """SYS_NICE (the CPU guide's vLLM): refused by the plan, before any play changes anything."""
    records, problems = plan.build_plan(site_settings(name_of_site))
    errors = [str(p) for p in problems if p.severity == "error"]
    assert records == [] and len(errors) == sum(len(w) for w in PLAN_REFUSED.values()), errors
    for name, wanted in PLAN_REFUSED.items():
        found = [e for e in errors if e.startswith("generative/%s: " % name)]
        assert len(found) == len(wanted), errors
        for message in wanted:
            assert [e for e in found if all(part in e for part in message)], (message, found)


def test_the_plan_counts_the_pods_the_chart_creates(site):
    """Defect 4: PDDisaggregation's 4 prefill replicas count (the render test compares with helm template)."""
    _site, records, _specs = site
    assert dict((name, r["replicas"]) for name, r in records.items()) == dict(
        (name, pods) for name, pods in PODS.items() if name not in PLAN_REFUSED)


def test_each_fixture_deploys_or_is_refused_naming_model_file_key_and_fix(site):
    name_of_site, records, specs = site
    for name, spec in specs.items():
        wanted = REFUSED.get((name_of_site, name))
        if wanted is None:
            assert spec["problems"] == [], (name_of_site, name, spec["problems"])
            continue
        assert len(spec["problems"]) == len(wanted), (name_of_site, name, spec["problems"])
        for problem, parts in zip(spec["problems"], wanted):
            assert problem.startswith(name + ": "), problem
            assert "Fix: " in problem, problem
            for part in parts:
                assert part in problem, (part, problem)


def test_claim_served_pods_name_no_hugging_face_secret(site):
    """Defect 1: most guides set authSecretName; nothing of it stays, and a note says so per file."""
    name_of_site, records, specs = site
    for name, spec in specs.items():
        text = json.dumps(spec["values"])
        assert "llm-d-hf-token" not in text and "authSecretName" not in text, (name_of_site, name)
        if "authSecretName" not in json.dumps(load(records[name]["values_files"]["ms"])):
            assert spec["notes"] == [], (name_of_site, name)
            continue
        assert spec["notes"][0] == (
            "%s: %s: dropped modelArtifacts.authSecretName (Secret llm-d-hf-token): the model is served from its claim "
            "(%s) with HF_HUB_OFFLINE=1, so its pods need no Hugging Face token, and nothing creates that Secret"
            % (name, records[name]["values_files"]["ms"], records[name]["model_artifacts_uri"]))
    assert len(specs["PrecisePrefixCacheAware"]["notes"]) == 2
    assert specs["PrecisePrefixCacheAware"]["notes"][1].startswith(
        "PrecisePrefixCacheAware: %s: dropped inferenceExtension.env[0] (HF_TOKEN)"
        % records["PrecisePrefixCacheAware"]["values_files"]["gaie"])


def test_an_epp_reaching_hugging_face_warns_on_cloud(site):
    """Defect 2: on-prem a problem (REFUSED), on cloud a warning naming file and key."""
    name_of_site, _records, specs = site
    warnings = specs["PrecisePrefixCacheAware"]["warnings"]
    if name_of_site == "cloud":
        assert len(warnings) == 2, warnings
        assert "its uds tokenizer is served by a tokenizer sidecar" in warnings[0]
        assert "gaie-kv-events/values.yaml: inferenceExtension.env[0] (HF_TOKEN)" in warnings[1]
    else:
        assert warnings == []
    assert all(spec["warnings"] == [] for name, spec in specs.items() if name != "PrecisePrefixCacheAware")


def test_the_claim_contract_holds_in_the_values(site):
    name_of_site, records, specs = site
    for name, spec in specs.items():
        ms = spec["values"]["modelservice"]
        record = records[name]
        assert ms["modelArtifacts"]["uri"] == record["model_artifacts_uri"] and ms["modelArtifacts"]["readOnly"] is True
        for role in ("decode", "prefill"):
            section = ms.get(role) or {}
            if section.get("create") is False:
                continue
            assert section["extraConfig"]["affinity"] == record["affinity"], (name_of_site, name, role)
            assert section["extraConfig"]["imagePullSecrets"] == [{"name": "harbor-creds"}]
            assert section.get("tolerations", []) == record["tolerations"]
            for container in section["containers"]:
                assert container["mountModelVolume"] is True
                assert {"name": "HF_HUB_OFFLINE", "value": "1"} in container["env"], (name_of_site, name, role)


def test_no_message_names_an_image_the_user_did_not_write(site):
    """Defect 7: on-prem with a lock that pins about half of the images, every image is reported as its values file
    writes it (the GAIE hub/name:tag joined as the chart joins it): the pinned ones off the registry by their tag,
    never by the @sha256: form the lock's pin makes of them, the others also as unpinned."""
    name_of_site, records, _specs = site
    written = set()
    for record in records.values():
        for kind in ("gaie", "ms"):
            written.update(image for _where, image in sv.image_references(load(record["values_files"][kind])))
    pinned = set(sorted(written)[::2])
    assert pinned and written - pinned, written
    carried = image_plan.image_plan([{"source": normalize_image(image), "project": "images-llmd"}
                                     for image in sorted(written)], HARBOR)
    lock = dict((normalize_image(image), {"digest": "sha256:" + hashlib.sha256(image.encode()).hexdigest()})
                for image in pinned)
    pins = image_plan.image_pins(carried, lock)
    assert all(image_plan.pin_image(image, pins) for image in pinned)
    assert not any(image_plan.pin_image(image, pins) for image in written - pinned)
    settings = dict(stack_settings(name_of_site), air_gapped=True, allow_unpinned=False, mirrored_registries=[],
                    image_pins=pins)
    off_registry, unpinned = set(), set()
    for name, record in records.items():
        spec = sv.stack_spec(record, load(record["values_files"]["gaie"]), load(record["values_files"]["ms"]), settings)
        for problem in spec["problems"] + spec["warnings"]:
            assert "@sha256:" not in problem, problem
            if " = " in problem and ("is not pinned" in problem or " is not in " in problem):
                image = problem.split(" = ", 1)[1].split(" is not ", 1)[0]
                assert image in written, (name, image, problem)
                (unpinned if "is not pinned" in problem else off_registry).add(image)
    # every image is off the registry (none mirrored), reported by its tag, pinned or not; only the others unpinned
    assert off_registry == written, sorted(written - off_registry)
    assert unpinned == written - pinned, (sorted(unpinned), sorted(written - pinned))


@pytest.mark.parametrize("name_of_site", sorted(SITES))
def test_the_epp_fixes_the_refusals_name_applied_leave_nothing_that_reaches_hugging_face(name_of_site):
    """Defect 2 through to its end: the fixes of every EPP finding (on-prem problems, cloud warnings) applied as
    written give a GAIE values file with no finding, no token Secret and no sidecar, whose EPP config is still a
    config the scheduler reads (the same plugins, the precise scorer swapped for the approximate one)."""
    records, _problems = plan.build_plan(site_settings(name_of_site, without=PLAN_REFUSED))
    record = [r for r in records if r["name"] == "PrecisePrefixCacheAware"][0]
    gaie, ms = load(record["values_files"]["gaie"]), load(record["values_files"]["ms"])
    spec = sv.stack_spec(record, gaie, ms, stack_settings(name_of_site))
    messages = spec["problems"] if name_of_site == "rke2" else spec["warnings"]
    assert len(messages) == 2, messages
    fixed = epp_fix.apply_named_fixes(gaie, messages)
    after = sv.stack_spec(record, fixed, ms, stack_settings(name_of_site))
    assert after["problems"] == [] and after["warnings"] == [], after
    extension = after["values"]["gaie"]["inferenceExtension"]
    assert "sidecar" not in extension and "HF_TOKEN" not in json.dumps(extension), extension
    config = yaml.safe_load(extension["pluginsCustomConfig"]["precise-prefix-cache-config.yaml"])
    assert [p["type"] for p in config["plugins"]] == [
        "single-profile-handler", "prefix-cache-scorer", "kv-cache-utilization-scorer", "queue-scorer",
        "max-score-picker"], config
    assert "tokenizersPoolConfig" not in json.dumps(config)
