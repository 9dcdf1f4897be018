"""The audit log: every decision on an agent's call, appended to a SQLite file.

One row per decided call: when, which agent and session, the call, the verdict, who
decided (rule, person, llm, timeout, policy, approval), how the answer came (`via`: a key,
a dialog, a timeout, a signal, ...), the rule id and the latency — and, when the guard agent
reviewed the call, the model, its latency, turns and token use (the `llm_*` columns).
Columns added after the first release are added to an older database when it is opened.

A write that fails (a read-only or locked file, `chmod 000`, a full disk) never changes a
verdict and never raises: the row is held in memory (up to HOLD_LIMIT) and written with the
next write that succeeds, tried again at most every RETRY_S. The failure is said once, and
the recovery once, through `on_problem` (the engine turns it into a guard event).

A row is bounded (MAX_INPUT_CHARS of input, MAX_TEXT_CHARS of reason and cwd): a long string
in the input is cut where it passes its share, saying how long it was, and the input stays JSON.
"""
from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import deque
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable, Iterator

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
ADDED_COLUMNS = (
    ("via", "TEXT NOT NULL DEFAULT ''"),
    ("llm_model", "TEXT NOT NULL DEFAULT ''"),
    ("llm_turns", "INTEGER NOT NULL DEFAULT 0"),
    ("llm_latency_ms", "REAL NOT NULL DEFAULT 0"),
    ("llm_prompt_tokens", "INTEGER NOT NULL DEFAULT 0"),
    ("llm_completion_tokens", "INTEGER NOT NULL DEFAULT 0"),
)
COLUMNS = ("ts, agent, session, tool, summary, input, cwd, verdict, reason, rule, blast_radius, category, "
           "decided_by, latency_ms, " + ", ".join(name for name, _ in ADDED_COLUMNS))
