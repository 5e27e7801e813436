# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model signing key pairs for tests (what a site makes once with openssl ecparam -genkey -name prime256v1)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def key_pair():
    """(private PEM, public PEM) of a new P-256 key, as text."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    key = ec.generate_private_key(ec.SECP256R1())
    private = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    public = key.public_key().public_bytes(serialization.Encoding.PEM,
                                           serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    return private, public


def signature_status(registry, repository, digest, public_key):
    """How ``repository@digest`` in the test registry is signed (model_signatures.registry_status, as site.yml's
    preflight reads it)."""
    import yaml
    from ansible_collections.ai_platform.serving.plugins.module_utils.registry import distribution, model_signatures
    from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import open_url_transport
    remote = distribution.Registry(registry.host, registry.user, registry.password,
                                   open_url_transport(registry.ca, True, 30))
    _digest, body = remote.manifest(repository, digest)
    return model_signatures.registry_status(remote, repository, digest, yaml.safe_load(body), public_key)
