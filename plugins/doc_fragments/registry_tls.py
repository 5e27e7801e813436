# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Doc fragment: how the registry modules check a registry's TLS (ca_file, validate_certs)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """How a registry's TLS is checked (module_utils.args_common.registry_tls_argspec)."""

    DOCUMENTATION = r"""
options:
  ca_file:
    description: CA certificate that signed the registry's certificate.
    type: path
  validate_certs:
    description:
      - Verify the registry's TLS certificate. Set to V(false) only for a test registry.
      - The same option in every module of the collection. O(tls_verify) is its earlier name, deprecated (removed
        in 2.0.0).
    type: bool
    default: true
    aliases: [tls_verify]
    version_added: 0.1.0
"""
