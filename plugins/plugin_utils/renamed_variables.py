# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Role variables that have a new name: which of the old ones a play still sets, as deprecation records."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

COLLECTION = "ai_platform.serving"


def old_names_set(renamed, defined):
    """The old names of ``renamed`` (old name to new name) that ``defined`` (the names the play defines) holds,
    sorted. Raises ValueError on an empty name or a name renamed to itself."""
    for old, new in renamed.items():
        if not old or not new or old == new:
            raise ValueError("renamed: %r to %r is not a rename" % (old, new))
    return sorted(old for old in renamed if old in defined)


def deprecation(old, new, version, collection_name=COLLECTION):
    """The deprecation record of a task result (``msg``, ``version``, ``collection_name``) for ``old`` renamed to
    ``new``; Ansible adds the release it goes in."""
    return dict(msg="The variable %s is deprecated: set %s instead (%s still sets it until then)" % (old, new, old),
                version=version, collection_name=collection_name)


def renamed_deprecations(renamed, defined, version, collection_name=COLLECTION):
    """``(old names set, their deprecation records)``."""
    found = old_names_set(renamed, defined)
    return found, [deprecation(old, renamed[old], version, collection_name) for old in found]
