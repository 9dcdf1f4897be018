"""GuardApp: the console. It is handed its engine, queue and (optionally) broker; it owns no
rules and no sockets. Background work runs in named worker groups on the App:

    broker        the broker's start, life and stop (its aiohttp server lives in this loop)
    plugin-watch  the plugin hot-reload watcher
    demo          the built-in scenario (`guardtui demo`)
    notify        desktop notifications (notify-send), when enabled
    signal        the shutdown a SIGTERM, SIGHUP or SIGINT starts (as `q`)
    rejudge       the waiting calls judged again after the rules changed (the newest change wins)
"""
from __future__ import annotations

import asyncio
import gc
import os
import shutil
import signal
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import var
from textual.signal import Signal

from ..broker.queue import PendingCall, PendingQueue, Rejudged
from ..core.config import Locations
from ..core.engine import Engine, GuardEvent, asking_segments
from ..core.model import BlastRadius, DecidedBy, Decision, ToolCall, Verdict
from ..core.session import exact_approval, propose_pattern
from ..wiring import long_running
from .messages import BrokerStatus, CallAdded, CallRejudged, CallResolved, CallReviewed, GuardEventPosted, PluginsChanged
from .present import LogLine, ProjectNames, SessionLabels, answer_line, event_line, short_path
from .screens.always_allow import AlwaysChoice, AlwaysOption
from .screens.console import ConsoleScreen, empty_hint
from .screens.editor import EditorScreen
from .screens.help import HelpScreen
from .screens.history import HistoryScreen
from .screens.playground import PlaygroundScreen
from .screens.quit_confirm import QuitScreen, fates, summary
from .screens.rules import RulesScreen
from .shipped import stylesheets
from .terminal import notification, title_sequence
from .theme import THEMES, VARIABLE_DEFAULTS
from . import plugin_files

Feeder = Callable[["GuardApp"], Awaitable[None]]
NOTIFY_EVERY_S = 1.0
STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
LEAVE_AFTER_HANGUP_S = 5.0  # after a SIGHUP, how long the exit may take before the process just leaves


@dataclass(frozen=True)
class ConsoleSettings:
    bell: bool = True  # ring the terminal bell when a call starts waiting
    popups: bool = True  # an in-app notification for a new call
    desktop: bool = False  # notify-send, where it exists
    terminal: str = "auto"  # a terminal notification (works over SSH): auto | osc9 | osc777 | off
    watch_plugins: bool = True  # run the plugin hot-reload watcher
    theme: str = "guardtui"
    answer_pause_s: float = 0.6  # an answer key is ignored this long after the selected call appears or changes
    catch_signals: bool = False  # SIGTERM, SIGHUP and SIGINT stop the console as `q` does (the CLI sets it)
    own_process: bool = False  # `guardtui` itself: a broker that cannot start ends the console (one line,
    #                            status 1), and the process is tuned for a long run (wiring.long_running)


