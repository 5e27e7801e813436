# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Render before deploy: the ``helm template`` call of each release and what is checked on its output.

Pure functions; the module serving_stack_render runs the commands and reads the cluster. A release
is rendered with the chart serving_stack installs (``ref``, ``repo``, ``version``, or the carried
``<name>-<version>.tgz`` of a chart directory), the values it installs (with the chart mark) and,
for llm-d-infra, the same post-renderer. ``checks`` then runs the admission check, the monitor CRD
check and the GPU check of ``admission`` over the parsed manifests.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import posixpath

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import admission, stacks
from ansible_collections.ai_platform.serving.plugins.module_utils.stack.mappings import merged

DEFAULT_KUBE_VERSION = "1.33.0"


def releases(records, specs, select=None, marks=None):
    """``[(record, chart, release name, values)]`` to render: every release of ``records`` (the releases of each
    record's stack), or only the slugs ``select`` lists per chart (the release plan's ``deploy``)."""
    found = []
    for record in records or []:
        slug = record["slug"]
        for chart, key in stacks.charts(stacks.for_record(record)):
            if select is not None and slug not in (select.get(chart) or []):
                continue
            values = merged(specs[slug]["values"][chart], (marks or {}).get(chart))
            found.append((record, chart, record["names"][key], values))
    return found


def model_server_objects(spec):
    """The model server objects of a v0.10 stack spec (those of its ``objects`` that carry the stack's label; the
    seed's specs have none): what the render checks beside the Helm releases, under the key ``modelserver``."""
    return [obj for obj in (spec or {}).get("objects") or []
            if ((obj.get("metadata") or {}).get("labels") or {}).get(stacks.STACK_LABEL) == stacks.V010.name]


MODELSERVER = admission.MODELSERVER


def spec_object_jobs(records, specs, select=None):
    """``[(record, objects)]``: the model server objects of ``records``' v0.10 specs (:func:`model_server_objects`),
    or only those of the slugs ``select`` lists under ``modelserver``."""
    found = []
    for record in records or []:
        objects = model_server_objects((specs or {}).get(record["slug"]))
        if objects and (select is None or record["slug"] in (select.get(MODELSERVER) or [])):
            found.append((record, objects))
    return found


def object_jobs(records, items):
    """``[(record, objects)]`` of object items (``slug``, ``objects``, ``plan_record``), records found as
    :func:`release_jobs` finds them."""
    by_slug = dict((record["slug"], record) for record in records or [])
    found = []
    for item in items or []:
        record = item.get("plan_record") if isinstance(item.get("plan_record"), dict) else by_slug.get(item.get("slug"))
        if record is None:
            raise ValueError("the model server objects of %s carry no plan_record and name no record"
                             % item.get("slug"))
        found.append((record, item.get("objects") or []))
    return found


def output_files(texts, values):
    """``[{path, content} or {path, values}]``: what a render directory holds per slug and chart, the manifests
    (``<slug>/<chart>.yaml``, text) and, for a Helm release, the values it was rendered with
    (``<slug>/<chart>-values.yaml``, a mapping the playbook writes as YAML)."""
    files = []
    for slug in sorted(texts or {}):
        for chart in sorted(texts[slug]):
            files.append({"path": "%s/%s.yaml" % (slug, chart), "content": texts[slug][chart]})
            if chart in (values or {}).get(slug, {}):
                files.append({"path": "%s/%s-values.yaml" % (slug, chart), "values": values[slug][chart]})
    return files


# what the render and its checks read of a plan record (admission.py, values_policy.refused), and of its storage
RECORD_FIELDS = ("slug", "name", "namespace", "names", "values_files", "model_artifacts_uri", "stack", "router_mode")
STORAGE_FIELDS = ("mode", "pv", "pvc", "claim", "hostpath_node")
CHART_FIELDS = ("ref", "repo", "version")


def record_part(record):
    """The part of a plan record that rendering its releases and checking them reads (the namespace, the names
    the messages give, the values files they point at, the claim the values policy and the GPU check look at):
    serving_stack_info puts it on each release item (``plan_record``) so that the render needs no records."""
    part = dict((key, record[key]) for key in RECORD_FIELDS if key in record)
    part["storage"] = dict((key, value) for key, value in (record.get("storage") or {}).items()
                           if key in STORAGE_FIELDS)
    return part


def release_jobs(records, items, charts=None):
    """``[(record, chart, release name, values, chart setting)]`` of release items (serving_stack_info's
    ``render``: ``slug``, ``chart``, ``name``, ``values`` with the chart mark merged in already).

    An item's record is its ``plan_record`` (:func:`record_part`), else the record of ``records`` with its slug;
    its chart setting its own ``ref``, ``repo`` and ``version``, else ``charts``' setting of its chart. Raises
    ValueError for an item with neither."""
    by_slug = dict((record["slug"], record) for record in records or [])
    jobs = []
    for item in items or []:
        record = item.get("plan_record")
        if not isinstance(record, dict):
            record = by_slug.get(item.get("slug"))
        if record is None:
            raise ValueError("release %s of chart %s names the model %s, which is not among the records (and the "
                             "item carries no plan_record)" % (item.get("name"), item.get("chart"), item.get("slug")))
        if "ref" in item:
            chart = dict((key, item.get(key)) for key in CHART_FIELDS)
        elif item.get("chart") in (charts or {}):
            chart = charts[item["chart"]]
        else:
            raise ValueError("release %s of chart %s carries no chart ref and charts has no %s"
                             % (item.get("name"), item.get("chart"), item.get("chart")))
        jobs.append((record, item["chart"], item["name"], item.get("values") or {}, chart))
    return jobs


