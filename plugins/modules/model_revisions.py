#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: model_revisions
short_description: Prune the model revisions a claim no longer keeps
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - A model claim holds the served revision and the earlier ones side by side; the pull Job records them in
    the claim's C(ai-platform.serving/revisions) annotation, the most recently served first.
  - For every record of O(records) whose claim lists more than the served revision plus O(keep) others, runs one
    short Job C(<slug>-model-prune) on the claim that removes the other snapshots, then rewrites the annotation.
  - Run it once the serving pods rolled onto the served revision (M(ai_platform.serving.serving_stack) does, after
    the ModelService release is ready). On a single-node claim (ReadWriteOnce, dynamic class) the Job runs on the
    node whose serving pods hold the claim.
  - A record that carries its decision under C(prune) (the C(prune) entries of M(ai_platform.serving.serving_stack_info)
    do) is pruned as decided, without reading its claim again. The claims of the other records are read with one
    list call; a claim with nothing to drop costs nothing more.
extends_documentation_fragment:
  - kubernetes.core.k8s_auth_options
options:
  records:
    description:
      - Plan records (elements of the C(aips_plan) fact); records without a Harbor source are skipped.
      - A record may carry the decision for its claim under C(prune), a dict of C(annotations) (the claim's
        annotations it was made on), C(kept) and C(dropped) (the digests), as the C(prune) entries of
        M(ai_platform.serving.serving_stack_info) do; O(keep) does not apply to it and its claim is not listed. A
        record without C(prune) is decided here on its listed claim; one whose C(prune) is no such dict fails the
        module.
    type: list
    elements: dict
    required: true
  keep:
    description:
      - Revisions kept beside the served one (a rollback switches to one of them without a download).
      - Applies to the records without a C(prune) decision.
    type: int
    default: 1
  timeout:
    description: Seconds one prune Job may take.
    type: int
    default: 300
  run_as_user:
    description: UID (and group, fsGroup) of the prune Job's pod, as the pull Job's.
    type: int
    default: 65532
attributes:
  check_mode:
    support: full
    description: Reports what would be pruned (reading the claims of the records without a decision); runs no prune
      Job and rewrites no annotation.
  diff_mode:
    support: none
    description: Not applicable.
"""

EXAMPLES = r"""
- name: Prune the revisions the claims no longer keep
  ai_platform.serving.model_revisions:
    records: "{{ aips_plan }}"
    keep: 1
"""

RETURN = r"""
pruned:
  description: Per pruned model slug, the digests kept on its claim and the ones removed.
  returned: always
  type: dict
  sample: {"qwen3-0-6b": {"kept": ["sha256:aa..."], "dropped": ["sha256:bb..."]}}
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import k8s_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.storage.revisions import prune
from ansible_collections.ai_platform.serving.plugins.module_utils.k8s.runner import PullApiError, run_module


def argspec():
    return k8s_auth_argspec(
        records=dict(type="list", elements="dict", required=True),
        keep=dict(type="int", default=1),
        timeout=dict(type="int", default=300),
        run_as_user=dict(type="int", default=65532),
    )


def execute_module(module, client):
    params = module.params
    if params["keep"] < 0:
        module.fail_json(msg="keep is %d: give the number of revisions to keep beside the served one (0 or more)"
                         % params["keep"])
    pruned = prune(client, params["records"], params["keep"], module.check_mode, params["timeout"],
                   params["run_as_user"])
    module.exit_json(changed=bool(pruned), pruned=pruned)


def main():
    run_module(argspec(), execute_module, errors=(PullApiError, ValueError))


if __name__ == "__main__":
    main()
