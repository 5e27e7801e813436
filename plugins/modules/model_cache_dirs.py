#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_cache_dirs
short_description: Create, list or remove the model cache directories on a node, never one a volume still uses
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Runs on a cluster node. Without O(create), O(remove), O(records) or O(state), describes every entry directly below O(root) (the
    allowed root of the hostPath model directories) with its size, file count, the digest, reference and pull time
    from the C(.pulled) marker, and whether it is an orphan (no PersistentVolume in O(volumes) and no claim in O(claims) refers to
    it), referenced, claimed, or skipped (a symlink or a file, never followed or removed).
  - With O(create), creates every directory it names that is missing (and its missing parents below O(root)) in
    one call and sets O(owner), O(group), O(mode) and, where SELinux is enabled, O(setype) on each, reporting per
    directory what was created or changed. Check mode reports the same and changes nothing.
  - With O(remove), removes each directory it names that exists and that nothing in O(volumes) or
    O(claims) refers to, and reports the bytes freed. Check mode reports what would be freed, with sizes.
  - With O(records) (the model plan), takes the C(storage.hostpath_dir) of every record whose
    C(storage.hostpath_node) is O(node) (records without a hostpath_node are skipped) and creates them, each for
    its claim C(storage.pvc), as O(create) does (O(state=present)), or removes them as O(remove) does
    (O(state=absent)). No record for O(node) changes nothing. The C(hostpath_dirs) role makes one such call per
    node, whatever the number of models.
  - O(records) is checked as the P(ai_platform.serving.plan_records#filter) filter checks a role's plan. No plan
    (null), or a value that is not a list of plan records, fails naming the C(hostpath_dirs) role's variable
    C(hostpath_dirs_plan) and what to do. Then every selected directory not strictly below O(root) fails the task,
    one message per directory naming its claim, the hostpathDir, the allowed root and the fix, before anything is
    created or removed.
  - A path is created only when it is absolute, normalised, strictly below O(root), and no part of it below
    O(root) that exists is a symlink or a file. Any path breaking these rules fails the task, naming its claim
    and what to do, before anything is created.
  - A path is removed only when it is absolute, normalised (no C(..), C(.) or C(//)), strictly below O(root),
    no symlink, and resolves inside the resolved O(root). Any path breaking these rules fails the task before
    anything is removed.
  - A PV refers to a directory when its hostPath or local path is that directory, lies inside it or above it,
    and the PV may be on O(node) (pinned to it, or not pinned to any node).
options:
  root:
    description:
      - The allowed root; only entries strictly below it are created, listed or removed.
      - With O(create), a missing root is created with O(mode) only (owned by the user the module runs as).
    type: str
    required: true
  create:
    description:
      - Directories to create (or keep) with O(owner), O(group), O(mode) and O(setype). Mutually exclusive with
        O(remove) and O(records).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: The directory, absolute and strictly below O(root).
        type: str
        required: true
      claim:
        description: The PersistentVolumeClaim (model) the directory is for, named in error messages.
        type: str
  owner:
    description: With O(create) or O(records), the owner of the directories (a user name or uid); unset keeps the current owner.
    type: str
  group:
    description: With O(create) or O(records), the group of the directories (a group name or gid); unset keeps the current group.
    type: str
  mode:
    description:
      - With O(create) or O(records), the mode of the directories, as for M(ansible.builtin.file) (a quoted octal such as
        V('0755') or a symbolic mode); unset keeps the current mode (a new directory then gets 0700).
    type: raw
  setype:
    description:
      - With O(create) or O(records), the SELinux type of the directories (for example V(container_file_t)). Applied only where
        SELinux is enabled on the node; elsewhere ignored, as M(ansible.builtin.file) does.
    type: str
  remove:
    description:
      - Directories to remove; when O(remove) and O(create) are both empty (the default) and neither O(records) nor
        O(state) is given, the entries below O(root) are listed instead.
    type: list
    elements: str
    default: []
  node:
    description:
      - This node's Kubernetes name (the C(kubernetes.io/hostname) label). PVs pinned to other nodes only do not
        protect a directory here. Without it every PV in O(volumes) protects its path.
      - With O(records) or O(state), required; only the records whose C(storage.hostpath_node) is O(node) are
        handled.
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
  records:
    description:
      - Plan records of M(ai_platform.serving.model_plan) (its C(records), the C(aips_plan) fact), a list of dicts.
        The directories of the records for O(node) are created or removed, as O(state) says.
      - Given as raw so that a value that is not a plan fails with the plan check's message. Mutually exclusive
        with O(create) and O(remove).
    type: raw
    version_added: 0.1.0
  state:
    description:
      - With O(records), V(present) creates the directories of this node's records and V(absent) removes them.
        Given without O(records) (the plan unset), fails as no plan was built. Unset with O(records) means
        V(present).
    type: str
    choices: [present, absent]
    version_added: 0.1.0
attributes:
  check_mode:
    support: full
    description: Reports what would be created, changed or removed (with sizes); changes nothing.
  diff_mode:
    support: partial
    description: With O(create) or O(records) and O(state=present), the before/after state, owner, group, mode and SELinux context of each directory
      created or changed. Removal and listing give no diff; their result lists the directories and sizes.
notes:
  - Run it with privileges that can set the owner and remove the pull Job's files (root on most nodes).
"""

EXAMPLES = r"""
- name: Create this node's model directories from the plan (what the hostpath_dirs role does)
  ai_platform.serving.model_cache_dirs:
    root: /var/lib/hostpath/models
    records: "{{ hostvars['localhost'].aips_plan }}"
    node: "{{ inventory_hostname }}"
    state: present
    owner: "65532"
    group: "65532"
    mode: "0755"
    setype: container_file_t

- name: Remove this node's model directories from the plan, never one a PV still uses
  ai_platform.serving.model_cache_dirs:
    root: /var/lib/hostpath/models
    records: "{{ hostvars['localhost'].aips_plan }}"
    node: "{{ inventory_hostname }}"
    state: absent
    volumes: "{{ cluster_pvs.resources }}"

- name: Create the model directories of this node, owned by the pull Job's uid
  ai_platform.serving.model_cache_dirs:
    root: /var/lib/hostpath/models
    create:
      - path: /var/lib/hostpath/models/qwen3-8b
        claim: qwen3-8b-model
      - path: /var/lib/hostpath/models/minilm
        claim: minilm-model
    owner: "65532"
    group: "65532"
    mode: "0755"
    setype: container_file_t
  register: model_dirs

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
ensured:
  description:
    - With O(create), one entry per directory with C(path), C(claim), C(status) (created, changed or unchanged),
      C(created) (bool) and C(changed) (the attributes that differed; on a created directory, those set).
  returned: with O(create), or O(records) and O(state=present)
  type: list
  elements: dict
  sample:
    - path: /var/lib/hostpath/models/qwen3-8b
      claim: qwen3-8b-model
      status: changed
      created: false
      changed: [mode]
created:
  description: The directories created (in check mode, that would be).
  returned: with O(create), or O(records) and O(state=present)
  type: list
  elements: str
selinux_enabled:
  description: Whether SELinux is enabled on the node, so O(setype) was applied.
  returned: with O(create), or O(records) and O(state=present)
  type: bool
dirs:
  description:
    - Without O(create), O(remove), O(records) or O(state), every entry below O(root) with C(path), C(slug), C(kind) (directory,
      symlink, file), C(bytes), C(disk_bytes), C(files), C(human_size), C(digest), C(reference), C(pulled_at), C(modified)
      (epoch seconds), C(status) (orphan, referenced, claimed, skipped) and C(reason).
  returned: without O(create), O(remove), O(records) or O(state)
  type: list
  elements: dict
orphans:
  description: The entries of RV(dirs) with status orphan.
  returned: without O(create), O(remove), O(records) or O(state)
  type: list
  elements: dict
orphan_bytes:
  description: Bytes held by the orphans.
  returned: without O(create), O(remove), O(records) or O(state)
  type: int
removed:
  description: Directories removed (or, in check mode, that would be), each described as in RV(dirs).
  returned: with O(remove), or O(records) and O(state=absent)
  type: list
  elements: dict
kept:
  description: Requested directories kept because a PV or claim refers to them, with C(path) and C(reason).
  returned: with O(remove), or O(records) and O(state=absent)
  type: list
  elements: dict
missing:
  description: Requested directories that do not exist.
  returned: with O(remove), or O(records) and O(state=absent)
  type: list
  elements: str
refused:
  description: Paths refused by the allowed-root rules, each with its claim (when given), why, and what to do.
    With O(records), first the directories not below O(root) alone, in the words of the plan check.
  returned: failure
  type: list
  elements: str
freed_bytes:
  description: Bytes of the removed directories' files (would be freed in check mode).
  returned: with O(remove), or O(records) and O(state=absent)
  type: int
"""

import os

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import module_class
from ansible_collections.ai_platform.serving.plugins.module_utils.plan import select
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import cache as model_cache


def argspec():
    return dict(
        root=dict(type="str", required=True),
        create=dict(type="list", elements="dict", default=[], options=dict(
            path=dict(type="str", required=True),
            claim=dict(type="str"),
        )),
        owner=dict(type="str"),
        group=dict(type="str"),
        mode=dict(type="raw"),
        setype=dict(type="str"),
        remove=dict(type="list", elements="str", default=[]),
        node=dict(type="str"),
        volumes=dict(type="list", elements="dict", default=[]),
        claims=dict(type="list", elements="dict", default=[]),
        records=dict(type="raw"),
        state=dict(type="str", choices=["present", "absent"]),
    )


def list_dirs(module, root, refs):
    dirs = [model_cache.classify(entry, refs) for entry in model_cache.scan(root)]
    orphans = [entry for entry in dirs if entry["status"] == model_cache.ORPHAN]
    module.exit_json(changed=False, root=root, root_exists=os.path.isdir(root), dirs=dirs, orphans=orphans,
                     orphan_bytes=sum(entry.get("bytes") or 0 for entry in orphans))


def remove_dirs(module, root, refs, paths):
    paths = [p.rstrip("/") for p in paths]
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


def create_dirs(module, root, wanted):
    params = module.params
    if not wanted:
        module.exit_json(changed=False, root=root, ensured=[], created=[], selinux_enabled=module.selinux_enabled())
    refused = model_cache.refusals(wanted, root)
    if refused:
        module.fail_json(msg="refused, nothing was created: %s" % " | ".join(refused), refused=refused)
    try:
        attributes = dict(owner=model_cache.owner_id(params["owner"]), group=model_cache.group_id(params["group"]),
                          mode=params["mode"], setype=params["setype"])
    except model_cache.CacheDirError as exc:
        module.fail_json(msg="%s; nothing was created" % exc)
    try:
        results, diffs = model_cache.ensure_dirs(module, wanted, root, attributes)
    except OSError as exc:
        done = getattr(exc, "results", [])
        module.fail_json(msg="%scould not create %s: %s; %d directories before it are done, none after it was "
                         "touched; fix the cause (permissions, disk) and run again"
                         % ("%s: " % exc.claim if getattr(exc, "claim", None) else "", getattr(exc, "path", "?"),
                            exc.strerror or exc, len(done)),
                         ensured=done)
    created = [result["path"] for result in results if result["created"]]
    extra = dict(diff=diffs) if module._diff else {}
    module.exit_json(changed=any(result["status"] != model_cache.UNCHANGED for result in results), root=root,
                     ensured=results, created=created, selinux_enabled=module.selinux_enabled(), **extra)


def create_list(items):
    """The O(create) items as ``(path, claim)``, each path once (its first claim)."""
    wanted, seen = [], set()
    for item in items:
        path = item["path"].rstrip("/") or item["path"]
        if path not in seen:
            seen.add(path)
            wanted.append((path, item.get("claim")))
    return wanted


def from_plan(module, root):
    """O(records): this node's directories, checked against the allowed root before anything is done."""
    params = module.params
    try:
        wanted = model_cache.node_dirs(params["records"], params["node"])
    except select.PlanRecordsError as exc:
        module.fail_json(msg=str(exc))
    present = (params["state"] or "present") == "present"
    refused = model_cache.outside_root(wanted, root)
    if refused:
        module.fail_json(msg="refused, nothing was %s: %s" % ("created" if present else "removed", " ".join(refused)),
                         refused=refused)
    if present:
        create_dirs(module, root, wanted)
    refs = model_cache.references(params["volumes"], params["claims"], params["node"])
    remove_dirs(module, root, refs, [path for path, _claim in wanted])


def main():
    # AnsibleModule, or the stand-in of a module running in the playbook's process (plugins/action/model_cache_dirs.py)
    module = module_class()(argument_spec=argspec(), supports_check_mode=True,
                            mutually_exclusive=[("create", "remove", "records"), ("state", "create"),
                                                ("state", "remove")],
                            required_by=dict(records=["node"], state=["node"]))
    params = module.params
    problem = model_cache.root_problem(params["root"])
    if problem:
        module.fail_json(msg=problem)
    root = model_cache.normalised_root(params["root"])
    if params["records"] is not None or params["state"] is not None:
        from_plan(module, root)
    if params["create"]:
        create_dirs(module, root, create_list(params["create"]))
    refs = model_cache.references(params["volumes"], params["claims"], params["node"])
    if not params["remove"]:
        list_dirs(module, root, refs)
    remove_dirs(module, root, refs, params["remove"])


if __name__ == "__main__":
    main()
