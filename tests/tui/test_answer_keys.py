"""Every answer key, end to end: a real Claude Code payload arrives over the real broker (HTTP on
loopback), the person presses y / a / n / N, the agent's HTTP response says so, and the audit
log records the person as the decider."""
from __future__ import annotations

from guardtui.tui.screens.always_allow import AlwaysAllowScreen
from guardtui.tui.screens.deny_message import DenyMessageScreen
from guardtui.tui.widgets.guard_log import GuardLog

from .conftest import audit_rows, claude_payload, decision_of, live, selected, shown, wait_until


async def test_y_allows_once_and_the_audit_names_the_person(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        assert selected(app).call.command == "rm -rf build"
        await pilot.press("y")
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "allow"
        assert "allowed by the person" in reason
        await wait_until(pilot, lambda: len(app.queue) == 0)
        row = audit_rows(app)[-1]
        assert (row.verdict, row.decided_by, row.summary) == ("allow", "person", "rm -rf build")
        await pilot.pause()
        assert any("allowed by you (once)" in line.text for line in app.screen.query_one(GuardLog).lines)
        # once is no approval: a similar call asks again
        again = await agent.ask(pilot, "rm -rf build/x", n=1)
        await pilot.press("n")
        assert decision_of(await agent.answer(again))[0] == "deny"


async def test_n_denies_and_the_agent_is_told_why(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "git push --force-with-lease origin feature")
        await pilot.press("n")
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "deny"
        assert "denied by the person" in reason
        row = audit_rows(app)[-1]
        assert (row.verdict, row.decided_by) == ("deny", "person")


async def test_shift_n_denies_with_a_message_to_the_agent(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        await pilot.press("N")
        await shown(pilot, DenyMessageScreen)
        await pilot.press(*"use make clean", "enter")
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "deny"
        assert "use make clean" in reason
        row = audit_rows(app)[-1]
        assert (row.verdict, row.decided_by) == ("deny", "person")
        assert "use make clean" in row.reason


async def test_shift_n_offers_presets_and_escape_cancels(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        await pilot.press("N")
        await shown(pilot, DenyMessageScreen)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not isinstance(app.screen, DenyMessageScreen))
        assert len(app.queue) == 1 and not task.done()  # nothing was answered
        await pilot.press("N")
        await shown(pilot, DenyMessageScreen)
        await pilot.press("tab", "down", "enter")  # the second preset
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "deny" and "Wrong tool" in reason


async def test_a_exact_call_allows_it_now_and_for_the_rest_of_the_session(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        await pilot.press("a")
        await shown(pilot, AlwaysAllowScreen)
        await pilot.press("1")
        verdict, reason = decision_of(await agent.answer(task))
        assert verdict == "allow" and "always allowed by the person" in reason
        assert audit_rows(app)[-1].decided_by == "person"
        # the same exact call is now allowed without asking; a different one still asks
        same = agent.send(claude_payload("rm -rf build", n=1))
        assert decision_of(await agent.answer(same))[0] == "allow"
        assert audit_rows(app)[-1].decided_by == "approval"
        other = await agent.ask(pilot, "rm -rf dist", n=2)
        await pilot.press("n")
        assert decision_of(await agent.answer(other))[0] == "deny"


async def test_a_pattern_answers_the_waiting_calls_it_covers(console):
    app = console()
    async with live(app) as (pilot, agent):
        first = await agent.ask(pilot, "rm -rf build", n=1)
        second = await agent.ask(pilot, "rm -rf build/cache", n=2)
        third = await agent.ask(pilot, "rm -rf dist", n=3)
        await pilot.press("a")
        dialog = await shown(pilot, AlwaysAllowScreen)
        assert dialog.pattern_value == "rm -rf build*"  # as narrow as the call, not `rm -rf*`
        await pilot.press("2")
        assert decision_of(await agent.answer(first))[0] == "allow"
        assert decision_of(await agent.answer(second))[0] == "allow"  # covered by the pattern
        await wait_until(pilot, lambda: len(app.queue) == 1)
        assert not third.done()  # not covered
        assert [(r.decided_by, r.via) for r in audit_rows(app)[-2:]] == [
            ("person", "dialog always-allow (pattern)"), ("approval", "approval")]
        await pilot.press("n")
        await agent.answer(third)
        assert (audit_rows(app)[-1].decided_by, audit_rows(app)[-1].via) == ("person", "key n")


async def test_a_pattern_can_be_edited_before_it_is_saved(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build/cache")
        await pilot.press("a")
        await shown(pilot, AlwaysAllowScreen)
        await pilot.press("e", "ctrl+a", "ctrl+k", *"rm -rf build/*", "enter")
        assert decision_of(await agent.answer(task))[0] == "allow"
        later = agent.send(claude_payload("rm -rf build/tmp", n=1))
        assert decision_of(await agent.answer(later))[0] == "allow"
        assert audit_rows(app)[-1].decided_by == "approval"


async def test_escape_leaves_the_always_dialog_without_answering(console):
    app = console()
    async with live(app) as (pilot, agent):
        task = await agent.ask(pilot, "rm -rf build")
        await pilot.press("a")
        await shown(pilot, AlwaysAllowScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert len(app.queue) == 1 and not task.done()
        await pilot.press("y")
        assert decision_of(await agent.answer(task))[0] == "allow"


class Clock:
    """The answer pause's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_an_answer_key_is_ignored_for_a_moment_after_the_selected_call_appears_or_changes(console,
                                                                                             monkeypatch):
    """Keystrokes typed into the console's terminal by something other than the person (`tmux
    send-keys y` from the agent) land before anyone could read the call; a person's double press
    `y y` would answer the next call unread. Both are ignored, and the console says so."""
    from guardtui.tui.app import ConsoleSettings
    from guardtui.tui.screens import console as console_screen

    clock = Clock()
    monkeypatch.setattr(console_screen, "monotonic", clock)
    app = console(settings=ConsoleSettings(bell=False, popups=False, watch_plugins=False, answer_pause_s=0.6))
    async with live(app) as (pilot, agent):
        first = await agent.ask(pilot, "rm -rf build", n=1)
        second = await agent.ask(pilot, "rm -rf dist", n=2)
        for key in ("y", "a", "n", "N"):  # the call just came up: every answer key is ignored
            await pilot.press(key)
        await pilot.pause()
        assert len(app.queue) == 2 and app.screen is not None and not first.done()
        assert type(app.screen).__name__ == "ConsoleScreen"  # no dialog opened either
        clock.now += 0.7  # the person has read it
        await pilot.press("y")
        assert decision_of(await agent.answer(first))[0] == "allow"
        await wait_until(pilot, lambda: selected(app) is not None and selected(app).call.command == "rm -rf dist")
        await pilot.press("y")  # the second press of a double press: the next call just came up
        await pilot.pause()
        assert not second.done()
        clock.now += 0.7
        await pilot.press("n")
        assert decision_of(await agent.answer(second))[0] == "deny"
        assert [(r.summary, r.decided_by, r.via) for r in audit_rows(app)[-2:]] == [
            ("rm -rf build", "person", "key y"), ("rm -rf dist", "person", "key n")]


async def test_the_audit_log_says_how_each_answer_came(console):
    app = console()
    async with live(app) as (pilot, agent):
        denied = await agent.ask(pilot, "rm -rf build", n=1)
        await pilot.press("N")
        await shown(pilot, DenyMessageScreen)
        await pilot.press(*"not now", "enter")
        await agent.answer(denied)
        exact = await agent.ask(pilot, "rm -rf dist", n=2)
        await pilot.press("a")
        await shown(pilot, AlwaysAllowScreen)
        await pilot.press("1")
        await agent.answer(exact)
        again = agent.send(claude_payload("rm -rf dist", n=3))
        await agent.answer(again)
        left = await agent.ask(pilot, "git push --force-with-lease origin f", n=4)
        await app.shutdown()
        await agent.answer(left)
    assert [(r.decided_by, r.via) for r in audit_rows(app)] == [
        ("person", "dialog deny-message"), ("person", "dialog always-allow (exact)"), ("approval", "approval"),
        ("policy", "quit")]
