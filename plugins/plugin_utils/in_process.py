# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The collection's modules run in the playbook's own process when they would run on this machine as this user anyway.

Every cluster module of the collection (``module_utils/k8s/runner.py:run_module``) runs on the host that holds the
kubeconfig, which is the controller in every playbook of the collection (``hosts: controller``, a local
connection). Run as a module, each call starts a Python process that imports the kubernetes client again: about
1.2 s per call on the lab machine, most of a no-op ``site.yml``. The action plugin of the same name runs the
module's own ``main()`` in the playbook's process instead: this file's action module is imported by the playbook's
main process when the task is queued (with the kubernetes client), so each task's worker inherits the import; the
call then costs what the API requests cost (about 0.15 s against 1.2 s for a namespace list, measured 2026-12-06).

The registry modules (chart_archive, image_archive, harbor_project: helm, skopeo and the Harbor API), the node
directories (model_cache_dirs, in-process where the node is this machine over a local connection, as the lab's is)
and the lock file (model_sync_lock) run the same way: their ``main()`` builds its module from
``module_utils/args_common.py:module_class``, and none of them changes the working directory, the environment,
signal handlers or a module-level cache, nor exits the process; their tools run as child processes either way.
(``ansible.module_utils.urls.open_url``, which harbor_project and model_storage_state's artifact reads use, installs
its opener process-wide; each call installs its own before it reads, and a task's worker process ends with the task.)
model_sync stays a module process: it sets ``HF_HUB_DISABLE_PROGRESS_BARS`` in its environment.

Same module, same behaviour: the options are validated against the module's argument spec as AnsibleModule
does (aliases, defaults, choices, no_log values masked in the result), check mode and diff are the task's,
``exit_json``/``fail_json`` end the call with the module's result, a crash fails the task with its traceback.

The module runs as a module process, as before, whenever in-process would not be the same thing: a connection
that is not local, ``become``, a task ``environment``, or (for a cluster module) a controller Python without the
kubernetes client.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import importlib
import json
import os
import subprocess
import traceback

from ansible import constants as C
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator
from ansible.module_utils.common.parameters import remove_values
from ansible.module_utils.common.text.converters import to_text
from ansible.module_utils.errors import UnsupportedError
from ansible.plugins.action import ActionBase

from ansible_collections.ai_platform.serving.plugins.module_utils.k8s import runner

try:  # imported here so that the playbook's main process holds them and every task's worker inherits them
    import kubernetes.dynamic  # noqa: F401  pylint: disable=unused-import
    from ansible_collections.kubernetes.core.plugins.module_utils.k8s import client as _k8s_client  # noqa: F401
    HAS_KUBERNETES = True
except ImportError:
    HAS_KUBERNETES = False


class ModuleExit(Exception):
    """``exit_json``/``fail_json`` of a module running in-process: carries its result."""

    def __init__(self, result):
        super(ModuleExit, self).__init__(result.get("msg", ""))
        self.result = result


class ControllerModule(AnsibleModule):
    """What AnsibleModule gives the collection's modules (``run_module`` wraps it in kubernetes.core's
    AnsibleK8SModule), for a module running in the playbook's process. Built by the module's ``main()`` with its
    argument spec (``args_common.module_class``); the task's arguments, check mode and diff come from the action
    (``bind``). AnsibleModule's own ``__init__`` is not run (it reads the arguments from stdin, checks the locale and
    may change the working directory); what its file helpers read is set here, so ``set_mode_if_different`` and the
    other owner, group and SELinux helpers model_cache_dirs uses are AnsibleModule's own code."""

    masked = set()  # the no_log values of the module running now
    _task = ("", {}, False, False)  # (name, args, check_mode, diff) of the running action, set by bind()

    @classmethod
    def bind(cls, name, args, check_mode, diff):
        cls._task = (name, args, check_mode, diff)

    def __init__(self, argument_spec, supports_check_mode=False, **constraints):
        name, args, check_mode, diff = self._task
        self._name = name
        self.check_mode = check_mode
        self._diff = diff
        self.warnings, self.deprecations = [], []
        # what AnsibleModule's file and SELinux helpers read (its __init__ sets them; the action passes the special
        # file systems as _ansible_selinux_special_fs)
        self._selinux_enabled = self._selinux_mls_enabled = self._selinux_initial_context = None
        self._selinux_special_fs = list(C.DEFAULT_SELINUX_SPECIAL_FS or [])
        validator = ArgumentSpecValidator(argument_spec, **constraints)
        validated = validator.validate(dict(args))
        self.params = validated.validated_parameters
        self.no_log_values = set(validated._no_log_values)
        ControllerModule.masked = self.no_log_values  # a crash's message is masked with them too (run_in_process)
        self.warnings.extend(w["warning"] for w in validated._warnings)
        self.deprecations.extend(validated._deprecations)
        if validated.error_messages:  # the first error, worded as AnsibleModule words it
            error = validated.errors.errors[0]
            msg = error.args[0] if error.args else str(error)
            if isinstance(error, UnsupportedError):
                msg = "Unsupported parameters for (%s) module: %s" % (name, msg)
            self.fail_json(msg=msg)
        if check_mode and not supports_check_mode:
            self.exit_json(skipped=True, msg="remote module (%s) does not support check mode" % name)

    def warn(self, warning):
        self.warnings.append(warning)

    def deprecate(self, msg, version=None, date=None, collection_name=None):
        self.deprecations.append(dict(msg=msg, version=version, date=date, collection_name=collection_name))

    def debug(self, msg):
        del msg  # AnsibleModule logs it to syslog/journal with ANSIBLE_DEBUG; nothing here

    def run_command(self, args, check_rc=False, data=None, environ_update=None, cwd=None, binary_data=False,
                    expand_user_and_vars=True, encoding="utf-8", errors="surrogate_or_strict"):
        """AnsibleModule.run_command for an argument list (the only form the collection uses): (rc, stdout,
        stderr) as text; ``~`` and ``$VARS`` in the arguments expanded as it does by default."""
        del errors  # decoding is done with "surrogateescape", which takes every byte as AnsibleModule does
        if isinstance(args, (str, bytes)):
            raise TypeError("run_command in the playbook's process takes an argument list, not %r" % (args,))
        argv = [str(arg) for arg in args]
        if expand_user_and_vars:
            argv = [os.path.expandvars(os.path.expanduser(arg)) for arg in argv]
        env = dict(os.environ, **(environ_update or {}))
        if data is not None and not binary_data and not data.endswith("\n"):
            data += "\n"  # AnsibleModule adds the newline too
        stdin = None if data is None else (data if isinstance(data, bytes) else data.encode(encoding))
        try:
            proc = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=cwd,
                                  check=False)
        except OSError as exc:
            if check_rc:
                self.fail_json(msg=str(exc), cmd=" ".join(argv), rc=2)
            return 2, "", str(exc)
        out, err = (proc.stdout.decode(encoding, "surrogateescape"), proc.stderr.decode(encoding, "surrogateescape"))
        if check_rc and proc.returncode != 0:
            self.fail_json(msg=err.rstrip() or "non-zero return code", cmd=" ".join(argv), rc=proc.returncode,
                           stdout=out, stderr=err)
        return proc.returncode, out, err

    def _finish(self, result):
        if isinstance(result.get("exception"), BaseException):  # AnsibleModule's helpers pass the exception itself
            error = result["exception"]
            result["exception"] = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        result = remove_values(result, self.no_log_values)
        if self.warnings:
            result["warnings"] = list(result.get("warnings") or []) + self.warnings
        if self.deprecations:
            result["deprecations"] = list(result.get("deprecations") or []) + self.deprecations
        raise ModuleExit(result)

    def exit_json(self, **result):
        result.setdefault("changed", False)
        self._finish(result)

    def fail_json(self, msg, **result):
        result.update(failed=True, msg=msg)
        self._finish(result)


class InProcessModuleAction(ActionBase):
    """The action plugin of a collection module whose ``main()`` builds its module from ``args_common.module_class``
    (the cluster modules through ``runner.run_module``, whose MODULE_CLASS is args_common's list): subclasses set
    ``MODULE`` (the module's short name, under plugins/modules), and ``KUBERNETES = False`` for a module that does not
    use the kubernetes client."""

    MODULE = None
    KUBERNETES = True
    TRANSFERS_FILES = False
    _supports_check_mode = True
    _supports_async = False

    def in_process(self):
        """Whether running the module here is the same as running it as a module process on the target."""
        return ((HAS_KUBERNETES or not self.KUBERNETES)
                and getattr(self._connection, "transport", None) == "local"
                and not self._task.become
                and not any(self._task.environment or []))  # [{}] when the task sets none

    def run(self, tmp=None, task_vars=None):
        del tmp  # not used
        name = "ai_platform.serving." + self.MODULE
        if not self.in_process():
            result = super(InProcessModuleAction, self).run(task_vars=task_vars)
            result.update(self._execute_module(module_name=name, module_args=self._task.args, task_vars=task_vars))
            return result
        result = super(InProcessModuleAction, self).run(task_vars=task_vars)
        result.update(run_in_process(self.MODULE, self._task.args, self._play_context.check_mode,
                                     self._play_context.diff))
        return result


def plain_args(args):
    """The task's arguments as a module process receives them: through JSON, so plain str, int, float, bool, None,
    dict and list. Templated values are Ansible's tagged subclasses (an int from the inventory is not ``int``) and its
    lazy containers; a module comparing types (stack/live_state.py:differs) must see what it sees as a process."""
    return json.loads(json.dumps(args or {}, default=to_text))


def run_in_process(module_name, args, check_mode=False, diff=False):
    """Run ``plugins/modules/<module_name>.py``'s main() here; return its result."""
    module = importlib.import_module("ansible_collections.ai_platform.serving.plugins.modules." + module_name)
    ControllerModule.bind("ai_platform.serving." + module_name, plain_args(args), bool(check_mode), bool(diff))
    ControllerModule.masked = set()
    runner.MODULE_CLASS.append(ControllerModule)
    try:
        module.main()
    except ModuleExit as done:
        return done.result
    except Exception as exc:  # pylint: disable=broad-except
        return remove_values(dict(failed=True, msg="%s failed in the playbook's process: %s: %s" % (
            module_name, type(exc).__name__, exc), exception=traceback.format_exc()), ControllerModule.masked)
    finally:
        runner.MODULE_CLASS.pop()
    return dict(failed=True, msg="%s returned without exit_json or fail_json" % module_name)
