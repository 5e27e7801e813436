# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A recording HTTPS stand-in of the two Harbor v2.0 calls the harbor_project module makes.

Harbor cannot run on the project's machines. This server (with the test registry's certificate)
answers ``HEAD /api/v2.0/projects?project_name=`` and ``POST /api/v2.0/projects`` with basic auth
of ``admin``/``ADMIN_PASSWORD`` and records every request; ``images-infra`` exists from the start.
The request shapes themselves are pinned by tests/unit/plugins/module_utils/registry/test_harbor.py.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

ADMIN_PASSWORD = "Harbor-" + os.urandom(6).hex()


class FakeHarbor:
    def __init__(self, certs_dir):
        self.projects = {"images-infra"}
        self.requests = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _auth_ok(self):
                expected = "Basic " + base64.b64encode(("admin:" + ADMIN_PASSWORD).encode()).decode()
                return self.headers.get("Authorization") == expected

            def _reply(self, status, body=b""):
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_HEAD(self):
                url = urlparse(self.path)
                fake.requests.append(("HEAD", url.path, None))
                if not self._auth_ok():
                    return self._reply(401)
                name = parse_qs(url.query).get("project_name", [""])[0]
                return self._reply(200 if name in fake.projects else 404)

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(("POST", self.path, body))
                if not self._auth_ok():
                    return self._reply(401)
                fake.projects.add(body["project_name"])
                return self._reply(201)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(certs_dir, "server.crt"), os.path.join(certs_dir, "server.key"))
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def url(self):
        return "https://127.0.0.1:%d" % self.server.server_address[1]

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
