# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Artifacts in the lab's Harbor made by hands other than the collection's: MiniLM pushed by modelpack-client (PyPI,
an independent CNCF ModelPack client), and a signature moved from one artifact to another (a signature for other
files than the ones it is attached to)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil
import tempfile

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import (
    distribution, model_signatures, oci_artifact, tools)
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import open_url_transport
from ansible_collections.ai_platform.serving.plugins.module_utils.sync import model_sync
from ansible_collections.ai_platform.serving.tests.support import HARBOR
from ansible_collections.ai_platform.serving.tests.support.hub import files_of


def client_push(lab, repository, source, tag="v1"):
    """Push the model directory ``source`` as ``<harbor>/ai-models/<repository>:<tag>`` with modelpack-client (one
    layer per file, typed as the collection types them, a config with a name and nothing else: no revision
    annotation); its push result (``.digest``)."""
    import oras.client
    from modelpack_client import ModelDescriptor, ModelLayer, ModelPackClient, ModelPackConfig
    client = oras.client.OrasClient(hostname=HARBOR, tls_verify=lab["AIPS_LAB_CA"], auth_backend="basic")
    client.auth.set_basic_auth(lab["AIPS_LAB_HARBOR_USER"], lab["AIPS_LAB_HARBOR_TOKEN"])
    layers = [ModelLayer(os.path.join(source, rel), artifact_path=rel, media_type=oci_artifact.modelpack_media_type(rel))
              for rel in sorted(files_of(source))]
    return ModelPackClient(oras_client=client).push(
        "%s/ai-models/%s:%s" % (HARBOR, repository, tag), layers=layers,
        config=ModelPackConfig(descriptor=ModelDescriptor(name=os.path.basename(source.rstrip("/")))))


def harbor(lab):
    """The lab's Harbor over the distribution API (distribution.Registry), with the lab's credentials and CA."""
    return distribution.Registry(HARBOR, lab["AIPS_LAB_HARBOR_USER"], lab["AIPS_LAB_HARBOR_TOKEN"],
                                 open_url_transport(lab["AIPS_LAB_CA"], True, 30))


def move_signature(lab, source, source_digest, target, target_digest):
    """Attach the signature attached to ``ai-models/<source>@<source_digest>`` to ``ai-models/<target>@<target_digest>``
    as well (read over the distribution API, attached with oras as model_sync attaches): a valid signature by the
    site's key, of other files than the target's."""
    remote_registry = harbor(lab)
    found = model_signatures.signature_manifests(remote_registry.referrers("ai-models/" + source, source_digest))
    assert len(found) == 1, found
    manifest = remote_registry.manifest("ai-models/" + source, found[0])[1]
    layer = json.loads(manifest.decode("utf-8"))["layers"][0]["digest"]
    signature = remote_registry.blob("ai-models/" + source, layer)
    work = tempfile.mkdtemp(prefix="aips-test-signature-")
    try:
        with open(os.path.join(work, model_signatures.SIGNATURE_FILE), "wb") as handle:
            handle.write(signature)
        pinned = "%s/ai-models/%s@%s" % (HARBOR, target, target_digest)
        params = dict(reference=pinned, ca_file=lab["AIPS_LAB_CA"], plain_http=False, insecure=False,
                      validate_certs=True, oras_path=shutil.which("oras", path=lab["PATH"]),
                      registry_username=lab["AIPS_LAB_HARBOR_USER"], registry_password=lab["AIPS_LAB_HARBOR_TOKEN"])
        credentials = {HARBOR: (lab["AIPS_LAB_HARBOR_USER"], lab["AIPS_LAB_HARBOR_TOKEN"])}
        with tools.AuthDir(credentials) as auth:
            return model_sync.Remote(params, auth).attach(pinned, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
