"""The namespace Lease: who may take it, when it expires, what the refusal says."""

import datetime
import re

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import lease as ml

NOW = datetime.datetime(2026, 12, 3, 5, 0, 0, tzinfo=datetime.timezone.utc)


def lease(holder, renewed_seconds_ago, duration=600):
    moment = NOW - datetime.timedelta(seconds=renewed_seconds_ago)
    return ml.lease_manifest("llm-d-m", holder, duration, moment, acquired=moment - datetime.timedelta(seconds=5))


@pytest.mark.parametrize("live, action", [
    (None, ml.ACQUIRE),
    (lease("me@ctl/1", 30), ml.RENEW),
    (lease("other@ctl/2", 30), ml.HELD),
    (lease("other@ctl/2", 601), ml.TAKE_OVER),       # its run died: the Lease expired
    (lease("", 1), ml.TAKE_OVER),
])
def test_lease_action(live, action):
    assert ml.lease_action(live, "me@ctl/1", NOW) == action


def test_manifest_round_trips_its_times():
    made = lease("me@ctl/1", 0, duration=2400)
    assert made["apiVersion"] == "coordination.k8s.io/v1" and made["metadata"]["name"] == "ai-platform-serving"
    assert made["spec"]["leaseDurationSeconds"] == 2400
    assert ml.parse_time(made["spec"]["renewTime"]) == NOW
    assert ml.expires_at(made) == NOW + datetime.timedelta(seconds=2400)
    assert ml.parse_time("2026-12-03T05:00:00Z") == NOW


def test_held_message_names_the_holder_and_the_way_out():
    text = ml.held_message("llm-d-m", lease("alice@ctl/7", 10))
    assert "namespace llm-d-m is locked by alice@ctl/7 since" in text
    assert "kubectl delete lease ai-platform-serving -n llm-d-m" in text


def test_a_run_is_named_user_at_host_and_a_random_number_each_time():
    first, second = ml.run_holder(), ml.run_holder()
    assert re.match(r"^[^@/]+@[^@/]+/\d+$", first), first
    assert first.split("/")[0] == second.split("/")[0]
    assert len(set(ml.run_holder() for _n in range(20))) > 1
