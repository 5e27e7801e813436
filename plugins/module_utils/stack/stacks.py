# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The serving stacks, each described once: its Helm releases in deploy order and what names and feeds each one.

A release is its chart key (the key of ``aips_charts``, ``serving_stack_charts`` and the plan's chart plan), the
key of its release name in a plan record's ``names`` (naming.py:resource_names), the key of its values file in
the record's ``values_files`` and the prefix of its folder beside the model (``<values_file>-<slug>/``; None for
a release whose values the collection writes itself), the upstream chart's name (the ``name`` of its
``aips_chart_mirrors`` entry, ``<name>-<version>.tgz`` when carried) and whether it takes serving_stack's
post-renderer. The release lists of the plan's checks, the chart plan, the values step, the release digests,
the render, the Helm repair, the state module and the removal read them here.

One stack exists so far, the seed's (``SEED``: llm-d-infra, GAIE inferencepool, llm-d-modelservice); plan
records carry no stack choice yet, so every helper takes an optional stack (a ``Stack`` or its name) and
defaults to ``DEFAULT_STACK``. Pure data; imports nothing of the collection.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from collections import namedtuple

# chart: chart key; name_key: the record's names key of the release; values_file: the record's values_files key and
# folder prefix (None: no values file); chart_name: the upstream chart; post_renderer: the release takes
# serving_stack's post-renderer (roles/serving_stack/files/gateway_placement.py)
Release = namedtuple("Release", ("chart", "name_key", "values_file", "chart_name", "post_renderer"))
# name: what the stack is called; releases: its Release entries in deploy order (removal goes in reverse)
Stack = namedtuple("Stack", ("name", "releases"))

SEED = Stack(name="llm-d-modelservice", releases=(
    Release(chart="infra", name_key="infra_release", values_file=None, chart_name="llm-d-infra", post_renderer=True),
    Release(chart="gaie", name_key="gaie_release", values_file="gaie", chart_name="inferencepool",
            post_renderer=False),
    Release(chart="modelservice", name_key="ms_release", values_file="ms", chart_name="llm-d-modelservice",
            post_renderer=False),
))
STACKS = {SEED.name: SEED}
DEFAULT_STACK = SEED.name


def get(stack=None):
    """The ``Stack`` of ``stack`` (a ``Stack``, a name of ``STACKS``, or None for ``DEFAULT_STACK``); ValueError for
    an unknown name."""
    if isinstance(stack, Stack):
        return stack
    name = DEFAULT_STACK if stack is None else stack
    if name not in STACKS:
        raise ValueError("unknown serving stack %r (known: %s)" % (name, ", ".join(sorted(STACKS))))
    return STACKS[name]


def releases(stack=None):
    """The stack's ``Release`` entries in deploy order."""
    return get(stack).releases


def chart_keys(stack=None):
    """The chart keys in deploy order, e.g. ``('infra', 'gaie', 'modelservice')``."""
    return tuple(release.chart for release in releases(stack))


def release_keys(stack=None):
    """The records' ``names`` keys of the releases in deploy order, e.g. ``('infra_release', 'gaie_release',
    'ms_release')``."""
    return tuple(release.name_key for release in releases(stack))


def charts(stack=None):
    """``((chart key, names key), ...)`` in deploy order."""
    return tuple((release.chart, release.name_key) for release in releases(stack))


def values_files(stack=None):
    """The records' ``values_files`` keys (also the folder prefixes) in deploy order, e.g. ``('gaie', 'ms')``."""
    return tuple(release.values_file for release in releases(stack) if release.values_file)


def chart_names(stack=None):
    """``{chart key: upstream chart name}``."""
    return dict((release.chart, release.chart_name) for release in releases(stack))


def post_rendered(stack=None):
    """The chart keys whose releases take serving_stack's post-renderer."""
    return tuple(release.chart for release in releases(stack) if release.post_renderer)


def release_names(record, stack=None):
    """The release names ``record`` (a plan record) sets, in deploy order; keys it lacks or leaves empty are
    skipped."""
    names = (record or {}).get("names") or {}
    return [names[key] for key in release_keys(stack) if names.get(key)]
