#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_sync_lock
short_description: Merge pushed model digests and a bundle load's sections into the lock file the deploy reads
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Reads O(lock_file) once (a missing or empty file is an empty document), merges into it the results of
    M(ai_platform.serving.model_sync) (or of a bundle load's model pushes) and the O(sections) of a bundle load, and
    writes it back, only when its text changes, through a temporary file beside it and a rename (mode C(0644)).
  - Every result with a digest becomes the entry of its reference under O(registry), the registry name the cluster
    pulls from - C(<registry>/<project>/<artifact>:<tag>), whatever host the model was pushed to - with its name,
    repo id, revision, digest, pinned reference (C(<registry>/<project>/<artifact>@sha256:...), the
    P(ai_platform.serving.pinned_reference#filter) function), size and file count. A result without a digest
    (check mode, a model that would be pushed; a push that failed) leaves its entry as it was.
  - Models the results do not name, and keys the module does not write, are kept. O(sections) are merged in
    recursively (mappings key by key, anything else replaced); C(lock_version) is set to C(1).
  - The file is written as the model_sync role always wrote it (a header comment, then the document with sorted
    keys and an indent of 2, as Ansible's C(to_nice_yaml) writes it), so a run that changes nothing leaves it
    byte for byte and reports no change.
  - The role C(ai_platform.serving.model_sync) runs it after its pushes (C(tasks_from=lock)), as does
    C(playbooks/load.yml) after loading a bundle.
options:
  lock_file:
    description:
      - The lock file on the host running the module (the controller in the role). Its folder must exist. A symlink
        is followed, the file it points to replaced.
    type: path
    required: true
  registry:
    description:
      - Registry name the references of the lock are written under (the name the cluster pulls from; the role's
        C(model_sync_lock_registry)).
    type: str
    required: true
  results:
    description:
      - The C(results) of a registered loop of M(ai_platform.serving.model_sync). Each one with a truthy C(digest)
        needs C(repo_id), C(revision), C(reference) (the tag reference pushed), C(size) and C(file_count);
        C(item.name), when set, is the entry's name, else the artifact name.
    type: list
    elements: dict
    default: []
  sections:
    description:
      - Other sections merged into the lock file recursively, by key - a bundle load's C(images) and C(charts)
        (filter P(ai_platform.serving.bundle_lock_sections#filter)). Sections not named are kept; C(models) and
        C(lock_version) here are ignored.
    type: dict
    default: {}
requirements:
  - PyYAML
attributes:
  check_mode:
    support: full
    description: Reads the lock file and reports whether it would change; writes nothing.
  diff_mode:
    support: full
    description: The text of the lock file before and after.
"""

EXAMPLES = r"""
- name: Push the models
  ai_platform.serving.model_sync:
    repo_id: "{{ item.repo_id }}"
    revision: "{{ item.revision }}"
    reference: "harbor.example.com/ai-models/{{ item.artifact }}:{{ item.tag }}"
  loop: "{{ models }}"
  register: pushed

- name: Merge the pushed digests into the lock file
  ai_platform.serving.model_sync_lock:
    lock_file: "{{ playbook_dir }}/../models.lock.yml"
    registry: harbor.harbor.svc.cluster.local
    results: "{{ pushed.results }}"
  delegate_to: localhost
  run_once: true
"""

RETURN = r"""
lock_file:
  description: Path of the lock file.
  returned: always
  type: str
  sample: /srv/ai-platform/models.lock.yml
models:
  description: The C(models) of the lock file after the merge, keyed by the tag reference under O(registry).
  returned: always
  type: dict
  sample:
    harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:v1:
      name: all-minilm-l6-v2
      repo_id: sentence-transformers/all-MiniLM-L6-v2
      revision: c9745ed1d9f207416be6d2e6f8de32d1f16199bf
      reference: harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2:v1
      digest: sha256:0d4c53b8b4e0ac14ab2b0d0c6ee0b5d7e1d2c3b4a5968778695a4b3c2d1e0f9a
      pinned_reference: >-
        harbor.harbor.svc.cluster.local/ai-models/all-minilm-l6-v2@sha256:0d4c53b8b4e0ac14ab2b0d0c6ee0b5d7e1d2c3b4a5968778695a4b3c2d1e0f9a
      size: 91618901
      file_count: 13
"""

import os

from ansible.module_utils.basic import missing_required_lib

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import module_class
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import lock


def argspec():
    return dict(
        lock_file=dict(type="path", required=True),
        registry=dict(type="str", required=True),
        results=dict(type="list", elements="dict", default=[]),
        sections=dict(type="dict", default={}),
    )


def run(params, check_mode=False, want_diff=False):
    """The module's result for ``params``; writes the lock file unless ``check_mode``. Raises lock.LockError."""
    path = params["lock_file"]
    before, document = lock.read(path)
    merged = lock.merge(document, params["results"], params["registry"], params["sections"])
    after = lock.render(merged)
    mode_differs = before is not None and (os.stat(path).st_mode & 0o7777) != lock.MODE
    changed = after != before or mode_differs
    if changed and not check_mode:
        if after != before:
            lock.write(path, after)
        else:
            os.chmod(os.path.realpath(path), lock.MODE)
    result = dict(changed=changed, lock_file=path, models=merged["models"])
    if want_diff:
        result["diff"] = dict(before=before or "", after=after, before_header=path, after_header=path)
    return result


def main():
    # AnsibleModule, or the stand-in of a module running in the playbook's process (plugins/action/model_sync_lock.py)
    module = module_class()(argument_spec=argspec(), supports_check_mode=True)
    if lock.yaml is None:
        module.fail_json(msg=missing_required_lib("PyYAML"))
    try:
        result = run(module.params, module.check_mode, module._diff)
    except lock.LockError as exc:
        module.fail_json(msg=str(exc))
    except (IOError, OSError) as exc:
        module.fail_json(msg="the lock file %s: %s" % (module.params["lock_file"], exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
