"""Find every plugin file, load it, and put the plugins in their fixed order.

Directories, lowest to highest precedence (a later file with the same id replaces an
earlier one; within a directory files are taken in sorted name order, never the file
system's):

    user     ~/.agents/guards  ~/.claude/guards  <guardtui config>/guards
    project  <root>/.agents/guards  <root>/.claude/guards  <root>/.guardtui/guards

The project root of a working directory is the nearest directory from it upwards that holds
one of the project guard directories (`project_root`), so an agent working in `src/` gets its
project's plugins; with none, the working directory itself.

Nothing fails open: a file that does not load keeps its last good version when there is
one (`last_good`), and otherwise stands in as a broken plugin that makes every call ask.
A plugin may replace one of the same id only if it is trusted as much: an untrusted
project plugin cannot switch off a user's (or a trusted) plugin by reusing its id.
"""
from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..config import Locations
from ..yamlfile import DataError, read_regular_file
from .model import PROJECT, USER, Plugin
from .parse import MAX_BYTES, digest, is_plugin_name, parse_plugin
from .trust import read_trust, trust_key


@dataclass(frozen=True)
class PluginDir:
    path: Path
    level: str


@dataclass(frozen=True)
class PluginSet:
    plugins: tuple[Plugin, ...]  # in force, in evaluation order
    errors: tuple[DataError, ...] = ()  # each: file, line, message; str() is one line
    notes: tuple[str, ...] = ()  # replacements by id and refused replacements
    loaded_at: float = field(default_factory=time.time)


PROJECT_GUARD_DIRS = (".agents", ".claude", ".guardtui")  # each holds a `guards` directory


def project_root(cwd: str, home: str) -> str | None:
    """The project a working directory belongs to: the nearest directory from `cwd` upwards that
    holds a project guard directory, or None. The home directory and above are the user's own."""
    path, home = os.path.abspath(cwd), os.path.abspath(home)
    while path != home:
        if any(os.path.isdir(os.path.join(path, sub, "guards")) for sub in PROJECT_GUARD_DIRS):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return None


def plugin_dirs(locations: Locations, cwd: str | None) -> list[PluginDir]:
    """The guard directories, lowest precedence first, for work in `cwd` (its project root's);
    `cwd` None: the user's only."""
    home = Path(locations.home)
    dirs = [PluginDir(home / ".agents" / "guards", USER), PluginDir(home / ".claude" / "guards", USER),
            PluginDir(Path(locations.user_plugins_dir), USER)]
    if cwd is None:
        return dirs
    cwd = os.path.abspath(cwd or ".")
    project = Path(project_root(cwd, locations.home) or cwd)
    seen = {d.path for d in dirs}
    for sub in PROJECT_GUARD_DIRS:
        path = project / sub / "guards"
        if path not in seen:  # the project is the home directory: those are the user's own
            dirs.append(PluginDir(path, PROJECT))
    return dirs


def files_signature(dirs: Iterable[Path], trust_file: str) -> tuple:
    """(path, mtime_ns, size, inode) of every plugin file in `dirs` and of the trust store:
    cheap to take, and different after any save, rename or trust."""
    out = []
    for path in [*(f for d in dirs for f in _listed(d)), Path(trust_file)]:
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((str(path), st.st_mtime_ns, st.st_size, st.st_ino))
    return tuple(out)


def _listed(directory: Path) -> list[Path]:
    try:
        return plugin_files(directory)
    except DataError:
        return [directory]


def plugin_files(directory: Path) -> list[Path]:
    """The plugin files in a directory, sorted by name. Raises DataError when it cannot be listed."""
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise DataError(str(directory), None, "", f"cannot list the directory: {exc.strerror}") from None
    # everything but a directory is kept: a dangling link, a FIFO or a device named like a plugin
    # fails to read, and that is reported (one line naming the file), never skipped in silence
    return [directory / name for name in names if is_plugin_name(name) and not (directory / name).is_dir()]


def load_plugin_set(locations: Locations, cwd: str | None, last_good: Iterable[Plugin] = ()) -> PluginSet:
    """Every plugin in force for a project (`cwd` None: the user's only), in evaluation order."""
    entries: list[_Entry] = []
    for d in plugin_dirs(locations, cwd):
        try:
            entries += [(path, d.level, None) for path in plugin_files(d.path)]
        except DataError as exc:  # its plugins are unknown: it stands in as a broken plugin
            entries.append((d.path, d.level, exc))
    return _assemble(entries, locations, last_good, replace_by_id=True)


