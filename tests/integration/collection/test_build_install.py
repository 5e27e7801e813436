"""The collection builds, installs into an empty collections path, and documents every plugin."""

import json
import os
import subprocess

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT

MODULES = {"model_plan", "model_sync", "image_archive", "chart_archive", "harbor_project", "model_pull_job",
           "model_pull_wait", "model_artifact_info", "model_claim_check"}
FILTERS = {"model_slug", "slug_from_folders", "resource_names", "resource_name", "pvc_hf_uri", "parse_pvc_uri",
           "parse_oci_reference", "quantity_bytes"}


def sh(args, env=None, cwd=None):
    proc = subprocess.run(args, env=env, cwd=cwd or ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_build_install_and_document(tmp_path):
    sh(["ansible-galaxy", "collection", "build", "--output-path", str(tmp_path), ROOT])
    tarball = str(tmp_path / "ai_platform-serving-0.1.0.tar.gz")
    # kubernetes.core (the dependency) comes from the ansible wheel, kept in its own path.
    deps = tmp_path / "deps" / "ansible_collections" / "kubernetes"
    deps.mkdir(parents=True)
    os.symlink(os.path.join(ROOT, ".collections", "ansible_collections", "kubernetes", "core"), str(deps / "core"))
    target = str(tmp_path / "empty")
    empty_cfg = tmp_path / "ansible.cfg"
    empty_cfg.write_text("[defaults]\n")
    env = dict(os.environ, ANSIBLE_COLLECTIONS_PATH=str(tmp_path / "deps"), ANSIBLE_CONFIG=str(empty_cfg))
    sh(["ansible-galaxy", "collection", "install", "--offline", "-p", target, tarball], env=env, cwd=str(tmp_path))
    installed = os.path.join(target, "ansible_collections", "ai_platform", "serving")
    assert os.path.isfile(os.path.join(installed, "MANIFEST.json"))
    assert not os.path.exists(os.path.join(installed, "lab")), "the lab is not collection content"

    env["ANSIBLE_COLLECTIONS_PATH"] = "%s:%s" % (target, tmp_path / "deps")
    for plugin_type, expected in (("module", MODULES), ("filter", FILTERS)):
        listed = json.loads(sh(["ansible-doc", "-t", plugin_type, "-l", "ai_platform.serving", "-j"], env=env,
                               cwd=str(tmp_path)))
        names = set(name.split(".")[-1] for name in listed)
        assert expected <= names, expected - names
        for name in sorted(names):
            doc = json.loads(sh(["ansible-doc", "-t", plugin_type, "-j", "ai_platform.serving." + name], env=env,
                                cwd=str(tmp_path)))
            assert doc["ai_platform.serving." + name]["doc"]["short_description"], name
