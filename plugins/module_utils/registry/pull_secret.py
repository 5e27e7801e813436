# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The ``harbor-creds`` pull secret: one definition for every role that writes it.

model_storage (the pull Job mounts it as /root/.docker/config.json) and serving_stack (pods name
it in imagePullSecrets) both create it; building it here keeps the two byte-identical, so
whichever runs second changes nothing.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import base64
import json

from ansible_collections.ai_platform.serving.plugins.module_utils import naming


def _b64(text):
    return base64.b64encode(text.encode("utf-8")).decode("ascii")


def dockerconfigjson(host, username, password):
    """The ``.dockerconfigjson`` document (a str) for one registry."""
    auth = {"username": username, "password": password, "auth": _b64("%s:%s" % (username, password))}
    return json.dumps({"auths": {host: auth}}, sort_keys=True, separators=(",", ":"))


def pull_secret(name, namespace, host, username, password):
    """A kubernetes.io/dockerconfigjson Secret definition."""
    return {
        "apiVersion": "v1",
        "kind": "Secret",
        "type": "kubernetes.io/dockerconfigjson",
        "metadata": {"name": name, "namespace": namespace, "labels": naming.managed_labels()},
        "data": {".dockerconfigjson": _b64(dockerconfigjson(host, username, password))},
    }
