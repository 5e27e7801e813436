# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Argument specs several modules share, in the way of kubernetes.core's args_common, and the module class they build.

Each builder returns a fresh spec, the shared options first and then the module's own
(``**options``, which may also override a shared one). Each shared set has one doc fragment.
``module_class()`` is the class a module's ``main()`` builds its module with: AnsibleModule in a module process,
the stand-in of plugins/plugin_utils/in_process.py when the module runs in the playbook's process.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.kubernetes.core.plugins.module_utils.args_common import AUTH_ARG_SPEC

# The module class of a module running in the playbook's process (the last one pushed here): plugins/plugin_utils/
# in_process.py pushes it before the module's main() and pops it after; empty in a module process.
MODULE_CLASS = []


def module_class():
    """AnsibleModule, or the stand-in class of a module running in the playbook's process (MODULE_CLASS)."""
    return MODULE_CLASS[-1] if MODULE_CLASS else AnsibleModule


def k8s_auth_argspec(**options):
    """kubernetes.core's connection options (doc fragment kubernetes.core.k8s_auth_options) and ``options``.

    ``kubeconfig`` stays ``no_log`` on every kubernetes.core of the support matrix: 6.2 marks it so,
    6.4+ does not (its own module class masks the values of a kubeconfig dict instead, which these
    modules, plain AnsibleModule, do not get).
    """
    spec = copy.deepcopy(AUTH_ARG_SPEC)
    spec["kubeconfig"]["no_log"] = True
    spec.update(options)
    return spec


def registry_tls_argspec(**options):
    """How a registry's TLS is checked: the CA file and ``validate_certs``, and ``options``.

    Doc fragment ai_platform.serving.registry_tls. ``ca_file`` and ``validate_certs`` are the one name of each
    option in every module (``tls_verify``, image_archive's earlier name, is a deprecated alias until 2.0.0).
    """
    spec = {
        "ca_file": dict(type="path"),
        "validate_certs": dict(type="bool", default=True, aliases=["tls_verify"], deprecated_aliases=[
            dict(name="tls_verify", version="2.0.0", collection_name="ai_platform.serving")]),
    }
    spec.update(options)
    return spec


def registry_auth_argspec(prefix="", **options):
    """Registry user, password (never logged), the TLS options of ``registry_tls_argspec``, and ``options``.

    Doc fragments ai_platform.serving.registry_auth (user, password, without ``prefix``) and
    ai_platform.serving.registry_tls; model_sync, which also takes a Hugging Face token, names the first two
    ``registry_username`` and ``registry_password`` and documents them itself.
    """
    spec = {
        prefix + "username": dict(type="str"),
        prefix + "password": dict(type="str", no_log=True),
    }
    spec.update(registry_tls_argspec())
    spec.update(options)
    return spec


def pull_job_settings_argspec(**options):
    """The pull Job's settings (doc fragment ai_platform.serving.pull_job_settings) and ``options``.

    model_pull_job builds its Job from them and model_storage_state compares them with the Job it finds.
    """
    spec = {
        "concurrency": dict(type="int", default=4),
        "progress_seconds": dict(type="int", default=10),
        "verify": dict(type="bool", default=False),
        "http2": dict(type="bool", default=False),
        "resources": dict(type="dict"),
        "follow_model_affinity": dict(type="bool", default=True),
        "image_pull_policy": dict(type="str", default="IfNotPresent", choices=["Always", "IfNotPresent", "Never"]),
        "run_as_user": dict(type="int", default=65532),
        "active_deadline_seconds": dict(type="int", default=14400),
    }
    spec.update(options)
    return spec


def pull_job_options(params):
    """The pull Job's settings among a module's ``params``, as the Job builders take them (``uid``, not ``run_as_user``)."""
    names = ("concurrency", "progress_seconds", "verify", "http2", "resources", "follow_model_affinity",
             "image_pull_policy", "active_deadline_seconds")
    options = dict((name, params[name]) for name in names)
    options["uid"] = params["run_as_user"]
    return options


def typed(type_name, *names):
    """Options of one ``type_name`` with no default and not required, ``{name: {"type": type_name}}``."""
    return dict((name, dict(type=type_name)) for name in names)


def tool_paths(*tools):
    """The ``<tool>_path`` options: the executable of each CLI tool, found on PATH by default."""
    return dict(("%s_path" % tool, dict(type="path", default=tool)) for tool in tools)
