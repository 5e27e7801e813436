# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""Migration from the Pulumi program: a ``Pulumi.<stack>.yaml`` in, this collection's group vars out.

``convert_stack(stack)`` maps the ``app-serving:*`` keys of a parsed stack file to the
``aips_*`` variables and collects every problem instead of stopping at the first. The
Harbor token is never copied: a ``secure:`` value (Pulumi ciphertext, which Ansible cannot
decrypt) or a token in clear becomes a reference to the Vault variable
``vault_aips_harbor_token``. No message carries a value of the token, of an unknown key or
of a kubeconfig.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import json
import os
import re
import shlex

try:
    import yaml
except ImportError:  # render_group_vars says it needs PyYAML
    yaml = None

from ansible.module_utils.common.text.converters import to_text

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import CATEGORIES, SOURCE_FIELDS
from ansible_collections.ai_platform.serving.plugins.module_utils.plan.schema import SEED_MODEL_FIELDS as MODEL_FIELDS

PROJECT = "app-serving"

# Pulumi key (after "app-serving:") -> group var, in the order the output lists them.
KEY_MAP = (
    ("cloudProvider", "aips_cloud_provider"),
    ("kubeconfig", "aips_kubeconfig"),
    ("harborHostname", "aips_harbor_hostname"),
    ("harborUser", "aips_harbor_user"),
    ("harborToken", "aips_harbor_token"),
    ("gpuToleration", "aips_gpu_toleration"),
    ("models", "aips_models"),
)
KEYS = dict(KEY_MAP)
PULUMI_NAMES = [pulumi_name for pulumi_name, variable in KEY_MAP]
VARIABLES = [variable for pulumi_name, variable in KEY_MAP]
OBJECT_KEYS = ("models", "gpuToleration")
STRING_KEYS = ("cloudProvider", "kubeconfig", "harborHostname", "harborUser")
REQUIRED_KEYS = ("cloudProvider",)
TOKEN_KEY = "harborToken"
MODELS_DIR_VAR = "aips_models_dir"

VAULT_VARIABLE = "vault_aips_harbor_token"
VAULT_REFERENCE = "{{ %s }}" % VAULT_VARIABLE

# Top-level keys of a stack file that are Pulumi's own metadata, not program settings.
STACK_METADATA = ("encryptionsalt", "secretsprovider", "encryptedkey")
# Pulumi ESC environments imported by the stack: their values are not in the file.
STACK_ENVIRONMENT = "environment"

TOKEN_SECURE = "secure"
TOKEN_PLAIN = "plain"
TOKEN_ABSENT = "absent"

STACK_FILE_RE = re.compile(r"^Pulumi\.(?P<stack>[^/]+)\.ya?ml$")


class MigrationProblem(object):
    """One finding: ``where`` (a stack key or a model), what is wrong, how to fix it."""

    def __init__(self, where, problem, fix):
        self.where = where
        self.problem = problem
        self.fix = fix

    def __str__(self):
        return "%s: %s. Fix: %s" % (self.where, self.problem, self.fix)


def _key(name):
    return "%s:%s" % (PROJECT, name)


def _did_you_mean(name, choices):
    """`` (did you mean 'x'?)`` for a near miss, case differences first; else empty."""
    if not isinstance(name, str):
        return ""
    for choice in choices:
        if choice.lower() == name.lower():
            return " (did you mean '%s'? names are case-sensitive)" % choice
    close = difflib.get_close_matches(name, list(choices), n=1, cutoff=0.75)
    return " (did you mean '%s'?)" % close[0] if close else ""


def _is_secure(value):
    return isinstance(value, dict) and set(value) == {"secure"}


