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
