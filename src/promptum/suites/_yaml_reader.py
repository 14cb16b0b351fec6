"""Read a YAML document together with the line and column of every key and list item.

A suite is read a part at a time: each top-level value, and each case of `test_cases` (or
of a case file, a document that is a list) by itself, is composed into PyYAML's nodes,
checked, located and built, and its nodes are dropped before the next case is read: the
nodes of a whole document take tens of times its text (reading a 50 MB suite whole peaked
at 3.1 GB), one case's a few kilobytes.

The importer reads another tool's config with it too (`located_yaml`): one reader, with
the same limits, which the same variables of the machine's environment raise.
"""

from __future__ import annotations

import marshal
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any, TypeVar, cast

import yaml
from yaml.composer import Composer, ComposerError
from yaml.constructor import ConstructorError

from promptum.errors import ConfigError
from promptum.foundations.file_suffixes import YAML_SUFFIXES as YAML_SUFFIXES
from promptum.suites._file_reading import env_limit, read_document, too_long_number
from promptum.suites._locate import (
    Loc,
    Locator,
    Position,
    format_loc,
    problem,
    raise_problems,
)
from promptum.suites._yaml_core import core_int, core_resolvers

try:  # The C parser when PyYAML was built with libyaml: several times faster on large suites.
    from yaml import CSafeLoader as _Parser
except ImportError:  # pragma: no cover - PyYAML without libyaml
    from yaml import SafeLoader as _Parser  # type: ignore[assignment]

MAX_ALIAS_VALUES = 1_000_000
"""How many values aliases (`*name`) may add to a suite beyond those written in it, unless
`PROMPTUM_MAX_ALIAS_VALUES` (the machine's, never the suite's) says otherwise."""

MAX_ALIAS_CHARACTERS = 100_000_000
"""How many characters of text aliases may add to a suite beyond those written in it, unless
`PROMPTUM_MAX_ALIAS_CHARACTERS` says otherwise."""

ALIAS_VALUES_VARIABLE = "PROMPTUM_MAX_ALIAS_VALUES"
ALIAS_CHARACTERS_VARIABLE = "PROMPTUM_MAX_ALIAS_CHARACTERS"

MAX_DEPTH = 100
"""How deeply values may nest (aliases included); reading deeper would overflow the stack."""

COMPOSED_DEPTH = 2 * MAX_DEPTH
"""How deeply values are composed at all: past MAX_DEPTH they are refused anyway."""

SHARED_TEXT = 64
"""Texts up to this long are built once per suite, however often they are written."""

CASES_KEY = "test_cases"
"""The top-level key whose items, a suite's cases, are read and built one at a time."""

KEPT_DEPTH = 2
"""Positions kept while loading reach this deep: top-level keys and each case (its `source`).

The others are found again from the text only when a problem needs one: a suite of
300,000 cases has millions of them.
"""

BUILT_DEPTH = 50
"""A case nested deeper than this is composed into nodes first, as any unusual case is."""

_PLAIN_TAGS = frozenset(
    f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "timestamp")
)
"""The tags of the scalars a case built straight from the parser's events may hold."""

_STR_TAG = "tag:yaml.org,2002:str"
_UNUSUAL = object()
"""What building a case from events gives for what only composing its nodes handles."""
_END_EVENTS = frozenset({yaml.MappingEndEvent, yaml.SequenceEndEvent})
_VALUE_EVENTS = frozenset({yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent})
"""The events of a value the fast path builds, when they carry no anchor or tag."""

_Collection = TypeVar("_Collection", yaml.MappingNode, yaml.SequenceNode)


