# -*- coding: utf-8 -*-
# Copyright: (c) 2026, ai_platform.serving contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)

"""The one reader of the YAML files a site hands the collection: values files, manifests and lock files.

``load_file(path, root=...)`` (and ``load_file_all``, every document of a multi-document manifest file) refuses,
with a message naming the file (never its contents) (the first three are ``read_text``'s, the guarded read of
the text, for callers that parse it themselves or word the refusal their way):

- a file larger than ``max_bytes`` (default 1 MiB: Helm keeps a release, values included, in one
  Secret of at most 1 MiB, so a larger values file can never be deployed);
- a path that leaves ``root`` once every symlink is resolved (a values path that is a link out of
  the models tree, or a link inside it to a folder outside);
- more than ``max_written`` nodes as written (default 100 000; a real values file holds a few hundred, a 1 MiB
  file of small nodes 500 000, which took 15 s and 370 MB to read). They are counted on libyaml's event stream
  before the pure-Python composer runs (a 1 MiB file is refused in well under a second), and again while the
  file is composed (without libyaml the refusal costs what reading 100 000 nodes costs, a few seconds);
- more than ``max_aliases`` aliases, more than ``max_nodes`` nodes once aliases are expanded
  (a 1 kB alias bomb stands for 10^7 nodes: it is counted on the composed graph, which shares the
  aliased nodes, so the count costs what the file costs, not what it expands to), a recursive alias,
  or nesting deeper than ``max_depth`` (PyYAML's composer recurses, and would raise RecursionError);
- a file that cannot be read, or is not UTF-8 text;
- invalid YAML (the line and column, not the offending text).

Every caller adds the model or the variable the file belongs to; ``YamlFileError.reason`` is the
part without the path, for callers that name the file themselves, and ``YamlFileError.kind`` says which of
``read_text``'s checks refused the file (``OUTSIDE``, ``UNREADABLE``, ``TOO_LARGE``, ``NOT_UTF8``; None for the
YAML itself).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import os

try:
    import yaml
except ImportError:  # the callers say what needs PyYAML
    yaml = None

MAX_BYTES = 1024 * 1024
MAX_ALIASES = 1000
MAX_NODES = 1000000
MAX_WRITTEN = 100000
MAX_DEPTH = 64
# YamlFileError.kind of the refusals of read_text
OUTSIDE = "outside"
UNREADABLE = "unreadable"
TOO_LARGE = "too large"
NOT_UTF8 = "not UTF-8"


class YamlFileError(ValueError):
    """A file refused by ``load_file``; ``path`` and ``reason`` separately, ``str()`` both; ``kind``: which check of
    ``read_text`` refused it (None: the YAML)."""

    def __init__(self, path, reason, fix, kind=None):
        self.path = path
        self.reason = reason
        self.fix = fix
        self.kind = kind
        ValueError.__init__(self, "%s: %s. Fix: %s" % (path, reason, fix))


class _Limit(Exception):
    def __init__(self, reason, fix):
        Exception.__init__(self, reason)
        self.reason = reason
        self.fix = fix


def _loader_class(max_aliases, max_depth, max_written=MAX_WRITTEN):
    base = yaml.SafeLoader

    class LimitedLoader(base):
        def __init__(self, stream):
            base.__init__(self, stream)
            self.aliases_seen = 0
            self.depth = 0
            self.written = 0

        def compose_node(self, parent, index):
            if self.check_event(yaml.AliasEvent):
                self.aliases_seen += 1
                if self.aliases_seen > max_aliases:
                    raise _Limit("it has more than %d YAML aliases" % max_aliases,
                                 "write the repeated values out, or use fewer anchors (*name)")
                return base.compose_node(self, parent, index)
            self.written += 1
            if self.written > max_written:
                raise _written_limit(max_written)
            self.depth += 1
            if self.depth > max_depth:
                raise _Limit("it is nested deeper than %d levels" % max_depth, "flatten the structure")
            try:
                return base.compose_node(self, parent, index)
            finally:
                self.depth -= 1

    return LimitedLoader


NODE_EVENTS = () if yaml is None else (yaml.ScalarEvent, yaml.SequenceStartEvent, yaml.MappingStartEvent)
WRITTEN_LIMIT_FIX = "keep the values file to the keys the charts read (a real one has a few thousand nodes)"


def _written_limit(max_written):
    return _Limit("it has more than %d YAML nodes as written (keys, values and list items)" % max_written,
                  WRITTEN_LIMIT_FIX)


def _count_written(text, max_written):
    """Refuse ``text`` past ``max_written`` nodes on libyaml's event stream, before the (pure Python) composer reads
    it: 500 000 nodes are counted in well under a second. Without libyaml, or on a parse error (the composer then
    reports it with its place), nothing is decided here."""
    if not getattr(yaml, "__with_libyaml__", False):
        return
    parser = yaml.CSafeLoader(text)
    written = 0
    try:
        while True:
            event = parser.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                return
            if isinstance(event, NODE_EVENTS):
                written += 1
                if written > max_written:
                    raise _written_limit(max_written)
    except yaml.YAMLError:
        return
    finally:
        parser.dispose()


def _expanded_size(root, max_nodes):
    """Nodes of ``root`` with every alias expanded, on the shared graph (each node visited once)."""
    sizes = {}
    in_progress = set()
    # iterative post-order: (node, children pushed?)
    stack = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        if key in sizes:
            continue
        children = []
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            for pair in node.value:
                children.extend(pair)
        if not expanded:
            if key in in_progress:
                raise _Limit("it has a recursive alias (a node that contains itself)", "remove the self-reference")
            in_progress.add(key)
            stack.append((node, True))
            for child in children:
                if id(child) in in_progress:
                    raise _Limit("it has a recursive alias (a node that contains itself)", "remove the self-reference")
                if id(child) not in sizes:
                    stack.append((child, False))
            continue
        in_progress.discard(key)
        size = 1 + sum(sizes[id(child)] for child in children)
        if size > max_nodes:
            raise _Limit("it has more than %d nodes once its aliases are expanded (an alias bomb)" % max_nodes,
                         "write the values out without nested anchors")
        sizes[key] = size
    return sizes.get(id(root), 0)


def inside(path, root):
    """True when ``path`` (every symlink resolved) is ``root`` or below it."""
    real = os.path.realpath(path)
    base = os.path.realpath(root)
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


def loads(text, path="<string>", max_aliases=MAX_ALIASES, max_nodes=MAX_NODES, max_depth=MAX_DEPTH,
          max_written=MAX_WRITTEN):
    """Parse one YAML document of ``text`` under the limits; ``path`` only names it in errors."""
    return _parse(text, path, max_aliases, max_nodes, max_depth, max_written, True)


def loads_all(text, path="<string>", max_aliases=MAX_ALIASES, max_nodes=MAX_NODES, max_depth=MAX_DEPTH,
              max_written=MAX_WRITTEN):
    """Every document of the YAML stream ``text`` (a list; an empty document is None) under the limits, which hold
    for the whole stream: aliases, nodes as written and nodes once aliases are expanded are counted over all its
    documents. For YAML made from values (``helm template``'s output, say) rather than read from a file."""
    return _parse(text, path, max_aliases, max_nodes, max_depth, max_written, False)


def _documents(loader, max_nodes):
    documents, total = [], 0
    while loader.check_node():
        node = loader.get_node()
        total += _expanded_size(node, max_nodes)
        if total > max_nodes:
            raise _Limit("it has more than %d nodes once its aliases are expanded (an alias bomb)" % max_nodes,
                         "write the values out without nested anchors")
        documents.append(loader.construct_document(node))
    return documents


def _parse(text, path, max_aliases, max_nodes, max_depth, max_written, single):
    if yaml is None:
        raise YamlFileError(path, "reading YAML needs PyYAML", "install PyYAML (ansible-core's dependency)")
    try:
        _count_written(text, max_written)
    except _Limit as exc:
        raise YamlFileError(path, "refused: %s" % exc.reason, exc.fix)
    loader = _loader_class(max_aliases, max_depth, max_written)(text)
    try:
        if not single:
            return _documents(loader, max_nodes)
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, max_nodes)
        return loader.construct_document(node)
    except _Limit as exc:
        raise YamlFileError(path, "refused: %s" % exc.reason, exc.fix)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = " at line %d, column %d" % (mark.line + 1, mark.column + 1) if mark else ""
        # the problem names the kind of error only; the snippet PyYAML adds would echo the file
        raise YamlFileError(path, "not valid YAML%s: %s" % (where, exc.problem or exc.context or "parse error"),
                            "correct the YAML (yamllint %s shows the place)" % os.path.basename(path))
    except yaml.YAMLError as exc:
        raise YamlFileError(path, "not valid YAML (%s)" % type(exc).__name__, "correct the YAML")
    except RecursionError:
        raise YamlFileError(path, "refused: it is nested too deeply", "flatten the structure")
    finally:
        loader.dispose()


