# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fix the EPP's Hugging Face refusals name (plugins/module_utils/stack/offline.py), applied to GAIE values as a
user would apply it: each step is taken only when a refusal message names it, so a test that applies this and then
deploys proves that the messages, followed, lead to a deployable EPP (issue 26)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

import yaml

PRECISE, APPROXIMATE = "precise-prefix-cache-scorer", "prefix-cache-scorer"


def _scorer_swapped(text):
    """A plugin config text with the precise scorer replaced by the approximate one (type and pluginRef), without
    the precise scorer's parameters."""
    config = yaml.safe_load(text)
    for plugin in config.get("plugins") or []:
        if plugin.get("type") == PRECISE:
            plugin["type"] = APPROXIMATE
            plugin.pop("parameters", None)
            if plugin.get("name") == PRECISE:
                plugin["name"] = APPROXIMATE
    for profile in config.get("schedulingProfiles") or []:
        for ref in profile.get("plugins") or []:
            if ref.get("pluginRef") == PRECISE:
                ref["pluginRef"] = APPROXIMATE
    return yaml.safe_dump(config, sort_keys=False)


def apply_named_fixes(gaie, messages):
    """``gaie`` with what ``messages`` (the refusals of one GAIE values file) say to do: remove the named
    ``inferenceExtension.env[N]`` entries, use prefix-cache-scorer in place of precise-prefix-cache-scorer, remove
    ``inferenceExtension.sidecar``. Fails when a message names a fix this does not know (the test must then learn
    it, not skip it)."""
    fixed = copy.deepcopy(gaie)
    extension = fixed["inferenceExtension"]
    drop = set()
    for message in messages:
        fix = message.split("Fix: ", 1)[1]
        known = False
        if fix.startswith("remove that env entry"):
            position = int(message.split("inferenceExtension.env[", 1)[1].split("]", 1)[0])
            drop.add(position)
            known = True
        if "use %s (" % APPROXIMATE in fix and "in place of %s" % PRECISE in fix:
            configs = extension.get("pluginsCustomConfig") or {}
            for name, text in configs.items():
                configs[name] = _scorer_swapped(text)
            known = True
        if fix.endswith("and remove inferenceExtension.sidecar"):
            extension.pop("sidecar", None)
            known = True
        assert known, "a fix the test does not know how to apply: " + message
    if drop:
        extension["env"] = [e for position, e in enumerate(extension.get("env") or []) if position not in drop]
    return fixed
