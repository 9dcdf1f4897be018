"""The broker: an aiohttp application in the console's asyncio loop (or alone in `guardtui serve`).

    POST /hooks/<agent>   the agent's own hook payload in, the agent's own decision JSON out
                          (claude, codex, gemini, cursor, docker-agent); `?event=` names the
                          event when the payload does not, `?timeout=` the agent's hook timeout (s)

It listens on loopback TCP (HTTP hooks: bearer token + loopback Host header) and on a Unix
socket in the user's runtime dir (command hooks: 0600 in a 0700 dir, peer uid checked). There
is no endpoint that decides a pending call: only code holding the PendingQueue (the person at
the console, or the headless policy) answers an ask, so an agent that reaches the broker cannot
approve its own calls.
"""
from __future__ import annotations

import asyncio
import os
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import ModuleType
from typing import Callable

from aiohttp import web

from ..adapters import adapter_for
from ..core.config import Locations, ensure_private_dir
from ..core.engine import Engine
from ..core.model import Decision, DecidedBy, ToolCall, Verdict
from ..core.session import exact_approval
from .auth import is_loopback_host, load_or_create_token, peer_uid, token_matches
from ..judge import MAX_BODY, HookAnswer, fail_safe, one_line, read_call, rule_reason
from .queue import Outcome, PendingQueue, Resolution, policy_resolution

DEFAULT_PORT = 8765  # documented in the README
ERROR_HEADER = "X-Guardtui-Error"
RECENT_ALLOW_S = 120.0  # a person's allow also answers the same call's second hook (Codex: PreToolUse, then
#                         PermissionRequest) for this long, once
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 1.0, 24 * 3600.0
# A small call is judged on the event loop itself (no hand-off to a thread: that hand-off was most of
# its cost); if its rules do not finish within INLINE_S, or it needs the LLM guard, a worker thread
# judges it afresh. A large payload is read and judged in a worker from the start. So no call holds
# the loop, and with it every other agent's call, for more than about INLINE_S.
INLINE_S = 0.002
INLINE_MAX_BYTES = 32 * 1024
WORKERS = 4  # evaluations at once (the engine allows it: a parser per thread, locked sessions and audit)
# large payloads are read and judged one at a time, in a worker of their own: each holds the interpreter
# in long stretches of C (decoding, parsing), and two at once would double every other call's wait
LARGE_WORKERS = 1

Decided = Callable[[ToolCall, Decision, DecidedBy], None]


class BrokerError(RuntimeError):
    """The broker cannot start (another console runs, the port is taken, ...)."""


