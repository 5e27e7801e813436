# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The names family: model slugs, per-model resource names and label selectors, from module_utils/naming.py (the one
place names are derived). Docs in the <filter>.yml files beside this one; tests in
tests/unit/plugins/filter/test_names.py."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError

from ansible_collections.ai_platform.serving.plugins.module_utils import naming


def model_slug(slug):
    """Return ``slug`` when it is a valid model slug, else fail saying why."""
    why = naming.slug_problem(slug)
    if why:
        raise AnsibleFilterError("model_slug: %r: %s" % (slug, why))
    return slug


def slug_from_folders(folder_names):
    """Return the slug shared by the one gaie-<slug> and the one ms-<slug> folder name."""
    if not isinstance(folder_names, (list, tuple)) or not all(isinstance(n, str) for n in folder_names):
        raise AnsibleFilterError("slug_from_folders: expects a list of folder names")
    slug, problems = naming.slug_from_folders(folder_names)
    if problems:
        raise AnsibleFilterError("slug_from_folders: %s" % "; ".join(problems))
    return model_slug(slug)


def resource_names(slug, namespace=None, release_name=None):
    """All per-model resource names for ``slug``, with the seed's nameSpace/releaseName overrides."""
    return naming.resource_names(model_slug(slug), namespace or None, release_name or None)


def resource_name(slug, kind, namespace=None, release_name=None):
    """One per-model resource name, ``kind`` being a key of resource_names."""
    names = resource_names(slug, namespace, release_name)
    if kind not in names:
        raise AnsibleFilterError("resource_name: unknown kind %r; use one of %s" % (kind, ", ".join(sorted(names))))
    return names[kind]


def label_selectors(selection, slug=None):
    """The ``key=value`` selectors of one of naming.SELECTIONS (``managed``, ``model_cache``, ``release_digests``),
    narrowed to one model's objects when ``slug`` is given."""
    if selection not in naming.SELECTIONS:
        raise AnsibleFilterError("label_selectors: unknown selection %r; use one of %s"
                                 % (selection, ", ".join(sorted(naming.SELECTIONS))))
    if slug:
        return naming.model_selectors(selection, model_slug(slug))
    return naming.label_selectors(naming.SELECTIONS[selection])


class FilterModule(object):
    def filters(self):
        return {
            "model_slug": model_slug,
            "slug_from_folders": slug_from_folders,
            "resource_names": resource_names,
            "resource_name": resource_name,
            "label_selectors": label_selectors,
        }
