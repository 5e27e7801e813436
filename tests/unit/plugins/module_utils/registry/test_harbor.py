# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The Harbor v2.0 requests, checked against a recorded transport (Harbor cannot run here)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import harbor as harbor_api


class Recorder:
    """Answers from a script of (status, body) and records every request."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def __call__(self, method, url, headers, data):
        self.requests.append((method, url, headers, json.loads(data) if data else None))
        status, body = self.answers.pop(0)
        return status, {}, body


def harbor(recorder):
    return harbor_api.Harbor("https://harbor.example/", "admin", "Harbor12345", recorder)


def test_existing_project_sends_only_a_head():
    rec = Recorder((200, b""))
    assert harbor(rec).ensure_project("ai-models") is False
    assert [(m, u) for m, u, _h, _d in rec.requests] == [
        ("HEAD", "https://harbor.example/api/v2.0/projects?project_name=ai-models")]
    headers = rec.requests[0][2]
    assert headers["Authorization"] == "Basic " + base64.b64encode(b"admin:Harbor12345").decode()


def test_missing_project_is_created_private():
    rec = Recorder((404, b""), (201, b""))
    assert harbor(rec).ensure_project("images-infra", storage_limit=-1) is True
    method, url, headers, body = rec.requests[1]
    assert (method, url) == ("POST", "https://harbor.example/api/v2.0/projects")
    assert headers["Content-Type"] == "application/json"
    assert body == {"project_name": "images-infra", "metadata": {"public": "false"}, "storage_limit": -1}


def test_public_project_body():
    assert harbor_api.project_create_request("p", public=True)[2] == {"project_name": "p", "metadata": {"public": "true"}}


def test_check_mode_creates_nothing():
    rec = Recorder((404, b""))
    assert harbor(rec).ensure_project("charts", check_mode=True) is True
    assert [m for m, _u, _h, _d in rec.requests] == ["HEAD"]


def test_conflict_means_someone_else_created_it():
    assert harbor(Recorder((404, b""), (409, b"conflict"))).ensure_project("p") is False


def test_project_name_is_quoted():
    assert harbor_api.project_exists_request("a b&c")[1] == "/api/v2.0/projects?project_name=a%20b%26c"


@pytest.mark.parametrize("answers,message", [
    ([(401, b"")], "rejected the credentials"),
    ([(403, b"")], "may not HEAD"),
    ([(500, b"")], "answered HTTP 500"),
    ([(404, b""), (400, b"bad name")], "refused to create project p: HTTP 400 bad name"),
])
def test_errors_are_clear_and_keep_the_password_out(answers, message):
    with pytest.raises(harbor_api.HarborError) as err:
        harbor(Recorder(*answers)).ensure_project("p")
    assert message in str(err.value) and "harbor.example" in str(err.value)
    assert "Harbor12345" not in str(err.value)
