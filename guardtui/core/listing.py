"""What a copy or an extraction would put on disk, read (never extracted) from the source.

    archive_members(path, strip=0) -> [Entry] | None    tar (any compression tarfile reads), zip
    tree_entries(path) -> [Entry] | None                a directory (or one file) being copied

None when it cannot be told: the file is missing, too big, not an archive guardtui can read,
or holds more entries than are looked at. The caller then assumes the worst.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import posixpath
import tarfile
import zipfile
from dataclasses import dataclass

MAX_ARCHIVE_BYTES = 64 * 1024 * 1024  # the archive file itself
MAX_READ_BYTES = 128 * 1024 * 1024  # a compressed tar is read through to list it: this much, decompressed
MAX_ENTRIES = 20_000
_COMPRESSED = ((b"\x1f\x8b", gzip.open), (b"BZh", bz2.open), (b"\xfd7zXZ\x00", lzma.open))


class _TooBig(Exception):
    pass


class _Capped(io.RawIOBase):
    """A stream that stops (raises) after `limit` bytes: a decompression bomb is not read through."""

    def __init__(self, inner, limit: int):
        self.inner, self.left = inner, limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        data = self.inner.read(min(len(buffer), 1 << 20))
        self.left -= len(data)
        if self.left < 0:
            raise _TooBig()
        buffer[:len(data)] = data
        return len(data)


@dataclass(frozen=True)
class Entry:
    name: str  # relative path where it lands ("" for a single file copied as itself)
    link: str | None = None  # a symbolic or hard link member: what it points at
    hard: bool = False


def archive_members(path: str, strip: int = 0) -> list[Entry] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    if st.st_size > MAX_ARCHIVE_BYTES or not os.path.isfile(path):
        return None
    entries: list[Entry] = []
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as zf:
                infos = zf.infolist()
                if len(infos) > MAX_ENTRIES:
                    return None
                for info in infos:
                    is_link = (info.external_attr >> 16) & 0o170000 == 0o120000
                    link = zf.read(info).decode("utf-8", "replace") if is_link and info.file_size < 4096 else None
                    entries.append(Entry(info.filename, link))
        else:
            with open(path, "rb") as fh:
                magic = fh.read(6)
            opener = next((o for m, o in _COMPRESSED if magic.startswith(m)), None)
            raw = opener(path, "rb") if opener is not None else open(path, "rb")
            with raw, tarfile.open(fileobj=io.BufferedReader(_Capped(raw, MAX_READ_BYTES)), mode="r|") as tf:
                for count, member in enumerate(tf):
                    if count >= MAX_ENTRIES:
                        return None
                    link = member.linkname if member.issym() or member.islnk() else None
                    entries.append(Entry(member.name, link, member.islnk()))
    except (OSError, tarfile.TarError, zipfile.BadZipFile, EOFError, ValueError, RuntimeError, _TooBig,
            lzma.LZMAError):
        return None
    out = []
    for e in entries:
        name = _strip(_clean(e.name), strip)
        if name is not None:
            out.append(Entry(name, e.link, e.hard))
    return out


def tree_entries(path: str) -> list[Entry] | None:
    """Every file and directory under `path` (relative), or [Entry("")] for a file; links are
    copied as links (cp -a, rsync -a) or followed (cp -r): both are reported."""
    if os.path.islink(path) or os.path.isfile(path):
        link = os.readlink(path) if os.path.islink(path) else None
        return [Entry("", link)]
    if not os.path.isdir(path):
        return None
    out: list[Entry] = []
    for root, dirs, files in os.walk(path):
        rel_root = posixpath.relpath(root, path)
        for name in dirs + files:
            rel = name if rel_root == "." else f"{rel_root}/{name}"
            full = posixpath.join(root, name)
            out.append(Entry(rel, os.readlink(full) if os.path.islink(full) else None))
            if len(out) > MAX_ENTRIES:
                return None
    return out


def _clean(name: str) -> str:
    """A member name as tar and unzip place it: leading `/` and `./` dropped."""
    name = name.replace("\\", "/")
    while name.startswith(("/", "./")):
        name = name[1:] if name.startswith("/") else name[2:]
    return name.rstrip("/")


def _strip(name: str, count: int) -> str | None:
    if not count:
        return name
    parts = name.split("/")
    return "/".join(parts[count:]) if len(parts) > count else None
