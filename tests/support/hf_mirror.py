# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Hugging Face mirror stand-in on loopback, serving one repo from a plain directory.

It answers the few endpoints huggingface_hub's snapshot_download uses (repo info,
tree listing, resolve) and redirects LFS files to a second server on another port
(as the Hub does to its CDN), and records every request with its Authorization
header, so tests can see where a token went.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib
import json
import os
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlparse

LFS_SUFFIXES = (".safetensors", ".bin", ".pt", ".onnx", ".h5")


def _git_blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()  # nosec - git object id


class _Server(ThreadingHTTPServer):
    daemon_threads = True


class Mirror:
    def __init__(self, model_dir, repo_id, commit):
        self.repo_id = repo_id
        self.commit = commit
        self.files = {}
        for current, _dirs, names in os.walk(model_dir):
            for name in names:
                path = os.path.join(current, name)
                rel = os.path.relpath(path, model_dir).replace(os.sep, "/")
                with open(path, "rb") as handle:
                    data = handle.read()
                lfs = rel.endswith(LFS_SUFFIXES)
                self.files[rel] = dict(path=path, size=len(data), blob=_git_blob_id(data), lfs=lfs,
                                       sha256=hashlib.sha256(data).hexdigest())
        self.requests = []  # (server, method, path, authorization or None)
        self.hub = _Server(("127.0.0.1", 0), self._handler("hub"))
        self.cdn = _Server(("127.0.0.1", 0), self._handler("cdn"))

    @property
    def endpoint(self):
        return "http://127.0.0.1:%d" % self.hub.server_address[1]

    def start(self):
        for server in (self.hub, self.cdn):
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def stop(self):
        for server in (self.hub, self.cdn):
            server.shutdown()
            server.server_close()

    def tree(self):
        entries = []
        for rel, meta in sorted(self.files.items()):
            entry = {"type": "file", "path": rel, "size": meta["size"], "oid": meta["blob"]}
            if meta["lfs"]:
                entry["lfs"] = {"oid": meta["sha256"], "size": meta["size"], "pointerSize": 134}
            entries.append(entry)
        return entries

    def _handler(self, role):
        mirror = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_HEAD(self):
                self._serve(body=False)

            def do_GET(self):
                self._serve(body=True)

            def _json(self, payload):
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _file(self, meta, body, extra=None):
                self.send_response(200)
                self.send_header("Content-Length", str(meta["size"]))
                self.send_header("Content-Type", "application/octet-stream")
                for key, value in (extra or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                if body:
                    with open(meta["path"], "rb") as handle:
                        shutil.copyfileobj(handle, self.wfile, 1 << 20)

            def _serve(self, body):
                url = urlparse(self.path)
                path = unquote(url.path)
                mirror.requests.append((role, self.command, path, self.headers.get("Authorization")))
                repo = "/" + mirror.repo_id
                if role == "cdn":
                    meta = mirror.files.get(path.lstrip("/"))
                    return self._file(meta, body) if meta else self.send_error(404)
                if path.startswith("/api/models%s/revision/" % repo):
                    return self._json({"id": mirror.repo_id, "sha": mirror.commit,
                                       "siblings": [{"rfilename": f} for f in sorted(mirror.files)]})
                if path.startswith("/api/models%s/tree/" % repo):
                    return self._json(mirror.tree())
                prefix = "%s/resolve/" % repo
                if path.startswith(prefix):
                    _rev, rel = path[len(prefix):].split("/", 1)
                    meta = mirror.files.get(rel)
                    if meta is None:
                        return self.send_error(404)
                    headers = {"X-Repo-Commit": mirror.commit}
                    if meta["lfs"]:
                        headers.update({"X-Linked-Etag": '"%s"' % meta["sha256"], "X-Linked-Size": str(meta["size"]),
                                        "ETag": '"%s"' % meta["blob"],
                                        "Location": "http://127.0.0.1:%d/%s" % (mirror.cdn.server_address[1], rel)})
                        self.send_response(302)
                        for key, value in headers.items():
                            self.send_header(key, value)
                        self.send_header("Content-Length", "0")
                        self.end_headers()
                        return None
                    headers["ETag"] = '"%s"' % meta["blob"]
                    return self._file(meta, body, headers)
                return self.send_error(404)

        return Handler