class _Loader(_Parser, Composer):
    """The parser's events composed by PyYAML's own Python composer, a node at a time.

    The C parser composes only whole documents; its events, composed here, give one case.
    """

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.anchors = {}  # the C parser's __init__ does not run the composer's
        self.nesting = 0
        """How many mappings and lists enclose the node being composed."""
        self.texts: dict[str, str] = {}
        """Each short text built, kept once: keys and check types repeat in every case."""
        self.tags: dict[str, str] = {}
        """The tag each short plain scalar resolved to: the same texts repeat in every case."""
        self.pending: deque[Any] = deque()
        """Events read ahead by `built`, given back to the composer before the parser's."""
        self.share = True
        """Whether `built` keeps each short text once: not for cases to be `Packed`, whose
        bytes hold their own copies."""

    def get_event(self) -> Any:
        """The next event: one read ahead first."""
        if self.pending:
            return self.pending.popleft()
        return super().get_event()

    def peek_event(self) -> Any:
        """The next event, not consumed."""
        if self.pending:
            return self.pending[0]
        return super().peek_event()

    def check_event(self, *choices: Any) -> bool:
        """Whether there is a next event, of one of `choices` if any are given."""
        if self.pending:
            return not choices or isinstance(self.pending[0], choices)
        return bool(super().check_event(*choices))

    def construct_scalar(self, node: yaml.ScalarNode | yaml.MappingNode) -> str:
        """A scalar's text, the same str as an equal short text built before."""
        text = super().construct_scalar(node)
        return self.texts.setdefault(text, text) if len(text) <= SHARED_TEXT else text

    def compose_sequence_node(self, anchor: Any) -> yaml.SequenceNode:
        """A list, composed unless it is nested past COMPOSED_DEPTH."""
        return self._nested(super().compose_sequence_node, anchor)

    def compose_mapping_node(self, anchor: Any) -> yaml.MappingNode:
        """A mapping, composed unless it is nested past COMPOSED_DEPTH."""
        return self._nested(super().compose_mapping_node, anchor)

    def _nested(self, compose: Callable[[Any], _Collection], anchor: Any) -> _Collection:
        # The composer recurses: three frames a level, within Python's limit of 1,000.
        self.nesting += 1
        try:
            if self.nesting > COMPOSED_DEPTH:
                raise ComposerError(
                    None,
                    None,
                    f"values are nested more than {COMPOSED_DEPTH} levels deep",
                    self.event().start_mark,
                )
            return compose(anchor)
        finally:
            self.nesting -= 1

    def node(self, parent: yaml.Node | None, index: yaml.Node | int | None) -> yaml.Node:
        """The next node of the stream, composed whole (aliases are its anchors' nodes)."""
        # The stubs say an int index and maybe no node: a key's value is indexed by the key,
        # and a node is always composed (or YAMLError raised).
        return cast(yaml.Node, self.compose_node(parent, index))  # type: ignore[arg-type]

    def event(self) -> Any:
        """The next event, consumed (PyYAML's stubs type events and their marks loosely)."""
        return self.get_event()

    def built(self) -> tuple[Any, Any] | None:
        """The next value built straight from the parser's events, and where it starts.

        A case of plain mappings, lists and scalars (all of them in large suites) needs no
        nodes: composing and constructing them cost four times parsing. Anything else (an
        anchor, alias, tag, merge key, a key that is not text or written twice, deep
        nesting) returns None, its events read so far given back to compose it as before,
        with the same errors at the same places.
        """
        read: list[Any] = []
        built = self._from_events(read)
        if built is _UNUSUAL:
            self.pending.extend(read)
            return None
        return built, read[0].start_mark

    def _from_events(self, read: list[Any]) -> Any:
        """The value the next events build, or _UNUSUAL; every event consumed is in `read`."""
        # `pending` is empty: `built` refills it only on its way out. Events are typed Any, as
        # PyYAML's stubs type them loosely.
        next_event: Callable[[], Any] = super().get_event
        open_: list[tuple[dict[Any, Any] | list[Any], list[Any]]] = []
        """Each mapping or list being built, with its key awaiting a value (mappings)."""
        tags, texts, share = self.tags, self.texts, self.share
        while True:
            event = next_event()
            read.append(event)
            kind = type(event)
            if kind in _END_EVENTS:
                done, _ = open_.pop()
                if not open_:
                    return done
                continue
            # An alias, an anchor or a tag is built the general way.
            if kind not in _VALUE_EVENTS or event.anchor is not None or event.tag is not None:
                return _UNUSUAL
            if kind is yaml.ScalarEvent:
                value = event.value
                # A text (quoted, or plain resolving to one) in line: most scalars are.
                if event.implicit[0] and (tags.get(value) or self._resolved(value)) != _STR_TAG:
                    value = self._scalar(event)
                    if value is _UNUSUAL:
                        return _UNUSUAL
                elif share and len(value) <= SHARED_TEXT:
                    value = texts.setdefault(value, value)
            elif len(open_) >= BUILT_DEPTH:
                return _UNUSUAL
            else:
                value = {} if kind is yaml.MappingStartEvent else []
            if open_:
                parent, key = open_[-1]
                if type(parent) is list:
                    parent.append(value)
                elif key:
                    parent[key.pop()] = value
                elif type(value) is not str or value in parent or kind is not yaml.ScalarEvent:
                    return _UNUSUAL  # a key that is not text (`<<` is not), or written twice
                else:
                    key.append(value)
                    continue
            elif kind is yaml.ScalarEvent:
                return value
            if kind is not yaml.ScalarEvent:
                open_.append((value, []))

    def _scalar(self, event: Any) -> Any:
        """A scalar's value, as constructing its node gives it; _UNUSUAL for an unusual tag."""
        text: str = event.value
        quoted = not event.implicit[0]
        tag = _STR_TAG if quoted else self.tags.get(text) or self._resolved(text)
        if tag == _STR_TAG:
            return self.texts.setdefault(text, text) if len(text) <= SHARED_TEXT else text
        if tag not in _PLAIN_TAGS:
            return _UNUSUAL
        node = yaml.ScalarNode(tag, text, event.start_mark, event.end_mark, event.style)
        return self.yaml_constructors[tag](self, node)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """A whole number; one too long for Python to read is a located error, not a crash."""
        try:
            return super().construct_yaml_int(node)
        except ValueError as exc:
            raise _unreadable(too_long_number(), node) from exc

    def construct_yaml_timestamp(self, node: yaml.ScalarNode) -> Any:
        """A date or time; one that does not exist (February 30th) is a located error."""
        try:
            return super().construct_yaml_timestamp(node)
        except ValueError as exc:
            raise _unreadable(f"{node.value} is not a date: {exc}", node) from exc

    def _resolved(self, text: str) -> str:
        """The tag a plain scalar resolves to, remembered for short texts."""
        tag: str = self.resolve(yaml.ScalarNode, text, (True, False))  # type: ignore[no-untyped-call]
        if len(text) <= SHARED_TEXT:
            self.tags[text] = tag
        return tag

    def starts(self, kind: type[yaml.CollectionStartEvent]) -> bool:
        """Whether the next event starts a collection of `kind`, with no anchor and no tag."""
        event = self.peek_event()
        return isinstance(event, kind) and event.anchor is None and event.tag in (None, "!")

    def collection(self, kind: type[_Collection]) -> _Collection:
        """The node of the collection that starts next, as the composer makes it, still empty."""
        start = self.event()
        tag: str = self.resolve(kind, None, start.implicit)  # type: ignore[no-untyped-call]
        return kind(tag, [], start.start_mark, None)


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)
_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_timestamp)


