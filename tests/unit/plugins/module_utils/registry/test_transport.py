# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one registry HTTP transport: redirects, credentials on redirects, errors, on a scripted open_url."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from urllib.error import HTTPError, URLError

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import transport


class _Response(object):
    def __init__(self, code, headers, body=b""):
        self.code, self.headers, self.body = code, headers, body

    def getcode(self):
        return self.code

    def read(self):
        return self.body


def test_redirect_to_another_host_drops_the_credentials():
    seen = []

    def opener(url, method=None, headers=None, **_kwargs):
        seen.append((url, dict(headers)))
        if url.startswith("https://harbor.example/v2/"):
            raise HTTPError(url, 307, "redirect", {"Location": "https://blobs.example/x?sig=1"}, None)
        if url.startswith("https://blobs.example/"):
            return _Response(200, {"Content-Type": "application/json"}, b"{}")
        raise AssertionError(url)

    send = transport.open_url_transport(opener=opener)
    status, _headers, body = send("GET", "https://harbor.example/v2/p/m/manifests/v1",
                                  {"Authorization": "Bearer t0ken", "Accept": "x"})
    assert status == 200 and body == b"{}"
    assert seen[0][1]["Authorization"] == "Bearer t0ken"
    assert "Authorization" not in seen[1][1] and seen[1][1]["Accept"] == "x"


def test_redirect_on_the_same_host_keeps_them():
    headers = {"Authorization": "Basic x", "Accept": "y"}
    kept = transport.redirect_headers("https://h:443/v2/a", "https://h:443/v2/b", headers)
    assert kept == headers
    assert "Authorization" not in transport.redirect_headers("https://h/v2/a", "http://h/v2/a", headers)


def test_harbor_mode_returns_a_redirect_and_sends_the_body():
    seen = []

    def opener(url, method=None, headers=None, data=None, **_kwargs):
        seen.append((method, url, data))
        raise HTTPError(url, 302, "found", {"Location": "https://elsewhere.example/"}, None)

    send = transport.open_url_transport(follow_redirects=False, opener=opener)
    status, headers, _body = send("POST", "https://harbor.example/api/v2.0/projects", {}, b"{}")
    assert status == 302 and transport.header(headers, "location") == "https://elsewhere.example/"
    assert seen == [("POST", "https://harbor.example/api/v2.0/projects", b"{}")]


def test_unreachable_host_names_only_the_host():
    def opener(url, **_kwargs):
        raise URLError("connection refused")

    send = transport.open_url_transport(opener=opener)
    with pytest.raises(transport.TransportError, match=r"^cannot reach https://h\.example: connection refused$"):
        send("GET", "https://h.example/v2/p/m/manifests/v1?sig=secret", {})


def test_basic_auth():
    assert transport.basic_auth("admin", "Harbor12345") == "Basic YWRtaW46SGFyYm9yMTIzNDU="
