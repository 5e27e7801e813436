"""The Harbor stand-in: Debian's docker-registry with TLS and htpasswd (bcrypt) auth."""

import base64
import json
import secrets
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request

from . import pki, procs
from .config import HARBOR_HOST, HARBOR_USER, HOST_IP
from .files import write_if_changed


def ensure_credentials(paths):
    """The robot account's token, its bcrypt htpasswd entry and a docker config for the host."""
    paths.etc.mkdir(parents=True, exist_ok=True)
    if not paths.harbor_token.exists():
        paths.harbor_token.write_text(secrets.token_urlsafe(24))
        paths.harbor_token.chmod(0o600)
    token = paths.harbor_token.read_text().strip()
    htpasswd = paths.etc / "htpasswd"
    if not htpasswd.exists():
        entry = subprocess.run(["htpasswd", "-nbB", "-C", "10", HARBOR_USER, token], check=True,
                               capture_output=True, text=True).stdout.strip()
        htpasswd.write_text(entry + "\n")
        htpasswd.chmod(0o600)
    auth = base64.b64encode(f"{HARBOR_USER}:{token}".encode()).decode()
    config = {"auths": {host: {"auth": auth} for host in (HARBOR_HOST, HOST_IP)}}
    write_if_changed(paths.docker_config, json.dumps(config, indent=2), 0o600)
    return token


def trust_dir(paths):
    """A directory holding only the CA, for tools that take a certificate directory."""
    d = paths.pki / "trust"
    d.mkdir(parents=True, exist_ok=True)
    shutil.copy2(paths.ca_cert, d / "ca.crt")
    return d


def write_config(paths):
    crt, key = pki.ensure_cert(paths.pki, "registry", HARBOR_HOST, dns=(HARBOR_HOST,),
                               ips=(HOST_IP, "127.0.0.1"))
    config = {
        "version": 0.1,
        "log": {"level": "info", "accesslog": {"disabled": False}},
        "storage": {"filesystem": {"rootdirectory": str(paths.data / "registry")},
                    "delete": {"enabled": True}},
        "http": {"addr": f"{HOST_IP}:443", "tls": {"certificate": str(crt), "key": str(key)},
                 "debug": {"addr": "127.0.0.1:5001"}},
        "auth": {"htpasswd": {"realm": "lab-harbor", "path": str(paths.etc / "htpasswd")}},
    }
    path = paths.etc / "registry.json"
    write_if_changed(path, json.dumps(config, indent=2))
    return path


def start(paths):
    procs.start(paths, "registry", ["/usr/bin/docker-registry", "serve", write_config(paths)])
    wait_ready(paths)


def wait_ready(paths, timeout=30):
    """The registry answers /v2/ with 401 to an anonymous client once it serves TLS."""
    ctx = ssl.create_default_context(cafile=str(paths.ca_cert))
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"https://{HARBOR_HOST}/v2/", context=ctx, timeout=2)
            raise RuntimeError("registry accepted an anonymous request: auth is not on")
        except urllib.error.HTTPError as err:
            if err.code == 401:
                return
            raise
        except (urllib.error.URLError, ConnectionError):
            if time.monotonic() > deadline:
                raise RuntimeError(f"registry not ready; see {paths.logs / 'registry.log'}")
            time.sleep(0.3)
