"""Pure parts of the lab's tooling (no running lab needed)."""

import concurrent.futures
import json
import re
import tarfile
import threading

from labkit import build, cluster, host, kube, oci
from labkit.config import HOSTS_MARKER, Paths, load_versions

K8S_LIKE = """module k8s.io/kubernetes

go 1.24.0

godebug default=go1.24

require (
\tgithub.com/spf13/cobra v1.8.1
\tk8s.io/api v0.0.0
\tk8s.io/client-go v0.0.0
)

replace (
\tk8s.io/api => ./staging/src/k8s.io/api
\tk8s.io/client-go => ./staging/src/k8s.io/client-go
)
"""

ETCD_LIKE = """module go.etcd.io/etcd/server/v3

go 1.26.0

require (
\tgo.etcd.io/etcd/api/v3 v3.5.35
\tgo.etcd.io/etcd/client/v2 v2.305.35
)

replace (
\tgo.etcd.io/etcd/api/v3 => ../api
\tgo.etcd.io/etcd/client/v2 => ../client/v2
\tgo.etcd.io/etcd => ./FORBIDDEN_DEPENDENCY
)
"""


def test_only_placeholder_requirements_get_replaced():
    assert build.placeholder_modules(K8S_LIKE) == ["k8s.io/api", "k8s.io/client-go"]
    assert build.placeholder_modules(ETCD_LIKE) == []


def test_wrapper_module_pins_staging_to_published_release():
    comp = build.GoComponent(name="kubernetes", module="k8s.io/kubernetes", version="v1.33.13",
                             packages=("k8s.io/kubernetes/cmd/kubelet",),
                             replace_version="v0.33.13")
    gomod = build.wrapper_gomod(comp, K8S_LIKE)
    assert "require k8s.io/kubernetes v1.33.13" in gomod
    assert "\tk8s.io/api => k8s.io/api v0.33.13" in gomod
    assert "\tk8s.io/client-go => k8s.io/client-go v0.33.13" in gomod
    assert "godebug default=go1.24" in gomod
    assert "go 1.24.0" in gomod


def test_oci_image_is_reproducible_and_complete(tmp_path):
    layer = oci.Layer()
    layer.add_file("bin/tool", b"#!/bin/sh\n", 0o755)
    layer.symlinks["usr/bin/alias"] = "/bin/tool"
    first = oci.write_image(tmp_path / "a", "t", [layer], entrypoint=("/bin/tool",))
    second = oci.write_image(tmp_path / "b", "t", [layer], entrypoint=("/bin/tool",))
    assert first == second
    index = json.loads((tmp_path / "a" / "index.json").read_text())
    assert [m["annotations"]["org.opencontainers.image.ref.name"]
            for m in index["manifests"]] == ["t"]
    manifest = json.loads((tmp_path / "a" / "blobs" / "sha256" / first.split(":")[1]).read_bytes())
    blob = tmp_path / "a" / "blobs" / "sha256" / manifest["layers"][0]["digest"].split(":")[1]
    with tarfile.open(blob) as tar:
        assert tar.getnames() == ["bin", "usr", "usr/bin", "bin/tool", "usr/bin/alias"]
        assert tar.getmember("bin/tool").mode == 0o755


def test_retagging_replaces_the_index_entry(tmp_path):
    layer = oci.Layer()
    layer.add_file("a", b"1")
    oci.write_image(tmp_path, "t", [layer])
    layer.add_file("a", b"2")
    digest = oci.write_image(tmp_path, "t", [layer])
    index = json.loads((tmp_path / "index.json").read_text())
    assert [m["digest"] for m in index["manifests"]] == [digest]


def test_hosts_entries_are_added_and_removed_without_touching_others(tmp_path):
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n")
    host.set_hosts_entries(["harbor.example"], hosts_file=hosts)
    assert f"harbor.example {HOSTS_MARKER}" in hosts.read_text()
    host.set_hosts_entries(["harbor.example"], hosts_file=hosts)
    assert hosts.read_text().count("harbor.example") == 1
    host.set_hosts_entries([], hosts_file=hosts)
    assert hosts.read_text() == "127.0.0.1 localhost\n"