def read_text(path, root=None, max_bytes=MAX_BYTES, missing_ok=False):
    """The text of the file ``path``, or YamlFileError (its ``kind`` the check that refused it): a path that leaves
    ``root`` once symlinks are resolved (``OUTSIDE``), a file that cannot be read (``UNREADABLE``: missing, a
    folder, no permission), one over ``max_bytes`` (``TOO_LARGE``, refused before it is read when its size shows
    it), or not UTF-8 text (``NOT_UTF8``).

    With ``missing_ok``, None when nothing is at ``path`` (a dangling link included) instead of ``UNREADABLE``.
    """
    if missing_ok and not os.path.exists(path):
        return None
    if root is not None and not inside(path, root):
        raise YamlFileError(path, "refused: it resolves to a file outside %s (a symlink leaving that folder)" % root,
                            "replace the link with the file itself, inside %s" % root, OUTSIDE)
    try:
        size = os.stat(path).st_size
        if size > max_bytes:
            raise YamlFileError(path, "refused: %d bytes, over the limit of %d (Helm stores a release, its values "
                                "included, in one Secret of at most 1 MiB)" % (size, max_bytes),
                                "keep the file under %d bytes" % max_bytes, TOO_LARGE)
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except (IOError, OSError) as exc:
        raise YamlFileError(path, "cannot be read (%s)" % (exc.strerror or type(exc).__name__),
                            "check that the file exists and is readable", UNREADABLE)
    if len(data) > max_bytes:
        raise YamlFileError(path, "refused: over the limit of %d bytes" % max_bytes,
                            "keep the file under %d bytes" % max_bytes, TOO_LARGE)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise YamlFileError(path, "not UTF-8 text", "save the file as UTF-8", NOT_UTF8)


