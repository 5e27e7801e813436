# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Role variables pointing model_sync at the test registry (through its byte-counting relay)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

LOCK_REGISTRY = "harbor.harbor.svc.cluster.local"


def model_sync_vars(registry, tools, work_dir, lock_file, models, **overrides):
    variables = dict(
        model_sync_models=models,
        model_sync_registry=registry.relay_host,
        model_sync_lock_registry=LOCK_REGISTRY,
        model_sync_registry_user=registry.user,
        model_sync_registry_token=registry.password,
        model_sync_ca_file=registry.ca,
        model_sync_oras_path=tools["oras"],
        model_sync_work_dir=str(work_dir),
        model_sync_lock_file=str(lock_file),
    )
    variables.update(overrides)
    return variables
