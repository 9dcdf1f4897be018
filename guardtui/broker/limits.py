"""How many connections the broker holds at once.

Every agent's hook holds a connection (a file descriptor) while its call waits, and anyone on
this machine can open connections to the loopback port without a token. Past the cap a new
connection is answered `503` and closed at once (a command hook then judges the call itself, an
HTTP hook falls back to the agent's own prompt), so the console keeps the descriptors it needs
to draw and to answer the calls that wait. A connection that sends no complete request is
closed after IDLE_TIMEOUT_S.
"""
from __future__ import annotations

import asyncio
import resource
from typing import Callable

from aiohttp import web

MAX_CONNECTIONS = 512
BACKLOG = 64  # connections the OS queues before accept; one accept burst may exceed the cap by this
IDLE_TIMEOUT_S = 10.0  # a connection with no complete request is closed after this long
_REFUSED = b'{"error": "too many connections to the broker"}'
REFUSAL = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\n"
           b"X-Guardtui-Error: too many connections to the broker\r\n"
           b"Content-Length: %d\r\n\r\n%s" % (len(_REFUSED), _REFUSED))


def connection_cap() -> int:
    """MAX_CONNECTIONS, or less where the process may open fewer files (macOS's default is 256):
    half the limit, less one accept burst, leaves the rest to the console, the audit log and the
    plugin watcher."""
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return MAX_CONNECTIONS // 4
    if soft == resource.RLIM_INFINITY:
        return MAX_CONNECTIONS
    return max(16, min(MAX_CONNECTIONS, soft // 2 - BACKLOG))


class CappedRunner(web.AppRunner):
    """An AppRunner whose sites accept at most `cap` live connections between them."""

    def __init__(self, app: web.Application, *, cap: int, on_full: Callable[[bool, int], None], **kwargs):
        super().__init__(app, keepalive_timeout=IDLE_TIMEOUT_S, **kwargs)
        self.cap = cap
        self.on_full = on_full  # (full: True when the cap is first reached, False when there is room again, count)
        self.refused = 0
        self._factory: _CappedFactory | None = None

    @property
    def server(self):  # what each site hands the event loop as its protocol factory
        server = super().server
        if server is None:
            return None
        if self._factory is None or self._factory.server is not server:
            self._factory = _CappedFactory(server, self)
        return self._factory

    @property
    def live_connections(self) -> int:
        server = super().server
        return 0 if server is None else len(server.connections)


class _CappedFactory:
    def __init__(self, server: web.Server, runner: CappedRunner):
        self.server = server
        self.runner = runner
        self.full = False

    def __call__(self) -> asyncio.BaseProtocol:
        runner = self.runner
        if len(self.server.connections) >= runner.cap:
            runner.refused += 1
            if not self.full:
                self.full = True
                runner.on_full(True, runner.refused)
            return _Refuse()
        if self.full:
            self.full = False
            runner.on_full(False, runner.refused)
            runner.refused = 0
        return self.server()


class _Refuse(asyncio.Protocol):
    """Say 503 and hang up, without reading the request."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        try:
            transport.write(REFUSAL)  # type: ignore[attr-defined]
        finally:
            transport.close()
