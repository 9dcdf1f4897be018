"""The audit log: every decision on an agent's call, appended to a SQLite file.

One row per decided call: when, which agent and session, the call, the verdict, who
decided (rule, person, llm, timeout, policy, approval), the rule id and the latency.
A row is bounded (MAX_INPUT_CHARS of input, MAX_TEXT_CHARS of reason and cwd): a long string
in the input is cut where it passes its share, saying how long it was, and the input stays JSON.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .model import Decision, DecidedBy, ToolCall

MAX_INPUT_CHARS = 64 * 1024
MAX_TEXT_CHARS = 4096

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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


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

    def record(self, call: ToolCall, decision: Decision, decided_by: DecidedBy | str, latency_ms: float,
               ts: float | None = None) -> int:
        row = (time.time() if ts is None else ts, _cut(call.agent, 200), _cut(call.session, 200),
               _cut(call.tool, 200), call.summary(300), capped_input(call), _cut(call.cwd), decision.verdict.value,
               _cut(decision.reason), _cut(decision.rule, 200), decision.blast_radius.value,
               _cut(decision.category, 200), DecidedBy(decided_by).value, float(latency_ms))
        with self._lock:
            cur = self._db.execute(
                "INSERT INTO decisions (ts, agent, session, tool, summary, input, cwd, verdict, reason, rule, "
                "blast_radius, category, decided_by, latency_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
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
        sql = f"SELECT * FROM decisions {where} ORDER BY id DESC"
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


def capped_input(call: ToolCall) -> str:
    """The call's input as JSON, at most MAX_INPUT_CHARS: long strings cut to a share that fits."""
    if _size(dict(call.input), MAX_INPUT_CHARS) <= MAX_INPUT_CHARS:  # (escapes can make it a few times longer)
        text = call.serialised_input()
        if len(text) <= MAX_INPUT_CHARS:
            return text
    for share in (4096, 512, 64):
        try:
            text = json.dumps(_shorten(dict(call.input), share), sort_keys=True, ensure_ascii=False, default=str)
        except RecursionError:
            break
        if len(text) <= MAX_INPUT_CHARS:
            return text
    return json.dumps({"cut": "the input was too large to keep", "start": _cut(repr(dict(call.input)))})


def _size(value: Any, limit: int, depth: int = 0) -> int:
    """About how long the JSON of `value` is, counting only until it passes `limit`."""
    if isinstance(value, str):
        return len(value) + 2
    if depth > 64:
        return limit + 1
    if isinstance(value, dict):
        total = 2
        for key, item in value.items():
            total += len(str(key)) + 4 + _size(item, limit, depth + 1)
            if total > limit:
                break
        return total
    if isinstance(value, (list, tuple)):
        total = 2
        for item in value:
            total += 2 + _size(item, limit, depth + 1)
            if total > limit:
                break
        return total
    return 24


def _shorten(value: Any, share: int) -> Any:
    if isinstance(value, str):
        return _cut(value, share)
    if isinstance(value, dict):
        return {_cut(str(k), share): _shorten(v, share) for k, v in list(value.items())[:share]}
    if isinstance(value, (list, tuple)):
        return [_shorten(v, share) for v in value[:share]]
    return value


def _cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text)} characters, cut]"


def _entry(row: tuple) -> AuditEntry:
    values = list(row)
    values[6] = json.loads(values[6])
    return AuditEntry(*values)