class _CoreLoader(_Loader):
    """The reader with YAML 1.2's core schema, as js-yaml reads: for another tool's config."""

    yaml_implicit_resolvers = core_resolvers(_Loader.yaml_implicit_resolvers)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """A core schema integer (`012` is 12); one too long for Python is a located error."""
        try:
            return core_int(node)
        except ValueError as exc:
            raise _unreadable(too_long_number(), node) from exc


_CoreLoader.add_constructor("tag:yaml.org,2002:int", _CoreLoader.construct_yaml_int)


def _unreadable(problem: str, node: yaml.Node) -> ConstructorError:
    """A scalar's value Python cannot make, located: quoted, it stays text."""
    return ConstructorError(None, None, f"{problem} (quote it to keep it as text)", node.start_mark)


class Packed(bytes):
    """A case built from events, held as marshal's bytes until it is taken (`unpacked`).

    The cases of a suite are all read before any is built (its settings may follow them):
    held as dicts and lists they took about 900 bytes each, as bytes a sixth of that.
    """

    __slots__ = ()


def _packed(value: Any) -> Any:
    """`value` as `Packed` bytes, or itself when marshal cannot hold it (a date)."""
    try:
        return Packed(marshal.dumps(value))
    except ValueError:
        return value


def unpacked(case: Any) -> Any:
    """A case of the list `read_yaml(..., packed=True)` gives: its value, as read."""
    return marshal.loads(case) if type(case) is Packed else case


@dataclass(slots=True)
class _Part:
    """A node read by itself: a top-level value, a case, or a document not read in parts."""

    node: yaml.Node
    loc: Loc
    depth: int
    """How deep the node is in the document: 1 the document, 2 a top-level value (or an item
    of a document that is a list), 3 an item of a top-level list (a case of `test_cases`)."""
    key: yaml.Node | None = None
    """The key of a top-level value."""
    case: bool = False
    """Whether it is a case: an item of `test_cases`, or of a document that is a list."""


@dataclass(slots=True)
class _Built:
    """A case built straight from the parser's events (`_Loader.built`): it has no nodes."""

    value: Any
    loc: Loc
    mark: Any
    """Where the case starts."""


