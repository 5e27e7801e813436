"""build_plan on every validation case and on the seed's own examples."""

import pytest
import yaml

from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings, load_cases

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims, manifests
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import schema as plan_schema
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan, serving_replicas
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import format_problems

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case_reports_exactly_the_expected_problems(tmp_path, case):
    records, problems = build_plan(case_settings(tmp_path, case))
    errors = [str(p) for p in problems if p.severity == "error"]
    warnings = [str(p) for p in problems if p.severity == "warning"]
    assert len(errors) == len(case["errors"]), "\n".join(errors)
    for expected in case["errors"]:
        assert any(expected in e for e in errors), "%r not in %s" % (expected, errors)
    for expected in case.get("warnings") or []:
        assert any(expected in w for w in warnings), "%r not in %s" % (expected, warnings)
    if errors:
        assert records == []
        assert format_problems(problems).startswith("The model plan has %d problem" % len(errors))
    elif "records" in case:
        assert len(records) == case["records"]
    for record in records:  # the one record schema (plan/schema.py, model_plan's RETURN)
        assert plan_schema.record_problems(record) == [], record["slug"]
    shown = format_problems(problems) + "".join(str(p) for p in problems)
    for secret in case.get("never_shown") or []:
        assert secret not in shown


def test_every_problem_names_a_fix(tmp_path):
    case = next(c for c in CASES if c["id"] == "five-problems-at-once")
    problems = build_plan(case_settings(tmp_path, case))[1]
    assert len(problems) == 5
    assert all(p.fix and p.field and p.model for p in problems)


def test_token_never_in_problems(tmp_path):
    case = {"settings": {"cloud_provider": "cloud", "harbor_token": "s3cr3t-token"},
            "folders": {"generative/M": ["gaie-m", "ms-m"]},
            "models": {"generative": [{"name": "M", "enabled": True, "modelSource": {"harborRef": "bad"}}]}}
    problems = build_plan(case_settings(tmp_path, case))[1]
    assert problems
    assert "s3cr3t-token" not in format_problems(problems)


def replicas_case(settings, values, source, node_selector=None):
    model = {"name": "M", "enabled": True, "modelSource": source}
    if node_selector:
        model["nodeSelector"] = node_selector
    return {"settings": settings, "folders": {"generative/M": ["gaie-m", "ms-m"]},
            "values": {"generative/M/ms-m": values}, "models": {"generative": [model]}}


ON_PREM_SOURCE = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/m:v1", "modelUri": "hub/org/m",
                  "storageSize": "5Gi", "hostpathNode": "node-1"}


def test_replicas_on_a_hostpath_claim_are_pinned_to_its_node(tmp_path):
    case = replicas_case({}, {"decode": {"replicas": 2}}, ON_PREM_SOURCE, {"gpu": "a100"})
    records, problems = build_plan(case_settings(tmp_path, case))
    assert not [p for p in problems if p.severity == "error"], format_problems(problems)
    record = records[0]
    assert record["replicas"] == 2 and record["storage"]["access_mode"] == "ReadWriteOnce"
    assert record["node_selector"] == {"gpu": "a100", "kubernetes.io/hostname": "node-1"}
    terms = record["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]} in terms[0]["matchExpressions"]


def test_one_replica_keeps_the_selector_as_written(tmp_path):
    case = replicas_case({}, {"decode": {"replicas": 1}}, ON_PREM_SOURCE, {"gpu": "a100"})
    records, _problems = build_plan(case_settings(tmp_path, case))
    assert records[0]["replicas"] == 1 and records[0]["node_selector"] == {"gpu": "a100"}


def test_a_readwritemany_claim_is_asked_for_with_that_mode(tmp_path):
    source = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/m:v1", "modelUri": "hub/org/m",
              "storageSize": "5Gi", "accessMode": "ReadWriteMany", "storageClass": "nfs"}
    case = replicas_case({"cloud_provider": "cloud"}, {"decode": {"replicas": 3}}, source)
    records, _problems = build_plan(case_settings(tmp_path, case))
    claim = manifests.pvc_manifest(records[0])
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"] and claim["spec"]["storageClassName"] == "nfs"
    live = {"spec": {"accessModes": ["ReadWriteOnce"], "storageClassName": "nfs"}}
    assert claims.pvc_conflicts(claim, live) == [
        "its access modes are ReadWriteOnce, the plan wants ReadWriteMany (modelSource.accessMode)"]


