# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Model storage test data: plan records of each storage kind, manifest digests, a claim's revisions."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.storage import pull_marker
from ansible_collections.ai_platform.serving.tests.support import ROOT

# on_prem (hostPath PV), cloud (dynamic claim) and claim (user-owned pvc://) records, as model_plan builds them
RECORDS_FILE = os.path.join(ROOT, "tests", "unit", "plugins", "module_utils", "storage", "fixtures", "records.yml")
DIGEST = "sha256:" + "a" * 64
V1, V2, V3 = ("sha256:" + c * 64 for c in "123")


def load_records():
    """{kind: record} from RECORDS_FILE, a fresh copy each call."""
    with open(RECORDS_FILE) as handle:
        return yaml.safe_load(handle)


def revisions_annotations(served, *digests):
    """The annotations of a claim serving ``served`` and keeping ``digests`` (pulled at t0, t1, ... in that order)."""
    revisions = [{"digest": d, "commit": d[7:47], "pulled_at": "t%d" % i, "tag": "h/p/m:v%d" % i}
                 for i, d in enumerate(digests)]
    return pull_marker.pvc_annotations({"digest": served, "revisions": revisions})