@dataclass
class _Document:
    """A YAML document composed a part at a time, its cases not kept once read."""

    loader: _Loader
    root: yaml.Node | None = None
    """The document's node: a top-level mapping read in parts has its cases' list empty."""
    cases: yaml.SequenceNode | None = None
    cases_loc: Loc = (CASES_KEY,)
    """Where the list of cases is: `test_cases`, or the document itself (a case file)."""
    build: bool = True
    """Whether plain cases are built from the parser's events rather than composed."""
    earlier: set[int] = field(default_factory=set)
    """The anchored nodes of the parts already read, which later aliases may reach.

    Only these outlive their part (the composer keeps them): the id of any other node may
    be reused by a later part's."""
    _anchors_seen: int = 0

    def parts(self) -> Iterator[_Part | _Built]:
        """Every part, in the order of the file; raises YAMLError where the YAML is wrong."""
        loader = self.loader
        loader.event()  # the stream's start
        if not loader.check_event(yaml.StreamEndEvent):
            loader.event()  # the document's start
            for part in self._document():
                yield part
                self._note_anchors()
            loader.event()  # the document's end
            if not loader.check_event(yaml.StreamEndEvent):
                raise ComposerError(
                    "expected a single document in the stream",
                    self.root.start_mark if self.root else None,
                    "but found another document",
                    loader.event().start_mark,
                )
        loader.event()  # the stream's end

    def _document(self) -> Iterator[_Part | _Built]:
        loader = self.loader
        if loader.starts(yaml.SequenceStartEvent):
            # A plain list, as a case file of `cases_from` is: read a case at a time too.
            self.root = self.cases = loader.collection(yaml.SequenceNode)
            self.cases_loc = ()
            yield from self._cases((), self.cases, 2)
            return
        if not loader.starts(yaml.MappingStartEvent):
            # Neither a plain mapping, as a suite is, nor a plain list: read whole.
            self.root = loader.node(None, None)
            yield _Part(self.root, (), 1)
            return
        self.root = root = loader.collection(yaml.MappingNode)
        while not loader.check_event(yaml.MappingEndEvent):
            key = loader.node(root, None)
            if self._are_cases(key):
                self.cases = loader.collection(yaml.SequenceNode)
                root.value.append((key, self.cases))
                yield _Part(self.cases, (key.value,), 2, key)  # for its key: it is empty yet
                yield from self._cases((key.value,), self.cases, 3)
                continue
            value = loader.node(root, key)
            root.value.append((key, value))
            yield _Part(value, (_key_name(key),), 2, key)
        root.end_mark = loader.event().end_mark

    def _are_cases(self, key: yaml.Node) -> bool:
        """Whether `key` is followed by the list of cases, to read case by case."""
        if self.cases is not None or not isinstance(key, yaml.ScalarNode):
            return False  # a second list is a duplicate key, reported as one
        return key.value == CASES_KEY and self.loader.starts(yaml.SequenceStartEvent)

    def _cases(self, loc: Loc, cases: yaml.SequenceNode, depth: int) -> Iterator[_Part | _Built]:
        loader = self.loader
        index = 0
        while not loader.check_event(yaml.SequenceEndEvent):
            built = loader.built() if self.build else None
            if built is not None:
                yield _Built(built[0], (*loc, index), built[1])
            else:
                yield _Part(loader.node(cases, index), (*loc, index), depth, case=True)
            index += 1
        cases.end_mark = loader.event().end_mark

    def _note_anchors(self) -> None:
        """Add the nodes anchored in the part just read to `earlier`."""
        anchors = self.loader.anchors
        added = len(anchors) - self._anchors_seen
        if not added:
            return  # most parts (every plain case) anchor nothing
        self.earlier.update(id(node) for node in islice(reversed(anchors.values()), added))
        self._anchors_seen = len(anchors)


def _key_name(key: yaml.Node) -> str:
    """A key's text; a mapping or list as a key (refused by `_Walker`) stands as `?`."""
    return key.value if isinstance(key, yaml.ScalarNode) else "?"


def _template(mapping: yaml.MappingNode) -> str | None:
    """The `{{ name }}` YAML read as this mapping, when it is one: a Jinja/Helm template."""
    if not mapping.flow_style or len(mapping.value) != 1:
        return None
    inner, value = mapping.value[0]
    if not isinstance(inner, yaml.MappingNode) or value.value != "" or len(inner.value) != 1:
        return None
    name, empty = inner.value[0]
    if not isinstance(name, yaml.ScalarNode) or empty.value != "":
        return None
    return f"{{{{ {name.value} }}}}"


