# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What serving_stack does on the cluster, decided in one place from one read (the module serving_stack_info).

The module reads the cluster once (``helm version``, one ``helm list``, the release-digest ConfigMaps, the model
claims that model_storage's results do not carry (:func:`claims_to_read`), the objects the stacks apply or remove, in
check mode the namespaces); :func:`decide` turns that read, the plan records, their stack specs and the charts into
ready lists the role only applies:

- ``problems``: models whose claim holds no verified pull, or another artifact than the plan's (the module fails
  with them, except in check mode);
- ``render``: every release that goes to Helm, of every record (serving_stack_render renders them before any
  change);
- ``repairs``, ``releases`` (per chart key of every stack), ``gateways``, ``apply``, ``uninstall``, ``remove``,
  ``prune``, ``endpoints``: what the role does for the *live* records (all records; in check mode those whose
  namespace exists already, since nothing can be dry-run in a namespace that does not exist). A ``prune`` entry is
  the record with its decision under ``prune`` (storage/revisions.py:prune_decision: the claim's annotations, the
  digests kept and dropped).

A record's releases are those of its stack (stacks.for_record: the seed's infra, gaie, modelservice; llm-d v0.10's
router). A model that moved between stacks (one inventory change) still has the other stack on the cluster; the
one read shows it and the run moves it over in this order: the new stack's releases (Helm waits for them), then
``apply`` in list order, each definition waited for (a v0.10 spec lists its model-server objects before the
ExternalName Service ``llmd-gateway-<slug>``, so the endpoint switches only once the new Deployments are Available;
a seed record that moves back gets its gateway Service there too, not before its releases), then ``uninstall``
(the other stack's releases ``helm list`` shows in the model's namespace: ms, gaie, infra for a v0.10 record;
router for a seed record), then ``remove`` (retired objects, and for a seed record that moves back the v0.10
model-server objects, listed by label only in that case: :func:`leftover_queries`).

