"""`guardtui trust FILE`: the person vouches for a project plugin's exact content.

The console's Rules screen and the `trust` command both call `trust_plugin`; it checks the
file, records its hash and says, line by line, what now applies."""
from __future__ import annotations

from pathlib import Path

from ..config import Locations
from ..yamlfile import DataError
from .loader import plugin_dirs, read_plugin
from .model import PROJECT, USER
from .trust import read_trust, store_trust


def trust_plugin(file: str, locations: Locations, cwd: str) -> list[str]:
    """Trust the file's current content; the lines to show. Raises DataError (a broken or
    missing file cannot be trusted; a damaged trust store is never overwritten)."""
    path = Path(file).absolute()
    if not path.is_file():
        raise DataError(file, None, "", "no such file")
    user_dirs = {d.path.resolve() for d in plugin_dirs(locations, cwd) if d.level == USER}
    if path.resolve().parent in user_dirs:
        return [f"{file} is a user-level plugin: its allow patterns already apply; nothing to trust"]
    read_trust(locations.trust_file)  # a damaged store is reported before anything is parsed or written
    plugin = read_plugin(path, PROJECT, {})  # raises DataError: a broken file cannot be trusted
    store_trust(locations.trust_file, path, plugin.sha256)
    allows = [p for p in plugin.declared if p in plugin.ignored]
    lines = [f"trusted {plugin.id} ({file}), sha256 {plugin.sha256[:16]}…; any edit revokes the trust"]
    lines += [f"  now applies: {pattern.describe()}  {pattern.reason}" for pattern in allows]
    if not allows:
        lines.append("  (it has no allow patterns: trusting it changes nothing but lets it replace a user plugin's id)")
    return lines
