"""helm (built by the lab) pushes a chart to the Harbor stand-in over TLS and installs it from
there with the robot's credentials, as the serving_stack role does with mirrored charts. Each test runs on
both Helm majors of the support matrix: `helm` (Helm 3) and `helm4` (Helm 4), with the same diff plugin."""

import subprocess
import uuid

import pytest

HELMS = {"helm": "HELM_VERSION", "helm4": "HELM4_VERSION"}


@pytest.fixture(params=sorted(HELMS))
def helm(request, env, versions):
    """The helm binary under test; its `version` must be the pinned one."""
    shown = subprocess.run([request.param, "version", "--short"], env=env, capture_output=True, text=True,
                           check=True).stdout.strip()
    assert shown.startswith(versions[HELMS[request.param]]), (request.param, shown)
    return request.param


# helm-diff 3.13.2 (the newest the Go module proxy serves here) runs `helm template --validate --dry-run=client`,
# which Helm 4 refuses (the two flags are exclusive there): under Helm 4 it needs --disable-validation.
# kubernetes.core 6.6 knows this and, with a helm-diff older than 3.14.0 on Helm 4, uses its own check instead
# (serving_stack's chart mark keeps that check exact; README "Compatibility").
DIFF_ARGS = {"helm": [], "helm4": ["--disable-validation"]}


def _helm(env, helm, *args, cwd=None):
    return subprocess.run([helm, *args], env=env, cwd=cwd, capture_output=True, text=True,
                          check=True).stdout


def _write_chart(directory, name, version):
    (directory / "templates").mkdir(parents=True)
    (directory / "Chart.yaml").write_text(
        f"apiVersion: v2\nname: {name}\nversion: {version}\ntype: application\n")
    (directory / "templates" / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-marker\n"
        "data:\n  chart: {{ .Chart.Name }}-{{ .Chart.Version }}\n")


def test_chart_round_trip_through_the_registry(kube, env, namespace, tmp_path, helm):
    version = f"0.1.{uuid.uuid4().int % 100000}"
    _write_chart(tmp_path / "labchart", "labchart", version)
    _helm(env, helm, "package", "labchart", cwd=tmp_path)
    tls = ["--ca-file", env["AIPS_LAB_CA"], "--registry-config", env["AIPS_LAB_DOCKER_CONFIG"]]
    repo = f"oci://{env['AIPS_LAB_HARBOR_HOST']}/images-infra/charts"
    _helm(env, helm, "push", f"labchart-{version}.tgz", repo, *tls, cwd=tmp_path)
    _helm(env, helm, "install", "demo-" + helm, f"{repo}/labchart", "--version", version, "-n", namespace,
          *tls)
    marker = kube.get("configmap", "demo-%s-marker" % helm, namespace)
    assert marker["data"]["chart"] == f"labchart-{version}"


def test_helm_diff_plugin_compares_a_release_with_its_upgrade(kube, env, namespace, tmp_path, versions, helm):
    """The lab's helm-diff (Helm's diff plugin, from HELM_PLUGINS): kubernetes.core.helm uses it instead of its
    name-version-values check. An upgrade that changes a template shows that change; the same chart shows none."""
    assert env.get("HELM_PLUGINS"), "lab/lab env exports no HELM_PLUGINS"
    listed = _helm(env, helm, "plugin", "list")
    assert "diff" in listed and versions["HELM_DIFF_VERSION"].lstrip("v") in listed, listed
    _write_chart(tmp_path / "one", "diffchart", "0.1.0")
    _helm(env, helm, "install", "diffed-" + helm, str(tmp_path / "one"), "-n", namespace)
    same = _helm(env, helm, "diff", "upgrade", "diffed-" + helm, str(tmp_path / "one"), "-n", namespace,
                 "--detailed-exitcode", *DIFF_ARGS[helm])
    assert same.strip() == "", same
    _write_chart(tmp_path / "two", "diffchart", "0.1.0")   # same name and version, another template
    (tmp_path / "two" / "templates" / "configmap.yaml").write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}-marker\ndata:\n  chart: changed\n")
    changed = subprocess.run([helm, "diff", "upgrade", "diffed-" + helm, str(tmp_path / "two"), "-n", namespace,
                              "--detailed-exitcode", "--no-color", *DIFF_ARGS[helm]], env=env, capture_output=True, text=True, check=False)
    assert changed.returncode == 2, (changed.stdout, changed.stderr)   # 2: there are changes
    assert "chart: changed" in changed.stdout, changed.stdout


def test_helm4_refuses_the_template_flags_of_helm_diff_3_13(kube, env, namespace, tmp_path):
    """Why DIFF_ARGS has --disable-validation for Helm 4 (and kubernetes.core 6.6 skips helm-diff < 3.14 there):
    without it, helm-diff 3.13.2's `helm template --validate --dry-run=client` fails under Helm 4."""
    _write_chart(tmp_path / "one", "diffchart", "0.1.0")
    _helm(env, "helm4", "install", "refused", str(tmp_path / "one"), "-n", namespace)
    plain = subprocess.run(["helm4", "diff", "upgrade", "refused", str(tmp_path / "one"), "-n", namespace],
                           env=env, capture_output=True, text=True, check=False)
    assert plain.returncode != 0 and "[dry-run validate]" in plain.stderr, (plain.stdout, plain.stderr)
