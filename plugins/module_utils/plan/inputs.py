# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Input hygiene of the model plan, in one place: what every string field becomes before any check reads it.

``clean(settings, problems)`` returns a copy of the settings in which every string the plan carries into its
records is trimmed, and adds a problem for every string it refuses. The rule per field:

- **Trimmed** (surrounding whitespace dropped, so a YAML block scalar's trailing newline never reaches a Job's
  env or an object name; the record carries the trimmed value): the model fields ``nameSpace``,
  ``releaseName``, ``stack``, ``routerMode``, the values of ``nodeSelector``, a ``pvc://`` ``modelSource`` and the ``modelSource`` fields
  ``harborRef``, ``modelUri``, ``storageSize``, ``storageClass``, ``accessMode``, ``hostpathNode``,
  ``hostpathDir``.
- **Refused** when they carry surrounding whitespace: the model ``name`` (it names a folder, where a space
  would be another folder: the plan's name check refuses it), the keys of ``nodeSelector`` (label keys,
  refused by the label check), and every
  cluster setting (``aips_cloud_provider``, ``aips_kubeconfig``, ``aips_harbor_hostname``, ``aips_harbor_user``,
  ``aips_hostpath_root``, ``aips_oras_version``, ``aips_oras_image``, ``aips_serving_stack``,
  ``aips_kubectl_binary``, ``aips_router_mode``, the string fields of
  ``aips_gpu_toleration``): the roles read those variables themselves, so a value trimmed here would still
  reach them untrimmed. A blank setting (whitespace only) counts as unset.
- ``aips_harbor_token``: blank counts as unset; any whitespace in it is refused, and the token is never shown.
- ``aips_oras_version`` must be a plain tag (``v1.3.1``, not ``v1.3.1 --insecure``); ``tolerationSeconds`` a
  whole number, never a bool or a string.

Names derived from these fields are checked as DNS labels or Helm release names afterwards, by the plan
(naming.name_limit_problems), for every derived name.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.checks import CLUSTER, Problem, setting_field

TRIMMED_MODEL_FIELDS = ("nameSpace", "releaseName", "stack", "routerMode")
TRIMMED_SOURCE_FIELDS = ("harborRef", "modelUri", "storageSize", "storageClass", "accessMode", "hostpathNode",
                         "hostpathDir")
REFUSED_SETTINGS = ("cloud_provider", "kubeconfig", "harbor_hostname", "harbor_user", "hostpath_root",
                    "oras_image", "serving_stack", "kubectl_binary", "router_mode")  # and oras_version, which must be a plain tag (TAG_RE)
SECRET_SETTINGS = ("harbor_token",)
TOLERATION_STRINGS = ("key", "operator", "value", "effect")
TAG_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}\Z")
WHITESPACE_RE = re.compile(r"\s")


def _trim(value):
    return value.strip() if isinstance(value, str) else value


def _without_credentials(reference):
    """``(reference without a user:password@ part, True when it had one)``; the password is never kept."""
    if not isinstance(reference, str):
        return reference, False
    scheme, sep, rest = reference.rpartition("://")
    host_part, slash, path = rest.partition("/")
    if "@" not in host_part:
        return reference, False
    return "%s%s%s%s%s" % (scheme, sep, host_part.rsplit("@", 1)[1], slash, path), True


def _label(category, index, entry):
    name = entry.get("name") if isinstance(entry, dict) else None
    return "%s/%s" % (category, name if isinstance(name, str) and name else "#%d" % index)


def _clean_entry(category, index, entry, problems):
    if not isinstance(entry, dict):
        return entry
    entry = dict(entry)
    label = _label(category, index, entry)
    for field in TRIMMED_MODEL_FIELDS:
        entry[field] = _trim(entry[field]) if field in entry else None
        if entry[field] is None:
            del entry[field]
    selector = entry.get("nodeSelector")
    if isinstance(selector, dict):
        entry["nodeSelector"] = dict((key, _trim(value)) for key, value in selector.items())
    source = entry.get("modelSource")
    if isinstance(source, str):
        entry["modelSource"] = source.strip()
    elif isinstance(source, dict):
        source = dict((key, _trim(value) if key in TRIMMED_SOURCE_FIELDS else value) for key, value in source.items())
        reference, had_credentials = _without_credentials(source.get("harborRef"))
        if had_credentials:
            source["harborRef"] = reference
            problems.append(Problem(label, "modelSource.harborRef", "<user:token>@" + reference,
                                    "the reference carries credentials (user:token@), which would be logged and "
                                    "stored in every plan record", "write %s and keep the robot's token in %s "
                                    "(Vault)" % (reference, setting_field("harbor_token"))))
        entry["modelSource"] = source
    return entry


