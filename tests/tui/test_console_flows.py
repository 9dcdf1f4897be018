"""The main screen's other keys and flows: moving, the selection under a stream of new calls,
dimmed keys, critical calls, the bell and notifications, help, screens, timeouts, quitting."""
from __future__ import annotations

import os
import stat

from guardtui.core.model import BlastRadius, Decision, Verdict
from guardtui.tui.app import ConsoleSettings
from guardtui.tui.screens.always_allow import AlwaysAllowScreen
from guardtui.tui.screens.console import ConsoleScreen
from guardtui.tui.screens.help import HelpScreen
from guardtui.tui.screens.quit_confirm import QuitScreen
from guardtui.tui.widgets.call_detail import CallDetail
from guardtui.tui.widgets.guard_log import GuardLog
from guardtui.tui.widgets.pending_list import PendingList

from ..conftest import PROJECT
from .conftest import (QUIET, audit_rows, bash, claude_payload, decision_of, listening, live, screen_text, selected,
                       shown, submit_direct, wait_until)

ANSWER_KEYS = ("allow_once", "always_allow", "deny", "deny_message")


async def test_j_k_and_arrows_move_and_the_detail_follows(console):
    app = console()
    async with live(app) as (pilot, agent):
        for n, command in enumerate(("rm -rf build", "rm -rf dist", "rm -rf out"), 1):
            await agent.ask(pilot, command, n=n)
        assert selected(app).call.command == "rm -rf build"  # the oldest first
        await pilot.press("j")
        assert selected(app).call.command == "rm -rf dist"
        await pilot.press("down")
        assert selected(app).call.command == "rm -rf out"
        await pilot.press("down")  # stays on the last
        assert selected(app).call.command == "rm -rf out"
        await pilot.press("k")
        assert selected(app).call.command == "rm -rf dist"
        await pilot.press("up", "up")
        assert selected(app).call.command == "rm -rf build"
        await pilot.press("G")
        assert selected(app).call.command == "rm -rf out"
        await pilot.press("g")
        await pilot.pause()
        assert app.screen.query_one(CallDetail).pending.call.command == "rm -rf build"
        assert "$ rm -rf build" in screen_text(app)
        await pilot.press("y", "y", "y")
        for task in agent.tasks:
            await agent.answer(task)


async def test_new_calls_stream_in_without_moving_the_selection(console):
    app = console()
    async with live(app) as (pilot, agent):
        await agent.ask(pilot, "rm -rf a", n=1)
        await agent.ask(pilot, "rm -rf b", n=2)
        await pilot.press("j")
        assert selected(app).call.command == "rm -rf b"
        for n in range(3, 9):
            agent.send(claude_payload(f"rm -rf c{n}", n=n))
        await wait_until(pilot, lambda: len(app.screen.query_one(PendingList)) == 8)
        assert selected(app).call.command == "rm -rf b"
        # an older call answered elsewhere (its timeout, another key): the selection stays put
        oldest = app.queue.pending()[0]
        app.queue.deny(oldest.id)
        await wait_until(pilot, lambda: len(app.screen.query_one(PendingList)) == 7)
        assert selected(app).call.command == "rm -rf b"
        # answering the selected call selects the next one
        await pilot.press("y")
        await wait_until(pilot, lambda: selected(app).call.command == "rm -rf c3")
        await app.queue.close()
        for task in agent.tasks:
            await agent.answer(task)


async def test_answer_keys_dim_when_the_queue_is_empty(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, ConsoleScreen)
        assert all(screen.check_action(a, ()) is None for a in ANSWER_KEYS)
        await pilot.press("y", "n", "a", "N")  # nothing happens, nothing breaks
        assert isinstance(app.screen, ConsoleScreen)
        submit_direct(app, bash("rm -rf build"))
        await wait_until(pilot, lambda: selected(app) is not None)
        assert all(screen.check_action(a, ()) is True for a in ANSWER_KEYS)
        await pilot.press("n")
        await wait_until(pilot, lambda: selected(app) is None)
        assert all(screen.check_action(a, ()) is None for a in ANSWER_KEYS)


