# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What serving_stack needs to know of the cluster before it changes anything, decided from one read.

The module ``serving_stack_info`` reads, in one call: the Helm releases, the release-digest ConfigMaps,
the model claims, and the objects serving_stack applies or removes. The pure decisions on what it read
are here (unit-tested on fixtures):

- ``differs``: does a live object lack something the definition sets? Only such objects (and missing ones)
  go to the apply task, so a re-run with nothing to change makes no apply call; a field someone edited on
  the cluster is still put back (it differs).
- ``objects_to_apply`` / ``objects_to_remove``: per slug, the definitions that need the apply or the removal.
- ``claims_by_key`` / ``missing_claims``: the claims read by label, and the records whose claim must be read by name.

What serving_stack does with all of it is decided in ``state.py``.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def differs(desired, live):
    """True when ``live`` does not hold every field ``desired`` sets, with the same value.

    Mappings: every key of ``desired`` must be in ``live`` and match (fields the server adds are ignored).
    Lists: the same length, each element matching in order (a list the server extends, or one someone edited,
    counts as a difference: the apply decides). Scalars: equal and of the same type (``8000`` is not ``"8000"``).
    When in doubt it says "differs": a needless apply costs one call, a missed one leaves the cluster wrong.
    """
    if isinstance(desired, dict):
        if not isinstance(live, dict):
            return True
        return any(key not in live or differs(value, live[key]) for key, value in desired.items())
    if isinstance(desired, (list, tuple)):
        if not isinstance(live, (list, tuple)) or len(desired) != len(live):
            return True
        return any(differs(want, have) for want, have in zip(desired, live))
    if isinstance(desired, bool) or isinstance(live, bool):
        return desired is not live
    if type(desired) is not type(live) and not (_is_text(desired) and _is_text(live)):
        return True
    return desired != live


def _is_text(value):
    return isinstance(value, str) or type(value).__name__ == "unicode"


def object_key(definition):
    """(apiVersion, kind, namespace, name) of a definition or a live object."""
    meta = definition.get("metadata") or {}
    return (definition.get("apiVersion"), definition.get("kind"), meta.get("namespace") or "", meta.get("name"))


def foreign_selector_keys(desired, live):
    """The keys of a live Service's ``spec.selector`` that ``desired`` (a Service definition) does not set: a
    Service whose pods changed stack (the embeddings Service of a model that moved) keeps the other stack's keys
    under a merge, and then selects no pod at all."""
    if desired.get("kind") != "Service" or not isinstance(live, dict):
        return []
    want = (desired.get("spec") or {}).get("selector")
    have = (live.get("spec") or {}).get("selector")
    if not isinstance(want, dict) or not isinstance(have, dict):
        return []
    return sorted(key for key in have if key not in want)


def without_foreign_selector_keys(desired, live):
    """``desired`` with each of :func:`foreign_selector_keys` set to None (a merge patch drops them), else as it is."""
    foreign = foreign_selector_keys(desired, live)
    if not foreign:
        return desired
    spec = dict(desired["spec"], selector=dict(desired["spec"]["selector"], **dict((key, None) for key in foreign)))
    return dict(desired, spec=spec)


def objects_to_apply(objects, live):
    """Per slug, the definitions of ``objects`` ({slug: [definition]}) that are missing or differ from ``live``
    ({object_key: live object or None}), a Service's selector keys it no longer sets cleared
    (:func:`without_foreign_selector_keys`); slugs with nothing to apply are left out."""
    found = {}
    for slug, definitions in (objects or {}).items():
        due = []
        for definition in definitions or []:
            have = live.get(object_key(definition))
            if have is None or differs(definition, have) or foreign_selector_keys(definition, have):
                due.append(without_foreign_selector_keys(definition, have))
        if due:
            found[slug] = due
    return found


def objects_to_remove(objects, live):
    """Per slug, the definitions of ``objects`` ({slug: [definition]}) whose object exists in ``live``."""
    found = {}
    for slug, definitions in (objects or {}).items():
        present = [d for d in definitions or [] if live.get(object_key(d)) is not None]
        if present:
            found[slug] = present
    return found


def claim_key(namespace, name):
    return "%s/%s" % (namespace, name)


def claims_by_key(claims):
    """{namespace/name: claim} of a list of PersistentVolumeClaims."""
    return dict((claim_key((c.get("metadata") or {}).get("namespace"), (c.get("metadata") or {}).get("name")), c)
                for c in claims or [])


def missing_claims(records, claims):
    """The records of ``records`` whose claim is not in ``claims`` (to read one by one: a claim without the
    collection's labels is still the model's claim)."""
    index = claims_by_key(claims)
    return [r for r in records or []
            if claim_key(r.get("namespace"), (r.get("storage") or {}).get("pvc")) not in index]
