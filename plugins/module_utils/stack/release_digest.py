# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which Helm releases a run must call Helm for, from a digest of what each one was deployed with.

A no-op re-run must not make a helm call per release (each one reads the release, renders the chart
and compares, about a second per release on a small machine). serving_stack records, per model, the
digest of every release's chart (reference, repository, version), values and post-renderer together
with the Helm revision that digest was deployed as, in one ConfigMap per model (labelled with the
model's labels and the component ``release-digests``). The next run reads all of those in one API
call and ``helm list --all`` once; a release is left alone only when its recorded digest is the one
computed now, its revision is still the recorded one (no upgrade or rollback by hand since) and its
status is ``deployed``. Everything else goes to Helm as before. Pure functions.

Helm's own idempotence check (kubernetes.core.helm without the helm-diff plugin) compares only the
chart's name and version and the values: a chart whose content changed under the same version (a new
digest in the lock file) or a changed post-renderer would be reported unchanged and never deployed,
while its new digest got recorded. So every release also carries a *chart mark* in its values
(``global.aipsChartMark``, ``global`` being free-form in every chart's schema): a digest of the chart's
reference, repository, version and post-renderer, which changes with any of them, so Helm's comparison
sees the change and upgrades.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

CHART_FIELDS = ("ref", "repo", "version")
# the values key of the chart mark (under ``global``, which every chart's schema leaves free-form)
MARK_KEY = "aipsChartMark"


def values_digest(chart, values, extra=""):
    """sha256 (hex) of a release's chart reference, repository and version, values and ``extra``."""
    chart = chart or {}
    payload = json.dumps({"chart": dict((key, chart.get(key) or "") for key in CHART_FIELDS),
                          "values": values, "extra": extra or ""},
                         sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def chart_mark(chart, extra=""):
    """sha256 (hex, 20 characters) of a chart's reference, repository and version and ``extra``."""
    chart = chart or {}
    payload = json.dumps({"chart": dict((key, chart.get(key) or "") for key in CHART_FIELDS), "extra": extra or ""},
                         sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:20]


def recorded(configmaps):
    """``{(namespace, release): (revision, digest)}`` from the release-digest ConfigMaps (k8s_info resources)."""
    found = {}
    for item in configmaps or []:
        meta = item.get("metadata") or {}
        labels = meta.get("labels") or {}
        if labels.get(naming.LABEL_COMPONENT) != naming.COMPONENT_RELEASE_DIGESTS:
            continue
        for release, text in (item.get("data") or {}).items():
            revision, _sep, digest = (text or "").partition(" ")
            if digest:
                found[(meta.get("namespace"), release)] = (revision, digest)
    return found


def releases(helm_list):
    """``{(namespace, name): (revision, status)}`` from the parsed ``helm list --all --output json``."""
    return dict(((item.get("namespace"), item.get("name")), (str(item.get("revision") or ""), item.get("status") or ""))
                for item in helm_list or [])


def release_plan(records, specs, charts, helm_list, configmaps, extras=None):
    """What to deploy: ``{deploy: {chart: [slug]}, unchanged: [namespace/release], digests: {slug: {release: digest}},
    marks: {chart: {global: {aipsChartMark: mark}}}}`` (``marks``: the values each release of that chart adds).

    ``specs`` maps slug -> the stack spec (its ``values`` per chart key); ``extras`` maps a chart key to
    a string that goes into its digest (the post-renderer's own digest for ``infra`` and ``router``). ``deploy`` and
    ``marks`` hold every chart key of every stack; a record's releases are those of its own stack
    (stacks.for_record).

    A digest is trusted only for a release Helm lists ``deployed`` at the recorded revision: the key a release that
    was uninstalled (the other stack's, after a model moved) leaves in its ConfigMap sends nothing to Helm later -
    a reinstall finds no such release, deploys it and records its revision anew.
    """
    extras = extras or {}
    live = releases(helm_list)
    done = recorded(configmaps)
    plan = {"deploy": dict((chart, []) for chart in stacks.all_chart_keys()), "unchanged": [], "digests": {},
            "marks": dict((chart, {"global": {MARK_KEY: chart_mark((charts or {}).get(chart), extras.get(chart))}})
                          for chart in stacks.all_chart_keys())}
    for record in records or []:
        slug, namespace = record["slug"], record["namespace"]
        plan["digests"][slug] = {}
        for chart, key in stacks.charts(stacks.for_record(record)):
            release = record["names"][key]
            digest = values_digest((charts or {}).get(chart), specs[slug]["values"][chart], extras.get(chart))
            plan["digests"][slug][release] = digest
            revision, status = live.get((namespace, release), ("", ""))
            if status == "deployed" and revision and done.get((namespace, release)) == (revision, digest):
                plan["unchanged"].append("%s/%s" % (namespace, release))
            else:
                plan["deploy"][chart].append(slug)
    return plan


def record_definitions(records, plan, helm_list, configmaps):
    """The release-digest ConfigMaps to write after a deploy: one per model whose record changes.

    A release gets an entry only when Helm lists it ``deployed``; the revision is the one Helm lists now. The role
    writes the same entries key by key, from each ``kubernetes.core.helm`` result (roles/serving_stack/tasks/release.yml,
    so that ``helm list`` runs once per run); this builds what a deploy wrote, for the tests and for tools.
    """
    live = releases(helm_list)
    done = recorded(configmaps)
    definitions = []
    for record in records or []:
        slug, namespace = record["slug"], record["namespace"]
        data, old = {}, {}
        for key in stacks.release_keys(stacks.for_record(record)):
            release = record["names"][key]
            revision, status = live.get((namespace, release), ("", ""))
            if status == "deployed" and revision:
                data[release] = "%s %s" % (revision, plan["digests"][slug][release])
            if (namespace, release) in done:
                old[release] = "%s %s" % done[(namespace, release)]
        if data == old:
            continue
        definitions.append({
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {"name": naming.slug_name("release_digests", slug), "namespace": namespace,
                         "labels": naming.model_labels(slug, naming.COMPONENT_RELEASE_DIGESTS)},
            "data": data,
        })
    return definitions
