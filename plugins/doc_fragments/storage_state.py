# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: how the model artifacts are resolved and the model cache read, shared by model_storage_state and
model_storage_pull."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The options of module_utils/storage/pull_task.py:state_argspec (besides the pull Job settings and ``records``,
    which each module documents: required for model_storage_state, one of two ways for model_storage_pull).

    model_storage_state takes them alone; model_storage_pull, which runs model_storage_state first, takes them with
    its own.
    """

    DOCUMENTATION = r"""
options:
  registry_username:
    description: User of the registry the manifests are read from.
    type: str
  registry_password:
    description: Password or token of O(registry_username); never logged.
    type: str
  registry_ca_file:
    description: CA certificate of the registry; empty uses the system trust store.
    type: path
  registry_validate_certs:
    description: Check the registry's TLS certificate.
    type: bool
    default: true
  network_policy:
    description:
      - Derive and read the NetworkPolicy of each model's Job pods (C(<slug>-model-jobs)); the role's
        C(model_storage_job_network_policy).
    type: bool
    default: false
  network_policy_dns:
    description: The DNS peers the Job pods may reach (NetworkPolicy peers); empty derives the cluster DNS.
    type: list
    elements: dict
    default: []
  network_policy_registry:
    description: The registry peers the Job pods may reach (NetworkPolicy peers); empty derives them from the reference.
    type: list
    elements: dict
    default: []
  cluster_domain:
    description: The cluster's DNS domain (a registry host under it is a Service the policy can name).
    type: str
    default: cluster.local
  registry_endpoint:
    description: C(host[:port]) to read the manifests from instead of the references' host.
    type: str
  timeout:
    description: Seconds per HTTP request to the registry.
    type: int
    default: 30
  lock_file:
    description: model_sync lock file; a reference it has an entry for is not looked up at the registry.
    type: path
  locked:
    description:
      - The model entries of O(lock_file) (C({reference - entry})) as the model plan read them
        (C(aips_plan_artifacts.models)); given, the lock file is not read again. Without O(lock_file) they are not
        used.
    type: dict
  require_lock:
    description: A reference the lock file does not pin (and that names no digest) is unreadable, naming the model.
    type: bool
    default: false
  require_signed:
    description:
      - Each pinned artifact must carry a signature by the site's key (O(signing_public_key)) over exactly its files,
        attached as an OCI referrer (M(ai_platform.serving.model_sync) with C(signing_key)). One that does not is in
        C(unsigned), naming the model and why (none attached, another key, other files); the cluster is then not
        read. Only the manifest and the signatures are read, never the weights.
    type: bool
    default: false
  signing_public_key:
    description: The site's model signing public key (PEM), for O(require_signed).
    type: str
  headroom_percent:
    description: Room a claim must have beyond its artifact's size, in percent.
    type: int
    default: 10
  hostpath_storage_class:
    description: storageClassName of the on-prem PV and claim, as given to M(ai_platform.serving.model_pull_job).
    type: str
    default: ""
  replace_failed:
    description: As M(ai_platform.serving.model_pull_job)'s; a Failed Job is never settled either way.
    type: bool
    default: true
"""
