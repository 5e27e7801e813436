# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A real CNCF distribution registry (Debian ``docker-registry``) on loopback.

TLS from a CA generated per run, htpasswd (bcrypt) auth, a JSON access log and
a byte-counting TCP relay in front of it, so tests can tell exactly
what a client sent; model_sync's variables for it.  Nothing here is mocked: when a binary is missing the
fixture raises, and the test fails.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import socket
import subprocess
import time

from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.relay import Relay

REGISTRY_BIN = os.environ.get("AIPS_REGISTRY_BIN", "docker-registry")


def find_tool(name, env):
    """The executable ``name`` from the environment variable ``env`` or PATH; raises when there is none."""
    path = os.environ.get(env) or shutil.which(name)
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError("%s not found (set %s or put it on PATH: eval \"$(lab/lab env)\"; see "
                           "tests/integration/registry/README.md)" % (name, env))
    return path


def free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def _run(argv, **kwargs):
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kwargs)


def make_ca_and_cert(directory):
    """Create ca.crt and a server certificate for 127.0.0.1/localhost."""
    ca_key = os.path.join(directory, "ca.key")
    ca_crt = os.path.join(directory, "ca.crt")
    key = os.path.join(directory, "server.key")
    csr = os.path.join(directory, "server.csr")
    crt = os.path.join(directory, "server.crt")
    ext = os.path.join(directory, "server.ext")
    # a conformant CA (basicConstraints and keyUsage): Python 3.13 verifies with VERIFY_X509_STRICT, which refuses a
    # CA certificate without keyUsage ("CA cert does not include key usage extension"), as a strict client of a
    # real Harbor would
    _run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
          "-subj", "/CN=aips test CA", "-keyout", ca_key, "-out", ca_crt,
          "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    _run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
          "-keyout", key, "-out", csr])
    with open(ext, "w") as handle:
        handle.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                     "basicConstraints=critical,CA:FALSE\n"
                     "keyUsage=critical,digitalSignature,keyEncipherment\n"
                     "extendedKeyUsage=serverAuth\n")
    _run(["openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key,
          "-CAcreateserial", "-days", "2", "-extfile", ext, "-out", crt])
    return ca_crt, crt, key


class Registry:
    """One docker-registry process with TLS and htpasswd auth."""

    def __init__(self, workdir, user="robot$ci", password=None):
        self.workdir = workdir
        self.user = user
        self.password = password or "s3cr3t-" + os.urandom(6).hex()
        self.port = free_port()
        self.proc = None
        self.relay = None
        self.log_path = os.path.join(workdir, "registry.log")
        self.ca = None

    @property
    def host(self):
        return "127.0.0.1:%d" % self.port

    @property
    def relay_host(self):
        return "127.0.0.1:%d" % self.relay.port

    def start(self):
        if shutil.which(REGISTRY_BIN) is None:
            raise RuntimeError("%s not found: apt-get install docker-registry" % REGISTRY_BIN)
        certs = os.path.join(self.workdir, "certs")
        os.makedirs(certs)
        ca, crt, key = make_ca_and_cert(certs)
        # The CA alone in its own directory: skopeo's --cert-dir would take server.crt/key as a client pair.
        os.makedirs(os.path.join(self.workdir, "ca"))
        self.ca = os.path.join(self.workdir, "ca", "ca.crt")
        shutil.copyfile(ca, self.ca)
        htpasswd = os.path.join(self.workdir, "htpasswd")
        if shutil.which("htpasswd") is None:
            raise RuntimeError("htpasswd not found: apt-get install apache2-utils")
        # bcrypt cost 4: every basic-auth request is checked, keep it cheap in tests (Python 3.13 has no crypt)
        entry = subprocess.run(["htpasswd", "-nbB", "-C", "4", self.user, self.password], check=True,
                               capture_output=True, text=True).stdout.strip()
        with open(htpasswd, "w") as handle:
            handle.write(entry + "\n")
        config = {
            "version": 0.1,
            "log": {"level": "info", "formatter": "json", "accesslog": {"disabled": False}},
            "storage": {"filesystem": {"rootdirectory": os.path.join(self.workdir, "data")},
                        "delete": {"enabled": True}},
            "http": {"addr": self.host, "tls": {"certificate": crt, "key": key}},
            "auth": {"htpasswd": {"realm": "aips-test", "path": htpasswd}},
        }
        config_path = os.path.join(self.workdir, "config.json")
        with open(config_path, "w") as handle:
            json.dump(config, handle)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen([REGISTRY_BIN, "serve", config_path], stdout=log, stderr=log)
        log.close()
        self._wait_ready()
        self.relay = Relay("127.0.0.1", ("127.0.0.1", self.port)).start()
        return self

    def _wait_ready(self, timeout=20.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("registry exited: %s" % self.read_log())
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("registry did not listen on %s" % self.host)

    def read_log(self):
        with open(self.log_path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")

    def log_mark(self):
        return os.path.getsize(self.log_path)

    def requests_since(self, mark):
        """Access-log lines (method, path) written after ``mark``."""
        with open(self.log_path, "rb") as handle:
            handle.seek(mark)
            text = handle.read().decode("utf-8", "replace")
        found = []
        for line in text.splitlines():
            # gorilla's combined log format: ... "PUT /v2/... HTTP/1.1" 201 ...
            if '"' not in line:
                continue
            parts = line.split('"')
            for part in parts:
                words = part.split(" ")
                if len(words) == 3 and words[2].startswith("HTTP/") and words[1].startswith("/v2/"):
                    found.append((words[0], words[1]))
        return found

    def docker_config(self, path, password=None):
        """Write a docker config.json for the registry and its relay."""
        import base64
        token = base64.b64encode(("%s:%s" % (self.user, password or self.password)).encode()).decode()
        hosts = [self.host] + ([self.relay_host] if self.relay else [])
        with open(path, "w") as handle:
            json.dump({"auths": dict((host, {"auth": token}) for host in hosts)}, handle)
        return path

    def stop(self):
        if self.relay:
            self.relay.stop()
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def model_sync_vars(registry, tools, work_dir, lock_file, models, **overrides):
    """Role variables pointing model_sync at ``registry`` (through its byte-counting relay)."""
    variables = dict(
        model_sync_models=models,
        model_sync_registry=registry.relay_host,
        model_sync_lock_registry=HARBOR,
        model_sync_registry_user=registry.user,
        model_sync_registry_token=registry.password,
        model_sync_registry_ca_file=registry.ca,
        model_sync_oras_path=tools["oras"],
        model_sync_work_dir=str(work_dir),
        model_sync_lock_file=str(lock_file),
    )
    variables.update(overrides)
    return variables