Each release item carries what its ``kubernetes.core.helm`` call takes and what records it afterwards (the
release digest and its ConfigMap's metadata). Pure functions, unit-tested on fixtures.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import hashlib

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import helm_repair, live_state, release_digest, stacks
from ansible_collections.ai_platform.serving.plugins.module_utils.stack import values as stack_values
from ansible_collections.ai_platform.serving.plugins.module_utils.stack.render import merged, record_part
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import claims as storage_claims
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.revisions import (
    PRUNE_KEY,
    plan_prunes,
    prune_decision,
)

STORAGE_HARBOR = "harbor"
# (apiVersion, kind) of the model-server objects of llm-d v0.10 (stack/modelserver.py:ALLOWED_KINDS): what the move
# back to the seed's stack lists by label and removes
MODELSERVER_KINDS = (
    ("apps/v1", "Deployment"),
    ("apps/v1", "StatefulSet"),
    ("v1", "Service"),
    ("v1", "ServiceAccount"),
    ("v1", "ConfigMap"),
    ("policy/v1", "PodDisruptionBudget"),
    ("autoscaling/v2", "HorizontalPodAutoscaler"),
)
# the wait of the apply task when the Helm timeout given is no Go duration
DEFAULT_WAIT = 600
# the key of a model_storage result that carries its claim's annotations after this play's pull or record
CLAIM_ANNOTATIONS = "claim_annotations"
UNPULLED = ("%s: its claim holds no verified pull (no model_storage result in this play, no digest annotation on the "
            "claim). Fix: run model_storage first (site.yml --tags storage) and see playbooks/cache.yml for the claim "
            "state.")


def _name(record):
    return record.get("name") or record.get("slug") or "?"


def harbor_records(records):
    """The records pulled from Harbor (their claims are the collection's)."""
    return [r for r in records or [] if (r.get("storage") or {}).get("mode") == STORAGE_HARBOR]


def claim_records(records, storage_results):
    """Harbor records without a model_storage result in this play: their claim must hold a verified pull."""
    return [r for r in harbor_records(records) if r.get("slug") not in (storage_results or {})]


def _result_annotations(record, storage_results):
    """The claim annotations model_storage's result in this play carries for ``record`` (a dict), else None (no
    result, or one without ``claim_annotations``: an older caller, check mode - not known)."""
    result = (storage_results or {}).get(record.get("slug"))
    annotations = result.get(CLAIM_ANNOTATIONS) if isinstance(result, dict) else None
    return annotations if isinstance(annotations, dict) else None


def known_claims(records, storage_results):
    """Claim-shaped dicts (``metadata``: ``name``, ``namespace``, ``annotations``) of the Harbor records whose
    model_storage result in this play carries the claim's annotations: what a read of those claims would return
    after this play's pull (a copy, the results are not changed)."""
    found = []
    for record in harbor_records(records):
        annotations = _result_annotations(record, storage_results)
        if annotations is not None:
            found.append({"metadata": {"name": (record.get("storage") or {}).get("pvc"),
                                       "namespace": record.get("namespace"), "annotations": dict(annotations)}})
    return found


def claims_to_read(records, storage_results):
    """The Harbor records whose claim must still be read from the cluster: those without ``claim_annotations`` in
    their model_storage result (none of them when every result carries them)."""
    return [r for r in harbor_records(records) if _result_annotations(r, storage_results) is None]


def claims_in_use(records, read_claims, storage_results):
    """The claims the decisions use: those of :func:`known_claims` and, for the other ones, ``read_claims`` (a
    claim of both is taken from the result, the state after this play's pull). With no ``claim_annotations`` in
    ``storage_results`` this is ``read_claims`` as it is."""
    known = known_claims(records, storage_results)
    if not known:
        return list(read_claims or [])
    index = live_state.claims_by_key(known)
    kept = [c for c in read_claims or [] if live_state.claim_key((c.get("metadata") or {}).get("namespace"),
                                                                 (c.get("metadata") or {}).get("name")) not in index]
    return kept + known


def _claim_annotations(record, index):
    claim = index.get(live_state.claim_key(record.get("namespace"), (record.get("storage") or {}).get("pvc")))
    return ((claim or {}).get("metadata") or {}).get("annotations") or {}


def claim_problems(records, claims):
    """One message per record of ``records`` whose claim carries no pulled digest, then one per record whose claim
    records a pull of another artifact than the plan's (storage/claims.py:claim_plan_problem)."""
    index = live_state.claims_by_key(claims)
    unpulled, off_plan = [], []
    for record in records or []:
        annotations = _claim_annotations(record, index)
        if not annotations.get(stack_values.PULLED_DIGEST_ANNOTATION):
            unpulled.append(UNPULLED % _name(record))
        problem = storage_claims.claim_plan_problem(record, annotations)
        if problem:
            off_plan.append(problem)
    return unpulled + off_plan


def served_digests(records, claims, storage_results):
    """``{slug: digest}`` the claim of each model holds: model_storage's result in this play, else the digest
    annotation on the claim of ``records``; a model with neither is left out."""
    index = live_state.claims_by_key(claims)
    digests = {}
    for record in records or []:
        digest = _claim_annotations(record, index).get(stack_values.PULLED_DIGEST_ANNOTATION)
        if record.get("slug") and digest:
            digests[record["slug"]] = digest
    for slug, result in (storage_results or {}).items():
        if isinstance(result, dict) and result.get("digest"):
            digests[slug] = result["digest"]
    return digests


def stamp_served_digests(specs, digests):
    """The stack specs with the served digest on the pod templates (a new pull rolls the serving pods)."""
    return dict((slug, stack_values.stamp_served_digest(spec, digests[slug]) if slug in digests else spec)
                for slug, spec in (specs or {}).items())


def file_digest(text):
    """sha256 (hex) of a file's text without its trailing whitespace (as the digest the role took with Ansible's
    ``file`` lookup and ``hash('sha256')``, so that the recorded release digests stay valid)."""
    return hashlib.sha256((text or "").rstrip().encode("utf-8")).hexdigest()


def live_records(records, namespaces=None):
    """The records a run changes: all of them, or (``namespaces``: those that exist now, in check mode) the
    records whose namespace is among ``namespaces``."""
    if namespaces is None:
        return list(records or [])
    present = set(namespaces)
    return [r for r in records or [] if r.get("namespace") in present]


def stack_objects(specs):
    """``({slug: [definition to apply]}, {slug: [definition to remove when it exists]})`` of the stack specs:
    each model's plain objects and its routing object; its retired objects."""
    objects, retired = {}, {}
    for slug, spec in (specs or {}).items():
        routing = spec.get("routing")
        objects[slug] = list(spec.get("objects") or []) + (
            list(routing) if isinstance(routing, list) else [routing] if routing else [])
        retired[slug] = list(spec.get("stale") or [])
    return objects, retired


def helm_states(helm_list):
    """``{(namespace, release): status}`` of the parsed ``helm list``."""
    return dict(((item.get("namespace"), item.get("name")), item.get("status") or "") for item in helm_list or [])


def release_items(records, specs, charts, plan, helm_list, apply_options, post_renderer=None):
    """``[release item]`` of ``records`` that the release plan sends to Helm, in chart order (infra, gaie,
    modelservice, router: each record only its stack's), each: ``slug``, ``model``, ``namespace``, ``name`` (the release), ``chart`` (its key), ``ref``,
    ``repo``, ``version``, ``values`` (with the chart mark), the ``kubernetes.core.helm`` options of its state
    (``apply_options`` ``normal`` for a new or deployed release, ``forced`` for any other), ``post_renderer``
    (infra, router), ``label``, ``failure`` (the start of the failure line), ``digest``/``record`` (what the deploy
    records afterwards: the release digest and its ConfigMap's metadata) and ``plan_record`` (what
    serving_stack_render reads of the record: render.record_part)."""
    states = helm_states(helm_list)
    items = []
    for release_entry in stacks.all_releases():
        chart_key, name_key = release_entry.chart, release_entry.name_key
        chart = (charts or {}).get(chart_key) or {}
        for record in records or []:
            slug = record["slug"]
            if slug not in plan["deploy"].get(chart_key, ()):
                continue
            release, namespace = record["names"][name_key], record["namespace"]
            state = states.get((namespace, release), "")
            forced = state not in ("", "deployed")
            item = {
                "slug": slug, "model": _name(record), "namespace": namespace, "name": release, "chart": chart_key,
                "ref": chart.get("ref"), "repo": chart.get("repo") or "", "version": str(chart.get("version") or ""),
                "values": merged(specs[slug]["values"][chart_key], plan["marks"][chart_key]),
                "label": "%s: %s%s" % (slug, release, " (%s: forced)" % state if forced else ""),
                "failure": "%s: chart %s (%s %s) failed in namespace %s" % (
                    _name(record), chart_key, chart.get("ref", "?"), chart.get("version") or "", namespace),
                "digest": plan["digests"][slug][release],
                "record": {"name": naming.slug_name("release_digests", slug), "namespace": namespace,
                           "labels": naming.model_labels(slug, naming.COMPONENT_RELEASE_DIGESTS)},
                "plan_record": record_part(record),
            }
            item.update((apply_options or {}).get("forced" if forced else "normal") or {})
            if release_entry.post_renderer and post_renderer:
                item["post_renderer"] = post_renderer
            items.append(item)
    return items


def repairs(helm_list, records, timeout, helm_binary="helm", kubeconfig=None):
    """``[{argv, label}]``: the helm calls that undo what an interrupted run left (stack/helm_repair.py)."""
    found = []
    for repair in helm_repair.repairs(helm_list, records, timeout):
        argv = [helm_binary] + repair["args"] + (["--kubeconfig", kubeconfig] if kubeconfig else [])
        found.append({"argv": argv, "label": "%s/%s: %s revision %s -> %s" % (
            repair["namespace"], repair["name"], repair["status"], repair["revision"], repair["action"])})
    return found


def endpoints(records, specs):
    """``{slug: {namespace, kind, name, endpoint}}``: how clients reach each record's model (serving_stack_results)."""
    found = {}
    for record in records or []:
        slug = record["slug"]
        if slug not in (specs or {}):
            raise ValueError("%s has no stack spec (the values step computes one per record)" % _name(record))
        routing = specs[slug]["routing"]
        if routing:
            kind, name = routing["kind"], routing["metadata"]["name"]
        else:  # llm-d v0.10 generative (standalone): clients call the gateway Service, which leads to the router
            kind, name = "Service", record["names"]["gateway_service"]
        found[slug] = {"namespace": record["namespace"], "kind": kind, "name": name,
                       "endpoint": specs[slug]["endpoint"]}
    return found


def listed_releases(helm_list):
    """``{namespace: set(release)}`` of the parsed ``helm list`` (any status)."""
    found = {}
    for item in helm_list or []:
        found.setdefault(item.get("namespace"), set()).add(item.get("name"))
    return found


def left_behind(record, listed):
    """``[(stack, Release, release name)]`` of the other stacks' releases of ``record`` that ``listed``
    (:func:`listed_releases`) shows in its namespace, in removal order (each stack's releases in reverse)."""
    names = record.get("names") or {}
    here = listed.get(record.get("namespace")) or set()
    return [(other, entry, names[entry.name_key]) for other in stacks.others(stacks.for_record(record))
            for entry in reversed(other.releases) if names.get(entry.name_key) in here]


def uninstall_items(records, helm_list):
    """``[uninstall item]``: for every record, the other stack's releases Helm still lists in its namespace (a model
    that moved: the seed's ms, gaie, infra for an llm-d v0.10 record; the router for a seed record), in that
    order, each: ``slug``, ``model``, ``namespace``, ``name`` (the release), ``chart``, ``stack`` (the stack it is
    of), ``label``, ``failure`` (the start of the failure line) and ``record`` (the metadata of the model's
    release-digest ConfigMap: its key for the release is no longer trusted, release_digest.release_plan)."""
    listed = listed_releases(helm_list)
    items = []
    for record in records or []:
        slug, namespace = record["slug"], record["namespace"]
        for other, entry, release in left_behind(record, listed):
            items.append({
                "slug": slug, "model": _name(record), "namespace": namespace, "name": release, "chart": entry.chart,
                "stack": other.name,
                "label": "%s: %s (%s, moved to %s)" % (slug, release, other.name, stacks.for_record(record).name),
                "failure": "%s: uninstall of %s (chart %s of stack %s, left behind by the move to %s) failed in "
                           "namespace %s" % (_name(record), release, entry.chart, other.name,
                                             stacks.for_record(record).name, namespace),
                "record": {"name": naming.slug_name("release_digests", slug), "namespace": namespace},
            })
    return items


def moving_back(records, helm_list):
    """The seed records whose namespace still has their llm-d v0.10 router release in ``helm list``: models moved
    back to the seed's stack, whose v0.10 model-server objects are still on the cluster."""
    listed = listed_releases(helm_list)
    return [r for r in records or [] if stacks.for_record(r) is stacks.SEED
            and any(other is stacks.V010 for other, _entry, _name_ in left_behind(r, listed))]


def leftover_selector(slug):
    """The labels of one model's llm-d v0.10 model-server objects (stack/modelserver.py:owned_objects puts them on
    every object: the model's labels and ``stacks.STACK_LABEL``)."""
    return dict(naming.model_labels(slug), **{stacks.STACK_LABEL: stacks.V010.name})


def leftover_queries(records, helm_list):
    """``[{slug, namespace, selector, kinds}]``: the lists serving_stack_info makes for the v0.10 model-server
    objects of :func:`moving_back` (``selector``: label selectors; ``kinds``: MODELSERVER_KINDS); none (no API
    call) for a model that did not move back."""
    return [{"slug": r["slug"], "namespace": r["namespace"],
             "selector": naming.label_selectors(leftover_selector(r["slug"])), "kinds": list(MODELSERVER_KINDS)}
            for r in moving_back(records, helm_list)]


def leftover_objects(queries, listed):
    """The definitions to delete (apiVersion, kind, metadata name and namespace) of the objects ``listed``
    (``{slug: [object]}``, what the lists of ``queries`` returned) that carry the labels of their query."""
    found = []
    for query in queries or []:
        want = leftover_selector(query["slug"])
        for obj in (listed or {}).get(query["slug"]) or []:
            meta = obj.get("metadata") or {}
            labels = meta.get("labels") or {}
            if meta.get("deletionTimestamp") or any(labels.get(k) != v for k, v in want.items()):
                continue
            found.append({"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
                          "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace") or query["namespace"]}})
    return found


