"""The guard agent: reviews a call the rules escalated and returns allow, deny or ask — never
raising, never crossing the limits in limits.py.

    reviewer = GuardReviewer(settings, transport, SkillLibrary(locations), home=…, protected=…)
    decision = await reviewer.review(call, escalated, hook_timeout_s=600, emit=on_event)

It is async and holds no lock: the broker runs it on its event loop, next to the call waiting
in the queue, so the person may answer first (the first answer wins) and a slow model holds
up nothing but its own call. The transport (an HTTP client) is handed in; the core has none.

A per-session cache answers an identical call (same tool, input, directory, model, mode and
skills) again without asking the model; only exact verdicts are cached, never a failure.
The decision's metadata["llm"] records what the review cost (latency, turns, tokens), which
the audit log stores beside the call.
"""
from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any, Callable, Sequence

from ..engine import GuardEvent
from ..model import BlastRadius, Decision, ToolCall, Verdict
from .agent import ANSWERED, ERROR, TIMEOUT, Conversation, converse
from .chat import ChatError, ChatTransport
from .framing import call_text, first_message, quote_call, system_prompt
from .langdetect import detect_languages
from .limits import may_review, why_not_allowed
from .settings import AGENT, LLMSettings
from .skills import SkillLibrary, SkillSet

EventSink = Callable[[GuardEvent], None]
RULE = "llm"
CACHE_PER_SESSION = 256
CACHED_SESSIONS = 128
MIN_BUDGET_S = 1.0


