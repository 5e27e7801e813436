# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The shared argument specs: one TLS option name, the old one a deprecated alias."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.ai_platform.serving.plugins.module_utils import args_common
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync

DEPRECATED_ALIAS = dict(name="tls_verify", version="2.0.0", collection_name="ai_platform.serving")


def test_registry_auth_carries_the_one_tls_option():
    spec = args_common.registry_auth_argspec("registry_", verify=dict(type="bool"))
    assert sorted(spec) == ["ca_file", "registry_password", "registry_username", "validate_certs", "verify"]
    assert spec["validate_certs"] == dict(type="bool", default=True, aliases=["tls_verify"],
                                          deprecated_aliases=[DEPRECATED_ALIAS])
    assert spec["registry_password"]["no_log"] is True


def test_each_call_returns_a_fresh_spec():
    first = args_common.registry_tls_argspec()
    first["validate_certs"]["aliases"].append("x")
    assert args_common.registry_tls_argspec()["validate_certs"]["aliases"] == ["tls_verify"]


def test_the_old_tls_name_still_works_and_is_deprecated():
    old = ArgumentSpecValidator(args_common.registry_tls_argspec()).validate({"tls_verify": False})
    assert old.error_messages == [] and old.validated_parameters["validate_certs"] is False
    assert [(d["msg"], d["version"], d["collection_name"]) for d in old._deprecations] == [
        ("Alias 'tls_verify' is deprecated. See the module docs for more information", "2.0.0", "ai_platform.serving")]
    new = ArgumentSpecValidator(args_common.registry_tls_argspec()).validate({"validate_certs": False})
    assert new.validated_parameters["validate_certs"] is False and new._deprecations == []


def test_model_sync_insecure_is_deprecated_for_validate_certs():
    """``insecure`` means the opposite of ``validate_certs``, so it cannot be its alias: a deprecated option."""
    base = {"repo_id": "o/m", "revision": "main", "reference": "h/p/m:v1"}
    old = ArgumentSpecValidator(model_sync.argspec()).validate(dict(base, insecure=True))
    assert old.error_messages == [] and old.validated_parameters["insecure"] is True
    assert [(d["version"], d["collection_name"]) for d in old._deprecations] == [("2.0.0", "ai_platform.serving")]
    assert "insecure" in old._deprecations[0]["msg"]
    assert ArgumentSpecValidator(model_sync.argspec()).validate(dict(base, validate_certs=False))._deprecations == []


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
