"""The audit log: every decision on an agent's call, appended to a SQLite file.

One row per decided call: when, which agent and session, the call, the verdict, who
decided (rule, person, llm, timeout, policy, approval), the rule id and the latency.
A row is bounded (MAX_INPUT_CHARS of input, MAX_TEXT_CHARS of reason and cwd): a long string
in the input is cut where it passes its share, saying how long it was, and the input stays JSON.
"""
from __future__ import annotations

import json
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from .model import Decision, DecidedBy, ToolCall

MAX_INPUT_CHARS = 64 * 1024
MAX_TEXT_CHARS = 4096
WRITE_BEHIND_S = 0.01  # how long a written-behind row may wait for others to share its transaction

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


_INSERT = ("INSERT INTO decisions (ts, agent, session, tool, summary, input, cwd, verdict, reason, rule, "
           "blast_radius, category, decided_by, latency_ms) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)")


class AuditLog:
    """Append-only; safe to share between threads (one connection, one lock).

    A long-running process calls write_behind(): rows are then written by a writer thread, many to a
    transaction, so no caller (the broker's event loop) waits on the disk, which on a busy machine
    stalls a write for tens of milliseconds now and then. Reading (entries) and close() wait for the
    rows recorded before them."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._queue: list[tuple] | None = None  # rows waiting for the writer thread (write_behind)
        self._queued = threading.Condition()
        self._writing = False

    def record(self, call: ToolCall, decision: Decision, decided_by: DecidedBy | str, latency_ms: float,
               ts: float | None = None) -> None:
        entry = (call, decision, DecidedBy(decided_by), float(latency_ms), time.time() if ts is None else ts)
        if self._queue is not None:  # the row (its input cut to size) is made by the writer thread too
            with self._queued:
                self._queue.append(entry)
                if len(self._queue) == 1:
                    self._queued.notify_all()
            return
        with self._lock:
            self._db.execute(_INSERT, _row(*entry))

    def write_behind(self) -> None:
        """From now on rows are written by a writer thread (see the class's docstring)."""
        with self._queued:
            if self._queue is not None:
                return
            self._queue = []
        threading.Thread(target=self._write_rows, name="guardtui-audit", daemon=True).start()

    def flush(self) -> None:
        """Wait until every row recorded so far is written."""
        with self._queued:
            while self._queue or self._writing:
                self._queued.wait(1.0)

    def _write_rows(self) -> None:
        while True:
            with self._queued:
                while not self._queue:
                    self._queued.wait()
                self._writing = True
            time.sleep(WRITE_BEHIND_S)  # gather what comes meanwhile: one wake-up and one transaction for many rows
            with self._queued:
                rows, self._queue[:] = list(self._queue), []
            try:
                with self._lock:
                    self._db.execute("BEGIN")
                    self._db.executemany(_INSERT, [_row(*entry) for entry in rows])
                    self._db.execute("COMMIT")
            except Exception as exc:  # a record is not a control path: say so once per batch, go on
                sys.stderr.write(f"guardtui: the audit log {self.path} could not be written ({exc}); "
                                 f"{len(rows)} decision(s) not recorded\n")
                try:
                    with self._lock:
                        self._db.execute("ROLLBACK")
                except sqlite3.Error:
                    pass
            finally:
                with self._queued:
                    self._writing = False
                    self._queued.notify_all()

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
        self.flush()
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
        self.flush()
        with self._lock:
            self._db.close()


def _row(call: ToolCall, decision: Decision, decided_by: DecidedBy, latency_ms: float, ts: float) -> tuple:
    return (ts, _cut(call.agent, 200), _cut(call.session, 200), _cut(call.tool, 200), call.summary(300),
            capped_input(call), _cut(call.cwd), decision.verdict.value, _cut(decision.reason), _cut(decision.rule, 200),
            decision.blast_radius.value, _cut(decision.category, 200), decided_by.value, latency_ms)


def capped_input(call: ToolCall) -> str:
    """The call's input as JSON, at most MAX_INPUT_CHARS: long strings cut to a share that fits, long
    lists and objects to their first items, deep nesting to "…"."""
    if _size(dict(call.input), MAX_INPUT_CHARS) <= MAX_INPUT_CHARS:  # (escapes can make it a few times longer)
        text = call.serialised_input()
        if len(text) <= MAX_INPUT_CHARS:
            return text
    for share, items in ((4096, 64), (256, 16)):
        text = json.dumps(_shorten(dict(call.input), share, items), sort_keys=True, ensure_ascii=False, default=str)
        if len(text) <= MAX_INPUT_CHARS:
            return text
    return json.dumps({"cut": "the input was too large to keep"})


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


def _shorten(value: Any, share: int, items: int, depth: int = 0) -> Any:
    if isinstance(value, str):
        return _cut(value, share)
    if depth > 8 and isinstance(value, (dict, list, tuple)):
        return "…"
    if isinstance(value, dict):
        out = {_cut(str(k), share): _shorten(v, share, items, depth + 1) for k, v in list(value.items())[:items]}
        if len(value) > items:
            out["…"] = f"[{len(value)} keys, {items} kept]"
        return out
    if isinstance(value, (list, tuple)):
        kept = [_shorten(v, share, items, depth + 1) for v in value[:items]]
        return kept + [f"… [{len(value)} items, {items} kept]"] if len(value) > items else kept
    return value


def _cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    text = str(text)
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text)} characters, cut]"


def _entry(row: tuple) -> AuditEntry:
    values = list(row)
    values[6] = json.loads(values[6])
    return AuditEntry(*values)
