# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The deploy's preflight with the lock file load.yml writes: a pinned model is read from the lock alone, a
model the lock does not pin fails naming it (model_storage_require_lock), through ansible-playbook.

The references name a loopback port nothing listens on, so any registry request would fail the run.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.ai_platform.serving.tests.support.bundle import closed_port
from ansible_collections.ai_platform.serving.tests.support.playbook import ansible_playbook, flat

DIGEST = "sha256:" + "b" * 64
PLAY = """- hosts: localhost
  connection: local
  gather_facts: false
  tasks:
    - name: Read the artifact as model_storage's preflight does
      ai_platform.serving.model_artifact_info:
        reference: "{{ reference }}"
        lock_file: "{{ lock_file }}"
        require_lock: "{{ require_lock }}"
        storage_bytes: 1073741824
        storage_size: 1Gi
        slug: "{{ slug }}"
      register: artifact
    - name: Show it
      ansible.builtin.debug:
        msg: "digest={{ artifact.digest }} source={{ artifact.source }}"
"""


def run(tmp_path, **variables):
    playbook = tmp_path / "preflight.yml"
    playbook.write_text(PLAY)
    return ansible_playbook(None, str(playbook), variables, tmp_path)


def lock_with(tmp_path, reference):
    path = tmp_path / "models.lock.yml"
    path.write_text(yaml.safe_dump({"lock_version": 1, "models": {reference: {
        "digest": DIGEST, "size": 91618941, "file_count": 13, "repo_id": "sentence-transformers/all-MiniLM-L6-v2",
        "revision": "c" * 40, "reference": reference}}}))
    return str(path)


def test_pinned_model_comes_from_the_lock_alone(tmp_path):
    reference = "127.0.0.1:%d/ai-models/all-minilm-l6-v2:v1" % closed_port()
    result = run(tmp_path, reference=reference, lock_file=lock_with(tmp_path, reference), require_lock=True,
                 slug="minilm-pin")
    assert result.rc == 0, result
    assert "digest=%s source=lock" % DIGEST in result.output, result


def test_unpinned_model_fails_naming_it(tmp_path):
    host = "127.0.0.1:%d" % closed_port()
    lock = lock_with(tmp_path, "%s/ai-models/all-minilm-l6-v2:v1" % host)
    other = "%s/ai-models/qwen3-0-6b:v1" % host
    result = run(tmp_path, reference=other, lock_file=lock, require_lock=True, slug="qwen-unpinned")
    assert result.rc != 0, result
    text = flat(result.output)
    assert "qwen-unpinned: %s is not pinned: the lock file %s has no entry for it" % (other, lock) in text, result
    assert "model_storage_require_lock: false" in text, result
    # A digest in harborRef pins it too; without require_lock the tag would be resolved at the registry.
    pinned = "%s/ai-models/qwen3-0-6b@%s" % (host, DIGEST)
    result = run(tmp_path, reference=pinned, lock_file=lock, require_lock=True, slug="qwen-unpinned")
    assert "is not pinned" not in flat(result.output), result
    result = run(tmp_path, reference=other, lock_file=lock, require_lock=False, slug="qwen-unpinned")
    assert result.rc != 0 and "is not pinned" not in flat(result.output), result
    assert os.path.isfile(lock)