class GuardReviewer:
    def __init__(self, settings: LLMSettings, transport: ChatTransport, skills: SkillLibrary | None = None, *,
                 home: str, protected: Sequence[str] = (), clock: Callable[[], float] = time.monotonic):
        self.settings = settings
        self.transport = transport
        self.skills = skills
        self.home = home
        self.protected = tuple(protected)
        self.clock = clock
        self._cache: OrderedDict[tuple[str, str], OrderedDict[tuple, Decision]] = OrderedDict()
        self._reported: set[str] = set()  # skill load errors already said

    @property
    def agent_mode(self) -> bool:
        return self.settings.mode == AGENT and self.skills is not None

    def budget_for(self, hook_timeout_s: float | None) -> float:
        """The review's time budget: the configured one, and at most half the agent's hook timeout
        (the rest is the person's, and the queue answers a few seconds before the hook gives up)."""
        budget = self.settings.timeout_s
        if hook_timeout_s is not None:
            budget = min(budget, hook_timeout_s / 2)
        return max(MIN_BUDGET_S, budget)

    async def close(self) -> None:
        await self.transport.close()

    async def review(self, call: ToolCall, escalated: Decision, *, hook_timeout_s: float | None = None,
                     emit: EventSink | None = None) -> Decision:
        if not may_review(escalated) or "llm" in escalated.metadata:
            return escalated
        say = _Say(emit, call)
        skillset = self._skills_for(call, say)
        key = self._key(call, skillset)
        cached = self._cached(call, key)
        if cached is not None:
            say(f"same call earlier this session: {_word(cached)} (cached, no model call)")
            return cached.with_metadata(llm={**cached.metadata["llm"], "cached": True, "latency_ms": 0.0,
                                             "prompt_tokens": 0, "completion_tokens": 0, "turns": 0})
        decision = await self._ask_model(call, escalated, skillset, self.budget_for(hook_timeout_s), say)
        info = decision.metadata["llm"]
        cost = (f"{info['latency_ms'] / 1000:.1f} s, {info['turns']} turn(s), "
                f"{info['prompt_tokens'] + info['completion_tokens']:,} tokens")
        if info["outcome"] == ANSWERED:
            said = _word(decision) if not info.get("limit") else f"ALLOW, held at ask: {info['limit']}"
            say(f"turn {info['turns']}: {said} ({cost})")
            self._store(call, key, decision)
        else:
            say(f"no verdict, so the call asks: {info['reason']} ({cost})")
        return decision

    # -- internals -------------------------------------------------------------------
    async def _ask_model(self, call: ToolCall, escalated: Decision, skillset: SkillSet | None, budget: float,
                         say: "_Say") -> Decision:
        """The conversation, within the budget; every way it can end becomes a decision."""
        injected = skillset.auto_for(detect_languages(call)) if skillset is not None else ()
        offered = skillset.on_demand(injected) if skillset is not None else ()
        quoted = quote_call(call, escalated)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system_prompt(self.agent_mode, offered)},
            {"role": "user", "content": first_message(quoted, injected)}]
        skills_note = f" · skills: {', '.join(s.id for s in injected)}" if injected else ""
        say(f"evaluating: {call.summary(80)}{skills_note}")
        start = self.clock()
        deadline = start + budget
        conversation = Conversation(injected=[s.id for s in injected])
        try:
            async with asyncio.timeout(budget):
                await converse(self.transport, self.settings, messages, skillset, offered,
                               lambda: deadline - self.clock(), lambda turn, note: say(f"turn {turn}: {note}"),
                               conversation)
        except TimeoutError:
            conversation.outcome, conversation.why = TIMEOUT, f"no verdict within {budget:g} s (the time budget)"
        except ChatError as exc:
            conversation.outcome, conversation.why = ERROR, f"the model could not be asked: {exc}"
        except Exception as exc:  # fail closed: whatever broke, the call asks
            conversation.outcome, conversation.why = ERROR, f"the review failed: {type(exc).__name__}: {exc}"
        return self._decide(call, escalated, conversation, quoted.truncated, (self.clock() - start) * 1000)

    def _skills_for(self, call: ToolCall, say: "_Say") -> SkillSet | None:
        if not self.agent_mode:
            return None
        skillset = self.skills.for_cwd(call.cwd)  # type: ignore[union-attr]
        for error in map(str, skillset.errors):
            if error not in self._reported:  # once per error, not on every review
                self._reported.add(error)
                say(f"guard skill not loaded: {error}", kind="review-error")
        return skillset

    def _decide(self, call: ToolCall, escalated: Decision, conversation: Conversation, truncated: bool,
                latency_ms: float) -> Decision:
        verdict = conversation.verdict
        info: dict[str, Any] = {
            "mode": self.settings.mode if self.agent_mode else "single", "model": self.settings.model,
            "outcome": conversation.outcome, "verdict": verdict.verdict.value if verdict.valid else "",
            "reason": verdict.reason if verdict.valid else conversation.why, "turns": conversation.turns,
            "skills": [*conversation.injected, *conversation.loaded], "latency_ms": round(latency_ms, 1),
            "prompt_tokens": conversation.prompt_tokens, "completion_tokens": conversation.completion_tokens,
            "cached": False}
        base = {**escalated.metadata, "escalated_reason": escalated.reason}
        if conversation.outcome != ANSWERED:
            return escalated.with_(reason=f"{escalated.reason} (guard agent: {conversation.why})",
                                   metadata={**base, "llm": info})
        if verdict.verdict is Verdict.ALLOW:
            limit = why_not_allowed(call, escalated, call_text(call), truncated=truncated, home=self.home,
                                    protected=self.protected)
            if limit:
                info["limit"] = limit
                return escalated.with_(reason=f"the guard agent would allow it, but {limit}",
                                       metadata={**base, "llm": info})
            return escalated.with_(verdict=Verdict.ALLOW, reason="judged routine", rule=RULE,
                                   blast_radius=BlastRadius.LOW, metadata={**base, "llm": info})
        if verdict.verdict is Verdict.DENY:  # said to the agent as "denied by the guard agent — <reason>"
            return escalated.with_(verdict=Verdict.DENY, reason=verdict.reason, rule=RULE,
                                   blast_radius=BlastRadius.HIGH, metadata={**base, "llm": info})
        return escalated.with_(reason=f"guard agent: {verdict.reason}", rule=RULE, metadata={**base, "llm": info})

    def _key(self, call: ToolCall, skillset: SkillSet | None) -> tuple:
        return (call.tool, call.serialised_input(), call.cwd, self.settings.model, self.settings.mode,
                skillset.fingerprint if skillset is not None else "")

    def _cached(self, call: ToolCall, key: tuple) -> Decision | None:
        session = self._cache.get((call.agent, call.session))
        if session is None or key not in session:
            return None
        self._cache.move_to_end((call.agent, call.session))
        session.move_to_end(key)
        return session[key]

    def _store(self, call: ToolCall, key: tuple, decision: Decision) -> None:
        session = self._cache.setdefault((call.agent, call.session), OrderedDict())
        self._cache.move_to_end((call.agent, call.session))
        session[key] = decision
        if len(session) > CACHE_PER_SESSION:
            session.popitem(last=False)
        if len(self._cache) > CACHED_SESSIONS:
            self._cache.popitem(last=False)


class _Say:
    """Progress as guard events (the console's amber log; `check --llm` prints them)."""

    def __init__(self, emit: EventSink | None, call: ToolCall):
        self.emit, self.call = emit, call

    def __call__(self, message: str, kind: str = "review") -> None:
        if self.emit is None:
            return
        try:
            self.emit(GuardEvent(time.time(), kind, message, RULE, self.call.agent, self.call.summary(120)))
        except Exception:  # a broken listener must not break the review
            pass


def _word(decision: Decision) -> str:
    if decision.verdict is Verdict.ALLOW:
        return "ALLOW"
    return f"{decision.verdict.value.upper()}: {decision.metadata.get('llm', {}).get('reason', decision.reason)}"
