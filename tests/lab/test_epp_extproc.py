"""The real EPP (upstream inferencepool v1.2.0 chart) picks the decode pod its pool selects.

`epp-extproc-client` (lab/extproc-client, built with the EPP's own Go modules) asks the EPP's
Service over ext_proc v3 as a gateway's Envoy does: request headers, then a chat-completion body.
With one decode pod Ready the EPP answers with that pod's IP and the pool's target port (header
mutation and dynamic metadata); scaled to zero, with an immediate 503 answer. The decode pod is
the lab's inference simulator stand-in (vLLM-style metrics). tests/lab/test_envoy_route.py sends
real HTTP through Envoy to the same chart's EPP.
"""

# pytest fixtures are parameters named like the fixture functions
# pylint: disable=redefined-outer-name

import json
import shutil
import subprocess
import time

import pytest

from ansible_collections.ai_platform.serving.tests.support.gaie_pool import MODEL, epp_over_decode


@pytest.fixture
def client(env):
    path = shutil.which("epp-extproc-client", path=env["PATH"])
    if not path:
        pytest.fail("epp-extproc-client is not on the lab's PATH: run `lab/lab up`", pytrace=False)
    return path


def ask(client, address):
    """One ext_proc exchange; (exit code, parsed answer or stderr)."""
    proc = subprocess.run([client, "-addr", address, "-model", MODEL, "-timeout", "15s"],
                          capture_output=True, text=True, check=False)
    if proc.returncode in (0, 2):
        return proc.returncode, json.loads(proc.stdout)
    return proc.returncode, proc.stderr


def poll(client, address, want_code, timeout=90):
    """Ask until the EPP answers with want_code (0 picked, 2 immediate response)."""
    deadline = time.monotonic() + timeout
    answers = []
    while time.monotonic() < deadline:
        code, answer = ask(client, address)
        answers.append((code, answer))
        if code == want_code:
            return answer
        time.sleep(2)
    raise AssertionError(f"no answer with exit code {want_code} in {timeout}s; last answers: "
                         f"{answers[-3:]}")


def test_epp_picks_the_ready_decode_pod_and_errors_with_none(kube, env, namespace, versions,
                                                             client, tmp_path):
    with epp_over_decode(kube, env, namespace, versions, tmp_path, prefix="gaie-xp") as pool:
        expected = pool.wait_decode_endpoint()
        picked = poll(client, pool.epp_address, want_code=0)
        print(f"EPP picked {picked['endpoint']} (decode pod {expected})")
        assert picked["endpoint"] == expected, picked
        assert picked["metadata_endpoint"] == expected, picked

        pool.scale_decode_to_zero()
        refused = poll(client, pool.epp_address, want_code=2)
        print(f"EPP with no decode pod: {refused['immediate_response']}")
        assert refused["immediate_response"]["status"] == 503, refused
        assert "failed to find candidate pods" in refused["immediate_response"]["body"], refused
