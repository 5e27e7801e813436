"""Shared pytest setup. The tests import the collection, and their helpers (tests/support), as
ansible_collections.ai_platform.serving: from this checkout, pytest.ini puts .collections (where
scripts/setup.sh links the checkout) on sys.path; under ansible-test units, its collection loader
resolves the name. Nothing here changes sys.path or imports a helper that needs the lab."""

import importlib.util
import os

if importlib.util.find_spec("ansible_collections.ai_platform.serving") is None:
    raise RuntimeError("run scripts/setup.sh first: %s/.collections/ansible_collections/ai_platform/serving is "
                       "missing" % os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
