"""sf apex run --file F (anonymous Apex): what its DML deletes, read from the file. Every row of an object
deleted (a variable filled by a SOQL query with no WHERE, or such a query inline, then `delete` or
Database.delete) denies on a production org and asks elsewhere; anything else is the taxonomy's."""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, ask, deny
from .projectfiles import read_text
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_UNFILTERED = r"\[\s*SELECT\b(?:(?!\bWHERE\b|\bLIMIT\b)[^\]])*\bFROM\s+(?P<object>\w+)(?:(?!\bWHERE\b|\bLIMIT\b)[^\]])*\]"
_ASSIGNED = re.compile(r"(?is)\b(?P<var>\w+)\s*=\s*" + _UNFILTERED)
_INLINE = re.compile(r"(?is)\b(?:delete|Database\.delete\s*\()\s*" + _UNFILTERED)
_DELETE_VAR = re.compile(r"(?is)\b(?:delete\s+(?P<a>\w+)\s*;|Database\.delete\s*\(\s*(?P<b>\w+)\b)")
_PRODUCTION = re.compile(r"(?i)(^|[^a-z])(prod|production|live|prd)([^a-z]|$)")
_FILE_OPTIONS = ("--file", "-f")
_ORG_OPTIONS = ("--target-org", "-o", "--targetusername", "-u")


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    values = [w.value for w in inv.words]
    if [v for v in values if not v.startswith("-")][:2] != ["apex", "run"]:
        return []
    file = _option(values, _FILE_OPTIONS)
    if not file or DYN in file:
        return []
    text = read_text(posixpath.join(inv.scope.cwd or "/", file) if not file.startswith("/") else file)
    wiped = apex_wipe(text or "")
    if wiped is None:
        return []
    org = _option(values, _ORG_OPTIONS) or ""
    reason = f"{file} deletes every {wiped} record (a query with no WHERE, then delete)"
    if _PRODUCTION.search(org):
        return [deny(f"sf apex run on {org}: {reason}: the whole object's data, on production", "database",
                     "taxonomy:sf-apex-wipe")]
    return [ask(f"sf apex run: {reason}", "database", BlastRadius.HIGH, "taxonomy:sf-apex-wipe")]


def apex_wipe(text: str) -> str | None:
    """The object whose every record the Apex deletes, or None."""
    inline = _INLINE.search(text)
    if inline:
        return inline.group("object")
    unfiltered = {m.group("var"): m.group("object") for m in _ASSIGNED.finditer(text)}
    for m in _DELETE_VAR.finditer(text):
        name = m.group("a") or m.group("b")
        if name in unfiltered:
            return unfiltered[name]
    return None


def _option(values: list[str], names: tuple[str, ...]) -> str | None:
    for i, v in enumerate(values):
        flag, eq, attached = v.partition("=")
        if flag in names:
            return attached if eq else (values[i + 1] if i + 1 < len(values) else None)
    return None
