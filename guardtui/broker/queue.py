"""Pending calls: the calls waiting for the person, each answered exactly once.

A call the engine asks about becomes a PendingCall with a future. It ends when the person
answers (y / a / n / N in the console), when its deadline passes (the timeout policy:
deny, or defer = hand it back to the agent's own prompt), or when the console quits
(every pending call is answered by the policy, and a guard event says so). Whichever comes
first wins; later answers are ignored. There is no way to answer a call from the network:
only code holding this queue (the console, or the headless policy) can.

A call the rules escalated may be reviewed by the guard agent while it waits (`submit(…,
review=…)`): its ALLOW or DENY answers the call like any other answer — unless the person
answered first, and then the review is cancelled; its ASK (or its failure) stays with the
person, with its reason on the call ("reviewed" to the listeners).

When the rules change (a plugin reload, a trust, an "always allow"), `rejudge` judges every
waiting call again: one the new rules allow or deny is answered by them and leaves the queue,
any other keeps waiting with its reason refreshed ("rejudged" to the listeners).
"""
from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass, field
from enum import Enum
from typing import Awaitable, Callable

from ..adapters import why_not_handed_back
from ..core.engine import Engine, GuardEvent
from ..core.model import Decision, DecidedBy, ToolCall, Verdict
from ..core.session import Approval, approval_matches
from ..core.engine import asking_segments


class Outcome(str, Enum):
    ALLOW = "allow"
    DENY = "deny"
    DEFER = "defer"  # no decision: the agent shows its own permission prompt


@dataclass(frozen=True)
class Resolution:
    outcome: Outcome
    decided_by: DecidedBy
    reason: str
    message: str | None = None  # what the person told the agent (deny with a message)
    approval: Approval | None = None  # "always allow": the scope the person chose
    review: Decision | None = None  # the decision that answered it instead of the first ask: the guard
    #                                 agent's, or the rules' own when they were judged again
    via: str = ""  # how the answer came, for the audit log: "key y", "dialog always-allow", "batch n", "timeout"


@dataclass(frozen=True)
class Rejudged:
    """What judging the waiting calls again did."""

    allowed: int = 0
    denied: int = 0
    refreshed: int = 0  # still waiting, with the new rules' reason

    @property
    def answered(self) -> int:
        return self.allowed + self.denied


@dataclass
class PendingCall:
    id: str
    call: ToolCall
    decision: Decision  # the engine's ask, with its reasons
    received: float  # wall-clock seconds
    deadline: float  # wall-clock seconds when the timeout policy answers
    future: asyncio.Future = field(repr=False)
    resolution: Resolution | None = None
    reviewing: bool = False  # the guard agent is judging it (the person may still answer first)

    @property
    def done(self) -> bool:
        return self.resolution is not None

    def remaining(self, now: float | None = None) -> float:
        return max(0.0, self.deadline - (time.time() if now is None else now))


def policy_resolution(policy: Outcome, why: str, by: DecidedBy = DecidedBy.POLICY,
                      call: ToolCall | None = None, via: str = "") -> Resolution:
    """An answer by policy (deny, or defer to the agent's own prompt), saying why. A call that
    cannot go back to its agent's prompt (Gemini CLI; Codex PreToolUse) is denied."""
    refusal = why_not_handed_back(call) if call is not None and policy is Outcome.DEFER else ""
    via = via or by.value
    if refusal:
        return Resolution(Outcome.DENY, by, f"{why}, and {refusal}: denied by policy", via=via)
    if policy is Outcome.DENY:
        return Resolution(Outcome.DENY, by, f"{why}: denied by policy", via=via)
    if policy is Outcome.DEFER:
        return Resolution(Outcome.DEFER, by, f"{why}: handed back to the agent's own prompt", via=via)
    raise ValueError("a policy answers deny or defer, never allow")


def guard_agent_answer(decision: Decision) -> Resolution | None:
    """The guard agent's allow or deny as an answer (None: it asked, or did not judge the call)."""
    if "llm" not in decision.metadata or decision.verdict not in (Verdict.ALLOW, Verdict.DENY):
        return None
    outcome = Outcome.ALLOW if decision.verdict is Verdict.ALLOW else Outcome.DENY
    word = "allowed" if outcome is Outcome.ALLOW else "denied"
    return Resolution(outcome, DecidedBy.LLM, f"{word} by the guard agent", review=decision, via="guard agent")


