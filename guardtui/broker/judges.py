"""Large calls judged in a process of their own, so one agent's megabyte never holds another's call.

Reading and judging a large payload takes tens of milliseconds, much of it in long stretches of C
that hold the interpreter (JSON decoding, the bash parser, regexes over the whole text): in a worker
thread it still held every other call, the small ones the event loop judges too, for up to tens of
milliseconds at a time. So the broker forks a judging process when the first large payload comes
(JudgeProcess), a copy of its engine as it is then, and hands it each payload over INLINE_MAX_BYTES,
one at a time. The process
reads and judges the call exactly as a worker thread would (Engine.evaluate, the same rules and
budget, counted from when it began reading), with what can have changed since the fork sent along:
the session's state (approvals, memory, working directories) and the plugins in force after a
reload. The broker takes the decision into its own engine (Engine.adopt: the session touched, the
call audited and remembered) and answers as for any other call; the guard events raised there are
raised here.

What the process cannot judge as the broker's engine would — an engine changed since the fork in any
other way than a plugin reload — is judged in a worker thread as before (`can_judge`). Fail closed:
a process that dies, or takes longer than ten times the budget (and then is killed), makes its call
ask, saying why; later large calls are judged in a worker thread, and a guard event says so. Memory
is bounded: one call at a time, nothing kept between calls but what the engine keeps for itself.
GUARDTUI_JUDGE_PROCESS=0 turns it off (large calls in a worker thread, as before).
"""
from __future__ import annotations

import asyncio
import copyreg
import gc
import io
import marshal
import os
import pickle
import signal
import socket
import struct
import sys
import time
from dataclasses import fields
from types import MappingProxyType, ModuleType
from typing import Any, Callable

from ..adapters import AGENTS, adapter_for
from ..core.engine import Engine, GuardEvent, load_all_data
from ..core.model import Decision, ToolCall, Verdict
from ..core.plugins import PluginRule, ProjectPlugins
from ..core.session import SessionState, Sessions
from ..judge import HookAnswer, read_call

_LENGTH = struct.Struct("!Q")
WAIT_FACTOR = 10  # a call's wall-clock limit in the process: ten times the budget (as the budget's own cap)
MIN_WAIT_S = 5.0  # and never less (a busy machine, a process still warming up)
NICENESS = 5


def enabled() -> bool:
    return os.environ.get("GUARDTUI_JUDGE_PROCESS", "1") != "0" and hasattr(os, "fork")


class _Pickler(pickle.Pickler):
    """A call's input and a decision's metadata are read-only mappings (MappingProxyType): sent as dicts."""

    dispatch_table = copyreg.dispatch_table.copy()
    dispatch_table[MappingProxyType] = lambda m: (_read_only, (dict(m),))


def _read_only(value: dict) -> MappingProxyType:
    return MappingProxyType(value)


def _dumps(value: Any) -> bytes:
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


class JudgeGone(RuntimeError):
    """The judging process ended or had to be ended."""


class JudgeFailed(RuntimeError):
    """The judging process could not judge this call (it goes on with the next)."""


