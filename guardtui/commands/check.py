"""guardtui check: judge a shell command or tool call without running it.

With --llm, a call the rules escalate goes to the guard agent configured in settings.yaml, as
in the console (its progress on stderr); without, it shows as the ask a person would get.

Exit status: 0 allow, 3 ask, 4 deny (2 for a usage error), so scripts can branch on it.

A single check (without --llm) is judged by the standby the command hook uses
(guardtui/broker/standby.py), and started like the hook starts it, so `guardtui check` costs little
more than starting Python: `guardtui check [--json] [--cwd DIR] -- COMMAND` is even read before the
argument parser is imported (check_fast.py). It judges here when no standby answers
(GUARDTUI_STANDBY=0: always). Both print the same (judge.check_report, judge.check_text).
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
from ..judge import check_report, check_text, load_payload
from ..wiring import cli_engine, llm_settings



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
    spec: dict[str, Any] | None = None
    if not args.batch:
        read = _single(args, words, cwd)
        if isinstance(read, int):
            return read
        spec = read
        if not args.llm:  # the guard agent is configured per run: only this process can call it
            report = ask_standby(spec)
            if report is not None:
                text, status = check_text(report, args.json)
                sys.stdout.write(text)
                return status
    with Judge(cli_engine(cwd)) as judge:
        if args.llm and not judge.use_guard_agent(Locations.from_env()):
            return 2
        if spec is None:
            from ..core.engine import load_all_data

            load_all_data()  # many calls in one process: no data loaded inside one call's budget
            return batch(judge, args.batch, cwd)
        call = ToolCall(normalise_tool(spec["tool"]), spec["input"], cwd, agent="cli")
        text, status = check_text(check_report(judge(call)), args.json)
        sys.stdout.write(text)
        return status


def _single(args, words: list[str], cwd: str) -> dict[str, Any] | int:
    """The one call to judge as {"tool", "input", "cwd"}, or the exit status of a usage error."""
    if args.tool:
        try:
            tool_input = load_payload((args.input or "{}").encode("utf-8", "surrogateescape"), "--input")
        except PayloadError as exc:
            print(f"guardtui check: {exc}", file=sys.stderr)
            return 2
        if not isinstance(tool_input, dict):
            print("guardtui check: --input must be a JSON object", file=sys.stderr)
            return 2
        problem = input_problem(ToolCall(normalise_tool(args.tool), tool_input, cwd, agent="cli"))
        if problem is not None:
            print(f"guardtui check: --input: {problem}", file=sys.stderr)
            return 2
        return {"tool": args.tool, "input": tool_input, "cwd": cwd}
    command = words[0] if len(words) == 1 else shlex.join(words)
    return {"tool": "Bash", "input": {"command": command}, "cwd": cwd}


def ask_standby(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The standby's report, or None (none runs, or it refused): then judge here. As the hook does,
    a missing standby is started in the background for the next check or call."""
    from .. import hook_client as hook
    from ..judge import CHECK_EXIT

    env = hook.Environ()
    if not hook.standby_wanted(env):
        return None
    path = hook.standby_socket(env)
    try:
        result = hook.request(path, "/check", json.dumps(spec).encode("utf-8"), 30.0)
    except hook.Untrusted:
        return None
    if result is None:
        hook.start_standby(path, env)
        return None
    if result[0] != "200":
        return None
    try:
        report = json.loads(result[1])
    except json.JSONDecodeError:
        return None
    return report if isinstance(report, dict) and report.get("verdict") in CHECK_EXIT else None


def judge_here(spec: dict[str, Any]) -> dict[str, Any]:
    """The report of one call judged in this process, as the standby judges it (no guard agent)."""
    from ..judge import check_call
    from ..wiring import offline_engine

    call = check_call(spec["tool"], spec["input"], spec["cwd"])
    return check_report(offline_engine(call.cwd, call.cwd, record=False).evaluate(call, record=False))


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


def output(decision: Decision) -> dict[str, Any]:
    """A decision as `check --json` and `--batch` print it."""
    return {k: v for k, v in check_report(decision).items() if k != "segments"}


def batch(judge: Judge, source: str, cwd: str) -> int:
    """One JSON call per line, judged in order. Lines with the same `session_id` share a session, as
    the broker keeps them: what an earlier line left (a destroy plan) or had denied counts for the
    later ones. An `answer` ("allow"/"deny") on a line that asks stands for the person's answer.
    A line that cannot be read gets an `error` line, and the batch goes on."""
    stream: IO[bytes]
    try:
        stream = sys.stdin.buffer if source == "-" else open(source, "rb")
    except OSError as exc:
        print(f"guardtui check: {source}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        for number, line in enumerate(stream, 1):
            if not line.strip():
                continue
            try:
                call, answer = _call_from_line(line, number, cwd)
                decision = judge(call)
            except ValueError as exc:
                result: dict[str, Any] = {"error": str(exc)}
            except Exception as exc:  # whatever went wrong, it was this line: say so and go on
                result = {"error": f"line {number}: cannot judge it ({type(exc).__name__}: {exc})"}
            else:
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


def _call_from_line(line: bytes, number: int, cwd: str) -> tuple[ToolCall, Verdict | None]:
    try:
        data = load_payload(line, "it")
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