def clean_models(models):
    """The models mapping with the trimmed fields trimmed, and the problems of the refused ones."""
    problems = []
    if not isinstance(models, dict):
        return models, problems
    cleaned = {}
    for category, entries in models.items():
        if isinstance(entries, list):
            entries = [_clean_entry(category, index, entry, problems) for index, entry in enumerate(entries)]
        cleaned[category] = entries
    return cleaned, problems


def _clean_setting(settings, key, problems):
    value = settings.get(key)
    if not isinstance(value, str):
        return
    if not value.strip():
        settings[key] = None  # blank counts as unset
        return
    if key == "kubeconfig" and "\n" in value.strip():
        return  # a kubeconfig's contents: check_settings refuses it without showing it
    if value != value.strip() or (key != "kubeconfig" and WHITESPACE_RE.search(value)):
        problems.append(Problem(CLUSTER, setting_field(key), _without_credentials(value)[0],
                                "%s holds whitespace (a YAML block scalar's newline?); the roles read it as written"
                                % setting_field(key),
                                "write it on one line without spaces (or pipe it through | trim)"))
        settings[key] = value.strip()  # refused above; the other checks see the value meant


def _clean_token(settings, key, problems):
    value = settings.get(key)
    if value is None:
        return
    field = setting_field(key)
    if not isinstance(value, str):
        problems.append(Problem(CLUSTER, field, "<a %s, not shown>" % type(value).__name__,
                                "the token must be a string", "set %s to the robot token, from Vault" % field))
        settings[key] = None
        return
    if not value.strip():
        settings[key] = None  # a blank token is no token
        return
    if WHITESPACE_RE.search(value):
        problems.append(Problem(CLUSTER, field, "<%d characters, not shown>" % len(value),
                                "the token holds whitespace (a trailing newline of a file or block scalar?); Harbor "
                                "tokens never do, so every pull would fail to authenticate",
                                "store the token without whitespace (pipe a file lookup through | trim)"))
        settings[key] = value.strip()  # refused above; not reported a second time as missing


def _clean_toleration(settings, problems):
    toleration = settings.get("gpu_toleration")
    if not isinstance(toleration, dict):
        return
    field = setting_field("gpu_toleration")
    for key in TOLERATION_STRINGS:
        value = toleration.get(key)
        if isinstance(value, str) and value != value.strip():
            problems.append(Problem(CLUSTER, "%s.%s" % (field, key), value, "the value has whitespace around it",
                                    "write it on one line without surrounding spaces"))
    seconds = toleration.get("tolerationSeconds")
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int) or seconds < 0):
        problems.append(Problem(CLUSTER, field + ".tolerationSeconds", seconds,
                                "tolerationSeconds must be a whole number of seconds (0 or more)",
                                "write e.g. tolerationSeconds: 300 (unquoted), or remove it to tolerate the taint "
                                "for ever"))


def clean(settings):
    """``(settings, problems)``: a cleaned copy of the plan settings and the problems of every refused string."""
    settings = dict(settings)
    problems = []
    for key in REFUSED_SETTINGS:
        _clean_setting(settings, key, problems)
    for key in SECRET_SETTINGS:
        _clean_token(settings, key, problems)
    _clean_toleration(settings, problems)
    version = settings.get("oras_version")
    if isinstance(version, str) and not version.strip():
        version = settings["oras_version"] = None  # blank: keep the images list's tag
    if version is not None and (not isinstance(version, str) or not TAG_RE.match(version)):
        problems.append(Problem(CLUSTER, setting_field("oras_version"), version,
                                "the ORAS version must be a plain image tag (letters, digits, '_', '.', '-')",
                                "write only the tag, e.g. v1.3.1"))
        settings["oras_version"] = None
    image, had_credentials = _without_credentials(settings.get("oras_image"))
    if had_credentials:
        problems.append(Problem(CLUSTER, setting_field("oras_image"), "<user:token>@" + image,
                                "the image reference carries credentials (user:token@)",
                                "write %s; the pull Job authenticates with harbor-creds" % image))
        settings["oras_image"] = image
    settings["models"], model_problems = clean_models(settings.get("models"))
    problems.extend(model_problems)
    return settings, problems
