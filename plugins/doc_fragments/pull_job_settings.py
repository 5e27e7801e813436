# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: the pull Job's settings, shared by model_pull_job and model_storage_state."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The pull Job's settings (module_utils.args_common.pull_job_settings_argspec).

    model_pull_job builds the Job from them; model_storage_state compares them with the Job on the cluster
    to tell whether a model is settled, so both take the same options.
    """

    DOCUMENTATION = r"""
options:
  concurrency:
    description: Layers oras pulls at a time.
    type: int
    default: 4
  progress_seconds:
    description: The pull pod logs a progress line (bytes, percent, rate, ETA, files) every this many seconds
      while oras pulls.
    type: int
    default: 10
  verify:
    description:
      - Re-hash every pulled file against its layer digest before the marker is written, a second read of every
        byte.
      - Off by default, integrity does not depend on it. oras-go checks every blob's sha256 and size while it
        writes the file, and a mismatch fails the pull (exit 42, the marker is not written). The lab test of a
        corrupted registry blob runs both ways.
    type: bool
    default: false
  http2:
    description:
      - Let oras multiplex its concurrent blob downloads over one HTTP/2 connection when the registry offers HTTP/2.
      - Off by default, the Job sets C(GODEBUG=http2client=0) and oras opens one HTTP/1.1 connection per blob, as
        the controller's registry tools do. Over one connection the TLS work of every blob runs on one core at
        each end; on the lab the pull of 1 GiB in 9 blobs took 2.1-2.3 s this way and 3.2-3.9 s over HTTP/2.
    type: bool
    default: false
  resources:
    description: Resources of the pull container (requests and limits).
    type: dict
  follow_model_affinity:
    description: Without a hostPath node, give the Job the model's node affinity, so a WaitForFirstConsumer
      claim binds where the model runs.
    type: bool
    default: true
  image_pull_policy:
    description: Pull policy of the ORAS image.
    type: str
    default: IfNotPresent
    choices: [Always, IfNotPresent, Never]
  run_as_user:
    description:
      - Non-root uid (and gid and fsGroup) the pull pod runs as. The pod passes Pod Security C(restricted)
        (every capability dropped, RuntimeDefault seccomp, read-only root filesystem, the registry config
        at C(/etc/aips/registry)); a hostPath directory must be writable by this uid (hostpath_dirs does it).
    type: int
    default: 65532
  active_deadline_seconds:
    description: Seconds after which Kubernetes kills the pull Job, so a hung pull never holds the claim forever.
    type: int
    default: 14400
"""