class GuardApp(App[int]):
    TITLE = "guardtui"
    CSS_PATH = stylesheets()
    MODES = {
        "console": ConsoleScreen,
        "rules": RulesScreen,
        "playground": PlaygroundScreen,
        "editor": EditorScreen,
        "history": HistoryScreen,
    }
    BINDINGS = [
        Binding("1", "show('console')", "Console", show=False, id="screen.console"),
        Binding("2", "show('rules')", "Rules", show=False, id="screen.rules"),
        Binding("3", "show('playground')", "Playground", show=False, id="screen.playground"),
        Binding("4", "show('editor')", "Editor", show=False, id="screen.editor"),
        Binding("5", "show('history')", "History", show=False, id="screen.history"),
        Binding("question_mark", "help", "Help", key_display="?", id="help"),
        Binding("q", "quit", "Quit", id="quit"),
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True),
    ]

    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (36, "-tall")]

    # plain vars: the widgets that show them watch them; a repaint of the whole app on each change
    # (a reactive's default) redrew every widget 200 times a second under a flood
    pending_count: var[int] = var(0)
    agent_counts: var[tuple[tuple[str, int], ...]] = var(())
    broker_state: var[str] = var("off")
    broker_detail: var[str] = var("")

    def __init__(self, engine: Engine, queue: PendingQueue, *, locations: Locations, cwd: str,
                 broker: Any = None, feeder: Feeder | None = None, settings: ConsoleSettings = ConsoleSettings(),
                 clock: Callable[[], float] = time.time, display_home: str | None = None) -> None:
        super().__init__()
        self.engine = engine
        self.queue = queue
        self.broker = broker
        self.locations = locations
        self.cwd = cwd
        self.feeder = feeder
        self.settings = settings
        self.clock = clock
        self.display_home = display_home if display_home is not None else str(locations.home)
        self.calls_signal: Signal[tuple[str, PendingCall]] = Signal(self, "calls")
        self.log_signal: Signal[LogLine] = Signal(self, "guard-log")
        self.plugins_signal: Signal[None] = Signal(self, "plugins")
        self.decisions_signal: Signal[None] = Signal(self, "decisions")
        self.log_backlog: deque[LogLine] = deque(maxlen=500)
        self._judged_by_caller: set[GuardEvent] = set()
        self._per_agent: dict[str, int] = {}
        self.session_labels = SessionLabels()  # `claude 1`, `codex 1`: one name per agent session
        self.project_names = ProjectNames(self.display_home)
        self.quit_summary = ""
        self.last_reload: float | None = None
        self._edit_request: str | None = None
        self._stopping = asyncio.Event()
        self._shut_down = False
        self._last_ring = float("-inf")
        self._unheard = 0
        self._unsubscribe: Callable[[], None] | None = None
        self._caught: list[signal.Signals] = []
        self._previous_sinks: tuple[Any, Any] = (None, None)
        for theme in THEMES:
            self.register_theme(theme)
        self.theme = settings.theme

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(VARIABLE_DEFAULTS)

    # -- life ------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._previous_sinks = (self.engine.on_event, self.queue.on_event)
        self.engine.on_event = self._event_sink(self._previous_sinks[0])
        self.queue.on_event = self._event_sink(self._previous_sinks[1])
        self._unsubscribe = self.queue.subscribe(self._queue_listener)
        listeners = getattr(self.broker, "listeners", None)
        if isinstance(listeners, list):
            listeners.append(self._broker_decided)
        self.pending_count = len(self.queue)
        for pending in self.queue.pending():
            self._per_agent[pending.call.agent] = self._per_agent.get(pending.call.agent, 0) + 1
        self.agent_counts = tuple(sorted(self._per_agent.items()))
        if self.broker is not None:
            self.broker_state = "starting"
            self.run_broker()
        elif self.feeder is not None:
            self.broker_state, self.broker_detail = "demo", "demo scenario"
        if self.feeder is not None:
            self.run_feeder()
        if self.settings.watch_plugins:
            self.watch_plugin_files()
        if self.settings.catch_signals:
            self.catch_signals()
        self.switch_mode("console")
        # the flood of calls allocates many short-lived objects: collect the young ones less often,
        # and leave what start-up built (modules, the taxonomy, the rules) out of every full collection
        gc.collect()
        gc.freeze()
        self._gc_thresholds = gc.get_threshold()
        gc.set_threshold(max(self._gc_thresholds[0], 20_000), 50, 100)

    def _event_sink(self, previous: Callable[[GuardEvent], None] | None) -> Callable[[GuardEvent], None]:
        def sink(event: GuardEvent) -> None:
            if previous is not None:
                try:
                    previous(event)
                except Exception:
                    pass
            self.post_message(GuardEventPosted(event))
        return sink

    def _queue_listener(self, kind: str, pending: PendingCall) -> None:
        message = {"added": CallAdded, "reviewed": CallReviewed, "rejudged": CallRejudged}.get(kind, CallResolved)
        self.post_message(message(pending))

    def _broker_decided(self, call: ToolCall, decision: Decision, decided_by: DecidedBy) -> None:
        """The broker answered a call: rule, LLM and approval answers go to the guard log
        (the person's own answers, timeouts and shutdowns are logged where they happen)."""
        if decided_by in (DecidedBy.RULE, DecidedBy.LLM, DecidedBy.APPROVAL) and \
                decision.verdict in (Verdict.ALLOW, Verdict.DENY):
            word = "allowed" if decision.verdict is Verdict.ALLOW else "denied"
            by = {DecidedBy.LLM: " by the guard agent", DecidedBy.APPROVAL: " by your approval"}.get(decided_by, "")
            self.post_message(GuardEventPosted(GuardEvent(
                self.clock(), word, f"{word}{by}: {decision.reason}", decision.rule or decided_by.value,
                call.agent, call.summary(120))))

    @work(group="broker", exit_on_error=False, name="broker")
    async def run_broker(self) -> None:
        try:
            await self.broker.start()
        except Exception as exc:  # port in use, bad socket dir: say so (and, as `guardtui`, stop)
            if self.settings.own_process:
                self.exit(return_code=1, message=f"guardtui: the broker cannot start: {exc}")
                return
            self.post_message(BrokerStatus("failed", f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(BrokerStatus("listening", self.broker_address()))
        if self.settings.own_process:
            long_running()  # start-up is over: out of the garbage collector's reach
        await self._stopping.wait()

    def broker_address(self) -> str:
        broker = self.broker
        url = getattr(broker, "url", "") or ""
        return url.replace("http://", "") or "running"

    @work(group="plugin-watch", exit_on_error=False, name="plugin-watch")
    async def watch_plugin_files(self) -> None:
        await plugin_files.watch(self.engine, self.locations, self.cwd, self._event_sink(None), self._stopping)

    @work(group="demo", exit_on_error=False, name="demo")
    async def run_feeder(self) -> None:
        assert self.feeder is not None
        await self.feeder(self)

    # -- messages from the feeds -----------------------------------------------------
    def _count(self, pending: PendingCall, change: int) -> None:
        """The counts in the header, kept by adding and taking away (a flood must not recount)."""
        self.pending_count = len(self.queue)
        agent = pending.call.agent
        self._per_agent[agent] = self._per_agent.get(agent, 0) + change
        if self._per_agent[agent] <= 0:
            del self._per_agent[agent]
        self.agent_counts = tuple(sorted(self._per_agent.items()))

    def watch_pending_count(self, count: int) -> None:
        """The terminal's title says how many wait (a tab in the background shows it)."""
        self.write_terminal(title_sequence(f"guardtui · {count} waiting" if count else "guardtui"))

    def write_terminal(self, sequence: str) -> None:
        """Write an escape sequence to the terminal (a title, a notification): like the bell."""
        if sequence and not self.is_headless and self._driver is not None:
            self._driver.write(sequence)

    def on_call_added(self, message: CallAdded) -> None:
        self._count(message.pending, +1)
        self.calls_signal.publish(("added", message.pending))
        if not message.pending.reviewing:  # the guard agent may answer it in a moment: ring when it does not
            self._announce(message.pending)

    def on_call_rejudged(self, message: CallRejudged) -> None:
        self.calls_signal.publish(("rejudged", message.pending))

    def on_call_reviewed(self, message: CallReviewed) -> None:
        self.calls_signal.publish(("reviewed", message.pending))
        if not message.pending.done:
            self._announce(message.pending)

    def on_call_resolved(self, message: CallResolved) -> None:
        self._count(message.pending, -1)
        self.calls_signal.publish(("resolved", message.pending))
        line = answer_line(message.pending, self.clock(), self.display_home)
        if line is not None:
            self._log(line)
        self.decisions_signal.publish(None)

    def on_guard_event_posted(self, message: GuardEventPosted) -> None:
        event = message.event
        self._log(event_line(event, self.clock(), self.display_home))
        if event.kind in ("reload", "reload-error", "trust"):
            self.last_reload = event.ts
            self.plugins_signal.publish(None)
            if event in self._judged_by_caller:  # the save that caused it judges the waiting calls itself
                self._judged_by_caller.discard(event)
            elif event.kind != "reload-error":
                self.rejudge_waiting("the plugins changed" if event.kind == "reload" else "a plugin was trusted")
        if event.kind in ("decided", "allow", "deny", "allowed", "denied"):
            self.decisions_signal.publish(None)

    def on_broker_status(self, message: BrokerStatus) -> None:
        self.broker_state, self.broker_detail = message.state, message.detail
        if message.state == "failed":
            self._log(LogLine(self.clock(), "‼", "broker", "broker", f"could not start: {message.detail}", "error"))
        elif message.state == "listening":
            self._log(LogLine(self.clock(), "●", "broker", "broker", f"listening on {message.detail}", "guard"))
            reviewer = getattr(self.broker, "reviewer", None)
            if reviewer is not None:
                self._log(LogLine(self.clock(), "◆", "agent", "llm",
                                  f"the guard agent reviews unrecognised calls: {reviewer.settings.describe()}", "guard"))
        for screen in self.screen_stack:
            if isinstance(screen, ConsoleScreen):
                screen._update_empty_text()

    def on_plugins_changed(self, _message: PluginsChanged) -> None:
        self.plugins_signal.publish(None)

    def _log(self, line: LogLine) -> None:
        # the watcher and a save of our own may both report the same reload: say it once
        for recent in list(self.log_backlog)[-4:]:
            if (recent.label, recent.rule, recent.text) == (line.label, line.rule, line.text) and \
                    line.label in ("reload", "error") and abs(line.ts - recent.ts) < 5:
                return
        self.log_backlog.append(line)
        self.log_signal.publish(line)

    def empty_text(self):
        return empty_hint(self.broker_state, self.broker_detail)

    # -- telling the person ----------------------------------------------------------
    def _announce(self, pending: PendingCall) -> None:
        """Bell and a notification for a new call; a flood rings once a second, not 200 times."""
        now = time.monotonic()
        self._unheard += 1
        if now - self._last_ring < NOTIFY_EVERY_S:
            return
        count, self._unheard, self._last_ring = self._unheard, 0, now
        call = pending.call
        title = "Approval needed"
        body = f"{call.agent}: {call.tool} {call.summary(60)}" if count == 1 else \
            f"{count} new calls waiting (latest: {call.agent} {call.summary(40)})"
        if self.settings.bell:
            self.bell()
        self.write_terminal(notification(self.settings.terminal, title, body, os.environ))
        if self.settings.popups and not self._queue_in_view():
            self.notify(body, title=title, timeout=4)
        if self.settings.desktop:
            self.desktop_notify(title, body)

    def _queue_in_view(self) -> bool:
        """The console tab is showing with nothing over it: the queue itself shows the new call,
        and a popup would only cover the guard events."""
        return self.current_mode == "console" and isinstance(self.screen, ConsoleScreen)

    @work(group="notify", exit_on_error=False)
    async def desktop_notify(self, title: str, body: str) -> None:
        binary = shutil.which("notify-send")
        if binary is None:
            return
        proc = await asyncio.create_subprocess_exec(binary, "--app-name=guardtui", title, body,
                                                    stdout=asyncio.subprocess.DEVNULL,
                                                    stderr=asyncio.subprocess.DEVNULL)
        await proc.wait()

    # -- answering -------------------------------------------------------------------
    def answer_allow(self, pending: PendingCall, via: str = "console") -> bool:
        return self._done_or_warn(self.queue.allow(pending.id, via=via))

    def answer_deny(self, pending: PendingCall, message: str | None = None, via: str = "console") -> bool:
        return self._done_or_warn(self.queue.deny(pending.id, message, via=via))

    def answer_batch(self, calls: list[PendingCall], *, allow: bool, message: str | None = None) -> tuple[int, int]:
        """Answer several calls with one key (marked calls, an agent's calls): (answered, skipped).
        A batch never allows a critical call: those stay for the person to allow one by one."""
        answered = skipped = gone = 0
        for pending in calls:
            if allow and pending.decision.blast_radius is BlastRadius.CRITICAL:
                skipped += 1
                continue
            ok = self.queue.allow(pending.id, via="batch y") if allow else \
                self.queue.deny(pending.id, message, via="batch n" if message is None else "batch deny-message")
            answered += ok
            gone += not ok
        word = "allowed" if allow else "denied"
        bits = [f"{answered} {word}"]
        if skipped:
            bits.append(f"{skipped} critical left for you to allow one by one")
        if gone:
            bits.append(f"{gone} already answered")
        self.notify(", ".join(bits) + ".", title=f"Batch {word}", timeout=4,
                    severity="warning" if skipped or gone else "information")
        return answered, skipped

    async def answer_always(self, pending: PendingCall, choice: AlwaysChoice) -> bool:
        if pending.decision.blast_radius is BlastRadius.CRITICAL:
            self.notify("A critical call can be allowed once, never always.", severity="error")
            return False
        path = None
        if choice.kind == "rule":
            try:
                path = plugin_files.save_allow_rule(self.locations, self.cwd, pending.call, choice.approval)
            except (plugin_files.PluginEditError, OSError) as exc:
                self.notify(str(exc), title="Rule not saved", severity="error", timeout=8)
                return False
            # in force before the agent hears the answer: its next call is judged by the new rule
            await self.reload_plugins([str(path)], rejudge=False)
        covered = self.queue.approve(pending.id, choice.approval, via=f"dialog always-allow ({choice.kind})")
        if not self._done_or_warn(covered is not None):
            return False
        rejudged = Rejudged()
        if path is not None:  # it may answer other waiting calls
            rejudged = await self._rejudge("your new allow rule")
        also = (covered or 0) + rejudged.answered
        text = f"It also answered {also} more waiting call{'s' if also != 1 else ''}." if also else \
            "No other waiting call matches it."
        where = f" Saved to {short_path(str(path), self.display_home)}." if path is not None else ""
        self.notify(text + where, title="Always allowed")
        return True

    # -- the rules changed: judge the waiting calls again ------------------------------
    @work(group="rejudge", exclusive=True, exit_on_error=False)
    async def rejudge_waiting(self, why: str) -> Rejudged:
        return await self._rejudge(why)

    async def _rejudge(self, why: str) -> Rejudged:
        if not len(self.queue):
            return Rejudged()
        judge = getattr(self.broker, "judge_again", None) or self._judge_here
        result = await self.queue.rejudge(judge, why)
        if result.answered or result.refreshed:
            bits = [f"{n} {word}" for n, word in ((result.allowed, "allowed"), (result.denied, "denied"),
                                                  (result.refreshed, "with a new reason")) if n]
            self._log(LogLine(self.clock(), "↻", "rejudged", "rules",
                              f"waiting calls judged again ({why}): {', '.join(bits)}", "guard"))
        return result

    async def _judge_here(self, call: ToolCall) -> Decision:
        return self.engine.evaluate(call, record=False, quiet=True)

    def _done_or_warn(self, ok: bool) -> bool:
        if not ok:
            self.notify("That call was already answered (by a timeout, or the agent stopped waiting).",
                        severity="warning")
        return ok

    def always_options(self, pending: PendingCall) -> list[AlwaysOption]:
        call, decision = pending.call, pending.decision
        exact = exact_approval(call, decision.blast_radius)
        options = [AlwaysOption("exact", "This exact call, for this session", call.summary(100), exact)]
        pattern = propose_pattern(call, asking_segments(call, decision), decision.blast_radius)
        if pattern is not None:
            options.append(AlwaysOption("pattern", "Calls matching a pattern, for this session",
                                        f"{pattern.tool}: {pattern.value}", pattern))
            blocker = plugin_files.rule_blocker(self.engine, decision)
            target = short_path(str(plugin_files.approvals_file(self.locations)), self.display_home)
            options.append(AlwaysOption("rule", "Save as an allow rule in your plugins (every session)",
                                        f"{target}: {pattern.value}", pattern, blocker))
        return options

    async def reload_plugins(self, changed: list[str] | None = None, rejudge: bool = True) -> Any:
        """Re-read the plugin files now (the watcher does it too; this is for our own saves, so
        the change is in force before the next call is answered). Returns the PluginSet.
        `rejudge` False: the caller judges the waiting calls again itself."""
        sink = self._event_sink(None)
        if not rejudge:  # the reload is still logged, but its event starts no second re-judge
            def sink(event: GuardEvent, post=sink) -> None:  # type: ignore[misc]
                self._judged_by_caller.add(event)
                post(event)
        loaded = await plugin_files.reload(self.engine, self.locations, self.cwd, sink, changed or [])
        self.last_reload = self.clock()
        self.post_message(PluginsChanged())
        return loaded

    # -- screens ---------------------------------------------------------------------
    def action_show(self, mode: str) -> None:
        if self.current_mode != mode:
            self.switch_mode(mode)

    def edit_file(self, path: str) -> None:
        """Open a plugin file in the Editor screen."""
        self._edit_request = path
        if self.current_mode == "editor":
            self.screen.open_requested()  # type: ignore[attr-defined]
        else:
            self.switch_mode("editor")

    def take_edit_request(self) -> str | None:
        request, self._edit_request = self._edit_request, None
        return request

    def action_help(self) -> None:
        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    async def action_quit(self) -> None:
        if not len(self.queue):
            await self.shutdown()
            return
        if isinstance(self.screen, QuitScreen):  # ctrl+q in the dialog: the second ask is the answer
            self.screen.action_answer(True)
            return

        async def answered(really: bool | None) -> None:
            if really:
                await self.shutdown()

        await self.push_screen(QuitScreen(fates(self.queue.pending(), self.queue.timeout_policy,
                                                self.session_labels)), answered)

    async def shutdown(self, why: str = "the console quit", via: str = "quit") -> None:
        """Answer what is waiting by the policy, stop the broker, then exit saying, per agent
        session, what happened to its calls."""
        items = fates(self.queue.pending(), self.queue.timeout_policy, self.session_labels)
        count = await self._stop_everything(why, via)
        if count:
            self.quit_summary = summary(items)
        if via == "signal SIGHUP":
            self._leave_anyway()
        self.write_terminal(title_sequence(""))
        self.exit(0, message=self.quit_summary or None)

    def _leave_anyway(self) -> None:
        """The terminal is gone (SIGHUP) and every call is answered and audited: if restoring a terminal
        that no longer exists holds up the exit, the process leaves anyway rather than linger unseen."""
        if self.engine.audit is not None:
            self.engine.audit.flush()
        timer = threading.Timer(LEAVE_AFTER_HANGUP_S, os._exit, (0,))
        timer.daemon = True
        timer.start()

    # -- signals: SIGTERM, SIGHUP (the terminal closed) and SIGINT are `q` ---------------
    def catch_signals(self) -> None:
        """Stop on a signal the way `q` stops (every waiting call answered by the policy and audited,
        the terminal restored), instead of dying with agents' hooks left hanging."""
        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            try:
                loop.add_signal_handler(sig, self._signalled, sig)
            except (ValueError, RuntimeError, NotImplementedError):  # not the main thread, or no signals here
                return
            self._caught.append(sig)

    def _signalled(self, sig: signal.Signals) -> None:
        if not self._shut_down:
            self.run_worker(self.shutdown(f"guardtui received {sig.name}", f"signal {sig.name}"), group="signal",
                            exit_on_error=False)

    def _release_signals(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in self._caught:
            loop.remove_signal_handler(sig)
        self._caught.clear()

    async def _stop_everything(self, why: str = "the console quit", via: str = "quit") -> int:
        if self._shut_down:
            return 0
        self._shut_down = True
        self._stopping.set()
        count = await self.queue.close(why, via)
        if self.broker is not None and self.broker_state == "listening":
            try:
                await self.broker.stop()
            except Exception:
                pass
            self.broker_state = "stopped"
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.engine.on_event, self.queue.on_event = self._previous_sinks
        self._release_signals()
        if getattr(self, "_gc_thresholds", None):
            gc.set_threshold(*self._gc_thresholds)
            gc.unfreeze()
        return count

    async def on_unmount(self) -> None:
        await self._stop_everything()