def _complex_key(path: Path, mapping: yaml.Node, key: yaml.Node, loc: Loc) -> ConfigError:
    """The error for a mapping or list written as a key: a suite's keys are text."""
    template = _template(mapping) if isinstance(mapping, yaml.MappingNode) else None
    if template is not None:
        field = loc[-1] if loc and isinstance(loc[-1], str) else "value"
        return ConfigError(
            f"{_at(path, mapping.start_mark, loc)}: the value looks like a Jinja template, "
            f"`{template}`, that YAML read as a mapping (its braces are YAML's); quote it: "
            f'`{field}: "{template}"`'
        )
    template = _template(key) if isinstance(key, yaml.MappingNode) else None
    if template is not None:
        return ConfigError(
            f"{_at(path, key.start_mark, loc)}: the key looks like a Jinja template, "
            f'`{template}`, that YAML read as a mapping; quote it (`"{template}": ...`), or '
            "render the template before promptum reads the file"
        )
    kind = "mapping" if isinstance(key, yaml.MappingNode) else "list"
    return ConfigError(
        f"{_at(path, key.start_mark, loc)}: a key here is a {kind}, not text; write the key "
        "as text (quoted if it holds `{`, `[`, `:` or `#`), or quote the whole value if it "
        "is a template"
    )


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _located_children(node: yaml.Node, loc: Loc) -> list[tuple[yaml.Node, Loc]]:
    if isinstance(node, yaml.MappingNode):
        return [
            (part, (*loc, str(key.value))) for key, value in node.value for part in (key, value)
        ]
    return [(item, (*loc, index)) for index, item in enumerate(_children(node))]


def _text(node: yaml.Node) -> int:
    return len(node.value) if isinstance(node, yaml.ScalarNode) else 0


def _where(part: _Part, target: yaml.Node, path: Path) -> str:
    """``file:line:column: field`` of `target`, named by the path where it is first met."""
    # Searched for only when there is an error: most suites have millions of paths.
    seen: set[int] = set()
    pending: list[tuple[yaml.Node, Loc]] = [(part.node, part.loc)]
    loc: Loc = part.loc
    while pending:
        node, loc = pending.pop()
        if node is target:
            break
        if id(node) not in seen:
            seen.add(id(node))
            pending.extend(reversed(_located_children(node, loc)))  # in the file's order
    return _at(path, target.start_mark, loc)


def _at(path: Path, mark: yaml.Mark, loc: Loc) -> str:
    field = format_loc(loc[:8]) + ("..." if len(loc) > 8 else "")
    return f"{path}:{mark.line + 1}:{mark.column + 1}: {field}"


def _too_deep(where: str) -> ConfigError:
    return ConfigError(
        f"{where}: values are nested more than {MAX_DEPTH} levels deep here; flatten them "
        "(a suite needs a few levels)"
    )


@dataclass(frozen=True, slots=True)
class _Limits:
    """What aliases may add to a document: values, and characters of text."""

    values: int
    text: int

    @classmethod
    def of_machine(cls) -> _Limits:
        """The limits, as the environment of the machine reading the suite may raise them."""
        return cls(
            env_limit(ALIAS_VALUES_VARIABLE, MAX_ALIAS_VALUES, "values"),
            env_limit(ALIAS_CHARACTERS_VARIABLE, MAX_ALIAS_CHARACTERS, "characters"),
        )

    def exceeded(self, values: int, text: int) -> bool:
        """Whether aliases adding this many values and characters add too much."""
        return values > self.values or text > self.text

    def bomb(self, where: str, values: int) -> ConfigError:
        """The error for a value to which aliases add too many values, or else characters."""
        if values > self.values:
            added, variable = f"more than {self.values:,} values", ALIAS_VALUES_VARIABLE
        else:
            added, variable = f"more than {self.text:,} characters", ALIAS_CHARACTERS_VARIABLE
        return ConfigError(
            f"{where}: through its aliases (`*name`), this value would expand to {added} "
            "beyond those written in the file: refused as an alias bomb; write the values "
            f"out or use fewer aliases (or, if it is meant, set {variable} on the machine "
            "that runs it)"
        )


@dataclass(slots=True)
class _Added:
    """What aliases add to a document: values, and characters of text."""

    values: int = 0
    text: int = 0

    def add(self, values: int, text: int) -> None:
        """Count in what one more part adds."""
        self.values += values
        self.text += text


