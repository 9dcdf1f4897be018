"""Folders a sync client mirrors to other devices (Syncthing, Dropbox, OneDrive, Nextcloud, Google Drive,
iCloud…): a file written there leaves the machine. The common places (data/secrets.yaml synced_folders,
relative to the home) and the ones the clients' own settings list (synced_configs: Syncthing's config.xml
folders, Dropbox's info.json, Nextcloud/ownCloud's localPath), read on this machine, size-capped, and cached
while the settings file is unchanged.

    synced_folder("/home/u/Sync/contract/handoff.txt", "/home/u")  -> "/home/u/Sync"
    synced_folder("/home/u/src/app/README.md", "/home/u")          -> None
"""
from __future__ import annotations

import fnmatch
import html
import json
import os
import posixpath
import re
import threading

from .secrets import secret_catalog
from .yamlfile import DataError, read_regular_file

_MAX_CONFIG = 256 * 1024
_cache: dict[str, tuple[tuple[int, int], tuple[str, ...]]] = {}
_lock = threading.Lock()


def _listed(config: str) -> tuple[str, ...]:
    """The folders one client's settings file lists (absolute paths), cached by the file's mtime and size."""
    try:
        info = os.stat(config)
    except OSError:
        return ()
    key = (info.st_mtime_ns, info.st_size)
    with _lock:
        cached = _cache.get(config)
    if cached is not None and cached[0] == key:
        return cached[1]
    try:
        text = read_regular_file(config, _MAX_CONFIG).decode("utf-8", "replace")
    except (OSError, DataError):
        text = ""
    found: list[str] = []
    if config.endswith(".xml"):  # Syncthing: <folder id=… path="/home/u/Sync/x">
        found += [html.unescape(m.group(1)) for m in re.finditer(r"<folder\b[^>]*\bpath=\"([^\"]+)\"", text)]
    elif config.endswith(".json"):  # Dropbox: {"personal": {"path": …}, "business": {…}}
        try:
            data = json.loads(text or "{}")
        except ValueError:
            data = {}
        found += [v["path"] for v in data.values() if isinstance(v, dict) and isinstance(v.get("path"), str)] \
            if isinstance(data, dict) else []
    else:  # Nextcloud / ownCloud: 0\Folders\1\localPath=/home/u/Nextcloud/
        found += [m.group(1).strip() for m in re.finditer(r"(?m)^\S*localPath\s*=\s*(.+)$", text)]
    paths = tuple(posixpath.normpath(p) for p in found if p.startswith(("/", "~")))[:256]
    with _lock:
        _cache[config] = (key, paths)
    return paths


def synced_folder(path: str, home: str) -> str | None:
    """The synced folder `path` (absolute, normalised) is in, or None."""
    if not path or not home:
        return None
    home = home.rstrip("/")
    catalog = secret_catalog()
    for config in catalog.synced_configs:
        for folder in _listed(f"{home}/{config}"):
            folder = home + folder[1:] if folder.startswith("~") else folder
            if path == folder or path.startswith(folder.rstrip("/") + "/"):
                return folder
    if not path.startswith(home + "/"):
        return None
    rel = path[len(home) + 1:]
    for pattern in catalog.synced_folders:
        depth = pattern.count("/") + 1
        parts = rel.split("/")
        if len(parts) > depth and fnmatch.fnmatchcase("/".join(parts[:depth]), pattern):
            return f"{home}/{'/'.join(parts[:depth])}"
    return None
