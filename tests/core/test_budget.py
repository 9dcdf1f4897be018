"""The judging budget: whatever a rule or an analyzer does, the call is answered in time, and asks."""
from __future__ import annotations

import threading
import time

import pytest

from guardtui.core.audit import AuditLog
from guardtui.core.budget import OverBudget, remaining, within
from guardtui.core.engine import BUDGET_RULE, Engine, GuardEvent
from guardtui.core.model import BlastRadius, Decision, ToolCall, Verdict
from guardtui.core.rules import DangerousShellRule, DefaultPolicyRule
from guardtui.core.session import exact_approval
from guardtui.core.shell.analyze import Analyzer

from ..conftest import HOME, PROJECT, TYPICAL


class Endless:
    """A rule that never finishes on its own, and swallows every Exception on the way."""

    id = "endless"

    def evaluate(self, call, ctx):
        while True:
            try:
                sum(range(1000))
            except Exception:  # the budget is not an Exception: it cannot be swallowed here
                pass


class Flagging:
    id = "plugins"

    def evaluate(self, call, ctx):
        return Decision(Verdict.FLAG, "seen", "plugins/watch", BlastRadius.LOW, "test")


def bash(command: str) -> ToolCall:
    return ToolCall("Bash", {"command": command}, PROJECT, agent="claude", session="s1")


def engine(*rules, budget_s: float, **kw) -> Engine:
    return Engine(list(rules), analyzer=Analyzer(command_exists=lambda n: n in TYPICAL), home=HOME,
                  budget_s=budget_s, **kw)


def test_a_rule_that_never_ends_asks_in_time_saying_why():
    events: list[GuardEvent] = []
    start = time.monotonic()
    decision = engine(Endless(), budget_s=0.05, on_event=events.append).evaluate(bash("ls"), record=False)
    assert time.monotonic() - start < 5  # generous: it ends at the budget, not never
    assert (decision.verdict, decision.rule, decision.category) == (Verdict.ASK, BUDGET_RULE, "too-complex")
    assert "took longer than its 50 ms budget" in decision.reason
    assert [(e.kind, e.rule) for e in events] == [("budget", BUDGET_RULE)]


def test_the_engine_judges_normally_after_a_call_ran_out_of_time():
    e = engine(Endless(), budget_s=0.02)
    assert e.evaluate(bash("ls"), record=False).rule == BUDGET_RULE
    e.replace_rule("endless", DangerousShellRule())
    e._rules = (*e.rules, DefaultPolicyRule())
    assert e.evaluate(bash("rm -rf ~"), record=False).verdict is Verdict.DENY
    time.sleep(0.05)  # nothing fires later into this thread
    assert e.evaluate(bash("ls"), record=False).verdict is Verdict.ALLOW


def test_a_huge_command_asks_and_the_parser_is_whole_again_afterwards():
    """The bash parser runs in C: it is stopped through its progress callback, and reset, or the next
    parse would resume the one that was stopped."""
    e = engine(DangerousShellRule(), DefaultPolicyRule(), budget_s=0.01)
    huge = "echo hello world\n" * 60_000  # about 1 MB: parsing it alone takes far longer than 10 ms
    assert e.evaluate(bash(huge), record=False).rule == BUDGET_RULE
    e.budget_s = 60.0
    decision = e.evaluate(bash("rm -rf ~"), record=False)
    assert decision.verdict is Verdict.DENY and decision.metadata["segment"] == "rm -rf ~"


def test_an_approval_never_allows_a_call_that_could_not_be_judged():
    e = engine(Endless(), budget_s=0.02)
    call = bash("make deploy")
    e.approve(call, Decision(Verdict.ASK, "asks", "x", BlastRadius.MEDIUM), exact_approval(call))
    assert e.evaluate(call, record=False).verdict is Verdict.ASK


def test_judging_quickly_gives_up_without_a_trace_and_a_full_evaluation_reports_once(tmp_path):
    audit = AuditLog(tmp_path / "audit.db")
    events: list[GuardEvent] = []
    e = engine(Flagging(), Endless(), budget_s=0.05, audit=audit, on_event=events.append)
    assert e.evaluate_quickly(bash("ls"), 0.005) is None
    assert events == [] and audit.entries() == []
    e._rules = (Flagging(), DefaultPolicyRule())
    quick = e.evaluate_quickly(bash("ls"), 5.0)
    assert quick is not None and quick.verdict is Verdict.ALLOW
    assert [e.kind for e in events] == ["flag"] and len(audit.entries()) == 1


