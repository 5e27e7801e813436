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

Creation (the ``hostpath_dirs`` role, one module call per node for every model): ``create_problem``
allows a directory below the root when no part of it below the root is a symlink or a file;
``refusals`` names the claim and what to do; ``ensure_dirs`` creates the missing ones and sets owner,
group, mode and SELinux type through AnsibleModule's own ``set_*_if_different`` helpers (check mode,
diff, and no SELinux change where SELinux is disabled, as ``ansible.builtin.file`` does).

From the plan (the module's ``records``, what the ``hostpath_dirs`` role passes): ``node_dirs`` checks the
records as every role's first step does (``plan/select.py:select``) and keeps this node's directories;
``outside_root`` names every one not strictly below the allowed root, with the fix.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import errno
import grp
import os
import posixpath
import pwd
import shutil
import stat

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.naming import LABEL_SLUG
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.select import select as select_records
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


# Creation (the hostpath_dirs role): every model directory of a node in one module call.

CREATED = "created"
CHANGED = "changed"
UNCHANGED = "unchanged"

_KIND = ((stat.S_ISDIR, "directory"), (stat.S_ISLNK, "symlink"), (stat.S_ISREG, "file"))


def _kind(mode):
    for test, name in _KIND:
        if test(mode):
            return name
    return "special file"


def create_problem(path, root, lstat=os.lstat):
    """None when ``path`` may be created (or have its attributes set) under ``root``; else why not.

    The string rules of ``path_problem``, then the filesystem's: every part of ``path`` below the root
    that exists is a real directory, never a symlink or a file, so nothing is created or changed through
    a link. The root itself may be a symlink (followed, as for removal). ``lstat`` is the filesystem's.
    """
    problem = path_problem(path, root)
    if problem:
        return problem
    root = normalised_root(root)
    path = path.rstrip("/")
    current = root
    for part in path[len(root) + 1:].split("/"):
        current = current + "/" + part
        try:
            info = lstat(current)
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                return None  # it and everything below it will be created
            return "%s cannot be read: %s" % (current, exc.strerror or exc)
        if stat.S_ISDIR(info.st_mode):
            continue
        kind = _kind(info.st_mode)
        if current == path:
            return ("%s is a symlink (never followed)" % path) if kind == "symlink" else (
                "%s is a %s, not a directory" % (path, kind))
        return "%s lies below %s, which is a %s%s" % (
            path, current, kind, " (never followed)" if kind == "symlink" else ", not a directory")
    return None


def advice(problem, root):
    """What to do about a ``create_problem``."""
    if "symlink" in problem:
        return "replace the symlink with a directory or choose another hostpathDir; model directories are " \
               "never created through a symlink"
    if "not a directory" in problem:
        return "move that file away or choose another hostpathDir"
    if "cannot be read" in problem:
        return "run with privileges that can read %s (become: true)" % root
    return "set hostpathDir to a directory below %s or widen the allowed root" % root


def refusals(wanted, root, lstat=os.lstat):
    """One message per refused ``(path, claim)`` of ``wanted``: the claim, the directory, why, what to do."""
    found = []
    for path, claim in wanted:
        problem = create_problem(path, root, lstat)
        if problem:
            found.append("%s%s; %s" % ("%s: " % claim if claim else "", problem, advice(problem, root)))
    return found


# From the plan: the directories of one node's records.

PLAN_ROLE = "hostpath_dirs"  # the role whose plan variable the module's records are; errors name it


def node_dirs(records, node, role=PLAN_ROLE):
    """``(hostpath_dir, pvc)`` of every plan record whose ``storage.hostpath_node`` is ``node``, plan order,
    each directory once (its first claim).

    ``records`` is checked as the ``plan_records`` filter checks it (``PlanRecordsError`` naming ``role``'s
    plan variable when no plan was built or it holds no plan records). Records without a hostpath_node (dynamic
    claims, cloud) are skipped; no record for ``node`` gives ``[]``.
    """
    wanted, seen = [], set()
    for record in select_records(records, None, role):
        storage = record["storage"]
        if not storage.get("hostpath_node") or storage["hostpath_node"] != node:
            continue
        path = storage.get("hostpath_dir")
        if isinstance(path, str) and len(path) > 1:
            path = path.rstrip("/") or path
        if path not in seen:
            seen.add(path)
            wanted.append((path, storage.get("pvc")))
    return wanted


def below_root(path, root):
    """Whether ``path`` names something strictly below ``root`` (its first part after ``root/`` not empty)."""
    prefix = normalised_root(root) + "/"
    return isinstance(path, str) and path.startswith(prefix) and path[len(prefix):len(prefix) + 1] not in ("", "/")


def outside_root(wanted, root, variable="%s_allowed_root" % PLAN_ROLE):
    """One message per ``(path, claim)`` of ``wanted`` not strictly below ``root``: the claim, the hostpathDir,
    the allowed root (named ``variable``) and the fix. The finer rules (normalised, no symlink or file in the
    way) are ``create_problem``'s and ``resolved_problem``'s."""
    root = normalised_root(root)
    return ["%s: hostpathDir %s is not below %s %s; move the directory under it or widen %s."
            % (claim, path, variable, root, variable)
            for path, claim in wanted if not below_root(path, root)]


def owner_id(owner):
    """The uid of ``owner`` (a uid or a user name); raises CacheDirError naming it when no such user exists."""
    return _lookup(owner, pwd.getpwnam, "pw_uid", "owner", "user")


def group_id(group):
    """The gid of ``group`` (a gid or a group name); raises CacheDirError naming it when no such group exists."""
    return _lookup(group, grp.getgrnam, "gr_gid", "group", "group")


def _lookup(value, getter, field, option, what):
    if value is None or value == "":
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        pass
    try:
        return getattr(getter(value), field)
    except KeyError:
        raise CacheDirError("%s %s is no %s on this node: give a numeric id or a %s that exists here"
                            % (option, value, what, what))


def missing_parts(path, root, lexists=os.path.lexists):
    """The directories to create for ``path``, top first: the missing parts strictly below ``root``."""
    root = normalised_root(root)
    missing = []
    current = path.rstrip("/")
    while current != root and not lexists(current):
        missing.insert(0, current)
        current = posixpath.dirname(current)
    return missing


def set_attributes(module, path, attributes, diff):
    """Set owner, group, mode and SELinux type on ``path`` where they differ; the names of those changed.

    Uses the module's own helpers: in check mode they only report, they fill ``diff``'s before/after, and
    the SELinux type changes nothing where SELinux is disabled.
    """
    changed = []
    steps = (("owner", module.set_owner_if_different), ("group", module.set_group_if_different),
             ("mode", module.set_mode_if_different))
    for name, setter in steps:
        if attributes.get(name) is not None and setter(path, attributes[name], False, diff, expand=False):
            changed.append(name)
    if attributes.get("setype") is not None \
            and module.set_context_if_different(path, [None, None, attributes["setype"]], False, diff):
        changed.append("setype")
    return changed


def ensure_dir(module, path, root, attributes):
    """Create ``path`` below ``root`` when missing (its missing parents below the root too, with the same
    attributes, as ``ansible.builtin.file`` does) and set its attributes.

    Returns ``(result, diff)``: result ``dict(path, status, created, changed)`` with status created, changed or
    unchanged and ``changed`` the attribute names that differed; diff the before/after of what differed.
    A missing root is created with the mode only (owned by the module's user). Check the path with
    ``create_problem`` first; OSError propagates.
    """
    root = normalised_root(root)
    path = path.rstrip("/")
    diff = dict(before_header=path, after_header=path, before={}, after={})
    missing = missing_parts(path, root)
    result = dict(path=path, created=bool(missing), changed=[], status=UNCHANGED)
    if missing:
        result["status"] = CREATED
        diff["before"]["state"] = "absent"
        diff["after"]["state"] = "directory"
        wanted = dict((name, value) for name, value in attributes.items()
                      if value is not None and (name != "setype" or module.selinux_enabled()))
        diff["after"].update(wanted)
        result["changed"] = sorted(wanted)
        if module.check_mode:
            return result, diff
        if not os.path.isdir(root):
            os.makedirs(root)
            if attributes.get("mode") is not None:
                module.set_mode_if_different(root, attributes["mode"], False, expand=False)
        for part in missing:
            os.mkdir(part, 0o700)  # opened up by the attributes below
            set_attributes(module, part, attributes, None)
        return result, diff
    result["changed"] = set_attributes(module, path, attributes, diff)
    if result["changed"]:
        result["status"] = CHANGED
    return result, diff


def ensure_dirs(module, wanted, root, attributes):
    """``ensure_dir`` for every ``(path, claim)`` of ``wanted``: ``(results, diffs)``, results carrying the claim.

    Refuses nothing itself: check ``refusals`` first. OSError propagates with ``results`` of the paths done so
    far on the exception (``exc.results``) and the claim and path it failed on (``exc.claim``, ``exc.path``).
    """
    results, diffs = [], []
    for path, claim in wanted:
        try:
            result, diff = ensure_dir(module, path, root, attributes)
        except OSError as exc:
            exc.results, exc.claim, exc.path = results, claim, path
            raise
        result["claim"] = claim
        results.append(result)
        if result["status"] != UNCHANGED:
            diffs.append(diff)
    return results, diffs
