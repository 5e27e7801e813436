# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""model_cache_dirs in the playbook's process when it runs on this machine (plugins/plugin_utils/in_process.py says when and why).

In-process only where the node is this machine over a local connection without become (the lab's node); a
remote node, or become (site.yml's default for the nodes), runs it as a module process on the node as before.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.plugin_utils.in_process import InProcessModuleAction


class ActionModule(InProcessModuleAction):
    MODULE = "model_cache_dirs"
    KUBERNETES = False
