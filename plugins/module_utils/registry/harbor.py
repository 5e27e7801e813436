# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The few Harbor v2.0 API calls the collection makes: does a project exist, create it.

Harbor itself cannot run on the project's machines; these requests are checked by
unit tests against a recorded transport (tests/unit/plugins/module_utils/registry/test_harbor.py).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json

from urllib.parse import quote

from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import basic_auth

API = "/api/v2.0"


class HarborError(Exception):
    """A Harbor API call failed; the message is safe to show."""


def project_exists_request(name):
    return "HEAD", "%s/projects?project_name=%s" % (API, quote(name, safe="")), None


def project_create_request(name, public=False, storage_limit=None):
    body = {"project_name": name, "metadata": {"public": "true" if public else "false"}}
    if storage_limit is not None:
        body["storage_limit"] = int(storage_limit)
    return "POST", "%s/projects" % API, body


class Harbor:
    """Harbor API over a transport ``send(method, url, headers, data) -> (status, headers, body bytes)``
    (transport.open_url_transport with follow_redirects=False)."""

    def __init__(self, url, user, password, send):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": basic_auth(user, password), "Accept": "application/json"}
        self.send = send

    def call(self, request):
        method, path, body = request
        headers = dict(self.headers)
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body, sort_keys=True).encode("utf-8")
        status, _headers, payload = self.send(method, self.url + path, headers, data)
        if status == 401:
            raise HarborError("Harbor %s rejected the credentials (HTTP 401): check the robot/user token" % self.url)
        if status == 403:
            raise HarborError("Harbor %s: the account may not %s %s (HTTP 403)" % (self.url, method, path))
        return status, payload

    def project_exists(self, name):
        status, _payload = self.call(project_exists_request(name))
        if status == 200:
            return True
        if status == 404:
            return False
        raise HarborError("Harbor %s answered HTTP %s when asked for project %s" % (self.url, status, name))

    def ensure_project(self, name, public=False, storage_limit=None, check_mode=False):
        """Create the project when missing; return True when it was (or would be) created."""
        if self.project_exists(name):
            return False
        if check_mode:
            return True
        status, payload = self.call(project_create_request(name, public, storage_limit))
        if status in (201, 409):  # 409: created meanwhile by someone else
            return status == 201
        raise HarborError("Harbor %s refused to create project %s: HTTP %s %s"
                          % (self.url, name, status, payload[:200].decode("utf-8", "replace")))
