"""guardtui serve: the broker without a console. Asks are answered at once by `--ask` (deny, or
defer = the agent's own prompt): there is no person to wait for."""
from __future__ import annotations

import asyncio
import os
import signal
import sys

from ..broker.queue import Outcome, PendingQueue
from ..core.config import Locations
from ..core.engine import GuardEvent
from ..core.plugins import watch_plugins
from ..wiring import cli_engine, long_running


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run(args, _command: str) -> int:
    return asyncio.run(serve(args))


async def serve(args) -> int:
    from ..broker.llm_client import guard_reviewer
    from ..broker.server import DEFAULT_PORT, Broker, BrokerError

    policy = Outcome(args.ask)
    locations = Locations.from_env()
    engine = cli_engine(os.getcwd(), record=True)
    engine.on_event = print_plugin_event  # flags, rule errors, audit problems and the guard agent's progress
    queue = PendingQueue(engine, timeout_policy=policy, on_event=print_guard_event)
    reviewer = guard_reviewer(locations, engine)
    broker = Broker(engine, queue, locations, port=DEFAULT_PORT if args.port is None else args.port,
                    ask_policy=policy, reviewer=reviewer)
    try:
        await broker.start()
    except BrokerError as exc:
        print(f"guardtui serve: {exc}", file=sys.stderr)
        return 1
    long_running()  # start-up is over: out of the garbage collector's reach
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    received: list[str] = []
    for sig in STOP_SIGNALS:  # each is `q`: what waits is answered by policy and audited
        loop.add_signal_handler(sig, lambda sig=sig: (received.append(sig.name), stop.set()))
    print(f"guardtui serve: listening on {broker.url} and {broker.socket_path}; asks are answered "
          f"{'deny' if policy is Outcome.DENY else 'defer (the agent asks)'}", flush=True)
    guard = f"the guard agent reviews unrecognised calls: {reviewer.settings.describe()}" if reviewer else \
        "no guard agent (no llm: in settings.yaml): unrecognised calls are asks"
    print(f"guardtui serve: {guard}", flush=True)
    # plugin files are hot-reloaded; what changed (or does not load) is printed
    watcher = asyncio.create_task(watch_plugins(engine, locations, os.getcwd(), print_plugin_event, stop))
    try:
        await stop.wait()
    finally:
        stop.set()
        await watcher
        why = f"guardtui serve stopped ({received[0]})" if received else "guardtui serve stopped"
        count = await queue.close(why, via=f"signal {received[0]}" if received else "quit")
        for sig in STOP_SIGNALS:
            loop.remove_signal_handler(sig)
        await broker.stop()
        print(f"guardtui serve: stopped ({count} pending call(s) answered by policy)", flush=True)
    return 0


def print_plugin_event(event: GuardEvent) -> None:
    print(f"guardtui serve: {event.kind}: {event.message}", file=sys.stderr, flush=True)


def print_guard_event(event: GuardEvent) -> None:
    """The guard log of a console with no screen: what the person must know, on stderr."""
    if event.kind in ("audit-error", "rule-error", "overflow", "shutdown", "socket"):
        print_plugin_event(event)