class JudgeProcess:
    """One forked judging process and the broker's end of its socket."""

    def __init__(self, engine: Engine):
        self.engine = engine
        self.pid = 0
        self.started = False  # forked at the first large call: most sessions never send one (and a fork costs
        #                       the broker copy-on-write faults on its next calls)
        self._sock: socket.socket | None = None  # non-blocking, read and written through the loop (no stream
        #                                          buffers: a megabyte is copied as few times as it can be)
        self._lock = asyncio.Lock()  # one call at a time
        self._forked_rules = engine.rules
        self._synced_rules = engine.rules
        self._forked = (engine.analyzer, engine.home, engine.protection, engine.temp_dirs)

    def start(self) -> None:
        """Fork (on the broker's event loop, between calls: no call is half judged in this thread)."""
        self.started = True
        self._forked_rules = self._synced_rules = self.engine.rules
        engine = self.engine
        self._forked = (engine.analyzer, engine.home, engine.protection, engine.temp_dirs)
        ours, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the judging process: never returns
            ours.close()
            _child(theirs, self.engine)
        theirs.close()
        self.pid = pid
        ours.setblocking(False)
        self._sock = ours

    @property
    def alive(self) -> bool:
        return not self.started or self._sock is not None

    def can_judge(self) -> bool:
        """Would the process judge as the broker's engine does now? (Only a reload of the plugins rule is sent
        over; any other change since the fork is not.)"""
        engine = self.engine
        if not self.started:
            return True  # forked when it is first needed: a copy of the engine as it is then
        if not self.alive or (engine.analyzer, engine.home, engine.protection, engine.temp_dirs) != self._forked:
            return False
        rules = engine.rules
        if rules is self._synced_rules:
            return True
        return len(rules) == len(self._forked_rules) and all(
            now is then or now.id == then.id == PluginRule.id and isinstance(now, PluginRule)
            for now, then in zip(rules, self._forked_rules))

    async def judge(self, adapter: ModuleType, raw: bytes, event: str | None,
                    want_serialised: bool) -> HookAnswer | tuple[ToolCall, Decision, list]:
        """(call, decision, events raised there) or the answer to give instead; JudgeGone if the process ends.
        A caller that goes away (its agent hung up) does not cut the exchange short: the next call would read
        the rest of this one's. The call is judged to the end, as in a worker thread."""
        task = asyncio.ensure_future(self._judge(adapter, raw, event, want_serialised))
        task.add_done_callback(lambda t: t.cancelled() or t.exception())  # (no one may be left to read it)
        return await asyncio.shield(task)

    async def _judge(self, adapter: ModuleType, raw: bytes, event: str | None,
                     want_serialised: bool) -> HookAnswer | tuple[ToolCall, Decision, list]:
        async with self._lock:
            if not self.started:
                self.start()
            rules = self.engine.rules
            plugins = None
            if rules is not self._synced_rules:
                plugins = next(r.plugins for r in rules if r.id == PluginRule.id)
            budget_s = self.engine.budget_s
            try:
                return await asyncio.wait_for(self._exchange(adapter, raw, event, want_serialised, plugins, budget_s,
                                                             rules), max(MIN_WAIT_S, WAIT_FACTOR * budget_s))
            except asyncio.TimeoutError:
                self.kill()
                raise JudgeGone(f"it took longer than {max(MIN_WAIT_S, WAIT_FACTOR * budget_s):g} s and was ended")
            except (OSError, EOFError, pickle.PickleError, ValueError) as exc:
                self.kill()
                raise JudgeGone(f"it ended ({type(exc).__name__})") from None
            except JudgeGone:
                self.kill()
                raise

    async def _exchange(self, adapter, raw, event, want_serialised, plugins, budget_s, rules):
        await self._send(("judge", adapter.__name__, len(raw), event, budget_s, plugins, want_serialised), raw)
        if plugins is not None:
            self._synced_rules = rules
        call: ToolCall | None = None
        while True:
            message = await self._receive()
            kind = message[0]
            if kind == "session":  # the call's session, as the broker's engine has it now; then the call
                # itself, read here while the process judges it (a large input takes a while to rebuild)
                await self._send(("session", self.engine.sessions.get(message[1], message[2]).snapshot()))
                call = await self._receive_call()
            elif kind == "answer":
                return message[1]
            elif kind == "decided" and call is not None:
                _, decision, events, scope, serialised = message
                if serialised is not None:
                    call.__dict__["_serialised"] = serialised  # (ToolCall.serialised_input's cache, made there)
                self.engine.adopt(call, decision, scope)
                return call, decision, events
            elif kind == "failed":
                raise JudgeFailed(message[1])
            else:
                raise JudgeGone(f"it sent {kind!r} out of turn")

    async def _send(self, value: Any, tail: bytes = b"") -> None:
        sock = self._sock
        if sock is None:
            raise EOFError("closed")
        data = _dumps(value)
        loop = asyncio.get_running_loop()
        await loop.sock_sendall(sock, _LENGTH.pack(len(data)) + data)
        if tail:
            await loop.sock_sendall(sock, tail)  # the payload as it came, not copied into the message

    async def _receive(self) -> Any:
        (size,) = _LENGTH.unpack(await self._read_exactly(_LENGTH.size))
        return pickle.loads(await self._read_exactly(size))

    async def _receive_call(self) -> ToolCall:
        (size,) = _LENGTH.unpack(await self._read_exactly(_LENGTH.size))
        head = pickle.loads(await self._read_exactly(size))
        (size,) = _LENGTH.unpack(await self._read_exactly(_LENGTH.size))
        return _rebuild_call(head, await self._read_exactly(size))

    async def _read_exactly(self, size: int) -> memoryview:
        sock = self._sock
        if sock is None:
            raise EOFError("closed")
        loop = asyncio.get_running_loop()
        buffer = memoryview(bytearray(size))
        got = 0
        while got < size:
            n = await loop.sock_recv_into(sock, buffer[got:])
            if n == 0:
                raise EOFError("the judging process closed its socket")
            got += n
        return buffer

    def kill(self) -> None:
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass
            self._reap(wait=True)

    async def stop(self) -> None:
        """Close its socket (it exits when it reads the end), give it a moment, then make sure."""
        sock, self._sock = self._sock, None
        if sock is not None:
            sock.close()
        for _ in range(50):
            if not self.pid or self._reap(wait=False):
                return
            await asyncio.sleep(0.01)
        self.kill()

    def _reap(self, wait: bool) -> bool:
        try:
            done, _ = os.waitpid(self.pid, 0 if wait else os.WNOHANG)
        except ChildProcessError:
            done = self.pid
        if done:
            self.pid = 0
        return bool(done)


