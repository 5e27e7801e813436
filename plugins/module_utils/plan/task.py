# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The model_plan task: its options and its result, shared by the module (plugins/modules/model_plan.py, the
documented entry point) and the action that runs it on the controller in the playbook's own process
(plugins/action/model_plan.py: the plan only reads the models folder where it runs, so it needs no module
process of its own)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.artifacts import plan_artifacts, read_lock
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import DEFAULT_HOSTPATH_ROOT, build_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import format_problems
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import locked_images

SETTINGS = ("models", "models_dir", "cloud_provider", "kubeconfig", "harbor_hostname", "harbor_user",
            "harbor_token", "gpu_toleration", "hostpath_root", "oras_version", "oras_image", "images", "sync_models",
            "protected_namespaces", "values_policy_allow", "chart_dir", "pod_security", "chart_mirrors", "charts",
            "lock_file", "allow_unpinned")


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
    )


def plan_result(params):
    """``(result, warnings)`` of the validated options: the result has ``records``, ``problems`` and the image and
    chart plans with the lock file's pins (``images``, ``image_pins``, ``charts``, ``helm_charts``,
    ``chart_source``: plan/artifacts.py), and ``failed`` with ``msg`` listing every problem when one is an error.
    The lock file is read here, once. The token is never in the result."""
    settings = dict((key, params.get(key)) for key in SETTINGS)
    problems = []
    lock = read_lock((settings.get("lock_file") or "").strip(), problems)
    planned = dict(settings)
    if isinstance(settings.get("images"), list):  # the pull Job's ORAS image by the lock's digest
        planned["images"] = locked_images(settings["images"], lock.get("images") if isinstance(lock.get("images"), dict)
                                          else {})
    records, found = build_plan(planned)
    problems.extend(found)
    artifacts, more = plan_artifacts(dict(settings, harbor_hostname=(settings.get("harbor_hostname") or "").strip()),
                                     lock, serving=bool(records))
    problems.extend(more)
    found = [problem.as_dict() for problem in problems]
    warnings = [str(problem) for problem in problems if problem.severity == "warning"]
    if any(problem.severity == "error" for problem in problems):
        return dict(failed=True, msg=format_problems(problems), problems=found), warnings
    result = dict(changed=False, records=records, problems=found)
    result.update(artifacts)
    return result, warnings
