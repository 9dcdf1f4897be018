"""Where guardtui keeps things at run time (XDG through platformdirs).

config  user plugins (guards/), policy.yaml, trusted plugin hashes, the hook token
state   the audit database
runtime the broker's Unix socket

GUARDTUI_CONFIG_DIR / GUARDTUI_STATE_DIR / GUARDTUI_RUNTIME_DIR override each one.
"""
from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import platformdirs

APP = "guardtui"


@dataclass(frozen=True)
class Locations:
    config_dir: Path
    state_dir: Path
    runtime_dir: Path
    home: Path

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Locations":
        env = os.environ if env is None else env
        home = Path(env.get("HOME") or os.path.expanduser("~"))
        config = env.get("GUARDTUI_CONFIG_DIR") or platformdirs.user_config_dir(APP)
        state = env.get("GUARDTUI_STATE_DIR") or platformdirs.user_state_dir(APP)
        runtime = env.get("GUARDTUI_RUNTIME_DIR") or _runtime_dir(env)
        return cls(Path(config), Path(state), Path(runtime), home)

    @property
    def policy_file(self) -> Path:
        return self.config_dir / "policy.yaml"

    @property
    def user_plugins_dir(self) -> Path:
        return self.config_dir / "guards"

    @property
    def trust_file(self) -> Path:
        return self.config_dir / "trusted.json"

    @property
    def token_file(self) -> Path:
        return self.config_dir / "token"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.yaml"

    @property
    def audit_db(self) -> Path:
        return self.state_dir / "audit.db"

    @property
    def socket_path(self) -> Path:
        return self.runtime_dir / "broker.sock"


def account_home(home: Path | str) -> str:
    """The home directory a command's `~` stands for when judging it.

    $HOME, unless it points into a temp directory (a sandboxed or test run): then the
    account's home from the password database, so `rm -rf ~` never reads as temp cleanup."""
    home = os.path.normpath(str(home))
    temp_roots = ("/tmp", "/var/tmp", "/private/tmp", "/dev/shm", os.path.normpath(tempfile.gettempdir()))
    if home in ("", "/") or any(home == t or home.startswith(t + "/") for t in temp_roots):
        try:
            import pwd

            return pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError):
            return "/root" if os.getuid() == 0 else "/home/user"
    return home


def _runtime_dir(env: Mapping[str, str]) -> str:
    base = env.get("XDG_RUNTIME_DIR")
    if base and os.path.isdir(base) and os.access(base, os.W_OK):
        return os.path.join(base, APP)
    # no per-user runtime dir (containers, macOS): a private directory under the temp dir
    return os.path.join(tempfile.gettempdir(), f"{APP}-{os.getuid()}")


def ensure_private_dir(path: Path) -> Path:
    """Create path (and parents) with mode 0700; tighten it if it already exists."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path
