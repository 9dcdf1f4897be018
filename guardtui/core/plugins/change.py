"""A project plugin file before and after a change: does the change loosen the project's rules?

A project plugin is written by the agent it guards, so it may only tighten until the person trusts
it. A change that adds or keeps only deny, ask and flag rules asks the person (they see it); one
that adds an allow rule, or takes away or weakens a deny or ask rule (`verdict: deny` turned into
`flag`, a pattern narrowed, the plugin's `tool:` changed), loosens the guard and denies. A new text
that does not load cannot be checked (it denies, saying why, so the agent can fix it); an old text
that did not load had no rules to take away.

    loosened(old_text, new_text, "/p/.guardtui/guards/x.yaml")  -> "" or what it loosens
"""
from __future__ import annotations

from ..model import Verdict
from ..yamlfile import DataError
from .model import Pattern, Plugin
from .parse import parse_plugin

_STRENGTH = {Verdict.ALLOW: 0, Verdict.FLAG: 1, Verdict.ASK: 2, Verdict.DENY: 3}


def _plugin(text: str | None, file: str) -> Plugin | None:
    if text is None:
        return None
    try:
        return parse_plugin(text.encode("utf-8", "surrogateescape"), file, "project", trusted=False)
    except DataError:
        return None


def _problem(text: str, file: str) -> str:
    try:
        parse_plugin(text.encode("utf-8", "surrogateescape"), file, "project", trusted=False)
    except DataError as exc:
        return str(exc)
    return ""


def _key(plugin: Plugin, p: Pattern) -> tuple:
    return (plugin.tools, p.match, p.file_match, p.path_match, p.arg_match)


def loosened(old_text: str | None, new_text: str, file: str) -> str:
    """What the new text of a project plugin file loosens ("" when it only adds or tightens)."""
    new = _plugin(new_text, file)
    if new is None:
        return f"it does not load as a plugin ({_problem(new_text, file)}), so what it allows cannot be checked"
    old = _plugin(old_text, file)
    added = [p for p in new.declared if p.verdict is Verdict.ALLOW and
             (old is None or all(_key(old, q) != _key(new, p) or q.verdict is not Verdict.ALLOW for q in old.declared))]
    if added:
        return f"it adds an allow rule ({added[0].describe()}), which loosens the project's rules"
    if old is None:
        return ""
    kept = {}
    for p in new.declared:
        k = _key(new, p)
        kept[k] = max(kept.get(k, -1), _STRENGTH[p.verdict])
    for q in old.declared:
        if q.verdict in (Verdict.DENY, Verdict.ASK) and kept.get(_key(old, q), -1) < _STRENGTH[q.verdict]:
            return f"it takes away or weakens the rule `{q.describe()}`, which loosens the project's rules"
    return ""


__all__ = ["loosened"]
