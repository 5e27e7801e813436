# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Parse and build the references a model source is made of.

Pure functions: hub paths (modelUri), the model URIs
the llm-d-modelservice chart reads (``pvc+hf://`` and ``pvc://``), Kubernetes
quantities (storageSize); OCI references (harborRef) are
registry/reference.py's. Each parser raises ValueError with a message that
says what is wrong; callers add the model and the field.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re

from ansible_collections.ai_platform.serving.plugins.module_utils.naming import (
    DNS_LABEL_MAX,
    DNS_LABEL_RE,
    DNS_SUBDOMAIN_MAX,
    DNS_SUBDOMAIN_RE,
    slug_name,
)

_HF_NAME = r"[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?"
MODEL_URI_RE = re.compile(r"^(?P<cache>hub)/(?P<org>%s)/(?P<name>%s)\Z" % (_HF_NAME, _HF_NAME))
QUANTITY_RE = re.compile(
    r"^(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPE]|[eE][0-9]+)?\Z"
)
_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"k": 1, "M": 2, "G": 3, "T": 4, "P": 5, "E": 6}

PVC_SCHEME = "pvc://"
PVC_HF_SCHEME = "pvc+hf://"


def parse_model_uri(model_uri):
    """Split ``hub/<org>/<name>`` into cache dir, org, name and repo id."""
    if not isinstance(model_uri, str):
        raise ValueError("modelUri must be a string")
    match = MODEL_URI_RE.match(model_uri)
    if not match or ".." in model_uri or "--" in model_uri:
        raise ValueError("not of the form hub/<org>/<name> (a Hugging Face repo id under the hub/ cache)")
    parts = match.groupdict()
    parts["repo_id"] = "%s/%s" % (parts["org"], parts["name"])
    return parts


def pvc_hf_uri(slug, model_uri):
    """The modelservice URI for weights the pull Job placed on the model PVC."""
    parse_model_uri(model_uri)
    return "%s%s/%s" % (PVC_HF_SCHEME, slug_name("pvc", slug), model_uri)


def parse_pvc_uri(uri):
    """Split a user-owned claim URI ``pvc://[namespace:]claim/sub/path``.

    Returns namespace (None when absent), claim, sub_path and the chart URI
    ``pvc://claim/sub/path`` (the chart knows no namespace).
    """
    if not isinstance(uri, str) or not uri.startswith(PVC_SCHEME):
        raise ValueError("a user-owned claim must be a pvc://[namespace:]claim/sub/path URI")
    rest = uri[len(PVC_SCHEME):]
    claim_part, sep, sub_path = rest.partition("/")
    if not sep or not sub_path.strip("/"):
        raise ValueError("missing sub-path: name the directory that holds the model, "
                         "pvc://[namespace:]claim/sub/path")
    namespace = None
    if ":" in claim_part:
        namespace, claim = claim_part.split(":", 1)
        if not namespace:
            raise ValueError("empty namespace before ':'; write pvc://claim/sub/path or pvc://namespace:claim/sub/path")
        if len(namespace) > DNS_LABEL_MAX or not DNS_LABEL_RE.match(namespace):
            raise ValueError("namespace '%s' is not a DNS label" % namespace)
    else:
        claim = claim_part
    if not claim or len(claim) > DNS_SUBDOMAIN_MAX or not DNS_SUBDOMAIN_RE.match(claim):
        raise ValueError("claim name '%s' is not a valid PersistentVolumeClaim name" % claim)
    segments = sub_path.strip("/").split("/")
    if any(seg in ("", ".", "..") for seg in segments):
        raise ValueError("sub-path '%s' must be a plain relative path (no empty, '.' or '..' parts)" % sub_path)
    sub_path = "/".join(segments)
    return {
        "namespace": namespace,
        "claim": claim,
        "sub_path": sub_path,
        "chart_uri": "%s%s/%s" % (PVC_SCHEME, claim, sub_path),
    }


def parse_quantity(quantity):
    """Return the number of bytes a Kubernetes quantity such as ``40Gi`` stands for."""
    if isinstance(quantity, bool) or not isinstance(quantity, (str, int)):
        raise ValueError("a quantity must be a string such as 40Gi")
    match = QUANTITY_RE.match(str(quantity))
    if not match:
        raise ValueError("not a Kubernetes quantity such as 5Gi, 40Gi or 500M")
    number = float(match.group("number"))
    suffix = match.group("suffix") or ""
    if suffix in _BINARY:
        value = number * 1024 ** _BINARY[suffix]
    elif suffix in _DECIMAL:
        value = number * 1000 ** _DECIMAL[suffix]
    elif suffix:
        value = number * 10 ** int(suffix[1:])
    else:
        value = number
    if value < 1:
        raise ValueError("the quantity must be at least one byte")
    return int(value)
