"""Code of any language scanned without a parser (data/codescan.yaml): the spellings of the home directory,
the calls that delete, write, connect out or run programs, in many languages. cmd_code uses them for what
a program in a language guardtui cannot parse (Tcl, Scheme, Raku, Nim, Octave, Dart …) does to the guard:
path fragments named in pieces, a connection handed to a shell, an opaque language's unplaceable deletes."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ..yamlfile import Field, check, load_yaml

_RX_LIST = Field(list, items=str, check=lambda v: next((f"bad regex {r!r}" for r in v if not _compiles(r)), None))
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "home": _RX_LIST, "deletes": _RX_LIST,
          "writes": _RX_LIST, "sockets": _RX_LIST, "execs": _RX_LIST, "shell_calls": Field(dict),
          "opaque": Field(list, items=str)}
# a run of bare words that spell a dotted home path in pieces: `.config guardtui guards` (Tcl's file join)
_BARE_RUN = re.compile(r"(?<![\w/.\"'$-])(\.[A-Za-z][\w.-]*)((?:[ \t]+[A-Za-z0-9_][\w.-]*){0,4})")


def _compiles(rx: str) -> bool:
    try:
        re.compile(rx)
    except re.error:
        return False
    return True


@dataclass(frozen=True)
class CodeScan:
    home: re.Pattern
    deletes: re.Pattern
    writes: re.Pattern
    sockets: re.Pattern
    execs: re.Pattern
    shell_calls: dict[str, tuple[str, ...]]
    opaque: frozenset[str]


@lru_cache(maxsize=1)
def code_scan() -> CodeScan:
    text = resources.files("guardtui.core.data").joinpath("codescan.yaml").read_text(encoding="utf-8")
    return parse_codescan(text, "guardtui/core/data/codescan.yaml")


def parse_codescan(text: str, file: str = "codescan.yaml") -> CodeScan:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    data = doc.data

    def joined(key: str) -> re.Pattern:
        return re.compile("|".join(f"(?:{r})" for r in data.get(key) or ()) or r"(?!)")

    calls = data.get("shell_calls") or {}
    for language, listed in calls.items():
        if not isinstance(listed, list) or not all(isinstance(r, str) and _compiles(r) for r in listed):
            raise doc.error(("shell_calls", language), "must be a list of regular expressions")
    return CodeScan(joined("home"), joined("deletes"), joined("writes"), joined("sockets"), joined("execs"),
                    {str(k): tuple(v) for k, v in calls.items()}, frozenset(data.get("opaque") or ()))


def bare_path_pieces(code: str) -> list[str]:
    """Dotted home paths spelled as bare words (`file join $env(HOME) .config guardtui guards`): each run
    joined with slashes, rooted at the home (`/.config/guardtui/guards`, which the caller places there when
    the code names the home)."""
    out = []
    for m in _BARE_RUN.finditer(code):
        parts = [m.group(1)] + m.group(2).split()
        out.append("/" + "/".join(parts))
    return out[:32]


def reverse_shell(code: str) -> str | None:
    """A connection opened from code and a program or shell run in the same code: what the connection sends is
    run here (Tcl's socket + exec, R's socketConnection + system). The socket call's text, or None."""
    scan = code_scan()
    sock = scan.sockets.search(code)
    if sock is None or not re.search(r"(?:\d{1,3}\.){3}\d{1,3}|['\"][\w-]+(?:\.[\w-]+)+['\"]|[\w-]+\.[a-z]{2,}\b",
                                      code):
        return None
    return sock.group(0) if scan.execs.search(code) else None
