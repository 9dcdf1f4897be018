"""The audit log: every decision on an agent's call, appended to a SQLite file.

One row per decided call: when, which agent and session, the call, the verdict, who
decided (rule, person, llm, timeout, policy, approval), the rule id and the latency — and,
when the guard agent reviewed the call, the model, its latency, turns and token use (the
`llm_*` columns, added to an older database when it is opened).
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Iterator

from .model import Decision, DecidedBy, ToolCall

SCHEMA = """
CREATE TABLE IF NOT EXISTS decisions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    agent TEXT NOT NULL,
    session TEXT NOT NULL,
    tool TEXT NOT NULL,
    summary TEXT NOT NULL,
    input TEXT NOT NULL,
    cwd TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    rule TEXT NOT NULL,
    blast_radius TEXT NOT NULL,
    category TEXT NOT NULL,
    decided_by TEXT NOT NULL,
    latency_ms REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS decisions_ts ON decisions (ts);
"""
# columns added after the first release: (name, declaration); an older file gets them on open
LLM_COLUMNS = (
    ("llm_model", "TEXT NOT NULL DEFAULT ''"),
    ("llm_turns", "INTEGER NOT NULL DEFAULT 0"),
    ("llm_latency_ms", "REAL NOT NULL DEFAULT 0"),
    ("llm_prompt_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("llm_completion_tokens", "INTEGER NOT NULL DEFAULT 0"),
)


@dataclass(frozen=True)
class AuditEntry:
    id: int
    ts: float
    agent: str
    session: str
    tool: str
    summary: str
    input: dict[str, Any]
    cwd: str
    verdict: str
    reason: str
    rule: str
    blast_radius: str
    category: str
    decided_by: str
    latency_ms: float
    llm_model: str = ""  # "" when no model reviewed the call
    llm_turns: int = 0
    llm_latency_ms: float = 0.0
    llm_prompt_tokens: int = 0
    llm_completion_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def review_cost(self) -> str:
        """`guard-7b: 1.2 s, 2 turn(s), 930 tokens` when the guard agent reviewed the call, else ""."""
        if not self.llm_model:
            return ""
        tokens = self.llm_prompt_tokens + self.llm_completion_tokens
        return f"{self.llm_model}: {self.llm_latency_ms / 1000:.1f} s, {self.llm_turns} turn(s), {tokens:,} tokens"


class AuditLog:
    """Append-only; safe to share between threads (one connection, one lock)."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        have = {row[1] for row in self._db.execute("PRAGMA table_info(decisions)")}
        for name, declaration in LLM_COLUMNS:
            if name not in have:
                self._db.execute(f"ALTER TABLE decisions ADD COLUMN {name} {declaration}")

    def record(self, call: ToolCall, decision: Decision, decided_by: DecidedBy | str, latency_ms: float,
               ts: float | None = None) -> int:
        row = (time.time() if ts is None else ts, call.agent, call.session, call.tool, call.summary(300),
               call.serialised_input(), call.cwd, decision.verdict.value, decision.reason, decision.rule,
               decision.blast_radius.value, decision.category, DecidedBy(decided_by).value, float(latency_ms),
               *_llm_values(decision))
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO decisions (ts, agent, session, tool, summary, input, cwd, verdict, reason, rule, "
                "blast_radius, category, decided_by, latency_ms, llm_model, llm_turns, llm_latency_ms, "
                "llm_prompt_tokens, llm_completion_tokens) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
            return int(cur.lastrowid)

    def entries(self, limit: int | None = None, verdict: str | None = None, agent: str | None = None,
                tool: str | None = None, text: str | None = None) -> list[AuditEntry]:
        """Newest last; `limit` keeps the newest N."""
        clauses, params = [], []
        for column, value in (("verdict", verdict), ("agent", agent), ("tool", tool)):
            if value:
                clauses.append(f"{column} = ?")
                params.append(value)
        if text:
            clauses.append("(summary LIKE ? OR reason LIKE ? OR rule LIKE ?)")
            params.extend([f"%{text}%"] * 3)
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        sql = f"SELECT {', '.join(_FIELDS)} FROM decisions {where} ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._lock:
            rows = self._db.execute(sql, params).fetchall()
        return [_entry(r) for r in reversed(rows)]

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self.entries())

    def close(self) -> None:
        with self._lock:
            self._db.close()


_FIELDS = tuple(f.name for f in fields(AuditEntry))


def _entry(row: tuple) -> AuditEntry:
    values = list(row)
    values[6] = json.loads(values[6])
    return AuditEntry(*values)


def _llm_values(decision: Decision) -> tuple[str, int, float, int, int]:
    """What the guard agent's review cost, from the decision's metadata (zeros: no review)."""
    info = decision.metadata.get("llm")
    if not isinstance(info, dict):
        return "", 0, 0.0, 0, 0

    def number(key: str, kind: type) -> Any:
        value = info.get(key)
        return kind(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else kind(0)

    return (str(info.get("model") or ""), number("turns", int), number("latency_ms", float),
            number("prompt_tokens", int), number("completion_tokens", int))
