"""GuardApp: the console. It is handed its engine, queue and (optionally) broker; it owns no
rules and no sockets. Background work runs in named worker groups on the App:

    broker        the broker's start, life and stop (its aiohttp server lives in this loop)
    plugin-watch  the plugin hot-reload watcher
    demo          the built-in scenario (`guardtui demo`)
    notify        desktop notifications (notify-send), when enabled
"""
from __future__ import annotations

import asyncio
import shutil
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Awaitable, Callable

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.reactive import reactive
from textual.signal import Signal

from ..broker.queue import PendingCall, PendingQueue
from ..core.config import Locations
from ..core.engine import Engine, GuardEvent, asking_segments
from ..core.model import BlastRadius, DecidedBy, Decision, ToolCall, Verdict
from ..core.session import exact_approval, propose_pattern
from ..wiring import long_running
from .messages import BrokerStatus, CallAdded, CallResolved, GuardEventPosted, PluginsChanged
from .present import LogLine, answer_line, event_line, short_path
from .screens.always_allow import AlwaysChoice, AlwaysOption
from .screens.console import ConsoleScreen, empty_hint
from .screens.editor import EditorScreen
from .screens.help import HelpScreen
from .screens.history import HistoryScreen
from .screens.playground import PlaygroundScreen
from .screens.quit_confirm import QuitScreen
from .screens.rules import RulesScreen
from .shipped import stylesheets
from .theme import THEMES, VARIABLE_DEFAULTS
from . import plugin_files

Feeder = Callable[["GuardApp"], Awaitable[None]]
NOTIFY_EVERY_S = 1.0