def test_helm_diff_is_installed_as_the_diff_plugin_and_not_on_path(tmp_path):
    binary = tmp_path / "bin" / "helm-diff"
    binary.parent.mkdir()
    binary.write_text("#!/bin/sh\n")
    # the lab's own pinned versions (lab/versions.env): every component the lab builds
    components = dict((c.name, c) for c in build.components(load_versions()))
    # linked into the lab's bin as helm-diff, never as "diff" (coreutils' diff stays first on PATH)
    assert components["helm-diff"].binaries() == ("helm-diff",)
    # Helm 4 beside Helm 3 under its own name: `helm` stays Helm 3
    assert components["helm"].binaries() == ("helm",) and components["helm4"].binaries() == ("helm4",)
    plugin = build.install_helm_plugin(tmp_path / "plugins", binary, "v3.13.2")
    assert plugin == tmp_path / "plugins" / "diff"
    text = (plugin / "plugin.yaml").read_text()
    assert 'name: "diff"' in text and 'version: "3.13.2"' in text and "hooks" not in text
    assert (plugin / "bin" / "diff").resolve() == binary.resolve()
    # a second install (every lab up) replaces the link
    build.install_helm_plugin(tmp_path / "plugins", binary, "v3.13.2")
    assert (plugin / "bin" / "diff").is_symlink()


FAKE_GO = """#!/bin/sh
# a stand-in for go that records its calls (the real builds run in lab up)
echo "$*" >> "$FAKE_GO_CALLS"
case "$1" in
  mod) printf '{"Path": "example.com/tool", "GoMod": "%s"}\\n' "$FAKE_GO_MOD" ;;
  env) echo go1.0 ;;
  build) while [ "$1" != "-o" ]; do shift; done
         case "$2" in */) mkdir -p "$2"; touch "$2/tool" ;; *) mkdir -p "$(dirname "$2")"; touch "$2" ;; esac ;;
esac
"""


def _fake_go(tmp_path, monkeypatch):
    fake = tmp_path / "bin" / "go"
    fake.parent.mkdir()
    fake.write_text(FAKE_GO)
    fake.chmod(0o755)
    gomod = tmp_path / "upstream.mod"
    gomod.write_text("module example.com/tool\n\ngo 1.24\n")
    calls = tmp_path / "calls"
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % fake.parent)
    monkeypatch.setenv("FAKE_GO_CALLS", str(calls))
    monkeypatch.setenv("FAKE_GO_MOD", str(gomod))
    return calls


def test_a_prefetched_build_downloads_once_then_compiles_into_the_cache(tmp_path, monkeypatch):
    """build_all fetches every uncached component's modules (prepare) while others compile; build then only
    compiles, appends to the same log, and stamps the cache so the next lab up reuses it."""
    calls = _fake_go(tmp_path, monkeypatch)
    comp = build.GoComponent(name="tool", module="example.com/tool", version="v1.0.0",
                             packages=("example.com/tool",))
    cache, logs = tmp_path / "cache", tmp_path / "logs"
    logs.mkdir()
    assert not build.is_cached(comp, cache)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        bin_dir = build.build(comp, cache, logs, pool.submit(build.prepare, comp, cache, logs))
    verbs = [line.split()[0] for line in calls.read_text().splitlines()]
    assert verbs.count("get") == 1 and verbs.count("build") == 1, verbs
    assert verbs.index("get") < verbs.index("build"), verbs
    assert (bin_dir / "tool").exists() and build.is_cached(comp, cache)
    assert "module lab.local/build/tool" in (cache / comp.key / "src" / "go.mod").read_text()
    calls.write_text("")
    assert build.build(comp, cache, logs) == bin_dir  # cached: no go call but the stamp's version
    assert [line.split()[0] for line in calls.read_text().splitlines()] in ([], ["env"]), calls.read_text()


def test_a_local_module_is_prefetched_like_the_others_then_compiled_once(tmp_path, monkeypatch):
    """A LocalGoModule (coredns, epp-extproc-client) downloads what its packages need (`go list -deps`,
    at its go.sum's versions) in build_all's prefetch, then compiles read-only; its digest keys the cache."""
    calls = _fake_go(tmp_path, monkeypatch)
    src = tmp_path / "src"
    src.mkdir()
    (src / "go.mod").write_text("module lab.local/tool\n")
    (src / "main.go").write_text("package main\n")
    comp = build.LocalGoModule(name="tool", src=src)
    cache, logs = tmp_path / "cache", tmp_path / "logs"
    logs.mkdir()
    assert not build.is_cached(comp, cache)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        bin_dir = build.build(comp, cache, logs, pool.submit(build.prepare, comp, cache, logs))
    lines = [line for line in calls.read_text().splitlines() if not line.startswith("env")]
    assert [line.split()[0] for line in lines] == ["list", "build"], lines
    assert "-deps" in lines[0] and "-mod=readonly" in lines[1]
    assert (bin_dir / "tool").is_file() and build.is_cached(comp, cache)
    calls.write_text("")
    assert build.build(comp, cache, logs) == bin_dir
    assert all(line.startswith("env") for line in calls.read_text().splitlines())
    (src / "main.go").write_text("package main // changed\n")
    assert not build.is_cached(comp, cache)  # a source change is a new key


