"""The audit log is a real SQLite file that survives reopening and filters."""
from __future__ import annotations

from guardtui.core.audit import AuditLog
from guardtui.core.model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict


def test_entries_round_trip_through_the_file_and_filter(tmp_path):
    path = tmp_path / "state" / "audit.db"
    log = AuditLog(path)
    c1 = ToolCall("Bash", {"command": "rm -rf ~"}, "/p", agent="claude", session="s1")
    c2 = ToolCall("Write", {"file_path": "/p/x", "content": "hi"}, "/p", agent="codex", session="s2")
    log.record(c1, Decision(Verdict.DENY, "deletes home", "dangerous-shell/fs.rm", BlastRadius.CRITICAL, "fs-delete"),
               DecidedBy.RULE, 0.4, ts=1000.0)
    log.record(c2, Decision(Verdict.ALLOW, "ok", "default"), DecidedBy.PERSON, 2500.0, ts=1001.0)
    log.close()
    reopened = AuditLog(path)
    entries = reopened.entries()
    assert [(e.verdict, e.decided_by, e.agent) for e in entries] == [("deny", "rule", "claude"),
                                                                      ("allow", "person", "codex")]
    assert entries[0].input == {"command": "rm -rf ~"} and entries[0].blast_radius == "critical"
    assert [e.tool for e in reopened.entries(verdict="allow")] == ["Write"]
    assert [e.agent for e in reopened.entries(text="home")] == ["claude"]
    assert [e.agent for e in reopened.entries(limit=1)] == ["codex"]  # the newest


def test_a_row_is_bounded_whatever_the_call_carries(tmp_path):
    """50 MB of input makes a row of at most MAX_INPUT_CHARS that still reads back as JSON, saying what
    was cut; a small input is kept whole."""
    from guardtui.core.audit import MAX_INPUT_CHARS, MAX_TEXT_CHARS

    log = AuditLog(tmp_path / "audit.db")
    huge = "x" * (50 * 1024 * 1024)
    big_call = ToolCall("Write", {"file_path": "/p/big.txt", "content": huge, "many": ["y" * 100] * 10_000},
                        "/p" + "/d" * 5000, agent="claude")
    log.record(big_call, Decision(Verdict.ASK, "why " * 10_000, "r"), DecidedBy.POLICY, 1.0)
    log.record(ToolCall("Bash", {"command": "ls"}, "/p", agent="claude"), Decision(Verdict.ALLOW, "ok", "r"),
               DecidedBy.RULE, 1.0)
    [big, small] = log.entries()
    row = log._db.execute("SELECT length(input), length(reason), length(cwd) FROM decisions WHERE id = ?",
                          (big.id,)).fetchone()
    assert row[0] <= MAX_INPUT_CHARS and row[1] <= MAX_TEXT_CHARS + 40 and row[2] <= MAX_TEXT_CHARS + 40
    assert big.input["file_path"] == "/p/big.txt" and big.input["content"].endswith(f"[{len(huge)} characters, cut]")
    assert small.input == {"command": "ls"}
    assert (tmp_path / "audit.db").stat().st_size < 2 * 1024 * 1024


def test_written_behind_rows_are_all_there_in_order_when_read(tmp_path):
    """The broker's audit log writes from a writer thread: a read sees every row recorded before it."""
    import threading

    log = AuditLog(tmp_path / "audit.db")
    log.write_behind()

    def agent(n: int) -> None:
        for i in range(200):
            log.record(ToolCall("Bash", {"command": f"echo {n}-{i}"}, "/p", agent=f"a{n}"),
                       Decision(Verdict.ALLOW, "ok", "r"), DecidedBy.RULE, 0.1)

    threads = [threading.Thread(target=agent, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    entries = log.entries()
    assert len(entries) == 800
    for n in range(4):
        assert [e.summary for e in entries if e.agent == f"a{n}"] == [f"echo {n}-{i}" for i in range(200)]
    log.record(ToolCall("Bash", {"command": "last"}, "/p"), Decision(Verdict.DENY, "no", "r"), DecidedBy.RULE, 0.1)
    log.close()
    assert AuditLog(tmp_path / "audit.db").entries()[-1].summary == "last"