class Broker:
    takes_over_standby = True  # on start, a standby judging for the command hooks (broker/standby.py) stops

    def __init__(self, engine: Engine, queue: PendingQueue, locations: Locations, *, port: int | None = DEFAULT_PORT,
                 host: str = "127.0.0.1", unix_socket: bool = True, ask_policy: Outcome | None = None):
        if ask_policy not in (None, Outcome.DENY, Outcome.DEFER):
            raise ValueError("ask_policy is None (the person answers), deny or defer")
        self.engine = engine
        self.queue = queue
        self.locations = locations
        self.host = host
        self.ask_policy = ask_policy
        self.max_body = MAX_BODY
        self.listeners: list[Decided] = []  # told of every answered call: (call, final decision, decided by)
        self._want_port = port
        self._want_socket = unix_socket
        self._token: str | None = None
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._socket_inode: int | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._large: ThreadPoolExecutor | None = None
        self._recent: dict[tuple[str, str, str, str], tuple[float, str]] = {}  # -> (expiry, hook event)

    # -- the contract --------------------------------------------------------------------
    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("the broker is not listening on TCP")
        return self._port

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def socket_path(self) -> Path:
        return self.locations.socket_path

    @property
    def token(self) -> str:
        if self._token is None:
            self._token = load_or_create_token(self.locations)
        return self._token

    async def start(self) -> None:
        if self._runner is not None:
            raise RuntimeError("the broker is already running")
        if self._want_port is not None:
            assert self.token  # create it before the first request needs it
        app = web.Application(client_max_size=self.max_body, middlewares=[self._guard])
        self._add_routes(app)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, handler_cancellation=True,
                                  shutdown_timeout=2.0)
        await runner.setup()
        self._executor = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="guardtui-engine")
        self._large = ThreadPoolExecutor(max_workers=LARGE_WORKERS, thread_name_prefix="guardtui-large")
        self._runner = runner
        try:
            if self._want_socket:
                await self._listen_unix(runner)
            if self._want_port is not None:
                site = web.TCPSite(runner, self.host, self._want_port)
                try:
                    await site.start()
                except OSError as exc:
                    raise BrokerError(f"cannot listen on {self.host}:{self._want_port}: {exc.strerror or exc}") \
                        from None
                self._port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        except BaseException:
            await self.stop()
            raise
        self._write_port_file()
        if self.engine is not None and self.engine.audit is not None:
            self.engine.audit.write_behind()  # the event loop never waits on the disk
        if self.takes_over_standby and self._want_socket:
            from .standby import stop_standbys  # standby.py builds on this module

            await stop_standbys(self.locations.runtime_dir)  # the hooks reach this broker first from now on

    def _add_routes(self, app: web.Application) -> None:
        app.router.add_post("/hooks/{agent}", self._hook)

    async def stop(self) -> None:
        """Stop listening. Calls still pending are the owner's to close (queue.close()); if it has
        not, they are answered by the queue's policy here, so no agent is left hanging."""
        if len(self.queue):
            await self.queue.close("the broker stopped")
        runner, self._runner = self._runner, None
        if runner is not None:
            await runner.cleanup()
        self._remove_port_file()
        self._unlink_socket()
        if self.engine is not None and self.engine.audit is not None:
            self.engine.audit.flush()
        for pool in (self._executor, self._large):
            if pool is not None:
                pool.shutdown(wait=False)
        self._executor = self._large = None
        self._port = None

    # -- judging ---------------------------------------------------------------------
    async def answer(self, agent: str | ModuleType, raw: bytes, event: str | None = None,
                     hook_timeout_s: float | None = None) -> HookAnswer:
        """One hook call, start to end: read the payload, judge it, wait for the person if asked."""
        started = time.monotonic()  # the judging budget counts from here: reading a large payload takes some
        adapter = adapter_for(agent) if isinstance(agent, str) else agent
        timeout = adapter.HOOK_TIMEOUT_S if hook_timeout_s is None else hook_timeout_s
        loop = asyncio.get_running_loop()
        small = len(raw) <= INLINE_MAX_BYTES
        call = read_call(adapter, raw, event) if small else \
            await loop.run_in_executor(self._large, read_call, adapter, raw, event)
        if isinstance(call, HookAnswer):
            return call
        try:
            decision = self.engine.evaluate_quickly(call, INLINE_S) if small else None
            if decision is None:
                decision = await loop.run_in_executor(self._executor if small else self._large, self._evaluate, call,
                                                      small, started)
        except Exception as exc:  # the guard cannot judge: fail safe, never allow
            return fail_safe(adapter, raw, event, f"the engine failed: {type(exc).__name__}: {exc}")
        verdict, reason, final, decided_by = await self._decide(call, decision, timeout)
        for listener in list(self.listeners):
            try:
                listener(call, final, decided_by)
            except Exception:  # a broken view must not lose the answer
                pass
        return HookAnswer(adapter.render(call, verdict, reason), verdict=verdict)

    def _evaluate(self, call: ToolCall, small: bool, started: float) -> Decision:
        """In a worker thread: judge, and make a large asked call's JSON there too when the loop will need it
        (matching the person's recent "allow once"), not on the loop."""
        decision = self.engine.evaluate(call, budget_s=self.engine.budget_s - (time.monotonic() - started))
        if not small and decision.verdict is Verdict.ASK and self._recent:
            call.serialised_input()
        return decision

    async def _decide(self, call: ToolCall, decision: Decision,
                      timeout: float) -> tuple[Verdict, str, Decision, DecidedBy]:
        decided_by = DecidedBy(decision.metadata.get("decided_by", DecidedBy.RULE.value))
        if decision.verdict is Verdict.ALLOW:
            return Verdict.ALLOW, decision.reason, decision, decided_by
        if decision.verdict is Verdict.DENY:
            return Verdict.DENY, rule_reason(decision), decision, decided_by
        if self._take_recent(call):
            resolution = Resolution(Outcome.ALLOW, DecidedBy.APPROVAL, "the person allowed this same call just now")
            final = self.queue.record(call, decision, resolution, 0.0)
        elif self.ask_policy is not None:  # headless: no person to wait for
            resolution = policy_resolution(self.ask_policy, "no person is watching (guardtui serve)", call=call)
            final = self.queue.record(call, decision, resolution, 0.0)
        else:
            resolution = await self.queue.submit(call, decision, timeout)
            final = self.queue.final_decision(decision, resolution)
            if resolution.outcome is Outcome.ALLOW and resolution.decided_by is DecidedBy.PERSON:
                self._remember(call)
        if resolution.outcome is Outcome.ALLOW:
            return Verdict.ALLOW, resolution.reason, final, resolution.decided_by
        verdict = Verdict.DENY if resolution.outcome is Outcome.DENY else Verdict.ASK
        return verdict, f"{resolution.reason} — {rule_reason(decision)}", final, resolution.decided_by

    def _key(self, call: ToolCall) -> tuple[str, str, str, str]:
        return call.agent, call.session, call.tool, exact_approval(call).value

    def _remember(self, call: ToolCall) -> None:
        now = time.monotonic()
        self._recent = {k: v for k, v in self._recent.items() if v[0] > now}
        self._recent[self._key(call)] = (now + RECENT_ALLOW_S, call.event)

    def _take_recent(self, call: ToolCall) -> bool:
        """Only the same call's *other* hook passes (Codex: PermissionRequest after PreToolUse); the same
        hook again is a new call, and "allow once" means once."""
        if not self._recent:
            return False
        entry = self._recent.get(self._key(call))
        if entry is None or entry[0] <= time.monotonic() or entry[1] == call.event:
            return False
        del self._recent[self._key(call)]
        return True

    # -- HTTP ------------------------------------------------------------------------
    @web.middleware
    async def _guard(self, request: web.Request, handler):
        sock = request.transport.get_extra_info("socket") if request.transport is not None else None
        if sock is not None and sock.family == socket.AF_UNIX:
            if peer_uid(sock) != os.getuid():
                return _refuse(403, "the broker's socket answers only its own user")
        else:
            if not is_loopback_host(request.headers.get("Host")):
                return _refuse(403, "the Host header must name the loopback address (127.0.0.1 or localhost)")
            if not token_matches(request.headers.get("Authorization"), self.token):
                return _refuse(401, "missing or wrong bearer token (see the token file in guardtui's config dir)")
        return await handler(request)

    async def _hook(self, request: web.Request) -> web.Response:
        agent = request.match_info["agent"]
        try:
            adapter = adapter_for(agent)
        except KeyError:
            return _refuse(404, f"no such agent: {agent}")
        event = request.query.get("event") or None
        timeout = _timeout(request.query.get("timeout"), adapter.HOOK_TIMEOUT_S)
        if request.content_length is not None and request.content_length > self.max_body:
            return _reply(fail_safe(adapter, b"", event, f"the payload is larger than {self.max_body} bytes"))
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _reply(fail_safe(adapter, b"", event, f"the payload is larger than {self.max_body} bytes"))
        return await self._answer_request(request, adapter, raw, event, timeout)

    async def _answer_request(self, request: web.Request, adapter: ModuleType, raw: bytes, event: str | None,
                              timeout: float) -> web.Response:
        """The answer to one hook request (the standby judges it its own way: broker/standby.py)."""
        return _reply(await self.answer(adapter, raw, event, timeout))

    # -- the Unix socket -------------------------------------------------------------
    async def _listen_unix(self, runner: web.AppRunner) -> None:
        path = self.socket_path
        ensure_private_dir(path.parent)
        if path.exists() or path.is_symlink():
            if await _answers(path):
                raise BrokerError(f"another guardtui broker is running (its socket {path} answers)")
            path.unlink()  # left behind by a broker that died
        site = web.UnixSite(runner, str(path))
        await site.start()
        os.chmod(path, 0o600)
        self._socket_inode = path.stat().st_ino

    def _write_port_file(self) -> None:
        """Where `guardtui install --http` finds this console's port (only beside its socket)."""
        if self._socket_inode is not None and self._port is not None:
            port_file(self.locations).write_text(f"{self._port}\n", encoding="ascii")

    def _remove_port_file(self) -> None:
        path = port_file(self.locations)
        try:
            if self._socket_inode is not None and path.read_text(encoding="ascii").strip() == str(self._port):
                path.unlink()
        except OSError:
            pass

    def _unlink_socket(self) -> None:
        if self._socket_inode is None:
            return
        try:
            if self.socket_path.stat().st_ino == self._socket_inode:
                self.socket_path.unlink()
        except OSError:
            pass
        self._socket_inode = None


def port_file(locations: Locations) -> Path:
    return locations.runtime_dir / "broker.port"


async def _answers(path: Path) -> bool:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), 2.0)
    except (OSError, asyncio.TimeoutError):
        return False
    writer.close()
    return True


def _timeout(text: str | None, default: float) -> float:
    try:
        value = float(text) if text else default
    except ValueError:
        value = default
    if value != value:  # NaN
        value = default
    return min(MAX_TIMEOUT_S, max(MIN_TIMEOUT_S, value))


def _reply(answer: HookAnswer) -> web.Response:
    headers = {ERROR_HEADER: _header_safe(answer.error)} if answer.error else None
    return web.Response(body=answer.encode(), content_type="application/json", headers=headers)


def _refuse(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status, headers={ERROR_HEADER: message})


def _header_safe(text: str) -> str:
    return one_line(text).encode("ascii", "backslashreplace").decode("ascii")
