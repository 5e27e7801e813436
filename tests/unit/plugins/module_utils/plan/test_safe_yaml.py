# -*- coding: utf-8 -*-
# GNU General Public License v3.0+ (see COPYING or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one YAML reader: size, alias, depth and symlink limits, refusals that name the file and never its contents."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os
import subprocess
import sys
import textwrap
import time
import tracemalloc

import pytest

from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
from ansible_collections.ai_platform.serving.plugins.module_utils.registry import bundle
from ansible_collections.ai_platform.serving.plugins.module_utils.storage import artifacts


def alias_bomb(levels=7, width=10):
    """A YAML file of under 1 kB standing for width**levels nodes."""
    lines = ["l0: &l0 [%s]" % ", ".join(['"lol"'] * width)]
    for level in range(1, levels):
        lines.append("l%d: &l%d [%s]" % (level, level, ", ".join(["*l%d" % (level - 1)] * width)))
    return "\n".join(lines) + "\n"


def test_the_bomb_is_small_and_large():
    assert len(alias_bomb()) < 1024


def test_an_alias_bomb_is_refused_in_under_2_s_and_200_mb(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text(alias_bomb())
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(safe_yaml.YamlFileError) as caught:
            safe_yaml.load_file(str(path))
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert elapsed < 2 and peak < 200 * 1024 * 1024, (elapsed, peak)
    assert str(path) in str(caught.value) and "alias" in caught.value.reason
    assert "lol" not in str(caught.value)


def test_an_alias_bomb_is_refused_by_a_fresh_process_in_under_2_s_and_200_mb(tmp_path):
    """The whole process (interpreter included) stays under the limits: its own peak RSS, its wall time."""
    path = tmp_path / "values.yaml"
    path.write_text(alias_bomb())
    code = textwrap.dedent("""
        import resource, sys, time
        from ansible_collections.ai_platform.serving.plugins.module_utils.plan import safe_yaml
        started = time.monotonic()
        try:
            safe_yaml.load_file(sys.argv[1])
            print("accepted")
        except safe_yaml.YamlFileError:
            print("refused", time.monotonic() - started, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(entry for entry in sys.path if entry))
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, env=env,
                         timeout=30, check=True).stdout.split()
    wall = time.monotonic() - started
    assert out[0] == "refused", out
    assert float(out[1]) < 2 and wall < 10
    assert int(out[2]) * 1024 < 200 * 1024 * 1024, out  # ru_maxrss is in KiB on Linux


def test_a_few_anchors_are_read_as_written():
    assert safe_yaml.loads("x: &a {b: 1}\ny: {<<: *a, c: 2}\nz: [*a]\n") == {
        "x": {"b": 1}, "y": {"b": 1, "c": 2}, "z": [{"b": 1}]}


@pytest.mark.parametrize("text, reason", [
    ("a: " + "[" * 500 + "]" * 500 + "\n", "nested deeper than 64 levels"),
    ("a: &a [1, *a]\n", "recursive alias"),
    ("a: &a 1\nb: [%s]\n" % ", ".join(["*a"] * 1001), "more than 1000 YAML aliases"),
])
def test_limits_refuse_with_the_reason(tmp_path, text, reason):
    path = tmp_path / "v.yaml"
    path.write_text(text)
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(path))
    assert reason in caught.value.reason and str(path) in str(caught.value)


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("k: " + "x" * (safe_yaml.MAX_BYTES + 1) + "\n")
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(path))
    assert "over the limit of 1048576" in str(caught.value) and "xxxx" not in str(caught.value)


def test_invalid_yaml_names_the_place_never_the_text(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("a: 1\nb: hunter2-secret: [\n")
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(path))
    assert "line 2" in str(caught.value) and "hunter2" not in str(caught.value)


def test_a_symlink_out_of_the_root_is_refused(tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    outside = tmp_path / "secret.yaml"
    outside.write_text("token: s3cr3t\n")
    link = root / "values.yaml"
    link.symlink_to(outside)
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(link), root=str(root))
    assert "outside" in str(caught.value) and "s3cr3t" not in str(caught.value)
    inner = root / "inner.yaml"
    inner.write_text("a: 1\n")
    (root / "link.yaml").symlink_to(inner)
    assert safe_yaml.load_file(str(root / "link.yaml"), root=str(root)) == {"a": 1}


def test_read_text_returns_the_text(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("a: ü — 1\n", encoding="utf-8")
    assert safe_yaml.read_text(str(path)) == "a: ü — 1\n"
    path.write_text("")
    assert safe_yaml.read_text(str(path)) == ""


def test_read_text_gives_none_for_no_file_only_when_asked(tmp_path):
    missing = tmp_path / "missing.yaml"
    dangling = tmp_path / "dangling.yaml"
    dangling.symlink_to(tmp_path / "gone.yaml")
    for path in (missing, dangling):
        assert safe_yaml.read_text(str(path), missing_ok=True) is None
        with pytest.raises(safe_yaml.YamlFileError) as caught:
            safe_yaml.read_text(str(path))
        assert caught.value.kind == safe_yaml.UNREADABLE
        assert caught.value.reason == "cannot be read (No such file or directory)"
        assert str(caught.value) == ("%s: cannot be read (No such file or directory). Fix: check that the file "
                                     "exists and is readable" % path)


def _folder(path):
    path.mkdir()


def _large(path):
    path.write_text("k: " + "x" * 20 + "\n")


def _not_utf8(path):
    path.write_bytes(b"a: \xff\xfe\n")


@pytest.mark.parametrize("make, max_bytes, kind, reason", [
    (_folder, safe_yaml.MAX_BYTES, safe_yaml.UNREADABLE, "cannot be read (Is a directory)"),
    (_large, 16, safe_yaml.TOO_LARGE, "refused: 24 bytes, over the limit of 16 (Helm stores a release, its values "
                                      "included, in one Secret of at most 1 MiB)"),
    (_not_utf8, safe_yaml.MAX_BYTES, safe_yaml.NOT_UTF8, "not UTF-8 text"),
], ids=["a folder", "over the size limit", "not UTF-8"])
def test_read_text_refuses_with_the_check_that_failed(tmp_path, make, max_bytes, kind, reason):
    path = tmp_path / "values.yaml"
    make(path)
    for read in (safe_yaml.read_text, safe_yaml.load_file):
        with pytest.raises(safe_yaml.YamlFileError) as caught:
            read(str(path), max_bytes=max_bytes)
        assert (caught.value.kind, caught.value.reason) == (kind, reason)
        assert str(caught.value).startswith("%s: %s. Fix: " % (path, reason))


def test_read_text_stops_at_the_limit_when_the_size_does_not_show_it():
    # a character device: its size is 0, its text endless
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.read_text("/dev/zero", max_bytes=16)
    assert (caught.value.kind, caught.value.reason) == (safe_yaml.TOO_LARGE, "refused: over the limit of 16 bytes")


def test_read_text_refuses_a_link_out_of_the_root(tmp_path):
    root = tmp_path / "models"
    root.mkdir()
    (tmp_path / "secret.yaml").write_text("token: s3cr3t\n")
    (root / "values.yaml").symlink_to(tmp_path / "secret.yaml")
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.read_text(str(root / "values.yaml"), root=str(root))
    assert caught.value.kind == safe_yaml.OUTSIDE and "s3cr3t" not in str(caught.value)
    assert safe_yaml.read_text(str(root / "values.yaml")) == "token: s3cr3t\n"  # no root: no such check


def test_a_yaml_refusal_has_no_read_kind(tmp_path):
    path = tmp_path / "values.yaml"
    path.write_text("a: [\n")
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(path))
    assert caught.value.kind is None and caught.value.reason.startswith("not valid YAML at line 2")


def test_the_lock_file_readers_use_the_limits(tmp_path):
    lock = tmp_path / bundle.LOCK_NAME
    lock.write_text(alias_bomb())
    with pytest.raises(artifacts.distribution.ArtifactError) as caught:
        artifacts.read_lock(str(lock))
    assert "alias" in str(caught.value)
    with pytest.raises(bundle.BundleError):
        bundle.read_lock(str(tmp_path))


def small_nodes(count):
    """``a: [1, 1, ...]``: a mapping, its key, the list and ``count`` items (count + 3 nodes as written)."""
    return "a: [" + ",".join(["1"] * count) + "]\n"


def test_a_1_mib_file_of_small_nodes_is_refused_in_under_2_s_naming_the_file(tmp_path):
    """issue 27 (audit gap 8): 500 000 nodes under the byte limit took 15 s and 370 MB to read; the node limit
    refuses them before the composer runs."""
    path = tmp_path / "values.yaml"
    path.write_text(small_nodes((safe_yaml.MAX_BYTES - 10) // 2))
    assert path.stat().st_size <= safe_yaml.MAX_BYTES
    started = time.monotonic()
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.load_file(str(path))
    assert time.monotonic() - started < 2
    assert str(caught.value) == ("%s: refused: it has more than 100000 YAML nodes as written (keys, values and list "
                                 "items). Fix: keep the values file to the keys the charts read (a real one has a few "
                                 "thousand nodes)" % path)


@pytest.mark.parametrize("libyaml", [True, False], ids=["libyaml-events", "composer"])
def test_the_node_limit_counts_nodes_as_written_on_both_paths(monkeypatch, libyaml):
    """The limit holds on libyaml's event count and, without libyaml, in the composer: at the limit the text is
    read, one node over it is refused. Anchored nodes count once, as written (aliases have their own limits)."""
    if not libyaml:
        monkeypatch.setattr(safe_yaml.yaml, "__with_libyaml__", False)
    elif not getattr(safe_yaml.yaml, "__with_libyaml__", False):
        pytest.fail("PyYAML without libyaml: ansible-core's environment here has it", pytrace=False)
    assert safe_yaml.loads(small_nodes(997), "v.yaml", max_written=1000) == {"a": [1] * 997}
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.loads(small_nodes(998), "v.yaml", max_written=1000)
    assert caught.value.reason == "refused: it has more than 1000 YAML nodes as written (keys, values and list items)"
    assert safe_yaml.loads("x: &a [1, 2]\ny: [*a, *a, *a]\n", "v.yaml", max_written=7) == {
        "x": [1, 2], "y": [[1, 2]] * 3}


def test_loads_all_reads_a_stream_and_holds_the_limits_over_all_its_documents():
    assert safe_yaml.loads_all("a: 1\n---\n---\nb: [1, 2]\n") == [{"a": 1}, None, {"b": [1, 2]}]
    assert safe_yaml.loads_all("") == []
    # three documents of 400 expanded nodes each: under a limit of 1000 one at a time, over it together
    doc = "x: &x [%s]\ny: [*x]\n" % ", ".join(["1"] * 197)
    assert len(safe_yaml.loads_all(doc + "---\n" + doc, max_nodes=1000)) == 2
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.loads_all("---\n".join([doc] * 3), "manifests", max_nodes=1000)
    assert caught.value.reason == "refused: it has more than 1000 nodes once its aliases are expanded (an alias bomb)"
    with pytest.raises(safe_yaml.YamlFileError) as caught:
        safe_yaml.loads_all("a: 1\n---\n" + alias_bomb(), "manifests")
    assert "alias bomb" in caught.value.reason and str(caught.value).startswith("manifests: ")
