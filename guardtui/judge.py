"""From a hook payload to the agent's answer: the parts the broker and the offline command hook
share. No aiohttp here.

    read_call      payload bytes -> ToolCall, or the answer when it cannot be judged
    fail_safe      the agent's answer when it cannot be judged: ask, or deny, never allow
    answer_offline the whole path with no console: engine verdict, asks answered by policy
    check_call, check_report, check_text   `guardtui check`: the call it judges, its report and what it
                   prints (here, so that check and the standby that judges for it say the same)
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from .adapters import why_not_handed_back
from .adapters.base import PayloadError, UnsupportedEvent, guess_event
from .adapters.tools import normalise_tool
from .core.engine import Engine
from .core.model import Decision, DecidedBy, ToolCall, Verdict

MAX_BODY = 8 * 1024 * 1024  # a Write of a big file is legal; more than this is not judged (fail-safe)


@dataclass(frozen=True)
class HookAnswer:
    """What the hook prints (or the HTTP hook returns): the agent's JSON, or nothing."""

    body: dict | None
    error: str = ""  # one line for stderr (the command hook) / the X-Guardtui-Error header
    verdict: Verdict | None = None  # how the call ended, for the console and the tests

    def encode(self) -> bytes:
        return b"" if self.body is None else json.dumps(self.body, ensure_ascii=False).encode("utf-8")


def read_call(adapter: ModuleType, raw: bytes, hint: str | None) -> ToolCall | HookAnswer:
    """The call in the payload, or, when it cannot be judged, the answer to give instead."""
    if len(raw) > MAX_BODY:
        return fail_safe(adapter, b"", hint, f"the payload is larger than {MAX_BODY} bytes")
    try:
        return adapter.parse(_load(raw), hint)
    except UnsupportedEvent as exc:  # an event guardtui does not decide: no answer
        return HookAnswer(None, one_line(str(exc)))
    except PayloadError as exc:
        return fail_safe(adapter, raw, hint, str(exc))


def fail_safe(adapter: ModuleType, raw: bytes, hint: str | None, error: str) -> HookAnswer:
    try:
        payload = _load(raw)
    except PayloadError:
        payload = None
    event = guess_event(payload, hint, adapter.DEFAULT_EVENT)
    return HookAnswer(adapter.fail_safe(event, error), one_line(error), Verdict.ASK)


def rule_reason(decision: Decision) -> str:
    return f"{decision.reason} [{decision.rule}]" if decision.rule else decision.reason


def answer_offline(adapter: ModuleType, raw: bytes, hint: str | None, policy: str,
                   make_engine: Callable[[str], Engine]) -> HookAnswer:
    """No console is running: judge with the engine here; an ask is handed back to the agent's own
    prompt (`policy` "ask") or denied ("deny"). Recorded in the audit log like any decision."""
    begun = time.monotonic()
    call = read_call(adapter, raw, hint)
    if isinstance(call, HookAnswer):
        return call
    reading = time.monotonic() - begun  # the judging budget counts it: reading a large payload takes a while
    start = time.perf_counter()
    try:
        engine = make_engine(call.cwd)
        decision = engine.evaluate(call, budget_s=engine.budget_s - reading)
    except Exception as exc:  # the guard cannot judge: fail safe, never allow
        return fail_safe(adapter, raw, hint, f"the engine failed: {type(exc).__name__}: {exc}")
    if decision.verdict in (Verdict.ALLOW, Verdict.DENY):
        reason = decision.reason if decision.verdict is Verdict.ALLOW else rule_reason(decision)
        return HookAnswer(adapter.render(call, decision.verdict, reason), verdict=decision.verdict)
    refusal = why_not_handed_back(call) if policy != "deny" else ""
    verdict = Verdict.DENY if policy == "deny" or refusal else Verdict.ASK
    if refusal:
        why = f"no guardtui console is running, and {refusal}: denied by policy"
    elif verdict is Verdict.DENY:
        why = "no guardtui console is running: denied by policy (--offline deny)"
    else:
        why = "no guardtui console is running: handed back to the agent's own prompt"
    final = decision.with_(verdict=verdict, reason=f"{why} — {decision.reason}")
    latency_ms = (time.perf_counter() - start) * 1000
    if verdict is Verdict.DENY:
        engine.settle(call, final, DecidedBy.POLICY, latency_ms)
    elif engine.audit is not None:
        engine.audit.record(call, final, DecidedBy.POLICY, latency_ms)
    return HookAnswer(adapter.render(call, verdict, f"{why} — {rule_reason(decision)}"), verdict=verdict)


def check_call(tool: str, tool_input: Any, cwd: Any) -> ToolCall:
    """The call `guardtui check` judges: a tool (any agent's spelling) with its input, made in `cwd`."""
    if not isinstance(tool, str) or not tool:
        raise ValueError("the tool must be a non-empty string")
    if not isinstance(tool_input, dict):
        raise ValueError("the input must be a JSON object")
    if not isinstance(cwd, str) or not cwd.startswith("/"):
        raise ValueError("the working directory must be an absolute path")
    return ToolCall(normalise_tool(tool), tool_input, cwd, agent="cli")


def check_report(decision: Decision) -> dict[str, Any]:
    """What `guardtui check` says of a decision: its JSON (`--json`), plus the judged parts ("segments")
    that the human-readable form lists."""
    out = decision.to_dict()
    if decision.verdict is Verdict.LLM:  # no LLM here: what the person would see is an ask
        out["verdict"] = "ask"
    if decision.metadata.get("escalation") == "llm":
        out["escalation"] = "llm"
    segment = decision.metadata.get("segment")
    if segment:
        out["segment"] = segment
    segments = decision.metadata.get("segments")
    if segments:
        out["segments"] = [{k: s.get(k) for k in ("segment", "via", "verdict", "reason")} for s in segments]
    return out


CHECK_EXIT = {"allow": 0, "ask": 3, "deny": 4}
_MARK = {"deny": "✗", "ask": "?", "llm": "?", "allow": "✓"}


def check_text(report: dict[str, Any], as_json: bool) -> tuple[str, int]:
    """What `guardtui check` prints for a report (its JSON, or the human-readable form), and its exit status."""
    status = CHECK_EXIT.get(report["verdict"], 3)
    if as_json:
        return json.dumps({k: v for k, v in report.items() if k != "segments"}) + "\n", status
    tail = " (unrecognised: would go to the LLM guard)" if report.get("escalation") == "llm" else ""
    lines = [f"{report['verdict'].upper()}  {report['blast_radius']}  {report['category']}  [{report['rule']}]{tail}",
             f"  {report['reason']}"]
    for seg in report.get("segments") or []:
        via = f"  (via {seg['via']})" if seg.get("via") else ""
        lines.append(f"    {_MARK.get(seg['verdict'], '?')} {seg['segment']}{via}: {seg['reason']}")
    return "\n".join(lines) + "\n", status


def one_line(text: str, width: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _load(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PayloadError("the hook payload is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        if not raw.strip():
            raise PayloadError("the hook payload is empty (expected a JSON object)") from None
        raise PayloadError(f"the hook payload is not valid JSON: {exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}") from None
