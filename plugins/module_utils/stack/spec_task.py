# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The serving_stack_spec task: what the serving_stack role handles and every model's stack, in one Python step.

Shared by the module documentation (plugins/modules/serving_stack_spec.py) and the action that runs it in the
playbook's own process (plugins/action/serving_stack_spec.py). From the plan it selects and checks the records
(plan/select.py, the check every role makes first), checks the chart plan, reads each record's two values files
with the collection's one YAML reader below the models tree (plan/safe_yaml.py) and computes each stack spec
(stack/values.py:stack_spec) on the plain data read here. Every problem is collected; the task fails once.

A record on the llm-d v0.10 stack (``stack: llm-d-v0.10``, stacks.for_record) takes stack/spec_v010.py:stack_spec
instead, on ``{"router": <mapping>, "modelserver": [<parsed objects>]}``: the plan's ``model_values`` (which
renders a kustomization), else read here (``router-<slug>/values.yaml`` and the plain ``*.yaml`` manifests of
``modelserver-<slug>/``; a kustomization there needs the plan's rendering).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import glob
import os

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import spec_v010, stacks
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values

ROLE = "serving_stack"

# The options passed to stack/values.py:stack_spec as its settings, with their types; their defaults are that
# module's DEFAULT_SETTINGS (values_policy_allow: none). cloud_provider and harbor_hostname give its air_gapped and
# registry_host.
SETTINGS = (
    ("gateway_class", dict(type="str")),
    ("gateway_service_type", dict(type="str", choices=["ClusterIP", "NodePort", "LoadBalancer"])),
    ("gateway_listener", dict(type="str")),
    ("infra_values", dict(type="dict")),
    ("gaie_provider", dict(type="str", choices=["gke", "istio", "none"])),
    ("connection_pool", dict(type="dict")),
    ("cluster_domain", dict(type="str")),
    ("embeddings_port", dict(type="int")),
    ("mirrored_registries", dict(type="list", elements="str")),
    ("image_pins", dict(type="dict")),
    ("images", dict(type="list", elements="dict")),
    ("allow_unpinned", dict(type="bool")),
    ("lock_file", dict(type="str")),
    ("chart_dir", dict(type="str")),
    ("monitors", dict(type="bool")),
    ("pod_security", dict(type="dict")),
    ("values_policy_allow", dict(type="list", elements="dict", default=[])),
    ("pod_security_context", dict(type="bool")),
    ("pod_uid", dict(type="int")),
    ("pod_probes", dict(type="bool")),
    ("pod_probe_path", dict(type="str")),
    ("pod_requests", dict(type="dict")),
)


def argspec():
    spec = dict(
        # raw: None is "no plan was built", and the select step names the role's variable for any other bad value
        plan=dict(type="raw"),
        models=dict(type="list", elements="str", default=[]),
        specs=dict(type="bool", default=True),
        # raw: the chart check names serving_stack_charts for a value that is not a mapping of charts
        charts=dict(type="raw"),
        models_dir=dict(type="str", default=""),
        model_values=dict(type="dict", default={}),
        cloud_provider=dict(type="str", choices=["cloud", "on-prem"], default="on-prem"),
        harbor_hostname=dict(type="str", default=""),
    )
    for key, option in SETTINGS:
        spec[key] = dict(option, default=copy.deepcopy(stack_values.DEFAULT_SETTINGS.get(key, option.get("default"))))
    return spec


def unset_charts(charts, records=None):
    """The chart keys of ``charts`` (serving_stack_charts) without a ``ref``, in the order infra, gaie,
    modelservice (then router): those of the stacks of ``records`` (None: the default stack's)."""
    charts = charts if isinstance(charts, dict) else {}
    keys = []
    for record in records if records is not None else [{}]:
        try:
            stack = stacks.for_record(record)
        except ValueError:
            continue  # stack_specs names the record's unknown stack
        keys.extend(key for key in stacks.chart_keys(stack) if key not in keys)
    return [key for key in keys if not (isinstance(charts.get(key), dict) and charts[key].get("ref"))]


def chart_problem(charts, unset):
    """One message naming every chart key without a ``ref``, the value found and the fix."""
    charts = charts if isinstance(charts, dict) else {}
    return " ".join(
        "serving_stack_charts.%s.ref is not set (got %s). Fix: build the plan with playbooks/tasks/model_plan.yml (it "
        "derives the charts from aips_chart_mirrors, or takes aips_charts), or set serving_stack_charts.%s (ref, repo, "
        "version)." % (key, charts.get(key), key) for key in unset)


MODELSERVER = "modelserver"


def input_keys(record):
    """The keys of a record's stack inputs: its stack's values files, plus ``modelserver`` on llm-d v0.10."""
    stack = stacks.for_record(record)
    return stacks.values_files(stack) + ((MODELSERVER,) if stacks.is_v010(stack) else ())


def read_manifests(record, root=None):
    """``(objects, problems)``: the plain manifests (``*.yaml``, multi-document) of the record's
    ``values_files.modelserver`` folder; a kustomization there is the plan's to render."""
    folder = (record.get("values_files") or {}).get(MODELSERVER) or ""
    if os.path.isfile(os.path.join(folder, "kustomization.yaml")):
        return [], ["%s: %s holds a kustomization, which the model plan renders (kubectl kustomize). Fix: pass the "
                    "plan's model_values (aips_plan_artifacts.model_values) to serving_stack_spec"
                    % (record.get("name"), folder)]
    objects, problems = [], []
    for path in sorted(glob.glob(os.path.join(folder, "*.yaml"))):
        try:
            documents = safe_yaml.loads_all(safe_yaml.read_text(path, root=root), path)
        except safe_yaml.YamlFileError as exc:
            problems.append(str(exc))
            continue
        objects.extend(doc for doc in documents if doc is not None)
    if not objects and not problems:
        problems.append("%s: %s holds no manifest (*.yaml). Fix: put the model server's objects there"
                        % (record.get("name"), folder or "values_files.modelserver"))
    return objects, problems


def read_values(record, models_dir, read=safe_yaml.load_file):
    """``({'gaie': ..., 'ms': ...}, problems)``: the record's values files as the plan read them (an empty file
    is ``{}``), only below ``models_dir`` when it is set (symlinks resolved; ``~`` expanded); on llm-d v0.10
    ``{'router': ..., 'modelserver': [objects]}``."""
    root = os.path.expanduser(models_dir) if models_dir else None
    found, problems = {}, []
    if MODELSERVER in input_keys(record):
        found[MODELSERVER], problems = read_manifests(record, root)
    for chart in stacks.values_files(stacks.for_record(record)):
        path = (record.get("values_files") or {}).get(chart)
        try:
            data = read(path, root=root)
        except safe_yaml.YamlFileError as exc:
            problems.append(str(exc))
            continue
        if data is not None and not isinstance(data, dict):
            problems.append("%s: %s: values_files.%s must hold a mapping, got %s. Fix: write the values as a "
                            "mapping of keys" % (record.get("name"), path, chart, type(data).__name__))
            continue
        found[chart] = data or {}
    return found, problems


def stack_settings(params):
    """The settings stack/values.py:stack_spec reads, from the validated options."""
    settings = dict((key, params.get(key)) for key, _option in SETTINGS)
    settings.update(air_gapped=params.get("cloud_provider") == "on-prem",
                    registry_host=params.get("harbor_hostname") or "")
    return settings


def record_spec(record, files, settings):
    """``(spec, problems)`` of one record; an error of a record the plan did not make names the model."""
    try:
        if stacks.is_v010(stacks.for_record(record)):
            spec = spec_v010.stack_spec(record, files["router"], files[MODELSERVER], settings)
        else:
            spec = stack_values.stack_spec(record, files["gaie"], files["ms"], settings)
    except (KeyError, TypeError, ValueError) as exc:
        name = record.get("name") or record["slug"]
        return None, ["%s: its stack could not be computed from the plan record (%s: %s). Fix: build the plan with "
                      "playbooks/tasks/model_plan.yml" % (name, type(exc).__name__, exc)]
    return spec, list(spec["problems"])


def handed_values(record, values):
    """The record's values as the model plan read them (``values``: its ``model_values``,
    aips_plan_artifacts.model_values), when it read the same files; None otherwise, and the files are read
    (read_values)."""
    entry = (values or {}).get(record.get("slug"))
    if not isinstance(entry, dict) or entry.get("files") != (record.get("values_files") or {}):
        return None
    found = entry.get("values")
    try:
        keys = input_keys(record)
    except ValueError:
        return None
    charts = [key for key in keys if key != MODELSERVER]
    if not isinstance(found, dict) or any(not isinstance(found.get(chart), (dict, type(None))) for chart in charts):
        return None
    if MODELSERVER in keys and not isinstance(found.get(MODELSERVER), list):
        return None
    handed = dict((chart, copy.deepcopy(found.get(chart)) or {}) for chart in charts)
    if MODELSERVER in keys:
        handed[MODELSERVER] = copy.deepcopy(found[MODELSERVER])
    return handed


def stack_specs(records, params, read=safe_yaml.load_file):
    """``(specs, problems)``: ``{slug: stack spec}`` of every record, in record order, and every problem. Each
    record's values come from the plan (``model_values``) when it read the same files, else from the files."""
    settings = stack_settings(params)
    specs, problems = {}, []
    for record in records:
        try:
            stacks.for_record(record)
        except ValueError as exc:
            problems.append("%s: stack: %s. Fix: build the plan with playbooks/tasks/model_plan.yml"
                            % (record.get("name") or record.get("slug"), exc))
            continue
        files = handed_values(record, params.get("model_values"))
        found = []
        if files is None:
            files, found = read_values(record, params.get("models_dir"), read)
        problems.extend(found)
        if found:
            continue
        spec, found = record_spec(record, files, settings)
        problems.extend(found)
        if spec is not None:
            specs[record["slug"]] = spec
    return specs, problems


def spec_result(params, read=safe_yaml.load_file):
    """``(result, warnings)`` of the validated options.

    The result has ``records`` (the selected plan records), ``specs`` (slug to stack spec; empty when the
    option ``specs`` is false or no record is selected), ``charts`` (the chart plan, checked when specs are
    computed) and ``notes`` (every spec's notes, in record order); or ``failed`` with ``msg`` - the select step's
    message, the chart message, or the list of every problem. ``warnings`` are the specs' warnings.
    """
    try:
        records = select.select(params.get("plan"), params.get("models"), ROLE)
    except select.PlanRecordsError as exc:
        return dict(failed=True, msg=str(exc)), []
    charts = params.get("charts")
    result = dict(changed=False, records=records, specs={}, charts=charts if charts is not None else {}, notes=[])
    if not params.get("specs") or not records:
        return result, []
    unset = unset_charts(charts, records)
    if unset:
        return dict(failed=True, msg=chart_problem(charts, unset)), []
    specs, problems = stack_specs(records, params, read)
    notes = [note for spec in specs.values() for note in spec.get("notes") or []]
    warnings = [warning for spec in specs.values() for warning in spec.get("warnings") or []]
    if problems:
        failed = dict(failed=True, msg=problems)
        if notes:
            failed["notes"] = notes
        return failed, warnings
    result.update(specs=specs, notes=notes)
    return result, warnings
