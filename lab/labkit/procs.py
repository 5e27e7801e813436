"""Start and stop the lab's daemons by pidfile. Nothing is ever stopped by name."""

import os
import signal
import subprocess
import time
from pathlib import Path

from . import log


def _pidfile(paths, name):
    return paths.run / f"{name}.pid"


def read_pid(paths, name):
    """The PID the lab recorded for name, if that process is still the one it started."""
    pidfile = _pidfile(paths, name)
    if not pidfile.exists():
        return None
    pid_text, _, exe = pidfile.read_text().partition("\n")
    pid = int(pid_text)
    try:
        running_exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None
    if Path(running_exe.removesuffix(" (deleted)")).name != exe.strip():
        return None  # the PID was reused by another program
    return pid


def start(paths, name, argv, env=None):
    """Start argv in its own session with output to logs/<name>.log, unless already running."""
    if read_pid(paths, name):
        return False
    paths.run.mkdir(parents=True, exist_ok=True)
    paths.logs.mkdir(parents=True, exist_ok=True)
    with open(paths.logs / f"{name}.log", "ab") as out:
        proc = subprocess.Popen([str(a) for a in argv], stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(os.environ, **(env or {})))
    exe = Path(os.path.realpath(argv[0])).name
    _pidfile(paths, name).write_text(f"{proc.pid}\n{exe}\n")
    log.info(f"started {name} (pid {proc.pid})")
    return True


def stop(paths, name, timeout=20):
    """SIGTERM the recorded PID, SIGKILL it after timeout, and remove its pidfile."""
    pid = read_pid(paths, name)
    if pid:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + timeout
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
            while _alive(pid):
                time.sleep(0.1)
        log.info(f"stopped {name} (pid {pid})")
    _pidfile(paths, name).unlink(missing_ok=True)


def _alive(pid):
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    if state == "Z":
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
        return False
    return True


def recorded(paths):
    """Names of all daemons that have a pidfile."""
    if not paths.run.exists():
        return []
    return sorted(p.stem for p in paths.run.glob("*.pid"))
