"""guardtui check: judge a shell command or tool call without running it.

Exit status: 0 allow, 3 ask, 4 deny (2 for a usage error), so scripts can branch on it.
"""
from __future__ import annotations

import json
import os
import shlex
import sys
from typing import IO, Any

from ..adapters.tools import normalise_tool
from ..core.engine import Engine
from ..core.model import Decision, DecidedBy, ToolCall, Verdict
from ..wiring import cli_engine

EXIT = {Verdict.ALLOW: 0, Verdict.ASK: 3, Verdict.DENY: 4}


def run(args, _command: str) -> int:
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    words = list(args.command_words)
    if words and words[0] == "--":
        words = words[1:]
    modes = sum(bool(x) for x in (args.batch, args.tool, words))
    if modes != 1:
        print("guardtui check: give a command after --, or --tool NAME --input JSON, or --batch FILE",
              file=sys.stderr)
        return 2
    engine = cli_engine(cwd)
    if args.batch:
        return batch(engine, args.batch, cwd)
    if args.tool:
        try:
            tool_input = json.loads(args.input or "{}")
        except json.JSONDecodeError as exc:
            print(f"guardtui check: --input: invalid JSON: {exc.msg} (column {exc.colno})", file=sys.stderr)
            return 2
        if not isinstance(tool_input, dict):
            print("guardtui check: --input must be a JSON object", file=sys.stderr)
            return 2
        call = ToolCall(normalise_tool(args.tool), tool_input, cwd, agent="cli")
    else:
        command = words[0] if len(words) == 1 else shlex.join(words)
        call = ToolCall("Bash", {"command": command}, cwd, agent="cli")
    decision = engine.evaluate(call, record=False)
    if args.json:
        print(json.dumps(output(decision, call)))
    else:
        print_human(decision, call, sys.stdout)
    return EXIT.get(decision.verdict, 3)


def output(decision: Decision, call: ToolCall | None = None) -> dict[str, Any]:
    out = decision.to_dict()
    if decision.verdict is Verdict.LLM:  # no LLM here: what the person would see is an ask
        out["verdict"] = "ask"
    if decision.metadata.get("escalation") == "llm":
        out["escalation"] = "llm"
    segment = decision.metadata.get("segment")
    if segment:
        out["segment"] = segment
    return out


def batch(engine: Engine, source: str, cwd: str) -> int:
    """One JSON call per line, judged in order. Lines with the same `session_id` share a session, as
    the broker keeps them: what an earlier line left (a destroy plan) or had denied counts for the
    later ones. An `answer` ("allow"/"deny") on a line that asks stands for the person's answer."""
    stream: IO[str]
    try:
        stream = sys.stdin if source == "-" else open(source, encoding="utf-8")
    except OSError as exc:
        print(f"guardtui check: {source}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                call, answer = _call_from_line(line, number, cwd)
            except ValueError as exc:
                result: dict[str, Any] = {"error": str(exc)}
            else:
                decision = engine.evaluate(call, record=False)
                result = output(decision)
                if answer is not None and decision.verdict in (Verdict.ASK, Verdict.LLM):
                    engine.remember(call, decision.with_(verdict=answer, reason=f"answered {answer.value} — "
                                                                                  f"{decision.reason}"),
                                    DecidedBy.PERSON)
                else:
                    engine.remember(call, decision)
            sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


def _call_from_line(line: str, number: int, cwd: str) -> tuple[ToolCall, Verdict | None]:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(data, dict):
        raise ValueError(f"line {number}: expected a JSON object, got {type(data).__name__}")
    line_cwd = data.get("cwd", cwd)
    if not isinstance(line_cwd, str) or not line_cwd:
        raise ValueError(f'line {number}: "cwd" must be a non-empty string')
    session = data.get("session_id", f"batch-{number}")  # no session_id: the line stands alone
    if not isinstance(session, str) or not session:
        raise ValueError(f'line {number}: "session_id" must be a non-empty string')
    answer = data.get("answer")
    if answer is not None and answer not in ("allow", "deny"):
        raise ValueError(f'line {number}: "answer" must be "allow" or "deny"')
    verdict = Verdict(answer) if answer else None
    if "command" in data and "tool_name" not in data:
        if not isinstance(data["command"], str):
            raise ValueError(f'line {number}: "command" must be a string')
        return ToolCall("Bash", {"command": data["command"]}, line_cwd, agent="cli", session=session), verdict
    if "tool_name" not in data:
        raise ValueError(f'line {number}: needs "command" or "tool_name"')
    tool, tool_input = data["tool_name"], data.get("tool_input", {})
    if not isinstance(tool, str) or not tool:
        raise ValueError(f'line {number}: "tool_name" must be a non-empty string')
    if not isinstance(tool_input, dict):
        raise ValueError(f'line {number}: "tool_input" must be a JSON object')
    return ToolCall(normalise_tool(tool), tool_input, line_cwd, agent="cli", session=session), verdict


_MARK = {"deny": "✗", "ask": "?", "llm": "?", "allow": "✓"}


def print_human(decision: Decision, call: ToolCall, out: IO[str]) -> None:
    verdict = "ask" if decision.verdict is Verdict.LLM else decision.verdict.value
    tail = " (unrecognised: would go to the LLM guard)" if decision.metadata.get("escalation") == "llm" else ""
    out.write(f"{verdict.upper()}  {decision.blast_radius.value}  {decision.category}  [{decision.rule}]{tail}\n")
    out.write(f"  {decision.reason}\n")
    for seg in decision.metadata.get("segments") or []:
        via = f"  (via {seg['via']})" if seg.get("via") else ""
        out.write(f"    {_MARK.get(seg['verdict'], '?')} {seg['segment']}{via}: {seg['reason']}\n")
