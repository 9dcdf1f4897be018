"""History: the audit log, filterable by verdict, agent, tool and text; live as calls end."""
from __future__ import annotations

from guardtui.core.model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from guardtui.tui.screens.history import HistoryScreen

from .conftest import T0, Agent, claude_payload, listening, wait_until

ROWS = [
    ("claude", "Bash", {"command": "ls -la"}, Verdict.ALLOW, "ls only reads", "default", DecidedBy.RULE),
    ("claude", "Bash", {"command": "rm -rf ~"}, Verdict.DENY, "deletes your home", "dangerous-shell/fs.rm",
     DecidedBy.RULE),
    ("codex", "Write", {"file_path": "/p/.env", "content": "x"}, Verdict.ALLOW, "allowed by the person",
     "sensitive", DecidedBy.PERSON),
    ("codex", "Bash", {"command": "docker run ubuntu"}, Verdict.DENY, "denied by the person: use podman",
     "plugins/docker", DecidedBy.PERSON),
]


def seed(app) -> None:
    for n, (agent, tool, tool_input, verdict, reason, rule, by) in enumerate(ROWS):
        call = ToolCall(tool, tool_input, "/p", agent=agent, session="s")
        app.engine.audit.record(call, Decision(verdict, reason, rule, BlastRadius.MEDIUM, "c"), by, 1.0,
                                ts=T0 + n * 60)


def table_rows(screen) -> list[str]:
    return [entry.summary for entry in screen._entries]


async def test_history_filters_by_verdict_agent_tool_and_text(console):
    app = console(broker=False)
    seed(app)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("5")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        screen = app.screen
        await pilot.pause()
        assert table_rows(screen) == ["docker run ubuntu", "/p/.env", "rm -rf ~", "ls -la"]  # newest first
        screen.query_one("#filter-verdict").value = "deny"
        await pilot.pause()
        assert table_rows(screen) == ["docker run ubuntu", "rm -rf ~"]
        screen.query_one("#filter-agent").value = "codex"
        await pilot.pause()
        assert table_rows(screen) == ["docker run ubuntu"]
        screen.query_one("#filter-verdict").value = ""
        screen.query_one("#filter-tool").value = "Write"
        await pilot.pause()
        assert table_rows(screen) == ["/p/.env"]
        screen.query_one("#filter-tool").value = ""
        screen.query_one("#filter-agent").value = ""
        await pilot.press("slash", *"podman", "enter")  # `/` searches calls, reasons and rules
        await pilot.pause()
        assert table_rows(screen) == ["docker run ubuntu"]
        assert "use podman" in screen.query_one("#history-entry").visual.plain


async def test_history_follows_new_decisions(console):
    app = console()
    async with app.run_test(size=(120, 36)) as pilot:
        await listening(pilot)
        await pilot.press("5")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen))
        agent = Agent(app)
        await agent.answer(agent.send(claude_payload("ls -la")))
        await wait_until(pilot, lambda: table_rows(app.screen) == ["ls -la"], what="the new row")
