# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Lease per model namespace that serialises concurrent runs of the collection.

Two runs that create and wait for the same pull Job race (one replaces the other's Job).
Before it changes a model's storage, a run takes the Lease ``ai-platform-serving`` in the
model's namespace (``coordination.k8s.io/v1``) and gives it back at the end. A Lease held by
another run and not expired makes the run wait, then fail naming the holder; an expired one
(its run died) is taken over. Pure functions here; the module does the API calls with
optimistic concurrency (the resourceVersion), so two runs never both win.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import getpass
import random
import socket

from ansible_collections.ai_platform.serving.plugins.module_utils import naming

LEASE_NAME = naming.LEASE_NAME
ACQUIRE = "acquire"
RENEW = "renew"
TAKE_OVER = "take-over"
HELD = "held"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%S.%fZ"


def run_holder():
    """A new identity for this run: ``<user>@<host>/<random>`` (the user ``ansible`` when none can be found)."""
    try:
        user = getpass.getuser()
    except (KeyError, OSError, ImportError):
        user = ""
    return "%s@%s/%d" % (user or "ansible", socket.gethostname(), random.SystemRandom().randint(0, 2147483647))


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc) if hasattr(datetime, "timezone") else datetime.datetime.utcnow()


def format_time(moment):
    return moment.strftime(TIME_FORMAT)


def parse_time(text):
    """A Lease MicroTime (``2026-12-03T05:10:05.123456Z``, fraction optional) as an aware UTC datetime."""
    if not text:
        return None
    if not isinstance(text, str):
        return text if text.tzinfo else text.replace(tzinfo=datetime.timezone.utc)
    text = text.rstrip("Z")
    for fmt in ("%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.datetime.strptime(text, fmt).replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            continue
    return None


def lease_manifest(namespace, holder, duration, moment, acquired=None, resource_version=None):
    metadata = {"name": LEASE_NAME, "namespace": namespace,
                "labels": naming.managed_labels()}
    if resource_version:
        metadata["resourceVersion"] = resource_version
    return {
        "apiVersion": "coordination.k8s.io/v1",
        "kind": "Lease",
        "metadata": metadata,
        "spec": {"holderIdentity": holder, "leaseDurationSeconds": int(duration),
                 "acquireTime": format_time(acquired or moment), "renewTime": format_time(moment)},
    }


def expires_at(lease):
    spec = (lease or {}).get("spec") or {}
    renewed = parse_time(spec.get("renewTime") or spec.get("acquireTime"))
    if renewed is None:
        return None
    return renewed + datetime.timedelta(seconds=int(spec.get("leaseDurationSeconds") or 0))


def lease_action(lease, holder, moment):
    """What to do with the live Lease: acquire (none), renew (ours), take-over (expired) or held."""
    if not lease:
        return ACQUIRE
    spec = lease.get("spec") or {}
    if spec.get("holderIdentity") == holder:
        return RENEW
    if not spec.get("holderIdentity"):
        return TAKE_OVER
    end = expires_at(lease)
    if end is None or end <= moment:
        return TAKE_OVER
    return HELD


def held_message(namespace, lease, what="deploying"):
    spec = (lease or {}).get("spec") or {}
    end = expires_at(lease)
    return ("namespace %s is locked by %s since %s (Lease %s, expires %s): another run is %s this model. Wait for it "
            "to finish and re-run; if that run died, delete the Lease: kubectl delete lease %s -n %s"
            % (namespace, spec.get("holderIdentity"), spec.get("acquireTime"), LEASE_NAME,
               format_time(end) if end else "never", what, LEASE_NAME, namespace))
