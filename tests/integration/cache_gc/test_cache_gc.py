# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Removal with storage frees the node directory; gc reports and collects orphans; reuse of a verified copy."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import re
import shutil
import time

from ansible_collections.ai_platform.serving.tests.support.playbook import flat


def test_remove_with_storage_frees_only_its_directory(site, kube):
    started = time.monotonic()
    deployed = site.deploy()
    assert deployed.rc == 0, str(deployed)
    print("deploy of two models: %.0fs" % (time.monotonic() - started))
    digest = site.published["digest"]
    assert site.marker("a")["digest"] == digest and site.marker("b")["digest"] == digest
    b_marker, size_a = site.marker("b"), site.dir_bytes("a")

    preview = site.remove("a", check=True)
    assert preview.rc == 0, str(preview)
    assert re.search(r"%s: would free [0-9.]+ [KMG]iB \(%d bytes\) on %s; would remove %s"
                     % (site.slug("a"), size_a, re.escape(site.lab["AIPS_LAB_NODE"]), re.escape(site.dir("a"))),
                     flat(preview.output)), str(preview)
    assert os.path.isdir(site.dir("a")) and kube.get("pv", site.pv("a")) is not None

    started = time.monotonic()
    removed = site.remove("a")
    assert removed.rc == 0, str(removed)
    print("removal with storage: %.0fs, freed %d bytes" % (time.monotonic() - started, size_a))
    assert "%s: freed" % site.slug("a") in flat(removed.output)
    assert not os.path.exists(site.dir("a"))
    assert kube.get("pv", site.pv("a")) is None and kube.get("namespace", site.namespace("a")) is None
    # the other model is untouched
    assert site.marker("b") == b_marker
    assert kube.get("pv", site.pv("b"))["status"]["phase"] == "Bound"
    assert kube.get("pvc", site.pvc("b"), site.namespace("b"))["status"]["phase"] == "Bound"

    again = site.remove("a")
    assert again.rc == 0 and again.changed == 0, str(again)


def test_gc_reports_the_orphan_and_removes_only_it(site, kube):
    assert site.deploy().rc == 0
    # a model removed without storage, then its PV (and claim) deleted by hand: its directory is an orphan
    kept = site.remove("a", storage=False)
    assert kept.rc == 0, str(kept)
    assert site.marker("a") is not None
    site.forget("a")
    size_a, digest = site.dir_bytes("a"), site.published["digest"]
    # never collected: a symlink in the root pointing outside, and what it points at
    precious = os.path.join(site.outside, "precious")
    with open(precious, "w") as handle:
        handle.write("outside the allowed root")
    os.symlink(site.outside, os.path.join(site.root, "escape"))

    report = site.gc()
    assert report.rc == 0 and report.changed == 0, str(report)
    out = flat(report.output)
    assert re.search(r"ORPHAN %s on %s: %s, [0-9.]+ [KMG]iB \(%d bytes, \d+ files\), digest %s, pulled 20"
                     % (site.slug("a"), re.escape(site.lab["AIPS_LAB_NODE"]), re.escape(site.dir("a")), size_a,
                        digest), out), str(report)
    assert "referenced %s" % site.slug("b") in out and "PV %s" % site.pv("b") in out
    assert "skipped escape" in out
    assert "1 orphan(s) on %s" % site.lab["AIPS_LAB_NODE"] in out
    assert os.path.isdir(site.dir("a"))

    started = time.monotonic()
    collected = site.gc(confirm=True)
    assert collected.rc == 0, str(collected)
    print("gc confirmed: %.0fs, freed %d bytes" % (time.monotonic() - started, size_a))
    assert "freed" in flat(collected.output) and "(%d bytes)" % size_a in flat(collected.output)
    assert not os.path.exists(site.dir("a"))
    assert site.marker("b")["digest"] == digest
    assert os.path.islink(os.path.join(site.root, "escape"))
    with open(precious) as handle:
        assert handle.read() == "outside the allowed root"

    again = site.gc(confirm=True)
    assert again.rc == 0 and again.changed == 0, str(again)
    assert "0 orphan(s)" in flat(again.output)


def test_a_directory_outside_the_allowed_root_is_never_removed(site, kube):
    # a model whose hostpathDir lies outside the allowed root (made by hand: hostpath_dirs refuses it)
    site.letters = ["c"]
    site.add_folders("c")
    site.hostpath_dirs["c"] = os.path.join(site.outside, site.slug("c"))
    os.makedirs(site.dir("c"))
    os.chown(site.dir("c"), 65532, 65532)  # the pull Job's non-root uid
    # the plan refuses a hostpathDir outside aips_hostpath_root, so the model was deployed under a wider root
    wider = os.path.dirname(site.root)
    deployed = site.play("site.yml", "--tags", "plan,storage", aips_hostpath_root=wider)
    assert deployed.rc == 0, str(deployed)
    assert site.marker("c") is not None
    removed = site.play("site.yml", "--tags", "serving", serving_stack_state="absent", serving_stack_remove_storage=True,
                        serving_stack_models=[site.slug("c")], aips_hostpath_root=wider,
                        serving_stack_hostpath_root=site.root)
    assert removed.rc != 0, str(removed)
    assert "outside the allowed root" in removed.output and "nothing was removed" in removed.output
    assert site.marker("c") is not None and os.path.isdir(os.path.join(site.dir("c"), "hub"))
    # gc lists the allowed root only: the directory outside is not even seen
    report = site.gc(confirm=True)
    assert report.rc == 0 and site.slug("c") not in report.output, str(report)
    assert site.marker("c") is not None


def test_a_verified_copy_is_reused_and_another_digest_pulled_again(site, kube):
    site.letters = ["a"]
    assert site.deploy().rc == 0
    first = site.marker("a")
    site.forget("a")   # the weights stay on the node
    again = site.deploy()
    assert again.rc == 0, str(again)
    assert "%s: reused the verified copy of %s" % (site.slug("a"), first["digest"]) in flat(again.output), str(again)
    assert site.marker("a")["pulled_at"] == first["pulled_at"]
    pods = kube.pods(site.namespace("a"), "job-name=%s-model-pull" % site.slug("a"))
    log = kube.logs(site.namespace("a"), "job/%s-model-pull" % site.slug("a")) if pods else ""
    assert "reusing the verified copy" in log

    # a marker naming another digest while the wanted one is still a revision kept on the claim (its
    # .revisions/ record and snapshot intact): switched back to, nothing pulled
    site.forget("a")
    marker = os.path.join(site.dir("a"), ".pulled")
    with open(marker) as handle:
        text = handle.read()
    with open(marker, "w") as handle:
        handle.write(text.replace(first["digest"], "sha256:" + "0" * 64))
    switched = site.deploy()
    assert switched.rc == 0, str(switched)
    assert site.marker("a")["digest"] == first["digest"] and site.marker("a")["pulled_at"] == first["pulled_at"]
    assert "switching to it, nothing to download" in kube.logs(site.namespace("a"), "job/%s-model-pull" % site.slug("a"))

    # a copy that holds another digest, with no record of the wanted one, is replaced by the normal pull
    site.forget("a")
    with open(marker, "w") as handle:
        handle.write(text.replace(first["digest"], "sha256:" + "0" * 64))
    shutil.rmtree(os.path.join(site.dir("a"), ".revisions"))
    time.sleep(1.1)   # pulled_at has a resolution of one second
    pulled = site.deploy()
    assert pulled.rc == 0, str(pulled)
    assert "reused the verified copy" not in pulled.output
    assert site.marker("a")["digest"] == first["digest"]
    assert site.marker("a")["pulled_at"] != first["pulled_at"]
