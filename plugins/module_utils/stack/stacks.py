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

Two stacks: the seed's (``SEED``: llm-d-infra, GAIE inferencepool, llm-d-modelservice), the default, and llm-d
v0.10's (``V010``: one Helm release, llm-d-router-standalone, beside model-server objects the collection applies
itself, not a release). llm-d v0.10 has two router modes (a record's ``router_mode``): ``standalone`` (``V010``,
the EPP with its Envoy sidecar) and ``gateway`` (``V010_GATEWAY``: the same stack, its one release on
llm-d-router-gateway behind the site's Gateway, chart key ``router_gateway``). A mode is not a stack of its own: a
model that changes mode keeps its stack (nothing is installed beside), and Helm upgrades ``router-<slug>`` from one
chart to the other. A plan record names its stack in its ``stack`` field (``for_record``; a record without one
is the seed's); every helper takes an optional stack (a ``Stack`` or its name) and defaults to ``DEFAULT_STACK``.
``STACK_LABEL`` and ``MODEL_LABEL`` are the labels the collection adds to the v0.10 model-server pod templates
(never to selectors) and merges into the router's ``router.modelServers.matchLabels``, so its InferencePool
selects exactly those pods, never the seed's. Pure data; imports nothing of the collection.
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
V010 = Stack(name="llm-d-v0.10", releases=(
    Release(chart="router", name_key="router_release", values_file="router", chart_name="llm-d-router-standalone",
            post_renderer=True),
))
# llm-d v0.10 in gateway mode: the same stack (name), its router release on the gateway chart
V010_GATEWAY = Stack(name=V010.name, releases=(
    Release(chart="router_gateway", name_key="router_release", values_file="router",
            chart_name="llm-d-router-gateway", post_renderer=True),
))
STACKS = {SEED.name: SEED, V010.name: V010}
DEFAULT_STACK = SEED.name
# the router modes of llm-d v0.10 (a record's router_mode; None: standalone) and the variant each one is
ROUTER_MODES = {"standalone": V010, "gateway": V010_GATEWAY}
DEFAULT_ROUTER_MODE = "standalone"
# every variant, the seed's first: what per-chart lists of all models hold
VARIANTS = (SEED, V010, V010_GATEWAY)

# the owned pod-template labels of the v0.10 model servers (value: the stack's name, the model's slug)
STACK_LABEL = "ai-platform.serving/stack"
MODEL_LABEL = "ai-platform.serving/model"


def owned_labels(slug, stack=None):
    """``{STACK_LABEL: <stack name>, MODEL_LABEL: slug}``: what selects one model's pods of that stack
    (default: V010, the only stack whose pods carry them)."""
    return {STACK_LABEL: get(stack or V010).name, MODEL_LABEL: slug}


def for_record(record):
    """The ``Stack`` of a plan record: its ``stack`` field, ``DEFAULT_STACK`` when it has none; on llm-d v0.10, the
    variant of its ``router_mode`` (``V010_GATEWAY`` for ``gateway``); ValueError for an unknown name or mode."""
    stack = get((record or {}).get("stack") or None)
    if stack.name != V010.name:
        return stack
    mode = (record or {}).get("router_mode") or DEFAULT_ROUTER_MODE
    if mode not in ROUTER_MODES:
        raise ValueError("unknown router mode %r (known: %s)" % (mode, ", ".join(sorted(ROUTER_MODES))))
    return ROUTER_MODES[mode]


def is_v010(stack):
    """Whether ``stack`` (a ``Stack`` or a name) is llm-d v0.10's, in either router mode."""
    return get(stack).name == V010.name


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


def all_releases():
    """The ``Release`` entries of every stack, the seed's first (each stack's in deploy order): what per-chart
    lists of all models hold (a run has records of both stacks)."""
    return tuple(release for stack in VARIANTS for release in stack.releases)


def all_chart_keys():
    """Every stack's chart keys, e.g. ``('infra', 'gaie', 'modelservice', 'router')``."""
    return tuple(release.chart for release in all_releases())


def all_release_keys():
    """Every stack's ``names`` keys of releases, each once, e.g. ``('infra_release', ..., 'router_release')``
    (both router modes name their release ``router_release``)."""
    keys = []
    for release in all_releases():
        if release.name_key not in keys:
            keys.append(release.name_key)
    return tuple(keys)


def all_post_rendered():
    """Every stack's chart keys whose releases take serving_stack's post-renderer."""
    return tuple(release.chart for release in all_releases() if release.post_renderer)


def others(stack=None):
    """The stacks other than ``stack`` (a ``Stack``, a name or None for ``DEFAULT_STACK``), the seed's first: the
    ones whose releases a model that moved to ``stack`` leaves behind."""
    own = get(stack)
    return tuple(STACKS[name] for name in (SEED.name, V010.name) if name != own.name)
