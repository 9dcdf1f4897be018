"""Snapshots of every screen (pytest-textual-snapshot). Deterministic: the demo world staged
with a fixed clock and fixed ids, no network, times in UTC. Accept a change that you looked
at with `pytest tests/tui/test_snapshots.py --snapshot-update`."""
from __future__ import annotations

import pytest

from guardtui.core.model import BlastRadius, Decision, DecidedBy, ToolCall, Verdict
from guardtui.tui.staging import T0, play, stage, still

WIDE, NARROW, LARGE = (120, 36), (80, 24), (160, 48)


@pytest.fixture
def staged(tmp_path):
    return stage(tmp_path / "demo")


def playing(staged, *keys: str, after=None):
    async def run_before(pilot) -> None:
        await play(staged, pilot)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
        if after is not None:
            await after(pilot)
        still(staged.app)
        await pilot.pause()

    return run_before


def test_console_wide(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged))


def test_console_80x24(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=NARROW, run_before=playing(staged))


def test_console_large_terminal(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=LARGE, run_before=playing(staged, "j"))


def test_console_empty(snap_compare, staged):
    async def run_before(pilot) -> None:
        staged.app.broker_state, staged.app.broker_detail = "listening", "127.0.0.1:8765"
        await pilot.pause()

    assert snap_compare(staged.app, terminal_size=WIDE, run_before=run_before)


def test_console_file_diff(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "j"))


def test_always_allow_dialog(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "G", "a"))


def test_deny_with_message_dialog(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "N"))


def test_help(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "question_mark"))


def test_quit_dialog(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=NARROW, run_before=playing(staged, "q"))


def test_rules(snap_compare, staged):
    async def after(pilot) -> None:
        staged.app.last_reload = T0
        staged.app.screen.load()
        await pilot.pause()

    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "2", "j", after=after))


def test_playground(snap_compare, staged):
    async def after(pilot) -> None:
        await pilot.press(*"ls && rm -rf build; git status")
        await pilot.pause(0.3)

    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "3", after=after))


def test_editor(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=WIDE, run_before=playing(staged, "4", "j", "enter"))


def test_history(snap_compare, staged):
    audit = staged.app.engine.audit
    rows = [("claude", {"command": "git status --short"}, Verdict.ALLOW, "git status only reads", "default/git.read",
             DecidedBy.RULE),
            ("codex", {"command": "psql -c 'DROP TABLE orders'"}, Verdict.DENY, "DROP TABLE deletes a table",
             "dangerous-shell/sql.destructive", DecidedBy.RULE),
            ("claude", {"command": "rm -rf node_modules dist && npm ci"}, Verdict.ALLOW,
             "allowed by the person — rm -rf node_modules recursively deletes a path in the project",
             "dangerous-shell/fs.rm", DecidedBy.PERSON),
            ("codex", {"command": "docker run --rm -v /:/host alpine sh"}, Verdict.DENY,
             "denied by the person: use the compose file", "plugins/docker-approval", DecidedBy.PERSON)]
    for n, (agent, tool_input, verdict, reason, rule, by) in enumerate(rows):
        call = ToolCall("Bash", tool_input, str(staged.world.project), agent=agent, session="s")
        audit.record(call, Decision(verdict, reason, rule, BlastRadius.MEDIUM, "c"), by, 12.0, ts=T0 + 60 * n)

    async def run_before(pilot) -> None:
        await pilot.press("5")
        await pilot.pause()
        still(staged.app)

    assert snap_compare(staged.app, terminal_size=WIDE, run_before=run_before)


# -- the console for several agents (80×24 and 160×48) ---------------------------------------
def test_console_marked_80x24(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=NARROW, run_before=playing(staged, "space", "space"))


def test_console_filtered_by_agent_80x24(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=NARROW,
                        run_before=playing(staged, "slash", *"codex", "enter"))


def test_console_grouped_by_project_large(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=LARGE, run_before=playing(staged, "o", "o", "space"))


def test_console_what_the_agent_was_doing_large(snap_compare, staged):
    async def after(pilot) -> None:
        await pilot.press("w")
        await pilot.pause(0.3)  # the transcript is read off the loop

    assert snap_compare(staged.app, terminal_size=LARGE, run_before=playing(staged, after=after))


def test_deny_all_from_an_agent_80x24(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=NARROW, run_before=playing(staged, "G", "D"))


def test_quit_dialog_large(snap_compare, staged):
    assert snap_compare(staged.app, terminal_size=LARGE, run_before=playing(staged, "q"))
