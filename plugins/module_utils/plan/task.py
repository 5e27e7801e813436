# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model_plan task: its options and its result, shared by the module (plugins/modules/model_plan.py, the
documented entry point) and the action that runs it on the controller in the playbook's own process
(plugins/action/model_plan.py: the plan only reads the models folder where it runs, so it needs no module
process of its own)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.artifacts import (
    locked_models,
    plan_artifacts,
    read_lock,
)
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import DEFAULT_HOSTPATH_ROOT, build_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import format_problems
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

SETTINGS = ("models", "models_dir", "cloud_provider", "kubeconfig", "harbor_hostname", "harbor_user",
            "harbor_token", "gpu_toleration", "hostpath_root", "oras_version", "oras_image", "images", "sync_models",
            "protected_namespaces", "values_policy_allow", "chart_dir", "pod_security", "chart_mirrors", "charts",
            "lock_file", "allow_unpinned", "serving_stack", "kubectl_binary", "router_mode", "router_gateway")


def argspec():
    return dict(
        # raw: the plan checks the shape itself and names the aips_ variable (null means no models)
        models=dict(type="raw", default={}),
        models_dir=dict(type="path", required=True),
        cloud_provider=dict(type="str"),
        kubeconfig=dict(type="str"),
        harbor_hostname=dict(type="str"),
        harbor_user=dict(type="str"),
        harbor_token=dict(type="str", no_log=True),
        gpu_toleration=dict(type="raw"),
        hostpath_root=dict(type="str", default=DEFAULT_HOSTPATH_ROOT),
        oras_version=dict(type="str"),
        oras_image=dict(type="str"),
        images=dict(type="list", elements="dict"),
        sync_models=dict(type="list", elements="dict", default=[]),
        protected_namespaces=dict(type="list", elements="str", default=[]),
        values_policy_allow=dict(type="list", elements="dict", default=[]),
        chart_dir=dict(type="path"),
        pod_security=dict(type="dict", default={}),
        chart_mirrors=dict(type="list", elements="dict"),
        # raw: a site's own aips_charts mapping, checked by the plan (it wins over chart_mirrors)
        charts=dict(type="raw"),
        lock_file=dict(type="str"),
        allow_unpinned=dict(type="bool", default=False),
        # the plan checks the name itself (naming.STACK_NAMES) and names aips_serving_stack
        serving_stack=dict(type="str"),
        kubectl_binary=dict(type="str", default="kubectl"),
        # llm-d v0.10's router mode (a model's routerMode overrides it) and the site Gateway of gateway mode; raw:
        # the plan checks its shape and names aips_router_gateway
        router_mode=dict(type="str"),
        router_gateway=dict(type="raw"),
    )


def _image_records(images, harbor):
    """The image plan of the (locked) images list, built once per run for the pull Jobs' ORAS image and the
    artifacts; None without a list or when the list is refused (then each step reports it as before)."""
    if images is None:
        return None
    try:
        return image_plan.image_plan(images, harbor)
    except (ValueError, AttributeError, TypeError):
        return None


def plan_result(params):
    """``(result, warnings)`` of the validated options: the result has ``records``, ``problems`` and the image and
    chart plans with the lock file's pins (``images``, ``image_pins``, ``charts``, ``helm_charts``,
    ``chart_source``: plan/artifacts.py), and ``failed`` with ``msg`` listing every problem when one is an error.
    The lock file is read here, once, and the image plan built here, once: the records' ORAS image and the
    artifacts' images come from it. The token is never in the result."""
    settings = dict((key, params.get(key)) for key in SETTINGS)
    problems = []
    lock = read_lock((settings.get("lock_file") or "").strip(), problems)
    planned = dict(settings)
    locked = None
    if isinstance(settings.get("images"), list):  # the pull Job's ORAS image by the lock's digest
        locked = planned["images"] = image_plan.locked_images(settings["images"], lock.get("images")
                                                              if isinstance(lock.get("images"), dict) else {})
    # the Harbor host the artifacts are planned with; the ORAS image is made with build_plan's cleaned one
    # (plan/images.py:oras_image), which differs only when unset (None there, "" here)
    harbor = (settings.get("harbor_hostname") or "").strip()
    image_records = _image_records(locked, harbor)
    parsed = {}
    records, found = build_plan(planned, image_records=image_records, parsed=parsed)
    problems.extend(found)
    # the charts the records' stacks install: only those must be set and, on-prem, pinned
    serving = set(key for record in records for key in stacks.chart_keys(stacks.for_record(record)))
    artifacts, more = plan_artifacts(dict(settings, harbor_hostname=harbor), lock, serving=serving,
                                     image_records=image_records)
    problems.extend(more)
    found = [problem.as_dict() for problem in problems]
    warnings = [str(problem) for problem in problems if problem.severity == "warning"]
    if any(problem.severity == "error" for problem in problems):
        return dict(failed=True, msg=format_problems(problems), problems=found), warnings
    result = dict(changed=False, records=records, problems=found)
    result.update(artifacts)
    result.update(locked_models(lock, records, (settings.get("lock_file") or "").strip()))
    result["model_values"] = planned_values(records, parsed)
    return result, warnings


def planned_values(records, parsed):
    """``{slug: {files, values}}``: each record's values files (paths) and their contents as the plan read them, for
    serving_stack_spec (its ``model_values``), which then reads no file again (stack/spec_task.py:handed_values).
    The seed's stack: ``files`` and ``values`` keyed ``gaie``, ``ms``; llm-d v0.10: ``files`` ``{router: <values
    file>, modelserver: <folder>}``, ``values`` ``{router: <mapping>, modelserver: [<objects>]}``."""
    return dict((record["slug"], {"files": dict(record.get("values_files") or {}), "values": parsed[record["slug"]]})
                for record in records if record["slug"] in parsed and record.get("values_files"))