def load_plugin_paths(paths: Sequence[str], locations: Locations, cwd: str) -> PluginSet:
    """Plugins from files or directories given by hand (`guardtui test PATH…`), in the order given.

    Each keeps the level of the directory it sits in (a project's guard dirs: project;
    anywhere else: user, as if copied into the user's guards dir)."""
    project_dirs = {d.path.resolve() for d in plugin_dirs(locations, cwd) if d.level == PROJECT}
    entries: list[_Entry] = []
    for given in paths:
        path = Path(given)
        try:
            found = plugin_files(path) if path.is_dir() else [path] if path.exists() else []
        except DataError as exc:
            entries.append((path, USER, exc))
            continue
        if not found:
            what = "no plugin files (*.yaml, *.yml, *.md) in it" if path.is_dir() else "no such file"
            entries.append((path, USER, DataError(given, None, "", what)))
        for file in found:
            entries.append((file, PROJECT if file.resolve().parent in project_dirs else USER, None))
    return _assemble(entries, locations, (), replace_by_id=False)


def read_plugin(path: Path, level: str, trusted_hashes: dict[str, str]) -> Plugin:
    """One file, with its trust decided by its exact bytes. Raises DataError."""
    try:
        data = read_regular_file(path, MAX_BYTES)  # never a FIFO, a device, or more than MAX_BYTES
    except FileNotFoundError:
        raise DataError(str(path), None, "", "cannot read: No such file or directory") from None
    return parse_plugin(data, str(path), level, trusted=is_trusted(path, level, digest(data), trusted_hashes))


def is_trusted(path: Path, level: str, sha256: str, trusted_hashes: dict[str, str]) -> bool:
    return level == USER or trusted_hashes.get(trust_key(path)) == sha256


_Entry = tuple[Path, str, "DataError | None"]  # a file, its level, and why it cannot be read (if known)


def _assemble(entries: list[_Entry], locations: Locations, last_good: Iterable[Plugin],
              replace_by_id: bool) -> PluginSet:
    errors: list[DataError] = []
    try:
        trusted_hashes = read_trust(locations.trust_file)
    except DataError as exc:  # a damaged trust store trusts nothing
        errors.append(exc)
        trusted_hashes = {}
    previous = {p.file: p for p in last_good if not p.broken}
    order = _Order(replace_by_id)
    for path, level, known_error in entries:
        try:
            if known_error is not None:
                raise known_error
            plugin = read_plugin(path, level, trusted_hashes)
        except DataError as exc:
            errors.append(exc)
            plugin = _fallback(previous.get(str(path)), path, level, exc, trusted_hashes)
        order.add(plugin)
    return PluginSet(tuple(order.plugins()), tuple(errors), tuple(order.notes))


def _fallback(good: Plugin | None, path: Path, level: str, error: DataError,
              trusted_hashes: dict[str, str]) -> Plugin:
    if good is None:
        return Plugin(id=path.stem, file=str(path), level=level, broken=str(error))
    return dataclasses.replace(good, trusted=is_trusted(path, level, good.sha256, trusted_hashes), error=str(error))


class _Order:
    """Plugins keyed by id in precedence order; a replacement takes the replacer's place."""

    def __init__(self, replace_by_id: bool):
        self.replace_by_id = replace_by_id
        self.by_key: dict[str, Plugin] = {}
        self.notes: list[str] = []

    def add(self, plugin: Plugin) -> None:
        key = plugin.id
        if plugin.broken or not self.replace_by_id:
            key = f"{plugin.id}\0{plugin.file}"  # stands alone: replaces nothing
        existing = self.by_key.get(key)
        if existing is not None and existing.trusted and not plugin.trusted:
            self.notes.append(f"{plugin.file}: id {plugin.id!r} is also {existing.file}, which this untrusted "
                              f"project plugin cannot replace: both apply (guardtui trust {plugin.file})")
            key = f"{plugin.id}\0{plugin.file}"
        elif existing is not None:
            self.notes.append(f"{plugin.file} replaces {existing.file} (same id {plugin.id!r})")
            del self.by_key[key]
        self.by_key[key] = plugin

    def plugins(self) -> list[Plugin]:
        return list(self.by_key.values())
