"""`guardtui check --llm`, `guardtui log` and an older audit database, as a person runs them:
real processes, the model a scripted server on loopback."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from guardtui.core.audit import AuditLog
from guardtui.core.config import Locations
from guardtui.core.model import Decision, DecidedBy, ToolCall, Verdict

from .fake_model import say, tools


def guardtui(*args: str, env: dict | None = None, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "guardtui", *args], capture_output=True, text=True, input=stdin,
                          env={**os.environ, **(env or {})}, timeout=60)


def with_frobnicate(tmp_path) -> dict:
    """A PATH holding a `frobnicate` no rule knows (so the rules escalate it, as on a real machine)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / "frobnicate"
    tool.write_text("#!/bin/sh\nexit 0\n")
    tool.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def llm_env(model, tmp_path, **extra) -> dict:
    return {**with_frobnicate(tmp_path), "GUARDTUI_LLM_BASE_URL": model.url, "GUARDTUI_LLM_MODEL": "guard-7b",
            **extra}


def test_check_llm_asks_the_guard_agent_and_prints_its_progress(isolated_env, model, tmp_path):
    model.script(tools(("load_skill", {"id": "simulate"})), say("DENY: frobnicate --all wipes the shared cache"))
    out = guardtui("check", "--llm", "--cwd", str(tmp_path), "--", "frobnicate --all", env=llm_env(model, tmp_path))
    assert out.returncode == 4, out.stderr
    assert out.stdout.startswith("DENY  high  unknown  [llm] (the guard agent, guard-7b: ")
    assert "2 turn(s), 302 tokens)" in out.stdout and "frobnicate --all wipes the shared cache" in out.stdout
    progress = out.stderr.splitlines()
    assert progress[0] == "guard agent: evaluating: frobnicate --all · skills: bash"
    assert progress[1] == "guard agent: turn 1: loads skill simulate"
    assert progress[2].startswith("guard agent: turn 2: DENY: frobnicate --all wipes the shared cache (")


def test_check_llm_json_and_batch(isolated_env, model, tmp_path):
    model.script(say("ALLOW"), say("no verdict here"))
    lines = "\n".join(json.dumps({"command": c}) for c in ("frobnicate --all", "ls", "frobnicate --some")) + "\n"
    out = guardtui("check", "--llm", "--batch", "-", "--cwd", str(tmp_path), stdin=lines, env=llm_env(model, tmp_path))
    results = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["verdict"] for r in results] == ["allow", "allow", "ask"]
    assert results[0]["rule"] == "llm" and results[0]["llm"]["model"] == "guard-7b"
    assert "llm" not in results[1]  # the rules allowed it: no model asked
    assert results[2]["llm"]["outcome"] == "malformed" and len(model.requests) == 2


def test_check_llm_without_a_configured_llm_is_a_usage_error(isolated_env):
    out = guardtui("check", "--llm", "--", "frobnicate")
    assert out.returncode == 2 and out.stderr.startswith("guardtui check: --llm: no LLM is configured")


def test_check_without_llm_never_asks_the_model(isolated_env, model, tmp_path):
    out = guardtui("check", "--cwd", str(tmp_path), "--", "frobnicate --all", env=llm_env(model, tmp_path))
    assert out.returncode == 3 and "guardtui check --llm" in out.stdout and model.requests == []


def test_log_shows_what_a_review_cost(isolated_env):
    locations = Locations.from_env()
    log = AuditLog(locations.audit_db)
    call = ToolCall("Bash", {"command": "frobnicate --all"}, "/p", agent="claude")
    info = {"model": "guard-7b", "turns": 2, "latency_ms": 1234.0, "prompt_tokens": 900, "completion_tokens": 30}
    log.record(call, Decision(Verdict.ALLOW, "judged routine", "llm", metadata={"llm": info}), DecidedBy.LLM, 1240.0)
    log.record(call, Decision(Verdict.DENY, "no", "default"), DecidedBy.PERSON, 10.0)
    log.close()
    out = guardtui("log")
    first, second = out.stdout.splitlines()
    assert "llm: judged routine  [llm guard-7b: 1.2 s, 2 turn(s), 930 tokens]" in first and "llm " in first
    assert "[llm" not in second
    rows = [json.loads(line) for line in guardtui("log", "--json").stdout.splitlines()]
    assert (rows[0]["decided_by"], rows[0]["llm_model"], rows[0]["llm_prompt_tokens"]) == ("llm", "guard-7b", 900)
    assert rows[1]["llm_model"] == "" and rows[1]["llm_turns"] == 0


def test_an_audit_database_from_before_the_guard_agent_gains_its_columns(tmp_path):
    path = tmp_path / "audit.db"
    old = sqlite3.connect(path)
    old.executescript("""CREATE TABLE decisions (id INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL,
        agent TEXT NOT NULL, session TEXT NOT NULL, tool TEXT NOT NULL, summary TEXT NOT NULL, input TEXT NOT NULL,
        cwd TEXT NOT NULL, verdict TEXT NOT NULL, reason TEXT NOT NULL, rule TEXT NOT NULL,
        blast_radius TEXT NOT NULL, category TEXT NOT NULL, decided_by TEXT NOT NULL, latency_ms REAL NOT NULL);""")
    old.execute("INSERT INTO decisions (ts, agent, session, tool, summary, input, cwd, verdict, reason, rule, "
                "blast_radius, category, decided_by, latency_ms) VALUES (1, 'claude', 's', 'Bash', 'ls', "
                "'{\"command\": \"ls\"}', '/p', 'allow', 'reads', 'default', 'low', 'read-only', 'rule', 0.2)")
    old.commit()
    old.close()
    log = AuditLog(path)
    call = ToolCall("Bash", {"command": "frobnicate"}, "/p")
    log.record(call, Decision(Verdict.DENY, "x", "llm", metadata={"llm": {"model": "m", "turns": 1,
                                                                          "prompt_tokens": 5, "completion_tokens": 2,
                                                                          "latency_ms": 9.5}}), DecidedBy.LLM, 10)
    old_row, new_row = log.entries()
    assert (old_row.summary, old_row.llm_model, old_row.llm_turns, old_row.llm_latency_ms) == ("ls", "", 0, 0.0)
    assert (new_row.llm_model, new_row.llm_turns, new_row.llm_prompt_tokens, new_row.llm_latency_ms) == \
        ("m", 1, 5, 9.5)
    log.close()
    assert len(AuditLog(path).entries()) == 2  # opening it again migrates nothing twice
