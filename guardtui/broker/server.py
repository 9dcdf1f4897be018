"""The broker: an aiohttp application in the console's asyncio loop (or alone in `guardtui serve`).

    POST /hooks/<agent>   the agent's own hook payload in, the agent's own decision JSON out
                          (claude, codex, gemini, cursor, docker-agent); `?event=` names the
                          event when the payload does not, `?timeout=` the agent's hook timeout (s)

It listens on loopback TCP (HTTP hooks: bearer token + loopback Host header) and on a Unix
socket in the user's runtime dir (command hooks: 0600 in a 0700 dir, peer uid checked; each
answer signed for the hook that asks, under a key written at each start: see auth.py). There
is no endpoint that decides a pending call: only code holding the PendingQueue (the person at
the console, or the headless policy) answers an ask, so an agent that reaches the broker cannot
approve its own calls. Whatever goes wrong while answering, the answer is the agent's fail-safe
one, never an HTTP 500.

A call the rules escalated goes to the guard agent (`reviewer`, when one is configured) on this
loop: in the console it waits in the queue meanwhile, and the first answer — the agent's or the
person's — wins; headless, its verdict comes before the ask policy.
"""
from __future__ import annotations

import asyncio
import functools
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
from ..core.engine import Engine, GuardEvent
from ..core.llm import GuardReviewer, may_review
from ..core.model import Decision, DecidedBy, ToolCall, Verdict
from ..core.session import exact_approval
from ..judge import MAX_BODY, HookAnswer, fail_safe, one_line, read_call, rule_reason
from . import judges
from .auth import (NONCE_HEADER, PROOF_HEADER, is_loopback_host, load_or_create_token, peer_uid, proof,
                   remove_broker_key, token_matches, write_broker_key, key_name)
from .limits import BACKLOG, CappedRunner, connection_cap
from .queue import Outcome, PendingCall, PendingQueue, Resolution, Review, guard_agent_answer, policy_resolution

DEFAULT_PORT = 8765  # documented in the README
ERROR_HEADER = "X-Guardtui-Error"
SOCKET_CHECK_S = 2.0  # how often the broker looks that its socket is still its own
RECENT_ALLOW_S = 120.0  # a person's allow also answers the same call's second hook (Codex: PreToolUse, then
#                         PermissionRequest) for this long, once
# the agent's hook timeout (`?timeout=`), bounded: an ask holds a connection for at most this long
# (the agents' defaults are 60 s and 600 s; `guardtui install` writes 600 s)
MIN_TIMEOUT_S, MAX_TIMEOUT_S = 1.0, 900.0
# A small call is judged on the event loop itself (no hand-off to a thread: that hand-off was most of
# its cost); if its rules do not finish within INLINE_S of the loop thread's computing (ten times that
# on the wall clock: waiting for the interpreter a large call's worker holds is not the call's cost),
# or it needs the LLM guard, a worker thread judges it afresh. A large payload is read and judged in a
# worker from the start. So no call holds the loop, and with it every other agent's call, for more
# than about INLINE_S of work.
INLINE_S = 0.002
INLINE_MAX_BYTES = 32 * 1024
WORKERS = 4  # evaluations at once (the engine allows it: a parser per thread, locked sessions and audit)
# large payloads are read and judged one at a time, in a process of their own (broker/judges.py): each
# holds the interpreter in long stretches of C (decoding, parsing), which held every other call in a thread;
# in a worker of their own where that process cannot judge them
LARGE_WORKERS = 1

Decided = Callable[[ToolCall, Decision, DecidedBy], None]


class BrokerError(RuntimeError):
    """The broker cannot start (another console runs, the port is taken, ...)."""


