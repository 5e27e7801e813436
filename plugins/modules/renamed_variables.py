#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: renamed_variables
short_description: Warn, once per old name a play still sets, that a role variable has a new name
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - For each old name of O(renamed) that the play defines (inventory, play, extra vars; a role's defaults never
    define an old name), returns an Ansible deprecation warning naming the old variable, the new one and the
    collection release O(version) that removes the old name. The roles of the collection run it first; their
    defaults derive each new variable from its old name while that is set.
  - Runs in the playbook's own process through its action plugin (it reads the task's variables); no module
    process is started. Changes nothing.
options:
  renamed:
    description: Old variable name to its new name.
    type: dict
    required: true
  version:
    description: The collection release that removes the old names.
    type: str
    required: true
attributes:
  check_mode:
    support: full
    description: Reads variables only.
  diff_mode:
    support: none
    description: Nothing changes.
"""

EXAMPLES = r"""
- name: Warn about the renamed variables still set
  ai_platform.serving.renamed_variables:
    renamed:
      model_sync_ca_file: model_sync_registry_ca_file
    version: 2.0.0
"""

RETURN = r"""
deprecated:
  description: The old names the play sets, sorted; each has its deprecation warning.
  returned: success
  type: list
  elements: str
  sample: [model_sync_ca_file]
"""

from ansible.module_utils.basic import AnsibleModule


def argspec():
    return dict(renamed=dict(type="dict", required=True), version=dict(type="str", required=True))


def main():
    module = AnsibleModule(argument_spec=argspec(), supports_check_mode=True)
    module.fail_json(msg="renamed_variables reads the play's variables: it runs through its action plugin only")


if __name__ == "__main__":
    main()