class _Size:
    """Refuses an alias bomb, or values nested too deeply, from the node graph alone.

    Composing the graph costs what the file's text does, as an alias is one more reference
    to its anchor's node; it is building the document, and walking it, that repeats the
    anchor each time. Nine aliases of nine aliases... reach a billion values from a few
    hundred bytes, so the size each part would have is counted before it is built, once
    per node. A value too large by itself is refused where it is; parts that are too
    large together, at the cases' list or the document that holds them.
    """

    def __init__(self, path: Path, document: _Document) -> None:
        self.path = path
        self.document = document
        self.limits = _Limits.of_machine()
        self.added = _Added()
        """What aliases added to the parts read so far."""
        self.added_to_cases = _Added()
        self.sizes: dict[int, tuple[int, int, int]] = {}
        """The size of each anchored node of an earlier part that was needed: values,
        characters, depth."""

    def check(self, part: _Part) -> bool:
        """Refuse `part` if it is too large or deep; return whether it has aliases."""
        earlier = self.document.earlier
        written_values = written_text = deepest = 0
        aliased = False
        met: set[int] = set()
        pending: list[tuple[yaml.Node, int]] = [(part.node, part.depth)]
        while pending:
            node, depth = pending.pop()
            if id(node) in met or id(node) in earlier:
                aliased = True
                continue
            met.add(id(node))
            written_values += 1
            written_text += _text(node)
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in _children(node))
        if not aliased and deepest <= MAX_DEPTH:
            return False  # a tree: the part is what is written (most suites, all large ones)
        values, text, depth = self._expanded(part, written_values, written_text)
        self.added.add(values - written_values, text - written_text)
        if part.case:
            self.added_to_cases.add(values - written_values, text - written_text)
        self._check_enclosing(part, depth)
        return aliased

    def _expanded(
        self, part: _Part, written_values: int, written_text: int
    ) -> tuple[int, int, int]:
        """The size of `part` with its aliases repeated, bottom up from its children's."""
        earlier = self.document.earlier
        sizes: dict[int, tuple[int, int, int]] = {}
        open_nodes: set[int] = set()  # an alias to one of these is a loop, which _Walker reports
        # Each node with whether it is of an earlier part, reached through an alias: counted
        # in, but not refused again, as its own part was checked.
        stack = [(part.node, False, id(part.node) in earlier)]
        while stack:
            node, children_done, old = stack.pop()
            if not children_done:
                if self._size(sizes, node) is None and id(node) not in open_nodes:
                    open_nodes.add(id(node))
                    stack.append((node, True, old))
                    stack.extend(
                        (child, False, old or id(child) in earlier) for child in _children(node)
                    )
                continue
            open_nodes.discard(id(node))
            values, text, depth = 1, _text(node), 1
            for child in _children(node):
                child_values, child_text, child_depth = self._size(sizes, child) or (1, 0, 1)
                values, text = values + child_values, text + child_text
                depth = max(depth, child_depth + 1)
            sizes[id(node)] = values, text, depth
            if id(node) in earlier:
                self.sizes[id(node)] = values, text, depth
            if not old:
                self._refuse(part, node, values - written_values, text - written_text, depth)
        return self._size(sizes, part.node) or (1, 0, 1)

    def _size(
        self, sizes: dict[int, tuple[int, int, int]], node: yaml.Node
    ) -> tuple[int, int, int] | None:
        return sizes.get(id(node)) or self.sizes.get(id(node))

    def _refuse(self, part: _Part, node: yaml.Node, values: int, text: int, depth: int) -> None:
        """Refuse `node` if it is too deep, or its aliases add too much by themselves."""
        if depth > MAX_DEPTH:
            raise _too_deep(_where(part, node, self.path))
        if self.limits.exceeded(values, text):
            raise self.limits.bomb(_where(part, node, self.path), values)

    def _check_enclosing(self, part: _Part, depth: int) -> None:
        """Refuse the cases' list, or the document, that `part` makes too large or deep."""
        cases, root = self.document.cases, self.document.root
        if part.case and cases is not None:
            where = _at(self.path, cases.start_mark, self.document.cases_loc)
            if depth + 1 > MAX_DEPTH:
                raise _too_deep(where)
            if self.limits.exceeded(self.added_to_cases.values, self.added_to_cases.text):
                raise self.limits.bomb(where, self.added_to_cases.values)
        if root is not None:
            where = _at(self.path, root.start_mark, ())
            if depth + part.depth - 1 > MAX_DEPTH:
                raise _too_deep(where)
            if self.limits.exceeded(self.added.values, self.added.text):
                raise self.limits.bomb(where, self.added.values)


