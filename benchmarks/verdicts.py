"""Every decision on every corpus the repository has, one JSON line each: for proving that a change made
for speed changes no verdict.

    python benchmarks/verdicts.py > before.jsonl     # on the old code
    python benchmarks/verdicts.py > after.jsonl      # on the new
    python benchmarks/verdicts.py --compare before.jsonl after.jsonl
    python benchmarks/verdicts.py --judging-process   # the broker's judging process against its own engine

The shell corpora (tests/shell/data, and any more given with --shell FILE) are judged as
benchmarks/corpus.py judges them (built-in defaults, this machine's PATH); the session corpora
(tests/sessions/data) are replayed as tests/sessions does (a world on disk, the agents' adapters, the
person answering asks as labelled). Each line holds the verdict, the rule, the reason, the blast
radius, the category and the metadata (all but the time it took).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from _common import CORPORA, ROOT, isolated_engine

SESSIONS = ROOT / "tests" / "sessions" / "data"
WORLD = re.compile(r"[^\s\"']*/[0-9a-f]{12}/home/dev|[^\s\"']*/[0-9a-f]{1,12}\u2026")


def shell_lines(paths: list[Path]):
    from guardtui.core.model import ToolCall

    from tests.shell.corpus import CWD, load

    engine = isolated_engine()
    for path in paths:
        for i, row in enumerate(load(path)):
            call = ToolCall("Bash", {"command": row["command"]}, row.get("cwd", CWD), agent="corpus", session=f"c{i}")
            decision = engine.evaluate(call, record=False)
            yield {"corpus": path.name, "line": i + 1, "call": row["command"], **described(decision)}


def session_lines():
    import tests.sessions.replay as replay_module

    decisions: list = []
    evaluate = replay_module.Engine.evaluate

    def keeping(self, call, *args, **kwargs):  # the whole decision, not only what Result keeps
        decision = evaluate(self, call, *args, **kwargs)
        decisions.append(decision)
        return decision

    replay_module.Engine.evaluate = keeping
    try:
        for path in sorted(SESSIONS.glob("*.jsonl")):
            decisions.clear()
            results = replay_module.replay(path)
            judged = iter(decisions)
            for result in results:
                line = {"corpus": path.name, "line": result.line, "call": result.summary, "got": result.got,
                        "reason": result.reason, "rule": result.rule}
                if result.rule != "adapter":
                    line["decision"] = json.loads(json.dumps(described(next(judged)), default=str).replace(
                        str(SESSIONS), "DATA"))
                    line["decision"].pop("reason", None)  # the world's paths: `reason` above has them unmapped
                    line["decision"].pop("metadata", None)
                line["reason"] = WORLD.sub("WORLD", line["reason"])  # a world's path cut short in a reason
                yield line
    finally:
        replay_module.Engine.evaluate = evaluate


def judging_process(paths: list[Path]) -> int:
    """Every shell corpus call judged by the broker's judging process (broker/judges.py, as a large payload is)
    and by the engine it was forked from, in this process: the decisions must be the same."""
    import asyncio
    import os

    os.environ["GUARDTUI_BUDGET_MS"] = "60000"  # no verdict here may depend on how busy the machine is
    from guardtui.adapters import adapter_for
    from guardtui.broker.judges import JudgeProcess
    from guardtui.judge import read_call

    from tests.shell.corpus import CWD, load

    engine = isolated_engine()
    engine.budget_s = 60.0
    claude = adapter_for("claude")

    async def run() -> int:
        judge = JudgeProcess(engine)  # forked at its first call
        differ = total = 0
        try:
            for path in paths:
                for i, row in enumerate(load(path)):
                    raw = json.dumps({"session_id": f"{path.name}-{i}", "cwd": row.get("cwd", CWD),
                                      "hook_event_name": "PreToolUse", "tool_name": "Bash",
                                      "tool_input": {"command": row["command"]}}).encode()
                    here = engine.evaluate(read_call(claude, raw, None), record=False)
                    _call, there, _events = await judge.judge(claude, raw, None, False)
                    total += 1
                    if described(here) != described(there):
                        differ += 1
                        print(f"{path.name}:{i + 1}: {row['command'][:80]!r}: here {described(here)['verdict']} "
                              f"there {described(there)['verdict']}")
        finally:
            await judge.stop()
        print(f"{total} calls judged here and in the judging process: {differ} differ")
        return 1 if differ else 0

    return asyncio.run(run())


def described(decision) -> dict:
    meta = {k: v for k, v in decision.metadata.items() if k != "latency_ms"}
    return {"verdict": decision.verdict.value, "rule": decision.rule, "reason": decision.reason,
            "blast_radius": decision.blast_radius.value, "category": decision.category,
            "metadata": json.loads(json.dumps(meta, default=str, sort_keys=True))}


def compare(before: Path, after: Path) -> int:
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    if len(old) != len(new):
        print(f"{before}: {len(old)} decisions, {after}: {len(new)}")
        return 1
    differ = [(a, b) for a, b in zip(old, new) if a != b]
    for a, b in differ[:20]:
        print(f"- {a[:400]}\n+ {b[:400]}")
    print(f"{len(old)} decisions compared: {len(differ)} differ")
    return 1 if differ else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shell", type=Path, action="append", default=[], help="another shell corpus (JSONL)")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--judging-process", action="store_true", help="the judging process against the engine here")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    paths = sorted(CORPORA.glob("*.jsonl")) + args.shell
    if args.judging_process:
        return judging_process(paths)
    for line in shell_lines(paths):
        print(json.dumps(line, sort_keys=True))
    for line in session_lines():
        print(json.dumps(line, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