@dataclass(frozen=True)
class ConsoleSettings:
    bell: bool = True  # ring the terminal bell when a call starts waiting
    popups: bool = True  # an in-app notification for a new call
    desktop: bool = False  # notify-send, where it exists
    watch_plugins: bool = True  # run the plugin hot-reload watcher
    theme: str = "guardtui"
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

    pending_count: reactive[int] = reactive(0)
    broker_state: reactive[str] = reactive("off")
    broker_detail: reactive[str] = reactive("")

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
        self.quit_summary = ""
        self.last_reload: float | None = None
        self._edit_request: str | None = None
        self._stopping = asyncio.Event()
        self._shut_down = False
        self._last_ring = float("-inf")
        self._unheard = 0
        self._unsubscribe: Callable[[], None] | None = None
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
        if self.broker is not None:
            self.broker_state = "starting"
            self.run_broker()
        elif self.feeder is not None:
            self.broker_state, self.broker_detail = "demo", "demo scenario"
        if self.feeder is not None:
            self.run_feeder()
        if self.settings.watch_plugins:
            self.watch_plugin_files()
        self.switch_mode("console")

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
        self.post_message(CallAdded(pending) if kind == "added" else CallResolved(pending))

    def _broker_decided(self, call: ToolCall, decision: Decision, decided_by: DecidedBy) -> None:
        """The broker answered a call: rule, LLM and approval answers go to the guard log
        (the person's own answers, timeouts and shutdowns are logged where they happen)."""
        if decided_by in (DecidedBy.RULE, DecidedBy.LLM, DecidedBy.APPROVAL) and \
                decision.verdict in (Verdict.ALLOW, Verdict.DENY):
            word = "allowed" if decision.verdict is Verdict.ALLOW else "denied"
            by = {DecidedBy.LLM: " by the LLM guard", DecidedBy.APPROVAL: " by your approval"}.get(decided_by, "")
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
    def on_call_added(self, message: CallAdded) -> None:
        self.pending_count = len(self.queue)
        self.calls_signal.publish(("added", message.pending))
        self._announce(message.pending)

    def on_call_resolved(self, message: CallResolved) -> None:
        self.pending_count = len(self.queue)
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
        if event.kind in ("decided", "allow", "deny", "allowed", "denied"):
            self.decisions_signal.publish(None)

    def on_broker_status(self, message: BrokerStatus) -> None:
        self.broker_state, self.broker_detail = message.state, message.detail
        if message.state == "failed":
            self._log(LogLine(self.clock(), "‼", "broker", "broker", f"could not start: {message.detail}", "error"))
        elif message.state == "listening":
            self._log(LogLine(self.clock(), "●", "broker", "broker", f"listening on {message.detail}", "guard"))
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
    def answer_allow(self, pending: PendingCall) -> bool:
        return self._done_or_warn(self.queue.allow(pending.id))

    def answer_deny(self, pending: PendingCall, message: str | None = None) -> bool:
        return self._done_or_warn(self.queue.deny(pending.id, message))

    async def answer_always(self, pending: PendingCall, choice: AlwaysChoice) -> bool:
        if pending.decision.blast_radius is BlastRadius.CRITICAL:
            self.notify("A critical call can be allowed once, never always.", severity="error")
            return False
        if choice.kind == "rule":
            try:
                path = plugin_files.save_allow_rule(self.locations, self.cwd, pending.call, choice.approval)
            except (plugin_files.PluginEditError, OSError) as exc:
                self.notify(str(exc), title="Rule not saved", severity="error", timeout=8)
                return False
            await self.reload_plugins([str(path)])
            self.notify(f"Saved to {short_path(str(path), self.display_home)}", title="Allow rule saved")
        return self._done_or_warn(self.queue.allow(pending.id, choice.approval))

    def _done_or_warn(self, ok: bool) -> bool:
        if not ok:
            self.notify("That call was already answered (by a timeout, or the agent stopped waiting).",
                        severity="warning")
        return ok

    def always_options(self, pending: PendingCall) -> list[AlwaysOption]:
        call, decision = pending.call, pending.decision
        exact = exact_approval(call)
        options = [AlwaysOption("exact", "This exact call, for this session", call.summary(100), exact)]
        pattern = propose_pattern(call, asking_segments(call, decision))
        if pattern is not None:
            options.append(AlwaysOption("pattern", "Calls matching a pattern, for this session",
                                        f"{pattern.tool}: {pattern.value}", pattern))
            blocker = plugin_files.rule_blocker(self.engine, decision)
            target = short_path(str(plugin_files.approvals_file(self.locations)), self.display_home)
            options.append(AlwaysOption("rule", "Save as an allow rule in your plugins (every session)",
                                        f"{target}: {pattern.value}", pattern, blocker))
        return options

    async def reload_plugins(self, changed: list[str] | None = None) -> Any:
        """Re-read the plugin files now (the watcher does it too; this is for our own saves, so
        the change is in force before the next call is answered). Returns the PluginSet."""
        loaded = await plugin_files.reload(self.engine, self.locations, self.cwd, self._event_sink(None),
                                           changed or [])
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
        waiting = len(self.queue)
        if waiting == 0:
            await self.shutdown()
            return

        async def answered(really: bool | None) -> None:
            if really:
                await self.shutdown()

        await self.push_screen(QuitScreen(waiting, self.queue.timeout_policy.value), answered)

    async def shutdown(self) -> None:
        """Answer what is waiting by the policy, stop the broker, then exit saying so."""
        count = await self._stop_everything()
        if count:
            fate = "denied" if self.queue.timeout_policy.value == "deny" else "handed back to the agents' own prompts"
            self.quit_summary = f"guardtui: {count} waiting call(s) {fate}."
        self.exit(0, message=self.quit_summary or None)

    async def _stop_everything(self) -> int:
        if self._shut_down:
            return 0
        self._shut_down = True
        self._stopping.set()
        count = await self.queue.close("the console quit")
        if self.broker is not None and self.broker_state == "listening":
            try:
                await self.broker.stop()
            except Exception:
                pass
            self.broker_state = "stopped"
        if self._unsubscribe is not None:
            self._unsubscribe()
        self.engine.on_event, self.queue.on_event = self._previous_sinks
        return count

    async def on_unmount(self) -> None:
        await self._stop_everything()

