# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The chart facts: the known-facts table against the real chart archives, Helm's merge, pods and labels."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import io
import os
import tarfile

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import chart_facts as cf
from ansible_collections.ai_platform.serving.tests.support import ROOT
from ansible_collections.ai_platform.serving.tests.support.plan_cases import alias_bomb

# The real upstream charts as a site carries them (tests/support/lab.py UPSTREAM_CHARTS).
UPSTREAM_CHARTS = os.environ.get("AIPS_LAB_CHARTS_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "upstream",
                                                                        "charts")
with open(os.path.join(ROOT, "group_vars", "all", "images.yml")) as _images:
    CHART_MIRRORS = dict((c["name"], c["version"]) for c in yaml.safe_load(_images)["aips_chart_mirrors"])


def real_archive(chart):
    path = os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % (chart, cf.KNOWN_FACTS[chart]["version"]))
    if not os.path.isfile(path):
        pytest.fail("the real chart %s is missing (see %s/README.md)" % (path, UPSTREAM_CHARTS), pytrace=False)
    return path


@pytest.mark.parametrize("chart", sorted(cf.KNOWN_FACTS))
def test_the_known_facts_are_what_the_real_chart_says(chart):
    facts, source = cf.chart_defaults(chart, UPSTREAM_CHARTS)
    assert source == real_archive(chart)
    assert facts == cf.KNOWN_FACTS[chart]["values"], "KNOWN_FACTS[%r] disagrees with %s" % (chart, source)
    # every fact key is one the chart has (a renamed key would silently fall out of facts_of)
    for path in cf.FACT_KEYS[chart]:
        assert cf._get(facts, path)[0], (chart, path)


@pytest.mark.parametrize("chart", sorted(cf.KNOWN_FACTS))
def test_the_known_facts_are_of_the_pinned_chart_versions(chart):
    assert CHART_MIRRORS[chart] == cf.KNOWN_FACTS[chart]["version"]


def test_the_v0_4_12_facts_the_issue_found():
    facts = cf.KNOWN_FACTS[cf.MODELSERVICE]["values"]
    assert facts["prefill"]["create"] is True and facts["prefill"]["replicas"] == 0
    assert facts["modelArtifacts"]["labels"] == {"llm-d.ai/inference-serving": "true"}
    assert facts["routing"]["servicePort"] == 8000 and facts["routing"]["proxy"]["targetPort"] == 8200


def test_without_an_archive_the_table_is_used(tmp_path):
    facts, source = cf.chart_defaults(cf.MODELSERVICE, str(tmp_path))
    assert facts == cf.KNOWN_FACTS[cf.MODELSERVICE]["values"] and source.startswith("known facts of llm-d-modelservice")
    assert cf.chart_defaults(cf.MODELSERVICE, None)[0] == facts


def chart_archive(path, chart, values_text, extra=None):
    with tarfile.open(str(path), "w:gz") as tar:
        for name, text in [("%s/values.yaml" % chart, values_text)] + list(extra or []):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_an_archive_of_another_version_is_read_when_it_is_the_only_one(tmp_path):
    chart_archive(tmp_path / "llm-d-modelservice-v0.5.0.tgz", cf.MODELSERVICE,
                  "prefill:\n  create: false\n  replicas: 3\nother: 1\n")
    facts, source = cf.chart_defaults(cf.MODELSERVICE, str(tmp_path))
    assert source.endswith("llm-d-modelservice-v0.5.0.tgz")
    assert facts == {"prefill": {"create": False, "replicas": 3}}
    chart_archive(tmp_path / "llm-d-modelservice-v0.6.0.tgz", cf.MODELSERVICE, "{}\n")
    assert cf.find_archive(str(tmp_path), cf.MODELSERVICE) is None  # two versions, neither pinned: ambiguous


@pytest.mark.parametrize("members, error", [
    ([], "has no llm-d-modelservice/values.yaml"),
    ([("llm-d-modelservice/values.yaml", "- a list\n")], "is not a mapping"),
    ([("llm-d-modelservice/values.yaml", "a: [\n")], "is not valid YAML at line 2"),
    # the chart's values.yaml is read by the one YAML reader too (issue 27): an alias bomb is refused
    ([("llm-d-modelservice/values.yaml", alias_bomb())],
     "is refused: it has more than 1000000 nodes once its aliases are expanded"),
])
def test_a_broken_archive_is_an_error_not_the_table(tmp_path, members, error):
    path = tmp_path / "llm-d-modelservice-v0.4.12.tgz"
    with tarfile.open(str(path), "w:gz") as tar:
        for name, text in members:
            info = tarfile.TarInfo(name)
            info.size = len(text.encode())
            tar.addfile(info, io.BytesIO(text.encode()))
    with pytest.raises(ValueError, match=error):
        cf.chart_defaults(cf.MODELSERVICE, str(tmp_path))
    path.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="cannot be read as a chart archive"):
        cf.chart_defaults(cf.MODELSERVICE, str(tmp_path))


def test_coalesce_merges_maps_and_null_removes_a_default():
    defaults = {"a": {"b": 1, "c": 2}, "l": [1, 2], "s": "x"}
    assert cf.coalesce(defaults, {"a": {"c": 3, "d": 4}, "l": [9], "s": None}) == {"a": {"b": 1, "c": 3, "d": 4},
                                                                                   "l": [9]}
    assert defaults == {"a": {"b": 1, "c": 2}, "l": [1, 2], "s": "x"}


@pytest.mark.parametrize("values, pods", [
    ({}, 1),                                                      # decode 1, prefill created with 0 replicas
    ({"prefill": {"replicas": 2}}, 3),                            # no create key: the chart's create: true
    ({"decode": {"replicas": 4}, "prefill": {"create": False, "replicas": 2}}, 4),
    ({"decode": {"create": False}, "prefill": {"create": True}}, 0),
    ({"decode": {"replicas": 2}, "prefill": {"replicas": None}}, 3),  # null: the chart's key removed, 1 as template
    ({"multinode": True, "decode": {"replicas": 2, "parallelism": {"workers": 3}}}, 6),
    # the chart's parallelism.workers: 1 is merged in and wins over data / dataLocal, as in the chart's numWorkers
    ({"multinode": True, "decode": {"replicas": 1, "parallelism": {"data": 4, "dataLocal": 2}}}, 1),
    ({"multinode": True, "decode": {"replicas": 1, "parallelism": {"data": 4, "dataLocal": 2, "workers": None}}}, 2),
])
def test_serving_pods_follow_the_chart_defaults(values, pods):
    assert cf.serving_pods(values) == pods


def test_serving_pods_refuse_a_non_number():
    with pytest.raises(ValueError, match="decode.replicas"):
        cf.serving_pods({"decode": {"replicas": "x"}})


def test_pod_labels_are_the_chart_labels_merged_with_the_file():
    assert cf.pod_labels({}) == {"llm-d.ai/inference-serving": "true", "llm-d.ai/role": "decode"}
    assert cf.pod_labels({"modelArtifacts": {"labels": {"a": "b"}}}, "prefill") == {
        "llm-d.ai/inference-serving": "true", "a": "b", "llm-d.ai/role": "prefill"}
    assert cf.pod_labels({"modelArtifacts": {"labels": {"llm-d.ai/inference-serving": None}}}) == {
        "llm-d.ai/role": "decode"}
