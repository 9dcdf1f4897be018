"""Fixtures for plugin tests: real files in an isolated HOME, config dir and project."""
from __future__ import annotations

from pathlib import Path

import pytest

from guardtui.core.config import Locations


@pytest.fixture
def locations(isolated_env) -> Locations:
    return Locations.from_env()


@pytest.fixture
def project(isolated_env) -> Path:
    path = isolated_env / "project"
    path.mkdir()
    return path
