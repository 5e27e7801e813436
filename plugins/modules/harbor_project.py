#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
module: harbor_project
short_description: Make sure Harbor projects exist (Harbor v2.0 API)
version_added: 0.1.0
author: ai_platform.serving contributors (@ai-platform)
description:
  - Asks Harbor (C(HEAD /api/v2.0/projects?project_name=...)) whether each project exists and creates the
    missing ones (C(POST /api/v2.0/projects)).
  - Only tested against recorded requests; Harbor cannot run on the project's machines.
extends_documentation_fragment:
  - ai_platform.serving.registry_auth
  - ai_platform.serving.registry_tls
options:
  url:
    description: Harbor base URL, e.g. C(https://harbor.example.com).
    type: str
    required: true
  username:
    description: Harbor user allowed to create projects.
    required: true
  password:
    description: Its password or token.
    required: true
  projects:
    description: Project names.
    type: list
    elements: str
    required: true
  public:
    description: Create the projects public.
    type: bool
    default: false
  storage_limit:
    description: Quota in bytes for new projects (-1 unlimited; Harbor's default when omitted).
    type: int
attributes:
  check_mode:
    support: full
    description: Asks whether the projects exist; creates none.
  diff_mode:
    support: none
    description: No diff is produced.
"""

EXAMPLES = r"""
- name: Create the projects the air-gapped cluster pulls from
  ai_platform.serving.harbor_project:
    url: https://harbor.example.com
    username: admin
    password: "{{ harbor_admin_password }}"
    projects: [ai-models, images-infra, images-shaide, charts]
  no_log: true
"""

RETURN = r"""
created:
  description: Projects created (or that would be, in check mode).
  returned: always
  type: list
  elements: str
  sample: [ai-models, charts]
"""

from ansible_collections.ai_platform.serving.plugins.module_utils.args_common import module_class, registry_auth_argspec
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.harbor import Harbor, HarborError
from ansible_collections.ai_platform.serving.plugins.module_utils.registry.transport import TransportError, open_url_transport


def argspec():
    """The registry options of ai_platform.serving.registry_auth, with user and password required."""
    return registry_auth_argspec(
        url=dict(type="str", required=True),
        projects=dict(type="list", elements="str", required=True),
        public=dict(type="bool", default=False),
        storage_limit=dict(type="int"),
        username=dict(type="str", required=True),
        password=dict(type="str", required=True, no_log=True),
    )


def main():
    # AnsibleModule, or the stand-in of a module running in the playbook's process (plugins/action/harbor_project.py)
    module = module_class()(argument_spec=argspec(), supports_check_mode=True)
    params = module.params
    harbor = Harbor(params["url"], params["username"], params["password"],
                    open_url_transport(params["ca_file"], params["validate_certs"], follow_redirects=False))
    created = []
    try:
        for name in params["projects"]:
            if harbor.ensure_project(name, params["public"], params["storage_limit"], module.check_mode):
                created.append(name)
    except (HarborError, TransportError) as exc:
        module.fail_json(msg=str(exc), created=created)
    module.exit_json(changed=bool(created), created=created)


if __name__ == "__main__":
    main()
