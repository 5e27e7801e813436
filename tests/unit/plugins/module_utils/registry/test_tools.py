# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""References, private auth files, error messages."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json
import os
import stat

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import tools as registry

DIGEST = "sha256:" + "e" * 64


def test_parse_and_pin():
    ref = registry.parse_reference("127.0.0.1:5000/ai-models/minilm:v1")
    assert ref == registry.Reference("127.0.0.1:5000", "ai-models/minilm", "v1", None)
    assert registry.pinned("harbor.example/ai-models/minilm:v1", DIGEST) == "harbor.example/ai-models/minilm@" + DIGEST


@pytest.mark.parametrize("bad", ["minilm:v1", "harbor/UPPER/x:v1", "", None])
def test_parse_rejects(bad):
    with pytest.raises(registry.RegistryError):
        registry.parse_reference(bad)


def test_go_tools_are_kept_on_http1_and_other_godebug_settings_stay():
    assert registry.go_http1_env({"PATH": "/bin"}) == {"PATH": "/bin", "GODEBUG": "http2client=0"}
    assert registry.go_http1_env({"GODEBUG": "madvdontneed=1"})["GODEBUG"] == "madvdontneed=1,http2client=0"
    # a user who chose HTTP/2 keeps it
    assert registry.go_http1_env({"GODEBUG": "http2client=1,x=2"})["GODEBUG"] == "http2client=1,x=2"
    assert registry.go_http1_env()["GODEBUG"].endswith("http2client=0") or "http2client=" in os.environ.get(
        "GODEBUG", "")


def test_redact():
    assert registry.redact("pw=hunter2 again hunter2", ["hunter2", None, ""]) == "pw=******** again ********"
    assert registry.redact(None, ["x"]) is None


def test_docker_config_skips_incomplete_credentials():
    config = registry.docker_config({"r1": ("robot$a", "tok"), "r2": ("u", None), "r3": (None, None)})
    assert list(config["auths"]) == ["r1"]
    assert base64.b64decode(config["auths"]["r1"]["auth"]).decode() == "robot$a:tok"


def test_auth_dir_is_private_and_removed(tmp_path):
    ca = tmp_path / "ca.pem"
    ca.write_text("CA")
    with registry.AuthDir({"r": ("u", "p")}, str(ca)) as auth:
        assert stat.S_IMODE(os.stat(auth.path).st_mode) == 0o700
        assert stat.S_IMODE(os.stat(auth.config).st_mode) == 0o600
        assert json.load(open(auth.config))["auths"]["r"]
        assert open(os.path.join(auth.cert_dir, "ca.crt")).read() == "CA"
        path = auth.path
    assert not os.path.exists(path)


@pytest.mark.parametrize("output,expect", [
    ('Error response from registry: unauthorized: authentication required', "rejected the credentials of user 'robot$x'"),
    ("response status code 401: Unauthorized", "rejected the credentials"),
    ("tls: failed to verify certificate: x509: certificate signed by unknown authority", "TLS verification"),
    ("dial tcp 127.0.0.1:1: connect: connection refused", "unreachable"),
    ("denied: requested access to the resource is denied", "denied the request of user 'robot$x' (HTTP 403)"),
    ("something else\nlast line", "oras failed against registry reg:5000: last line"),
    ("", "no output")])
def test_explain_failure_names_the_registry(output, expect):
    message = registry.explain_failure("oras", "reg:5000", "robot$x", output)
    assert expect in message and "reg:5000" in message


def test_explain_failure_without_user():
    assert "(none were given)" in registry.explain_failure("oras", "r", None, "401")


@pytest.mark.parametrize("output,found", [
    ('failed to fetch "r/p/nope:1": r/p/nope:1: not found', True), ("manifest unknown", True),
    ('{"errors":[{"code":"NOT_FOUND","message":"artifact not found"}]}', True),
    ("unauthorized: authentication required ... not found", False), ("connection refused", False)])
def test_is_not_found(output, found):
    assert registry.is_not_found(output) is found


def test_redact_catches_the_base64_forms_it_claims():
    import base64
    auth = base64.b64encode(b"robot$pusher:s3cr3t-token").decode()
    plain = base64.b64encode(b"s3cr3t-token").decode()
    text = 'config {"auth": "%s"} header Basic %s raw s3cr3t-token b64 %s unpadded %s' % (
        auth, auth, plain, plain.rstrip("="))
    out = registry.redact(text, ["s3cr3t-token"], ["robot$pusher"])
    assert "s3cr3t-token" not in out and auth not in out and plain.rstrip("=") not in out
    assert out.count("********") == 5
    # the docker config this module writes is redacted whole
    config = json.dumps(registry.docker_config({"h": ("robot$pusher", "s3cr3t-token")}))
    assert registry.redact(config, ["s3cr3t-token"], ["robot$pusher"]) == '{"auths": {"h": {"auth": "********"}}}'
