# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""OCI references: the one parser, and the one place a pinned ``name@digest`` reference is built.

Pure functions. ``parse_oci_reference`` is strict (``host/project/name[:tag][@sha256:...]``: what a
Harbor reference, an image plan source or a model's harborRef must be); ``repository_name`` accepts
any image reference a container tool takes (``busybox:1.36``, ``registry.k8s.io/pause:3.10``).
``pin`` joins a repository and a digest; ``pinned_reference`` (strict) and ``source_reference``
(any image) build on it. ``normalize_image`` is the one place an image reference is resolved the way
containerd and Docker resolve it (``vllm/vllm-openai:v1`` is ``docker.io/vllm/vllm-openai:v1``, ``busybox``
is ``docker.io/library/busybox:latest``): every comparison of images (air-gap check, lock pins, the images
list) goes through it. Each parser raises ValueError with a message that says what is wrong;
callers add the model and the field.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import re
from collections import namedtuple

Reference = namedtuple("Reference", ["registry", "repository", "tag", "digest"])

_REGISTRY_RE = r"(?:localhost|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+|[A-Za-z0-9-]+:[0-9]+|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+:[0-9]+)"
_PATH_COMPONENT_RE = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
OCI_REFERENCE_RE = re.compile(
    r"^(?P<registry>%s)/(?P<repository>%s(?:/%s)+)(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?\Z" % (_REGISTRY_RE, _PATH_COMPONENT_RE, _PATH_COMPONENT_RE)
)
OCI_DIGEST_RE = re.compile(r"^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$")


def parse_oci_reference(reference):
    """Split ``host/project/name:tag`` or ``host/project/name[:tag]@sha256:<hex>``.

    Returns a dict with registry, repository, tag, digest (tag or digest may be
    None, never both).
    """
    if not isinstance(reference, str):
        raise ValueError("an OCI reference must be a string")
    match = OCI_REFERENCE_RE.match(reference)
    if not match:
        raise ValueError("not an OCI reference of the form host/project/name:tag or "
                         "host/project/name@sha256:<64 hex digits>")
    parts = match.groupdict()
    if not parts["tag"] and not parts["digest"]:
        raise ValueError("the reference has neither a tag nor a digest; add :<tag> or @sha256:<64 hex digits>")
    return parts


def repository_name(image):
    """Any image reference without its tag and digest: ``host:5000/p/n:v1@sha256:..`` -> ``host:5000/p/n``."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)
    if ":" in last[-1]:
        name = name[:name.rindex(":")]
    return name


def pin(repository, digest):
    """``repository`` (no tag, no digest) + a manifest digest -> ``repository@digest``."""
    return "%s@%s" % (repository, digest)


def pinned_reference(reference, digest):
    """``host/repo:tag`` (or ``host/repo[:tag]@sha256:...``) + a manifest digest -> ``host/repo@digest``.

    Raises ValueError when the reference does not parse or the digest is not an OCI digest.
    """
    if not isinstance(digest, str) or not OCI_DIGEST_RE.match(digest):
        raise ValueError("%r is not a manifest digest (sha256:<hex>)" % (digest,))
    parts = parse_oci_reference(reference)
    return pin("%s/%s" % (parts["registry"], parts["repository"]), digest)


def source_reference(image, digest):
    """Pull by digest when one is pinned: ``repo:tag`` + digest -> ``repo@digest``; no digest, the image as given."""
    if not digest:
        return image
    return pin(repository_name(image), digest)


# --- image names as containerd and Docker resolve them -----------------------------------------------

DOCKER_HUB = "docker.io"
# Names Docker accepts for Docker Hub; containerd and Kubernetes resolve them all to docker.io.
_DOCKER_HUB_ALIASES = ("docker.io", "index.docker.io", "registry-1.docker.io")
DEFAULT_TAG = "latest"


def _is_host(component):
    """A reference's first path component names a registry when it has a dot or a port, or is localhost."""
    return "." in component or ":" in component or component == "localhost"


def normalize_registry(host):
    """``host`` as a pull resolves it: Docker Hub's aliases are ``docker.io``; anything else as written."""
    host = (host or "").rstrip("/")
    return DOCKER_HUB if host.lower() in _DOCKER_HUB_ALIASES else host


def split_image(image):
    """Any image reference -> ``Reference(registry, repository, tag, digest)`` as containerd resolves it.

    ``vllm/vllm-openai:v1`` -> (docker.io, vllm/vllm-openai, v1, None); ``busybox`` -> (docker.io,
    library/busybox, latest, None); ``host:5000/p/n@sha256:..`` -> (host:5000, p/n, None, sha256:..).
    The default tag ``latest`` applies only without a digest (a digest alone names the image).
    Raises ValueError for an empty or malformed reference.
    """
    if not isinstance(image, str) or not image.strip() or any(c.isspace() for c in image):
        raise ValueError("%r is not an image reference" % (image,))
    name, _sep, digest = image.partition("@")
    if digest and not OCI_DIGEST_RE.match(digest):
        raise ValueError("%r: %r is not a digest" % (image, digest))
    tag = None
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name, tag = name.rsplit(":", 1)
        if not tag:
            raise ValueError("%r has an empty tag" % (image,))
    first, _sep, rest = name.partition("/")
    if rest and _is_host(first):
        registry, repository = normalize_registry(first), rest
    else:
        registry, repository = DOCKER_HUB, name
    if not repository:
        raise ValueError("%r names no repository" % (image,))
    if registry == DOCKER_HUB and "/" not in repository:
        repository = "library/" + repository
    if not tag and not digest:
        tag = DEFAULT_TAG
    return Reference(registry, repository, tag, digest or None)


def normalize_image(image):
    """The fully qualified form of ``image``: ``registry/repository[:tag][@digest]`` (split_image), so that two
    spellings of one image compare equal. A reference that does not parse is returned as written."""
    try:
        ref = split_image(image)
    except ValueError:
        return image
    text = "%s/%s" % (ref.registry, ref.repository)
    if ref.tag:
        text += ":" + ref.tag
    if ref.digest:
        text += "@" + ref.digest
    return text


def image_lookup(mapping, image):
    """The value ``mapping`` (``{image reference: value}``) holds for ``image``: the key written as ``image`` is,
    else the one normalize_image resolves to the same image (``vllm/vllm-openai:v1`` and
    ``index.docker.io/vllm/vllm-openai:v1`` are one image); None when no key names it."""
    mapping = mapping or {}
    if image in mapping:
        return mapping[image]
    wanted = normalize_image(image)
    for key, value in mapping.items():
        if isinstance(key, str) and normalize_image(key) == wanted:
            return value
    return None


def image_registry(image):
    """The registry a node pulls ``image`` from (``docker.io`` for a short name); None when it does not parse."""
    try:
        return split_image(image).registry
    except ValueError:
        return None
