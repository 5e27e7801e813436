# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Helm values of the serving stack: the model's values file merged with what the plan owns.

The merge rule (the seed's "file + programmatic", made explicit):

- Mappings merge key by key; for a key both sides set, the programmatic side wins.
- Lists are replaced as a whole (as a plain Helm values merge does), except the lists
  the plan extends rather than owns, merged by identity so the model author's entries stay:
  ``containers`` (by ``name``), ``env`` (by ``name``), ``imagePullSecrets`` (by ``name``),
  ``tolerations`` (by the whole toleration).
- The programmatic side owns: ``modelArtifacts.uri``; per role (``decode``, ``prefill``)
  ``extraConfig.affinity`` (hard nodeAffinity from nodeSelector), the GPU toleration,
  the ``harbor-creds`` pull secret, and ``HF_HUB_OFFLINE=1`` in every container's env
  (llm-d-modelservice never sets it, and a read-only cache breaks the server without it).

Pure functions: the serving_stack role renders them through a module or filter.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

MODEL_ROLES = ("decode", "prefill")
OFFLINE_ENV = {"name": "HF_HUB_OFFLINE", "value": "1"}


def _by_name(entry):
    return entry.get("name") if isinstance(entry, dict) else entry


def _by_value(entry):
    return repr(sorted(entry.items())) if isinstance(entry, dict) else repr(entry)


# list key -> function giving an entry's identity
_KEYED_LISTS = {"containers": _by_name, "env": _by_name, "imagePullSecrets": _by_name, "tolerations": _by_value}


def _merge_list(key, base, override):
    identity = _KEYED_LISTS[key]
    merged = [copy.deepcopy(entry) for entry in base]
    index = dict((identity(entry), position) for position, entry in enumerate(merged))
    for entry in override:
        position = index.get(identity(entry))
        if position is None:
            index[identity(entry)] = len(merged)
            merged.append(copy.deepcopy(entry))
        elif isinstance(entry, dict) and isinstance(merged[position], dict):
            merged[position] = merge_values(merged[position], entry)
        else:
            merged[position] = copy.deepcopy(entry)
    return merged


def merge_values(base, override):
    """Merge ``override`` (programmatic) into ``base`` (the values file) by the rule above."""
    result = copy.deepcopy(base) if isinstance(base, dict) else {}
    for key, value in override.items():
        current = result.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            result[key] = merge_values(current, value)
        elif key in _KEYED_LISTS and isinstance(value, list) and isinstance(current, list):
            result[key] = _merge_list(key, current, value)
        else:
            result[key] = copy.deepcopy(value)
    return result


def modelservice_overrides(record, file_values):
    """The programmatic llm-d-modelservice values of one plan record."""
    overrides = {}
    if record.get("model_artifacts_uri"):
        overrides["modelArtifacts"] = {"uri": record["model_artifacts_uri"]}
    pull_secret = record["names"].get("harbor_pull_secret")
    for role in MODEL_ROLES:
        section = file_values.get(role)
        if not isinstance(section, dict) or section.get("create") is False:
            continue
        role_values = {}
        extra = {}
        if record.get("affinity"):
            extra["affinity"] = record["affinity"]
        if pull_secret:
            extra["imagePullSecrets"] = [{"name": pull_secret}]
        if extra:
            role_values["extraConfig"] = extra
        if record.get("tolerations"):
            role_values["tolerations"] = record["tolerations"]
        containers = section.get("containers") or []
        role_values["containers"] = [{"name": c.get("name"), "env": [OFFLINE_ENV]}
                                     for c in containers if isinstance(c, dict) and c.get("name")]
        overrides[role] = role_values
    return overrides


def modelservice_values(record, file_values):
    """The values file of ``ms-<slug>`` merged with the plan's values."""
    return merge_values(file_values or {}, modelservice_overrides(record, file_values or {}))


def image_references(values, path=""):
    """Yield ``(path, reference)`` for every container image a values tree names.

    An image is a string under a key named ``image``, or an ``image`` mapping with
    ``hub``/``registry``/``repository``/``name``/``tag`` parts (the GAIE chart's form).
    """
    if isinstance(values, dict):
        for key, value in values.items():
            here = "%s.%s" % (path, key) if path else str(key)
            if key == "image" and isinstance(value, str):
                yield here, value
            elif key == "image" and isinstance(value, dict):
                parts = [value.get(k) for k in ("hub", "registry", "repository", "name") if value.get(k)]
                if parts:
                    yield here, "/".join(parts) + (":%s" % value["tag"] if value.get("tag") else "")
            else:
                yield from image_references(value, here)
    elif isinstance(values, list):
        for position, value in enumerate(values):
            yield from image_references(value, "%s[%d]" % (path, position))


def images_off_registry(values, registry_host):
    """The images of ``values`` that are not pulled from ``registry_host`` (air-gap check)."""
    prefix = registry_host.rstrip("/") + "/"
    return [(where, image) for where, image in image_references(values) if not image.startswith(prefix)]
