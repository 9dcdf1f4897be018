"""A time budget for judging: whatever the input, an evaluation ends in time.

    with within(seconds):      # OverBudget is raised in this thread once the time is up
        ...
    remaining() -> float       # seconds left of the current thread's budget (inf: none)

The budget is enforced from outside the code it bounds, so it holds for every rule and every
analyzer, those written later included: one watchdog thread per process raises OverBudget in
a thread whose time is up (PyThreadState_SetAsyncExc), at that thread's next Python
instruction. OverBudget is a BaseException, so the `except Exception` that turns a failing rule
into an ask does not swallow it. Raised where Python ignores exceptions (a __del__, a garbage
collector callback), it is reported to sys.unraisablehook instead: that re-arms the watchdog,
which raises it again a millisecond later. It is never raised inside the import system (whose
module locks an exception would leave held, hanging every later import of the module): there it
waits a millisecond and tries again. Work in C that holds the interpreter cannot be
interrupted this way: the bash parser is given a progress callback (a Python frame to be
interrupted in), a plugin's regex search is given `remaining()` as its own limit. Nor is a thread
inside Thread.start() before its new thread has run: the exception would land in the new thread.

In the main thread the budget is a SIGALRM timer instead (when nobody else uses it): no watchdog
thread is woken, which matters for the broker's event loop, judging small calls by the thousand.

A thread has one budget at a time: `within` is not nested.
"""
from __future__ import annotations

import math
import sys
import threading
import time

_clock = time.monotonic
REARM_S = 0.001
SOON_S = 0.00002
WALL_CAP_FACTOR = 10


class _Span:
    """One budget: `seconds` of the thread's CPU time (`cpu_clock`, a clock id) or of the wall clock."""

    __slots__ = ("seconds", "cpu_clock", "cpu_start", "wall_start", "wall_end")

    def __init__(self, seconds: float, cpu_clock: int | None) -> None:
        self.seconds, self.cpu_clock = seconds, cpu_clock
        self.wall_start = _clock()
        self.cpu_start = _cpu_now(cpu_clock) if cpu_clock is not None else 0.0
        self.wall_end = self.wall_start + seconds * (WALL_CAP_FACTOR if cpu_clock is not None else 1)

    def left(self, now: float) -> float:
        """Seconds left (<= 0: the time is up)."""
        wall_left = self.wall_end - now
        if self.cpu_clock is None or wall_left <= 0:
            return wall_left
        try:
            spent = _cpu_now(self.cpu_clock) - self.cpu_start
        except OSError:  # the thread is gone
            return 0.0
        return min(self.seconds - spent, wall_left)


_THREAD_START = threading.Thread.start.__code__
_THIS_THREAD = -1  # the clock id standing for "the calling thread's own CPU clock" (time.thread_time)


def _cpu_now(clock: int) -> float:
    return time.thread_time() if clock == _THIS_THREAD else time.clock_gettime(clock)


def _cpu_clock_of(thread_id: int) -> int | None:
    """The CPU clock of a thread, readable from another one (the watchdog); None where there is none."""
    try:
        return time.pthread_getcpuclockid(thread_id)
    except (AttributeError, OSError):
        return None


class OverBudget(BaseException):
    """The time given to judge a call ran out."""


