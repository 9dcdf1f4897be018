"""Which paths hold secrets (keys, credentials): the taxonomy's `secrets` globs, compiled once."""
from __future__ import annotations

import re


def is_secret(path: str, home: str, tax, home_only: bool = False) -> bool:
    """Is path a secret (keys, credentials)? home_only: only the ones in a home directory or the system."""
    if path.endswith(".pub"):
        return False  # a public key is meant to be shared
    in_home, anywhere = _secret_matchers(tax, home)
    if in_home.match(path):
        return True
    return not home_only and bool(anywhere.match(path.rsplit("/", 1)[-1]))


_SECRET_DIRS = (".ssh", ".aws", ".gnupg", ".kube", ".docker", ".config/gcloud", ".azure", ".password-store",
                ".config/op", "Library/Keychains")


def is_secret_area(path: str, home: str, tax) -> bool:
    """A secret file, or a directory that holds them (~/.ssh, ~/.aws, …)."""
    if is_secret(path, home, tax, home_only=True):
        return True
    for base in {home.rstrip("/"), *re.findall(r"^/(?:home|Users)/[^/]+|^/root", path)}:
        if any(path == f"{base}/{d}" or path.startswith(f"{base}/{d}/") for d in _SECRET_DIRS):
            return True
    return False


def _secret_matchers(tax, home: str) -> tuple[re.Pattern, re.Pattern]:
    """The taxonomy's secret globs compiled once per home: (home and absolute paths, file names)."""
    cache = tax.__dict__.setdefault("_secret_cache", {})
    found = cache.get(home)
    if found is None:
        homes = "(?:" + "|".join([re.escape(home.rstrip("/")), r"/home/[^/]+", r"/Users/[^/]+", "/root"]) + ")"
        paths, names = [], []
        for pattern in tax.secrets:
            if pattern.startswith("~/"):
                paths.append(homes + _glob(pattern[1:]))
            elif pattern.startswith("/"):
                paths.append(_glob(pattern))
            else:
                names.append(_glob(pattern))
        found = cache[home] = (re.compile("^(?:" + "|".join(paths) + ")$", re.S),
                               re.compile("^(?:" + "|".join(names) + ")$", re.S))
    return found


def _glob(pattern: str) -> str:
    return "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)
