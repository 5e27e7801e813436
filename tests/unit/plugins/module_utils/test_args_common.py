# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared argument specs: one TLS option name, the old one an alias."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils import args_common


def test_registry_auth_carries_the_one_tls_option():
    spec = args_common.registry_auth_argspec("registry_", verify=dict(type="bool"))
    assert sorted(spec) == ["ca_file", "registry_password", "registry_username", "validate_certs", "verify"]
    assert spec["validate_certs"] == dict(type="bool", default=True, aliases=["tls_verify"])
    assert spec["registry_password"]["no_log"] is True


def test_each_call_returns_a_fresh_spec():
    first = args_common.registry_tls_argspec()
    first["validate_certs"]["aliases"].append("x")
    assert args_common.registry_tls_argspec()["validate_certs"]["aliases"] == ["tls_verify"]


def test_typed_options_and_tool_paths():
    assert args_common.typed("str", "name", "image") == {"name": {"type": "str"}, "image": {"type": "str"}}
    assert args_common.tool_paths("skopeo", "helm") == {
        "skopeo_path": {"type": "path", "default": "skopeo"}, "helm_path": {"type": "path", "default": "helm"}}


def test_pull_job_settings_are_one_spec_and_map_to_the_job_options():
    spec = args_common.pull_job_settings_argspec(record=dict(type="dict", required=True))
    assert spec["record"] == dict(type="dict", required=True)
    assert spec["run_as_user"] == dict(type="int", default=65532)
    params = dict((name, option.get("default")) for name, option in spec.items())
    options = args_common.pull_job_options(params)
    assert options["uid"] == 65532 and "run_as_user" not in options and "record" not in options
    assert sorted(options) == ["active_deadline_seconds", "concurrency", "follow_model_affinity", "http2",
                               "image_pull_policy", "progress_seconds", "resources", "uid", "verify"]
