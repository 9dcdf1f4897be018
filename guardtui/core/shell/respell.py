"""Bash syntax tree-sitter-bash does not know, respelled at the same length before the walk.

- `coproc [NAME] CMD`: a keyword that runs CMD in the background (tree-sitter reads `coproc` as a
  command name and CMD as its arguments). The keyword (and NAME) become blanks, so CMD is walked
  as the command it is; NAME_PID holds the job's pid (`kill "$NAME_PID"` stops a job of its own).
- `{name}>file`, `{fd}<&-`: a redirect that opens a new descriptor and stores its number in `name`
  (tree-sitter reads `{name}` as an argument, `exec {trace}>x` as running `{trace}`). The word becomes
  blanks and a descriptor digit, a redirect as bash reads it.

- `rm${IFS}-f${IFS}x`: an unquoted $IFS, never assigned in the script, splits the word where it stands
  (its default value is blanks): it becomes blanks, so the words are walked as bash splits them.

Same length: every span, line and byte offset of the walk still points at the text the agent sent.
"""
from __future__ import annotations

import re

_NAMED_FD = re.compile(rb"\{[A-Za-z_][A-Za-z0-9_]*\}$")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_COMPOUND_WORDS = frozenset({"{", "while", "until", "for", "if", "case", "select", "[[", "(("})
_COMPOUND_NODES = frozenset({"subshell", "compound_statement", "while_statement", "for_statement", "if_statement",
                             "case_statement", "c_style_for_statement", "test_command", "arithmetic_expansion"})
NAMED_FD_NUMBER = "10"  # bash gives a named descriptor the first free number from 10


def wanted(source: bytes) -> bool:
    """Cheap test first: most scripts have neither."""
    return b"coproc" in source or (b"}>" in source or b"}<" in source) or _splits_on_ifs(source)


def _splits_on_ifs(source: bytes) -> bool:
    return b"IFS" in source and not re.search(rb"\bIFS\s*[+]?=|\bread\b|\bIFS\b[^$}]", source.replace(b"${IFS}", b"")
                                               .replace(b"$IFS", b""))


def respell(source: bytes, root) -> tuple[bytes, dict[str, str]]:
    """The source with coproc keywords and named descriptors respelled; the variables they set
    (name -> "$!" for a coprocess pid, name -> a number for a named descriptor)."""
    edits: list[tuple[int, int, bytes]] = []
    variables: dict[str, str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        kind = node.type
        if kind == "command":
            _coproc(node, source, edits, variables)
        elif kind in ("simple_expansion", "expansion") and source[node.start_byte:node.end_byte] in (b"$IFS", b"${IFS}") \
                and node.parent is not None and node.parent.type in ("concatenation", "command") and \
                _splits_on_ifs(source):
            edits.append((node.start_byte, node.end_byte, b" " * (node.end_byte - node.start_byte)))
            continue
        elif kind in ("word", "concatenation") and node.end_byte < len(source) and \
                source[node.end_byte:node.end_byte + 1] in (b"<", b">") and \
                _NAMED_FD.match(source[node.start_byte:node.end_byte]):
            width = node.end_byte - node.start_byte
            edits.append((node.start_byte, node.end_byte, b" " * (width - 1) + b"9"))
            variables[source[node.start_byte + 1:node.end_byte - 1].decode()] = NAMED_FD_NUMBER
            continue
        stack.extend(node.children)
    if not edits:
        return source, variables
    out = bytearray(source)
    for start, end, text in edits:
        out[start:end] = text
    return bytes(out), variables


def _coproc(node, source: bytes, edits: list, variables: dict[str, str]) -> None:
    children = node.children
    if not children or children[0].type != "command_name" or \
            source[children[0].start_byte:children[0].end_byte] != b"coproc":
        return
    edits.append((children[0].start_byte, children[0].end_byte, b" " * 6))
    rest = children[1:]
    name = "COPROC"
    if len(rest) >= 2:
        first = rest[0]
        text = source[first.start_byte:first.end_byte].decode("utf-8", "replace")
        after = source[rest[1].start_byte:rest[1].end_byte].decode("utf-8", "replace")
        if _NAME.match(text) and (after in _COMPOUND_WORDS or rest[1].type in _COMPOUND_NODES):
            name = text  # `coproc NAME { …; }`: a name only before a compound command
            edits.append((first.start_byte, first.end_byte, b" " * (first.end_byte - first.start_byte)))
    variables[f"{name}_PID"] = "$!"
