# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What differs between the Helm majors of the support matrix (Helm 3.19 and Helm 4.3), in one place.

``helm list`` lost ``--all`` in Helm 4 (it lists every status by default there): :func:`list_all_args`.
kubernetes.core.helm (6.4+) maps its own options to Helm 4's flags (``atomic`` to ``--rollback-on-failure``,
``force`` to ``--server-side=false --force-replace``); what it passes through as given is the post-renderer.
Helm 3 takes ``--post-renderer`` as the path of an executable; Helm 4 takes the name of a plugin of type
``postrenderer/v1`` found on ``HELM_PLUGINS``. serving_stack ships its post-renderer both ways
(``files/gateway_placement.py`` and the plugin ``files/helm4-plugins/aips-gateway-placement``, which runs
that same file); :func:`post_renderer` says which form and which environment a Helm call takes.
serving_stack_info probes once and hands its probe on (:func:`handed`); serving_stack_render takes the
post-renderer form from it (:func:`given_post_renderer`) instead of probing again.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re

SUPPORTED_MAJORS = (3, 4)
POST_RENDERER_PLUGIN = "aips-gateway-placement"


class HelmVersionError(ValueError):
    """A helm whose version cannot be read or is outside the support matrix."""


class HelmCallError(RuntimeError):
    """A short helm call (its version, its plugin path) that failed: ``args``, ``rc`` and Helm's own words."""

    def __init__(self, args, rc, text):
        super(HelmCallError, self).__init__("helm %s failed (rc %d): %s" % (args[0], rc, text))
        self.call, self.rc, self.text = args, rc, text


def helm_major(version_text):
    """The major version of ``helm version --short`` output (``v3.19.5+g...``, ``v4.3.2``); refuses others."""
    match = re.match(r"^\s*v?(\d+)\.(\d+)\.(\d+)", version_text or "")
    if not match:
        raise HelmVersionError("cannot read a Helm version from %r" % (version_text or "")[:200])
    major = int(match.group(1))
    if major not in SUPPORTED_MAJORS:
        raise HelmVersionError("Helm %s is outside the support matrix (Helm 3.19+ and Helm 4.3+)" % match.group(0).strip())
    return major


def list_all_args(major):
    """``helm list`` arguments for every release of every namespace, whatever its status, as JSON.

    Helm 3 lists deployed and failed releases unless ``--all`` is given; Helm 4 has no ``--all`` and lists every
    status when no status flag is given.
    """
    return ["list", "--all-namespaces"] + (["--all"] if major < 4 else []) + ["--output", "json"]


def apply_options(major):
    """kubernetes.core.helm options for a release upgrade, normal and forced (``{"normal": {}, "forced": {}}``).

    Helm 4 applies with server-side apply by default. The seed's llm-d-infra v1.3.0 renders a Gateway listener
    field the Gateway API schema does not declare (``spec.listeners[].path``): server-side apply refuses the
    whole release, client-side apply drops the field, as Helm 3 does. So Helm 4 releases go with
    ``server_side: "false"``, which also keeps the field managers of releases first made by Helm 3. A forced
    upgrade (a failed or pending release) is ``force`` alone: kubernetes.core maps it to
    ``--server-side=false --force-replace`` on Helm 4 and refuses ``force`` beside ``server_side``.
    """
    if major < 4:
        return dict(normal=dict(force=False), forced=dict(force=True))
    return dict(normal=dict(server_side="false"), forced=dict(force=True))


def post_renderer(major, script, plugins_dir, helm_plugins=""):
    """The ``--post-renderer`` value and the environment one Helm call needs to run ``script``.

    ``plugins_dir`` holds the plugin that runs ``script`` under Helm 4; ``helm_plugins`` is the plugin path Helm
    would use otherwise (``helm env HELM_PLUGINS``), kept after it so that the other plugins (helm-diff) still load.
    """
    if major < 4:
        return dict(arg=script, env={})
    dirs = [plugins_dir] + [d for d in (helm_plugins or "").split(os.pathsep) if d and d != plugins_dir]
    return dict(arg=POST_RENDERER_PLUGIN, env={"HELM_PLUGINS": os.pathsep.join(dirs)})


def probe(run, post_renderer_script=None, plugins_dir=""):
    """What one helm binary needs from a caller: ``{"helm": {version, major, list_args, apply}}`` and, when a
    post-renderer script is given, ``"post_renderer": {arg, env}`` (:func:`post_renderer`).

    ``run(args)`` runs the caller's helm with ``args`` and returns ``(rc, stdout, stderr)`` (each module runs Helm
    its own way: the module's run_command with its environment). Two calls at most: ``version --short`` and, for
    Helm 4 with a post-renderer, ``env HELM_PLUGINS``. Raises HelmCallError or HelmVersionError."""
    def out(*args):
        rc, stdout, stderr = run(list(args))
        if rc != 0:
            raise HelmCallError(args, rc, (stderr or stdout or "").strip())
        return (stdout or "").strip()

    shown = out("version", "--short")
    major = helm_major(shown)
    facts = dict(helm=dict(version=shown, major=major, list_args=list_all_args(major), apply=apply_options(major)))
    if post_renderer_script:
        plugins = out("env", "HELM_PLUGINS") if major >= 4 else ""
        facts["post_renderer"] = post_renderer(major, post_renderer_script, plugins_dir or "", plugins)
    return facts


def handed(facts):
    """The probe as one module hands it to the next (serving_stack_info's RV ``helm``): :func:`probe`'s ``helm``
    with its ``post_renderer`` form inside, when there is one."""
    found = dict(facts["helm"])
    if facts.get("post_renderer"):
        found["post_renderer"] = facts["post_renderer"]
    return found


def given_post_renderer(helm, script, plugins_dir=""):
    """The ``post_renderer`` form (``{arg, env}``) of a probe another module made (:func:`handed`), for ``script``;
    None without a script. Raises HelmVersionError when the probe is not one of a supported Helm, or was made for
    another post-renderer (a path or a plugin directory other than the caller's)."""
    if not script:
        return None
    helm = helm if isinstance(helm, dict) else {}
    major = helm.get("major")
    if major not in SUPPORTED_MAJORS:
        raise HelmVersionError("the given helm probe names no Helm major of the support matrix (major %r)" % (major,))
    form = helm.get("post_renderer")
    if not isinstance(form, dict) or not isinstance(form.get("env"), dict):
        raise HelmVersionError("the given helm probe has no post_renderer form (it was made without a post-renderer)")
    if major < 4:
        made_for = form.get("arg") == script
    else:
        dirs = str(form["env"].get("HELM_PLUGINS") or "").split(os.pathsep)
        made_for = form.get("arg") == POST_RENDERER_PLUGIN and dirs[0] == (plugins_dir or "")
    if not made_for:
        raise HelmVersionError("the given helm probe was made for another post-renderer (%s, %s) than %s (%s)"
                               % (form.get("arg"), form["env"].get("HELM_PLUGINS", "no HELM_PLUGINS"), script,
                                  plugins_dir or "no plugin directory"))
    return dict(arg=form["arg"], env=dict(form["env"]))
