"""Statements of another shell's one-liner (PowerShell, nushell) split where that shell splits them: on `;`,
new lines and `|`, never inside quotes (and, for nushell, inside brackets); comments dropped."""
from __future__ import annotations


def split_statements(code: str, quotes: str = "'\"", separators: str = ";\n|", nests: bool = False) -> list[str]:
    """`separators` split outside quotes; with `nests`, not inside {} [] () either."""
    out, current, quote, depth = [], [], "", 0
    for ch in code:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
            continue
        if ch in quotes:
            quote = ch
        elif nests and ch in "{[(":
            depth += 1
        elif nests and ch in "}])":
            depth = max(0, depth - 1)
        if ch in separators and not depth and not quote:
            out.append("".join(current))
            current = []
        else:
            current.append(ch)
    out.append("".join(current))
    return [s.strip() for s in out if s.strip() and not s.strip().startswith("#")]


def top_level_commas(text: str) -> list[str]:
    """A call's argument text (or a Lua table's, a vimscript list's) split at the commas outside quotes and
    brackets; a quote escaped with a backslash does not end its string."""
    out, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote and text[i - 1] != "\\" else quote
        elif c in "\"'":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i])
            start = i + 1
    return out + [text[start:]]

