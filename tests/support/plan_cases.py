# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Build the on-disk inputs of one model plan case (tests/fixtures/plan_cases.yml)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.ai_platform.serving.tests.support import HARBOR, ROOT

CASES_FILE = os.path.join(ROOT, "tests", "fixtures", "plan_cases.yml")

BASE_SETTINGS = {
    "cloud_provider": "on-prem",
    "kubeconfig": "~/.kube/rke2-cluster.yaml",
    "harbor_hostname": HARBOR,
    "harbor_user": "robot$k8s-puller",
    "harbor_token": "not-a-real-token",
}


def load_cases():
    with open(CASES_FILE) as handle:
        return yaml.safe_load(handle)["cases"]


def alias_bomb(levels=7, width=10):
    """A YAML document of under 1 kB standing for width**levels nodes once its aliases are expanded."""
    lines = ["l0: &l0 [%s]" % ", ".join(['"lol"'] * width)]
    for level in range(1, levels):
        lines.append("l%d: &l%d [%s]" % (level, level, ", ".join(["*l%d" % (level - 1)] * width)))
    return "\n".join(lines) + "\n"


def embedded(text):
    """GAIE values carrying ``text`` as the EPP plugin config c.yaml (a YAML text inside the values)."""
    return yaml.safe_dump({"inferenceExtension": {"pluginsConfigFile": "c.yaml",
                                                  "pluginsCustomConfig": {"c.yaml": text}}})


