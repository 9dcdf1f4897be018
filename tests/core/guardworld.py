"""A home with guardtui installed and a project, judged through the engine (for the test_guard_* files)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from guardtui.commands.install import install, resolve_target
from guardtui.core.config import Locations
from guardtui.core.engine import Engine
from guardtui.core.factory import build_engine
from guardtui.core.model import Decision, ToolCall, Verdict
from guardtui.core.shell.analyze import Analyzer

from ..conftest import TYPICAL


@dataclass
class GuardWorld:
    home: Path
    project: Path
    locations: Locations
    engine: Engine

    def run(self, command: str, cwd: Path | None = None) -> Decision:
        call = ToolCall("Bash", {"command": command}, str(cwd or self.project), agent="claude", session="s")
        return self.engine.evaluate(call, record=False)

    def verdict(self, command: str, cwd: Path | None = None) -> str:
        d = self.run(command, cwd)
        return "ask" if d.verdict is Verdict.LLM else d.verdict.value


def make_world(isolated_env: Path, monkeypatch) -> GuardWorld:
    home = isolated_env / "home"
    project = home / "src" / "shop"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("print('hi')\n")
    monkeypatch.chdir(project)
    locations = Locations.from_env()
    install(resolve_target("claude", project=None, user=True, http=False, port=None, env=dict(os.environ)), locations)
    locations.user_plugins_dir.mkdir(parents=True, exist_ok=True)
    (locations.user_plugins_dir / "mine.yaml").write_text("id: mine\n")
    locations.state_dir.mkdir(parents=True, exist_ok=True)
    engine = build_engine(locations, record=False)
    engine.analyzer = Analyzer(command_exists=lambda name: name in TYPICAL)
    engine.home = str(home)
    return GuardWorld(home, project, locations, engine)
