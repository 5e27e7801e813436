"""A second `lab up` on a running lab changes nothing: every daemon keeps its PID."""

import json
import os
import subprocess
import time
from pathlib import Path

from ansible_collections.ai_platform.serving.tests.support.lab import LAB


def _pids(lab_dir):
    return {p.stem: json.loads(p.read_text())["pid"] for p in Path(lab_dir, "run").glob("*.pid")}


def test_second_up_keeps_every_daemon(env):
    before = _pids(env["AIPS_LAB_DIR"])
    subprocess.run([str(LAB), "up"], check=True, capture_output=True,
                   env=dict(os.environ, AIPS_LAB_DIR=env["AIPS_LAB_DIR"]))
    time.sleep(3)  # a daemon that reacts to a rewritten config file exits within this
    assert _pids(env["AIPS_LAB_DIR"]) == before
    status = subprocess.run([str(LAB), "status"], capture_output=True, text=True, check=False,
                            env=dict(os.environ, AIPS_LAB_DIR=env["AIPS_LAB_DIR"]))
    assert status.returncode == 0, status.stdout