async def test_a_critical_call_cannot_be_always_allowed(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 36)) as pilot:
        critical = Decision(Verdict.ASK, "a plugin asks about production", "plugins/prod", BlastRadius.CRITICAL,
                            "deploy")
        app.run_worker(app.queue.submit(bash("kubectl --context prod delete ns shop"), critical, 120),
                       group="test-agents")
        await wait_until(pilot, lambda: selected(app) is not None)
        screen = app.screen
        assert screen.check_action("always_allow", ()) is None  # dimmed
        assert screen.check_action("allow_once", ()) is True
        await pilot.press("a")
        await pilot.pause()
        assert not isinstance(app.screen, AlwaysAllowScreen)
        assert "never for a critical call" in screen_text(app)
        # and the app refuses it even when asked directly
        from guardtui.core.session import exact_approval
        from guardtui.tui.screens.always_allow import AlwaysChoice

        pending = selected(app)
        assert await app.answer_always(pending, AlwaysChoice("exact", exact_approval(pending.call))) is False
        assert len(app.queue) == 1
        await pilot.press("y")
        await wait_until(pilot, lambda: len(app.queue) == 0)
        assert audit_rows(app)[-1].decided_by == "person"


async def test_a_new_call_rings_the_bell_and_notifies(console, monkeypatch, tmp_path):
    rings: list[int] = []
    app = console(broker=False, settings=ConsoleSettings(watch_plugins=False, answer_pause_s=0))
    monkeypatch.setattr(app, "bell", lambda: rings.append(1))
    monkeypatch.setattr("guardtui.tui.app.NOTIFY_EVERY_S", 0.0)
    async with app.run_test(size=(120, 36)) as pilot:
        # on the console the queue shows the call: the bell rings, no popup covers the events
        submit_direct(app, bash("rm -rf build"))
        await wait_until(pilot, lambda: len(app.queue) == 1)
        await pilot.pause()
        assert rings == [1]
        assert not any(n.title == "Approval needed" for n in app._notifications)
        # on another tab the person cannot see the queue: a popup says what came in
        await pilot.press("3")
        await wait_until(pilot, lambda: app.current_mode == "playground")
        submit_direct(app, bash("rm -rf dist"))
        await wait_until(pilot, lambda: len(app.queue) == 2)
        await pilot.pause()
        assert rings == [1, 1]
        assert any("rm -rf dist" in n.message and n.title == "Approval needed" for n in app._notifications)
        await app.queue.close()


async def test_a_burst_of_calls_rings_once(console, monkeypatch):
    rings: list[int] = []
    app = console(broker=False, settings=ConsoleSettings(watch_plugins=False, answer_pause_s=0))
    monkeypatch.setattr(app, "bell", lambda: rings.append(1))
    monkeypatch.setattr("guardtui.tui.app.NOTIFY_EVERY_S", 3600.0)  # the whole burst falls in one window
    async with app.run_test(size=(120, 36)) as pilot:
        for n in range(21):
            submit_direct(app, bash(f"rm -rf build{n}"))
        await wait_until(pilot, lambda: len(app.queue) == 21)
        assert rings == [1]
        await app.queue.close()


async def test_desktop_notifications_are_off_by_default_and_use_notify_send(console, monkeypatch, tmp_path):
    calls = tmp_path / "calls"
    fake = tmp_path / "bin" / "notify-send"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\necho \"$@\" >> {calls}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    for desktop in (False, True):
        app = console(broker=False, settings=ConsoleSettings(watch_plugins=False, bell=False, desktop=desktop,
                                                             answer_pause_s=0))
        async with app.run_test(size=(120, 36)) as pilot:
            submit_direct(app, bash("rm -rf build"))
            await wait_until(pilot, lambda: len(app.queue) == 1)
            if desktop:
                await wait_until(pilot, calls.exists, what="notify-send")
            else:
                await pilot.pause(0.3)
                assert not calls.exists()
            await app.queue.close()
    assert "Approval needed" in calls.read_text() and "rm -rf build" in calls.read_text()


