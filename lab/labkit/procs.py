"""Start and stop the lab's daemons by pidfile. Nothing is ever stopped by name."""

import json
import os
import signal
import subprocess
import time
from pathlib import Path

from . import log


def _pidfile(paths, name):
    return paths.run / f"{name}.pid"


def _record(paths, name):
    """(pid, executable name, argv) from the pidfile, or None."""
    pidfile = _pidfile(paths, name)
    if not pidfile.exists():
        return None
    record = json.loads(pidfile.read_text())
    return record["pid"], record["exe"], record["argv"]


def read_pid(paths, name):
    """The PID the lab recorded for name, if that process is still the one it started."""
    record = _record(paths, name)
    if not record:
        return None
    pid, exe, _ = record
    try:
        running_exe = os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None
    if Path(running_exe.removesuffix(" (deleted)")).name != exe:
        return None  # the PID was reused by another program
    return pid


def start(paths, name, argv, env=None):
    """Start argv in its own session with output to logs/<name>.log.

    A daemon already running with the same command line is left alone; one running with
    another command line (its configuration changed) is restarted.
    """
    argv = [str(a) for a in argv]
    if read_pid(paths, name):
        if _record(paths, name)[2] == argv:
            return False
        log.info(f"{name}: command line changed, restarting")
        stop(paths, name)
    paths.run.mkdir(parents=True, exist_ok=True)
    paths.logs.mkdir(parents=True, exist_ok=True)
    with open(paths.logs / f"{name}.log", "ab") as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                env=dict(os.environ, **(env or {})))
    exe = Path(os.path.realpath(argv[0])).name
    _pidfile(paths, name).write_text(json.dumps({"pid": proc.pid, "exe": exe, "argv": argv}))
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
