"""The guard agent in the console: the call waits in the queue marked REVIEWING while the model
thinks (no bell yet), the progress reaches the guard log in amber, its reason lands on the call,
the person answers as ever, and History shows what the review cost. The console is built the way
`guardtui` builds it (settings from GUARDTUI_LLM_*); the model is a scripted loopback server."""
from __future__ import annotations

import threading

from guardtui.core.config import Locations
from guardtui.tui.factory import make_app
from guardtui.tui.screens.history import HistoryScreen
from guardtui.tui.widgets.call_detail import CallDetail
from guardtui.tui.widgets.guard_log import GuardLog
from guardtui.tui.widgets.warning_block import WarningBlock

from ..conftest import PROJECT
from ..tui.conftest import QUIET, claude_payload, decision_of, live, screen_text, wait_until
from .conftest import installed
from .fake_model import answer, say, tools


def guard_log(app) -> list[str]:
    return [f"{line.label} {line.text}" for line in app.screen.query_one(GuardLog).lines]


async def test_the_console_shows_the_review_and_the_person_answers(make_engine, model, monkeypatch):
    monkeypatch.setenv("GUARDTUI_LLM_BASE_URL", model.url)
    monkeypatch.setenv("GUARDTUI_LLM_MODEL", "guard-7b")
    gate = threading.Event()

    def thinking(_body):
        gate.wait(20)
        return say("ASK: frobnicate --all rewrites every tenant's config", usage=(700, 20))

    model.script(tools(("load_skill", {"id": "simulate"})), answer(thinking), say("ALLOW"))
    app = make_app(installed(make_engine()), locations=Locations.from_env(), cwd=PROJECT, port=0, unix_socket=False,
                   settings=QUIET, guard_agent=True)
    assert app.broker.reviewer is not None and app.broker.reviewer.settings.model == "guard-7b"
    async with live(app, size=(130, 40)) as (pilot, agent):
        rings = []
        app.bell = lambda: rings.append(1)  # type: ignore[method-assign]
        app.settings = type(app.settings)(bell=True, popups=False, watch_plugins=False, answer_pause_s=0)
        task = agent.send(claude_payload("frobnicate --all", n=1))
        await wait_until(pilot, lambda: len(model.requests) == 2, what="the second turn")
        await pilot.pause()
        assert len(app.queue) == 1 and app.queue.pending()[0].reviewing
        text = screen_text(app)
        assert "REVIEWING" in text and "the guard agent is reviewing it" in text
        log = guard_log(app)
        assert f"agent the guard agent reviews unrecognised calls: guard-7b at {model.url} (agent mode, up to 5 " \
               "turns, 20 s per call)" in log
        assert "agent claude evaluating: frobnicate --all · skills: bash" in log
        assert "agent claude frobnicate --all — turn 1: loads skill simulate" in log
        assert rings == []  # no bell while the guard agent may still answer it
        gate.set()
        await wait_until(pilot, lambda: not app.queue.pending()[0].reviewing, what="the review's end")
        await pilot.pause()
        detail = app.screen.query_one(CallDetail)
        assert detail.pending is app.queue.pending()[0]
        warning = detail.query_one(WarningBlock).plain
        assert warning.endswith("guard agent: frobnicate --all rewrites every tenant's config")
        assert "◆ the guard agent asks you (guard-7b, " in detail.query_one("#detail-why").visual.plain
        assert "REVIEWING" not in screen_text(app)
        assert rings == [1]  # now it needs the person
        await pilot.press("y")
        verdict, _ = decision_of(await agent.answer(task))
        assert verdict == "allow"
        # a call the model allows never waits for the person; the guard log says who let it through
        allowed = agent.send(claude_payload("frobnicate --some", n=2))
        verdict, reason = decision_of(await agent.answer(allowed))
        assert (verdict, reason) == ("allow", "guardtui: allowed by the guard agent")
        await wait_until(pilot, lambda: any("allowed by the guard agent" in line for line in guard_log(app)),
                         what="the guard log line")
        rows = app.engine.audit.entries()
        assert [(r.verdict, r.decided_by, r.llm_model, r.llm_turns) for r in rows] == [
            ("allow", "person", "guard-7b", 2), ("allow", "llm", "guard-7b", 1)]
        await pilot.press("5")
        await wait_until(pilot, lambda: isinstance(app.screen, HistoryScreen), what="History")
        await pilot.pause()
        entry = app.screen.query_one("#history-entry").visual.plain
        assert "by llm" in entry and "guard agent guard-7b:" in entry and "1 turn(s), 132 tokens" in entry
