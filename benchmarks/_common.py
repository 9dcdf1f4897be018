"""Helpers shared by the benchmarks: an isolated engine, the corpora, percentiles."""
from __future__ import annotations

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from guardtui.core.config import Locations  # noqa: E402
from guardtui.core.engine import Engine  # noqa: E402
from guardtui.core.factory import build_engine  # noqa: E402

CORPORA = ROOT / "tests" / "shell" / "data"


def isolated_engine() -> Engine:
    """The engine on built-in defaults (an empty config dir), this machine's PATH."""
    root = Path(tempfile.mkdtemp(prefix="guardtui-bench-"))
    atexit.register(shutil.rmtree, root, True)  # a throwaway home: gone when the benchmark ends
    env = {"HOME": str(root), "GUARDTUI_CONFIG_DIR": str(root / "config"), "GUARDTUI_STATE_DIR": str(root / "state"),
           "GUARDTUI_RUNTIME_DIR": str(root / "run")}
    return build_engine(Locations.from_env(env), record=False, path_env=os.environ.get("PATH", ""))


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]