def job_records(jobs):
    """The records of ``jobs``, one per slug, in their order (the models whose releases are checked)."""
    found = {}
    for job in jobs or []:
        found.setdefault(job[0]["slug"], job[0])
    return list(found.values())


def chart_source(chart, chart_dir=None):
    """``(chart argument, extra helm args)`` of one chart setting ({ref, repo, version})."""
    chart = chart or {}
    ref, version, repo = chart.get("ref") or "", str(chart.get("version") or ""), chart.get("repo") or ""
    if chart_dir:
        return posixpath.join(chart_dir, "%s-%s.tgz" % (posixpath.basename(ref.split("@", 1)[0]), version)), []
    extra = []
    if version:
        extra += ["--version", version]
    if repo:
        extra += ["--repo", repo]
    return ref, extra


def template_argv(helm, record, chart_key, release, chart, values_file, kube_version, chart_dir=None,
                  post_renderer=None, validate_certs=True):
    """The ``helm template`` argv of one release; ``validate_certs=False`` skips the chart registry's TLS check
    (as release.yml's ``insecure_skip_tls_verify``)."""
    source, extra = chart_source(chart, chart_dir)
    argv = [helm, "template", release, source, "--namespace", record["namespace"],
            "--kube-version", str(kube_version or DEFAULT_KUBE_VERSION), "--values", values_file] + extra
    if chart_key in stacks.post_rendered(stacks.for_record(record)) and post_renderer:
        argv += ["--post-renderer", post_renderer]
    if not validate_certs:
        argv.append("--insecure-skip-tls-verify")
    return argv


def helm_error(text):
    """Helm's own error line(s): what follows the last ``Error: `` (progress lines before it dropped)."""
    text = (text or "").strip() or "no error text"
    return text[text.rindex("Error: "):] if "Error: " in text else text


def failure_message(record, chart_key, chart, text):
    """A render failure, per model, chart and version, with Helm's error."""
    chart = chart or {}
    return ("%s: release %s of chart %s (%s %s) does not render with helm template: %s. Nothing was installed. Fix: "
            "correct the values the error names in %s, or pin a chart version that has them." % (
                record.get("name") or record.get("slug"), chart_key, posixpath.basename(str(chart.get("ref") or "?")),
                chart.get("ref") or "?", chart.get("version") or "(pinned by digest)", helm_error(text),
                admission._source(record, chart_key)))


def pod_summaries(docs):
    """``[{kind, name, replicas, spec}]`` of the workloads in ``docs`` (the rendered pod specs returned)."""
    return [{"kind": kind, "name": name, "replicas": replicas, "spec": spec}
            for kind, name, spec, _annotations, replicas in admission.pod_templates(docs)]


def checks(records, rendered, values, levels, allow=None, crds=None, allocatable=None):
    """``(problems, warnings)`` of the rendered releases.

    ``rendered``: slug -> chart -> manifests; ``values``: slug -> chart -> values; ``crds``: the CRD names the
    cluster serves (None: not read); ``allocatable``: node -> nvidia.com/gpu (None: not read).
    """
    problems, warnings = [], []
    for record in records or []:
        slug = record["slug"]
        if slug not in (rendered or {}):
            continue
        model = rendered[slug]
        problems += admission.admission_problems(record, model, levels, (values or {}).get(slug), allow)
        if crds is None:
            warnings += admission.monitor_warnings(record, model)
        else:
            problems += admission.monitor_problems(record, model, crds)
            problems += admission.crd_problems(record, model, crds)
        warnings += admission.gpu_warnings(record, model, allocatable)
    return problems, warnings


def node_gpus(nodes):
    """node name and kubernetes.io/hostname label -> allocatable nvidia.com/gpu (0 when it has none)."""
    found = {}
    for node in nodes or []:
        meta = node.get("metadata") or {}
        amount = ((node.get("status") or {}).get("allocatable") or {}).get(admission.GPU_RESOURCE) or 0
        try:
            amount = int(str(amount))
        except ValueError:
            amount = 0
        for name in (meta.get("name"), (meta.get("labels") or {}).get("kubernetes.io/hostname")):
            if name:
                found[name] = amount
    return found


def monitor_crds(rendered):
    """The CRD names the rendered releases need: their monitors' and the inference APIs' (admission.stack_crds)."""
    return sorted(set([crd for model in (rendered or {}).values() for docs in model.values()
                       for _kind, _name, crd in admission.monitor_objects(docs)]
                      + [crd for model in (rendered or {}).values() for chart, docs in model.items()
                         for _what, crd in admission.stack_crds(chart, docs)]))
