"""`lab down` stops everything the lab started and undoes its host changes.

Stops the lab: runs only with AIPS_LAB_DOWN_TEST=1, after every other lab test (conftest).
"""

import os
import subprocess
from pathlib import Path

from ansible_collections.ai_platform.serving.tests.support.lab import LAB


def _processes_using(dirs):
    """Processes run from, or naming, the lab's directories, and every pod process."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit() or int(proc.name) == os.getpid():
            continue
        try:
            exe = os.readlink(proc / "exe")
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            in_pod = "/kubepods" in (proc / "cgroup").read_text()
        except OSError:
            continue
        if in_pod or any(exe.startswith(d) or d in cmdline for d in dirs):
            found.append(f"{proc.name}: {cmdline}")
    return found


def _lab_iptables_chains():
    found = []
    for tool in ("iptables", "ip6tables"):
        for table in ("filter", "nat", "mangle"):
            rules = subprocess.run([tool, "-w", "-t", table, "-S"], check=True,
                                   capture_output=True, text=True).stdout.splitlines()
            found += [f"{tool} {table}: {r}" for r in rules if "KUBE-" in r or "AIPS-LAB" in r]
    return found


def test_lab_down_leaves_nothing_running(env):
    lab_dir = env["AIPS_LAB_DIR"]
    cache_dir = str(Path(os.environ.get("AIPS_LAB_CACHE",
                                        Path.home() / ".cache/ai-platform-serving-lab")).resolve())
    assert _processes_using([lab_dir]), "expected running lab processes before down"
    subprocess.run([str(LAB), "down"], check=True)
    assert _processes_using([lab_dir, cache_dir]) == []
    assert not list(Path(lab_dir, "run").glob("*.pid"))
    mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    assert [m for m in mounts if m.startswith(lab_dir)] == []
    link = subprocess.run(["ip", "link", "show", "aipslab0"], capture_output=True, check=False)
    assert link.returncode != 0
    assert "ai-platform-serving-lab" not in Path("/etc/hosts").read_text()
    assert _lab_iptables_chains() == []
    assert list(Path("/sys/fs/cgroup").glob("*/kubepods")) == []
    status = subprocess.run([str(LAB), "status"], capture_output=True, text=True, check=False)
    assert status.returncode != 0 and "NOT RUNNING" in status.stdout
