# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A renamed role variable (issue 28, one name per TLS/CA option) still takes effect under its old name until 2.0.0,
and the role warns once with the old name, the new one and the release; the new name alone warns of nothing. The
roles run on localhost doing nothing else (no steps, no models, an empty plan): no registry, no cluster."""

import base64
import json
import os
import re
import subprocess
import sys

import pytest

from ansible_collections.ai_platform.serving.tests.support.plan_cases import ROOT

PLAY = """- hosts: localhost
  gather_facts: false
  tasks:
    - name: Apply the role
      ansible.builtin.include_role:
        name: ai_platform.serving.%(role)s
        public: true
    - name: Show the new variables
      ansible.builtin.debug:
        msg: "NEW {{ %(new)s | to_json | b64encode }} END"
"""
# role: (variables the role needs to do nothing, {old name: (new name, a value)}, {new name: its default})
CASES = {
    "harbor_upload": ({"harbor_upload_steps": []},
                      {"harbor_upload_ca_file": ("harbor_upload_registry_ca_file", "/etc/pki/harbor-ca.crt"),
                       "harbor_upload_tls_verify": ("harbor_upload_registry_validate_certs", False)},
                      {"harbor_upload_registry_ca_file": "", "harbor_upload_registry_validate_certs": True}),
    "model_sync": ({"model_sync_models": [], "model_sync_registry": "harbor.example.com"},
                   {"model_sync_ca_file": ("model_sync_registry_ca_file", "/etc/pki/harbor-ca.crt")},
                   {"model_sync_registry_ca_file": "", "model_sync_registry_validate_certs": True}),
    "serving_stack": ({"serving_stack_plan": []},
                      {"serving_stack_helm_registry_ca_file": ("serving_stack_registry_ca_file", "/etc/pki/harbor-ca.crt")},
                      {"serving_stack_registry_ca_file": "", "serving_stack_registry_validate_certs": True}),
}
DEPRECATION = re.compile(r"\[DEPRECATION WARNING\]: The variable (\S+) is deprecated: set (\S+) instead .*?"
                         r"removed from collection 'ai_platform\.serving' version 2\.0\.0", re.S)


def play(tmp_path, role, names, variables):
    playbook = tmp_path / "play.yml"
    new = "{%s}" % ", ".join("'%s': %s" % (name, name) for name in names)
    playbook.write_text(PLAY % dict(role=role, new=new))
    extra = tmp_path / "vars.json"
    extra.write_text(json.dumps(dict(variables, ansible_python_interpreter=sys.executable,
                                     model_sync_work_dir=str(tmp_path / "work"),
                                     model_sync_lock_file=str(tmp_path / "models.lock.yml"))))
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(ROOT, "ansible.cfg"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_FORCE_COLOR="0", ANSIBLE_DEPRECATION_WARNINGS="1")
    proc = subprocess.run([os.path.join(os.path.dirname(sys.executable), "ansible-playbook"), "-i", "localhost,",
                           "-c", "local", str(playbook), "-e", "@%s" % extra],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    shown = re.search(r"NEW (\S+) END", output)
    assert shown, output
    return json.loads(base64.b64decode(shown.group(1))), [m.groups() for m in DEPRECATION.finditer(" ".join(output.split()))], output


@pytest.mark.parametrize("role", sorted(CASES))
def test_an_old_name_still_sets_the_new_one_and_warns(tmp_path, role):
    needed, renamed, _defaults = CASES[role]
    values, warned, output = play(tmp_path, role, [new for new, _value in renamed.values()],
                                  dict(needed, **dict((old, value) for old, (_new, value) in renamed.items())))
    assert values == dict(renamed.values()), output
    assert sorted(warned) == sorted((old, new) for old, (new, _value) in renamed.items()), output


@pytest.mark.parametrize("role", sorted(CASES))
def test_the_new_names_alone_warn_of_nothing(tmp_path, role):
    needed, renamed, defaults = CASES[role]
    values, warned, output = play(tmp_path, role, sorted(defaults), needed)
    assert values == defaults, output
    assert warned == [] and "DEPRECATION" not in output, output
    set_new = dict(renamed.values())
    values, warned, output = play(tmp_path, role, sorted(set_new), dict(needed, **set_new))
    assert values == set_new and warned == [], output
