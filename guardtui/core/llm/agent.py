"""The conversation with the model: one request per turn, the skill tool answered between
turns, a turn limit. It returns how the conversation ended; the reviewer turns that into a
decision (and every ending but an exact verdict into an ask).

    turn 1: system prompt + the framed call (+ auto-injected skills)  -> tool calls or an answer
    turn n: + the model's tool calls and the skills they loaded        -> tool calls or an answer
    last turn: no tools offered, the model is told to decide now
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..model import Verdict
from .chat import ChatReply, ChatTransport, parse_reply, request_body
from .framing import LAST_TURN, SKILL_TOOL, skill_tool_spec
from .settings import LLMSettings
from .skills import Skill, SkillSet
from .verdicts import ModelVerdict, parse_verdict

MAX_TOOL_CALLS_PER_TURN = 4
STOP_REASONS = ("stop", "", "eos", "end_turn", "stop_sequence")

# how a conversation ended
ANSWERED = "answered"  # an exact verdict line
MALFORMED = "malformed"  # an answer without one
TURN_LIMIT = "turn-limit"
CUT = "cut"  # the answer hit max_tokens
ENDED = "ended"  # any other finish reason
ERROR = "error"  # the endpoint could not be asked, or answered something that is not a completion
TIMEOUT = "timeout"  # the time budget ran out


@dataclass
class Conversation:
    outcome: str = ""
    verdict: ModelVerdict = field(default_factory=lambda: ModelVerdict(Verdict.ASK, "no answer", False))
    turns: int = 0
    injected: list[str] = field(default_factory=list)  # skills put in front of the model up front
    loaded: list[str] = field(default_factory=list)  # skills the model loaded with the tool
    prompt_tokens: int = 0
    completion_tokens: int = 0
    why: str = ""  # for every outcome but answered: what went wrong, in words

    def count(self, reply: ChatReply) -> None:
        self.prompt_tokens += reply.prompt_tokens
        self.completion_tokens += reply.completion_tokens


TurnNote = Callable[[int, str], None]  # (turn, what happened)


async def converse(transport: ChatTransport, settings: LLMSettings, messages: list[dict[str, Any]],
                   skills: SkillSet | None, offered: Sequence[Skill], remaining: Callable[[], float],
                   on_turn: TurnNote, conversation: Conversation) -> Conversation:
    """Run turns until a verdict, a failure or the limit; fills and returns `conversation` (which
    the caller keeps, so a timeout still knows the turns and tokens spent)."""
    tools = [skill_tool_spec(offered)] if offered and skills is not None else []
    max_turns = settings.max_turns if tools else 1
    for turn in range(1, max_turns + 1):
        last = turn == max_turns
        if last and tools and turn > 1:
            messages.append({"role": "user", "content": LAST_TURN})
        body = request_body(settings, messages, [] if last and turn > 1 else tools)
        conversation.turns = turn
        # the budget (the reviewer's asyncio.timeout) ends a slow review; the request's own timeout is a net
        reply = parse_reply(await transport.complete(body, max(0.05, remaining()) + 1.0))
        conversation.count(reply)
        if reply.tool_requests:
            if last or not tools:
                conversation.outcome, conversation.why = TURN_LIMIT, (
                    f"the guard agent still wanted skills after {turn} turn(s) (the limit)" if tools
                    else "the model asked for a tool it was not offered")
                on_turn(turn, conversation.why)
                return conversation
            messages.append(reply.assistant_message())
            names = [_answer_tool(request, skills, conversation, messages, index)  # type: ignore[arg-type]
                     for index, request in enumerate(reply.tool_requests)]
            on_turn(turn, "loads skill " + ", ".join(names))
            continue
        if reply.finish_reason == "length":
            conversation.outcome, conversation.why = CUT, "the guard agent's answer was cut off (max_tokens)"
        elif reply.finish_reason not in STOP_REASONS:
            conversation.outcome, conversation.why = ENDED, f"the guard agent stopped ({reply.finish_reason})"
        else:
            conversation.verdict = parse_verdict(reply.content)
            conversation.outcome = ANSWERED if conversation.verdict.valid else MALFORMED
            conversation.why = "" if conversation.verdict.valid else conversation.verdict.reason
        return conversation
    conversation.outcome, conversation.why = TURN_LIMIT, f"no verdict within {max_turns} turns"  # pragma: no cover
    return conversation


def _answer_tool(request, skills: SkillSet, conversation: Conversation, messages: list[dict[str, Any]],
                 index: int) -> str:
    """Answer one tool request with a tool message; the name to show for it."""
    if index >= MAX_TOOL_CALLS_PER_TURN:
        content, shown = f"skipped: at most {MAX_TOOL_CALLS_PER_TURN} skills per turn", "(skipped)"
    elif request.name != SKILL_TOOL:
        content, shown = f"there is no tool named {request.name[:60]!r}; the only tool is {SKILL_TOOL}", "(unknown tool)"
    else:
        wanted = _skill_argument(request.arguments)
        skill = skills.get(wanted) if wanted else None
        ids = ", ".join(s.id for s in skills.skills)
        if skill is None:
            content = (f"no guard skill with id {wanted[:60]!r}; the ids are: {ids}" if wanted
                       else f"give the skill's id as {{\"id\": \"…\"}}; the ids are: {ids}")
            shown = f"{wanted[:40] or '(no id)'} (unknown)"
        elif skill.id in conversation.loaded or skill.id in conversation.injected:
            content, shown = f"guard skill {skill.id} is already loaded above", f"{skill.id} (again)"
        else:
            conversation.loaded.append(skill.id)
            content = f"--- guard skill: {skill.id} ({skill.name}) ---\n{skill.body}\n--- end of guard skill ---"
            shown = skill.id
    messages.append({"role": "tool", "tool_call_id": request.id, "content": content})
    return shown


def _skill_argument(arguments: str) -> str:
    try:
        data = json.loads(arguments or "{}")
    except json.JSONDecodeError:
        return ""
    if not isinstance(data, dict):
        return ""
    for key in ("id", "name", "skill"):
        if isinstance(data.get(key), str):
            return data[key].strip().lower()
    return ""
