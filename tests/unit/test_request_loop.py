# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The request loop's log as the stack-move lab test reads it (tests/support/site.py: loop_requests, loop_summary,
loop_line, last_change), on fixture text in LOOP_SCRIPT's format; and the script itself, run by sh with a wget
stand-in."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import time

import pytest

from ansible_collections.ai_platform.serving.tests.support.site import (
    LOOP_SCRIPT, last_change, loop_line, loop_requests, loop_summary)

# a move: ok, then an outage of three requests (1.5 s until the next success), ok, one more failure, ok
MOVE = """\
1796680000.000000000 ok
1796680000.500000000 ok
1796680001.000000000 fail
1796680001.500000000 fail
1796680002.000000000 fail
1796680002.500000000 ok
1796680003.000000000 ok
1796680003.500000000 fail
1796680004.000000000 ok
end 9
"""

CLEAN = "1796680000 ok\n1796680001 ok\n1796680002 ok\nend 3\n"


def test_the_lines_are_parsed_and_anything_else_left_out():
    text = "wget: bad address 'x'\n1796680000.25 ok\n1796680001 fail\nnot-a-time ok\n1796680002 maybe\nend 2\n"
    assert loop_requests(text) == [(1796680000.25, True), (1796680001.0, False)]
    assert loop_requests("") == [] and loop_requests(None) == []


def test_a_move_with_failures():
    summary = loop_summary(MOVE)
    assert summary["total"] == 9 and summary["failed"] == 4
    assert summary["first"] == 1796680000.0 and summary["last"] == 1796680004.0
    assert summary["first_failure"] == 1796680001.0 and summary["last_failure"] == 1796680003.5
    # from the run's first failed request to the next request that succeeded
    assert summary["longest_outage"] == pytest.approx(1.5) and summary["longest_run"] == 3
    assert summary["ended"] is True


def test_no_failure_is_no_outage():
    summary = loop_summary(CLEAN)
    assert (summary["total"], summary["failed"], summary["longest_outage"], summary["longest_run"]) == (3, 0, 0.0, 0)
    assert summary["first_failure"] is None and summary["last_failure"] is None


def test_failures_to_the_end_count_to_the_last_request():
    summary = loop_summary("1796680000 ok\n1796680001 fail\n1796680003 fail\n")
    assert summary["longest_outage"] == 2.0 and summary["longest_run"] == 2
    assert summary["ended"] is False  # no `end` line: the loop was cut off


def test_a_single_failure_lasts_until_the_next_success():
    summary = loop_summary("1796680000 fail\n1796680000.75 ok\n")
    assert summary["longest_outage"] == pytest.approx(0.75) and summary["longest_run"] == 1


def test_the_longer_run_in_seconds_wins_over_more_failures():
    text = "1 fail\n2 fail\n3 fail\n3.5 ok\n10 fail\n20 ok\n"
    summary = loop_summary(text)
    assert summary["longest_outage"] == 10.0 and summary["longest_run"] == 1


def test_before_and_after_a_switch():
    summary = loop_summary(MOVE, switch=1796680002.5)
    assert (summary["before"], summary["after"]) == (5, 4)
    assert (summary["failed_before"], summary["failed_after"]) == (3, 1)
    assert "before" not in loop_summary(MOVE)


def test_the_line():
    assert loop_line("move to llm-d-v0.10", loop_summary(CLEAN)) == (
        "move to llm-d-v0.10: 0 of 3 requests failed, longest outage 0.0 s")
    assert loop_line("rollback", loop_summary(MOVE)) == (
        "rollback: 4 of 9 requests failed, longest outage 1.5 s (3 in a row; failures from 1796680001.00 to "
        "1796680003.50)")


def test_last_change_is_the_newest_managed_fields_time():
    service = {"metadata": {"managedFields": [
        {"manager": "kubectl", "operation": "Update", "time": "2026-12-07T23:40:12Z"},
        {"manager": "OpenAPI-Generator", "operation": "Update", "time": "2026-12-07T23:51:30Z"},
        {"manager": "kube-controller-manager", "operation": "Update"}]}}
    assert last_change(service) == 1796687490.0
    assert last_change({"metadata": {}}) is None and last_change(None) is None


def test_the_script_stops_by_itself_after_its_count(tmp_path):
    """LOOP_SCRIPT under sh with a wget stand-in on PATH (it records its arguments; every second call fails): one
    line per request, the stand-in's outcome, and the loop ends after its count."""
    calls = tmp_path / "calls"
    wget = tmp_path / "wget"
    wget.write_text('#!/bin/sh\necho "$*" >> %s\n[ $(wc -l < %s) -ne 2 ]\n' % (calls, calls))
    wget.chmod(0o755)
    out = subprocess.run(["sh", "-c", LOOP_SCRIPT, "request-loop", "http://x.example/v1/models", "3", "0.01", "5"],
                         capture_output=True, text=True, timeout=60, check=False,
                         env=dict(os.environ, PATH="%s:%s" % (tmp_path, os.environ["PATH"])))
    requests = loop_requests(out.stdout)
    assert [ok for _when, ok in requests] == [True, False, True], out
    # epoch seconds with hundredths, in order, now
    assert requests == sorted(requests) and abs(requests[0][0] - time.time()) < 30, out
    assert all(len(line.split()[0].split(".")[1]) == 2 for line in out.stdout.splitlines()[:3]), out
    assert out.stdout.splitlines()[-1] == "end 3"
    assert calls.read_text().splitlines() == ["-q -O /dev/null http://x.example/v1/models"] * 3
