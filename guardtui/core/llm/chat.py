"""The chat-completions protocol, without the network: the request body guardtui sends and
the reply it accepts. The transport (an HTTP client) is handed in from outside the core.

    ChatTransport.complete(body, timeout_s) -> the endpoint's JSON (raises ChatError)
    request_body(settings, messages, tools)  -> the POST body
    parse_reply(payload)                     -> ChatReply (raises ChatError on any other shape)
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Protocol, Sequence

from .settings import LLMSettings


class ChatError(RuntimeError):
    """The model could not be asked, or its answer is not a chat completion: the call asks."""


class ChatTransport(Protocol):
    async def complete(self, body: dict[str, Any], timeout_s: float) -> Any:
        """POST the body to the endpoint; the decoded JSON. Raises ChatError."""
        ...

    async def close(self) -> None: ...


@dataclass(frozen=True)
class ToolRequest:
    """One tool call the model asked for."""

    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it


@dataclass(frozen=True)
class ChatReply:
    content: str
    tool_requests: tuple[ToolRequest, ...] = ()
    finish_reason: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    raw_message: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def assistant_message(self) -> dict[str, Any]:
        """The reply as the next request's history: only the fields the protocol defines."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_requests:
            message["tool_calls"] = [{"id": t.id, "type": "function",
                                      "function": {"name": t.name, "arguments": t.arguments}}
                                     for t in self.tool_requests]
        return message


def request_body(settings: LLMSettings, messages: Sequence[dict[str, Any]],
                 tools: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    body: dict[str, Any] = {"model": settings.model, "messages": list(messages), "temperature": 0,
                            "max_tokens": settings.max_tokens, "stream": False}
    if tools:
        body["tools"] = list(tools)
    return body


def parse_reply(payload: Any) -> ChatReply:
    """The first choice of a chat completion. Raises ChatError naming what is missing."""
    if not isinstance(payload, dict):
        raise ChatError(f"the answer is JSON {type(payload).__name__}, not a chat completion object")
    if isinstance(payload.get("error"), (dict, str)):
        error = payload["error"]
        message = error.get("message") if isinstance(error, dict) else error
        raise ChatError(f"the endpoint answered with an error: {_short(str(message))}")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ChatError("the answer has no choices[0]")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ChatError("the answer has no choices[0].message")
    content = message.get("content")
    if content is not None and not isinstance(content, str):
        raise ChatError("choices[0].message.content is not text")
    requests = []
    for index, raw in enumerate(message.get("tool_calls") or []):
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ChatError(f"choices[0].message.tool_calls[{index}] has no function name")
        arguments = function.get("arguments", "")
        if not isinstance(arguments, str):  # some servers send the object itself
            arguments = json.dumps(arguments)
        requests.append(ToolRequest(str(raw.get("id") or f"call_{index}"), function["name"], arguments))
    usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
    finish = choices[0].get("finish_reason")
    return ChatReply(content or "", tuple(requests), finish if isinstance(finish, str) else "",
                     _count(usage.get("prompt_tokens")), _count(usage.get("completion_tokens")), message)


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _short(text: str, width: int = 160) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
