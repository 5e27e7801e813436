# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Issue 13 on the lab: a claim without room for a new copy never loses the verified one.

The model's hostPath directory is a real small filesystem (a tmpfs of 150 MiB mounted on it by
this test): MiniLM (about 92 MB) fits once, not twice. A new revision of the model (another
digest) must fail at once with the space needed and the space free, exit 42 (no retries), and
leave the verified copy, its marker and the claim's digest annotation exactly as they were.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import os
import subprocess
import time

import pytest

from ansible_collections.ai_platform.serving.tests.support.hub import MINILM_COMMIT, edited_hub, minilm_dir
from ansible_collections.ai_platform.serving.tests.support.lab import publish
from ansible_collections.ai_platform.serving.tests.support.site import PULL_UID

TMPFS_SIZE = "150m"


def files_digest(root):
    """sha256 over every file's path and bytes below ``root``."""
    digest = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(dirpath, name)
            digest.update(os.path.relpath(path, root).encode())
            with open(path, "rb") as handle:
                for chunk in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(chunk)
    return digest.hexdigest()


@pytest.fixture
def small_claim(model):
    """Mount a tmpfs of TMPFS_SIZE owned by the pull uid on the model's hostPath directory."""
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,uid=%d,gid=%d,mode=0755" % (TMPFS_SIZE, PULL_UID, PULL_UID),
                    "aips-hardening", model.hostpath_dir], check=True)
    yield model
    model.kube.run("delete", "namespace", model.namespace, "--wait=true", "--timeout=120s", check=False)
    subprocess.run(["umount", model.hostpath_dir], check=False)


def test_a_claim_without_room_keeps_the_verified_copy(small_claim, kube):
    model = small_claim
    first = model.publish()
    run = model.apply()
    assert run.rc == 0, str(run)
    marker_before = open(model.marker_path()).read()
    files_before = files_digest(os.path.join(model.hostpath_dir, "hub"))
    annotation = kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"]["ai-platform.serving/digest"]
    assert annotation == first["digest"]

    # a new revision under the same tag: another digest whose weights are new, so about as large again over the
    # wire (an upgrade takes the unchanged files from the claim and fetches only the rest: new weights must come)
    weights = os.path.getsize(os.path.join(minilm_dir(), "model.safetensors"))
    second = publish(model.lab, model.tmp, edited_hub(model.tmp, "v2", {"model.safetensors": os.urandom(weights)},
                                                      MINILM_COMMIT), model.repository)
    assert second["digest"] != first["digest"]
    started = time.monotonic()
    failed = model.apply()
    print("FIGURE fault claim-full: failed after %.1f s" % (time.monotonic() - started))
    assert failed.rc != 0, str(failed)
    assert "not enough free space on the claim: the pull needs" in failed.output, str(failed)
    assert "are free" in failed.output and "and its marker are kept" in failed.output
    job = kube.get("job", model.job, model.namespace)
    assert job["status"].get("failed") == 1, "exit 42 is permanent: no retries (%s)" % job["status"]
    # the verified copy, its marker and the claim's record are exactly as before
    assert open(model.marker_path()).read() == marker_before
    assert files_digest(os.path.join(model.hostpath_dir, "hub")) == files_before
    assert kube.get("pvc", model.pvc, model.namespace)["metadata"]["annotations"][
        "ai-platform.serving/digest"] == first["digest"]
    assert not [name for name in os.listdir(model.hostpath_dir) if name.startswith(".pull-")]
