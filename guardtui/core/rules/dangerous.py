"""Dangerous shell commands: the shell analysis's deny and ask findings."""
from __future__ import annotations

from ..model import Decision, ToolCall, Verdict
from .base import EvalContext


def shell_decision(rule_id: str, call: ToolCall, ctx: EvalContext) -> Decision | None:
    analysis = ctx.shell(call)
    finding = analysis.decisive
    return Decision(finding.verdict, finding.reason, f"{rule_id}/{finding.rule}" if finding.rule else rule_id,
                    finding.blast_radius, finding.category,
                    {"segment": finding.segment, "via": finding.via, "span": finding.span, "origin": finding.origin,
                     "segments": segments_metadata(analysis)})


def segments_metadata(analysis) -> list[dict]:
    """Each judged part of the command, for the console's per-segment view."""
    out = []
    for f in analysis.findings:
        out.append({"segment": f.segment, "via": f.via, "verdict": f.verdict.value,
                    "blast_radius": f.blast_radius.value, "category": f.category, "reason": f.reason,
                    "rule": f.rule, "span": list(f.span) if f.span else None, "origin": f.origin})
    return out


class DangerousShellRule:
    """Denies critical commands and asks about risky ones, per simple command (worst wins)."""

    id = "dangerous-shell"

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision | None:
        if not call.is_shell or not call.command.strip():
            return None
        if ctx.shell(call).decisive.verdict not in (Verdict.DENY, Verdict.ASK):
            return None  # (the default rule says what the rest is)
        return shell_decision(self.id, call, ctx)