@dataclass(slots=True)
class _Walker:
    """Locates paths (down to `depth`, or all), finds duplicate keys and, in aliases, loops."""

    locator: Locator
    depth: int | None
    document: _Document
    problems: list[str] = field(default_factory=list)
    root_keys: set[Any] = field(default_factory=set)
    """The top-level keys met so far."""
    complex_key: ConfigError | None = None
    """The first key met that is a mapping or a list: such a key cannot be built."""

    def part(self, part: _Part, aliased: bool) -> None:
        """Walk one part of the document."""
        if self.document.root is not None:
            self.locator.positions.setdefault((), _position(self.document.root.start_mark))
        if part.case and len(part.loc) == 1 and self.depth is not None:
            self.depth = 1  # a case file's cases are a level up: each keeps its own position
        if part.key is not None and not isinstance(part.key, yaml.ScalarNode):
            self._refuse_key(self.document.root or part.node, part.key, ())
            return
        if part.key is not None:
            self.key(part.key, (), self.root_keys)
        inside = frozenset[int]() if aliased else None
        self.walk(part.node, part.loc, inside, set())

    def built(self, part: _Built) -> None:
        """Locate a case built from events: it has no duplicate keys, loops or aliases."""
        root = self.document.root
        if root is not None and () not in self.locator.positions:
            self.locator.positions[()] = _position(root.start_mark)
        if len(part.loc) == 1 and self.depth is not None:
            self.depth = 1  # a case file's cases are a level up: each keeps its own position
        if self.depth is None or len(part.loc) <= self.depth:
            self.locator.positions.setdefault(part.loc, _position(part.mark))

    def key(self, key_node: yaml.Node, loc: Loc, seen: set[Any]) -> None:
        """Locate a key of the mapping at `loc`, reporting it if `seen` has it already."""
        key = key_node.value
        if key in seen:
            self.locator.positions[(*loc, key)] = _position(key_node.start_mark)
            message = f"key {key!r} appears twice; keep one"
            self.problems.append(problem(self.locator, (*loc, key), message))
        seen.add(key)
        if self.depth is None or len(loc) < self.depth:
            self.locator.positions[(*loc, key)] = _position(key_node.start_mark)

    def walk(
        self, node: yaml.Node, loc: Loc, inside: frozenset[int] | None, walked: set[int]
    ) -> None:
        """Walk `node` at `loc`; `inside` holds its enclosing nodes when there are aliases."""
        positions = self.locator.positions
        if self.depth is None or len(loc) <= self.depth:
            positions.setdefault(loc, _position(node.start_mark))
        if inside is not None:
            if id(node) in inside:  # an alias of an enclosing node: a recursive structure
                positions.setdefault(loc, _position(node.start_mark))
                message = "a YAML alias refers to itself; remove the loop"
                self.problems.append(problem(self.locator, loc, message))
                return
            if id(node) in walked or id(node) in self.document.earlier:
                # Another alias of a node already walked: its keys were located the first
                # time, and walking every expansion would cost as much memory as the bomb
                # it guards from.
                return
            walked.add(id(node))
            inside = inside | {id(node)}
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    self._refuse_key(node, key_node, loc)
                    continue  # its value cannot be named, nor built
                self.key(key_node, loc, seen)
                self.walk(value_node, (*loc, key_node.value), inside, walked)
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                self.walk(item, (*loc, index), inside, walked)

    def _refuse_key(self, mapping: yaml.Node, key: yaml.Node, loc: Loc) -> None:
        if self.complex_key is None:
            self.complex_key = _complex_key(self.locator.path, mapping, key, loc)


def _position(mark: yaml.Mark) -> Position:
    return Position(mark.line + 1, mark.column + 1)


class _Rest:
    """Locates every path of a document from its text, once, when a problem first needs it."""

    def __init__(self, text: str, locator: Locator, loader: type[_Loader]) -> None:
        self.text: str | None = text
        self.locator = locator
        self.loader = loader

    def __call__(self) -> None:
        if self.text is None:
            return
        text, self.text = self.text, None
        # Composed into nodes, each case: every path is located from them.
        document = _Document(self.loader(text), build=False)
        walker = _Walker(self.locator, None, document)  # its problems were found already
        try:
            for part in document.parts():
                assert isinstance(part, _Part)  # nothing is built from events
                walker.part(part, True)
        finally:
            document.loader.dispose()


class _Read:
    """A document read part by part: each checked, located, and built if a case.

    Errors are raised in the order reading the whole document would raise them: the
    YAML's own first, then a part too large, then a value that cannot be built, then
    duplicate keys and loops.
    """

    def __init__(
        self,
        text: str,
        path: Path,
        locator: Locator,
        packed: bool,
        loader: type[_Loader],
        kept: int | None = KEPT_DEPTH,
    ) -> None:
        # Located whole (`kept` None): every case composed into nodes, none built from events.
        self.document = _Document(loader(text), build=kept is not None)
        self.packed = packed
        """Whether the cases built from events are held `Packed` until taken."""
        self.document.loader.share = not packed
        self.size = _Size(path, self.document)
        self.walker = _Walker(locator, kept, self.document)
        self.cases: list[Any] = []
        self.too_large: ConfigError | None = None
        self.unbuilt: yaml.YAMLError | ConfigError | None = None

    def data(self) -> tuple[Any, list[str]]:
        """The document's data and the problems found in it."""
        loader = self.document.loader
        try:
            for part in self.document.parts():
                if self.too_large is None:
                    self._read(part)
            if self.too_large is not None:
                raise self.too_large
            if self.unbuilt is not None:
                raise self.unbuilt
            root = self.document.root
            if root is None:
                return None, []
            if self.document.cases is not None:  # the cases, built: the list the root holds
                loader.constructed_objects[self.document.cases] = self.cases
            return loader.construct_document(root), self.walker.problems
        finally:
            loader.dispose()

    def _read(self, part: _Part | _Built) -> None:
        if isinstance(part, _Built):
            if self.unbuilt is None:
                self.walker.built(part)
                self.cases.append(_packed(part.value) if self.packed else part.value)
            return
        try:
            aliased = self.size.check(part)
        except ConfigError as exc:
            self.too_large = exc  # raised once the rest is read: a YAML error comes first
            return
        if self.unbuilt is not None:
            return
        # Walked before it is built: building merges `<<: *base` into the mapping's node,
        # whose keys would then look written twice.
        self.walker.part(part, aliased)
        if self.walker.complex_key is not None:
            self.unbuilt = self.walker.complex_key  # before building raises a vaguer error
            return
        if part.case:
            try:
                self.cases.append(self.document.loader.construct_document(part.node))
            except yaml.YAMLError as exc:
                self.unbuilt = exc


