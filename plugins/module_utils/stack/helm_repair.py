# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Releases an interrupted Helm run left behind, and what undoes them before the upgrade.

An interrupted ``helm upgrade --install --wait`` (a killed controller, a lost connection)
leaves the release's last revision ``pending-install``, ``pending-upgrade`` or
``pending-rollback``; Helm then refuses every upgrade ("another operation is in progress"),
``--force`` included. A first install that failed leaves a ``failed`` revision 1 that an
upgrade cannot build on either. Before it deploys, serving_stack rolls a pending release
back to its previous revision, or uninstalls a release whose only revision is pending or
failed. Pure functions over ``helm list --all --output json``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils.stack import stacks

PENDING = ("pending-install", "pending-upgrade", "pending-rollback")


def repairs(helm_list, records, timeout="5m0s"):
    """``[{namespace, name, status, revision, action, args}]`` for the records' releases that need undoing.

    A record's releases are those of its own stack (stacks.for_record); the other stack's releases of a model that
    moved are uninstalled, whatever their state (state.py:uninstall_items).

    ``action`` is ``rollback`` (a pending revision above 1: back to the one before) or ``uninstall``
    (revision 1 pending or failed); ``args`` are the helm arguments after the binary.
    """
    wanted = set()
    for record in records or []:
        for name in stacks.release_names(record, stacks.for_record(record)):
            wanted.add((record.get("namespace"), name))
    found = []
    for release in helm_list or []:
        key = (release.get("namespace"), release.get("name"))
        if key not in wanted:
            continue
        status = release.get("status") or ""
        try:
            revision = int(release.get("revision") or 0)
        except ValueError:
            revision = 0
        if status in PENDING and revision > 1:
            action = "rollback"
            args = ["rollback", key[1], "--namespace", key[0], "--wait", "--timeout", timeout]
        elif (status in PENDING or status == "failed") and revision <= 1:
            action = "uninstall"
            args = ["uninstall", key[1], "--namespace", key[0], "--wait", "--timeout", timeout]
        else:
            continue
        found.append(dict(namespace=key[0], name=key[1], status=status, revision=revision, action=action, args=args))
    return sorted(found, key=lambda item: (item["namespace"], item["name"]))