def load_file(path, root=None, max_bytes=MAX_BYTES, max_aliases=MAX_ALIASES, max_nodes=MAX_NODES,
              max_depth=MAX_DEPTH, max_written=MAX_WRITTEN):
    """The parsed contents of the YAML file ``path`` (None when empty), or YamlFileError.

    With ``root``, the file must lie below ``root`` once symlinks are resolved. The text is read by ``read_text``.
    """
    text = read_text(path, root=root, max_bytes=max_bytes)
    return loads(text, path, max_aliases=max_aliases, max_nodes=max_nodes, max_depth=max_depth,
                 max_written=max_written)


def load_file_all(path, root=None, max_bytes=MAX_BYTES, max_aliases=MAX_ALIASES, max_nodes=MAX_NODES,
                  max_depth=MAX_DEPTH, max_written=MAX_WRITTEN):
    """Every document of the YAML file ``path`` (a list; an empty document is None), or YamlFileError: a
    multi-document manifest file (a model server's objects), read by ``read_text`` and parsed by ``loads_all``
    under the same limits as ``load_file``, counted over the whole file."""
    text = read_text(path, root=root, max_bytes=max_bytes)
    return loads_all(text, path, max_aliases=max_aliases, max_nodes=max_nodes, max_depth=max_depth,
                     max_written=max_written)
