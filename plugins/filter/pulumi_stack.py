# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The Pulumi migration filter; docs in from_pulumi_stack.yml beside this file."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os

import yaml

from ansible.errors import AnsibleFilterError
from ansible.module_utils.common.text.converters import to_text

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.migrate import pulumi as ps


class _IndentedDumper(yaml.SafeDumper):
    """Block style with list items indented under their key, as yamllint's default wants."""

    def increase_indent(self, flow=False, indentless=False):
        return super(_IndentedDumper, self).increase_indent(flow, False)


def _parse(stack):
    """The stack as plain Python data, from YAML text or an already parsed mapping."""
    if isinstance(stack, (bytes, str)):
        try:
            # the collection's one YAML reader: alias, node and depth limits; the position and the kind of a
            # problem only (yaml's own message quotes the line, which may be the token's)
            return safe_yaml.loads(to_text(stack), "the stack file"), None
        except safe_yaml.YamlFileError as exc:
            return None, "the stack file is %s" % exc.reason
    try:
        # Plain types: values from Ansible may be tagged subclasses the YAML dumper rejects.
        return json.loads(json.dumps(stack)), None
    except (TypeError, ValueError):
        return None, "the stack must be YAML text or a mapping of config keys"


def render(group_vars, stack_file=None, output=None):
    """The group_vars file: a header, then the variables in a fixed order."""
    source = os.path.basename(stack_file) if stack_file else "a Pulumi stack file"
    lines = ["---",
             "# ai_platform.serving settings migrated from %s by playbooks/migrate_pulumi.yml" % source,
             "# (docs/migration.md)."]
    if group_vars.get("aips_harbor_token") == ps.VAULT_REFERENCE:
        where = os.path.relpath(ps.vault_file_for(output), os.path.dirname(output) or ".") if output else "a vault file"
        lines.append("# The Harbor token is not in this file: %s is kept in Ansible Vault, in %s."
                     % (ps.VAULT_VARIABLE, where))
    text = "\n".join(lines) + "\n"
    for variable, value in ps.ordered_group_vars(group_vars):
        text += yaml.dump({variable: value}, Dumper=_IndentedDumper, default_flow_style=False, sort_keys=False,
                          allow_unicode=True, width=120)
    return text


def from_pulumi_stack(stack, models_dir=None, stack_file=None, output=None, strict=True):
    """Convert a Pulumi.<stack>.yaml (text or mapping) to this collection's group vars."""
    data, problem = _parse(stack)
    if problem:
        result = {"group_vars": {}, "errors": ["stack file: %s" % problem], "warnings": [], "notes": [],
                  "token": ps.TOKEN_ABSENT}
    else:
        if models_dir:
            models_dir = os.path.abspath(os.path.expanduser(to_text(models_dir)))
        result = ps.convert_stack(data, models_dir)
    vault_file = ps.vault_file_for(to_text(output)) if output else None
    result["vault_variable"] = ps.VAULT_VARIABLE
    result["vault_file"] = vault_file
    result["shadowing_folder"] = ps.shadowing_folder(to_text(output)) if output else None
    result["instructions"] = ps.vault_instructions(result["token"], vault_file or "<inventory>/group_vars/all/vault.yml",
                                                   ps.stack_name(to_text(stack_file)) if stack_file else None)
    result["content"] = "" if result["errors"] else render(result["group_vars"], stack_file, output and to_text(output))
    if result["errors"] and strict:
        raise AnsibleFilterError(ps.format_errors(result["errors"]))
    return result


class FilterModule(object):
    def filters(self):
        return {"from_pulumi_stack": from_pulumi_stack}