async def test_question_mark_shows_help_and_escape_closes_it(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = screen_text(app)
        assert "always allow" in text and "deny it with a message" in text
        await pilot.press("escape")
        assert isinstance(app.screen, ConsoleScreen)


async def test_number_keys_switch_screens(console):
    app = console(broker=False)
    async with app.run_test(size=(120, 36)) as pilot:
        for key, mode in (("2", "rules"), ("5", "history"), ("4", "editor"), ("1", "console")):
            await pilot.press(key)
            await pilot.pause()
            assert app.current_mode == mode
        await pilot.press("3")
        await pilot.pause()
        assert app.current_mode == "playground"
        await pilot.press("escape", "1")  # leave the command field, then switch
        await pilot.pause()
        assert app.current_mode == "console"


async def test_rule_decisions_appear_in_the_guard_log(console):
    app = console()
    async with live(app) as (pilot, agent):
        allowed = agent.send(claude_payload("ls -la", n=1))
        denied = agent.send(claude_payload("rm -rf ~", n=2))
        assert decision_of(await agent.answer(allowed))[0] == "allow"
        assert decision_of(await agent.answer(denied))[0] == "deny"
        log = app.screen.query_one(GuardLog)
        await wait_until(pilot, lambda: len([line for line in log.lines if line.label in ("allowed", "denied")]) == 2)
        lines = {line.label: line for line in log.lines}
        assert lines["allowed"].rule.startswith("default") and "ls -la" in lines["allowed"].text
        assert lines["denied"].rule == "dangerous-shell/fs.rm" and "home directory" in lines["denied"].text
        assert len(app.queue) == 0  # neither one asked the person


async def test_an_unanswered_call_times_out_by_policy_and_says_so(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build", timeout_s=1)
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "ask" and "handed back" in reason  # defer: Claude Code asks its person
        await wait_until(pilot, lambda: selected(app) is None)
        assert any(line.label == "timeout" for line in app.screen.query_one(GuardLog).lines)
        assert audit_rows(app)[-1].decided_by == "timeout"


async def test_quit_with_calls_waiting_asks_then_answers_them_by_policy(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        await pilot.press("q")
        await shown(pilot, QuitScreen)
        text = screen_text(app)
        assert "1 call is waiting" in text and "claude 1: 1 call handed back to its own prompt" in text
        await pilot.press("n", "y")  # the answer keys neither answer the call nor quit here
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen) and len(app.queue) == 1 and not task.done()
        await pilot.press("escape")  # stay
        await pilot.pause()
        assert isinstance(app.screen, ConsoleScreen) and len(app.queue) == 1
        await pilot.press("q")
        await shown(pilot, QuitScreen)
        await pilot.press("q")
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "ask" and "the console quit" in reason
        await wait_until(pilot, lambda: app._exit)
    assert app.quit_summary == "guardtui: claude 1: 1 call handed back to its own prompt."
    assert audit_rows(app)[-1].decided_by == "policy"
    assert app.broker_state == "stopped"


async def test_quit_says_per_agent_what_happens_to_its_calls(console):
    """Codex's PreToolUse calls cannot go back to Codex's prompt: quitting denies them, and says so."""
    app = console()
    async with live(app) as (pilot, agent):
        claude = await agent.ask(pilot, "rm -rf build", n=1)
        codex_payload = {"session_id": "019a-codex", "cwd": PROJECT, "hook_event_name": "PreToolUse",
                         "permission_mode": "default", "tool_name": "Bash", "tool_input": {"command": "rm -rf dist"},
                         "tool_use_id": "call_1"}
        codex = agent.send(codex_payload, agent="codex")
        await wait_until(pilot, lambda: len(app.queue) == 2)
        await pilot.press("q")
        await shown(pilot, QuitScreen)
        text = screen_text(app)
        assert "claude 1: 1 call handed back to its own prompt" in text
        assert "codex 1: 1 call denied (Codex's PreToolUse hook cannot ask" in text
        await pilot.press("ctrl+q")
        assert decision_of(await agent.answer(claude))[0] == "ask"
        codex_body = await agent.answer(codex)
        assert codex_body["hookSpecificOutput"]["permissionDecision"] == "deny"
        await wait_until(pilot, lambda: app._exit)
    assert app.quit_summary.startswith("guardtui: claude 1: 1 call handed back to its own prompt; codex 1: 1 call "
                                       "denied (Codex's PreToolUse hook cannot ask")


async def test_quit_with_nothing_waiting_quits_at_once(console):
    app = console()
    async with live(app) as (pilot, _agent):
        await pilot.press("q")
        await wait_until(pilot, lambda: app._exit)
    assert app.quit_summary == ""


async def test_a_broker_that_cannot_start_is_shown_not_fatal(console, make_engine):
    from guardtui.core.config import Locations
    from guardtui.tui.factory import make_app

    blocker = console()
    async with blocker.run_test() as outer:
        await listening(outer)
        taken = blocker.broker.port
        app = make_app(make_engine(), locations=Locations.from_env(), cwd="/", port=taken, unix_socket=False,
                       settings=QUIET)
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_until(pilot, lambda: app.broker_state == "failed")
            await pilot.pause()
            text = screen_text(app)
            assert "The broker could not start" in text
            assert any(line.label == "broker" and line.tone == "error"
                       for line in app.screen.query_one(GuardLog).lines)