class Broker:
    takes_over_standby = True  # on start, a standby judging for the command hooks (broker/standby.py) stops
    judges_large_calls_apart = True  # a process of its own judges large payloads (broker/judges.py)

    def __init__(self, engine: Engine, queue: PendingQueue, locations: Locations, *, port: int | None = DEFAULT_PORT,
                 host: str = "127.0.0.1", unix_socket: bool = True, ask_policy: Outcome | None = None,
                 reviewer: GuardReviewer | None = None):
        if ask_policy not in (None, Outcome.DENY, Outcome.DEFER):
            raise ValueError("ask_policy is None (the person answers), deny or defer")
        self.engine = engine
        self.queue = queue
        self.locations = locations
        self.host = host
        self.ask_policy = ask_policy
        self.reviewer = reviewer  # the guard agent; the broker closes its HTTP client on stop
        self.max_body = MAX_BODY
        self.listeners: list[Decided] = []  # told of every answered call: (call, final decision, decided by)
        self._want_port = port
        self._want_socket = unix_socket
        self._token: str | None = None
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._socket_inode: int | None = None
        self._unix_site: web.UnixSite | None = None
        self._broker_key: bytes | None = None  # this run's broker key (auth.write_broker_key)
        self._watchdog: asyncio.Task | None = None
        self._executor: ThreadPoolExecutor | None = None
        self._large: ThreadPoolExecutor | None = None
        self._judge: judges.JudgeProcess | None = None
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
        runner = CappedRunner(app, cap=connection_cap(), on_full=self._connections_full, access_log=None,
                              handle_signals=False, handler_cancellation=True, shutdown_timeout=2.0)
        await runner.setup()
        self._executor = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix="guardtui-engine")
        self._large = ThreadPoolExecutor(max_workers=LARGE_WORKERS, thread_name_prefix="guardtui-large")
        self._runner = runner
        if self.judges_large_calls_apart and judges.enabled() and self.engine is not None:
            self._judge = judges.JudgeProcess(self.engine)  # forked when the first large payload comes
        try:
            if self._want_socket:
                await self._listen_unix(runner)
            if self._want_port is not None:
                site = web.TCPSite(runner, self.host, self._want_port, backlog=BACKLOG)
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
        judge, self._judge = self._judge, None
        if judge is not None:
            await judge.stop()
        if self.reviewer is not None:
            await self.reviewer.close()
        self._port = None

    # -- judging ---------------------------------------------------------------------
    async def answer(self, agent: str | ModuleType, raw: bytes, event: str | None = None,
                     hook_timeout_s: float | None = None) -> HookAnswer:
        """One hook call, start to end: read the payload, judge it, wait for the person if asked."""
        adapter = adapter_for(agent) if isinstance(agent, str) else agent
        timeout = adapter.HOOK_TIMEOUT_S if hook_timeout_s is None else hook_timeout_s
        loop = asyncio.get_running_loop()
        small = len(raw) <= INLINE_MAX_BYTES
        if not small and self._judge is not None and self._judge.can_judge():
            judged = await self._judge_apart(adapter, raw, event)
            if isinstance(judged, HookAnswer):
                return judged
            call, decision = judged
            return await self._answer_decided(adapter, raw, event, call, decision, timeout)
        begun = time.thread_time()  # the judging budget counts reading: a large payload takes a while
        if small:
            call = read_call(adapter, raw, event)
        else:
            call, begun = await loop.run_in_executor(self._large, _read_call_counting, adapter, raw, event)
        if isinstance(call, HookAnswer):
            return call
        try:
            decision = self.engine.evaluate_quickly(call, INLINE_S) if small else None
            if decision is None:
                spent = time.thread_time() - begun if small else begun
                decision = await loop.run_in_executor(self._executor if small else self._large, self._evaluate, call,
                                                      small, spent)
        except Exception as exc:  # the guard cannot judge: fail safe, never allow
            return fail_safe(adapter, raw, event, f"the engine failed: {type(exc).__name__}: {exc}")
        return await self._answer_decided(adapter, raw, event, call, decision, timeout)

    async def _judge_apart(self, adapter: ModuleType, raw: bytes,
                           event: str | None) -> HookAnswer | tuple[ToolCall, Decision]:
        """A large payload read and judged in the judging process (broker/judges.py)."""
        judge = self._judge
        assert judge is not None
        try:
            judged = await judge.judge(adapter, raw, event, want_serialised=bool(self._recent))
        except judges.JudgeGone as exc:
            if self._judge is judge:
                self._judge = None
                self.queue.emit("judge-process", f"the process judging large calls stopped: {exc}; they are judged "
                                                 f"in the broker's worker threads from now on")
            return fail_safe(adapter, raw, event, judges.why_not_judged(str(exc)))
        except judges.JudgeFailed as exc:
            return fail_safe(adapter, raw, event, f"the engine failed: {exc}")
        except Exception as exc:  # the guard cannot judge: fail safe, never allow
            return fail_safe(adapter, raw, event, f"the engine failed: {type(exc).__name__}: {exc}")
        if isinstance(judged, HookAnswer):
            return judged
        call, decision, events = judged
        plugins = next((r for r in self.engine.rules if r.id == "plugins"), None)
        judges.raise_events(self.engine, getattr(getattr(plugins, "projects", None), "report", None), events)
        return call, decision

    async def _answer_decided(self, adapter: ModuleType, raw: bytes, event: str | None, call: ToolCall,
                              decision: Decision, timeout: float) -> HookAnswer:
        try:
            verdict, reason, final, decided_by, told = await self._decide(call, decision, timeout)
            answer = HookAnswer(adapter.render(call, verdict, reason, told), verdict=verdict)
        except Exception as exc:  # never a 500, never an allow
            return fail_safe(adapter, raw, event, f"the broker failed: {type(exc).__name__}: {exc}")
        for listener in list(self.listeners):
            try:
                listener(call, final, decided_by)
            except Exception:  # a broken view must not lose the answer
                pass
        return answer

    def _evaluate(self, call: ToolCall, small: bool, spent: float) -> Decision:
        """In a worker thread: judge with what reading the call left of the budget (`spent`: seconds it
        computed), and make a large asked call's JSON there too when the loop will need it (matching the
        person's recent "allow once"), not on the loop."""
        decision = self.engine.evaluate(call, budget_s=self.engine.budget_s - spent)
        if not small and decision.verdict is Verdict.ASK and self._recent:
            call.serialised_input()
        return decision

    async def _decide(self, call: ToolCall, decision: Decision,
                      timeout: float) -> tuple[Verdict, str, Decision, DecidedBy, str]:
        """(verdict, reason, final decision, decided by, the person's own words to the agent)."""
        decided_by = DecidedBy(decision.metadata.get("decided_by", DecidedBy.RULE.value))
        if decision.verdict is Verdict.ALLOW:
            return Verdict.ALLOW, decision.reason, decision, decided_by, ""
        if decision.verdict is Verdict.DENY:
            return Verdict.DENY, rule_reason(decision), decision, decided_by, ""
        if self._take_recent(call):
            resolution = Resolution(Outcome.ALLOW, DecidedBy.APPROVAL, "the person allowed this same call just now",
                                    via="same call allowed just now")
            final = self.queue.record(call, decision, resolution, 0.0)
        elif self.ask_policy is not None:  # headless: no person to wait for, only the guard agent
            review = self._review(call, decision, timeout)
            if review is not None:
                decision = await review(None)
            resolution = guard_agent_answer(decision) or policy_resolution(
                self.ask_policy, "no person is watching (guardtui serve)", call=call, via="headless policy")
            final = self.queue.record(call, decision, resolution, decision.metadata.get("llm", {}).get(
                "latency_ms", 0.0))
        else:
            resolution = await self.queue.submit(call, decision, timeout, review=self._review(call, decision, timeout))
            decision = resolution.review or decision
            final = self.queue.final_decision(decision, resolution)
            if resolution.outcome is Outcome.ALLOW and resolution.decided_by is DecidedBy.PERSON:
                self._remember(call)
        if resolution.outcome is Outcome.ALLOW:
            return Verdict.ALLOW, resolution.reason, final, resolution.decided_by, ""
        verdict = Verdict.DENY if resolution.outcome is Outcome.DENY else Verdict.ASK
        told = (resolution.message or "") if verdict is Verdict.DENY else ""
        return verdict, f"{resolution.reason} — {rule_reason(decision)}", final, resolution.decided_by, told

    async def judge_again(self, call: ToolCall) -> Decision:
        """A waiting call judged under the rules in force now (in the engine's thread; nothing
        recorded, no guard events): what `PendingQueue.rejudge` is handed."""
        evaluate = functools.partial(self.engine.evaluate, call, record=False, quiet=True)
        return await asyncio.get_running_loop().run_in_executor(self._executor, evaluate)

    def _review(self, call: ToolCall, decision: Decision, timeout: float) -> Review | None:
        """The guard agent's review of an escalated call (None: not one it may judge, or no agent)."""
        reviewer = self.reviewer
        if reviewer is None or not may_review(decision):
            return None

        async def review(pending: PendingCall | None) -> Decision:
            return await reviewer.review(call, pending.decision if pending is not None else decision,
                                         hook_timeout_s=timeout, emit=self._emit)
        return review

    def _emit(self, event: GuardEvent) -> None:
        sink = self.engine.on_event  # the console's, once it is mounted
        if sink is not None:
            sink(event)

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

    def _connections_full(self, full: bool, refused: int) -> None:
        cap = self._runner.cap if isinstance(self._runner, CappedRunner) else 0
        if full:
            self.queue.emit("overflow", f"{cap} connections are open to the broker (the cap): new ones are "
                                        f"refused until some close (a command hook then judges its call itself)")
        else:
            self.queue.emit("overflow", f"connections to the broker are below the cap again ({refused} refused)")

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
        try:
            return await handler(request)
        except web.HTTPException:  # aiohttp's own answers (404 for an unknown path, 405, ...)
            raise
        except Exception as exc:  # never a 500: the agent's fail-safe answer where there is an agent
            error = f"the broker failed: {type(exc).__name__}: {exc}"
            try:
                adapter = adapter_for(request.match_info.get("agent", ""))
            except KeyError:
                return _refuse(400, one_line(error))
            return _reply(fail_safe(adapter, b"", None, error))

    async def _hook(self, request: web.Request) -> web.Response:
        agent = request.match_info["agent"]
        try:
            adapter = adapter_for(agent)
        except KeyError:
            return _refuse(404, f"no such agent: {agent}")
        query = request.query if request.query_string else {}
        event = query.get("event") or None
        if event is not None and not _is_event_name(event):
            event = None  # a name no agent uses: the payload's own, or the agent's default
        timeout = _timeout(query.get("timeout"), adapter.HOOK_TIMEOUT_S)
        if request.content_length is not None and request.content_length > self.max_body:
            return _reply(fail_safe(adapter, b"", event, f"the payload is larger than {self.max_body} bytes"))
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return _reply(fail_safe(adapter, b"", event, f"the payload is larger than {self.max_body} bytes"))
        except Exception as exc:  # the connection broke mid-body: whoever still listens gets the safe side
            return _reply(fail_safe(adapter, b"", event, f"the payload could not be read: {type(exc).__name__}"))
        return self._prove(request, raw, await self._answer_request(request, adapter, raw, event, timeout))

    async def _answer_request(self, request: web.Request, adapter: ModuleType, raw: bytes, event: str | None,
                              timeout: float) -> web.Response:
        """The answer to one hook request (the standby judges it its own way: broker/standby.py)."""
        return _reply(await self.answer(adapter, raw, event, timeout))

    def _prove(self, request: web.Request, raw: bytes, response: web.Response) -> web.Response:
        """Sign the answer for a command hook that asked (it sent a nonce): see auth.proof."""
        nonce = request.headers.get(NONCE_HEADER, "")
        if self._broker_key is None or not (16 <= len(nonce) <= 128 and nonce.isascii() and nonce.isalnum()):
            return response
        body = response.body if isinstance(response.body, bytes) else b""
        response.headers[PROOF_HEADER] = proof(self._broker_key, nonce.encode("ascii"), request.raw_path.encode(
            "utf-8", "surrogateescape"), raw, str(response.status).encode("ascii"), body)
        return response

    # -- the Unix socket -------------------------------------------------------------
    async def _listen_unix(self, runner: web.AppRunner) -> None:
        path = self.socket_path
        ensure_private_dir(path.parent)
        if path.exists() or path.is_symlink():
            if await _answers(path):
                raise BrokerError(f"another guardtui broker is running (its socket {path} answers)")
            path.unlink()  # left behind by a broker that died
        await self._bind(runner)
        self._watchdog = asyncio.get_running_loop().create_task(self._watch_socket(), name="broker-socket-watch")

    async def _bind(self, runner: web.AppRunner) -> None:
        path = self.socket_path
        self._broker_key = write_broker_key(path.parent, key_name(path.name))  # a new key each time: an old one read is worth nothing
        site = web.UnixSite(runner, str(path), backlog=BACKLOG)
        await site.start()
        os.chmod(path, 0o600)
        self._unix_site = site
        self._socket_inode = os.lstat(path).st_ino

    async def _watch_socket(self) -> None:
        """Notice when the socket is removed or replaced (an agent's `rm`, a planted fake): say so in
        the guard log, and listen there again when the place is free. A socket someone else answers
        on is not fought over: the hook does not trust it (it cannot prove itself), and the guard
        event tells the person."""
        warned = False
        while True:
            await asyncio.sleep(SOCKET_CHECK_S)
            runner = self._runner
            if runner is None:
                return
            try:
                ours = os.lstat(self.socket_path).st_ino == self._socket_inode
            except OSError:
                ours = False
            if ours:
                warned = False
                continue
            if await _answers(self.socket_path):
                if not warned:
                    warned = True
                    self.queue.emit("socket", f"the broker's socket {self.socket_path} was replaced by another "
                                              f"process that answers on it; command hooks do not trust it and "
                                              f"judge their calls themselves until it is gone")
                continue
            try:
                await self._rebind(runner)
            except OSError as exc:
                if not warned:
                    warned = True
                    self.queue.emit("socket", f"the broker's socket {self.socket_path} was removed and cannot "
                                              f"be made again ({exc.strerror or exc}); command hooks judge "
                                              f"their calls themselves")
                continue
            warned = False
            self.queue.emit("socket", f"the broker's socket {self.socket_path} was removed or replaced; "
                                      f"listening there again (with a new key)")

    async def _rebind(self, runner: web.AppRunner) -> None:
        old, self._unix_site = self._unix_site, None
        if old is not None:
            await old.stop()
        path = self.socket_path
        ensure_private_dir(path.parent)
        if path.exists() or path.is_symlink():
            path.unlink()  # a dead socket or a file left in its place
        if self._broker_key is not None:
            remove_broker_key(path.parent, self._broker_key, key_name(path.name))
        await self._bind(runner)

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
        if self._watchdog is not None:
            self._watchdog.cancel()
            self._watchdog = None
        if self._broker_key is not None:
            remove_broker_key(self.socket_path.parent, self._broker_key, key_name(self.socket_path.name))
            self._broker_key = None
        if self._socket_inode is None:
            return
        try:
            if os.lstat(self.socket_path).st_ino == self._socket_inode:
                self.socket_path.unlink()
        except OSError:
            pass
        self._socket_inode = None


def _read_call_counting(adapter: ModuleType, raw: bytes, event: str | None) -> tuple[ToolCall | HookAnswer, float]:
    """read_call in a worker thread, with the seconds it computed there (the judging budget counts them)."""
    begun = time.thread_time()
    call = read_call(adapter, raw, event)
    return call, time.thread_time() - begun


def port_file(locations: Locations) -> Path:
    return locations.runtime_dir / "broker.port"


async def _answers(path: Path) -> bool:
    try:
        _, writer = await asyncio.wait_for(asyncio.open_unix_connection(str(path)), 2.0)
    except (OSError, asyncio.TimeoutError):
        return False
    writer.close()
    return True


def _is_event_name(text: str) -> bool:
    return len(text) <= 64 and all(c.isascii() and (c.isalnum() or c == "_") for c in text)


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
