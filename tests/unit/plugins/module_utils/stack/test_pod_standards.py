# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Pod Security Standards predicates, parametrised over the pod specs of fixtures/pod_security.yml."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from pathlib import Path

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import pod_standards as ps
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import pod_security
from ansible_collections.ai_platform.serving.tests.support.storage_records import load_records

CASES = yaml.safe_load((Path(__file__).parent / "fixtures" / "pod_security.yml").read_text())


def checks(found):
    return sorted(v.check for v in found)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_baseline_checks(case):
    assert checks(ps.violations(case["pod"], "baseline", case.get("annotations"))) == sorted(case["baseline"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_restricted_checks(case):
    assert checks(ps.violations(case["pod"], "restricted", case.get("annotations"))) == sorted(case["restricted"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_privileged_admits_everything_and_the_strictest_level(case):
    assert ps.violations(case["pod"], "privileged", case.get("annotations")) == []
    assert ps.strictest_level(case["pod"], case.get("annotations")) == case["strictest"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_least_level_of_each_violation_admits_it(case):
    for violation in ps.violations(case["pod"], "restricted", case.get("annotations")):
        needed = ps.least_level(violation)
        assert ps.admits(needed, violation), violation
        assert not ps.admits(violation.level, violation), violation
        assert violation.check not in [v.check for v in ps.violations(case["pod"], needed, case.get("annotations"))
                                       if v.field == violation.field]


def test_violations_name_the_field_and_value():
    nice = {"name": "vllm", "securityContext": {"capabilities": {"add": ["SYS_NICE", "CHOWN"]}}}
    pod = {"containers": [{"name": "a"}, nice]}
    (found,) = ps.violations(pod, "baseline")
    assert found.field == "containers[1].securityContext.capabilities.add"
    assert found.value == ["SYS_NICE"]
    assert found.level == "baseline" and ps.least_level(found) == "privileged"
    assert "capabilities beyond" in found.text and "SYS_CHROOT" in found.text


def test_host_path_names_the_volume():
    (found,) = ps.violations({"volumes": [{"name": "shm", "hostPath": {"path": "/dev/shm"}}]}, "baseline")
    assert found.field == "volumes[0].hostPath" and "volume shm" in found.text


def test_an_unknown_level_checks_nothing_and_ranks_loosest():
    assert ps.violations({"hostNetwork": True}, "") == []
    assert ps.rank("nonsense") == 0 and ps.rank("restricted") == 2


def test_the_collections_own_jobs_pass_restricted():
    """The pull Job's contexts (k8s/pod_security.py) pass this reading of restricted as well as its own."""
    pod = {"securityContext": pod_security.pod_security_context(),
           "containers": [{"name": "pull", "securityContext": pod_security.container_security_context()}],
           "volumes": [{"name": "cache", "persistentVolumeClaim": {"claimName": "c"}}]}
    assert ps.violations(pod, "restricted") == []
    assert pod_security.restricted_problems(pod) == []


def test_the_clear_job_passes_restricted():
    job = manifests.clear_job_manifest(load_records()["on_prem"])
    assert ps.violations(job["spec"]["template"]["spec"], "restricted") == []
