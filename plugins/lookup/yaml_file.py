# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
name: yaml_file
short_description: Read YAML files on the controller under size, alias and depth limits
version_added: 0.1.0
author:
  - AI Platform team (@ai-platform)
description:
  - Returns the parsed contents of each file (one element per term; an empty file is V({})), read by the
    collection's one YAML reader (C(plugins/module_utils/plan/safe_yaml.py)), as the model plan reads the values files.
  - Refuses, naming the file and never showing its contents, a file over 1 MiB (Helm keeps a release's values in
    one Secret of at most 1 MiB), more than 100000 nodes as written, more than 1000 aliases or 10^6 nodes once
    aliases are expanded (an alias bomb),
    nesting deeper than 64 levels, invalid YAML, and with O(root) a path that leaves O(root) once symlinks are
    resolved.
  - Used for the models' values files and the lock file, in place of C(lookup('file') | from_yaml).
options:
  _terms:
    description: Paths of the YAML files.
    required: true
    type: list
    elements: path
  root:
    description:
      - When set, every file must resolve (symlinks followed) to a path below this folder (C(~) is expanded).
      - Empty or unset, no such check (an empty string is not read as the current folder).
    type: str
"""

EXAMPLES = r"""
- name: Read the values files of every plan record
  ansible.builtin.set_fact:
    ms_values: "{{ query('ai_platform.serving.yaml_file', *(aips_plan | map(attribute='values_files.ms')),
      root=aips_models_dir) }}"
"""

RETURN = r"""
_raw:
  description: The parsed contents of each file, in the order of the terms.
  type: list
  elements: raw
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml


class LookupModule(LookupBase):
    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        root = self.get_option("root")
        root = os.path.expanduser(root) if root else None
        results = []
        for term in terms:
            try:
                data = safe_yaml.load_file(term, root=root)
            except safe_yaml.YamlFileError as exc:
                raise AnsibleLookupError(str(exc))
            results.append({} if data is None else data)
        return results
