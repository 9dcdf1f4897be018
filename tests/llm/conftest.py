"""The guard agent against a scripted chat-completions server on loopback (fake_model.py), with
guardtui's own HTTP client, skills, engine and audit log: only the model is fake."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from guardtui.broker.llm_client import AiohttpChat
from guardtui.core.config import Locations
from guardtui.core.llm import GuardReviewer, LLMSettings, SkillLibrary
from guardtui.core.model import ToolCall

from guardtui.core.shell.analyze import Analyzer

from ..conftest import HOME, PROJECT, TYPICAL
from .fake_model import FakeModel


INSTALLED = TYPICAL | {"frobnicate"}  # a command installed here that no rule knows: the guard agent's to judge


def installed(engine):
    engine.analyzer = Analyzer(command_exists=lambda name: name in INSTALLED)
    return engine


@pytest.fixture
def model():
    fake = FakeModel().start()
    yield fake
    fake.stop()


@pytest.fixture
def locations(isolated_env) -> Locations:
    return Locations.from_env()


@pytest.fixture
def settings(model):
    def make(**changes: Any) -> LLMSettings:
        base = {"base_url": model.url, "model": "guard-7b", "api_key": "sk-test", "timeout_s": 10.0}
        return LLMSettings(**{**base, **changes})
    return make


@pytest.fixture
async def make_reviewer(settings, locations, make_engine):
    made: list[GuardReviewer] = []

    def make(**changes: Any) -> GuardReviewer:
        engine = make_engine(record=False)
        chosen = settings(**changes)
        reviewer = GuardReviewer(chosen, AiohttpChat(chosen), SkillLibrary(locations), home=engine.home,
                                 protected=engine.protection.paths())
        made.append(reviewer)
        return reviewer

    yield make
    for reviewer in made:
        await reviewer.close()


@pytest.fixture
def escalate(make_engine):
    """The engine's own decision on a call (most tests need an `llm` escalation, as in real use)."""
    engine = installed(make_engine(record=False))

    def judge(command: str | None = None, *, tool: str = "Bash", tool_input: dict | None = None,
              session: str = "s1", cwd: str = PROJECT, agent: str = "claude"):
        call = ToolCall(tool, tool_input if tool_input is not None else {"command": command}, cwd, agent=agent,
                        session=session)
        return call, engine.evaluate(call, record=False)
    return judge


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def skill_text(name: str = "Team rules", description: str = "what this team never runs", body: str = "Never run x.",
               **extra: Any) -> str:
    lines = [f"name: {name}", f"description: {description}"] + [f"{k}: {v}" for k, v in extra.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body + "\n"


__all__ = ["HOME", "PROJECT", "skill_text", "write"]
