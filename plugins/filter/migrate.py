# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The migrate family: a Pulumi stack file converted to this collection's group vars
(module_utils/migrate/pulumi.py). Docs in from_pulumi_stack.yml beside this file; tests in
tests/unit/plugins/filter/test_migrate.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils.migrate import pulumi


def from_pulumi_stack(stack, models_dir=None, stack_file=None, output=None, strict=True):
    """Convert a Pulumi.<stack>.yaml (text or mapping) to this collection's group vars."""
    try:
        result = pulumi.migrate_stack(stack, models_dir, stack_file, output)
    except ValueError as exc:
        raise AnsibleFilterError("from_pulumi_stack: %s" % exc)
    if result["errors"] and strict:
        raise AnsibleFilterError(pulumi.format_errors(result["errors"]))
    return result


class FilterModule(object):
    def filters(self):
        return {"from_pulumi_stack": from_pulumi_stack}
