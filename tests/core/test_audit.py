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
