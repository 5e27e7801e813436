"""Shared pytest setup: import the collection as ansible_collections.ai_platform.serving."""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COLLECTIONS = os.path.join(ROOT, ".collections")

if not os.path.isdir(os.path.join(COLLECTIONS, "ansible_collections", "ai_platform", "serving")):
    raise RuntimeError("run scripts/setup.sh first: %s/ansible_collections/ai_platform/serving is missing" % COLLECTIONS)
sys.path.insert(0, COLLECTIONS)
sys.path.insert(0, os.path.join(ROOT, "tests"))
