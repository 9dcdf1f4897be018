"""guardtui check: judge a shell command or tool call without running it.

Exit status: 0 allow, 3 ask, 4 deny (2 for a usage error), so scripts can branch on it.

A single check is judged by the standby the command hook uses (guardtui/broker/standby.py), and
started like the hook starts it, so `guardtui check` costs little more than starting Python:
`guardtui check [--json] [--cwd DIR] -- COMMAND` is even read before the argument parser is imported
(check_fast.py). It judges here when no standby answers (GUARDTUI_STANDBY=0: always). Both print the same
(judge.check_report, judge.check_text).
"""
from __future__ import annotations

import os
import sys
from typing import IO, Any


def _join(words: list[str]) -> str:
    import shlex

    return shlex.join(words)


def run(args, _command: str) -> int:
    import json

    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    words = list(args.command_words)
    if words and words[0] == "--":
        words = words[1:]
    modes = sum(bool(x) for x in (args.batch, args.tool, words))
    if modes != 1:
        print("guardtui check: give a command after --, or --tool NAME --input JSON, or --batch FILE",
              file=sys.stderr)
        return 2
    if args.batch:
        from ..wiring import cli_engine

        return batch(cli_engine(cwd), args.batch, cwd)
    if args.tool:
        try:
            tool_input = json.loads(args.input or "{}")
        except json.JSONDecodeError as exc:
            print(f"guardtui check: --input: invalid JSON: {exc.msg} (column {exc.colno})", file=sys.stderr)
            return 2
        if not isinstance(tool_input, dict):
            print("guardtui check: --input must be a JSON object", file=sys.stderr)
            return 2
        spec = {"tool": args.tool, "input": tool_input, "cwd": cwd}
    else:
        command = words[0] if len(words) == 1 else _join(words)
        spec = {"tool": "Bash", "input": {"command": command}, "cwd": cwd}
    from ..judge import check_text

    text, status = check_text(ask_standby(spec) or judge_here(spec), args.json)
    sys.stdout.write(text)
    return status


def ask_standby(spec: dict[str, Any]) -> dict[str, Any] | None:
    """The standby's report, or None (none runs, or it refused): then judge here. As the hook does,
    a missing standby is started in the background for the next check or call."""
    import json

    from .. import hook
    from ..judge import CHECK_EXIT

    env = hook.Environ()
    if not hook.standby_wanted(env):
        return None
    path = hook.standby_socket(env)
    result = hook.request(path, "/check", json.dumps(spec).encode("utf-8"), 30.0)
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
    from ..judge import check_call, check_report
    from ..wiring import offline_engine

    call = check_call(spec["tool"], spec["input"], spec["cwd"])
    return check_report(offline_engine(call.cwd, call.cwd, record=False).evaluate(call, record=False))


def batch(engine, source: str, cwd: str) -> int:
    """One JSON line out per line in, in order; a line that cannot be judged gets {"error": …} and the
    batch goes on."""
    import json

    from ..judge import check_report

    stream: IO[bytes]
    try:
        stream = sys.stdin.buffer if source == "-" else open(source, "rb")
    except OSError as exc:
        print(f"guardtui check: {source}: {exc.strerror}", file=sys.stderr)
        return 2
    with stream:
        for number, raw in enumerate(stream, 1):
            if not raw.strip():
                continue
            try:
                call = _call_from_line(raw, number, cwd)
                report = check_report(engine.evaluate(call, record=False))
                result: dict[str, Any] = {k: v for k, v in report.items() if k != "segments"}
            except ValueError as exc:
                result = {"error": str(exc)}
            except Exception as exc:  # whatever went wrong, it was this line: say so and go on
                result = {"error": f"line {number}: cannot judge it ({type(exc).__name__}: {exc})"}
            sys.stdout.write(json.dumps(result) + "\n")
    sys.stdout.flush()
    return 0


def _call_from_line(raw: bytes, number: int, cwd: str):
    import json
    from dataclasses import replace

    from ..judge import check_call

    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"line {number}: not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"line {number}: invalid JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ValueError(f"line {number}: the JSON nests too deeply") from None
    if not isinstance(data, dict):
        raise ValueError(f"line {number}: expected a JSON object, got {type(data).__name__}")
    line_cwd = data.get("cwd", cwd)
    if not isinstance(line_cwd, str) or not line_cwd:
        raise ValueError(f'line {number}: "cwd" must be a non-empty string')
    if "command" in data and "tool_name" not in data:
        if not isinstance(data["command"], str):
            raise ValueError(f'line {number}: "command" must be a string')
        tool, tool_input = "Bash", {"command": data["command"]}
    elif "tool_name" not in data:
        raise ValueError(f'line {number}: needs "command" or "tool_name"')
    else:
        tool, tool_input = data["tool_name"], data.get("tool_input", {})
        if not isinstance(tool, str) or not tool:
            raise ValueError(f'line {number}: "tool_name" must be a non-empty string')
        if not isinstance(tool_input, dict):
            raise ValueError(f'line {number}: "tool_input" must be a JSON object')
    call = check_call(tool, tool_input, line_cwd if line_cwd.startswith("/") else os.path.join(cwd, line_cwd))
    return replace(call, session=f"batch-{number}")
