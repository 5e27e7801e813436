# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lock file merge and its text: fixtures/lock/expected.*.models.lock.yml were written by the model_sync role's
template (ansible-core 2.21, before the model_sync_lock module) for the inputs beside them, and the module's text
must equal them byte for byte, so an existing lock file does not change on a run that changes nothing."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import stat

import pytest
import yaml

from ansible_collections.ai_platform.serving.plugins.module_utils.sync import lock

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "lock")
DIGEST = "sha256:" + "b" * 64


def fixture_text(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture
def inputs():
    return yaml.safe_load(fixture_text("inputs.yml"))


def result(reference="push.example:5000/ai-models/m:v1", digest=DIGEST, **extra):
    out = dict(repo_id="org/m", revision="r1", reference=reference, digest=digest, size=10, file_count=2,
               item=dict(repo_id="org/m"))
    out.update(extra)
    return out


def test_the_text_equals_what_the_template_wrote():
    _text, before = lock.read(os.path.join(FIXTURES, "before.models.lock.yml"))
    given = yaml.safe_load(fixture_text("inputs.yml"))
    merged = lock.merge(before, given["results"], given["registry"], given["sections"])
    assert lock.render(merged) == fixture_text("expected.models.lock.yml")


def test_a_missing_file_gives_what_the_template_wrote_for_no_file(tmp_path):
    text, document = lock.read(str(tmp_path / "models.lock.yml"))
    assert (text, document) == (None, {})
    assert lock.render(lock.merge(document, [], "harbor.example")) == fixture_text("expected.empty.models.lock.yml")


def test_an_unchanged_lock_renders_to_its_own_text():
    text, document = lock.read(os.path.join(FIXTURES, "expected.models.lock.yml"))
    assert lock.render(lock.merge(document, [], "harbor.example", {})) == text


def test_merge_keys_entries_under_the_lock_registry(inputs):
    merged = lock.merge({}, inputs["results"], "harbor.example")
    fresh = merged["models"]["harbor.example/ai-models/nested/fresh-model:v2"]
    assert fresh == {
        "name": "fresh-model",  # no item.name: the artifact name
        "repo_id": "org/fresh",
        "revision": "fedcba9876543210fedcba9876543210fedcba98",
        "reference": "harbor.example/ai-models/nested/fresh-model:v2",
        "digest": "sha256:" + "7" * 64,
        "pinned_reference": "harbor.example/ai-models/nested/fresh-model@sha256:" + "7" * 64,
        "size": 42,
        "file_count": 3,
    }
    assert merged["models"]["harbor.example/ai-models/updated:v1"]["name"] == "updated"
    # a null digest (check mode) and no digest (a failed push) make no entry
    assert sorted(merged["models"]) == ["harbor.example/ai-models/nested/fresh-model:v2",
                                        "harbor.example/ai-models/updated:v1"]
    assert merged["lock_version"] == 1


def test_merge_keeps_entries_without_a_digest_and_unknown_keys(inputs):
    _text, before = lock.read(os.path.join(FIXTURES, "before.models.lock.yml"))
    kept = dict(before["models"]["harbor.example/ai-models/would-push:v1"])
    merged = lock.merge(before, inputs["results"], inputs["registry"])
    assert merged["models"]["harbor.example/ai-models/would-push:v1"] == kept
    assert merged["models"]["harbor.example/ai-models/kept:v1"] == before["models"]["harbor.example/ai-models/kept:v1"]
    assert merged["site_note"] == before["site_note"]
    assert merged["charts"] == before["charts"]  # no sections: left alone
    # the document read is not changed
    assert before["models"]["harbor.example/ai-models/updated:v1"]["revision"] == "old"


def test_sections_merge_recursively_and_cannot_replace_the_models(inputs):
    _text, before = lock.read(os.path.join(FIXTURES, "before.models.lock.yml"))
    sections = dict(inputs["sections"], models={"x": {}}, lock_version=7)
    merged = lock.merge(before, [], "harbor.example", sections)
    chart = merged["charts"]["llm-d-modelservice"]
    assert chart["digest"] == "sha256:" + "8" * 64 and chart["version"] == "v0.2.0"  # merged key by key
    assert "docker.io/library/busybox:1.36" in merged["images"] and "ghcr.io/llm-d/llm-d:v0.2.0" in merged["images"]
    assert merged["models"] == before["models"] and merged["lock_version"] == 1


@pytest.mark.parametrize("bad, message", [
    ({k: v for k, v in result().items() if k not in ("size", "file_count")}, "lacks size, file_count"),
    (result(digest="sha256 short"), "not a manifest digest"),
    (result(reference="push.example:5000/Upper/M:v1"), "push.example:5000/Upper/M:v1"),
])
def test_an_unusable_result_fails_naming_it(bad, message):
    with pytest.raises(lock.LockError, match=message):
        lock.merge({}, [bad], "harbor.example")


@pytest.mark.parametrize("text, message", [
    ("- a\n- b\n", "holds a list, not a mapping"),
    ("models: [a]\n", "models is a list"),
    ("a: [\n", "models.lock.yml"),
])
def test_an_unusable_lock_file_fails_naming_it(tmp_path, text, message):
    path = tmp_path / "models.lock.yml"
    path.write_text(text)
    with pytest.raises(lock.LockError, match=message):
        _text, document = lock.read(str(path))
        lock.merge(document, [], "harbor.example")


def test_an_empty_file_is_an_empty_document(tmp_path):
    path = tmp_path / "models.lock.yml"
    path.write_text("")
    assert lock.read(str(path)) == ("", {})


def test_write_replaces_the_file_whole_with_mode_0644(tmp_path):
    path = tmp_path / "models.lock.yml"
    path.write_text("old\n")
    os.chmod(str(path), 0o600)
    lock.write(str(path), "new — ü\n")
    assert path.read_text(encoding="utf-8") == "new — ü\n"
    assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o644
    assert os.listdir(str(tmp_path)) == ["models.lock.yml"]  # no temporary file left


def test_write_follows_a_symlink(tmp_path):
    target = tmp_path / "real.lock.yml"
    target.write_text("old\n")
    link = tmp_path / "models.lock.yml"
    link.symlink_to(target)
    lock.write(str(link), "new\n")
    assert link.is_symlink() and target.read_text() == "new\n"


def test_write_into_a_missing_folder_fails_naming_it(tmp_path):
    with pytest.raises(lock.LockError, match="cannot write the lock file .*missing"):
        lock.write(str(tmp_path / "missing" / "models.lock.yml"), "x\n")


@pytest.mark.parametrize("make, message", [
    (lambda path: path.mkdir(), "cannot be read (Is a directory)"),
    (lambda path: path.write_text("k: " + "x" * lock.safe_yaml.MAX_BYTES + "\n"),
     "is over 1048576 bytes: is it a lock file?"),
    (lambda path: path.write_bytes(b"models: {}\nnote: \xff\xfe\n"), "is not UTF-8 text"),
], ids=["a folder", "over the size limit", "not UTF-8"])
def test_a_lock_file_that_cannot_be_read_fails_naming_it(tmp_path, make, message):
    path = tmp_path / "models.lock.yml"
    make(path)
    with pytest.raises(lock.LockError) as caught:
        lock.read(str(path))
    assert str(caught.value) == "the lock file %s %s" % (path, message)


def test_a_dangling_lock_file_link_reads_as_no_file(tmp_path):
    path = tmp_path / "models.lock.yml"
    path.symlink_to(tmp_path / "gone.yml")
    assert lock.read(str(path)) == (None, {})