def _corefile_plugins(text):
    """The plugin of each line directly inside a Corefile server block."""
    plugins, depth = [], 0
    for line in text.splitlines():
        words = line.split()
        if depth == 1 and words and words[0] != "}":
            plugins.append(words[0])
        depth += line.count("{") - line.count("}")
    return plugins


def test_the_lab_coredns_has_every_plugin_its_corefile_uses_in_upstream_order(tmp_path):
    """lab/coredns builds CoreDNS with only the Corefile's plugins: each must be imported and in the
    directive list (else CoreDNS refuses the Corefile: "Unknown directive"), in upstream's order."""
    comp = dict((c.name, c) for c in build.components(load_versions()))["coredns"]
    assert isinstance(comp, build.LocalGoModule) and comp.binaries() == ("coredns",)
    paths = Paths(root=tmp_path, cache=tmp_path / "cache")
    paths.etc.mkdir()
    kube.coredns_argv(paths, tmp_path / "bin")
    used = _corefile_plugins((paths.etc / "Corefile").read_text())
    assert used == ["bind", "errors", "hosts", "kubernetes", "cache", "reload"]
    main_go = (comp.src / "main.go").read_text()
    imported = re.findall(r'_ "github.com/coredns/coredns/plugin/(\w+)"', main_go)
    directives = re.findall(r'^\t"(\w+)",$', main_go, re.MULTILINE)
    assert sorted(imported) == sorted(used) == sorted(directives)
    # upstream v1.12.1's order (core/dnsserver/zdirectives.go), restricted to these plugins
    assert directives == ["reload", "bind", "errors", "cache", "hosts", "kubernetes"]


def test_the_lab_coredns_module_requires_the_pinned_coredns():
    gomod = (build.COREDNS_SRC / "go.mod").read_text()
    assert build.required_version(gomod, "github.com/coredns/coredns") == load_versions()["COREDNS_VERSION"]


def test_build_all_compiles_each_component_as_soon_as_its_download_is_done(tmp_path, monkeypatch):
    """A cold build compiles in the order the downloads end, not in list order: a small component whose modules
    arrive first compiles while the big one's still come in; cached ones are not downloaded; the linked bin dirs
    keep the list order."""
    slow_download = threading.Event()
    order = []
    comps = [build.GoComponent(name=n, module="example.com/" + n, version="v1", packages=("example.com/" + n,))
             for n in ("big", "small", "cached")]

    def prepare(comp, cache, logs):
        if comp.name == "big":
            assert slow_download.wait(10), "the small component never compiled while big downloaded"
        order.append("get " + comp.name)
        return comp.name

    def build_one(comp, cache, logs, prepared=None):
        if prepared is not None:
            assert prepared.result() == comp.name
        order.append("build " + comp.name)
        if comp.name == "small":
            slow_download.set()
        return tmp_path / comp.name

    linked = []
    monkeypatch.setattr(build, "components", lambda versions: comps)
    monkeypatch.setattr(build, "is_cached", lambda comp, cache: comp.name == "cached")
    monkeypatch.setattr(build, "prepare", prepare)
    monkeypatch.setattr(build, "build", build_one)
    for name in ("build_c_static", "build_go_local", "install_helm_plugin"):
        monkeypatch.setattr(build, name, lambda *args: None)
    monkeypatch.setattr(build, "link_bins", lambda dirs, target: linked.extend(dirs))
    paths = type("Paths", (), dict(cache=tmp_path / "cache", logs=tmp_path / "logs", bin=tmp_path / "bin",
                                   helm_plugins=tmp_path / "plugins"))()
    cluster.build_all(paths, {"HELM_DIFF_VERSION": "v1"})
    assert order == ["build cached", "get small", "build small", "get big", "build big"], order
    assert linked[:3] == [tmp_path / "big", tmp_path / "small", tmp_path / "cached"], linked