MAX_INPUT_CHARS = 64 * 1024
MAX_TEXT_CHARS = 4096
WRITE_BEHIND_S = 0.01  # how long a written-behind row may wait for others to share its transaction
HOLD_LIMIT = 10_000  # rows kept in memory while the file cannot be written
RETRY_S = 5.0  # a failing file is tried again at most this often (a locked one costs BUSY_TIMEOUT_S a try)
BUSY_TIMEOUT_S = 1.0


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
    via: str = ""
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
    """Append-only; safe to share between threads (one connection, one lock).

    A long-running process calls write_behind(): rows are then written by a writer thread, many to a
    transaction, so no caller (the broker's event loop) waits on the disk, which on a busy machine
    stalls a write for tens of milliseconds now and then. Reading (entries) and close() wait for the
    rows recorded before them."""

    def __init__(self, path: Path | str, clock: Callable[[], float] = time.monotonic):
        self.path = Path(path)
        self.clock = clock
        self.on_problem: Callable[[str], None] | None = None  # told once per failure, and once on recovery
        self.failure: str | None = None  # what is wrong now (one line), None when writes succeed
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._held: deque[tuple] = deque(maxlen=HOLD_LIMIT)
        self._lost = 0
        self._next_try = 0.0
        self._told = False  # the failure was said
        self._queue: list[tuple] | None = None  # entries waiting for the writer thread (write_behind)
        self._queued = threading.Condition()
        self._writing = False
        try:
            self._connect()
        except (sqlite3.Error, OSError) as exc:
            self._fail(exc)  # said with the first decision that cannot be written

    def _connect(self) -> sqlite3.Connection:
        if self._db is None:
            if str(self.path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            db = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None,
                                 timeout=BUSY_TIMEOUT_S)
            try:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.executescript(SCHEMA)
                have = {row[1] for row in db.execute("PRAGMA table_info(decisions)")}
                for name, declaration in ADDED_COLUMNS:  # a log written by an older guardtui
                    if name not in have:
                        db.execute(f"ALTER TABLE decisions ADD COLUMN {name} {declaration}")
            except BaseException:
                db.close()
                raise
            self._db = db
        return self._db

    def record(self, call: ToolCall, decision: Decision, decided_by: DecidedBy | str, latency_ms: float,
               ts: float | None = None, via: str = "") -> int | None:
        """Append one decision; its row id, or None when it is written behind or the file cannot be
        written now (held)."""
        entry = (call, decision, DecidedBy(decided_by), float(latency_ms), time.time() if ts is None else ts, via)
        if self._queue is not None:  # the row (its input cut to size) is made by the writer thread too
            with self._queued:
                self._queue.append(entry)
                if len(self._queue) == 1:
                    self._queued.notify_all()
            return None
        return self._store([_row(*entry)])

    def _store(self, rows: list[tuple]) -> int | None:
        """Write rows (and any held before them) in one transaction; the last row id, or None (held)."""
        with self._lock:
            if self.failure is None or self.clock() >= self._next_try:
                try:
                    rowid = self._write(self._connect(), rows)
                except (sqlite3.Error, OSError, ValueError) as exc:  # ValueError: text SQLite cannot take
                    self._fail(exc)
                else:
                    report = self._recovered()
                    if report is not None:
                        self._say(report)
                    return rowid
            for row in rows:
                self._hold(row)
            report = self._first_report()
        if report is not None:
            self._say(report)
        return None

    def write_behind(self) -> None:
        """From now on rows are written by a writer thread (see the class's docstring)."""
        with self._queued:
            if self._queue is not None:
                return
            self._queue = []
        threading.Thread(target=self._write_rows, name="guardtui-audit", daemon=True).start()

    def flush(self) -> None:
        """Wait until every row recorded so far is written (or held)."""
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
                entries, self._queue[:] = list(self._queue), []
            try:
                self._store([_row(*entry) for entry in entries])
            except Exception as exc:  # _store holds its own failures; this is for the unforeseen
                self._say(f"the audit log {self.path} could not record {len(entries)} decision(s) "
                          f"({type(exc).__name__}: {exc})")
            finally:
                with self._queued:
                    self._writing = False
                    self._queued.notify_all()

    def _write(self, db: sqlite3.Connection, rows: list[tuple]) -> int:
        insert = f"INSERT INTO decisions ({COLUMNS}) VALUES ({','.join('?' * _WIDTH)})"
        if self._held or len(rows) > 1:
            db.execute("BEGIN")
            try:
                if self._held:
                    db.executemany(insert, list(self._held))
                if len(rows) > 1:
                    db.executemany(insert, rows[:-1])
                cur = db.execute(insert, rows[-1])
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            self._held.clear()
        else:
            cur = db.execute(insert, rows[-1])
        return int(cur.lastrowid)

    def _hold(self, row: tuple) -> None:
        if len(self._held) == self._held.maxlen:
            self._lost += 1
        self._held.append(row)

    def _fail(self, exc: BaseException) -> None:
        self._next_try = self.clock() + RETRY_S
        self.failure = str(exc) if isinstance(exc, sqlite3.Error) else f"{type(exc).__name__}: {exc}"
        self._close_quietly()  # the next try opens the file afresh (made writable again, moved back...)

    def _first_report(self) -> str | None:
        """The words for a failure, the first time a decision could not be written; then None."""
        if self._told:
            return None
        self._told = True
        return (f"the audit log {self.path} cannot be written ({self.failure}); verdicts are unchanged, "
                f"decisions are held in memory (up to {HOLD_LIMIT}) and written when it can be")

    def _recovered(self) -> str | None:
        if self.failure is None:
            return None
        self.failure, told, self._told = None, self._told, False
        lost, self._lost = self._lost, 0
        if not told:
            return None
        return f"the audit log {self.path} can be written again" + \
            (f"; {lost} decisions held while it could not were lost (over {HOLD_LIMIT})" if lost else "")

    def _close_quietly(self) -> None:
        try:
            if self._db is not None:
                self._db.close()
        except sqlite3.Error:
            pass
        self._db = None

    def _say(self, message: str) -> None:
        if self.on_problem is not None:
            try:
                self.on_problem(message)
            except Exception:  # a broken listener must not break recording
                pass

    @property
    def held(self) -> int:
        """Decisions waiting in memory for the file to be writable."""
        return len(self._held)

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
        sql = f"SELECT id, {COLUMNS} FROM decisions {where} ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._lock:
            rows = self._connect().execute(sql, params).fetchall()
        return [_entry(r) for r in reversed(rows)]

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self.entries())

    def close(self) -> None:
        self.flush()
        with self._lock:
            self._close_quietly()


_WIDTH = len(COLUMNS.split(", "))
assert _WIDTH == len(fields(AuditEntry)) - 1  # every column but the id has a field


def _row(call: ToolCall, decision: Decision, decided_by: DecidedBy, latency_ms: float, ts: float,
         via: str = "") -> tuple:
    return (ts, _cut(call.agent, 200), _cut(call.session, 200), _cut(call.tool, 200), call.summary(300),
            capped_input(call), _cut(call.cwd), decision.verdict.value, _cut(decision.reason), _cut(decision.rule, 200),
            decision.blast_radius.value, _cut(decision.category, 200), decided_by.value, latency_ms,
            _cut(via or decided_by.value, 200), *_llm_values(decision))


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
