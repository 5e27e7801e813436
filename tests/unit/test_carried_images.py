"""Every image the on-prem model values name is carried into Harbor by harbor_upload (images.yml)."""

from pathlib import Path

import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.plan.images import image_plan
from ansible_collections.ai_platform.serving.plugins.module_utils.stack.values import image_references

REPO = Path(__file__).resolve().parents[2]
HARBOR = "harbor.harbor.svc.cluster.local"


def carried():
    images = yaml.safe_load((REPO / "group_vars" / "all" / "images.yml").read_text())["aips_images"]
    return set(record["destination"] for record in image_plan(images, HARBOR))


def test_on_prem_values_use_only_carried_images():
    have = carried()
    used = {}
    for values in REPO.glob("models/*/*-rke2/*/values.yaml"):
        for where, image in image_references(yaml.safe_load(values.read_text()) or {}):
            used.setdefault(image, []).append("%s %s" % (values.relative_to(REPO), where))
    assert len(used) >= 3, used
    missing = dict((image, places) for image, places in used.items() if image not in have)
    assert not missing, "images named by on-prem values but not in group_vars/all/images.yml: %s" % missing