# generated values files a case may ask for by name (raw_values: {"<folder>/<sub>": "@name"})
GENERATED = {
    "@alias-bomb": alias_bomb,
    "@deep": lambda: "a: " + "[" * 200 + "]" * 200 + "\n",
    # the same two as a plugin config text: 10^9 nodes once expanded, 2000 levels deep (RecursionError unguarded)
    "@embedded-alias-bomb": lambda: embedded(alias_bomb(levels=9)),
    "@embedded-deep": lambda: embedded("a: " + "[" * 2000 + "]" * 2000 + "\n"),
    "@large": lambda: "# padding\n" * (2 * 1024 * 1024 // 10) + "a: 1\n",
}


def modelserver_objects(slug, replicas=None):
    """A model server of the llm-d v0.10 stack as plain objects: Deployment <slug>-decode and its ServiceAccount."""
    labels = {"llm-d.ai/role": "decode", "llm-d.ai/guide": slug}
    spec = {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": {
        "serviceAccountName": slug + "-sa",
        "containers": [{"name": "modelserver", "image": "docker.io/vllm/vllm-openai:v0.30.0",
                        "command": ["vllm", "serve"], "args": ["org/m"], "ports": [{"containerPort": 8000}]}]}}}
    if replicas is not None:
        spec["replicas"] = replicas
    return [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": slug + "-decode"}, "spec": spec},
            {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": slug + "-sa"}}]


def _write_manifests(path, sub, documents):
    """``modelserver-<slug>/``'s files: ``documents`` a list of objects (one manifests.yaml), a text (written as
    manifests.yaml) or ``{file name: list or text}``; None: the default model server of the slug."""
    if documents is None:
        documents = modelserver_objects(sub[len("modelserver-"):])
    if not isinstance(documents, dict):
        documents = {"manifests.yaml": documents}
    for name, content in documents.items():
        with open(os.path.join(path, name), "w") as handle:
            handle.write(content if isinstance(content, str) else yaml.safe_dump_all(content))


def make_models_tree(base, case):
    """Create models/<category>/<name>/<sub>/values.yaml under ``base``; return the models dir.

    ``values`` are dumped as YAML; ``raw_values`` are written as given (or generated, GENERATED);
    ``links`` make values.yaml a symlink to a file ``outside`` the models tree holding the given text.
    A ``modelserver-<slug>`` sub-folder (llm-d v0.10) gets manifest files instead: ``manifests`` maps
    ``"<folder>/<sub>"`` to its documents (_write_manifests), default a valid Deployment and ServiceAccount.
    """
    models_dir = os.path.join(str(base), "models")
    os.makedirs(models_dir, exist_ok=True)
    skip = set(case.get("no_values") or [])
    raw = case.get("raw_values") or {}
    links = case.get("links") or {}
    for model_folder, subfolders in (case.get("folders") or {}).items():
        for sub in subfolders:
            path = os.path.join(models_dir, model_folder, sub)
            os.makedirs(path, exist_ok=True)
            key = "%s/%s" % (model_folder, sub)
            values = os.path.join(path, "values.yaml")
            if key in skip:
                continue
            if sub.startswith("modelserver-"):
                _write_manifests(path, sub, (case.get("manifests") or {}).get(key))
                continue
            if key in links:
                outside = os.path.join(str(base), "outside-%s.yaml" % sub)
                with open(outside, "w") as handle:
                    handle.write(links[key])
                os.symlink(outside, values)
                continue
            with open(values, "w") as handle:
                if key in raw:
                    text = raw[key]
                    handle.write(GENERATED[text]() if text in GENERATED else text)
                else:
                    handle.write("---\n" + yaml.safe_dump((case.get("values") or {}).get(key) or {}))
    return models_dir


def case_settings(base, case):
    """The full settings of a case: base, overrides, models and its models tree."""
    settings = dict(BASE_SETTINGS)
    settings.update(case.get("settings") or {})
    for key in [key for key, value in settings.items() if value is None]:
        del settings[key]
    settings["models"] = case.get("models") or {}
    settings["models_dir"] = make_models_tree(base, case)
    return settings


HOSTS = {"all": {"children": {"serving": {"children": {"controller": {"hosts": {"localhost": {
    "ansible_connection": "local", "ansible_python_interpreter": "{{ ansible_playbook_python }}"}}}}}}}}


CHART_DIGEST = "sha256:" + "c" * 64


def chart_lock_file(base, harbor=HARBOR, digest=CHART_DIGEST):
    """A lock file under ``base`` whose ``charts`` section pins every chart of group_vars/all/images.yml at its
    Harbor mirror on ``harbor`` (what playbooks/load.yml writes after loading a bundle); its path."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import chart_lock
    with open(os.path.join(ROOT, "group_vars", "all", "images.yml")) as handle:
        mirrors = yaml.safe_load(handle)["aips_chart_mirrors"]
    items = [dict(kind="chart", name=chart["name"], version=chart["version"], project=chart["project"],
                  manifest_digest=digest) for chart in mirrors]
    path = os.path.join(str(base), "charts.lock.yml")
    with open(path, "w") as handle:
        yaml.safe_dump({"charts": chart_lock(items, harbor)}, handle)
    return path


def write_inventory(base, settings):
    """An inventory under ``base`` whose controller is localhost and whose serving group holds ``settings`` as
    ``aips_<key>`` variables (what playbooks/plan.yml and playbooks/render.yml read); its path.

    On-prem, unless ``settings`` names a lock file or allows unpinned charts, a lock file pinning the carried
    charts at their Harbor mirrors is written and named (as on a site after playbooks/load.yml): the plan
    refuses an on-prem chart the lock file does not pin."""
    inventory = os.path.join(str(base), "inventory")
    os.makedirs(os.path.join(inventory, "group_vars"))
    with open(os.path.join(inventory, "hosts.yml"), "w") as handle:
        yaml.safe_dump(HOSTS, handle)
    settings = dict(settings)
    if (settings.get("cloud_provider") == "on-prem" and "lock_file" not in settings
            and "allow_unpinned" not in settings and isinstance(settings.get("harbor_hostname"), str)):
        settings["lock_file"] = chart_lock_file(base, settings["harbor_hostname"].strip())
    group_vars = dict(("aips_" + key, value) for key, value in settings.items())
    with open(os.path.join(inventory, "group_vars", "serving.yml"), "w") as handle:
        yaml.safe_dump(group_vars, handle)
    return inventory


def expected_names(slug, embedder):
    """The seed's resource names of a model with the derived namespace and releases.

    Both routing names whatever the category (``embedder`` is kept for the callers): the record's
    ``routing_kind`` says which one applies.
    """
    return {
        "namespace": "llm-d-" + slug, "infra_release": "infra-" + slug, "gaie_release": "gaie-" + slug,
        "ms_release": "ms-" + slug, "gateway": "infra-%s-inference-gateway" % slug,
        "httproute": "llm-d-" + slug, "pvc": slug + "-model", "pv": slug + "-model-pv",
        "pull_job": slug + "-model-pull", "clear_job": slug + "-model-clear", "prune_job": slug + "-model-prune",
        "embeddings_service": "ms-%s-embeddings" % slug,
        "gateway_service": "llmd-gateway-" + slug, "gateway_defaults": "gateway-defaults-" + slug,
        "epp_service": ("gaie-" + slug)[:40] + "-epp",
        "router_release": "router-" + slug, "router_epp": ("router-" + slug)[:40] + "-epp",
        "harbor_pull_secret": "harbor-creds",
    }


def embedder_record(base):
    """The plan record of one on-prem embedder `E` (hostPath on node-1, tolerating nvidia.com/gpu), built by the
    real plan in ``base``: the record the pod-security and claim tests make their Jobs from."""
    from ansible_collections.ai_platform.serving.plugins.module_utils.plan.build import build_plan
    source = {"harborRef": "harbor.harbor.svc.cluster.local/ai-models/e:v1", "modelUri": "hub/org/e",
              "storageSize": "1Gi", "hostpathNode": "node-1"}
    case = {"folders": {"embedder/E": ["gaie-e", "ms-e"]},
            "settings": {"gpu_toleration": {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
            "models": {"embedder": [{"name": "E", "enabled": True, "modelSource": source}]}}
    records, problems = build_plan(case_settings(base, case))
    assert records, [str(p) for p in problems]
    return records[0]
