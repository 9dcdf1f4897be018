"""Stagings of the real console for snapshot tests and README screenshots: the demo world and
its scenario, judged by the engine and queued the way the broker does, but with no network
and a fixed clock, so every run draws the same screen."""
from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..adapters import adapter_for
from ..core.model import DecidedBy, ToolCall, Verdict
from .app import ConsoleSettings, GuardApp
from .demo import DemoWorld, build_world, scenario
from .factory import demo_engine, make_app

T0 = 1_767_225_600.0  # 2026-01-01 00:00:00 UTC
STILL = ConsoleSettings(bell=False, popups=False, watch_plugins=False, answer_pause_s=0)
SHOWN_ADDRESS = "127.0.0.1:8765"


class FixedClock:
    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Stage:
    app: GuardApp
    world: DemoWorld
    clock: FixedClock


def stage(root: Path, clock: FixedClock | None = None) -> Stage:
    """The demo world under `root` and a console over it (no broker, no watcher, no bell)."""
    clock = clock or FixedClock()
    world = build_world(root)
    app = make_app(demo_engine(world), locations=world.locations, cwd=str(world.project), broker=False,
                   settings=STILL, clock=clock, display_home=str(world.home))
    return Stage(app, world, clock)


def scenario_calls(world: DemoWorld) -> list[ToolCall]:
    return [adapter_for(step.agent).parse(step.payload) for step in scenario(world.project, world.second)]


async def play(stage_: Stage, pilot: Any, calls: list[ToolCall] | None = None, gap_s: float = 4.0,
               settle_s: float = 20.0) -> None:
    """Judge each call as the broker would: rule answers go to the log, asks wait in the queue."""
    app, clock = stage_.app, stage_.clock
    app.broker_state, app.broker_detail = "listening", SHOWN_ADDRESS
    for call in calls if calls is not None else scenario_calls(stage_.world):
        decision = app.engine.evaluate(call, record=False)
        if decision.verdict in (Verdict.ALLOW, Verdict.DENY):
            app._broker_decided(call, decision, DecidedBy.RULE)
        else:
            count = len(app.queue)
            app.run_worker(app.queue.submit(call, decision, 185.0), group="staging", exit_on_error=False)
            while len(app.queue) == count:
                await asyncio.sleep(0.01)
        await pilot.pause()
        clock.advance(gap_s)
    clock.advance(settle_s)
    for screen in app.screen_stack:
        if hasattr(screen, "refresh_times"):
            screen.refresh_times()
    await pilot.pause()


def still(app: GuardApp) -> None:
    """No blinking cursors in a picture."""
    for widget in app.screen.query("Input, TextArea"):
        widget.cursor_blink = False  # type: ignore[attr-defined]
