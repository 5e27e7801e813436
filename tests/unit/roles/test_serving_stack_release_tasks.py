# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The two expressions of roles/serving_stack/tasks/release.yml that read kubernetes.core.helm's results (the
failure line, once the filter helm_failure, and the release digest recorded after the deploy), rendered by Ansible's
own templating as the task file's text, on results shaped as kubernetes.core.helm returns them."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible.parsing.dataloader import DataLoader
from ansible.template import Templar, trust_as_template  # ansible-core 2.19+, the oldest the collection supports

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# a release item as serving_stack_info returns it (module_utils/stack/state.py:release_items), the parts read here
ITEM = {"slug": "all-minilm-l6-v2-rke2", "name": "gaie-all-minilm-l6-v2-rke2", "label": "all-minilm-l6-v2-rke2: x",
        "failure": "all-MiniLM-L6-v2-rke2: chart gaie (oci://r/inferencepool v1.2.0) failed in namespace "
                   "llm-d-all-minilm-l6-v2-rke2",
        "digest": "d" * 64, "record": {"name": "all-minilm-l6-v2-rke2-release-digests"}}


def task(name):
    with open(os.path.join(ROOT, "roles/serving_stack/tasks/release.yml")) as handle:
        found = [t for t in yaml.safe_load(handle) if t.get("name") == name]
    assert len(found) == 1, name
    return found[0]


def render(text, **variables):
    return Templar(loader=DataLoader(), variables=variables).template(trust_as_template(text))


def failure(result):
    return " ".join(render(task("Fail on the releases Helm did not deploy")["ansible.builtin.fail"]["msg"],
                           item=result).split())


def test_a_failed_release_names_the_model_chart_and_helms_error():
    assert failure({"item": ITEM, "msg": "x", "stderr": "Error: timed out waiting\n"}) == (
        "all-MiniLM-L6-v2-rke2: chart gaie (oci://r/inferencepool v1.2.0) failed in namespace "
        "llm-d-all-minilm-l6-v2-rke2: Error: timed out waiting")
    # an OCI chart: helm's progress lines before the error are left out
    pulled_first = {"item": ITEM, "stderr": "Pulled: r/inferencepool:v1.2.0\nDigest: sha256:b4\nError: execution error"}
    assert failure(pulled_first).endswith("llm-d-all-minilm-l6-v2-rke2: Error: execution error")
    # no stderr (a failure of the module itself): its msg; nothing at all: said so
    assert failure({"item": ITEM, "msg": "chart not found"}).endswith(": chart not found")
    assert failure({"item": ITEM, "stderr": "", "msg": ""}).endswith(": no error text")


def test_the_recorded_digest_is_the_revision_helm_reports_and_the_items_digest():
    record = task("Record what each release was deployed with")
    definition = record["kubernetes.core.k8s"]["definition"]
    result = {"item": ITEM, "status": {"status": "deployed", "revision": "3"}}
    assert render(definition["metadata"], item=result) == ITEM["record"]
    assert render(definition["data"], item=result) == {ITEM["name"]: "3 " + ITEM["digest"]}
    # only deployed releases are recorded (a failed one stopped the run before; check mode records nothing)
    results = [result, {"item": ITEM, "failed": True, "msg": "x"},
               {"item": ITEM, "status": {"status": "failed", "revision": "4"}}]
    assert render(record["loop"], serving_stack__helm={"results": results}) == [result]
    assert record["when"] == "not ansible_check_mode"