def why_not_judged(why: str) -> str:
    return f"the process judging large calls could not judge this one ({why}), so a person should look at it"


# -- the judging process -------------------------------------------------------------------
def _child(sock: socket.socket, engine: Engine) -> None:
    """The forked judging process: judge what the broker sends until it closes the socket."""
    try:
        _quiet()
        keep = sock.fileno()  # nothing else of the broker's: a connection it closes must close (no copy held here)
        os.closerange(3, keep)
        os.closerange(keep + 1, _max_fd())
        events: list = []
        _detach(engine, events)
        load_all_data()
        for agent in AGENTS:  # imported now, not while a call waits
            adapter_for(agent)
        _warm_up(engine)
        gc.freeze()  # what start-up built stays out of the collector's reach (and shared with the broker)
        events.clear()
        with sock.makefile("rb") as reader:
            while True:
                request = _read(reader)
                if request is None:
                    break
                _judge_one(sock, reader, engine, events, *request[1:])
    except BaseException:  # nothing to tell: the broker sees the socket close and fails closed
        pass
    finally:
        os._exit(0)


def _max_fd() -> int:
    try:
        return max(int(name) for name in os.listdir("/proc/self/fd")) + 1
    except (OSError, ValueError):
        return os.sysconf("SC_OPEN_MAX")


