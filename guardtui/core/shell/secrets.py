"""Which paths hold secrets (keys, credentials), as the shell analyzers ask it.

The list itself is core/data/secrets.yaml (core/secrets.py), shared with the file tools, MCP
tools and the web rule; `tax` stays in the signatures so every analyzer calls these as before."""
from __future__ import annotations

from ..secrets import secret_catalog


def is_secret(path: str, home: str, tax=None, home_only: bool = False) -> bool:
    """Is path a secret (keys, credentials)?

    home_only: reading it — only the secrets in a home directory or the system whose reading
    asks (a project's .env is not one); otherwise any secret, by place or by file name (what
    must not be sent away, staged or published)."""
    catalog = secret_catalog()
    if home_only:
        return catalog.match(path, home, places_only=True, reading=True) is not None
    return catalog.match(path, home) is not None


def is_secret_area(path: str, home: str, tax=None) -> bool:
    """A secret file, or a directory that holds them (~/.ssh, ~/.aws, …)."""
    catalog = secret_catalog()
    if catalog.match(path, home, places_only=True) is not None:
        return True
    return catalog.in_area(path, home)
