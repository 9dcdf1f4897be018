"""The guard agent's settings: `llm:` in settings.yaml, overridden by GUARDTUI_LLM_* variables.

    llm:
      base_url: http://127.0.0.1:11434/v1   # any OpenAI-compatible chat-completions endpoint
      model: qwen2.5-coder:7b
      api_key_env: OPENAI_API_KEY           # the variable that holds the key (never the key itself)
      mode: agent                           # agent (multi-turn, skills; the default) or single
      max_turns: 5                          # model requests per call in agent mode
      timeout_s: 20                         # the whole review of one call, every turn included
      max_tokens: 600                       # per model reply

No `base_url` or no `model`: no LLM, the guard agent is off and unrecognised calls ask.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ..yamlfile import DataError, Field, check, load_yaml, read_text_file

AGENT, SINGLE = "agent", "single"
MODES = (AGENT, SINGLE)
DEFAULT_TIMEOUT_S = 20.0  # the agents' hook timeouts are 60-600 s; a review that takes longer is not worth waiting
DEFAULT_MAX_TURNS = 5
DEFAULT_MAX_TOKENS = 600
MAX_TURNS_LIMIT = 20


def _positive(value) -> str | None:
    return None if value > 0 else "must be more than 0"


def _turns(value) -> str | None:
    return None if 1 <= value <= MAX_TURNS_LIMIT else f"must be from 1 to {MAX_TURNS_LIMIT}"


_SCHEMA = {"llm": Field(dict, fields={
    "base_url": Field(str, required=True), "model": Field(str, required=True), "api_key_env": Field(str),
    "mode": Field(str, choices=MODES), "max_turns": Field(int, check=_turns),
    "timeout_s": Field((int, float), check=_positive), "max_tokens": Field(int, check=_positive)})}


@dataclass(frozen=True)
class LLMSettings:
    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    mode: str = AGENT
    max_turns: int = DEFAULT_MAX_TURNS
    max_tokens: int = DEFAULT_MAX_TOKENS

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def describe(self) -> str:
        turns = f", up to {self.max_turns} turns" if self.mode == AGENT else ""
        return f"{self.model} at {self.base_url} ({self.mode} mode{turns}, {self.timeout_s:g} s per call)"


def load_llm_settings(path: Path, env: Mapping[str, str] | None = None) -> LLMSettings | None:
    """The settings, or None when no LLM is configured. Raises DataError (one line naming the
    file and field, or the variable) on a bad value."""
    env = os.environ if env is None else env
    data: dict = {}
    if path.exists() or path.is_symlink():
        doc = load_yaml(read_text_file(path), str(path))
        if doc.data is not None:
            check(doc, _SCHEMA)
            data = doc.data.get("llm") or {}
    base_url = env.get("GUARDTUI_LLM_BASE_URL") or data.get("base_url")
    model = env.get("GUARDTUI_LLM_MODEL") or data.get("model")
    if not base_url or not model:
        return None
    key_env = data.get("api_key_env", "OPENAI_API_KEY")
    mode = env.get("GUARDTUI_LLM_MODE") or data.get("mode") or AGENT
    if mode not in MODES:
        raise DataError("GUARDTUI_LLM_MODE", None, "", f"{mode!r} is not one of {', '.join(MODES)}")
    return LLMSettings(
        base_url=base_url.rstrip("/"), model=model, api_key=env.get("GUARDTUI_LLM_API_KEY") or env.get(key_env),
        timeout_s=_number(env, "GUARDTUI_LLM_TIMEOUT_S", data.get("timeout_s"), DEFAULT_TIMEOUT_S, float),
        mode=mode,
        max_turns=_number(env, "GUARDTUI_LLM_MAX_TURNS", data.get("max_turns"), DEFAULT_MAX_TURNS, int,
                          MAX_TURNS_LIMIT),
        max_tokens=_number(env, "GUARDTUI_LLM_MAX_TOKENS", data.get("max_tokens"), DEFAULT_MAX_TOKENS, int))


def _number(env: Mapping[str, str], name: str, from_file, default, kind, most=None):
    text = env.get(name)
    if not text:
        return kind(from_file) if from_file is not None else default
    try:
        value = kind(text)
    except ValueError:
        raise DataError(name, None, "", f"{text!r} is not a {'whole ' if kind is int else ''}number") from None
    if not value > 0 or value != value:
        raise DataError(name, None, "", "must be more than 0")
    if most is not None and value > most:
        raise DataError(name, None, "", f"must be at most {most}")
    return value