def wait_seconds(duration, default=DEFAULT_WAIT):
    """Seconds of a Go duration (``10m0s``, ``1h``, ``90s``; a bare number is seconds), else ``default``."""
    text = str(duration or "").strip()
    if text.isdigit():
        return int(text)
    total, number, units = 0.0, "", {"h": 3600, "m": 60, "s": 1}
    for char in text:
        if char.isdigit() or char == ".":
            number += char
        elif char in units and number:
            total += float(number) * units[char]
            number = ""
        else:
            return default
    if number or not text:
        return default
    return int(total) or default


def decide(records, specs, charts, read, storage_results=None, keep=1, post_renderer=None,
           post_renderer_digest="", timeout="10m0s", helm_binary="helm", kubeconfig=None):
    """Everything serving_stack does, from the records, their stack specs, the charts and one ``read`` of the
    cluster: ``{helm_list, digest_maps, claims, live (objects: {object_key: object or None}), namespaces (None: not
    read), apply_options, leftovers ({slug: [object]}: what the lists of :func:`leftover_queries` returned)}``;
    ``claims`` need hold only the claims of :func:`claims_to_read`, the others come from ``storage_results``
    (:func:`claims_in_use`). Returns ``problems`` and the ready lists (module docstring)."""
    claimed = claim_records(records, storage_results)
    claims = claims_in_use(records, read.get("claims"), storage_results)
    specs = stamp_served_digests(specs, served_digests(claimed, claims, storage_results))
    extras = dict((chart, post_renderer_digest) for chart in stacks.all_post_rendered()) if post_renderer_digest else {}
    plan = release_digest.release_plan(records, specs, charts, read.get("helm_list"), read.get("digest_maps"), extras)
    live = live_records(records, read.get("namespaces"))
    live_slugs = set(r["slug"] for r in live)
    objects, retired = stack_objects(dict((r["slug"], specs[r["slug"]]) for r in live))
    due = live_state.objects_to_apply(objects, read.get("live") or {})
    items = release_items(records, specs, charts, plan, read.get("helm_list"), read.get("apply_options"),
                          post_renderer)
    prune_due = dict((record["slug"], prune_decision(annotations, kept, dropped))
                     for record, annotations, kept, dropped in plan_prunes(harbor_records(live), claims, keep))
    due_list = [d for ds in due.values() for d in ds]
    back = set(r["slug"] for r in moving_back(live, read.get("helm_list")))
    # the gateway Services applied between the seed's infra and gaie releases: only those of seed records that do not
    # move back (a move switches its endpoint in ``apply``, after the releases; llm-d v0.10 lists it last there)
    early = [r for r in live if stacks.for_record(r) is stacks.SEED and r["slug"] not in back]
    leftovers = leftover_objects(leftover_queries(live, read.get("helm_list")), read.get("leftovers"))
    return {
        "problems": claim_problems(claimed, claims),
        "render": items,
        "releases": dict((chart, [i for i in items if i["chart"] == chart and i["slug"] in live_slugs])
                         for chart in stacks.all_chart_keys()),
        # the chart keys whose releases take the post-renderer (release.yml gives them its environment)
        "post_rendered": list(stacks.all_post_rendered()),
        "repairs": repairs(read.get("helm_list"), live, timeout, helm_binary, kubeconfig),
        "gateways": [d for r in early for d in specs[r["slug"]].get("objects") or [] if d in due_list],
        # applied in this order, each waited for (at most ``apply_wait`` seconds, the Helm timeout's)
        "apply": due_list,
        "apply_wait": wait_seconds(timeout),
        "uninstall": uninstall_items(live, read.get("helm_list")),
        "remove": [d for ds in live_state.objects_to_remove(retired, read.get("live") or {}).values() for d in ds]
        + leftovers,
        # each with its decision, so that model_revisions reads no claim again (storage/revisions.py:split_decided)
        "prune": [dict(r, **{PRUNE_KEY: prune_due[r["slug"]]}) for r in live if r["slug"] in prune_due],
        "endpoints": endpoints(live, specs),
        "unchanged": [name for name in plan["unchanged"] if name in release_names(live)],
    }


def release_names(records):
    """``namespace/release`` of every release of ``records`` (each record's own stack's)."""
    return set("%s/%s" % (r["namespace"], r["names"][key]) for r in records or []
               for key in stacks.release_keys(stacks.for_record(r)))
