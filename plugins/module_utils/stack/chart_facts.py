# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""What the collection relies on about the charts' defaults, read from the carried chart archives.

A values file is merged by Helm into the chart's own ``values.yaml``: maps merge key by key, a key
set to null removes the chart's default, lists replace. What the code decides from a values file
(how many pods mount the claim, which labels the model pods carry, which ports serve) therefore
depends on the chart's defaults. They are read here, and only here:

- ``chart_defaults(chart, chart_dir)`` reads ``<chart>/values.yaml`` from ``<chart>-<version>.tgz``
  in ``chart_dir`` (the archives harbor_upload's charts_download writes and a site carries; read with
  tarfile, never extracted) and keeps the keys ``FACT_KEYS`` lists. Without an archive at hand it
  returns ``KNOWN_FACTS``, the same keys as the pinned versions carry them; a unit test checks that
  table against the archives in ``../shared/upstream/charts``.
- ``coalesce(defaults, values)`` is Helm's merge of a values file over those defaults.
- ``serving_pods`` and ``pod_labels`` answer the two questions the plan and the stack spec ask of
  llm-d-modelservice.

Pure functions (and one archive read); no Ansible import, so the plan and the stack spec share them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy
import os
import re
import tarfile

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml

try:
    import yaml
except ImportError:  # callers then get KNOWN_FACTS
    yaml = None

MODELSERVICE = "llm-d-modelservice"
INFERENCEPOOL = "inferencepool"

# The keys (dotted paths into the chart's values.yaml) the collection's decisions depend on.
FACT_KEYS = {
    MODELSERVICE: (
        "multinode",
        "modelArtifacts.labels",
        "modelArtifacts.mountPath",
        "modelArtifacts.readOnly",
        "modelArtifacts.authSecretName",
        "routing.servicePort",
        "routing.proxy.enabled",
        "routing.proxy.targetPort",
        "decode.create",
        "decode.replicas",
        "decode.parallelism",
        "prefill.create",
        "prefill.replicas",
        "prefill.parallelism",
        "requester.enable",
    ),
    INFERENCEPOOL: (
        "inferencePool.targetPorts",
        "inferencePool.modelServerType",
        "inferenceExtension.image",
        "inferenceExtension.env",
        "inferenceExtension.sidecar.enabled",
        "provider.name",
    ),
}

# The facts of the pinned chart versions (group_vars/all/images.yml aips_chart_mirrors), used only when
# no archive is at hand. tests/unit/plugins/module_utils/stack/test_chart_facts.py reads the real
# archives and fails when this table and a chart disagree.
KNOWN_FACTS = {
    MODELSERVICE: {
        "version": "v0.4.12",
        "values": {
            "multinode": False,
            "modelArtifacts": {"labels": {"llm-d.ai/inference-serving": "true"}, "mountPath": "/model-cache",
                               "readOnly": True, "authSecretName": ""},
            "routing": {"servicePort": 8000, "proxy": {"enabled": True, "targetPort": 8200}},
            "decode": {"create": True, "replicas": 1,
                       "parallelism": {"tensor": 1, "data": 1, "dataLocal": 1, "workers": 1}},
            "prefill": {"create": True, "replicas": 0,
                        "parallelism": {"tensor": 1, "data": 1, "dataLocal": 1, "workers": 1}},
            "requester": {"enable": False},
        },
    },
    INFERENCEPOOL: {
        "version": "v1.2.0",
        "values": {
            "inferencePool": {"targetPorts": [{"number": 8000}], "modelServerType": "vllm"},
            "inferenceExtension": {"image": {"name": "epp", "hub": "registry.k8s.io/gateway-api-inference-extension",
                                             "tag": "v1.2.0", "pullPolicy": "Always"},
                                   "env": [], "sidecar": {"enabled": False}},
            "provider": {"name": "none"},
        },
    },
}

# A chart's values.yaml is a few kB; refuse to read anything far larger from an archive.
MAX_VALUES_BYTES = 4 * 1024 * 1024
_ARCHIVE_RE = re.compile(r"^(?P<name>.+)-(?P<version>v?[0-9]+\.[0-9]+\.[0-9]+[^/]*)\.tgz$")


def archive_values(archive, chart):
    """The parsed ``<chart>/values.yaml`` of the chart archive ``archive`` (a ``helm package`` .tgz).

    Reads the one member with tarfile (nothing is extracted; links, devices and oversized members are
    refused). Raises ValueError saying what is wrong with the archive.
    """
    if yaml is None:
        raise ValueError("PyYAML is not installed, so %s cannot be read" % archive)
    wanted = "%s/values.yaml" % chart
    try:
        with tarfile.open(archive, "r:gz") as tar:
            try:
                member = tar.getmember(wanted)
            except KeyError:
                raise ValueError("%s has no %s (not a packaged %s chart)" % (archive, wanted, chart))
            if not member.isfile() or member.size > MAX_VALUES_BYTES:
                raise ValueError("%s: %s is not a regular file of at most %d bytes" % (archive, wanted, MAX_VALUES_BYTES))
            handle = tar.extractfile(member)
            text = handle.read() if handle is not None else b""
    except (tarfile.TarError, IOError, OSError, EOFError) as exc:
        raise ValueError("%s cannot be read as a chart archive: %s" % (archive, exc))
    try:
        values = safe_yaml.loads(text.decode("utf-8"), "%s: %s" % (archive, wanted)) or {}
    except UnicodeDecodeError as exc:
        raise ValueError("%s: %s is not YAML: %s" % (archive, wanted, exc))
    except safe_yaml.YamlFileError as exc:
        raise ValueError("%s: %s is %s" % (archive, wanted, exc.reason))
    if not isinstance(values, dict):
        raise ValueError("%s: %s is not a mapping" % (archive, wanted))
    return values


