"""One module per agent hook protocol: pure functions from payload to ToolCall and back."""
from __future__ import annotations

import importlib
from types import ModuleType

AGENTS = ("claude", "codex", "gemini", "cursor", "docker-agent")


def adapter_for(agent: str) -> ModuleType:
    """The adapter module of an agent (`docker-agent` -> adapters.docker_agent); KeyError if none."""
    if agent not in AGENTS:
        raise KeyError(agent)
    return importlib.import_module(f"{__name__}.{agent.replace('-', '_')}")
