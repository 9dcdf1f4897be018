"""The standby: the offline command hook's judging, kept warm in a background process.

With no console (and no `guardtui serve`) running, the command hook would start the whole engine
for every tool call, several times the cost of `python -c pass`. Instead the first such call
judges in its own process and starts a standby (`guardtui standby --socket PATH`, detached);
later calls reach it over its Unix socket, next to the broker's, and pay about what a call to
the console costs.

It judges exactly as the offline hook does: the same steps (judge.answer_offline) with an engine
built afresh for every call from the user's files (wiring.offline_engine), so a saved plugin or
policy is in force at once and no session state carries over; the `--offline ask|deny` policy
comes with each request. Its socket's name carries a fingerprint of what judging depends on (the
guardtui and Python it runs, HOME, PATH, the temp dir, the GUARDTUI_* and XDG_* settings:
hook_client.standby_socket), so a hook only ever reaches a standby that judges as it would itself.
It proves its answers as the broker does, with a key of its own beside its socket (auth.key_name).

It stops (and removes its socket) when:
- a console or `guardtui serve` starts: the broker asks every standby to stop
  (POST /standby/stop); the hooks reach the broker first from then on;
- nobody called it for `idle_s` (10 minutes);
- guardtui's own files changed (an upgrade, an edit of a checkout): the call that notices is
  refused, so the hook judges it itself with the new code and starts a new standby;
- its socket file is removed or replaced, or it gets SIGTERM / SIGINT (`guardtui standby --stop`).
"""
from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from types import ModuleType

from aiohttp import web

from ..core.config import Locations
from ..judge import answer_offline, check_call, check_report, check_text
from ..wiring import offline_engine
from .queue import PendingQueue
from .server import Broker, _refuse, _reply

IDLE_S = 600.0
SOCKET_GLOB = "standby-*.sock"
_PACKAGE = Path(__file__).resolve().parent.parent