class _Watchdog:
    """Sleeps until the earliest deadline, then interrupts the thread it belongs to (once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.inside: set[int] = set()  # threads inside their budget
        self.spans: dict[int, _Span] = {}  # thread id -> its budget
        self.deadlines: dict[int, float] = {}  # thread id -> when to look at it again (or interrupt it)
        self.fired: set[int] = set()  # threads interrupted since they entered their budget
        self.next_wake = math.inf
        self.raise_in = _async_exc()
        threading.Thread(target=self._run, name="guardtui-budget", daemon=True).start()

    def enter(self, thread_id: int, span: _Span) -> None:
        with self.lock:
            self.inside.add(thread_id)
            self.fired.discard(thread_id)
            self.spans[thread_id] = span
            self._arm(thread_id, span.wall_start + span.seconds)

    def leave(self, thread_id: int) -> bool:
        """False when the budget ran out (an OverBudget may still be on its way: see within.__exit__)."""
        with self.lock:
            self.inside.discard(thread_id)
            self.deadlines.pop(thread_id, None)
            self.spans.pop(thread_id, None)
            if thread_id not in self.fired:
                return True
            self.fired.discard(thread_id)
            return False

    def rearm(self, thread_id: int) -> None:
        """The OverBudget raised in this thread was swallowed: raise it again soon."""
        with self.lock:
            if thread_id in self.inside:
                self._arm(thread_id, _clock() + REARM_S)

    def _arm(self, thread_id: int, deadline: float) -> None:
        self.deadlines[thread_id] = deadline
        if deadline < self.next_wake:
            self.wake.notify()

    def _interrupt(self, thread_id: int) -> bool:
        """Raise OverBudget in the thread now, unless this is no moment for it (False: try again soon).

        A thread starting another is not interrupted until the new one has run: CPython gives the new
        thread's state the starting thread's id until then, and PyThreadState_SetAsyncExc raises in the
        first state with the id it is given, the newest. The new thread died of the exception before it
        said it had started, and the starting thread waited in Thread.start() for ever (a `guardtui
        serve` that did not exit: its engine worker stuck starting a project-plugins loader). threading's
        limbo lock is held from the look to the raise, so no thread begins starting one in between."""
        starting = getattr(threading, "_active_limbo_lock", None)
        if starting is not None and not starting.acquire(blocking=False):
            return False  # a thread is being started (or listed) this very moment
        try:
            frame = sys._current_frames().get(thread_id)
            if _not_now(frame) or _starting_a_thread(frame):
                return False
            self.fired.add(thread_id)
            self.raise_in(thread_id)
            return True
        finally:
            if starting is not None:
                starting.release()

    def _run(self) -> None:
        with self.lock:
            while True:
                now = _clock()
                for thread_id, deadline in list(self.deadlines.items()):
                    if deadline <= now:
                        span = self.spans.get(thread_id)
                        left = span.left(now) if span is not None and thread_id not in self.fired else 0.0
                        if left > 0:  # it waited rather than computed: look again when it could be done
                            self.deadlines[thread_id] = now + max(left, REARM_S)
                            continue
                        if not self._interrupt(thread_id):
                            self.deadlines[thread_id] = now + REARM_S
                            continue
                        del self.deadlines[thread_id]
                self.next_wake = min(self.deadlines.values(), default=math.inf)
                self.wake.wait(None if self.next_wake == math.inf else self.next_wake - now)


def _not_now(frame) -> bool:
    """Is the thread inside the import system, or a finalizer? The import system takes its module
    locks by hand: an exception raised there would leave one held, and every later import of that
    module would wait for ever. A finalizer (__del__) swallows it. The interruption waits a moment
    and tries again."""
    depth = 0
    while frame is not None and depth < 64:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.startswith("<frozen importlib"):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def _starting_a_thread(frame) -> bool:
    """Is the thread inside Thread.start() of a thread that has not run yet (whose state may still
    carry this thread's id)? Once the new thread has run, it has its own id (it set _ident)."""
    depth = 0
    while frame is not None and depth < 64:
        if frame.f_code is _THREAD_START:
            starting = frame.f_locals.get("self")
            return getattr(starting, "_ident", None) is None
        frame, depth = frame.f_back, depth + 1
    return False


def _async_exc():
    """Raise OverBudget in a thread. (Never "clear" one with NULL: in CPython that leaves the
    interpreter's eval breaker set for good, which slows every thread and hangs a traced one.)"""
    import ctypes

    set_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    return lambda thread_id: set_exc(thread_id, OverBudget)


class _Alarm:
    """The main thread's budget: a SIGALRM timer whose handler raises OverBudget, if the block is still
    running when it runs. No other thread is woken (the watchdog is, twice per budget): the event loop
    of the console, serve and the standby judges small calls this way, and the offline hook its one."""

    def __init__(self) -> None:
        import signal

        self.signal = signal
        self.inside = False
        self.fired = False
        self.span: _Span | None = None
        signal.signal(signal.SIGALRM, self._ring)

    @staticmethod
    def usable() -> bool:
        if threading.current_thread() is not threading.main_thread():
            return False
        if _alarm is not None:
            return True
        try:
            import signal

            return signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None) and \
                signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        except (ImportError, AttributeError, ValueError):  # no SIGALRM here
            return False

    def enter(self, span: _Span) -> None:
        self.inside, self.fired, self.span = True, False, span
        self.signal.setitimer(self.signal.ITIMER_REAL, max(1e-6, span.seconds))

    def leave(self) -> bool:
        """False when the budget ran out."""
        self.inside = False
        self.signal.setitimer(self.signal.ITIMER_REAL, 0)
        return not self.fired

    def rearm(self) -> None:
        if self.inside:
            self.signal.setitimer(self.signal.ITIMER_REAL, REARM_S)

    def _ring(self, _signum, frame) -> None:
        if not self.inside:  # (a timer that rang as the block ended finds it gone: nothing to do)
            return
        left = self.span.left(_clock()) if self.span is not None and not self.fired else 0.0
        if left > 0:  # it waited rather than computed: ring again when it could be done
            self.signal.setitimer(self.signal.ITIMER_REAL, max(left, REARM_S))
            return
        if _not_now(frame):  # soon again: a signal is handled at the next check, often the same place
            self.signal.setitimer(self.signal.ITIMER_REAL, SOON_S)
            return
        self.fired = True
        raise OverBudget()


