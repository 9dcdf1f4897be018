"""`guardtui serve` stops on SIGTERM: a real process, a real signal.

It once did not: an engine worker thread was stuck in Thread.start() of a project-plugins loader, and
the interpreter waits for its worker threads before it exits. The judging budget had run out while the
worker was starting the loader; CPython gives a new thread's state the starting thread's id until the
new thread runs, so the budget's OverBudget (raised by thread id) killed the loader before it said it
had started (core/budget.py now never interrupts a thread whose new thread has not run yet).

Here serve's judging threads start loaders while their budgets run out, hundreds of times: calls over
the large-payload size (judged in a worker thread), each from a project not seen before (a loader
started for it), with a budget that is spent before judging begins. Held to one CPU, the new thread
waits for the CPU while the budget's watchdog takes it: before the fix a worker stuck within the first
few hundred calls (four runs of four).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

from guardtui.broker.server import INLINE_MAX_BYTES
from guardtui.hook_client import request

CALLS = 1000
LIMIT_S = 30.0


def one_cpu() -> None:
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


def test_serve_stops_on_sigterm_after_budgets_ran_out_while_loaders_were_starting(isolated_env, short_runtime):
    # every call's budget spent by reading it; large calls judged in the worker thread (not in a process of their own)
    env = {**os.environ, "GUARDTUI_BUDGET_MS": "0.001", "GUARDTUI_JUDGE_PROCESS": "0"}
    serve = subprocess.Popen([sys.executable, "-m", "guardtui", "serve", "--port", "0", "--ask", "deny"],
                             cwd=isolated_env, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                             preexec_fn=one_cpu)
    try:
        assert "listening on" in serve.stdout.readline()
        socket = os.path.join(short_runtime, "broker.sock")
        for n in range(CALLS):
            project = isolated_env / "projects" / f"p{n}"
            project.mkdir(parents=True)
            raw = json.dumps({"session_id": f"s{n}", "cwd": str(project), "hook_event_name": "PreToolUse",
                              "tool_name": "Frobnicate", "tool_input": {"note": "x" * INLINE_MAX_BYTES}}).encode()
            answer = request(socket, "/hooks/claude", raw, LIMIT_S)
            assert answer is not None and answer[0] == "200", f"call {n} was not answered: {answer}"
            out = json.loads(answer[1])["hookSpecificOutput"]
            assert out["permissionDecision"] == "deny"  # asked (over budget, or an unknown tool): serve's policy
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=LIMIT_S) == 0
        assert "stopped" in serve.stdout.read()
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()


def children_of(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
        return [int(p) for p in f.read().split()]


def test_serve_stops_on_sigterm_and_its_judging_process_with_it(isolated_env, short_runtime):
    """Large calls are judged in a process serve forks (broker/judges.py): it goes when serve goes."""
    env = {k: v for k, v in os.environ.items() if k != "GUARDTUI_JUDGE_PROCESS"}
    serve = subprocess.Popen([sys.executable, "-m", "guardtui", "serve", "--port", "0", "--ask", "deny"],
                             cwd=isolated_env, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert "listening on" in serve.stdout.readline()
        assert children_of(serve.pid) == []  # forked when the first large call comes
        raw = json.dumps({"session_id": "s", "cwd": str(isolated_env), "hook_event_name": "PreToolUse",
                          "tool_name": "Bash", "tool_input": {"command": "ls # " + "x" * INLINE_MAX_BYTES}}).encode()
        answer = request(os.path.join(short_runtime, "broker.sock"), "/hooks/claude", raw, LIMIT_S)
        assert answer is not None and json.loads(answer[1])["hookSpecificOutput"]["permissionDecision"] == "allow"
        judging = children_of(serve.pid)
        assert len(judging) == 1
        serve.send_signal(signal.SIGTERM)
        assert serve.wait(timeout=LIMIT_S) == 0
        assert not os.path.exists(f"/proc/{judging[0]}")
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
