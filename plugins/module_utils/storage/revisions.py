# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The revisions a model claim keeps, against the cluster API: prune the ones no longer kept.

A claim holds the served revision and earlier ones side by side (the pull script keeps them;
its ``ai-platform.serving/revisions`` annotation lists them, the most recently served first).
``prune`` runs once the serving pods rolled onto the served revision: for every record whose
claim lists more than the served one plus ``keep`` others, one short Job removes the rest
(placed with the serving pods on a single-node claim), then the annotation is updated.

A record may carry its decision under ``prune`` (:func:`prune_decision`: the claim's annotations it was decided on,
the digests kept and dropped), as serving_stack_info's ``prune`` entries do; it is then pruned as decided, its claim
not read again. The claims of the other records are read with one list call for all of them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import STORAGE_HARBOR
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import manifests, pull_marker
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import (
    _dict,
    claim_holder,
    run_claim_job,
)


def plan_prunes(records, claims, keep):
    """[(record, annotations, kept, dropped)] for the records whose claim keeps more than it should."""
    by_name = dict(("%s/%s" % ((c.get("metadata") or {}).get("namespace"), (c.get("metadata") or {}).get("name")),
                    (c.get("metadata") or {}).get("annotations") or {}) for c in claims or [])
    found = []
    for record in records or []:
        storage = record.get("storage") or {}
        if storage.get("mode") != STORAGE_HARBOR:
            continue
        annotations = by_name.get("%s/%s" % (record["namespace"], storage["pvc"]))
        if not annotations:
            continue
        kept, dropped = pull_marker.revisions_to_keep(annotations, keep)
        if dropped:
            found.append((record, annotations, kept, dropped))
    return found


# the key of a record that carries its prune decision
PRUNE_KEY = "prune"


def prune_decision(annotations, kept, dropped):
    """What a record carries under ``prune``: the claim's ``annotations`` the decision was made on, the digests
    ``kept`` and ``dropped`` (plain copies)."""
    return {"annotations": dict(annotations or {}), "kept": list(kept or []), "dropped": list(dropped or [])}


def carried_decision(record):
    """``(annotations, kept, dropped)`` of the decision ``record`` carries under ``prune``; None without one. A
    ``prune`` that is not such a decision raises ValueError (it was not made by :func:`prune_decision`)."""
    decision = record.get(PRUNE_KEY)
    if decision is None:
        return None
    if not (isinstance(decision, dict) and isinstance(decision.get("annotations"), dict)
            and all(isinstance(decision.get(key), list) for key in ("kept", "dropped"))):
        raise ValueError("%s: its prune entry is no decision (a dict of annotations, kept, dropped): %r"
                         % (record.get("slug") or "?", decision))
    return decision["annotations"], decision["kept"], decision["dropped"]


def split_decided(records):
    """``([(record, annotations, kept, dropped)], [record])``: the Harbor records that carry a decision with something
    to drop, and the records that carry none (their claims still to be read). A carried decision that drops nothing
    is left out of both."""
    decided, undecided = [], []
    for record in records or []:
        decision = carried_decision(record)
        if decision is None:
            undecided.append(record)
        elif (record.get("storage") or {}).get("mode") == STORAGE_HARBOR and decision[2]:
            decided.append((record,) + decision)
    return decided, undecided


def kept_revisions_patch(record, annotations, kept):
    """The merge patch that leaves only the ``kept`` revisions in the claim's revisions annotation."""
    revisions = [r for r in pull_marker.claim_revisions(annotations) if r["digest"] in kept]
    return {"metadata": {"annotations": {
        pull_marker.ANNOTATION_REVISIONS: pull_marker.pvc_annotations({"revisions": revisions}).get(
            pull_marker.ANNOTATION_REVISIONS, "[]")}}}


def prune(client, records, keep=pull_marker.DEFAULT_KEEP_REVISIONS, check_mode=False, timeout=600, uid=None):
    """Prune every record's claim down to its kept revisions; return {slug: {"kept": [...], "dropped": [...]}}.

    A record carrying its decision (:func:`split_decided`) is pruned as decided; the claims are listed (one call)
    only for the records that carry none, and ``keep`` applies to those."""
    pvc_res = client.resource("PersistentVolumeClaim", "v1")
    due, undecided = split_decided(records)
    if undecided:
        selector = ",".join(naming.label_selectors(naming.SELECTIONS["model_cache"]))
        claims = (_dict(client.get(pvc_res, label_selector=selector)) or {}).get("items") or []
        due += plan_prunes(undecided, claims, keep)
    done = {}
    for record, annotations, kept, dropped in due:
        options = {} if uid is None else {"uid": uid}
        job = manifests.prune_job_manifest(record, kept, holder_node=claim_holder(client, record),
                                           active_deadline_seconds=timeout, **options)
        run_claim_job(client, job, timeout + 30, check_mode)
        if not check_mode:
            client.patch(pvc_res, kept_revisions_patch(record, annotations, kept), name=record["storage"]["pvc"],
                         namespace=record["namespace"], content_type="application/merge-patch+json")
        done[record["slug"]] = {"kept": kept, "dropped": dropped}
    return done
