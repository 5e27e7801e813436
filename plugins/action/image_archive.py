# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""image_archive in the playbook's process when it runs on this machine (plugins/plugin_utils/in_process.py says when and why).

Skopeo runs as a child process either way.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.plugin_utils.in_process import InProcessModuleAction


class ActionModule(InProcessModuleAction):
    MODULE = "image_archive"
    KUBERNETES = False