# llm-d-modelservice v0.4.12 creates prefill by default with replicas 0 (chart_facts): a prefill section without
# replicas adds no pod (this test said 1 before), one with replicas and no create key adds them (issue 26, defect 4).
@pytest.mark.parametrize("values, replicas", [
    ({}, 1), ({"decode": {"replicas": 2}}, 2), ({"decode": {"create": False}, "prefill": {"create": True}}, 0),
    ({"decode": {"replicas": 1}, "prefill": {"create": True, "replicas": 2}}, 3), ({"decode": {"replicas": "x"}}, None),
    ({"decode": {"replicas": 1}, "prefill": {"replicas": 2}}, 3), ({"prefill": {"create": False, "replicas": 2}}, 1),
])
def test_serving_replicas_count_decode_and_created_prefill(tmp_path, values, replicas):
    path = tmp_path / "values.yaml"
    path.write_text(yaml.safe_dump(values))
    assert serving_replicas(str(path)) == replicas
    assert serving_replicas(str(tmp_path / "missing.yaml")) is None


def test_an_on_prem_storage_class_without_a_node_makes_a_dynamic_rwx_claim(tmp_path):
    case = [c for c in load_cases() if c["id"] == "on-prem-storage-class-without-node-is-a-dynamic-rwx-claim"][0]
    records, problems = build_plan(case_settings(tmp_path, case))
    assert [p for p in problems if p.severity == "error"] == []
    storage = records[0]["storage"]
    assert (storage["pv"], storage["hostpath_node"], storage["storage_class"], storage["access_mode"]) == (
        None, None, "longhorn", "ReadWriteMany")


def test_the_plan_counts_with_the_defaults_of_the_carried_chart(tmp_path):
    """chart_dir: the modelservice defaults come from the archive there (here one whose prefill defaults to 2)."""
    import io
    import tarfile
    charts = tmp_path / "charts"
    charts.mkdir()
    text = b"decode:\n  create: true\n  replicas: 1\nprefill:\n  create: true\n  replicas: 2\n"
    with tarfile.open(str(charts / "llm-d-modelservice-v0.4.12.tgz"), "w:gz") as tar:
        info = tarfile.TarInfo("llm-d-modelservice/values.yaml")
        info.size = len(text)
        tar.addfile(info, io.BytesIO(text))
    source = dict(ON_PREM_SOURCE, storageClass="nfs", accessMode="ReadWriteMany")
    del source["hostpathNode"]
    case = replicas_case({"cloud_provider": "cloud"}, {"decode": {"replicas": 1}}, source)
    settings = case_settings(tmp_path, case)
    assert build_plan(settings)[0][0]["replicas"] == 1
    records, _problems = build_plan(dict(settings, chart_dir=str(charts)))
    assert records[0]["replicas"] == 3
    (charts / "llm-d-modelservice-v0.4.12.tgz").write_bytes(b"broken")
    records, problems = build_plan(dict(settings, chart_dir=str(charts)))
    assert records == [] and "aips_chart_dir" in format_problems(problems)


# --- the llm-d v0.10 stack (issue 29)
def v010_case(folders=("router-q", "modelserver-q"), **extra):
    case = {"folders": {"generative/Q": list(folders)},
            "models": {"generative": [{"name": "Q", "enabled": True, "stack": "llm-d-v0.10"}]}}
    case.update(extra)
    return case


def test_a_v010_record_and_the_values_it_hands_on(tmp_path):
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.task import planned_values
    from ansible_collections.ai_platform.serving.tests.support.plan_cases import modelserver_objects
    router = {"router": {"epp": {"resources": {"requests": {"cpu": "100m", "memory": "256Mi"}}}}}
    case = v010_case(("gaie-q", "ms-q", "router-q", "modelserver-q"), values={"generative/Q/router-q": router},
                     manifests={"generative/Q/modelserver-q": {"b.yml": modelserver_objects("q", replicas=2)[:1],
                                                               "a.yaml": modelserver_objects("q")[1:]}})
    parsed = {}
    records, problems = build_plan(case_settings(tmp_path, case), parsed=parsed)
    assert [p for p in problems if p.severity == "error"] == []
    record = records[0]
    assert record["stack"] == "llm-d-v0.10" and record["replicas"] == 2
    model_dir = str(tmp_path / "models" / "generative" / "Q")
    assert record["values_files"] == {"router": model_dir + "/router-q/values.yaml",
                                      "modelserver": model_dir + "/modelserver-q"}
    assert record["names"]["router_release"] == "router-q" and record["names"]["router_epp"] == "router-q-epp"
    assert record["names"]["gaie_release"] == "gaie-q"  # the other stack's names stay (its removal needs them)
    values = planned_values(records, parsed)["q"]
    assert values["files"] == record["values_files"]
    # sorted files: a.yaml's ServiceAccount before b.yml's Deployment
    assert values["values"] == {"router": router, "modelserver": modelserver_objects("q")[1:]
                                + modelserver_objects("q", replicas=2)[:1]}