def _contains_secure(value):
    if _is_secure(value):
        return True
    if isinstance(value, dict):
        return any(_contains_secure(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_secure(v) for v in value)
    return False


def stack_name(path):
    """The stack of ``Pulumi.<stack>.yaml``; None for any other file name."""
    match = STACK_FILE_RE.match(os.path.basename(path or ""))
    return match.group("stack") if match else None


def vault_file_for(output):
    """Where the Vault variable goes, given the output's path.

    ``<inventory>/group_vars/<group>.yml`` -> ``<inventory>/group_vars/all/vault.yml``: not
    ``group_vars/<group>/vault.yml``, since Ansible reads only the folder when a group has
    both a folder and a file (the file would be ignored). ``group_vars/<group>/<file>.yml``
    -> ``group_vars/<group>/vault.yml``. Anything else: ``vault.yml`` beside the output.
    """
    folder = os.path.dirname(output)
    if os.path.basename(folder) == "group_vars":
        return os.path.join(folder, "all", "vault.yml")
    return os.path.join(folder, "vault.yml")


def shadowing_folder(output):
    """The group folder that would hide ``group_vars/<group>.yml`` from Ansible; None when not applicable."""
    folder = os.path.dirname(output)
    if os.path.basename(folder) != "group_vars":
        return None
    return os.path.splitext(output)[0]


class _Conversion(object):
    def __init__(self, stack, models_dir):
        self.stack = stack
        self.models_dir = models_dir
        self.errors = []
        self.warnings = []
        self.notes = []
        self.token = TOKEN_ABSENT
        self.group_vars = {}

    def error(self, where, problem, fix):
        self.errors.append(MigrationProblem(where, problem, fix))

    def config(self):
        """The config mapping: Pulumi's ``config:`` section, or the keys at the top (the seed's form)."""
        stack = self.stack
        if not isinstance(stack, dict):
            self.error("stack file", "the stack file must hold a mapping of config keys, got %s"
                       % type(stack).__name__,
                       "pass a Pulumi.<stack>.yaml with app-serving:* keys (at the top or under config:)")
            return None
        if "config" in stack:
            config = stack["config"]
            for key in stack:
                if key != "config":
                    self._top_level(key, inside_config=True)
            if not isinstance(config, dict):
                self.error("config", "the config section must be a mapping of config keys",
                           "write config: {app-serving:cloudProvider: ..., ...}")
                return None
            return config
        config = {}
        for key, value in stack.items():
            if isinstance(key, str) and ":" in key:
                config[key] = value
            else:
                self._top_level(key, inside_config=False)
        return config

    def _top_level(self, key, inside_config):
        if key in STACK_METADATA:
            self.notes.append("%s: Pulumi's secrets metadata, not a setting; ignored" % key)
        elif key == STACK_ENVIRONMENT:
            self.warnings.append("environment: the stack imports Pulumi ESC environments; values that come from "
                                 "them are not in the stack file and are not migrated - add their aips_* "
                                 "equivalents to the output by hand")
        elif inside_config:
            self.error("stack file", "unknown top-level key %r beside config:" % (key,),
                       "remove it: a stack file holds config, encryptionsalt, secretsprovider, encryptedkey "
                       "and environment")
        else:
            self.error("stack file", "%r is not a Pulumi config key (<namespace>:<name>)%s"
                       % (key, _did_you_mean(key, PULUMI_NAMES)),
                       "write it as %s:<name>, e.g. %s, or remove it" % (PROJECT, _key("cloudProvider")))

    def run(self):
        config = self.config()
        if config is None:
            return
        seen = {}
        for key in config:
            if not isinstance(key, str) or ":" not in key:
                self.error(str(key), "not a Pulumi config key (<namespace>:<name>)",
                           "write it as %s:<name> or remove it" % PROJECT)
                continue
            namespace, name = key.split(":", 1)
            if namespace != PROJECT:
                self.notes.append("%s: a key of the Pulumi namespace '%s', not of the program (%s:*); ignored - "
                                  "set its Ansible equivalent by hand if the program relied on it"
                                  % (key, namespace, PROJECT))
                continue
            if name not in KEYS:
                self.error(key, "unknown key: the collection has no setting for it%s"
                           % _did_you_mean(name, list(KEYS)),
                           "rename it to one of %s, or remove it from (a copy of) the stack file and "
                           "carry its meaning over by hand, then run the migration again"
                           % ", ".join(_key(k) for k in PULUMI_NAMES))
                continue
            seen[name] = config[key]
        for name in REQUIRED_KEYS:
            if name not in seen:
                self.error(_key(name), "missing: the Pulumi program requires it and the collection's default "
                           "(on-prem) may not be what the stack meant",
                           "add %s: cloud (or on-prem) to the stack file" % _key(name))
        for name, variable in KEY_MAP:
            if name not in seen:
                continue
            value = seen[name]
            if name == TOKEN_KEY:
                self._token(value)
                continue
            # Inside models, each model reports its own secrets.
            if _is_secure(value) if name == "models" else _contains_secure(value):
                self.error(_key(name), "a Pulumi secret (secure:), which Ansible cannot decrypt",
                           "read it with `pulumi config get --stack <stack> %s`, put the value in clear in a copy "
                           "of the stack file and run again (or set %s by hand, in Ansible Vault if secret)"
                           % (_key(name), variable))
                continue
            value = self._object(name, value) if name in OBJECT_KEYS else value
            if value is None:
                continue
            if name in STRING_KEYS and not self._string(name, value):
                continue
            if name == "models":
                value = self._models(value)
                if value is None:
                    continue
            self.group_vars[variable] = value
        missing = [_key(name) for name in PULUMI_NAMES if name not in seen and name not in REQUIRED_KEYS]
        if missing:
            self.notes.append("not in the stack, so the collection's defaults apply (group_vars/all/main.yml): %s"
                              % ", ".join(missing))
        if self.models_dir:
            self.group_vars[MODELS_DIR_VAR] = self.models_dir
        else:
            self.notes.append("no models folder given: %s keeps its default, the collection's models/ "
                              "(pass the Pulumi program's deployments/models to use its tree as is)"
                              % MODELS_DIR_VAR)

    def _token(self, value):
        where = _key(TOKEN_KEY)
        if _is_secure(value):
            self.token = TOKEN_SECURE
        elif isinstance(value, str) and value:
            self.token = TOKEN_PLAIN
            self.warnings.append("%s is in clear in the stack file: it is not written to the output. Put it in "
                                 "Ansible Vault as %s, remove it from the stack file and rotate the robot "
                                 "token, since it was stored in clear" % (where, VAULT_VARIABLE))
        elif value in (None, ""):
            self.notes.append("%s is empty: no token, so aips_harbor_token keeps its default (empty)" % where)
            return
        else:
            self.error(where, "the token must be {secure: <ciphertext>} or a string, got a %s"
                       % type(value).__name__, "set it with `pulumi config set --secret %s <robot secret>`" % where)
            return
        self.group_vars["aips_harbor_token"] = VAULT_REFERENCE

    def _object(self, name, value):
        """Structured config: a mapping, or a JSON string as `pulumi config set` without --path writes."""
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except ValueError:
                value = None
        if isinstance(value, dict):
            return value
        self.error(_key(name), "must be a mapping (or a JSON object as a string)",
                   "write it as a YAML mapping, as in the seed's examples")
        return None

    def _string(self, name, value):
        if not isinstance(value, str):
            self.error(_key(name), "must be a string, got a %s" % type(value).__name__,
                       "quote the value in the stack file")
            return False
        if name == "kubeconfig" and ("\n" in value or value.lstrip().startswith(("apiVersion", "{"))):
            self.error(_key(name), "holds a kubeconfig's contents, not a path; the collection takes a path "
                       "(the contents are not copied: they hold credentials)",
                       "save the contents to a file (mode 0600), e.g. ~/.kube/<cluster>.yaml, and put that path "
                       "into %s in a copy of the stack file, then run again" % _key(name))
            return False
        return True

    def _models(self, models):
        converted = {}
        ok = True
        for category, entries in models.items():
            where = "%s.%s" % (_key("models"), category)
            if category not in CATEGORIES:
                self.error(where, "unknown model category%s" % _did_you_mean(category, CATEGORIES),
                           "list models under generative or embedder only")
                ok = False
                continue
            if entries is None:
                entries = []
            if not isinstance(entries, list):
                self.error(where, "a category must hold a list of models", "write %s as a YAML list" % category)
                ok = False
                continue
            for index, entry in enumerate(entries):
                ok = self._model(category, index, entry) and ok
            converted[category] = entries
        return converted if ok else None

    def _model(self, category, index, entry):
        name = entry.get("name") if isinstance(entry, dict) else None
        label = "%s model %s/%s" % (_key("models"), category,
                                    name if isinstance(name, str) and name else "#%d" % index)
        if not isinstance(entry, dict):
            self.error(label, "a model entry must be a mapping", "write it as {name: <folder>, enabled: true, ...}")
            return False
        ok = True
        for field in entry:
            if field not in MODEL_FIELDS:
                self.error(label, "unknown field %r%s" % (field, _did_you_mean(field, MODEL_FIELDS)),
                           "use only %s; fix the name, or move the setting into the model's values.yaml "
                           "(models/%s/<name>/ms-<slug>/) and remove it from the stack file, then run again"
                           % (", ".join(MODEL_FIELDS), category))
                ok = False
        source = entry.get("modelSource")
        if isinstance(source, dict):
            for field in source:
                if field not in SOURCE_FIELDS:
                    self.error(label, "unknown modelSource field %r%s" % (field, _did_you_mean(field, SOURCE_FIELDS)),
                               "use only %s in modelSource; fix the name or remove it, then run again"
                               % ", ".join(SOURCE_FIELDS))
                    ok = False
        if _contains_secure(entry):
            self.error(label, "holds a Pulumi secret (secure:), which Ansible cannot decrypt",
                       "read it with `pulumi config get --stack <stack> --path` and write it in clear in a copy "
                       "of the stack file, then run again")
            ok = False
        return ok


def convert_stack(stack, models_dir=None):
    """Map a parsed stack file to group vars.

    Returns a dict: ``group_vars`` (empty when there are errors, so nothing partial is ever
    written), ``errors``, ``warnings`` and ``notes`` (lists of str), ``token`` (``secure``,
    ``plain`` or ``absent``: where the Harbor token was).
    """
    conversion = _Conversion(stack, models_dir or None)
    conversion.run()
    errors = [str(p) for p in conversion.errors]
    return {
        "group_vars": {} if errors else conversion.group_vars,
        "errors": errors,
        "warnings": conversion.warnings,
        "notes": conversion.notes,
        "token": conversion.token,
    }


def format_errors(errors):
    """One failure message listing every error."""
    lines = ["The Pulumi stack has %d problem%s; nothing was written:" % (len(errors), "" if len(errors) == 1 else "s")]
    lines.extend("  - %s" % e for e in errors)
    return "\n".join(lines)


def ordered_group_vars(group_vars):
    """``(variable, value)`` pairs in the order of KEY_MAP, then aips_models_dir."""
    order = VARIABLES + [MODELS_DIR_VAR]
    return [(variable, group_vars[variable]) for variable in order if variable in group_vars]


def vault_instructions(token, vault_file, stack=None):
    """Shell lines creating the Vault variable the output refers to; empty without a token.

    The token goes through stdin (``--stdin-name``), so it is in neither the shell history
    nor the process list; ``tr -d '\\n'`` keeps the newline out of the secret.
    """
    if token == TOKEN_ABSENT:
        return []
    folder = shlex.quote(os.path.dirname(vault_file) or ".")
    encrypt = "ansible-vault encrypt_string --ask-vault-pass --stdin-name %s > %s" % (
        VAULT_VARIABLE, shlex.quote(vault_file))
    if token == TOKEN_SECURE:
        lines = ["The output refers to %s. Create it from the Pulumi secret (this needs the stack's passphrase "
                 "or secrets provider):" % VAULT_VARIABLE,
                 "  mkdir -p %s" % folder,
                 "  pulumi config get --stack %s %s | tr -d '\\n' \\" % (
                     shlex.quote(stack or "<stack>"), _key(TOKEN_KEY)),
                 "    | %s" % encrypt]
    else:
        lines = ["The output refers to %s. Create it from the robot token (the one that was in clear in the "
                 "stack file, or better a new one):" % VAULT_VARIABLE,
                 "  mkdir -p %s" % folder,
                 "  read -rsp 'Harbor robot token: ' TOKEN; echo",
                 "  printf %%s \"$TOKEN\" | %s; unset TOKEN" % encrypt]
    lines.append("(the same as `ansible-vault encrypt_string --name %s <token>` of group_vars/all/vault.yml.example, "
                 "without the token on the command line; use >> if the file already holds other variables), "
                 "then run the playbooks with --ask-vault-pass or --vault-password-file." % VAULT_VARIABLE)
    return lines


def parse_stack(stack):
    """``(data, problem)``: the stack as plain Python data, from YAML text or an already parsed mapping."""
    if isinstance(stack, (bytes, str)):
        try:
            # the collection's one YAML reader: alias, node and depth limits; the position and the kind of a
            # problem only (yaml's own message quotes the line, which may be the token's)
            return safe_yaml.loads(to_text(stack), "the stack file"), None
        except safe_yaml.YamlFileError as exc:
            return None, "the stack file is %s" % exc.reason
    try:
        # Plain types: values from Ansible may be tagged subclasses the YAML dumper rejects.
        return json.loads(json.dumps(stack)), None
    except (TypeError, ValueError):
        return None, "the stack must be YAML text or a mapping of config keys"


def _indented_dumper():
    """Block style with list items indented under their key, as yamllint's default wants."""

    class IndentedDumper(yaml.SafeDumper):
        def increase_indent(self, flow=False, indentless=False):
            return super(IndentedDumper, self).increase_indent(flow, False)

    return IndentedDumper


def render_group_vars(group_vars, stack_file=None, output=None):
    """The group_vars file: a header, then the variables in a fixed order."""
    if yaml is None:
        raise ValueError("writing the group_vars file needs PyYAML (ansible-core's dependency)")
    source = os.path.basename(stack_file) if stack_file else "a Pulumi stack file"
    lines = ["---",
             "# ai_platform.serving settings migrated from %s by playbooks/migrate_pulumi.yml" % source,
             "# (docs/migration.md)."]
    if group_vars.get("aips_harbor_token") == VAULT_REFERENCE:
        where = os.path.relpath(vault_file_for(output), os.path.dirname(output) or ".") if output else "a vault file"
        lines.append("# The Harbor token is not in this file: %s is kept in Ansible Vault, in %s."
                     % (VAULT_VARIABLE, where))
    text = "\n".join(lines) + "\n"
    dumper = _indented_dumper()
    for variable, value in ordered_group_vars(group_vars):
        text += yaml.dump({variable: value}, Dumper=dumper, default_flow_style=False, sort_keys=False,
                          allow_unicode=True, width=120)
    return text


def migrate_stack(stack, models_dir=None, stack_file=None, output=None):
    """The whole migration of a Pulumi.<stack>.yaml (text or mapping): convert_stack's result plus the Vault
    variable and file, the group_vars folder the output would shadow, the Vault instructions and the rendered
    ``content`` (empty when there are errors)."""
    data, problem = parse_stack(stack)
    if problem:
        result = {"group_vars": {}, "errors": ["stack file: %s" % problem], "warnings": [], "notes": [],
                  "token": TOKEN_ABSENT}
    else:
        if models_dir:
            models_dir = os.path.abspath(os.path.expanduser(to_text(models_dir)))
        result = convert_stack(data, models_dir)
    output = to_text(output) if output else None
    vault_file = vault_file_for(output) if output else None
    result["vault_variable"] = VAULT_VARIABLE
    result["vault_file"] = vault_file
    result["shadowing_folder"] = shadowing_folder(output) if output else None
    result["instructions"] = vault_instructions(result["token"], vault_file or "<inventory>/group_vars/all/vault.yml",
                                                stack_name(to_text(stack_file)) if stack_file else None)
    result["content"] = "" if result["errors"] else render_group_vars(result["group_vars"], stack_file, output)
    return result
