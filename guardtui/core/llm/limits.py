"""The limits no model answer can cross, checked after the model has spoken.

- It only reviews calls the rules escalated (`llm`): a rule's allow, deny or ask, a session
  approval, a plugin's verdict are never its to change.
- Its DENY and ASK stand (they only tighten). Its ALLOW stands only when none of these holds:
    the call is critical;
    the call names a protected target (the guard's own configuration, and whatever else the
      engine protects) — by absolute path, `~/…`, `$HOME/…`, or the target's own name;
    the model saw only part of the call (it was cut to fit);
    the call carries the verdict word itself (`ALLOW` standing alone), i.e. it speaks to the
      reviewer: a prompt injection until a person says otherwise.
  Then the call asks, saying which limit held.
"""
from __future__ import annotations

import os
import posixpath
import re
from typing import Sequence

from ..config import Locations
from ..model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from ..plugins.loader import plugin_dirs
from ..rules.base import resolve_path
from .skills import skill_dirs

_VERDICT_WORD = re.compile(r"(?<![A-Za-z0-9_])ALLOW(?![A-Za-z0-9_])")


def guard_configuration(locations: Locations) -> list[str]:
    """What configures the guard itself, beside its config dir: the user's plugin and guard-skill
    directories (~/.agents, ~/.claude). A call naming them is never the model's to allow."""
    dirs = [d.path for d in plugin_dirs(locations, None)] + [d for d, _ in skill_dirs(locations, None)]
    return [str(d) for d in dirs if not str(d).startswith(str(locations.config_dir))]


def may_review(decision: Decision) -> bool:
    """A decision the guard agent may judge: the engine's escalation of a call no rule classified."""
    return (decision.verdict is Verdict.ASK and decision.metadata.get("escalation") == "llm"
            and decision.metadata.get("decided_by", DecidedBy.RULE.value) == DecidedBy.RULE.value
            and decision.blast_radius is not BlastRadius.CRITICAL)


def why_not_allowed(call: ToolCall, escalated: Decision, text: str, *, truncated: bool, home: str,
                    protected: Sequence[str]) -> str:
    """Why the model's ALLOW cannot stand for this call ("" when it can)."""
    if not may_review(escalated):
        return "the guard agent only judges calls no rule could classify"
    if escalated.blast_radius is BlastRadius.CRITICAL:
        return "a critical call is never allowed by the guard agent"
    target = protected_target(call, text, home, protected)
    if target:
        return f"the call names a protected target ({target}); only a person may allow it"
    if truncated:
        return "the guard agent saw only part of the call (it is too long)"
    if _VERDICT_WORD.search(text):
        return "the call contains the reviewer's verdict word ALLOW (it addresses the reviewer)"
    return ""


def protected_target(call: ToolCall, text: str, home: str, protected: Sequence[str]) -> str:
    """The protected path the call names or works in, or ""."""
    file = call.file_path
    places = [resolve_path(file, call.cwd, home)] if file else []
    if call.cwd:
        places.append(resolve_path(call.cwd, "/", home))  # relative paths in the call start there
    for target in protected:
        target = posixpath.normpath(target)
        if any(place == target or place.startswith(target.rstrip("/") + "/") for place in places):
            return target
        for spelling in _spellings(target, home):
            if spelling and spelling in text:
                return target
        name = posixpath.basename(target)
        if len(name) >= 4 and re.search(rf"(?<![\w.-]){re.escape(name)}(?![\w-])", text):
            return target
    return ""


def _spellings(target: str, home: str) -> list[str]:
    out = [target]
    home = home.rstrip("/")
    if home and (target == home or target.startswith(home + "/")):
        rest = target[len(home):]
        out += [f"~{rest}", f"$HOME{rest}", f"${{HOME}}{rest}"]
    real = os.path.realpath(target)
    if real != target:
        out.append(real)
    return out