class Standby(Broker):
    takes_over_standby = False
    judges_large_calls_apart = False  # it judges each call with an engine built for it (answer_offline)

    def __init__(self, locations: Locations, socket_path: str | Path, idle_s: float = IDLE_S,
                 code_dir: Path = _PACKAGE):
        super().__init__(None, PendingQueue(None), locations, port=None)  # type: ignore[arg-type]
        self._standby_socket = Path(socket_path)
        self.idle_s = idle_s
        self.code = CodeStamp(code_dir)
        self.served = 0
        self.stopped = asyncio.Event()
        self._last_call = time.monotonic()

    @property
    def socket_path(self) -> Path:
        return self._standby_socket

    def _add_routes(self, app: web.Application) -> None:
        super()._add_routes(app)
        app.router.add_post("/check", self._check)
        app.router.add_post("/check/text", self._check_text)
        app.router.add_post("/standby/stop", self._stop_request)
        app.router.add_get("/standby", self._status)

    async def run(self) -> None:
        """Serve until told to stop, idle, changed or gone (see the module's docstring)."""
        try:
            while not self.stopped.is_set():
                try:
                    await asyncio.wait_for(self.stopped.wait(), 1.0)
                except asyncio.TimeoutError:
                    pass
                if time.monotonic() - self._last_call > self.idle_s or not self._socket_is_mine() \
                        or self.code.changed():
                    self.stopped.set()
        finally:
            await self.stop()
            # a clean stop: the next hook call may start a new standby at once
            Path(str(self.socket_path)[: -len(".sock")] + ".started").unlink(missing_ok=True)

    # -- requests --------------------------------------------------------------------
    async def _answer_request(self, request: web.Request, adapter: ModuleType, raw: bytes, event: str | None,
                              timeout: float) -> web.Response:
        refused = self._refusal()
        if refused is not None:
            return refused
        policy = request.query.get("offline", "ask")
        if policy not in ("ask", "deny"):
            return _refuse(400, "offline is ask or deny")
        here = request.query.get("cwd") or "/"
        answer = await asyncio.get_running_loop().run_in_executor(
            self._executor, answer_offline, adapter, raw, event, policy,
            lambda cwd: offline_engine(cwd, here))
        return _reply(answer)

    async def _check(self, request: web.Request) -> web.Response:
        """`guardtui check` of one call: {"tool", "input", "cwd"} in, the report check prints out."""
        refused = self._refusal()
        if refused is not None:
            return refused
        try:
            spec = await request.json()
            call = check_call(spec.get("tool") or "Bash", spec.get("input"), spec.get("cwd"))
        except Exception as exc:  # a bad request: the client judges it itself and says what is wrong
            return _refuse(400, f"cannot read the call: {exc}")
        report = await asyncio.get_running_loop().run_in_executor(
            self._executor, lambda: check_report(offline_engine(call.cwd, call.cwd, record=False).evaluate(
                call, record=False)))
        return self._prove(request, await request.read(), web.json_response(report))

    async def _check_text(self, request: web.Request) -> web.Response:
        """`guardtui check -- COMMAND` (commands/check.py `fast`): the command in, the exit status and what
        check prints out (first line: the status)."""
        refused = self._refusal()
        if refused is not None:
            return refused
        command = (await request.read()).decode("utf-8", "surrogateescape")
        cwd = request.query.get("cwd") or "/"
        as_json = request.query.get("json") == "1"

        def judge() -> str:
            call = check_call("Bash", {"command": command}, cwd)
            report = check_report(offline_engine(cwd, cwd, record=False).evaluate(call, record=False))
            text, status = check_text(report, as_json)
            return f"{status}\n{text}"

        try:
            body = await asyncio.get_running_loop().run_in_executor(self._executor, judge)
        except ValueError as exc:
            return _refuse(400, f"cannot read the call: {exc}")
        return self._prove(request, await request.read(), web.Response(text=body, content_type="text/plain"))

    async def _stop_request(self, request: web.Request) -> web.Response:
        self.stopped.set()
        return web.json_response({"stopping": True})

    async def _status(self, request: web.Request) -> web.Response:
        return web.json_response({"pid": os.getpid(), "served": self.served, "socket": str(self.socket_path)})

    def _refusal(self) -> web.Response | None:
        """A call is refused (the hook then judges it itself) once guardtui's files changed."""
        self._last_call = time.monotonic()
        if self.code.changed():
            self.stopped.set()
            return _refuse(503, "guardtui changed since this standby started; it stops")
        self.served += 1
        return None

    def _socket_is_mine(self) -> bool:
        try:
            return self._socket_inode is not None and self.socket_path.stat().st_ino == self._socket_inode
        except OSError:
            return False


class CodeStamp:
    """The state of guardtui's own files (each file and directory: mtime, size), to notice a change:
    a new file shows in its directory's mtime."""

    def __init__(self, root: Path):
        self.paths = [str(root)]
        for directory, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            self.paths += [os.path.join(directory, name) for name in dirs + files if not name.endswith(".pyc")]
        self.stamp = self._now()

    def _now(self) -> tuple:
        out = []
        for path in self.paths:
            try:
                st = os.stat(path)
                out.append((st.st_mtime_ns, st.st_size, st.st_ino))
            except OSError:
                out.append(None)
        return tuple(out)

    def changed(self) -> bool:
        return self._now() != self.stamp


async def stop_standbys(runtime_dir: Path) -> int:
    """Ask every standby in the runtime dir to stop (a console or `serve` takes over): how many did."""
    stopped = 0
    for path in sorted(runtime_dir.glob(SOCKET_GLOB)) if runtime_dir.is_dir() else []:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), 1.0)
        except (OSError, asyncio.TimeoutError):
            continue
        try:
            writer.write(b"POST /standby/stop HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n"
                         b"Connection: close\r\n\r\n")
            await writer.drain()
            stopped += b" 200 " in (await asyncio.wait_for(reader.read(), 2.0))[:20]
        except (OSError, asyncio.TimeoutError):
            pass
        finally:
            writer.close()
    return stopped
