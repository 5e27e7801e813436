"""build_plan on every validation case and on the seed's own examples."""

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings, load_cases

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import build_plan, format_problems

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
