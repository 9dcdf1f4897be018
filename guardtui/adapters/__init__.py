"""One module per agent hook protocol: pure functions from payload to ToolCall and back."""
from __future__ import annotations

import importlib
from types import ModuleType

AGENTS = ("claude", "codex", "gemini", "cursor", "docker-agent")


def adapter_for(agent: str) -> ModuleType:
    """The adapter module of an agent (`docker-agent` -> adapters.docker_agent); KeyError if none."""
    module = _loaded.get(agent)
    if module is None:
        if agent not in AGENTS:
            raise KeyError(agent)
        module = _loaded[agent] = importlib.import_module(f"{__name__}.{agent.replace('-', '_')}")
    return module


_loaded: dict[str, ModuleType] = {}  # imported on first use (the command hook imports only its own)


def why_not_handed_back(call) -> str:
    """Why an ask cannot go back to the agent's own prompt for this call ("" when it can).

    Where it cannot, whatever would hand it back (the offline hook, `serve --ask defer`, the
    console's timeout) denies instead: an ask must never leave the agent hanging, nor pass."""
    try:
        adapter = adapter_for(call.agent)
    except KeyError:
        return ""
    check = getattr(adapter, "why_not_handed_back", None)
    return check(call) if check is not None else ""