def _tab_hint(text: str, mark: yaml.Mark | None) -> str:
    """A hint when a YAML error is at a tab: YAML indents with spaces only."""
    if mark is None or text[mark.index : mark.index + 1] != "\t":
        return ""
    return " (a tab: YAML indents with spaces only; replace the tab with spaces)"


def _template_hint(text: str, exc: yaml.MarkedYAMLError) -> str:
    """A hint when the lines of a YAML error hold `{{`: a Jinja or Helm template, unrendered."""
    lines = {mark.line for mark in (exc.problem_mark, exc.context_mark) if mark is not None}
    written = text.splitlines()
    if not any(line < len(written) and "{{" in written[line] for line in lines):
        return ""
    return (
        " (the line holds `{{`: a Jinja or Helm template is YAML only once rendered; quote "
        'a templated value, as in `query: "{{ country }}"`)'
    )


def read_yaml(path: Path, packed: bool = False) -> tuple[Any, Locator]:
    """Parse `path`; raise ConfigError with the line and column of a syntax error.

    With `packed`, the cases of its `test_cases` (or of a document that is a list) built
    straight from the parser's events are `Packed`: read each with `unpacked`.
    """
    text = read_document(path)  # a file that cannot be read is a ConfigError saying why
    data, locator, problems = parse_yaml(text, path, packed)
    raise_problems(problems)
    return data, locator


def parse_yaml(
    text: str,
    path: Path,
    packed: bool = False,
    loader: type[_Loader] = _Loader,
    kept: int | None = KEPT_DEPTH,
) -> tuple[Any, Locator, list[str]]:
    """The data of `path`'s `text`, and its located problems (duplicate keys, loops).

    Paths are located while reading down to `kept` levels (None: all of them), the others
    from the text again when a problem needs one.

    Raises ConfigError for what leaves no data: a syntax error (with its line and column),
    an alias bomb, values nested too deeply.
    """
    locator = Locator(path)
    locator.rest = _Rest(text, locator, loader) if kept is not None else None
    try:
        data, problems = _Read(text, path, locator, packed, loader, kept).data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        context = ""
        start = exc.context_mark
        if exc.problem and exc.context and start is not None and mark and start.line < mark.line:
            # e.g. an unclosed quote: the problem is found far below where the value began
            context = f" ({exc.context} that starts at line {start.line + 1}, column "
            context += f"{start.column + 1})"
        hint = _tab_hint(text, mark) or _template_hint(text, exc)
        raise ConfigError(
            f"{where}: invalid YAML: {exc.problem or exc.context}{context}; check the "
            f"indentation and quoting around this point{hint}"
        ) from exc
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow, e.g. a NUL
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError(
            f"{path}:{line}: invalid YAML: character #x{exc.character:04x} is not allowed in "
            "a YAML file (is it a text file?); remove it"
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: invalid YAML: {exc}") from exc
    return data, locator, problems


def located_yaml(text: str, path: Path) -> tuple[Any, dict[Loc, Position]]:
    """The data of `path`'s `text` and where every key and item of it starts.

    For a whole document read by itself (another tool's config, read as YAML 1.2's core
    schema, as js-yaml reads it: `yes` stays text, `012` is 12): any problem `parse_yaml`
    finds is raised, and every path is located at once rather than when a problem needs it.
    """
    # Located as it is read (`kept=None`): composing it all again afterwards costs as much.
    data, locator, problems = parse_yaml(text, path, loader=_CoreLoader, kept=None)
    raise_problems(problems)
    return data, locator.positions
