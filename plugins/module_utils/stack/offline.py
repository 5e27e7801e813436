# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Pods served from the claim reach neither a Hugging Face Secret nor Hugging Face itself.

Values files written for a download from Hugging Face (llm-d's guides among them) name a token
Secret: ``modelArtifacts.authSecretName`` (llm-d-modelservice v0.4.12 then adds a non-optional
``HF_TOKEN`` env from it to every serving container), an ``HF_TOKEN`` env from a Secret in a
container, or the same in the EPP (``inferenceExtension.env``, its ``sidecar.env``). A model the plan
serves from its claim needs none of them, and nothing creates that Secret: its pods would stay in
CreateContainerConfigError. ``drop_claim_secrets`` removes them from the merged values and says so,
one report line per values file.

An EPP whose scheduler loads its tokenizer from Hugging Face at run time (the precise-prefix-cache
scorer's ``tokenizersPoolConfig`` with ``hf``, or without any local/UDS tokenizer, the indexer's
default) or that is given a Hugging Face token fails on a cluster without internet. A ``uds``
tokenizer is no way out: its tokenizer sidecar (``inferenceExtension.sidecar``, llm-d's
``llm-d-uds-tokenizer``) downloads the tokenizer into an emptyDir when it starts, and inferencepool
v1.2.0 mounts no volume into the EPP container, so the EPP cannot reach the sidecar's socket
either. ``epp_hub_findings`` finds all three in a GAIE values file; on-prem they are problems
(model, file, key, fix), on cloud warnings. For the same reason a local tokenizer directory is no
way out on v1.2.0; a scorer that needs no tokenizer is, and every finding names it, so that the
fixes applied together give an EPP that starts without Hugging Face.

Pure functions on plain values.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import copy

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml

HF_TOKEN_ENV = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "HUGGINGFACE_HUB_TOKEN")
MODEL_ROLES = ("decode", "prefill")
CONTAINER_LISTS = ("containers", "initContainers")
# The fix every tokenizer finding names: the scorer of the same family that hashes text, not tokens.
TOKENIZER_FIX = ("use prefix-cache-scorer (approximate prefix matching, no tokenizer) in place of "
                 "precise-prefix-cache-scorer in that plugin config, as its type and in the schedulingProfiles' "
                 "pluginRef, without precise-prefix-cache-scorer's parameters")


def _secret_token(entry):
    """The Secret name when ``entry`` (an env entry) sets a Hugging Face token from a Secret, else None."""
    if not isinstance(entry, dict) or entry.get("name") not in HF_TOKEN_ENV:
        return None
    ref = (entry.get("valueFrom") or {}).get("secretKeyRef")
    if isinstance(ref, dict):
        return ref.get("name") or "?"
    return None


def _drop_env(container, where):
    """Remove the token env of one container; ``[(key, secret)]`` of what went."""
    env = container.get("env")
    if not isinstance(env, list):
        return []
    dropped, kept = [], []
    for position, entry in enumerate(env):
        secret = _secret_token(entry)
        if secret is None:
            kept.append(entry)
        else:
            dropped.append(("%s.env[%d] (%s)" % (where, position, entry["name"]), secret))
    if dropped:
        container["env"] = kept
    return dropped


def drop_token_env(container, where):
    """Remove from ``container`` (a container or a chart's container-like section, changed in place) every
    Hugging Face token env from a Secret; ``[(key, secret)]`` of what went, keys under ``where``."""
    return _drop_env(container, where) if isinstance(container, dict) else []


def epp_token_references(gaie):
    """``[(key, secret)]``: the Hugging Face token Secrets the GAIE values give the EPP or its sidecar."""
    found = []
    extension = gaie.get("inferenceExtension") or {}
    containers = (("inferenceExtension", extension), ("inferenceExtension.sidecar", extension.get("sidecar") or {}))
    for key, container in containers:
        for position, entry in enumerate(container.get("env") or [] if isinstance(container, dict) else []):
            name = _secret_token(entry)
            if name:
                found.append(("%s.env[%d] (%s)" % (key, position, entry["name"]), name))
    return found


def drop_claim_secrets(record, ms, gaie, files=None):
    """``(ms, gaie, notes)``: the merged values of a model served from its claim without Hugging Face token
    Secrets, and one report line per values file that named one (model, file, keys, why).

    ``files`` maps ``ms``/``gaie`` to the values files' paths (the record's ``values_files``). The values given
    are not changed."""
    files = files or record.get("values_files") or {}
    ms, gaie = copy.deepcopy(ms), copy.deepcopy(gaie)
    dropped = {"ms": [], "gaie": []}
    artifacts = ms.get("modelArtifacts")
    if isinstance(artifacts, dict) and artifacts.get("authSecretName"):
        dropped["ms"].append(("modelArtifacts.authSecretName", artifacts.pop("authSecretName")))
    for role in MODEL_ROLES:
        section = ms.get(role)
        if not isinstance(section, dict):
            continue
        for key in CONTAINER_LISTS:
            for position, container in enumerate(section.get(key) or []):
                if isinstance(container, dict):
                    dropped["ms"].extend(_drop_env(container, "%s.%s[%d]" % (role, key, position)))
    extension = gaie.get("inferenceExtension")
    if isinstance(extension, dict):
        dropped["gaie"].extend(_drop_env(extension, "inferenceExtension"))
        if isinstance(extension.get("sidecar"), dict):
            dropped["gaie"].extend(_drop_env(extension["sidecar"], "inferenceExtension.sidecar"))
    notes = []
    for kind in ("ms", "gaie"):
        if dropped[kind]:
            secrets = sorted(set(secret for _key, secret in dropped[kind]))
            notes.append("%s: %s: dropped %s (Secret %s): the model is served from its claim (%s) with "
                         "HF_HUB_OFFLINE=1, so its pods need no Hugging Face token, and nothing creates that Secret"
                         % (record["name"], files.get(kind, "%s-%s/values.yaml" % (kind, record["slug"])),
                            ", ".join(key for key, _secret in dropped[kind]), ", ".join(secrets),
                            record.get("model_artifacts_uri")))
    return ms, gaie, notes


