# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan's image and chart plans, with the lock file's pins applied (one structure, read once per run).

``read_lock`` reads the lock file (``aips_lock_file``, playbooks/load.yml writes it) with the collection's one
YAML reader; ``plan_artifacts`` returns what the roles read instead of rebuilding it:

- ``images``: the image plan (plan/images.py:image_plan) of ``aips_images`` with each digest the lock pins
  (None when no images list was given);
- ``image_pins``: ``{tag reference: reference by digest}`` the values step rewrites images by (image_pins);
- ``charts``: per key (infra, gaie, modelservice) the chart as written (``ref``, ``repo``, ``version``) plus
  ``digest`` and ``pinned_ref`` where the lock pins it (else None);
- ``helm_charts``: per key what Helm installs (``ref``, ``repo``, ``version``): by digest where pinned;
- ``chart_source``: where the charts came from, ``aips_charts`` (a site's own mapping: it wins) or
  ``aips_chart_mirrors`` (the Harbor OCI mirrors on-prem with a Harbor host, else the upstream charts), or None.

Problems: a lock file that is missing or unreadable, a chart mapping without one of the three keys, and (on-prem,
unless ``aips_allow_unpinned``) a chart the lock does not pin; the last two only when there are models to serve.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import images as image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import CLUSTER, Problem, setting_field
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

LOCK_FIX = ("run playbooks/load.yml (it writes the lock file, aips_load_lock_file) or point aips_lock_file at the "
            "lock file it wrote")


def read_lock(path, problems):
    """The parsed lock file (a mapping), {} without ``path``; a missing or refused file is a problem."""
    if not path:
        return {}
    if not os.path.isfile(path):
        problems.append(Problem(CLUSTER, setting_field("lock_file"), path, "the lock file does not exist", LOCK_FIX))
        return {}
    try:
        lock = safe_yaml.load_file(path)
    except (safe_yaml.YamlFileError, ValueError) as exc:
        problems.append(Problem(CLUSTER, setting_field("lock_file"), path, "the lock file cannot be read: %s" % exc,
                                LOCK_FIX))
        return {}
    if lock is None:
        return {}
    if not isinstance(lock, dict):
        problems.append(Problem(CLUSTER, setting_field("lock_file"), path, "the lock file is not a mapping", LOCK_FIX))
        return {}
    return lock


def locked_models(lock, records, lock_file):
    """``{models, lock_file}`` for the plan's artifacts: the lock's entries of the plan's Harbor references (as the
    lock file has them), so that model_storage does not read the lock file again, and the file they came from."""
    section = _section(lock, "models")
    references = [((record.get("storage") or {}).get("oci") or {}).get("reference") for record in records or []]
    return dict(models=dict((ref, section[ref]) for ref in references if ref in section and isinstance(section[ref], dict)),
                lock_file=lock_file or "")


def _section(lock, name):
    section = lock.get(name)
    return section if isinstance(section, dict) else {}


def _stack_charts(settings, problems):
    """``(charts, source)``: aips_charts when the site sets it (validated), else derived from aips_chart_mirrors."""
    charts, mirrors = settings.get("charts"), settings.get("chart_mirrors")
    if charts:
        if not isinstance(charts, dict):
            problems.append(Problem(CLUSTER, setting_field("charts"), type(charts).__name__,
                                    "must be a mapping of infra, gaie and modelservice to {ref, repo, version}",
                                    "unset %s to derive the charts from %s, or write it as such a mapping"
                                    % (setting_field("charts"), setting_field("chart_mirrors"))))
            return {}, None
        return dict((key, dict(value) if isinstance(value, dict) else value) for key, value in charts.items()), "aips_charts"
    if mirrors is None:
        return {}, None
    harbor = settings.get("harbor_hostname") if settings.get("cloud_provider") == "on-prem" else None
    try:
        return image_plan.stack_charts(mirrors, harbor or None), "aips_chart_mirrors"
    except ValueError as exc:
        problems.append(Problem(CLUSTER, setting_field("chart_mirrors"), None, str(exc),
                                "give each chart entry name, version and project (group_vars/all/images.yml)"))
        return {}, None


def _serving_keys(serving):
    """The chart keys that must be set: ``serving`` as the set of chart keys the records' stacks install, or
    ``True`` for the seed stack's (the default stack)."""
    if serving is True:
        return set(stacks.chart_keys())
    return set(serving or ())


def _unset_keys(charts, serving=True):
    keys = _serving_keys(serving)
    return [key for key in stacks.all_chart_keys() if key in keys
            and (not isinstance(charts.get(key), dict) or not charts[key].get("ref"))]


def plan_artifacts(settings, lock, serving, image_records=None):
    """``(artifacts, problems)`` of the cleaned settings (images, chart_mirrors, charts, harbor_hostname,
    cloud_provider, allow_unpinned, lock_file) and the parsed ``lock``. ``serving``: the chart keys the plan's
    models install (their stacks'; ``True``: the default stack's), which must be set and, on-prem unless allowed,
    pinned; empty: no model to serve. ``image_records``: the image
    plan of the images with the lock's pins built already (plan/task.py:plan_result), taken as ``images``;
    None: built here (and a refused images list is a problem)."""
    problems = []
    harbor = settings.get("harbor_hostname") or ""
    lock_images, lock_charts = _section(lock, "images"), _section(lock, "charts")
    images, pins = None, {}
    if settings.get("images") is not None:
        try:
            images = image_records if image_records is not None else image_plan.image_plan(
                image_plan.locked_images(settings["images"], lock_images), harbor)
            pins = image_plan.image_pins(images)
        except (ValueError, AttributeError, TypeError) as exc:
            problems.append(Problem(CLUSTER, setting_field("images"), None, "the images list is refused: %s" % exc,
                                    "give each image entry source (with a tag) and project "
                                    "(group_vars/all/images.yml)"))
            images = None
    charts, source = _stack_charts(settings, problems)
    pinned, unpinned = image_plan.pin_charts(dict((key, value) for key, value in charts.items()
                                                  if isinstance(value, dict)), lock_charts)
    planned = {}
    for key, chart in charts.items():
        if not isinstance(chart, dict):
            continue
        # pinned by the lock, or written by digest already (a site's aips_charts)
        digest = pinned[key]["ref"].rsplit("@", 1)[1] if "@sha256:" in (pinned[key]["ref"] or "") else None
        planned[key] = dict(ref=chart.get("ref") or "", repo=chart.get("repo") or "",
                            version=str(chart.get("version") or ""), digest=digest,
                            pinned_ref=pinned[key]["ref"] if digest else None)
    helm_charts = dict((key, dict(ref=chart.get("ref") or "", repo=chart.get("repo") or "",
                                  version=str(chart.get("version") or "")))
                       for key, chart in pinned.items())
    if serving and source:
        unset = _unset_keys(charts, serving)
        field = setting_field("charts") if source == "aips_charts" else setting_field("chart_mirrors")
        for key in unset:
            problems.append(Problem(CLUSTER, "%s.%s" % (field, key), charts.get(key),
                                    "the %s chart's ref is not set" % key,
                                    "set %s.%s (ref, repo, version), or give the %s entry of %s its key %s"
                                    % (setting_field("charts"), key, key, setting_field("chart_mirrors"), key)))
        if settings.get("cloud_provider") == "on-prem" and not settings.get("allow_unpinned"):
            for message in image_plan.unpinned_chart_problems(
                    [item for item in unpinned if item[0] not in unset and item[0] in _serving_keys(serving)],
                    settings.get("lock_file")):
                problems.append(Problem(CLUSTER, setting_field("lock_file"), None, message.split(". Fix: ")[0],
                                        message.split(". Fix: ", 1)[1]))
    return dict(images=images, image_pins=pins, charts=planned, helm_charts=helm_charts,
                chart_source=source), problems