def _get(tree, path):
    node = tree
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def _put(tree, path, value):
    parts = path.split(".")
    node = tree
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = copy.deepcopy(value)


def facts_of(chart, values):
    """The ``FACT_KEYS`` of ``chart`` that ``values`` (a chart's values.yaml) sets, as a nested mapping."""
    facts = {}
    for path in FACT_KEYS[chart]:
        found, value = _get(values, path)
        if found:
            _put(facts, path, value)
    return facts


def find_archive(chart_dir, chart, version=None):
    """The archive of ``chart`` in ``chart_dir``: ``<chart>-<version>.tgz`` (the pinned version by default),
    else the only ``<chart>-<any version>.tgz`` there; None when there is none or the choice is ambiguous."""
    if not chart_dir or not os.path.isdir(chart_dir):
        return None
    version = version or KNOWN_FACTS[chart]["version"]
    exact = os.path.join(chart_dir, "%s-%s.tgz" % (chart, version))
    if os.path.isfile(exact):
        return exact
    others = [name for name in os.listdir(chart_dir)
              if _ARCHIVE_RE.match(name) and _ARCHIVE_RE.match(name).group("name") == chart]
    return os.path.join(chart_dir, others[0]) if len(others) == 1 else None


# (archive, mtime_ns, size) -> facts: an archive is read (~20 ms) once per process, not once per model
_READ = {}


def _archive_facts(archive, chart):
    stat = os.stat(archive)
    key = (archive, chart, stat.st_mtime_ns, stat.st_size)
    if key not in _READ:
        _READ[key] = facts_of(chart, archive_values(archive, chart))
    return copy.deepcopy(_READ[key])


def chart_defaults(chart, chart_dir=None, version=None):
    """``(facts, source)``: the facts of ``chart`` read from its archive in ``chart_dir``, or ``KNOWN_FACTS``.

    ``source`` is the archive's path, or ``"known facts of <chart> <version>"`` when none was at hand.
    An archive that cannot be read raises ValueError (a carried chart that is broken must not be
    replaced silently by the table).
    """
    archive = find_archive(chart_dir, chart, version)
    if archive is None:
        known = KNOWN_FACTS[chart]
        return copy.deepcopy(known["values"]), "known facts of %s %s" % (chart, known["version"])
    return _archive_facts(archive, chart), archive


def coalesce(defaults, values):
    """``values`` over ``defaults`` as Helm merges a values file into a chart's: maps merge, null removes the
    chart's key, anything else (lists included) replaces it."""
    result = copy.deepcopy(defaults) if isinstance(defaults, dict) else {}
    for key, value in (values or {}).items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = coalesce(result[key], value)
        else:
            result[key] = copy.deepcopy(value)
    return result


MODEL_ROLES = ("decode", "prefill")


def _workers(parallelism):
    """Pods per LeaderWorkerSet group: llm-d-modelservice's numWorkers (workers, else data / dataLocal, else 1)."""
    parallelism = parallelism if isinstance(parallelism, dict) else {}
    if parallelism.get("workers"):
        return int(parallelism["workers"])
    if parallelism.get("data") and parallelism.get("dataLocal"):
        return int(parallelism["data"]) // int(parallelism["dataLocal"])
    return 1


def role_pods(values, role):
    """Pods llm-d-modelservice creates for ``role`` (decode|prefill) from ``values`` already coalesced with the
    chart's defaults: 0 when the role is not created, ``replicas`` (1 without the key) per Deployment, and
    ``replicas`` times the group size for a LeaderWorkerSet (``multinode``). Raises ValueError on a non-number."""
    section = values.get(role) if isinstance(values.get(role), dict) else {}
    if not section.get("create"):
        return 0
    try:
        replicas = int(section["replicas"]) if "replicas" in section else 1
        if values.get("multinode"):
            return replicas * _workers(section.get("parallelism"))
    except (TypeError, ValueError):
        raise ValueError("%s.replicas or %s.parallelism is not a number" % (role, role))
    return replicas


def serving_pods(ms_values, defaults=None):
    """Pods of a modelservice release that mount the model (decode + prefill) for the values file ``ms_values``
    merged into the chart's ``defaults`` (chart_defaults; KNOWN_FACTS when None)."""
    if defaults is None:
        defaults = chart_defaults(MODELSERVICE)[0]
    merged = coalesce(defaults, ms_values or {})
    return sum(role_pods(merged, role) for role in MODEL_ROLES)


def pod_labels(ms_values, role="decode", defaults=None):
    """The labels llm-d-modelservice puts on the ``role`` pods: the chart's ``modelArtifacts.labels`` merged
    with the values file's, plus ``llm-d.ai/role``."""
    if defaults is None:
        defaults = chart_defaults(MODELSERVICE)[0]
    merged = coalesce(defaults, ms_values or {})
    labels = (merged.get("modelArtifacts") or {}).get("labels") or {}
    labels = dict((key, str(value)) for key, value in labels.items() if value is not None)
    labels["llm-d.ai/role"] = role
    return labels
