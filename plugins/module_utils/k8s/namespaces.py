# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The model namespaces and their harbor-creds pull secrets: what to apply, and what was done, told without the token.

The module model_namespace reads the namespaces (one list) and the pull secrets, applies every Namespace and
then every harbor-creds Secret that is missing or differs (``pending``), each with its own result, and turns
those results into what may be shown (``outcome``): one failure message per definition not applied (naming the
namespace, the object and what to do, with every form of the secret's content removed) and the diffs of the
Namespaces (they hold no secret).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import binascii
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import pull_secret

REDACTED = "<redacted>"

NAMESPACE_FIX = ("Fix: the kubeconfig's user must be allowed to create and patch namespaces "
                 "(aips_kubeconfig or the role's kubeconfig variable); a namespace being deleted must finish first")
SECRET_FIX = ("Fix: the kubeconfig's user must be allowed to create and patch secrets in that namespace; check the "
              "pull robot (aips_harbor_hostname, aips_harbor_user, aips_harbor_token)")
CALL_FIX = ("Fix: check the kubeconfig (aips_kubeconfig or the role's kubeconfig variable) and that the cluster's API "
            "answers")


def definitions(records, labels, existing=None):
    """One Namespace definition per distinct namespace of ``records`` (plan records) with ``labels``.

    ``existing``: the names of the namespaces on the cluster, or None when unknown. A namespace not among them
    is created by the collection and also gets its managed-by label (naming.managed_labels), which removal
    requires before it deletes a namespace; one that exists (the site's, or one the collection made before) is
    never given it. None (unknown) gives the label to none.
    """
    names = []
    for record in records:
        if record["namespace"] not in names:
            names.append(record["namespace"])
    found = set(existing) if existing is not None else None
    made = []
    for name in names:
        own = dict(labels)
        if found is not None and name not in found:
            own.update(naming.managed_labels())
        made.append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": own}})
    return made


def _secret_strings(definitions, secrets):
    """Every string a message must not show: the given secrets and each Secret's data, encoded and decoded."""
    found = [s for s in secrets if isinstance(s, str) and s]
    for definition in definitions:
        if not isinstance(definition, dict) or definition.get("kind") != "Secret":
            continue
        for value in list((definition.get("data") or {}).values()) + list((definition.get("stringData") or {}).values()):
            if not isinstance(value, str) or not value:
                continue
            found.append(value)
            try:
                found.append(base64.b64decode(value, validate=True).decode("utf-8"))
            except (binascii.Error, ValueError):
                pass
    for text in list(found):
        found.append(base64.b64encode(text.encode("utf-8")).decode("ascii"))
    for secret in list(found):  # the auth field of a docker config: base64 of user:token
        for user in secrets:
            if isinstance(user, str) and user and user != secret:
                found.append(base64.b64encode(("%s:%s" % (user, secret)).encode("utf-8")).decode("ascii"))
    # the longest first, so that no shorter secret leaves a piece of a longer one
    return sorted(set(found), key=len, reverse=True)


def scrub(text, secret_strings):
    """``text`` with each of ``secret_strings`` replaced by <redacted>."""
    text = "%s" % (text,)
    for secret in secret_strings:
        text = text.replace(secret, REDACTED)
    return text


def error_text(error):
    """The API's own message of a k8s error (``Failed to create object: <Status JSON>``), else the message."""
    msg = "%s" % ((error or {}).get("msg") or (error or {}).get("reason") or "no message")
    prefix, sep, body = msg.partition(": ")
    if sep and body.strip().startswith("{"):
        try:
            status = json.loads(body)
        except ValueError:
            status = None
        if isinstance(status, dict) and status.get("message"):
            reason = status.get("reason")
            return "%s: %s%s" % (prefix, status["message"].rstrip("."), " (%s)" % reason if reason else "")
    return msg.strip().rstrip(".")


def _label(definition):
    metadata = definition.get("metadata") or {}
    if definition.get("kind") == "Namespace":
        return "namespace %s: the Namespace" % metadata.get("name"), NAMESPACE_FIX
    return ("namespace %s: the %s %s" % (metadata.get("namespace"), definition.get("kind"), metadata.get("name")),
            SECRET_FIX)


def _readable(side):
    """A diff side without the server's bookkeeping (managedFields, resourceVersion)."""
    if not isinstance(side, dict):
        return side if side is not None else {}
    side = dict(side)
    if isinstance(side.get("metadata"), dict):
        side["metadata"] = dict((k, v) for k, v in side["metadata"].items()
                                if k not in ("managedFields", "resourceVersion"))
    return side


def _items(result, definitions):
    """The per-definition results of the call (one definition returns its result as is)."""
    inner = result.get("result")
    if isinstance(inner, dict) and isinstance(inner.get("results"), list):
        return inner["results"]
    return [result] if len(definitions) == 1 else []


def outcome(result, definitions, secrets=()):
    """``{"failures": [message], "diffs": [{namespace, before, after}]}`` of a registered k8s call.

    ``result``: what the task registered (``continue_on_error: true``, ``failed_when: false``; a skipped task
    gives nothing); ``definitions``: the list it applied; ``secrets``: the token and the user, removed from every
    message together with every encoding of the Secrets' data.
    """
    if not isinstance(result, dict) or not isinstance(definitions, list):
        raise ValueError("expects the registered result of a kubernetes.core.k8s call and the list of definitions "
                         "it applied")
    failures, diffs = [], []
    if result.get("skipped") or not definitions:
        return {"failures": failures, "diffs": diffs}
    hidden = _secret_strings(definitions, list(secrets or ()))
    if "result" not in result:  # the module failed before it applied anything (kubeconfig, API unreachable)
        names = []
        for definition in definitions:
            name = (definition.get("metadata") or {}).get("namespace") or (definition.get("metadata") or {}).get("name")
            if name not in names:
                names.append(name)
        failures.append(scrub("namespaces %s: nothing applied: %s. %s" % (", ".join(names), error_text(result),
                                                                          CALL_FIX), hidden))
        return {"failures": failures, "diffs": diffs}
    for definition, item in zip(definitions, _items(result, definitions)):
        label, fix = _label(definition)
        if item.get("error"):
            failures.append(scrub("%s could not be applied: %s. %s" % (label, error_text(item["error"]), fix), hidden))
        elif definition.get("kind") == "Namespace" and item.get("changed") and item.get("diff"):
            diffs.append(dict(namespace=definition["metadata"]["name"],
                              **dict((side, _readable(item["diff"].get(side))) for side in ("before", "after"))))
    return {"failures": failures, "diffs": diffs}


def _holds(wanted, live):
    """True when ``live`` (a dict or None) has every key of ``wanted`` with the same value."""
    return live is not None and all(live.get(key) == value for key, value in (wanted or {}).items())


def pending(namespace_definitions, secret_definitions, live_namespaces, live_secrets):
    """The definitions to apply, Namespaces first: each whose object is missing or lacks what the definition sets.

    ``live_namespaces``: ``{name: labels}`` of the namespaces on the cluster; ``live_secrets``: ``{(namespace,
    name): secret as a dict}`` of the pull secrets read (a missing key is a Secret not found). A Namespace holds
    when it carries the definition's labels (others' labels stay); a Secret when its type, data and labels are
    the definition's. A run where everything holds applies nothing (no patch, no API write).
    """
    todo = []
    for definition in namespace_definitions:
        labels = live_namespaces.get(definition["metadata"]["name"])
        if not _holds(definition["metadata"].get("labels"), labels):
            todo.append(definition)
    for definition in secret_definitions:
        metadata = definition["metadata"]
        live = live_secrets.get((metadata["namespace"], metadata["name"]))
        if (live is None or live.get("type") != definition.get("type") or (live.get("data") or {}) != definition["data"]
                or not _holds(metadata.get("labels"), (live.get("metadata") or {}).get("labels") or {})):
            todo.append(definition)
    return todo


def pull_secrets(records, host, username, token):
    """The harbor-creds Secret of each record that names one, once per namespace; none without a token.

    Raises ValueError naming the model when the token is set but the host or the user is not.
    """
    if not token:
        return []
    made, seen = [], set()
    for record in records:
        name = (record.get("names") or {}).get("harbor_pull_secret")
        if not name or (record["namespace"], name) in seen:
            continue
        if not host or not username:
            raise ValueError("%s: the Harbor host and user of its pull secret %s must be set (aips_harbor_hostname, "
                             "aips_harbor_user) when a token is" % (record.get("name"), name))
        seen.add((record["namespace"], name))
        made.append(pull_secret.pull_secret(name, record["namespace"], host, username, token))
    return made


def diff_entries(diffs):
    """The Namespace diffs of ``outcome`` as Ansible's ``diff`` list (headers name the namespace)."""
    return [dict(before=item["before"], after=item["after"], before_header="namespace %s" % item["namespace"],
                 after_header="namespace %s" % item["namespace"]) for item in diffs]