def test_the_seed_record_names_its_stack(tmp_path):
    case = {"folders": {"generative/Q": ["gaie-q", "ms-q", "router-q", "modelserver-q"]},
            "models": {"generative": [{"name": "Q", "enabled": True}]}}
    parsed = {}
    records, _problems = build_plan(case_settings(tmp_path, case), parsed=parsed)
    assert records[0]["stack"] == "llm-d-modelservice"
    assert sorted(records[0]["values_files"]) == ["gaie", "ms"] and sorted(parsed["q"]) == ["gaie", "ms"]


def _v010_gateway_case(entry=None, **settings):
    from ansible_collections.ai_platform.serving.tests.support.plan_cases import modelserver_objects
    case = v010_case(manifests={"generative/Q/modelserver-q": {"a.yaml": modelserver_objects("q")}},
                     settings=settings)
    case["models"]["generative"][0].update(entry or {})
    return case


def test_the_router_mode_is_the_models_else_the_sites_else_standalone(tmp_path):
    gateway = {"name": "llm-d-inference-gateway", "namespace": "gateway-system"}
    records, problems = build_plan(case_settings(tmp_path, _v010_gateway_case()))
    assert [str(p) for p in problems if p.severity == "error"] == []
    assert records[0]["router_mode"] == "standalone" and records[0]["router_gateway"] is None
    records, problems = build_plan(case_settings(tmp_path, _v010_gateway_case(
        router_mode="gateway", router_gateway=gateway)))
    assert [str(p) for p in problems if p.severity == "error"] == []
    assert records[0]["router_mode"] == "gateway"
    # namespace given, service defaulted to Istio's name of the Gateway's Service
    assert records[0]["router_gateway"] == dict(gateway, service="llm-d-inference-gateway-istio")
    records, _problems = build_plan(case_settings(tmp_path, _v010_gateway_case(
        {"routerMode": "standalone"}, router_mode="gateway", router_gateway=gateway)))
    assert records[0]["router_mode"] == "standalone"
    # the Gateway's namespace defaults to the model's
    records, _problems = build_plan(case_settings(tmp_path, _v010_gateway_case(
        {"routerMode": "gateway"}, router_gateway={"name": "gw", "service": "gw-svc"})))
    assert records[0]["router_gateway"] == {"name": "gw", "namespace": "llm-d-q", "service": "gw-svc"}


def test_router_mode_problems_name_the_model_field_and_fix(tmp_path):
    records, problems = build_plan(case_settings(tmp_path, _v010_gateway_case({"routerMode": "mesh"})))
    text = format_problems(problems)
    assert records == [] and "generative/Q" in text and "routerMode" in text and "unknown router mode" in text
    assert "standalone, gateway" in text
    # gateway mode without the site's Gateway
    records, problems = build_plan(case_settings(tmp_path, _v010_gateway_case({"routerMode": "gateway"})))
    text = format_problems(problems)
    assert records == [] and "aips_router_gateway names none" in text and "llm-d-q" in text
    # routerMode on the seed's stack
    case = {"folders": {"generative/Q": ["gaie-q", "ms-q"]},
            "models": {"generative": [{"name": "Q", "enabled": True, "routerMode": "gateway"}]}}
    records, problems = build_plan(case_settings(tmp_path, case))
    text = format_problems(problems)
    assert records == [] and "routerMode is a setting of the llm-d-v0.10 stack" in text and "set stack:" in text


@pytest.mark.parametrize("settings, field, words", [
    ({"router_mode": "mesh"}, "aips_router_mode", "unknown router mode"),
    ({"router_gateway": "gw"}, "aips_router_gateway", "must be a mapping"),
    ({"router_gateway": {"name": "GW"}}, "aips_router_gateway.name", "a DNS subdomain"),
    ({"router_gateway": {"name": "gw", "namespace": "a.b"}}, "aips_router_gateway.namespace", "a DNS label"),
    ({"router_gateway": {"name": "gw", "port": 80}}, "aips_router_gateway.port", "unknown field"),
])
def test_router_site_settings_are_checked_before_any_model(tmp_path, settings, field, words):
    records, problems = build_plan(case_settings(tmp_path, _v010_gateway_case(**settings)))
    assert records == []
    assert any(p.field == field and words in str(p) for p in problems), format_problems(problems)


def fake_kubectl(tmp_path, output, code=0):
    script = tmp_path / "kubectl"
    (tmp_path / "out.yaml").write_text(output)
    script.write_text("#!/bin/sh\n[ \"$1\" = kustomize ] || exit 9\n[ -d \"$2\" ] || exit 8\n"
                      "cat %s\necho 'kustomize: boom' >&2\nexit %d\n" % (tmp_path / "out.yaml", code))
    script.chmod(0o755)
    return str(script)