def _tokenizer_pools(node, path):
    """Yield ``(path, tokenizersPoolConfig)`` found anywhere in a parsed plugin config."""
    if isinstance(node, dict):
        for key, value in node.items():
            here = "%s.%s" % (path, key) if path else str(key)
            if key == "tokenizersPoolConfig":
                yield here, value
            else:
                yield from _tokenizer_pools(value, here)
    elif isinstance(node, list):
        for position, value in enumerate(node):
            yield from _tokenizer_pools(value, "%s[%d]" % (path, position))


def _downloads_from_hub(pool):
    """Why a tokenizersPoolConfig loads its tokenizer from Hugging Face, or None."""
    if not isinstance(pool, dict):
        return "it sets no tokenizer source, so the indexer's default, a Hugging Face download, is used"
    if pool.get("hf") is not None:
        return "its hf key makes the indexer download the tokenizer from Hugging Face"
    if pool.get("local") is None and pool.get("uds") is None and "hf" not in pool:
        return "it sets no local or uds tokenizer, so the indexer's default, a Hugging Face download, is used"
    if pool.get("local") is None and pool.get("uds") is not None:
        return ("its uds tokenizer is served by a tokenizer sidecar (inferenceExtension.sidecar) that downloads the "
                "tokenizer from Hugging Face into an emptyDir when it starts, and inferencepool v1.2.0 mounts no "
                "volume into the EPP container, so the EPP cannot reach the sidecar's socket")
    return None


PLUGINS_CONFIG = "inferenceExtension.pluginsCustomConfig"


def plugin_configs(gaie_file, gaie_path="gaie values"):
    """``(parsed, refused)`` of the EPP plugin configs, YAML texts inside the GAIE values
    (``inferenceExtension.pluginsCustomConfig.<name>``), each read by the one safe reader (plan/safe_yaml.py) with
    the limits of a values file: ``parsed`` is ``[(name, document)]``, ``refused`` is ``[(key, reason, fix)]`` for a
    text over a limit (an alias bomb, nesting too deep) or not YAML. A text that is no string is left to the chart."""
    extension = (gaie_file or {}).get("inferenceExtension") if isinstance(gaie_file, dict) else None
    configs = extension.get("pluginsCustomConfig") if isinstance(extension, dict) else None
    parsed, refused = [], []
    for name, text in sorted(configs.items(), key=lambda item: str(item[0])) if isinstance(configs, dict) else []:
        if not isinstance(text, str):
            continue
        key = "%s[%s]" % (PLUGINS_CONFIG, name)
        try:
            parsed.append((name, safe_yaml.loads(text, "%s: %s" % (gaie_path, key))))
        except safe_yaml.YamlFileError as exc:
            refused.append((key, exc.reason, "%s (the text of %s is YAML the EPP reads; it is held to the limits of a "
                                             "values file)" % (exc.fix, key)))
    return parsed, refused


def embedded_yaml_problems(record, gaie_file, files=None):
    """One message per refused plugin config text (plugin_configs), naming the model, the values file, the key, why
    and the fix; an error on cloud and on-prem alike."""
    files = files or record.get("values_files") or {}
    path = files.get("gaie", "gaie-%s/values.yaml" % record["slug"])
    return ["%s: %s: %s: %s. Fix: %s" % (record["name"], path, key, reason, fix)
            for key, reason, fix in plugin_configs(gaie_file, path)[1]]


def epp_hub_findings(record, gaie_file, files=None):
    """What in ``gaie-<slug>/values.yaml`` makes the EPP reach Hugging Face at run time: one message each,
    naming the model, the file, the key and the fix (problems on-prem, warnings on cloud; the caller decides)."""
    files = files or record.get("values_files") or {}
    where = "%s: %s" % (record["name"], files.get("gaie", "gaie-%s/values.yaml" % record["slug"]))
    findings = []
    # a refused text is embedded_yaml_problems' to report; nothing to say about Hugging Face in it
    for name, parsed in plugin_configs(gaie_file)[0]:
        for path, pool in _tokenizer_pools(parsed, ""):
            why = _downloads_from_hub(pool)
            if why:
                model = pool.get("modelName") if isinstance(pool, dict) else None
                sidecar = " and remove inferenceExtension.sidecar" if "uds" in why else ""
                findings.append("%s: inferenceExtension.pluginsCustomConfig[%s] %s: %s%s at run time, which a "
                                "cluster without internet cannot reach. Fix: %s%s" % (
                                    where, name, path, why, " (%s)" % model if model else "", TOKENIZER_FIX,
                                    sidecar))
    for key, secret in epp_token_references(gaie_file or {}):
        findings.append("%s: %s from Secret %s gives the EPP a Hugging Face token, which only a tokenizer download "
                        "from Hugging Face at run time uses. Fix: remove that env entry and load no tokenizer from "
                        "Hugging Face (%s)" % (where, key, secret, TOKENIZER_FIX))
    return findings
