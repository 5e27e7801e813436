# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The image plan: where every carried image and chart comes from and where it lands in Harbor.

``image_plan(images, harbor)`` turns ``aips_images`` (group_vars/all/images.yml) into one record
per image: its source, Harbor destination, node mirror rewrite and pinned reference.
``chart_plan`` does the same for ``aips_chart_mirrors`` and ``stack_charts`` gives serving_stack's
``aips_charts`` from it. harbor_upload, the model plan's ORAS image, the tests and the lab's image
list all read these functions; nothing else builds a Harbor path of an image.

Pure functions with no dependency beyond the reference parser, so the lab (plain Python) can load
this file from a checkout.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import parse_oci_reference, pin

# The pull Job's image is found in the images list by this upstream repository.
ORAS_REPOSITORY = "ghcr.io/oras-project/oras"
# Used only when the model plan is given no images list (a role or module used on its own);
# a unit test checks that group_vars/all/images.yml carries exactly this entry.
DEFAULT_ORAS_IMAGE = {"source": ORAS_REPOSITORY + ":v1.3.1", "project": "images-infra"}

# The model artifacts' default Harbor project (model_sync_project).
MODEL_PROJECT = "ai-models"

DIGEST_RE = re.compile(r"^sha256:[0-9a-f]{64}$")


def _image_record(image, harbor):
    if not isinstance(image, dict):
        raise ValueError("an image entry must be a mapping with source and project")
    source = image.get("source")
    try:
        ref = parse_oci_reference(source)
    except ValueError as exc:
        raise ValueError("source %r: %s" % (source, exc))
    if not ref["tag"]:
        raise ValueError("source %r needs a tag (a digest pin goes in digest)" % source)
    project = image.get("project")
    if not isinstance(project, str) or not project:
        raise ValueError("%s: project (the Harbor project the image goes to) is required" % source)
    path = image.get("path") or ref["repository"]
    digest = image.get("digest") or None
    if digest is not None and not DIGEST_RE.match(str(digest)):
        raise ValueError("%s: digest %r is not sha256:<64 hex digits>" % (source, digest))
    repository = "%s/%s/%s" % (harbor, project, path)
    return {
        "source": source,
        "upstream": "%s/%s" % (ref["registry"], ref["repository"]),
        "registry": ref["registry"],
        "repository": ref["repository"],
        "tag": ref["tag"],
        "digest": digest,
        "project": project,
        "path": path,
        "archive": image.get("archive") or "%s-%s.tar" % (ref["repository"].rsplit("/", 1)[-1], ref["tag"]),
        "all_platforms": bool(image.get("all_platforms", False)),
        "destination": "%s:%s" % (repository, ref["tag"]),
        "pinned": pin(repository, digest) if digest else None,
        "mirror": {"upstream": ref["registry"],
                   "pattern": "^%s$" % re.escape(ref["repository"]),
                   "target": "%s/%s" % (project, path)},
    }


def image_plan(images, harbor):
    """One record per image of ``images`` (``aips_images`` entries), Harbor at ``harbor`` (host[:port]).

    Each record: source, upstream (registry/repository), registry, repository, tag, digest (the pin or
    None), project, path, archive (file name), all_platforms, destination (the Harbor reference),
    pinned (the Harbor reference by digest, None without a pin) and mirror (upstream registry, rewrite
    pattern and target for a node's registries.yaml). Raises ValueError naming the bad entry.
    """
    if not isinstance(images, (list, tuple)):
        raise ValueError("the images must be a list of {source, project, ...} entries")
    return [_image_record(image, harbor) for image in images]


def find_image(plan, upstream):
    """The record of ``plan`` whose source is ``upstream`` (registry/repository), else None."""
    for record in plan:
        if record["upstream"] == upstream:
            return record
    return None


def oras_image(images, harbor, on_prem, version=None):
    """The pull Job's ORAS image: its Harbor destination on-prem, its source on cloud.

    ``images`` is the images list (``aips_images``; None: DEFAULT_ORAS_IMAGE); ``version`` replaces
    the listed tag. On-prem the list must carry the ORAS image (else ValueError): that is what
    harbor_upload puts into Harbor. On cloud nothing is carried: without an entry, the default source.
    """
    plan = image_plan([DEFAULT_ORAS_IMAGE] if images is None else images, harbor)
    record = find_image(plan, ORAS_REPOSITORY)
    if record is None and on_prem:
        raise ValueError("the images list carries no %s image, so Harbor has none" % ORAS_REPOSITORY)
    if record is None:
        record = image_plan([DEFAULT_ORAS_IMAGE], harbor)[0]
    if on_prem:
        return "%s/%s/%s:%s" % (harbor, record["project"], record["path"], version or record["tag"])
    return "%s:%s" % (record["upstream"], version or record["tag"])


def _chart_record(chart, harbor):
    if not isinstance(chart, dict) or not chart.get("name") or not chart.get("version") or not chart.get("project"):
        raise ValueError("a chart entry needs name, version and project: %r" % (chart,))
    repository = "%s/%s" % (harbor, chart["project"])
    return dict(chart,
                archive="%s-%s.tgz" % (chart["name"], chart["version"]),
                repository=repository,
                destination="oci://%s/%s" % (repository, chart["name"]))


def chart_plan(charts, harbor):
    """One record per ``aips_chart_mirrors`` entry: the entry plus archive (``<name>-<version>.tgz``),
    repository (``<harbor>/<project>``, what helm push takes) and destination (the chart's OCI ref)."""
    if not isinstance(charts, (list, tuple)):
        raise ValueError("the charts must be a list of {name, version, chart, project, ...} entries")
    return [_chart_record(chart, harbor) for chart in charts]


def stack_charts(charts, harbor=None):
    """serving_stack's ``aips_charts`` ({key: {ref, repo, version}}) from the charts list.

    Only entries with a ``key`` (infra, gaie, modelservice) count. Without ``harbor``: the upstream
    references (``chart`` and ``repo_url``); with it: the Harbor OCI mirrors harbor_upload pushes.
    """
    stack = {}
    for record in chart_plan(charts, harbor):
        if not record.get("key"):
            continue
        if harbor:
            stack[record["key"]] = {"ref": record["destination"], "repo": "", "version": record["version"]}
        else:
            stack[record["key"]] = {"ref": record.get("chart") or record["name"], "repo": record.get("repo_url") or "",
                                    "version": record["version"]}
    return stack


def sync_reference(entry, registry, project=None):
    """The tag reference model_sync publishes a ``model_sync_models`` entry under:
    ``<registry>/<project or entry project>/<artifact or the repo name, lowercased>:<tag>``."""
    artifact = entry.get("artifact") or str(entry.get("repo_id", "")).rsplit("/", 1)[-1].lower()
    return "%s/%s/%s:%s" % (registry, entry.get("project") or project or MODEL_PROJECT, artifact, entry.get("tag"))


def sync_published(entries, registry, project=None):
    """``[{repo_id, reference}]`` of the ``model_sync_models`` entries that name a repo_id and a tag.

    Reads only repo_id, tag, project and artifact of each entry, so a lazily templated entry's other
    fields (a local_path lookup) are never rendered."""
    return [{"repo_id": entry.get("repo_id"), "reference": sync_reference(entry, registry, project)}
            for entry in entries or [] if isinstance(entry, dict) and entry.get("repo_id") and entry.get("tag")]
