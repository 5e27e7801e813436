# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lookup yaml_file (the collection's one YAML reader in Jinja; model_sync reads its lock file with it): the
planned values files read again only below the models tree, so a file swapped for a symlink out of the tree after the
plan is refused (issue 27, audit gap 7). serving_stack's values step reads them in Python with the same reader
(module_utils/stack/spec_task.py; tests/unit/plugins/module_utils/stack/test_spec_task.py).

The lookup is loaded by Ansible's plugin loader in a fresh interpreter (the loader needs to own the
``ansible_collections`` package, which this test process has already imported), and the expressions below are
rendered as a task would write them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import subprocess
import sys
import textwrap


from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan
from ansible_collections.ai_platform.serving.tests.support.plan_cases import case_settings

CASE = {"folders": {"generative/M": ["gaie-m", "ms-m"]},
        "values": {"generative/M/ms-m": {"decode": {"replicas": 1}}},
        "models": {"generative": [{"name": "M", "enabled": True}]}}
SECRET = "linked-secret-27-spec"

RENDER = textwrap.dedent("""
    import json, sys
    from jinja2.nativetypes import NativeEnvironment
    from ansible.plugins.loader import init_plugin_loader, lookup_loader
    init_plugin_loader([sys.argv[1]])
    expressions, variables = json.loads(sys.stdin.read())
    env = NativeEnvironment()
    env.globals["query"] = lambda name, *terms, **options: lookup_loader.get(name).run(list(terms), {}, **options)
    out = {}
    for key, expression in expressions.items():
        try:
            out[key] = env.from_string(expression).render(**variables)
        except Exception as exc:
            out[key] = "error: %s: %s" % (type(exc).__name__, exc)
    print(json.dumps(out))
""")


# one query per values file kind, every record's file in record order (what spec.yml did before serving_stack_spec)
EXPRESSIONS = dict(("%s_files" % kind, "{{ query('ai_platform.serving.yaml_file', *(records | map(attribute="
                    "'values_files.%s')), root=models_dir) }}" % kind) for kind in ("gaie", "ms"))


def read_values(records, models_dir, cwd):
    # the collections folder this process imports the collection from (.collections, or ansible-test's tree)
    collections = os.path.abspath(build_plan.__code__.co_filename)
    for _level in range(7):  # ansible_collections/ai_platform/serving/plugins/module_utils/plan/build.py
        collections = os.path.dirname(collections)
    variables = {"records": records, "models_dir": models_dir}
    proc = subprocess.run([sys.executable, "-c", RENDER, collections], input=json.dumps([EXPRESSIONS, variables]),
                          capture_output=True, text=True, timeout=120, check=True, cwd=str(cwd))
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_the_values_step_reads_the_planned_values_files(tmp_path):
    settings = case_settings(tmp_path, CASE)
    records, problems = build_plan(settings)
    assert len(records) == 1, [str(p) for p in problems]
    out = read_values(records, settings["models_dir"], tmp_path)
    assert out == {"gaie_files": [{}], "ms_files": [{"decode": {"replicas": 1}}]}


def test_a_values_file_swapped_for_a_link_out_of_the_tree_after_the_plan_is_refused(tmp_path):
    settings = case_settings(tmp_path, CASE)
    records = build_plan(settings)[0]
    values = records[0]["values_files"]["ms"]
    outside = tmp_path / "outside.yaml"
    outside.write_text("token: %s\n" % SECRET)
    os.unlink(values)
    os.symlink(str(outside), values)  # after the plan, before the values step
    out = read_values(records, settings["models_dir"], tmp_path)
    assert out["gaie_files"] == [{}]
    refused = out["ms_files"]
    assert refused.startswith("error: ") and "%s: refused: it resolves to a file outside %s (a symlink leaving that " \
        "folder)" % (values, settings["models_dir"]) in refused, refused
    assert SECRET not in refused
    # an empty root is no check (it used to be read as the current folder): the link is followed
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert read_values(records, "", elsewhere)["ms_files"] == [{"token": SECRET}]