Listener = Callable[[str, PendingCall], None]  # ("added" | "reviewed" | "rejudged" | "resolved", call)
Judge = Callable[[ToolCall], Awaitable[Decision]]  # the engine, off the loop (record nothing)
Review = Callable[[PendingCall], Awaitable[Decision]]  # the guard agent; allow, deny or ask, never raises

TIMEOUT_MARGIN_S = 5.0  # answer this long before the agent's own hook timeout fires
# Calls waiting at once. Each holds an agent's connection (a file descriptor) and a place in the
# person's queue; past a cap a new ask is answered by the timeout policy at once, so a flood (an
# agent that loops, or one that means harm) cannot exhaust the console or bury other agents' calls.
MAX_PENDING = 128
MAX_PENDING_PER_AGENT = 32
ALL_AGENTS = ""  # the key of the total cap in the overflow bookkeeping


class PendingQueue:
    def __init__(self, engine: Engine, timeout_policy: Outcome = Outcome.DEFER,
                 on_event: Callable[[GuardEvent], None] | None = None, clock: Callable[[], float] = time.time,
                 max_pending: int = MAX_PENDING, max_per_agent: int = MAX_PENDING_PER_AGENT):
        if timeout_policy not in (Outcome.DENY, Outcome.DEFER):
            raise ValueError("the timeout policy is deny or defer")
        self.engine = engine
        self.timeout_policy = timeout_policy
        self.on_event = on_event
        self.clock = clock
        self.max_pending = max_pending
        self.max_per_agent = min(max_per_agent, max_pending)
        self._pending: dict[str, PendingCall] = {}
        self._per_agent: dict[str, int] = {}
        self._overflow: dict[str, int] = {}  # agent (ALL_AGENTS: the total) -> asks refused while full
        self._listeners: list[Listener] = []
        self._ids = itertools.count(1)
        self.closed = False

    # -- observing -------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def pending(self) -> list[PendingCall]:
        """Calls still waiting, oldest first."""
        return sorted(self._pending.values(), key=lambda p: (p.received, int(p.id.split("-")[-1])))

    def get(self, call_id: str) -> PendingCall | None:
        return self._pending.get(call_id)

    def __len__(self) -> int:
        return len(self._pending)

    # -- the agent side --------------------------------------------------------------
    async def submit(self, call: ToolCall, decision: Decision, hook_timeout_s: float,
                     review: Review | None = None) -> Resolution:
        """Queue an asked call and wait for its one answer (person, guard agent, timeout or shutdown)."""
        if self.closed:  # still an answered call: audited like any other
            resolution = self._policy_resolution("the console is shutting down", call=call, via="shutdown")
            self.record(call, decision, resolution, 0.0)
            return resolution
        full = self._full(call)
        if full is not None:
            resolution = self._policy_resolution(full, call=call, via="queue full")
            self.record(call, decision, resolution, 0.0)
            return resolution
        loop = asyncio.get_running_loop()
        now = self.clock()
        wait = max(0.5, hook_timeout_s - TIMEOUT_MARGIN_S) if hook_timeout_s > 2 * TIMEOUT_MARGIN_S \
            else max(0.5, hook_timeout_s * 0.8)
        pending = PendingCall(f"call-{next(self._ids)}", call, decision, now, now + wait, loop.create_future(),
                              reviewing=review is not None)
        self._pending[pending.id] = pending
        self._per_agent[call.agent] = self._per_agent.get(call.agent, 0) + 1
        self._notify("added", pending)
        reviewer = loop.create_task(self._review(pending, review), name=f"guard-review-{pending.id}") \
            if review is not None else None
        try:
            return await asyncio.wait_for(asyncio.shield(pending.future), timeout=wait)
        except asyncio.TimeoutError:
            # the person may have answered in the same instant: then theirs is the one answer
            if self.resolve(pending.id, self._policy_resolution(f"no answer within {wait:.0f}s", DecidedBy.TIMEOUT,
                                                                call, via="timeout")):
                outcome = pending.resolution.outcome.value  # type: ignore[union-attr]
                self.emit("timeout", f"{call.summary(80)}: no answer in time, {outcome}", call)
            return pending.resolution  # type: ignore[return-value]
        except asyncio.CancelledError:
            # the agent went away (connection closed): end the call so it leaves the queue
            self.resolve(pending.id, self._policy_resolution("the agent stopped waiting", DecidedBy.POLICY, call,
                                                             via="agent gone"))
            raise
        finally:
            if reviewer is not None and not reviewer.done():
                reviewer.cancel()  # answered first by someone else: the model's answer is not wanted

    async def _review(self, pending: PendingCall, review: Review) -> None:
        try:
            reviewed = await review(pending)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the reviewer never raises; if it did, the call stays with the person
            reviewed = pending.decision.with_(reason=f"{pending.decision.reason} (guard agent failed: {exc})")
        pending.reviewing = False
        if pending.done:
            return
        pending.decision = reviewed  # its reason, cost and verdict travel with the call to the audit log
        answer = guard_agent_answer(reviewed)
        if answer is not None:
            self.resolve(pending.id, answer)
        else:
            self._notify("reviewed", pending)

    # -- the person side -------------------------------------------------------------
    def resolve(self, call_id: str, resolution: Resolution) -> bool:
        """Answer a pending call. False when it was already answered (the first answer wins)."""
        pending = self._pending.get(call_id)
        if pending is None or pending.done:
            return False
        pending.resolution = resolution
        del self._pending[call_id]
        self._left(pending.call.agent)
        if not pending.future.done():
            pending.future.set_result(resolution)
        self.record(pending.call, pending.decision, resolution, (self.clock() - pending.received) * 1000)
        self._notify("resolved", pending)
        return True

    def allow(self, call_id: str, approval: Approval | None = None, via: str = "console") -> bool:
        if approval is not None:
            return self.approve(call_id, approval, via) is not None
        return self.resolve(call_id, Resolution(Outcome.ALLOW, DecidedBy.PERSON, "allowed by the person", via=via))

    def approve(self, call_id: str, approval: Approval, via: str = "console") -> int | None:
        """"Always allow": answer the call, remember the approval for its session, and answer the
        other waiting calls it covers. Returns how many others it answered (None: already answered)."""
        pending = self._pending.get(call_id)
        reason = f"always allowed by the person ({approval.label})"
        if pending is None or not self.resolve(call_id, Resolution(Outcome.ALLOW, DecidedBy.PERSON, reason,
                                                                   approval=approval, via=via)):
            return None
        if not self.engine.approve(pending.call, pending.decision, approval):
            return 0
        return self._apply_approval(pending)

    def deny(self, call_id: str, message: str | None = None, via: str = "console") -> bool:
        reason = "denied by the person" + (f": {message}" if message else "")
        return self.resolve(call_id, Resolution(Outcome.DENY, DecidedBy.PERSON, reason, message=message, via=via))

    async def rejudge(self, judge: Judge, why: str) -> Rejudged:
        """Judge every waiting call again under the rules in force now (`why`: what changed). A call
        they allow or deny is answered by them; another keeps waiting with the new reason. A call
        answered meanwhile (the person, a timeout) is left alone: the first answer wins."""
        allowed = denied = refreshed = 0
        for pending in self.pending():
            try:
                decision = await judge(pending.call)
            except Exception:  # the engine cannot judge it now: it keeps its ask
                continue
            if pending.done:
                continue
            if decision.verdict in (Verdict.ALLOW, Verdict.DENY):
                by = DecidedBy(decision.metadata.get("decided_by", DecidedBy.RULE.value))
                word = "allowed" if decision.verdict is Verdict.ALLOW else "denied"
                outcome = Outcome.ALLOW if decision.verdict is Verdict.ALLOW else Outcome.DENY
                pending.decision = decision
                if self.resolve(pending.id, Resolution(outcome, by, f"{word} by the rules in force now ({why})",
                                                       review=decision, via="rules changed")):
                    allowed, denied = allowed + (outcome is Outcome.ALLOW), denied + (outcome is Outcome.DENY)
                continue
            if "llm" in pending.decision.metadata:  # what the guard agent said stays with the call
                decision = decision.with_metadata(llm=pending.decision.metadata["llm"])
            if _shown(decision) != _shown(pending.decision):
                pending.decision = decision
                refreshed += 1
                self._notify("rejudged", pending)
        return Rejudged(allowed, denied, refreshed)

    async def close(self, why: str = "the console quit", via: str = "quit") -> int:
        """Answer every pending call by the timeout policy; return how many there were."""
        self.closed = True
        count = 0
        for pending in self.pending():
            if self.resolve(pending.id, self._policy_resolution(why, call=pending.call, via=via)):
                count += 1
        if count:
            self.emit("shutdown", f"{why}: {count} pending call(s) answered {self.timeout_policy.value}", None)
        await asyncio.sleep(0)
        return count

    def record(self, call: ToolCall, decision: Decision, resolution: Resolution, latency_ms: float) -> Decision:
        """Audit how an asked call ended (also for asks answered without queueing, e.g. headless)."""
        final = self.final_decision(decision, resolution)
        if resolution.outcome is not Outcome.DEFER:
            self.engine.settle(call, final, resolution.decided_by, latency_ms, resolution.via)
        else:
            self.engine.record(call, final, resolution.decided_by, latency_ms, resolution.via)
        return final

    # -- internals -------------------------------------------------------------------
    def _apply_approval(self, approved: PendingCall) -> int:
        """An "always allow" also answers the other waiting calls it covers; returns how many."""
        approval = approved.resolution.approval if approved.resolution else None
        if approval is None:
            return 0
        count = 0
        for other in self.pending():
            if (other.call.agent, other.call.session) != (approved.call.agent, approved.call.session):
                continue
            if approval_matches(approval, other.call, other.decision, asking_segments(other.call, other.decision)):
                count += self.resolve(other.id, Resolution(Outcome.ALLOW, DecidedBy.APPROVAL,
                                                           f"previously approved ({approval.label})", via="approval"))
        return count

    def _policy_resolution(self, why: str, by: DecidedBy = DecidedBy.POLICY,
                           call: ToolCall | None = None, via: str = "") -> Resolution:
        return policy_resolution(self.timeout_policy, why, by, call, via)

    def _full(self, call: ToolCall) -> str | None:
        """Why a new ask cannot wait (a cap is reached), or None; the first refusal says so."""
        if len(self._pending) >= self.max_pending:
            key, count, whose = ALL_AGENTS, len(self._pending), "in all"
        elif self._per_agent.get(call.agent, 0) >= self.max_per_agent:
            key, count, whose = call.agent, self._per_agent[call.agent], f"from {call.agent}"
        else:
            return None
        if key not in self._overflow:
            self._overflow[key] = 0
            self.emit("overflow", f"{count} calls are waiting {whose} (the cap): new asks are answered "
                                   f"{self.timeout_policy.value} at once until some are answered", call)
        self._overflow[key] += 1
        return f"too many calls are waiting for the person ({count} {whose})"

    def _left(self, agent: str) -> None:
        """A call left the queue: a cap that was reached may have room again (said once)."""
        left = self._per_agent.get(agent, 0) - 1
        if left > 0:
            self._per_agent[agent] = left
        else:
            self._per_agent.pop(agent, None)
        for key, count, cap in ((ALL_AGENTS, len(self._pending), self.max_pending),
                                (agent, left, self.max_per_agent)):
            if key in self._overflow and count < cap:
                refused = self._overflow.pop(key)
                whose = "calls" if key == ALL_AGENTS else f"{key}'s calls"
                self.emit("overflow", f"room again for {whose}: {refused} ask(s) were answered "
                                       f"{self.timeout_policy.value} at once while the queue was full", None)

    @staticmethod
    def final_decision(decision: Decision, resolution: Resolution) -> Decision:
        """The engine's ask turned into how it ended (a deferred call stays an ask)."""
        verdict = {Outcome.ALLOW: Verdict.ALLOW, Outcome.DENY: Verdict.DENY, Outcome.DEFER: Verdict.ASK}
        return decision.with_(verdict=verdict[resolution.outcome], reason=f"{resolution.reason} — {decision.reason}")

    def _notify(self, kind: str, pending: PendingCall) -> None:
        for listener in list(self._listeners):
            try:
                listener(kind, pending)
            except Exception:  # a broken view must not lose the call
                pass

    def emit(self, kind: str, message: str, call: ToolCall | None = None) -> None:
        """A guard event (the amber log): overflow, timeout, shutdown..."""
        if self.on_event is not None:
            try:
                self.on_event(GuardEvent(self.clock(), kind, message, "broker", call.agent if call else "",
                                         call.summary(120) if call else ""))
            except Exception:  # a broken view must not break answering
                pass


def _shown(decision: Decision) -> tuple:
    """What the person sees of an ask: a re-judge that changes none of it changes nothing."""
    return decision.verdict, decision.reason, decision.rule, decision.blast_radius, decision.category
