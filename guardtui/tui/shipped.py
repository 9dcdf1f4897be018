"""Files that ship beside the code: inside the wheel as `guardtui/_shipped/<name>`, or, in a
checkout or an editable install, the repository's top-level `styles/` and `plugins/`."""
from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
STYLE_ORDER = ("guardtui.tcss", "console.tcss", "dialogs.tcss", "screens.tcss")


def shipped_dir(name: str) -> Path:
    inside = PACKAGE / "_shipped" / name
    if inside.is_dir():
        return inside
    return PACKAGE.parent / name


def stylesheets() -> list[Path]:
    """Every .tcss file, the known ones first in a fixed order, then any others sorted."""
    found = {p.name: p for p in shipped_dir("styles").glob("*.tcss")}
    ordered = [found.pop(name) for name in STYLE_ORDER if name in found]
    return ordered + [found[name] for name in sorted(found)]


def example_plugins() -> list[Path]:
    folder = shipped_dir("plugins")
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml", ".md")
                  and not p.name.lower().startswith("readme")) if folder.is_dir() else []
