"""Literal text in a variable that bash evaluates again: the commands it runs.

`x='$(rm -rf ~)'` stores text; nothing runs. It runs when bash evaluates the value once more:
- prompt expansion, `${x@P}`, performs the command substitutions in any value;
- a value shaped as an array element, `n='a[$(rm -f f)]'`, is evaluated wherever bash reads the
  variable as a number or a name: arithmetic (`$((n))`, `((n))`, `let`, `[[ $n -eq 1 ]]`,
  `declare -i`, `${arr[n]}`, `arr[n]=`), and builtins handed a name (`printf -v "$n"`, `test -v`,
  `unset`, `read`, `declare -n`, `${!n}`) all expand the subscript, running its `$(…)`.
Those contexts are many; a value of that shape has no other use, so any later mention of the
variable is taken for an evaluation (the commands inside are judged as if run, as `eval` is).
"""
from __future__ import annotations

import re

_SUBSCRIPT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[[^\]]*(?:\$\(|`)", re.S)
MAX_SUBSTITUTIONS = 8


def command_substitutions(text: str) -> list[str]:
    """The scripts of the `$(…)` and `…` in text (outermost only: the inner ones are theirs)."""
    found: list[str] = []
    i = 0
    n = len(text)
    while i < n and len(found) < MAX_SUBSTITUTIONS:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "`":
            j = i + 1
            while j < n and text[j] != "`":
                j += 2 if text[j] == "\\" else 1
            found.append(text[i + 1:j].replace("\\`", "`"))
            i = j + 1
            continue
        if text.startswith("$(", i) and not text.startswith("$((", i):
            end = _closing(text, i + 2)
            found.append(text[i + 2:end])
            i = end + 1
            continue
        i += 1
    return [s for s in found if s.strip()]


def _closing(text: str, i: int) -> int:
    """The index of the `)` closing a `$(` whose body starts at i (the end of text when unclosed)."""
    depth = 1
    n = len(text)
    while i < n:
        ch = text[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "'":
            close = text.find("'", i + 1)
            i = n if close < 0 else close + 1
            continue
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return n


def evaluated_again(name: str, value: str, elsewhere: str) -> list[str]:
    """The scripts a variable's value runs when `elsewhere` (the script around its assignment) uses it."""
    if "$(" not in value and "`" not in value:
        return []
    word = r"(?<![\w$])\$?\{?!?" + re.escape(name) + r"(?!\w)"
    if _SUBSCRIPT.search(value) and re.search(word, elsewhere):
        return command_substitutions(value)
    if re.search(r"\$\{!?" + re.escape(name) + r"(?:\[[^\]]*\])?@P\}", elsewhere):
        return command_substitutions(value)
    return []