def test_judging_quickly_counts_what_the_call_computes_not_how_long_it_waited(monkeypatch):
    """The broker's slice on its event loop: a small call that waited for the interpreter (a large call's
    worker held it) is still answered there, not judged again from the start in a worker thread."""
    monkeypatch.setattr("guardtui.core.engine._warm", True)  # past the process's first call (its longer budget)
    e = engine(Waiting(0.03), DefaultPolicyRule(), budget_s=1.0)
    quick = e.evaluate_quickly(bash("ls"), 0.01)  # 30 ms waited, well within ten times the 10 ms slice
    assert quick is not None and quick.verdict is Verdict.ALLOW
    assert e.evaluate_quickly(bash("ls"), 0.002) is None  # past ten times the slice on the wall clock: given up


def test_the_budget_interrupts_the_thread_it_belongs_to_and_no_other():
    stopped: list[str] = []

    def spin(name: str, seconds: float) -> None:
        try:
            with within(seconds):
                while True:
                    pass
        except OverBudget:
            stopped.append(name)

    threads = [threading.Thread(target=spin, args=(f"t{i}", 0.02 * (i + 1))) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sorted(stopped) == ["t0", "t1", "t2"]
    with within(0.01):
        pass
    time.sleep(0.05)  # a block that ended in time leaves nothing behind
    assert remaining() == float("inf")


def test_a_thread_that_runs_out_of_time_while_starting_another_is_interrupted_itself():
    """CPython gives a new thread's state the starting thread's id until it runs: the interruption used to
    land in the new thread, which died before saying it had started, and the starting thread waited in
    Thread.start() for ever (`guardtui serve` then never exited). A judging thread that does little but
    start threads, a thousand budgets running out: it always ends, each time by its own OverBudget."""
    ended: list[int] = []

    def starting() -> None:
        for _ in range(1000):
            try:
                with within(0.0003, cpu=True):
                    while True:
                        threading.Thread(target=lambda: None, name="started", daemon=True).start()
            except OverBudget:
                ended.append(1)

    judge = threading.Thread(target=starting, daemon=True)
    judge.start()
    judge.join(60)
    assert not judge.is_alive(), "stuck in Thread.start(): the interruption went to the thread it started"
    assert len(ended) == 1000


def test_an_interruption_python_had_to_ignore_is_raised_again():
    """Raised inside a __del__, the OverBudget is swallowed (Python prints and drops it there): the
    watchdog raises it again, so the call still ends."""

    class Heavy:
        def __del__(self):
            spin_until = time.perf_counter() + 0.0002
            while time.perf_counter() < spin_until:
                pass

    class Churning:
        id = "churn"

        def evaluate(self, call, ctx):
            while True:
                Heavy()  # most of the time is spent in __del__
                sum(range(200))

    start = time.monotonic()
    decision = engine(Churning(), budget_s=0.02).evaluate(bash("ls"), record=False)
    assert decision.rule == BUDGET_RULE and time.monotonic() - start < 10


def test_a_traced_process_goes_on_after_a_call_ran_out_of_time():
    """Under a tracer (coverage, a debugger) the interpreter used to hang at the next function call
    after an interruption had been cleared: none is ever cleared now."""
    import subprocess
    import sys

    code = ("import sys\n"
            "from guardtui.core.budget import within, OverBudget\n"
            "sys.settrace(lambda *a: None)\n"
            "def spin():\n"
            "    try:\n"
            "        with within(0.002):\n"
            "            while True: pass\n"
            "    except OverBudget:\n"
            "        return 1\n"
            "print(sum(spin() for _ in range(5)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "5", out.stderr


def test_the_budget_never_interrupts_an_import_half_way():
    """The import system takes its module locks by hand: interrupted there, a lock stays held and every
    later import of that module waits for ever (the broker hung so). The interruption waits instead."""
    import importlib
    import sys

    class Importing:
        id = "importing"

        def __init__(self, module: str):
            self.module = module  # one per thread: two threads popping one module would race

        def evaluate(self, call, ctx):
            while True:  # often inside the import system, as a cold call can be
                sys.modules.pop(self.module, None)
                importlib.import_module(self.module)
                sum(range(200_000))

    results = []

    def judge(module: str) -> None:
        decision = engine(Importing(module), budget_s=0.02).evaluate(bash("ls"), record=False)
        results.append(decision.rule if decision.rule == BUDGET_RULE else decision.reason)

    modules = ["colorsys", "keyword", "stringprep", "quopri"]
    threads = [threading.Thread(target=judge, args=(m,)) for m in modules[1:]]
    for t in threads:
        t.start()
    judge(modules[0])  # the main thread too (its budget is a timer signal)
    for t in threads:
        t.join(20)
    assert results == [BUDGET_RULE] * 4
    done = threading.Event()
    threading.Thread(target=lambda: ([importlib.import_module(m) for m in modules], done.set()),
                     daemon=True).start()
    assert done.wait(10), "an import lock was left held"


def test_the_first_call_in_a_process_has_time_to_build_what_judging_builds_once():
    """The first evaluation builds the parser, compiled patterns and indexes: it is not cut off by the
    budget (a cold `guardtui check` or offline hook would otherwise ask for its own start-up, and a
    structure built once could be left half-built); the next ones are held to it."""
    import subprocess
    import sys

    code = ("import time\n"
            "from guardtui.core.engine import Engine\n"
            "from guardtui.core.model import ToolCall\n"
            "class Slow:\n"
            "    id = 'slow'\n"
            "    def evaluate(self, call, ctx):\n"
            "        end = time.monotonic() + 0.3\n"
            "        while time.monotonic() < end: pass\n"
            "e = Engine([Slow()], budget_s=0.05)\n"
            "call = ToolCall('Bash', {'command': 'ls'}, '/tmp')\n"
            "print(e.evaluate(call, record=False).rule, e.evaluate(call, record=False).rule)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["engine", "engine.budget"], out.stderr


def test_every_data_file_the_rules_read_is_loaded_before_any_call_of_a_long_running_process():
    """A data file loaded lazily inside a call spends that call's budget (the secrets list took
    20-45 ms: the first Write of a .envrc asked as "over budget"); the console, serve, the standby
    and check --batch load them all first."""
    from guardtui.core.catalog import runs_later, sensitive_patterns, tool_classes
    from guardtui.core.engine import load_all_data
    from guardtui.core.mcp.catalog import mcp_catalog
    from guardtui.core.protect import protect_data
    from guardtui.core.secrets import secret_catalog
    from guardtui.core.web import metadata_endpoints

    loaders = (tool_classes, sensitive_patterns, runs_later, protect_data, secret_catalog, metadata_endpoints,
               mcp_catalog)
    for loader in loaders:
        loader.cache_clear()
    load_all_data()
    assert [loader.__name__ for loader in loaders if loader.cache_info().currsize == 0] == []


class Waiting:
    """A rule whose thread waits rather than computes (what a busy machine, or another thread holding
    the interpreter, does to a call): `seconds` of sleep in small pieces."""

    id = "waiting"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def evaluate(self, call, ctx):
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            time.sleep(0.002)
        return Decision(Verdict.ALLOW, "fine", self.id, BlastRadius.LOW, "test")


def _judge_in(thread: str, e: Engine) -> Decision:
    if thread == "main":
        return e.evaluate(bash("ls"), record=False)
    out: list[Decision] = []
    worker = threading.Thread(target=lambda: out.append(e.evaluate(bash("ls"), record=False)))
    worker.start()
    worker.join(10)
    return out[0]


@pytest.mark.parametrize("thread", ["main", "worker"])  # the SIGALRM timer and the watchdog
def test_waiting_is_not_judging_a_call_kept_waiting_is_not_over_budget(thread):
    """The console's tmux test saw `ls -la src` ask "over budget" on a loaded machine: the budget
    counted the time the call waited for a core. It counts the time judging computes."""
    assert _judge_in(thread, engine(Waiting(0.15), budget_s=0.05)).verdict is Verdict.ALLOW


@pytest.mark.parametrize("thread", ["main", "worker"])
def test_a_call_that_waits_for_ever_still_ends_at_the_wall_clock_cap(thread):
    from guardtui.core.budget import WALL_CAP_FACTOR

    start = time.monotonic()
    decision = _judge_in(thread, engine(Waiting(3600), budget_s=0.02))
    assert decision.rule == BUDGET_RULE
    assert 0.02 * WALL_CAP_FACTOR * 0.9 <= time.monotonic() - start < 5


def test_remaining_counts_what_the_thread_computed_and_a_wall_budget_counts_the_clock():
    with within(1.0, cpu=True):
        time.sleep(0.1)
        assert remaining() > 0.95  # slept, computed almost nothing
    with within(1.0):
        time.sleep(0.1)
        assert remaining() < 0.95
