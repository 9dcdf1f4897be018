"""Nushell (`nu -c '…'`, config.nu) read as the shell commands it amounts to, so the shell analysis judges it:
nushell's own commands that only read or reshape data become no-ops (`open x.csv | where n > 1 | length`),
`save FILE` writes FILE, `open FILE` reads it; anything else (rm, cp, mv, an external program, `^prog`) is
itself."""
from __future__ import annotations

import re
import shlex

from .statements import split_statements

# nushell commands that only read, filter, reshape or print data
_READS = frozenset({
    "ls", "length", "where", "select", "get", "first", "last", "sort-by", "sort", "group-by", "uniq", "uniq-by",
    "reverse", "skip", "take", "flatten", "transpose", "columns", "values", "describe", "to", "from", "str", "math",
    "into", "table", "grid", "print", "echo", "reject", "rename", "update", "insert", "upsert", "default", "append",
    "prepend", "merge", "wrap", "lines", "split", "parse", "find", "compact", "enumerate", "headers", "range",
    "reduce", "histogram", "is-empty", "any", "all", "count", "sum", "avg", "min", "max", "date", "sys", "ps",
    "pwd", "help", "version", "which", "du", "glob", "seq", "format", "fill", "detect", "collect", "chunks", "zip",
    "window", "query", "explore", "let", "mut", "const", "$env", "hide", "def", "export", "use", "source-env",
    "http", "url", "path", "hash", "encode", "decode", "char", "ansi", "error", "ignore", "tee", "sleep",
})


# `($nu.home-path | path join .claude settings.json)`: a path built from parts
_PATH_JOIN = re.compile(r"\(\s*(\$?[\w.~/-]+)\s*\|\s*path join((?:\s+[^\s()|]+)+)\s*\)")
_HOME = re.compile(r"\$nu\.home-path|\$env\.HOME\b|\$nu\.home_path")


def nushell_as_shell(code: str, depth: int = 0) -> str:
    """The shell script the nushell `code` amounts to, one command per line."""
    code = _HOME.sub("$HOME", code)
    code = _PATH_JOIN.sub(lambda m: "/".join([m.group(1)] + [p.strip("'\"") for p in m.group(2).split()]), code)
    lines: list[str] = []
    for statement in split_statements(code, quotes="'\"`", nests=True):
        try:
            words = shlex.split(statement)
        except ValueError:
            words = statement.split()
        if not words:
            continue
        block = re.search(r"\{\s*(?:\|[^|]*\|)?(.*)\}", statement, re.S)
        if block and depth < 4:  # `each { |f| ^rm $f }`, `if … { … }`: the closure's body runs too
            lines.append(nushell_as_shell(block.group(1), depth + 1))
            if words[0] in ("each", "par-each", "if", "else", "for", "loop", "while", "do", "try", "match", "def",
                            "export", "where", "filter", "reduce", "update", "insert", "upsert", "items"):
                continue
        head = words[0].lstrip("^")
        if head == "open" and len(words) > 1:
            lines.append("cat " + " ".join(shlex.quote(w) for w in words[1:] if not w.startswith("-")))
        elif head == "save" and len(words) > 1:
            target = next((w for w in words[1:] if not w.startswith("-")), "")
            lines.append(f"tee {shlex.quote(target)} >/dev/null" if target else ":")
        elif head in _READS and not words[0].startswith("^") or head.startswith("$"):
            lines.append(":")
        else:
            lines.append(" ".join([head] + words[1:]) if words[0].startswith("^") else statement)
    return "\n".join(lines)