def test_a_kustomize_overlay_is_rendered_with_the_kubectl_setting(tmp_path):
    from ansible_collections.ai_platform.serving.tests.support.plan_cases import modelserver_objects
    kubectl = fake_kubectl(tmp_path, yaml.safe_dump_all(modelserver_objects("q", replicas=3)))
    case = v010_case(manifests={"generative/Q/modelserver-q": {"kustomization.yaml": "resources: []\n"}},
                     settings={"kubectl_binary": kubectl})
    parsed = {}
    records, problems = build_plan(case_settings(tmp_path, case), parsed=parsed)
    assert [str(p) for p in problems if p.severity == "error"] == []
    assert records[0]["replicas"] == 3 and parsed["q"]["modelserver"] == modelserver_objects("q", replicas=3)


def test_a_failing_kustomize_is_a_problem_with_its_error(tmp_path):
    kubectl = fake_kubectl(tmp_path, "", code=1)
    case = v010_case(manifests={"generative/Q/modelserver-q": {"kustomization.yaml": "resources: []\n"}},
                     settings={"kubectl_binary": kubectl})
    problems = [str(p) for p in build_plan(case_settings(tmp_path, case))[1]]
    assert len(problems) == 1 and "kubectl kustomize failed (exit 1): kustomize: boom" in problems[0]
    assert "Fix: fix the overlay until `kubectl kustomize " in problems[0]


def test_kustomize_output_goes_through_the_safe_reader(tmp_path):
    from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb
    kubectl = fake_kubectl(tmp_path, alias_bomb(levels=8))
    case = v010_case(manifests={"generative/Q/modelserver-q": {"kustomization.yaml": "resources: []\n"}},
                     settings={"kubectl_binary": kubectl})
    problems = [str(p) for p in build_plan(case_settings(tmp_path, case))[1]]
    assert len(problems) == 1 and "an alias bomb" in problems[0]


def test_a_manifest_linked_out_of_the_models_tree_is_refused(tmp_path):
    outside = tmp_path / "outside.yaml"
    outside.write_text("kind: Secret\n")
    case = v010_case(manifests={"generative/Q/modelserver-q": {}})
    settings = case_settings(tmp_path, case)
    (tmp_path / "models" / "generative" / "Q" / "modelserver-q" / "x.yaml").symlink_to(outside)
    problems = [str(p) for p in build_plan(settings)[1]]
    assert len(problems) == 1 and "resolves to a file outside" in problems[0]


# (category, folder, slug, the model server's kind in its Deployment name); the Kustomize example
# (generative/Qwen3-0.6B) needs kubectl: tests/integration/plan/test_plan_kustomize.py plans it on both stacks
V010_EXAMPLES = [("generative", "Qwen3-0.6B-rke2", "qwen3-0-6b-rke2", "vllm"),
                 ("embedder", "all-MiniLM-L6-v2-rke2", "all-minilm-l6-v2-rke2", "infinity"),
                 ("generative", "sim-qwen3-lab", "sim-qwen3-lab", "sim"),
                 ("embedder", "all-MiniLM-L6-v2-lab", "minilm-lab", "infinity")]


@pytest.mark.parametrize("category, name, slug, server", V010_EXAMPLES)
@pytest.mark.parametrize("stack", ["llm-d-modelservice", "llm-d-v0.10"])
def test_the_example_folders_plan_on_both_stacks(category, name, slug, server, stack):
    import os
    from ansible_collections.ai_platform.serving.tests.support import ROOT
    from ansible_collections.ai_platform.serving.tests.support.plan_cases import BASE_SETTINGS
    settings = dict(BASE_SETTINGS, models_dir=os.path.join(ROOT, "models"), serving_stack=stack,
                    kubectl_binary="kubectl-never-run", models={category: [{"name": name, "enabled": True}]})
    parsed = {}
    records, problems = build_plan(settings, parsed=parsed)
    assert [str(p) for p in problems if p.severity == "error"] == []
    assert records[0]["slug"] == slug and records[0]["stack"] == stack
    if stack == "llm-d-v0.10":
        assert records[0]["replicas"] == 1
        objects = parsed[slug]["modelserver"]
        assert sorted((o["kind"], o["metadata"]["name"]) for o in objects) == [
            ("Deployment", "%s-%s-decode" % (slug, server)), ("ServiceAccount", slug + "-sa")]
        assert parsed[slug]["router"]["router"]["modelServers"]["matchLabels"] == {"llm-d.ai/guide": slug}
