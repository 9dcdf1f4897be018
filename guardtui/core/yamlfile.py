"""YAML with line numbers, and a small schema checker whose errors name file, line and field.

Every data file guardtui reads (taxonomy, plugins, policy) goes through here, so a mistake
is always reported the same way: ``plugins/x.yaml:7: patterns[0].verdict: 'block' is not
one of allow, deny, ask, flag``.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import yaml

MAX_DATA_BYTES = 1 << 20  # a hand-written data file (a plugin, policy.yaml, settings.yaml); more is a mistake


class DataError(ValueError):
    """A one-line, human-readable problem in a data file."""

    def __init__(self, file: str, line: int | None, field: str, message: str):
        self.file, self.line, self.field, self.message = file, line, field, message
        where = f"{file}:{line}" if line else file
        super().__init__(f"{where}: {field + ': ' if field else ''}{message}")


def read_regular_file(path: Path | str, limit: int = MAX_DATA_BYTES) -> bytes:
    """A data file's bytes, read only when it is a regular file (a link to one is fine) of at most
    `limit` bytes: a FIFO, a device (a link to /dev/zero) or a socket is refused without being
    opened for long, and never more than `limit` + 1 bytes are read. FileNotFoundError passes
    through (a missing file often means "use the defaults"); every other problem is a DataError."""
    name = os.fspath(path)
    try:
        st = os.stat(name)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise DataError(name, None, "", f"cannot read: {exc.strerror or exc}") from None
    _check_regular(name, st, limit)
    try:  # not blocking even if it was swapped for a FIFO since the stat
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise DataError(name, None, "", f"cannot read: {exc.strerror or exc}") from None
    try:
        _check_regular(name, os.fstat(fd), limit)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 16, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise DataError(name, None, "", f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise DataError(name, None, "", f"file is larger than {limit // 1024} KiB")
    return b"".join(chunks)


def _check_regular(name: str, st: os.stat_result, limit: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a named pipe (FIFO)" if stat.S_ISFIFO(st.st_mode)
                else "a character device" if stat.S_ISCHR(st.st_mode) else "a block device"
                if stat.S_ISBLK(st.st_mode) else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a file")
        raise DataError(name, None, "", f"not a regular file ({kind}): not read")
    if st.st_size > limit:
        raise DataError(name, None, "", f"file is larger than {limit // 1024} KiB")


def read_text_file(path: Path | str, limit: int = MAX_DATA_BYTES) -> str:
    """read_regular_file, decoded as UTF-8 (DataError when it is not)."""
    data = read_regular_file(path, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(os.fspath(path), None, "", f"not UTF-8 text (byte {exc.start})") from None


class Located:
    """A loaded document plus the line of every value in it (by path)."""

    def __init__(self, file: str, data: Any, lines: dict[tuple, int], offset: int = 0):
        self.file, self.data, self.lines, self.offset = file, data, lines, offset

    def line(self, path: tuple) -> int | None:
        while path:
            if path in self.lines:
                return self.lines[path] + self.offset
            path = path[:-1]
        return self.lines.get((), 1) + self.offset

    def error(self, path: tuple, message: str) -> DataError:
        return DataError(self.file, self.line(path), field_name(path), message)


def field_name(path: Iterable) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


# libyaml's parser when PyYAML has it: the taxonomy loads in a few ms instead of a second,
# which is most of what an offline hook call costs
class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    pass


def _no_duplicates(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r} (first at line {seen[key] + 1})", key_node.start_mark)
        seen[key] = key_node.start_mark.line
    return loader.construct_mapping(node, deep=deep)


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


MAX_DEPTH = 100  # nesting of sequences and mappings; libyaml's composer recurses in C (a deep one crashes)
MAX_ALIAS_NODES = 10_000  # nodes aliases may add when expanded (a "billion laughs" adds billions)


def check_shape(text: str, file: str, line_offset: int = 0) -> None:
    """Refuse a document too deep to compose safely, or whose aliases expand without bound, in one
    pass over the parser's events (libyaml's parser keeps its own stack: no recursion)."""
    sizes: dict[str, int] = {}  # anchor -> nodes it stands for, aliases expanded
    frames: list[tuple[str | None, int]] = []  # open collections: (anchor, total when it opened)
    total = added = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            line = event.start_mark.line + 1 + line_offset if event.start_mark else None
            if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
                if len(frames) >= MAX_DEPTH:
                    raise DataError(file, line, "", f"nested deeper than {MAX_DEPTH} levels")
                frames.append((event.anchor, total))
                total += 1
            elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
                anchor, start = frames.pop()
                if anchor is not None:
                    sizes[anchor] = total - start
            elif isinstance(event, yaml.ScalarEvent):
                total += 1
                if event.anchor is not None:
                    sizes[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                size = sizes.get(event.anchor)
                if size is None:  # undefined, or an alias inside its own anchor: a loop
                    raise DataError(file, line, "", f"alias *{event.anchor} does not refer to a finished node "
                                                    f"(undefined, or it refers to itself)")
                total += size
                added += size
                if added > MAX_ALIAS_NODES:
                    raise DataError(file, line, "", f"aliases expand to more than {MAX_ALIAS_NODES} nodes "
                                                    f"(a YAML bomb?)")
    except yaml.MarkedYAMLError:
        return  # the composer says it with its line number
    except yaml.YAMLError:  # pragma: no cover - every YAML error we know is marked
        return


def load_yaml(text: str, file: str, line_offset: int = 0, shipped: bool = False) -> Located:
    """Parse text; raise DataError (one line, with the line number) on bad YAML, on nesting
    deeper than MAX_DEPTH and on aliases that expand past MAX_ALIAS_NODES. `shipped`: data that
    comes with guardtui (the taxonomy, the catalogs), whose shape is known: not checked (the
    check walks every event in Python, a third of the taxonomy's load)."""
    if not shipped:
        check_shape(text, file, line_offset)
    try:
        loader = _Loader(text)
        try:  # one parse: the nodes give the line numbers, the same nodes give the data
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark else None
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        raise DataError(file, line, "", f"invalid YAML: {problem}") from None
    except yaml.YAMLError as exc:  # pragma: no cover - every YAML error we know is marked
        raise DataError(file, None, "", f"invalid YAML: {exc}") from None
    except RecursionError:  # pragma: no cover - check_shape keeps the depth far below the limit
        raise DataError(file, None, "", f"nested deeper than {MAX_DEPTH} levels") from None
    lines: dict[tuple, int] = {}
    if node is not None:
        _index(node, (), lines)
    return Located(file, data, lines, line_offset)


def _index(node: yaml.Node, path: tuple, lines: dict[tuple, int]) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            lines[path + (key,)] = key_node.start_mark.line + 1
            _index(value_node, path + (key,), lines)
            lines[path + (key,)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _index(item, path + (i,), lines)


# -- schema ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Field:
    kind: type | tuple[type, ...]
    required: bool = False
    choices: tuple | None = None
    check: Callable[[Any], str | None] | None = None  # returns an error message or None
    items: "Schema | type | tuple[type, ...] | None" = None  # for lists
    values: "Schema | type | tuple[type, ...] | None" = None  # for free-form mappings: each value
    fields: "Schema | None" = None  # for mappings with known keys


Schema = Mapping[str, Field]

_TYPE_NAMES = {str: "a string", int: "a number", float: "a number", bool: "true or false",
               list: "a list", dict: "a mapping", type(None): "empty"}


def _type_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(_TYPE_NAMES.get(k, k.__name__) for k in kinds)


def _is(value: Any, kind: type | tuple[type, ...]) -> bool:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        return False
    return isinstance(value, kinds)


def check(doc: Located, schema: Schema, value: Any = None, path: tuple = ()) -> None:
    """Raise DataError for the first problem: unknown key, missing key, wrong type, bad choice."""
    value = doc.data if value is None and path == () else value
    if not isinstance(value, dict):
        raise doc.error(path, f"must be a mapping, not {_type_name(type(value))}")
    for key in value:
        if key not in schema:
            known = ", ".join(sorted(schema))
            raise doc.error(path + (key,), f"unknown key (known keys: {known})")
    for key, spec in schema.items():
        if key not in value or value[key] is None and not spec.required:
            if spec.required:
                raise doc.error(path, f"missing required key '{key}'")
            continue
        check_value(doc, spec, value[key], path + (key,))


def check_value(doc: Located, spec: Field, item: Any, path: tuple) -> None:
    if not _is(item, spec.kind):
        raise doc.error(path, f"must be {_type_name(spec.kind)}, not {_type_name(type(item))} ({item!r})")
    if spec.choices is not None and item not in spec.choices:
        raise doc.error(path, f"{item!r} is not one of {', '.join(map(str, spec.choices))}")
    if spec.check is not None:
        problem = spec.check(item)
        if problem:
            raise doc.error(path, problem)
    if isinstance(item, list) and spec.items is not None:
        for i, element in enumerate(item):
            _check_nested(doc, spec.items, element, path + (i,))
    if isinstance(item, dict) and spec.fields is not None:
        check(doc, spec.fields, item, path)
    if isinstance(item, dict) and spec.values is not None:
        for key, element in item.items():
            _check_nested(doc, spec.values, element, path + (key,))


def _check_nested(doc: Located, spec: Any, element: Any, path: tuple) -> None:
    if isinstance(spec, Mapping):
        check(doc, spec, element, path)
    elif isinstance(spec, Field):
        check_value(doc, spec, element, path)
    elif not _is(element, spec):
        raise doc.error(path, f"must be {_type_name(spec)}, not {_type_name(type(element))} ({element!r})")


def str_or_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]
