"""guardtui check: judge a shell command or tool call without running it.

With --llm, a call the rules escalate goes to the guard agent configured in settings.yaml, as
in the console (its progress on stderr); without, it shows as the ask a person would get.

Exit status: 0 allow, 3 ask, 4 deny (2 for a usage error), so scripts can branch on it.
"""
from __future__ import annotations

import asyncio
import json
import os
import shlex
import sys
from typing import IO, Any

from ..adapters.base import PayloadError
from ..adapters.tools import normalise_tool
from ..core.config import Locations
from ..core.engine import Engine, GuardEvent
from ..core.inputs import input_problem
from ..core.llm import GuardReviewer, may_review
from ..core.model import Decision, DecidedBy, ToolCall, Verdict
from ..judge import load_payload
from ..wiring import cli_engine, llm_settings

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
    with Judge(engine) as judge:
        if getattr(args, "llm", False) and not judge.use_guard_agent(Locations.from_env()):
            return 2
        return _check(args, judge, words, cwd)


def _check(args, judge: "Judge", words: list[str], cwd: str) -> int:
    if args.batch:
        return batch(judge, args.batch, cwd)
    if args.tool:
        try:
            tool_input = load_payload((args.input or "{}").encode("utf-8", "surrogateescape"), "--input")
        except PayloadError as exc:
            print(f"guardtui check: {exc}", file=sys.stderr)
            return 2
        if not isinstance(tool_input, dict):
            print("guardtui check: --input must be a JSON object", file=sys.stderr)
            return 2
        call = ToolCall(normalise_tool(args.tool), tool_input, cwd, agent="cli")
        problem = input_problem(call)
        if problem is not None:
            print(f"guardtui check: --input: {problem}", file=sys.stderr)
            return 2
    else:
        command = words[0] if len(words) == 1 else shlex.join(words)
        call = ToolCall("Bash", {"command": command}, cwd, agent="cli")
    decision = judge(call)
    if args.json:
        print(json.dumps(output(decision, call)))
    else:
        print_human(decision, call, sys.stdout)
    return EXIT.get(decision.verdict, 3)


class Judge:
    """The engine, and with --llm the guard agent after it (in an event loop of its own)."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.reviewer: GuardReviewer | None = None
        self._runner: asyncio.Runner | None = None

    def use_guard_agent(self, locations: Locations) -> bool:
        settings = llm_settings(locations)
        if settings is None:
            print("guardtui check: --llm: no LLM is configured (llm: base_url and model in "
                  f"{locations.settings_file}, or GUARDTUI_LLM_BASE_URL and GUARDTUI_LLM_MODEL)", file=sys.stderr)
            return False
        from ..broker.llm_client import guard_reviewer

        self.reviewer = guard_reviewer(locations, self.engine, settings)
        self._runner = asyncio.Runner()
        return True

    def __call__(self, call: ToolCall) -> Decision:
        decision = self.engine.evaluate(call, record=False)
        if self.reviewer is None or self._runner is None or not may_review(decision):
            return decision
        return self._runner.run(self.reviewer.review(call, decision, emit=print_progress))

    def __enter__(self) -> "Judge":
        return self

    def __exit__(self, *_exc) -> None:
        if self._runner is not None:
            if self.reviewer is not None:
                self._runner.run(self.reviewer.close())
            self._runner.close()


def print_progress(event: GuardEvent) -> None:
    sys.stderr.write(f"guard agent: {event.message}\n")
    sys.stderr.flush()


def output(decision: Decision, call: ToolCall | None = None) -> dict[str, Any]:
    out = decision.to_dict()
    if decision.verdict is Verdict.LLM:  # no LLM here: what the person would see is an ask
        out["verdict"] = "ask"
    if decision.metadata.get("escalation") == "llm":
        out["escalation"] = "llm"
    if isinstance(decision.metadata.get("llm"), dict):
        out["llm"] = decision.metadata["llm"]
    segment = decision.metadata.get("segment")
    if segment:
        out["segment"] = segment
    return out


def batch(judge: Judge, source: str, cwd: str) -> int:
    """One JSON call per line, judged in order. Lines with the same `session_id` share a session, as
    the broker keeps them: what an earlier line left (a destroy plan) or had denied counts for the
    later ones. An `answer` ("allow"/"deny") on a line that asks stands for the person's answer.
    A line that cannot be read gets an `error` line, and the batch goes on."""
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
                decision = judge(call)
                result = output(decision)
                if answer is not None and decision.verdict in (Verdict.ASK, Verdict.LLM):
                    judge.engine.remember(call, decision.with_(verdict=answer, reason=f"answered {answer.value} — "
                                                                                      f"{decision.reason}"),
                                          DecidedBy.PERSON)
                else:
                    judge.engine.remember(call, decision)
            sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


def _call_from_line(line: str, number: int, cwd: str) -> tuple[ToolCall, Verdict | None]:
    try:
        data = load_payload(line.encode("utf-8", "surrogateescape"), "it")
    except PayloadError as exc:
        raise ValueError(f"line {number}: {exc}") from None
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
        call = ToolCall("Bash", {"command": data["command"]}, line_cwd, agent="cli", session=session)
    elif "tool_name" not in data:
        raise ValueError(f'line {number}: needs "command" or "tool_name"')
    else:
        tool, tool_input = data["tool_name"], data.get("tool_input", {})
        if not isinstance(tool, str) or not tool:
            raise ValueError(f'line {number}: "tool_name" must be a non-empty string')
        if not isinstance(tool_input, dict):
            raise ValueError(f'line {number}: "tool_input" must be a JSON object')
        call = ToolCall(normalise_tool(tool), tool_input, line_cwd, agent="cli", session=session)
    problem = input_problem(call)
    if problem is not None:
        raise ValueError(f"line {number}: {problem}")
    return call, verdict


_MARK = {"deny": "✗", "ask": "?", "llm": "?", "allow": "✓"}


def print_human(decision: Decision, call: ToolCall, out: IO[str]) -> None:
    verdict = "ask" if decision.verdict is Verdict.LLM else decision.verdict.value
    review = decision.metadata.get("llm")
    if isinstance(review, dict):
        tokens = review["prompt_tokens"] + review["completion_tokens"]
        tail = (f" (the guard agent, {review['model']}: {review['latency_ms'] / 1000:.1f} s, {review['turns']} "
                f"turn(s), {tokens:,} tokens{', cached' if review.get('cached') else ''})")
    elif decision.metadata.get("escalation") == "llm":
        tail = " (unrecognised: the guard agent's to judge — guardtui check --llm)"
    else:
        tail = ""
    out.write(f"{verdict.upper()}  {decision.blast_radius.value}  {decision.category}  [{decision.rule}]{tail}\n")
    out.write(f"  {decision.reason}\n")
    for seg in decision.metadata.get("segments") or []:
        via = f"  (via {seg['via']})" if seg.get("via") else ""
        out.write(f"    {_MARK.get(seg['verdict'], '?')} {seg['segment']}{via}: {seg['reason']}\n")
