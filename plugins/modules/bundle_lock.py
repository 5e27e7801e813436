#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: bundle_lock
short_description: Write an air-gap bundle's lock file (and its parts), or verify a bundle against it
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - With O(state=present) (internet side) writes C(bundle.lock.yml) into O(bundle_dir) from the lock entries
    M(ai_platform.serving.bundle_item) returned, only when its content changes, and removes the files under
    C(images/), C(charts/) and C(models/) no entry names (O(prune)). With O(parts_dir) and O(part_size) it also
    cuts the bundle into parts of at most O(part_size) bytes for removable media, each with its sha256 in
    C(parts.yml); the parts are cut again only when the lock changed.
  - With O(state=verified) (air-gapped side) checks the bundle before anything is pushed - with O(parts_dir), every
    part against C(parts.yml) first, then unpacks them into O(bundle_dir) - and every item against the lock. Any
    problem fails the task with one line per item or part naming it.
  - With O(deep=true) every item is hashed (each image archive and chart against its sha256, each blob of a model
    layout against its digest). With O(deep=false) no blob is read - every file and blob must be there with the
    lock's size, a model's manifest must have the lock's digest and list the lock's blobs, the blob list must
    match the lock's sha256, and charts (small) are still hashed; the blobs' content is then verified during the
    push by M(ai_platform.serving.bundle_item) (the registry checks each upload against its digest, skopeo each
    image blob it reads), so the bundle is read once instead of twice.
options:
  state:
    description: V(present) writes the lock, V(verified) checks the bundle against it.
    type: str
    choices: [present, verified]
    required: true
  bundle_dir:
    description: The bundle directory.
    type: path
    required: true
  items:
    description: Lock entries (the C(entry) results of M(ai_platform.serving.bundle_item)), O(state=present).
    type: list
    elements: dict
  prune:
    description: Remove bundle files no entry names (O(state=present)).
    type: bool
    default: true
  parts_dir:
    description:
      - O(state=present) with O(part_size) - write the parts here (outside O(bundle_dir)).
      - O(state=verified) - verify the parts here and unpack them into O(bundle_dir) first.
    type: path
  part_size:
    description: Largest part in bytes (O(state=present)); 0 writes no parts.
    type: int
    default: 0
  signing_public_key:
    description:
      - O(state=verified) - the site's model signing public key (PEM). Each model the bundle carries a signature for
        must verify with it and sign exactly the files of its manifest; a problem names the model and the file.
    type: str
  require_signed:
    description:
      - O(state=verified) - every model must carry a valid signature (needs O(signing_public_key)), and model blobs
        are hashed whatever O(deep) says, so a blob altered after signing is refused before the first push.
    type: bool
    default: false
  deep:
    description:
      - O(state=verified) - hash every item and blob (V(true)), or check sizes, model manifests and blob lists only
        and leave the blobs' content to the push (V(false)).
    type: bool
    default: true
    version_added: 0.1.0
attributes:
  check_mode:
    support: full
    description: Reports whether the lock or the parts would change; verification runs as usual.
  diff_mode:
    support: none
    description: No diff is produced.
"""

EXAMPLES = r"""
- name: Verify the carried bundle before pushing
  ai_platform.serving.bundle_lock:
    state: verified
    bundle_dir: /srv/bundle
    parts_dir: /media/usb/bundle-parts
  register: bundle
"""

RETURN = r"""
lock_file:
  description: Path of C(bundle.lock.yml).
  returned: always
  type: str
entries:
  description: The lock's items (O(state=verified)).
  returned: when O(state=verified)
  type: list
  elements: dict
total_size:
  description: Bytes of all items.
  returned: always
  type: int
parts:
  description: The parts (name, size, sha256).
  returned: when parts were written or verified
  type: list
  elements: dict
removed:
  description: Bundle files removed because no item names them (O(state=present)).
  returned: when O(state=present)
  type: list
  elements: str
written_bytes:
  description: Bytes of parts written (O(state=present)).
  returned: when O(state=present)
  type: int
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.ai_platform.serving.plugins.module_utils.registry import bundle


def inside(path, directory):
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory + os.sep)


def present(module, params):
    items = params["items"] or []
    result = bundle.write_lock(params["bundle_dir"], items, params["prune"], module.check_mode)
    result.update(total_size=sum(item["size"] for item in items), written_bytes=0)
    if params["part_size"]:
        if not params["parts_dir"] or inside(params["parts_dir"], params["bundle_dir"]):
            raise bundle.BundleError("part_size needs parts_dir outside the bundle directory %s" % params["bundle_dir"])
        parts = bundle.split(params["bundle_dir"], params["parts_dir"], params["part_size"], module.check_mode)
        result.update(parts=parts["parts"], written_bytes=parts["written_bytes"],
                      changed=result["changed"] or parts["changed"])
    return result


def verified(module, params):
    result = dict(changed=False, lock_file=os.path.join(params["bundle_dir"], bundle.LOCK_NAME))
    if params["parts_dir"]:
        joined = bundle.join(params["parts_dir"], params["bundle_dir"], module.check_mode)
        result.update(changed=joined["changed"], parts=joined["parts"])
        if module.check_mode and joined["changed"]:
            return dict(result, entries=[], total_size=0)
    lock = bundle.read_lock(params["bundle_dir"])
    problems = bundle.verify(params["bundle_dir"], lock, params["deep"], params["signing_public_key"],
                             params["require_signed"])
    if problems:
        raise bundle.BundleError("the bundle %s does not match its lock, nothing was pushed: %s"
                                 % (params["bundle_dir"], "; ".join(problems)))
    result.update(entries=lock["items"], total_size=lock["total"]["size"])
    return result


def argspec():
    return dict(
        state=dict(type="str", required=True, choices=["present", "verified"]),
        bundle_dir=dict(type="path", required=True),
        items=dict(type="list", elements="dict"),
        prune=dict(type="bool", default=True),
        parts_dir=dict(type="path"),
        part_size=dict(type="int", default=0),
        deep=dict(type="bool", default=True),
        signing_public_key=dict(type="str"),
        require_signed=dict(type="bool", default=False),
    )


def main():
    module = AnsibleModule(
        argument_spec=argspec(),
        required_if=[("state", "present", ["items"])],
        supports_check_mode=True,
    )
    try:
        result = (present if module.params["state"] == "present" else verified)(module, module.params)
    except bundle.BundleError as exc:
        module.fail_json(msg=str(exc))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
