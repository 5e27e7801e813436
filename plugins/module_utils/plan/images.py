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

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.reference import (
    normalize_image, normalize_registry, parse_oci_reference, pin, pinned_reference)

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
    registry = normalize_registry(ref["registry"])  # index.docker.io is docker.io, as a node mirror sees it
    return {
        "source": source,
        "upstream": "%s/%s" % (registry, ref["repository"]),
        "registry": registry,
        "repository": ref["repository"],
        "tag": ref["tag"],
        "digest": digest,
        "project": project,
        "path": path,
        "archive": image.get("archive") or "%s-%s.tar" % (ref["repository"].rsplit("/", 1)[-1], ref["tag"]),
        "all_platforms": bool(image.get("all_platforms", False)),
        "destination": "%s:%s" % (repository, ref["tag"]),
        "pinned": pin(repository, digest) if digest else None,
        "mirror": {"upstream": registry,
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


def oras_image(images, harbor, on_prem, version=None, plan=None):
    """The pull Job's ORAS image: its Harbor destination on-prem, its source on cloud.

    ``images`` is the images list (``aips_images``; None: DEFAULT_ORAS_IMAGE); ``version`` replaces
    the listed tag. On-prem the list must carry the ORAS image (else ValueError): that is what
    harbor_upload puts into Harbor. On cloud nothing is carried: without an entry, the default source.
    ``plan``: the image plan of ``images`` built already (the model plan builds it once per run), read
    instead of building one; the Harbor references are made with ``harbor`` either way.
    """
    if plan is None:
        plan = image_plan([DEFAULT_ORAS_IMAGE] if images is None else images, harbor)
    record = find_image(plan, ORAS_REPOSITORY)
    if record is None and on_prem:
        raise ValueError("the images list carries no %s image, so Harbor has none" % ORAS_REPOSITORY)
    if record is None:
        record = _image_record(DEFAULT_ORAS_IMAGE, harbor)
    pinned = record["digest"] and (not version or version == record["tag"])
    if on_prem:
        repository = "%s/%s/%s" % (harbor, record["project"], record["path"])
        if pinned:  # the lock file's digest (locked_images) or images.yml's: the Job pulls by digest
            return pin(repository, record["digest"])
        return "%s:%s" % (repository, version or record["tag"])
    if pinned:
        return pin(record["upstream"], record["digest"])
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


# --- pins: the lock file's images and charts (playbooks/load.yml writes them) ---------------------

# The switch that lets an on-prem deploy go by tag (a lab); every unpinned-item error names it.
ALLOW_UNPINNED = "aips_allow_unpinned"


def _by_normal_name(mapping):
    """``mapping`` keyed by normalize_image of its keys (``vllm/x:1`` and ``docker.io/vllm/x:1`` are one image)."""
    return dict((normalize_image(key), value) for key, value in (mapping or {}).items() if isinstance(key, str))


def locked_images(images, lock_images=None):
    """The images list with each entry the lock file's ``images`` section pins given that ``digest`` (the
    lock wins over an images.yml digest: it is what was pushed). The model plan's ORAS image then pulls by it.
    Sources are compared as normalize_image resolves them."""
    locked = []
    lock_images = _by_normal_name(lock_images)
    for image in images or []:
        entry = lock_images.get(normalize_image(image.get("source"))) if isinstance(image, dict) else None
        locked.append(dict(image, digest=entry["digest"]) if isinstance(entry, dict) and entry.get("digest") else image)
    return locked


def lock_sections(items, harbor):
    """The lock file's ``images`` and ``charts`` sections from the items playbooks/load.yml pushed: its loop
    results (the lock entry under ``item``, ``manifest_digest`` beside it) or the entries themselves."""
    entries = [dict(entry["item"], manifest_digest=entry.get("manifest_digest"))
               if isinstance(entry.get("item"), dict) else entry for entry in items or [] if isinstance(entry, dict)]
    return {"images": image_lock(entries, harbor), "charts": chart_lock(entries, harbor)}


def image_lock(items, harbor):
    """The lock file's ``images`` section from loaded bundle items (kind image: name = the source, project,
    image_path, digest): ``{source: {reference: Harbor tag reference, digest, pinned_reference}}``."""
    section = {}
    for item in items or []:
        if item.get("kind") != "image" or not item.get("digest"):
            continue
        record = _image_record({"source": item["name"], "project": item["project"],
                                "path": item.get("image_path") or None}, harbor)
        section[record["source"]] = {"reference": record["destination"], "digest": item["digest"],
                                     "pinned_reference": pinned_reference(record["destination"], item["digest"])}
    return section


def chart_lock(items, harbor):
    """The lock file's ``charts`` section from loaded chart items (name, version, project, manifest_digest):
    ``{name: {version, reference: oci://<harbor>/<project>/<name>:<version>, digest, pinned_reference}}``."""
    section = {}
    for item in items or []:
        if item.get("kind") != "chart" or not item.get("manifest_digest"):
            continue
        record = _chart_record({"name": item["name"], "version": item["version"], "project": item["project"]}, harbor)
        section[item["name"]] = {"version": item["version"], "digest": item["manifest_digest"],
                                 "reference": "%s:%s" % (record["destination"], item["version"]),
                                 "pinned_reference": pin(record["destination"], item["manifest_digest"])}
    return section


def image_pins(plan, lock_images=None):
    """``{tag reference: reference by digest}`` of the plan's images: each image's Harbor reference and its
    upstream source (what a node mirror rewrites), pinned to the lock's digest, else to the image's own
    ``digest`` in images.yml. An image pinned by neither is absent. The lock's sources are compared as
    normalize_image resolves them (pin_image looks a values image up the same way)."""
    pins = {}
    lock_images = _by_normal_name(lock_images)
    for record in plan:
        entry = lock_images.get(normalize_image(record["source"])) or {}
        digest = entry.get("digest") or record["digest"]
        if not digest:
            continue
        if not record["destination"].startswith("/"):  # no Harbor host (cloud): only the upstream source
            pins[record["destination"]] = pinned_reference(record["destination"], digest)
        pins[record["source"]] = pin(record["upstream"], digest)
    return pins


def pin_image(image, pins):
    """``image`` by digest: itself when it names one, its pin when ``pins`` has it, else None (unpinned).

    ``image`` and the keys of ``pins`` are compared as normalize_image resolves them, so the values file's
    ``vllm/vllm-openai:v1`` finds the lock's ``docker.io/vllm/vllm-openai:v1``."""
    if "@sha256:" in image:
        return image
    if image in pins:
        return pins[image]
    return _by_normal_name(pins).get(normalize_image(image))


def pin_charts(charts, lock_charts=None):
    """serving_stack's ``aips_charts`` with each OCI chart the lock pins (same version) referenced by digest
    (``oci://<harbor>/<project>/<name>@sha256:...``, version dropped: helm pulls that manifest and checks its
    digest). Returns ``(charts, unpinned)``: unpinned lists ``(key, ref, version)`` the lock has no entry for."""
    pinned, unpinned = {}, []
    by_reference = dict(((entry.get("reference") or "").rsplit(":", 1)[0], entry)
                        for entry in (lock_charts or {}).values() if isinstance(entry, dict))
    for key, chart in sorted((charts or {}).items()):
        ref = chart.get("ref") or ""
        entry = by_reference.get(ref)
        if "@sha256:" in ref:
            pinned[key] = dict(chart)
        elif entry and str(entry.get("version")) == str(chart.get("version")):
            pinned[key] = dict(chart, ref=pin(ref, entry["digest"]), version="")
        else:
            pinned[key] = dict(chart)
            unpinned.append((key, ref, chart.get("version")))
    return pinned, unpinned


def unpinned_chart_problems(unpinned, lock_file):
    """One message per chart ``pin_charts`` left unpinned, naming it and what to do."""
    return ["chart %s (%s %s) is not pinned: the lock file %s has no digest for it. Fix: load the bundle that "
            "carries it (playbooks/load.yml writes the lock file and its path goes in aips_lock_file), or set "
            "%s: true to install by version (a lab)" % (key, ref, version, lock_file or "(none set)", ALLOW_UNPINNED)
            for key, ref, version in unpinned]
