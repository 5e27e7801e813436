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
