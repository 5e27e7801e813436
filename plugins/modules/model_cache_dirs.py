#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_cache_dirs
short_description: List or remove the model cache directories on a node, never one a volume still uses
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Runs on a cluster node. Without O(remove), describes every entry directly below O(root) (the allowed root of
    the hostPath model directories) with its size, file count, the digest, reference and pull time from the C(.pulled)
    marker, and whether it is an orphan (no PersistentVolume in O(volumes) and no claim in O(claims) refers to
    it), referenced, claimed, or skipped (a symlink or a file, never followed or removed).
  - With O(remove), removes each directory it names that exists and that nothing in O(volumes) or
    O(claims) refers to, and reports the bytes freed. Check mode reports what would be freed, with sizes.
  - A path is removed only when it is absolute, normalised (no C(..), C(.) or C(//)), strictly below O(root),
    no symlink, and resolves inside the resolved O(root). Any path breaking these rules fails the task before
    anything is removed.
  - A PV refers to a directory when its hostPath or local path is that directory, lies inside it or above it,
    and the PV may be on O(node) (pinned to it, or not pinned to any node).
options:
  root:
    description: The allowed root; only entries strictly below it are listed or removed.
    type: str
    required: true
  remove:
    description: Directories to remove; when empty (the default), the entries below O(root) are listed instead.
    type: list
    elements: str
    default: []
  node:
    description:
      - This node's Kubernetes name (the C(kubernetes.io/hostname) label). PVs pinned to other nodes only do not
        protect a directory here. Without it every PV in O(volumes) protects its path.
    type: str
  volumes:
    description: PersistentVolume objects as the API returns them (C(kubernetes.core.k8s_info) resources).
    type: list
    elements: dict
    default: []
  claims:
    description:
      - Model claims (PersistentVolumeClaim objects); a directory named after a claim's
        C(ai-platform.serving/slug) label is kept.
    type: list
    elements: dict
    default: []
attributes:
  check_mode:
    support: full
    description: Measures and reports what would be removed; removes nothing.
  diff_mode:
    support: none
    description: No diff; the result lists the directories and their sizes.
notes:
  - Run it with privileges that can remove the pull Job's files (root on most nodes).
"""

EXAMPLES = r"""
- name: List the model directories of this node
  ai_platform.serving.model_cache_dirs:
    root: /var/lib/hostpath/models
    node: "{{ inventory_hostname }}"
    volumes: "{{ cluster_pvs.resources }}"
    claims: "{{ model_claims.resources }}"
  register: listing

- name: Remove a removed model's directory
  ai_platform.serving.model_cache_dirs:
    root: /var/lib/hostpath/models
    remove: [/var/lib/hostpath/models/qwen3-8b]
    node: gpu-node-1
    volumes: "{{ cluster_pvs.resources }}"
"""

RETURN = r"""
dirs:
  description:
    - Without O(remove), every entry below O(root) with C(path), C(slug), C(kind) (directory, symlink, file),
      C(bytes), C(disk_bytes), C(files), C(human_size), C(digest), C(reference), C(pulled_at), C(modified)
      (epoch seconds), C(status) (orphan, referenced, claimed, skipped) and C(reason).
  returned: without O(remove)
  type: list
  elements: dict
orphans:
  description: The entries of RV(dirs) with status orphan.
  returned: without O(remove)
  type: list
  elements: dict
orphan_bytes:
  description: Bytes held by the orphans.
  returned: without O(remove)
  type: int
removed:
  description: Directories removed (or, in check mode, that would be), each described as in RV(dirs).
  returned: with O(remove)
  type: list
  elements: dict
kept:
  description: Requested directories kept because a PV or claim refers to them, with C(path) and C(reason).
  returned: with O(remove)
  type: list
  elements: dict
missing:
  description: Requested directories that do not exist.
  returned: with O(remove)
  type: list
  elements: str
refused:
  description: Paths refused by the allowed-root rules, with why.
  returned: failure
  type: list
  elements: str
freed_bytes:
  description: Bytes of the removed directories' files (would be freed in check mode).
  returned: with O(remove)
  type: int
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cache as model_cache


def argspec():
    return dict(
        root=dict(type="str", required=True),
        remove=dict(type="list", elements="str", default=[]),
        node=dict(type="str"),
        volumes=dict(type="list", elements="dict", default=[]),
        claims=dict(type="list", elements="dict", default=[]),
    )


def list_dirs(module, root, refs):
    dirs = [model_cache.classify(entry, refs) for entry in model_cache.scan(root)]
    orphans = [entry for entry in dirs if entry["status"] == model_cache.ORPHAN]
    module.exit_json(changed=False, root=root, root_exists=os.path.isdir(root), dirs=dirs, orphans=orphans,
                     orphan_bytes=sum(entry.get("bytes") or 0 for entry in orphans))


def remove_dirs(module, root, refs):
    paths = [p.rstrip("/") for p in module.params["remove"]]
    refused = [problem for problem in (model_cache.resolved_problem(p, root) for p in paths) if problem]
    if refused:
        module.fail_json(msg="refused, nothing was removed: %s" % "; ".join(refused), refused=refused)
    removed, kept, missing = [], [], []
    for path in paths:
        if not os.path.lexists(path):
            missing.append(path)
            continue
        why = model_cache.keep_reason(path, refs)
        if why:
            kept.append(dict(path=path, reason=why))
            continue
        entry = model_cache.describe(path)
        if entry.get("kind") != "directory":
            module.fail_json(msg="%s is a %s, not a model directory: not removed" % (path, entry.get("kind")))
        if not module.check_mode:
            try:
                model_cache.remove(path, root)
            except (model_cache.CacheDirError, OSError) as exc:
                module.fail_json(msg="could not remove %s: %s" % (path, exc), removed=removed)
        removed.append(entry)
    module.exit_json(changed=bool(removed), root=root, removed=removed, kept=kept, missing=missing,
                     freed_bytes=sum(entry.get("bytes") or 0 for entry in removed))


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    problem = model_cache.root_problem(params["root"])
    if problem:
        module.fail_json(msg=problem)
    root = model_cache.normalised_root(params["root"])
    refs = model_cache.references(params["volumes"], params["claims"], params["node"])
    if not params["remove"]:
        list_dirs(module, root, refs)
    remove_dirs(module, root, refs)


if __name__ == "__main__":
    main()
