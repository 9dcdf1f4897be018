"""What every agent adapter shares: payload checks, the denial note, the fail-safe answer.

An adapter is a module with pure functions and no I/O:

    AGENT, EVENTS, DEFAULT_EVENT, HOOK_TIMEOUT_S
    parse(payload, event=None) -> ToolCall          (raises PayloadError)
    render(call, verdict, reason, told="") -> dict | None
                                                    (None: print nothing, the agent decides;
                                                     told: the person's own words with a deny)
    fail_safe(event, error) -> dict | None          (the answer when the payload cannot be judged)
    why_not_handed_back(call) -> str                (optional: why an ask cannot go back to the
                                                     agent's own prompt; then policies deny it)

`render` gets allow, deny or ask; ask means "hand the call back to the agent's own permission
prompt". Each adapter says it the way its agent understands, and where the agent cannot
express an answer it picks the safe side: an agent that cannot allow stays silent (its own
policy decides), an agent that cannot ask, or that runs with its approvals off, is denied.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from ..core.model import ToolCall, Verdict

# The agent reports that it will not ask the person itself: an "ask" must not be handed back.
NO_PROMPT_MODES = frozenset({"bypassPermissions", "dontAsk", "yolo", "never"})
# A payload we could not read: assume the worst (no prompt of the agent's own).
UNKNOWN_MODE = "unknown"
NO_PROMPT_MODES |= {UNKNOWN_MODE}

# BitCode's system-prompt note, delivered with every denial.
DENIAL_NOTE = ("Do not retry this call or try to get around the block. Explain to the person what you "
               "wanted to do and why, and suggest a safer alternative.")


class PayloadError(ValueError):
    """The hook payload cannot be judged (not JSON, not an object, a field missing or mistyped)."""


class UnsupportedEvent(PayloadError):
    """A hook event guardtui does not decide (PostToolUse, Stop, ...): nothing to answer."""


def denial_message(call: ToolCall, reason: str, told: str = "") -> str:
    """What the agent reads when a call is denied. `told`: the person's own words (deny with a
    message) — they come first and unedited, and are the agent's instruction: beside them only
    which call was denied and by whom, never the note that would contradict them."""
    what = call.summary(160)
    target = f" `{what}`" if what and what != "{}" else ""
    tool = f" {call.tool}" if call.tool else ""
    if told:
        return (f"{told}\n\n(The person watching guardtui denied this{tool} call{target} and wrote the words "
                f"above for you.)")
    return f"guardtui blocked this{tool} call{target}: {reason}. {DENIAL_NOTE}"


def ask_message(reason: str) -> str:
    return f"guardtui: {reason}"


def agent_asks(call: ToolCall) -> bool:
    """Will the agent show its own prompt if we hand the call back?"""
    return call.mode not in NO_PROMPT_MODES


def fail_safe(render: Callable[[ToolCall, Verdict, str], dict | None], events: tuple[str, ...], default: str,
              event: str, error: str) -> dict | None:
    """The answer to a payload we could not read: ask where the agent can (and does) ask, else deny.

    Never allow. The mode is unknown, so it is taken to be the worst: no prompt of the agent's own."""
    call = ToolCall("", {}, "", event=event if event in events else default, mode=UNKNOWN_MODE)
    return render(call, Verdict.ASK, f"could not judge this call ({error})")


# -- reading payloads ----------------------------------------------------------------------
def as_object(payload: Any) -> Mapping[str, Any]:
    if type(payload) is not dict and not isinstance(payload, Mapping):  # (JSON's objects are dicts: checked first)
        raise PayloadError(f"the hook payload must be a JSON object, not {_kind(payload)}")
    return payload


def text(data: Mapping[str, Any], key: str, *, required: bool = False) -> str:
    value = data.get(key)
    if value is None or value == "":
        if required:
            raise PayloadError(f'the hook payload has no "{key}"')
        return ""
    if not isinstance(value, str):
        raise PayloadError(f'"{key}" must be a string, not {_kind(value)}')
    return value


def loose_text(data: Mapping[str, Any], key: str) -> str:
    """A field guardtui only shows (never judges by): a string, or "" for anything else."""
    value = data.get(key)
    return value if isinstance(value, str) else ""


def mapping(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if value is None:
        return {}
    if type(value) is not dict and not isinstance(value, Mapping):
        raise PayloadError(f'"{key}" must be a JSON object, not {_kind(value)}')
    return dict(value)


def event_of(data: Mapping[str, Any], hint: str | None, events: tuple[str, ...], default: str,
             key: str = "hook_event_name") -> str:
    """The payload's own event name, else the hint (`--event`), else the agent's default."""
    event = text(data, key) or hint or default
    if event not in events:
        raise UnsupportedEvent(f"guardtui does not decide {event} hooks (it decides {', '.join(events)})")
    return event


@dataclass(frozen=True)
class Fields:
    """What most agents' payloads share, read and checked."""

    data: Mapping[str, Any]
    event: str
    tool_name: str
    tool_input: dict[str, Any]
    cwd: str


def read_fields(payload: Any, hint: str | None, events: tuple[str, ...], default: str) -> Fields:
    """The payload as an object, its event, tool_name (required), tool_input and cwd."""
    data = as_object(payload)
    event = event_of(data, hint, events, default)
    return Fields(data, event, text(data, "tool_name", required=True), mapping(data, "tool_input"),
                  text(data, "cwd"))


def guess_event(payload: Any, hint: str | None, default: str, key: str = "hook_event_name") -> str:
    """Best effort, for the fail-safe answer to a payload that did not parse."""
    if isinstance(payload, Mapping) and isinstance(payload.get(key), str) and payload[key]:
        return payload[key]
    return hint or default


def join_cwd(base: str, sub: Any) -> str:
    """A tool's own working directory (often relative) against the session's."""
    if not isinstance(sub, str) or not sub:
        return base
    if os.path.isabs(sub) or not base:
        return os.path.normpath(sub)
    return os.path.normpath(os.path.join(base, sub))


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


__all__ = ["DENIAL_NOTE", "NO_PROMPT_MODES", "PayloadError", "UnsupportedEvent", "Verdict", "agent_asks",
           "as_object", "ask_message", "denial_message", "event_of", "guess_event", "join_cwd", "mapping",
           "fail_safe", "text"]
