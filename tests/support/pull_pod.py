# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pull Job's script run as its pod runs it, without a cluster: busybox sh (the ORAS image's shell), the
real oras CLI on PATH, the claim a directory, the registry one on loopback (tests/support/registry.py).

Used by the registry tests (tests/integration/registry/test_registry_modelpack.py) and the artifact format
benchmark (benchmarks/artifact_format.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import collections
import os
import shutil
import subprocess
import time

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry_tools
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker, pull_script

PullRun = collections.namedtuple("PullRun", "hub marker seconds output")


class PullScriptFailed(RuntimeError):
    pass


def run_pull_script(registry, oras, workdir, reference, digest, repo_folder, concurrency=4, verify=False,
                    http2=False):
    """Pull ``reference`` pinned to ``digest`` into ``workdir``/model-cache as the pull Job does (its env, as
    storage/manifests.py's job_manifest sets it; by default as the Job runs by default: no re-hash, oras on
    HTTP/1.1). Returns a PullRun: the hub directory, the parsed marker, the script's wall time and its output;
    raises PullScriptFailed with the output when the script fails."""
    busybox = shutil.which("busybox")
    if not busybox:
        raise RuntimeError("busybox is needed to run the pull script as the ORAS image does (apt-get install busybox-static)")
    bindir = os.path.join(workdir, "bin")
    os.makedirs(bindir, exist_ok=True)
    if not os.path.exists(os.path.join(bindir, "oras")):
        os.symlink(oras, os.path.join(bindir, "oras"))
    cache = os.path.join(workdir, "model-cache")
    os.makedirs(os.path.join(cache, "hub"), exist_ok=True)
    scratch = os.path.join(workdir, "scratch")
    os.makedirs(scratch, exist_ok=True)
    env = {"PATH": "%s:%s" % (bindir, os.environ["PATH"]), "HOME": scratch, "TMPDIR": scratch,
           "SSL_CERT_FILE": registry.ca, "AIPS_REGISTRY_CONFIG": registry.docker_config(os.path.join(workdir, "auth.json")),
           "AIPS_CACHE_DIR": cache, "AIPS_WORKING_DIR": os.path.join(cache, "hub"),
           "AIPS_MARKER": os.path.join(cache, ".pulled"), "AIPS_DIGEST": digest,
           "AIPS_PINNED_REFERENCE": "%s@%s" % (reference.rsplit(":", 1)[0], digest),
           "AIPS_SOURCE_REFERENCE": reference, "AIPS_REPO_FOLDER": repo_folder, "AIPS_CONCURRENCY": str(concurrency),
           "AIPS_VERIFY": "1" if verify else "0", "AIPS_TERMINATION_LOG": os.path.join(workdir, "termination-log")}
    if not http2:
        env["GODEBUG"] = registry_tools.GO_HTTP1
    started = time.monotonic()
    proc = subprocess.run([busybox, "sh", "-c", pull_script.PULL_SCRIPT], cwd=cache, env=env,
                          capture_output=True, text=True, check=False)
    seconds = time.monotonic() - started
    if proc.returncode != 0:
        raise PullScriptFailed("the pull script exited %d:\n%s%s" % (proc.returncode, proc.stdout, proc.stderr))
    with open(os.path.join(cache, ".pulled")) as handle:
        marker = pull_marker.parse_marker(handle.read())
    return PullRun(os.path.join(cache, "hub"), marker, seconds, proc.stdout + proc.stderr)
