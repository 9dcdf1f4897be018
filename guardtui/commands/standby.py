"""guardtui standby: the offline command hook's judging kept warm (guardtui/broker/standby.py).

    guardtui standby --socket PATH [--idle S]   started by the command hook, detached; not run by hand
    guardtui standby --stop                      stop every standby of this user
"""
from __future__ import annotations

import asyncio
import os
import signal
import sys

from ..core.config import Locations, ensure_private_dir


def run(args, _command: str) -> int:
    locations = Locations.from_env()
    if args.stop:
        from ..broker.standby import stop_standbys

        count = asyncio.run(stop_standbys(locations.runtime_dir))
        print(f"guardtui standby: {count} standby process(es) asked to stop")
        return 0
    if not args.socket:
        print("guardtui standby: --socket PATH (the command hook starts it) or --stop", file=sys.stderr)
        return 2
    _detach(locations)
    return asyncio.run(_serve(locations, args.socket, args.idle))


def _detach(locations: Locations) -> None:
    """Hold nothing of the agent's: no inherited descriptors; errors go to standby.log in the runtime dir."""
    for fd in _open_descriptors():
        if fd > 2:
            try:
                os.close(fd)
            except OSError:
                pass
    ensure_private_dir(locations.runtime_dir)
    log = os.open(locations.runtime_dir / "standby.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(log, 2)
    os.close(log)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


def _open_descriptors() -> list[int]:
    for listing in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(listing)]
        except (OSError, ValueError):
            continue
    return list(range(3, 256))


async def _serve(locations: Locations, socket_path: str, idle_s: float) -> int:
    from ..broker.server import BrokerError
    from ..broker.standby import Standby
    from ..wiring import long_running

    standby = Standby(locations, socket_path, idle_s=idle_s)
    try:
        await standby.start()
    except BrokerError:  # another standby has this socket: it judges
        return 0
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, standby.stopped.set)
    long_running()
    await standby.run()
    return 0
