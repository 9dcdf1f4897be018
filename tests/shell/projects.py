"""A throwaway machine on disk for judging commands that run project files: a home with a project
in it, the files a test writes, and one engine over that home (its sessions kept across calls).

The machine is never under a temp directory (guardtui treats paths there as scratch space): it is
made under the checkout (`.worlds/`, ignored by git) unless the checkout itself is in a temp dir,
then under the user's cache dir.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from guardtui.core.config import Locations
from guardtui.core.engine import Engine
from guardtui.core.factory import build_engine
from guardtui.core.model import Decision, ToolCall
from guardtui.core.shell.analyze import Analyzer

ROOT = Path(__file__).resolve().parents[2]


def _base() -> Path:
    temp_roots = ("/tmp", "/var/tmp", "/dev/shm", os.path.realpath(tempfile.gettempdir()))
    checkout = os.path.realpath(ROOT)
    if not any(checkout == t or checkout.startswith(t + "/") for t in temp_roots):
        return ROOT / ".worlds"
    import platformdirs

    return Path(platformdirs.user_cache_dir("guardtui-test-worlds"))


class Machine:
    def __init__(self) -> None:
        self.root = _base() / uuid.uuid4().hex[:12]
        self.home = self.root / "home" / "dev"
        self.project = self.home / "src" / "app"
        self.project.mkdir(parents=True)
        env = {"HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
               "XDG_STATE_HOME": str(self.home / ".local" / "state"), "XDG_RUNTIME_DIR": str(self.root / "run")}
        self.engine: Engine = build_engine(Locations.from_env(env), record=False, path_env="")
        self.engine.analyzer = Analyzer(command_exists=lambda _name: True)
        self.engine.home = str(self.home)
        # a machine's home is in no git repository: the checkout this world is made in must not be found above it
        os.environ["GIT_CEILING_DIRECTORIES"] = ":".join(
            filter(None, [os.environ.get("GIT_CEILING_DIRECTORIES", ""), str(self.root)]))

    def write(self, files: dict[str, str], base: Path | None = None) -> None:
        for name, text in files.items():
            path = (base or self.project) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            if text.startswith("#!"):
                path.chmod(0o755)

    def call(self, command: str, cwd: Path | None = None, session: str = "s1") -> ToolCall:
        return ToolCall("Bash", {"command": command}, str(cwd or self.project), agent="claude", session=session)

    def judge(self, command: str, cwd: Path | None = None, session: str = "s1") -> Decision:
        return self.engine.evaluate(self.call(command, cwd, session), record=False)

    def verdict(self, command: str, cwd: Path | None = None) -> str:
        value = self.judge(command, cwd).verdict.value
        return "ask" if value == "llm" else value

    def close(self) -> None:
        ceilings = [c for c in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(":") if c and c != str(self.root)]
        if ceilings:
            os.environ["GIT_CEILING_DIRECTORIES"] = ":".join(ceilings)
        else:
            os.environ.pop("GIT_CEILING_DIRECTORIES", None)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def machine():
    m = Machine()
    try:
        yield m
    finally:
        m.close()
