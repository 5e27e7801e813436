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