def _rearming(previous):
    """An OverBudget that Python had to ignore is raised again (and not printed)."""

    def hook(unraisable) -> None:
        if isinstance(unraisable.exc_value, OverBudget):
            if _alarm is not None and threading.current_thread() is threading.main_thread():
                _alarm.rearm()
            elif _watchdog is not None:
                _watchdog.rearm(threading.get_ident())
        else:
            previous(unraisable)

    return hook


_watchdog: _Watchdog | None = None
_alarm: _Alarm | None = None
_start_lock = threading.Lock()


def _hook_unraisable() -> None:
    if not getattr(sys.unraisablehook, "guardtui_budget", False):
        sys.unraisablehook = _rearming(sys.unraisablehook)
        sys.unraisablehook.guardtui_budget = True  # type: ignore[attr-defined]


def _the_watchdog() -> _Watchdog:
    global _watchdog
    if _watchdog is None:
        with _start_lock:
            if _watchdog is None:
                _hook_unraisable()
                _watchdog = _Watchdog()
    return _watchdog


def _the_alarm() -> _Alarm:
    global _alarm
    if _alarm is None:
        _hook_unraisable()
        _alarm = _Alarm()
    return _alarm


class within:
    """Run the block within `seconds`, counted from entry: of the wall clock, or with `cpu` of the time
    this thread computed (and at most WALL_CAP_FACTOR times as long on the wall clock)."""

    def __init__(self, seconds: float, cpu: bool = False):
        self.seconds = seconds
        self.cpu = cpu
        self.alarm = False

    def __enter__(self) -> "within":
        self.alarm = _Alarm.usable()
        if self.alarm:
            _hook_unraisable()  # again each time: a test runner or an app may have put its own in place
            _the_alarm().enter(_Span(self.seconds, _THIS_THREAD if self.cpu else None))
        else:
            thread_id = threading.get_ident()
            _the_watchdog().enter(thread_id, _Span(self.seconds, _cpu_clock_of(thread_id) if self.cpu else None))
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if self.alarm:
            if _the_alarm().leave() or kind is not None:
                return False
            raise OverBudget()  # the time ran out as the block ended (or its interruption was lost)
        if _the_watchdog().leave(threading.get_ident()):
            return False
        try:  # an interruption fired but not yet raised arrives here, at the loop's jump, and ends here
            for _ in range(2):
                pass
        except OverBudget:
            pass
        if kind is not None:
            return False
        raise OverBudget()  # the time ran out as the block ended (or its interruption was lost): too late


def remaining() -> float:
    """Seconds left of this thread's budget (inf when it has none)."""
    if _alarm is not None and _alarm.inside and threading.current_thread() is threading.main_thread():
        return 0.0 if _alarm.fired or _alarm.span is None else _alarm.span.left(_clock())
    watchdog = _watchdog
    if watchdog is None:
        return math.inf
    thread_id = threading.get_ident()
    if thread_id not in watchdog.inside:
        return math.inf
    if thread_id in watchdog.fired:
        return 0.0
    span = watchdog.spans.get(thread_id)
    return 0.0 if span is None else span.left(_clock())
