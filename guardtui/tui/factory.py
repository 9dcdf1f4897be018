"""Build the console: the one place that wires engine, queue and broker into a GuardApp.

`guardtui` / `guardtui console` and `guardtui demo` call these; so do the tests, the
screenshot script and the benchmark (with their own worlds and clocks).
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Callable

from ..broker.queue import Outcome, PendingQueue
from ..core.config import Locations
from ..core.engine import Engine
from ..wiring import cli_engine
from ..core.shell.analyze import Analyzer
from .app import ConsoleSettings, Feeder, GuardApp
from .demo import DemoFeeder, DemoWorld, build_world, scenario


def console_engine(locations: Locations, cwd: str, *, path_env: str | None = None) -> Engine:
    """The engine over the user's config and the project's plugins, recording to the audit log."""
    return cli_engine(cwd, record=True, locations=locations, path_env=path_env)


def make_app(engine: Engine, *, locations: Locations, cwd: str, port: int | None = None, broker: bool = True,
             unix_socket: bool = True, feeder: Feeder | None = None, settings: ConsoleSettings = ConsoleSettings(),
             timeout_policy: Outcome = Outcome.DEFER, clock: Callable[[], float] = time.time,
             display_home: str | None = None, guard_agent: bool = False) -> GuardApp:
    """A GuardApp with its queue and (unless `broker` is False) its broker; with `guard_agent`, the
    guard agent the person configured reviews the calls the rules escalate."""
    queue = PendingQueue(engine, timeout_policy=timeout_policy, clock=clock)
    server = None
    if broker:
        from ..broker.llm_client import guard_reviewer
        from ..broker.server import DEFAULT_PORT, Broker
        server = Broker(engine, queue, locations, port=DEFAULT_PORT if port is None else port,
                        unix_socket=unix_socket, reviewer=guard_reviewer(locations, engine) if guard_agent else None)
    return GuardApp(engine, queue, locations=locations, cwd=cwd, broker=server, feeder=feeder, settings=settings,
                    clock=clock, display_home=display_home)


def make_console(*, port: int | None = None, broker: bool = True, settings: ConsoleSettings = ConsoleSettings(),
                 cwd: str | None = None, timeout_policy: Outcome = Outcome.DEFER) -> GuardApp:
    """`guardtui`: the person's own config, audit log and plugins; the broker on its port."""
    locations = Locations.from_env()
    cwd = cwd or os.getcwd()
    return make_app(console_engine(locations, cwd), locations=locations, cwd=cwd, port=port, broker=broker,
                    settings=settings, timeout_policy=timeout_policy, guard_agent=True)


def demo_engine(world: DemoWorld) -> Engine:
    """The demo world's engine: its own config and audit log; every command counts as installed."""
    engine = console_engine(world.locations, str(world.project), path_env="")
    engine.analyzer = Analyzer(command_exists=lambda _name: True)
    engine.home = str(world.home)
    return engine


def make_demo(root: Path, *, port: int | None = 0, settings: ConsoleSettings = ConsoleSettings(),
              speed: float = 1.0, repeat_after_s: float | None = 45.0, clock: Callable[[], float] = time.time,
              feed: bool = True) -> tuple[GuardApp, DemoWorld]:
    """`guardtui demo`: a throwaway world under `root`, the broker on a free loopback port (no
    Unix socket, so it never meets a console that is running), the scenario feeding it."""
    world = build_world(root)
    feeder = DemoFeeder(scenario(world.project, world.second), repeat_after_s=repeat_after_s, speed=speed) if feed else None
    app = make_app(demo_engine(world), locations=world.locations, cwd=str(world.project), port=port,
                   unix_socket=False, feeder=feeder, settings=settings, clock=clock,
                   display_home=str(world.home))
    return app, world