def _quiet() -> None:
    """No signal of the broker's is ours: the terminal's ^C and hang-up are the broker's to act on (it then
    closes the socket); SIGTERM ends this process; nothing is written to the broker's terminal. It runs at a
    lower priority than the broker: on a busy machine the broker's small calls come first (the budget counts
    the time a call computes, so waiting for the CPU costs a large call nothing but the wait)."""
    try:
        os.nice(NICENESS)
    except OSError:
        pass
    signal.set_wakeup_fd(-1)
    for sig in (signal.SIGINT, signal.SIGHUP, signal.SIGTSTP):
        signal.signal(sig, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _detach(engine: Engine, events: list) -> None:
    """The engine's ties to the broker cut: no audit, events collected, its own sessions and project plugins
    (fresh locks: another thread of the broker may have held one when it forked)."""
    engine.audit = None
    engine.on_event = events.append
    engine.sessions = Sessions()
    for rule in engine.rules:
        if isinstance(rule, PluginRule) and rule.projects is not None:
            old = rule.projects
            rule.projects = ProjectPlugins(old.locations, old.watched_root, lambda kind, message: events.append(
                ("project", kind, message)), clock=old.clock, load_wait_s=old.load_wait_s)


def _warm_up(engine: Engine) -> None:
    """Build what the first call builds (the parser, compiled patterns), outside any call's budget."""
    try:
        engine.evaluate(ToolCall("Bash", {"command": "true"}, engine.home, agent="guardtui", session=""),
                        record=False, quiet=True)
    except Exception:
        pass
    engine.sessions.clear()


def _read(reader) -> Any:
    head = reader.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        return None
    (size,) = _LENGTH.unpack(head)
    data = reader.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _write_call(sock: socket.socket, call: ToolCall) -> None:
    """The call, its input by marshal where it can be (plain JSON values: several times faster to write than
    pickle for an input of many small objects, as an MCP tool's may be)."""
    try:
        data = b"M" + marshal.dumps(dict(call.input))
    except ValueError:  # a value marshal does not know (core.inputs.CUT): pickle
        data = b"P" + _dumps(dict(call.input))
    head = _dumps({f.name: getattr(call, f.name) for f in fields(ToolCall) if f.name != "input"})
    sock.sendall(_LENGTH.pack(len(head)) + head + _LENGTH.pack(len(data)) + data)


def _rebuild_call(head: dict, data: memoryview) -> ToolCall:
    tool_input = marshal.loads(data[1:]) if data[:1] == b"M" else pickle.loads(data[1:])
    return ToolCall(**{**head, "input": tool_input})


def _write(sock: socket.socket, value: Any) -> None:
    data = _dumps(value)
    sock.sendall(_LENGTH.pack(len(data)) + data)


def _judge_one(sock, reader, engine: Engine, events: list, adapter_name: str, size: int, event: str | None,
               budget_s: float, plugins, want_serialised: bool) -> None:
    """One call, as Broker._evaluate judges a large one in a worker thread."""
    events.clear()
    raw = reader.read(size)
    if len(raw) < size:
        raise EOFError("the broker went away")
    try:
        if plugins is not None:
            current = next(r for r in engine.rules if r.id == PluginRule.id)
            engine.replace_rule(PluginRule.id, PluginRule(plugins, projects=current.projects))
        adapter = sys.modules[adapter_name]  # (every adapter was imported at start-up)
        begun = time.thread_time()  # the budget counts reading, as in the broker
        call = read_call(adapter, raw, event)
        if isinstance(call, HookAnswer):
            _write(sock, ("answer", call))
            return
        spent = time.thread_time() - begun  # (sending the call over is not judging it)
        _write(sock, ("session", call.agent, call.session))
        _write_call(sock, call)
        reply = _read(reader)
        if reply is None or reply[0] != "session":
            raise EOFError("the broker went away")
        engine.sessions.put(SessionState(**reply[1]))
        decision = engine.evaluate(call, record=False, budget_s=budget_s - spent)
        serialised = None
        if want_serialised and decision.verdict is Verdict.ASK:
            serialised = call.serialised_input()  # made here, not on the broker's loop (a recent "allow once" is
            #                                       matched by it)
        scope = engine.sessions.get(call.agent, call.session).scope
        _write(sock, ("decided", decision, list(events), scope, serialised))
    except (EOFError, OSError):
        raise
    except Exception as exc:
        _write(sock, ("failed", f"{type(exc).__name__}: {exc}"))
    finally:
        engine.sessions.clear()
        events.clear()


def raise_events(engine: Engine, projects_report: Callable[[str, str], None] | None, events: list) -> None:
    """The guard events the process raised, raised in the broker."""
    for event in events:
        try:
            if isinstance(event, GuardEvent):
                if engine.on_event is not None:
                    engine.on_event(event)
            elif projects_report is not None:
                projects_report(event[1], event[2])
        except Exception:  # a broken listener must not lose the answer
            pass
