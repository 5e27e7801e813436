# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model cache directories on a node: where one may be removed, what it holds, what still uses it.

The rules are pure functions, unit-tested without a node or a cluster:

- ``path_problem``: a path may be removed only when it is absolute, normalised (no ``..``,
  ``.`` or ``//``), strictly below the allowed root, and not the root itself;
  ``resolved_problem`` adds the filesystem's view: the directory is no symlink and it
  resolves (through every parent) inside the resolved root.
- ``references``: the hostPath / local paths of the PersistentVolumes that may live on a
  node, and the slugs of the model claims. ``keep_reason`` says why a directory is kept:
  a PV path equal to it, inside it or above it, or a model claim named after it.
- ``claim_fate``: what deleting a dynamically provisioned claim does to its volume,
  from the PV's reclaim policy.

``scan``, ``measure``, ``read_marker`` and ``remove`` are the node-side helpers of the
``model_cache_dirs`` module; they never follow a symlink.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import posixpath
import shutil
import stat

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.naming import LABEL_SLUG
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.pull_marker import parse_marker

MARKER = ".pulled"
HOSTNAME_LABEL = naming.HOSTNAME_LABEL
ORPHAN = "orphan"
REFERENCED = "referenced"
CLAIMED = "claimed"
SKIPPED = "skipped"


class CacheDirError(Exception):
    """A path or root that the rules refuse; the message says which and why."""


def root_problem(root):
    """None when ``root`` can be an allowed root: absolute, normalised, not ``/``."""
    if not isinstance(root, str) or not root:
        return "the allowed root %r is not a path" % (root,)
    if not posixpath.isabs(root):
        return "the allowed root %s is not absolute" % root
    trimmed = root.rstrip("/")
    if not trimmed:
        return "the allowed root may not be /"
    if posixpath.normpath(trimmed) != trimmed:
        return "the allowed root %s is not normalised (.., . or //)" % root
    return None


def normalised_root(root):
    problem = root_problem(root)
    if problem:
        raise CacheDirError(problem)
    return root.rstrip("/")


def path_problem(path, root):
    """None when the string rules allow removing ``path`` under ``root``; else why not."""
    root = normalised_root(root)
    if not isinstance(path, str) or not path:
        return "%r is not a path" % (path,)
    if not posixpath.isabs(path):
        return "%s is not absolute" % path
    trimmed = path.rstrip("/") or "/"
    parts = trimmed.split("/")[1:] if trimmed != "/" else []
    if any(part in ("", ".", "..") for part in parts) or posixpath.normpath(trimmed) != trimmed:
        return "%s is not normalised (it holds .., . or //)" % path
    if trimmed == root:
        return "%s is the allowed root itself" % path
    if not trimmed.startswith(root + "/"):
        return "%s is outside the allowed root %s" % (path, root)
    return None


def resolved_problem(path, root, realpath=os.path.realpath, islink=os.path.islink):
    """None when ``path`` is no symlink and resolves inside the resolved ``root``; else why not.

    ``realpath`` and ``islink`` are the filesystem's (tests pass their own).
    """
    problem = path_problem(path, root)
    if problem:
        return problem
    root = normalised_root(root)
    path = path.rstrip("/")
    if islink(path):
        return "%s is a symlink (never followed)" % path
    real_root = realpath(root)
    real = realpath(path)
    if real == real_root or not real.startswith(real_root.rstrip("/") + "/"):
        return "%s resolves to %s, outside the allowed root %s (%s)" % (path, real, root, real_root)
    return None


def pv_path(pv):
    """The node path of a hostPath or local PV, normalised; None for other volume types."""
    spec = (pv or {}).get("spec") or {}
    source = spec.get("hostPath") or spec.get("local") or {}
    path = source.get("path")
    if not isinstance(path, str) or not path:
        return None
    return posixpath.normpath(path)


def pv_nodes(pv):
    """Node names a PV is pinned to by a kubernetes.io/hostname In term; None when it may be on any node."""
    spec = (pv or {}).get("spec") or {}
    terms = (((spec.get("nodeAffinity") or {}).get("required") or {}).get("nodeSelectorTerms")) or []
    nodes = set()
    for term in terms:
        found = False
        for expr in term.get("matchExpressions") or []:
            if expr.get("key") == HOSTNAME_LABEL and expr.get("operator") == "In":
                nodes.update(expr.get("values") or [])
                found = True
        if not found:
            return None  # a term that does not name hosts may select any node
    return sorted(nodes) if terms else None


def references(volumes, claims, node=None):
    """``{"paths": {path: why}, "slugs": {slug: why}}``: what a directory on ``node`` must not be removed for.

    A PV counts unless it is pinned to other nodes only; without ``node`` every PV counts.
    Claims count by their ``ai-platform.serving/slug`` label (a model's claim whose PV is gone).
    """
    paths = {}
    for pv in volumes or []:
        path = pv_path(pv)
        if not path:
            continue
        nodes = pv_nodes(pv)
        if node and nodes is not None and node not in nodes:
            continue
        name = ((pv.get("metadata") or {}).get("name")) or "?"
        phase = ((pv.get("status") or {}).get("phase")) or "?"
        paths.setdefault(path, "PV %s (%s) uses %s" % (name, phase, path))
    slugs = {}
    for claim in claims or []:
        meta = claim.get("metadata") or {}
        slug = (meta.get("labels") or {}).get(LABEL_SLUG)
        if slug:
            slugs.setdefault(slug, "claim %s/%s belongs to model %s" % (meta.get("namespace"), meta.get("name"), slug))
    return {"paths": paths, "slugs": slugs}


def overlaps(path, other):
    """True when one path is the other or lies below it."""
    path, other = path.rstrip("/") or "/", other.rstrip("/") or "/"
    return path == other or path.startswith(other.rstrip("/") + "/") or other.startswith(path.rstrip("/") + "/")


def keep_reason(path, refs):
    """Why ``path`` must stay (a PV path overlapping it, a claim of its slug), or None."""
    for ref_path in sorted(refs.get("paths") or {}):
        if overlaps(path, ref_path):
            return refs["paths"][ref_path]
    slug = posixpath.basename(path.rstrip("/"))
    return (refs.get("slugs") or {}).get(slug)


def classify(entry, refs):
    """The entry (from ``scan``) with ``status`` orphan, referenced, claimed or skipped, and ``reason``."""
    entry = dict(entry)
    if entry.get("kind") != "directory":
        entry.update(status=SKIPPED, reason="%s is a %s, not a model directory (never removed)"
                     % (entry["path"], entry.get("kind")))
        return entry
    why = keep_reason(entry["path"], refs)
    if why:
        entry.update(status=CLAIMED if why.startswith("claim ") else REFERENCED, reason=why)
    else:
        entry.update(status=ORPHAN, reason="no PV and no model claim refers to it")
    return entry


def claim_fate(pvc, pv):
    """What deleting a dynamic claim does to its volume: dict(pv, policy, storage_class, capacity, message)."""
    meta = (pvc or {}).get("metadata") or {}
    where = "%s/%s" % (meta.get("namespace"), meta.get("name"))
    volume = ((pvc or {}).get("spec") or {}).get("volumeName")
    result = dict(claim=where, pv=volume, policy=None, storage_class=None, capacity=None)
    if not pvc:
        result["message"] = "no claim: nothing to free"
        return result
    if not volume:
        result["message"] = "claim %s is bound to no volume: deleting it frees nothing" % where
        return result
    if not pv:
        result["message"] = "claim %s names PV %s, which is gone" % (where, volume)
        return result
    spec = pv.get("spec") or {}
    policy = spec.get("persistentVolumeReclaimPolicy") or "Delete"
    result.update(policy=policy, storage_class=spec.get("storageClassName"),
                  capacity=(spec.get("capacity") or {}).get("storage"))
    if policy == "Delete":
        result["message"] = ("claim %s: PV %s (class %s, %s) has reclaim policy Delete: its provisioner deletes the "
                             "volume and the weights" % (where, volume, result["storage_class"], result["capacity"]))
    elif policy == "Retain":
        result["message"] = ("claim %s: PV %s (class %s, %s) has reclaim policy Retain: it stays Released with the "
                             "weights; delete the PV and its backing volume by hand to free them"
                             % (where, volume, result["storage_class"], result["capacity"]))
    else:
        result["message"] = ("claim %s: PV %s has reclaim policy %s: the volume is handled as that policy says"
                             % (where, volume, policy))
    return result


def human_bytes(count):
    """1536 -> '1.5 KiB'."""
    value = float(count or 0)
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return ("%d %s" % (value, unit)) if unit == "B" else ("%.1f %s" % (value, unit))
        value /= 1024.0
    return "%d B" % count  # pragma: no cover


# Node-side helpers (filesystem; never follow symlinks).

def measure(path):
    """dict(bytes, disk_bytes, files) of the regular files below ``path`` (symlinks are not followed)."""
    total = disk = files = 0
    for top, dirs, names in os.walk(path, followlinks=False):
        for name in names + dirs:
            try:
                info = os.lstat(os.path.join(top, name))
            except OSError:
                continue
            disk += getattr(info, "st_blocks", 0) * 512
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
                files += 1
    return dict(bytes=total, disk_bytes=disk, files=files)


def read_marker(path):
    """The parsed ``.pulled`` marker of a model directory (a regular file only), or None."""
    marker = os.path.join(path, MARKER)
    try:
        info = os.lstat(marker)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > 65536:
        return None
    with open(marker, "r") as handle:
        return parse_marker(handle.read())


def describe(path):
    """One directory as the listing reports it: kind, sizes, the marker's digest and pull time."""
    info = os.lstat(path)
    entry = dict(path=path, slug=os.path.basename(path), modified=int(info.st_mtime))
    if stat.S_ISLNK(info.st_mode):
        entry.update(kind="symlink", target=os.readlink(path))
        return entry
    if not stat.S_ISDIR(info.st_mode):
        entry.update(kind="file", bytes=info.st_size)
        return entry
    entry["kind"] = "directory"
    entry.update(measure(path))
    marker = read_marker(path) or {}
    entry.update(marker=bool(marker), digest=marker.get("digest"), reference=marker.get("reference"),
                 pulled_at=marker.get("pulled_at"), pulled_bytes=marker.get("size"),
                 pulling=os.path.isdir(os.path.join(path, ".pull-staging")))
    entry["human_size"] = human_bytes(entry["bytes"])
    return entry


def scan(root):
    """Every entry directly below ``root``, described; [] when the root does not exist."""
    root = normalised_root(root)
    if not os.path.isdir(root):
        return []
    return [describe(os.path.join(root, name)) for name in sorted(os.listdir(root))]


def remove(path, root):
    """Remove the directory ``path`` after checking it against ``root`` once more; raises CacheDirError."""
    problem = resolved_problem(path, root)
    if problem:
        raise CacheDirError(problem)
    # rmtree refuses a symlinked top and does not follow symlinks inside (fd-based on Linux)
    shutil.rmtree(path.rstrip("/"))
