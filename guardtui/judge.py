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
import re
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from .adapters import why_not_handed_back
from .adapters.base import PayloadError, UnsupportedEvent, guess_event
from .adapters.tools import normalise_tool
from .core.engine import Engine
from .core.inputs import CUT, input_problem
from .core.model import Decision, DecidedBy, ToolCall, Verdict

MAX_BODY = 8 * 1024 * 1024  # a Write of a big file is legal; more than this is not judged (fail-safe)
MAX_DEPTH = 64  # JSON nesting; real payloads stay under 10 (an MCP tool's arguments included)
_ENCODER = json.JSONEncoder(ensure_ascii=False)  # json.dumps(…, ensure_ascii=False) without making one per answer


@dataclass(frozen=True)
class HookAnswer:
    """What the hook prints (or the HTTP hook returns): the agent's JSON, or nothing."""

    body: dict | None
    error: str = ""  # one line for stderr (the command hook) / the X-Guardtui-Error header
    verdict: Verdict | None = None  # how the call ended, for the console and the tests

    def encode(self) -> bytes:
        if self.body is None:
            return b""
        try:
            return _ENCODER.encode(self.body).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate (a file name from disk): escaped, still valid JSON
            return json.dumps(self.body).encode("ascii")


def read_call(adapter: ModuleType, raw: bytes, hint: str | None) -> ToolCall | HookAnswer:
    """The call in the payload, or, when it cannot be judged, the answer to give instead."""
    if len(raw) > MAX_BODY:
        return fail_safe(adapter, b"", hint, f"the payload is larger than {MAX_BODY} bytes")
    try:
        payload, cut = read_payload(raw)
        call = adapter.parse(payload, hint).with_cut(cut)
    except UnsupportedEvent as exc:  # an event guardtui does not decide: no answer
        return HookAnswer(None, one_line(str(exc)))
    except PayloadError as exc:
        return fail_safe(adapter, raw, hint, str(exc))
    except Exception as exc:  # a shape the adapter did not foresee: still never an allow
        return fail_safe(adapter, raw, hint, f"the hook payload cannot be read ({type(exc).__name__}: {exc})")
    problem = input_problem(call)
    if problem is not None:
        return fail_safe(adapter, raw, hint, problem)
    return call


def fail_safe(adapter: ModuleType, raw: bytes, hint: str | None, error: str) -> HookAnswer:
    try:
        payload = load_payload(raw)
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
    begun = time.thread_time()
    call = read_call(adapter, raw, hint)
    if isinstance(call, HookAnswer):
        return call
    reading = time.thread_time() - begun  # the judging budget counts it: reading a large payload takes a while
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
    via = "offline hook"
    if verdict is Verdict.DENY:
        engine.settle(call, final, DecidedBy.POLICY, latency_ms, via)
    else:
        engine.record(call, final, DecidedBy.POLICY, latency_ms, via)
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
    if isinstance(decision.metadata.get("llm"), dict):  # the guard agent's review (check --llm)
        out["llm"] = decision.metadata["llm"]
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
    review = report.get("llm")
    if isinstance(review, dict):
        tokens = review["prompt_tokens"] + review["completion_tokens"]
        tail = (f" (the guard agent, {review['model']}: {review['latency_ms'] / 1000:.1f} s, {review['turns']} "
                f"turn(s), {tokens:,} tokens{', cached' if review.get('cached') else ''})")
    elif report.get("escalation") == "llm":
        tail = " (unrecognised: the guard agent's to judge — guardtui check --llm)"
    else:
        tail = ""
    lines = [f"{report['verdict'].upper()}  {report['blast_radius']}  {report['category']}  [{report['rule']}]{tail}",
             f"  {report['reason']}"]
    for seg in report.get("segments") or []:
        via = f"  (via {seg['via']})" if seg.get("via") else ""
        lines.append(f"    {_MARK.get(seg['verdict'], '?')} {seg['segment']}{via}: {seg['reason']}")
    return "\n".join(lines) + "\n", status


def one_line(text: str, width: int = 300) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def load_payload(raw: bytes, what: str = "the hook payload") -> Any:
    """The payload's JSON, or PayloadError saying in one line why it cannot be read: not UTF-8,
    not JSON, larger than MAX_BODY, nested deeper than MAX_DEPTH, a lone surrogate in a string."""
    return read_payload(raw, what)[0]


def read_payload(raw: bytes, what: str = "the hook payload") -> tuple[Any, bool]:
    """load_payload's JSON, and whether a part nested too deep was cut (core.inputs.CUT)."""
    if len(raw) > MAX_BODY:
        raise PayloadError(f"{what} is larger than {MAX_BODY} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise PayloadError(f"{what} is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        if not raw.strip():
            raise PayloadError(f"{what} is empty (expected a JSON object)") from None
        raise PayloadError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column "
                           f"{exc.colno}") from None
    except RecursionError:
        raise PayloadError(f"{what} is nested deeper than {MAX_DEPTH} levels") from None
    except (ValueError, MemoryError) as exc:  # e.g. an integer with more digits than Python converts
        raise PayloadError(f"{what} cannot be read: {one_line(str(exc), 120)}") from None
    if not isinstance(data, (dict, list)):
        return data, False
    if _SURROGATE_ESCAPE.search(raw) is None and (raw.count(b"{") + raw.count(b"[") <= MAX_DEPTH or
                                                  _depth_within(data, MAX_DEPTH)):
        # no string can hold a lone surrogate, nothing to cut: no walk of every value (and with no more
        # brackets than levels allowed, in strings or not, no walk at all: each container opens with one)
        return data, False
    cut = _check_shape(data, what)
    if cut and not isinstance(data, dict):
        raise PayloadError(f"{what} is nested deeper than {MAX_DEPTH} levels")
    return data, cut


# a lone surrogate in a decoded string can only come from a \ud800-\udfff escape (UTF-8 text has none);
# an escaped backslash before "ud8…" matches too, and only costs the full walk
_SURROGATE_ESCAPE = re.compile(rb"\\[uU][dD][89a-fA-F]")


def _depth_within(data: Any, limit: int) -> bool:
    """Are the containers nested at most `limit` deep? A level at a time, containers only."""
    level, depth = [data], 1
    while level:
        if depth > limit:
            return False
        below: list = []
        for value in level:  # exact types: json.loads makes only dicts and lists (and twice as fast)
            items = value.values() if type(value) is dict else value
            below += [item for item in items if type(item) is dict or type(item) is list]
        level, depth = below, depth + 1
    return True


def _check_shape(data: Any, what: str) -> bool:
    """Depth and text, walked without recursion (the payload may be built to exhaust the stack). What
    lies deeper than MAX_DEPTH is cut (core.inputs.CUT stands in its place): the rest is still judged,
    and a call with a part cut is never allowed. True when something was cut."""
    cut = False
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                _check_text(key, what)
                if isinstance(item, (dict, list)) and depth + 1 > MAX_DEPTH:
                    value[key], cut = CUT, True
                else:
                    stack.append((item, depth + 1))
        elif isinstance(value, list):
            for i, item in enumerate(value):
                if isinstance(item, (dict, list)) and depth + 1 > MAX_DEPTH:
                    value[i], cut = CUT, True
                else:
                    stack.append((item, depth + 1))
        elif isinstance(value, str):
            _check_text(value, what)
    return cut


def _check_text(text: str, what: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise PayloadError(f"{what} holds a lone surrogate (\\ud800-\\udfff) in a string") from None
