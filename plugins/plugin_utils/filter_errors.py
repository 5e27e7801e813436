# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the filter plugins share: a module_utils function's error turned into the filter's own error."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError


def filter_call(name, function, *args, **options):
    """``function(*args)``; a ValueError becomes an AnsibleFilterError ``<name>: <error>``, or with
    ``show_value=True`` ``<name>: <the last argument, repr>: <error>``."""
    try:
        return function(*args)
    except ValueError as exc:
        if options.get("show_value"):
            raise AnsibleFilterError("%s: %r: %s" % (name, args[-1], exc))
        raise AnsibleFilterError("%s: %s" % (name, exc))
