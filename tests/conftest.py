"""Shared fixtures: an isolated HOME/XDG tree, and engines with a deterministic PATH."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from guardtui.core.config import Locations
from guardtui.core.engine import Engine
from guardtui.core.factory import build_engine
from guardtui.core.shell.analyze import Analyzer
from guardtui.core.shell.taxonomy import default_taxonomy

# no test starts a standby judge in the background unless it means to (tests/broker/test_standby.py)
os.environ["GUARDTUI_STANDBY"] = "0"
# verdicts in tests never depend on how busy the machine is: the judging budget is far away unless a
# test sets one (its own tests do, with rules that would never end)
os.environ["GUARDTUI_BUDGET_MS"] = "60000"

PROJECT = "/home/user/project"
HOME = "/home/user"


def typical_machine() -> frozenset[str]:
    """Commands a developer machine has installed: everything the taxonomy knows, plus common tools.

    Tests use this instead of the real PATH so they give the same answer on every machine."""
    tax = default_taxonomy()
    names = set(tax.safe) | set(tax.commands) | set(tax.shells) | set(tax.interpreters) | set(tax.sql_clients)
    names |= {n.split(" ")[0] for n in tax.wrappers}
    for shape in tax.shapes:
        names |= {c for c in shape.commands if "*" not in c}
    names |= {"rm", "rmdir", "unlink", "shred", "mv", "cp", "ln", "chmod", "chown", "chgrp", "dd", "find", "sed",
              "awk", "tar", "unzip", "rsync", "git", "curl", "wget", "ssh", "xargs", "parallel", "export", "kill",
              "mkfs.ext4", "npx", "psql", "mysql", "sqlite3", "java", "fetch"}
    return frozenset(names)


TYPICAL = typical_machine()


@pytest.fixture
def isolated_env(tmp_path, monkeypatch) -> Path:
    """HOME and every XDG dir inside tmp_path: built-in defaults, no user config."""
    home = tmp_path / "home"
    home.mkdir()
    for var, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "home/.config"), ("XDG_STATE_HOME", "home/.local/state"),
                     ("XDG_DATA_HOME", "home/.local/share"), ("XDG_RUNTIME_DIR", "run")):
        path = tmp_path / sub
        path.mkdir(parents=True, exist_ok=True)
        monkeypatch.setenv(var, str(path))
    os.chmod(tmp_path / "run", 0o700)
    for var in ("GUARDTUI_CONFIG_DIR", "GUARDTUI_STATE_DIR", "GUARDTUI_RUNTIME_DIR"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


@pytest.fixture
def short_runtime(isolated_env, monkeypatch):
    """A runtime dir with a short path (AF_UNIX paths are limited to about 107 bytes)."""
    path = tempfile.mkdtemp(prefix="gt")
    monkeypatch.setenv("GUARDTUI_RUNTIME_DIR", path + "/rt")
    yield path + "/rt"
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def analyzer() -> Analyzer:
    return Analyzer(command_exists=lambda name: name in TYPICAL)


@pytest.fixture
def make_engine(isolated_env):
    """build_engine over the isolated config, with the typical machine's commands installed."""

    def make(**kwargs) -> Engine:
        locations = Locations.from_env()
        engine = build_engine(locations, **kwargs)
        engine.analyzer = Analyzer(command_exists=lambda name: name in TYPICAL)
        engine.home = HOME
        return engine

    return make
