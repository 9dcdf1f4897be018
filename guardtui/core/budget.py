"""A time budget for judging: whatever the input, an evaluation ends in time.

    with within(seconds):      # OverBudget is raised in this thread once the time is up
        ...
    remaining() -> float       # seconds left of the current thread's budget (inf: none)
    expired() -> bool          # for work in C that can stop itself (the bash parser's progress callback)

The budget is enforced from outside the code it bounds, so it holds for every rule and every
analyzer, those written later included: one watchdog thread per process raises OverBudget in
a thread whose time is up (PyThreadState_SetAsyncExc), at that thread's next Python
instruction. OverBudget is a BaseException, so the `except Exception` that turns a failing rule
into an ask does not swallow it. Work in C that holds the interpreter cannot be interrupted
this way; it asks `expired()` where it can (the parser), or is given `remaining()` as its own
limit (a plugin's regex search).
"""
from __future__ import annotations

import math
import threading
import time

_clock = time.monotonic


class OverBudget(BaseException):
    """The time given to judge a call ran out."""


class _Watchdog:
    """Sleeps until the earliest deadline, then interrupts the thread it belongs to."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.wake = threading.Condition(self.lock)
        self.deadlines: dict[int, float] = {}  # thread id -> deadline (one budget per thread)
        self.next_wake = math.inf
        self.raise_in, self.clear_in = _async_exc()
        threading.Thread(target=self._run, name="guardtui-budget", daemon=True).start()

    def add(self, thread_id: int, deadline: float) -> None:
        with self.lock:
            self.deadlines[thread_id] = deadline
            if deadline < self.next_wake:
                self.wake.notify()

    def remove(self, thread_id: int) -> bool:
        """False when the budget already ran out (an OverBudget still pending is cleared)."""
        with self.lock:
            if self.deadlines.pop(thread_id, None) is not None:
                return True
            self.clear_in(thread_id)
            return False

    def _run(self) -> None:
        with self.lock:
            while True:
                now = _clock()
                for thread_id, deadline in list(self.deadlines.items()):
                    if deadline <= now:
                        del self.deadlines[thread_id]
                        self.raise_in(thread_id)
                self.next_wake = min(self.deadlines.values(), default=math.inf)
                self.wake.wait(None if self.next_wake == math.inf else self.next_wake - now)


def _async_exc():
    import ctypes

    set_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    clear = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
        ("PyThreadState_SetAsyncExc", ctypes.pythonapi))
    return (lambda thread_id: set_exc(thread_id, OverBudget)), (lambda thread_id: clear(thread_id, None))


_watchdog: _Watchdog | None = None
_start_lock = threading.Lock()


def _the_watchdog() -> _Watchdog:
    global _watchdog
    if _watchdog is None:
        with _start_lock:
            if _watchdog is None:
                _watchdog = _Watchdog()
    return _watchdog


class within:
    """Run the block within `seconds` (counted from entry). A budget inside another runs under the
    outer one: a thread has one deadline at a time."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.nested = False

    def __enter__(self) -> "within":
        watchdog = _the_watchdog()
        thread_id = threading.get_ident()
        self.nested = thread_id in watchdog.deadlines
        if not self.nested:
            watchdog.add(thread_id, _clock() + self.seconds)
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if self.nested or _the_watchdog().remove(threading.get_ident()) or kind is not None:
            return False
        raise OverBudget()  # the time ran out just as the block ended: its result came too late


def remaining() -> float:
    """Seconds left of this thread's budget (inf when it has none)."""
    watchdog = _watchdog
    deadline = watchdog.deadlines.get(threading.get_ident()) if watchdog is not None else None
    return math.inf if deadline is None else deadline - _clock()


def expired() -> bool:
    return remaining() <= 0
