"""Codex hook trust: record it for guardtui's own hooks at install, take it out at uninstall.

Codex runs a non-managed hook only once it is trusted, and skips an untrusted one silently (in
`codex exec` nothing says so). Trust is an entry per hook in the user's config.toml,

    [hooks.state."<hooks.json path>:pre_tool_use:<group>:<handler>"]
    trusted_hash = "sha256:..."

which the /hooks review in the Codex TUI writes. guardtui does the same through Codex itself:
`codex app-server` (JSON-RPC over stdio) lists the hooks with their keys, current hashes and
trust (`hooks/list`), and writes config.toml with its own TOML editor (`config/batchWrite`). Only
hooks that run guardtui's hook script and come from the file guardtui wrote are trusted; nobody
else's.
"""
from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

RPC_TIMEOUT_S = 30.0
BACKUP_SUFFIX = ".guardtui.bak"


class TrustError(Exception):
    """Codex could not be asked, or did not do what it was asked."""


class NotListed(TrustError):
    """Codex does not load the hooks file (a project Codex does not trust, hooks turned off, ...)."""


@dataclass
class TrustResult:
    config: Path  # the config.toml that holds the trust entries
    changed: list[str] = field(default_factory=list)  # keys written (install) or removed (uninstall)
    backup: Path | None = None


def find_codex(env: Mapping[str, str]) -> str | None:
    return shutil.which("codex", path=env.get("PATH") or os.defpath)


def config_path(env: Mapping[str, str]) -> Path:
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    return Path(env.get("CODEX_HOME") or home / ".codex") / "config.toml"


class AppServer:
    """`codex app-server` over stdio: one request at a time, each answered within a deadline."""

    def __init__(self, codex: str, cwd: Path, env: Mapping[str, str]):
        try:
            self.proc = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, cwd=cwd, env=dict(env), text=True,
                                         encoding="utf-8", errors="replace")
        except OSError as exc:
            raise TrustError(f"cannot start {codex} app-server: {exc.strerror or exc}") from None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._ids = iter(range(1, 1 << 30))
        threading.Thread(target=self._read, daemon=True).start()
        self.request("initialize", {"clientInfo": {"name": "guardtui", "version": "1"}})
        self._send({"method": "initialized"}, "initialized")

    def __enter__(self) -> "AppServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()  # type: ignore[union-attr]
            except OSError:
                pass

    def _read(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self._lines.put(line)
        self._lines.put(None)

    def _send(self, message: dict, method: str) -> None:
        try:
            self.proc.stdin.write(json.dumps(message) + "\n")  # type: ignore[union-attr]
            self.proc.stdin.flush()  # type: ignore[union-attr]
        except OSError:
            raise self._exited(method) from None

    def _exited(self, method: str) -> TrustError:
        try:
            status = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            status = None
        how = "" if status is None else f" (status {status})"
        return TrustError(f"codex app-server exited{how} before answering {method}")

    def request(self, method: str, params: dict) -> Any:
        ident = next(self._ids)
        self._send({"id": ident, "method": method, "params": params}, method)
        while True:
            try:
                line = self._lines.get(timeout=RPC_TIMEOUT_S)
            except queue.Empty:
                raise TrustError(f"codex app-server did not answer {method} within {RPC_TIMEOUT_S:.0f}s") from None
            if line is None:
                raise self._exited(method)
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue  # not a protocol line
            if not isinstance(message, dict) or message.get("id") != ident or "method" in message:
                continue  # a notification, or a request of the server's own
            if "error" in message:
                error = message["error"]
                text = error.get("message") if isinstance(error, dict) else error
                raise TrustError(f"codex app-server refused {method}: {text}")
            return message.get("result")


def _hooks(server: AppServer, cwd: Path) -> list[dict]:
    result = server.request("hooks/list", {"cwds": [str(cwd)]})
    try:
        return [h for entry in result["data"] for h in entry["hooks"] if isinstance(h, dict)]
    except (TypeError, KeyError):
        raise TrustError("codex app-server answered hooks/list in an unknown shape") from None


def _same_file(a: Any, b: Path) -> bool:
    if not isinstance(a, str):
        return False
    try:
        return Path(a).resolve() == b.resolve()
    except OSError:
        return False


def ours(hooks: list[dict], source: Path) -> list[dict]:
    """The hooks in `source` that run guardtui's hook script."""
    from .install import is_ours

    found = {h["key"]: h for h in hooks if isinstance(h.get("key"), str) and h.get("handlerType") == "command"
             and _same_file(h.get("sourcePath"), source) and not h.get("isManaged")
             and is_ours({"command": h.get("command")})}
    return list(found.values())  # one per key, should a layer be listed twice


def recorded_for(config: Path, source: Path) -> list[str]:
    """Trust keys in config.toml for hooks of `source` (read only; [] when it cannot be read)."""
    import tomllib

    try:
        data = tomllib.loads(config.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return []
    hooks = data.get("hooks")
    states = hooks.get("state") if isinstance(hooks, dict) else None
    prefix = f"{source}:"
    return [k for k in states if k.startswith(prefix)] if isinstance(states, dict) else []


def _key_path(key: str, *rest: str) -> str:
    return ".".join(["hooks", "state", json.dumps(key, ensure_ascii=False), *rest])


def _backup(config: Path) -> Path | None:
    if not config.exists():
        return None
    backup = config.with_name(config.name + BACKUP_SUFFIX)
    shutil.copy2(config, backup)
    return backup


def record(codex: str, source: Path, cwd: Path, env: Mapping[str, str]) -> TrustResult:
    """Trust guardtui's hooks in `source` (at their current hashes). Idempotent."""
    config = config_path(env)
    with AppServer(codex, cwd, env) as server:
        mine = ours(_hooks(server, cwd), source)
        if not mine:
            raise NotListed(f"Codex does not list guardtui's hooks from {source}")
        todo = [h for h in mine if h.get("trustStatus") != "trusted"]
        result = TrustResult(config)
        if not todo:
            return result
        edits = [{"keyPath": _key_path(h["key"], "trusted_hash"), "value": h.get("currentHash"),
                  "mergeStrategy": "replace"} for h in todo]
        if any(not isinstance(e["value"], str) or not e["value"] for e in edits):
            raise TrustError("codex app-server listed a hook without its hash")
        result.backup = _backup(config)
        written = server.request("config/batchWrite", {"edits": edits})
        if isinstance(written, dict) and isinstance(written.get("filePath"), str):
            result.config = Path(written["filePath"])
        left = [h["key"] for h in ours(_hooks(server, cwd), source) if h.get("trustStatus") != "trusted"]
        if left:
            raise TrustError(f"Codex still does not trust {', '.join(left)}")
        result.changed = [h["key"] for h in todo]
        return result


def listed_keys(codex: str, source: Path, cwd: Path, env: Mapping[str, str]) -> list[str]:
    """The trust keys of guardtui's hooks in `source` as Codex lists them now (before uninstall)."""
    with AppServer(codex, cwd, env) as server:
        return [h["key"] for h in ours(_hooks(server, cwd), source)]


def remove(codex: str, keys: list[str], cwd: Path, env: Mapping[str, str]) -> TrustResult:
    """Remove the trust entries of these keys from the user's config.toml (and the tables they
    alone filled); other entries and settings stay as they are."""
    config = config_path(env)
    result = TrustResult(config)
    with AppServer(codex, cwd, env) as server:
        state = _user_hooks_state(server.request("config/read", {"includeLayers": True}), config)
        hooks_table, states = state
        present = [k for k in keys if isinstance(states.get(k), dict) and "trusted_hash" in states[k]]
        if not present:
            return result
        edits = []
        for key in present:
            entry = states[key]
            whole = set(entry) == {"trusted_hash"}
            edits.append({"keyPath": _key_path(key) if whole else _key_path(key, "trusted_hash"), "value": None,
                          "mergeStrategy": "replace"})
        left = {k: v for k, v in states.items() if k not in present or set(v) != {"trusted_hash"}}
        if not left:
            edits.append({"keyPath": "hooks.state", "value": None, "mergeStrategy": "replace"})
            if set(hooks_table) <= {"state"}:
                edits.append({"keyPath": "hooks", "value": None, "mergeStrategy": "replace"})
        result.backup = _backup(config)
        server.request("config/batchWrite", {"edits": edits})
        result.changed = present
        return result


def _user_hooks_state(read: Any, config: Path) -> tuple[dict, dict]:
    """(the user config's [hooks] table, its [hooks.state] table) from a config/read answer."""
    layers = read.get("layers") if isinstance(read, dict) else None
    if not isinstance(layers, list):
        raise TrustError("codex app-server answered config/read without its layers")
    for layer in layers:
        name = layer.get("name") if isinstance(layer, dict) else None
        if isinstance(name, dict) and name.get("type") == "user" and _same_file(name.get("file"), config):
            hooks = (layer.get("config") or {}).get("hooks") or {}
            states = hooks.get("state") or {} if isinstance(hooks, dict) else {}
            return (hooks if isinstance(hooks, dict) else {}), (states if isinstance(states, dict) else {})
    return {}, {}


# -- what install and uninstall do and say ---------------------------------------------------
UNGUARDED = "Codex skips hooks it does not trust, without a word: until then guardtui does NOT guard Codex"


class Trust:
    """Codex's trust in the hooks of one `guardtui install/uninstall codex` target."""

    def __init__(self, target, env: Mapping[str, str]):
        self.target = target
        self.env = env
        self.codex = find_codex(env)
        self.config = config_path(env)
        home = Path(env.get("HOME") or os.path.expanduser("~"))
        # where Codex is asked from: a project's hooks are listed only from inside it
        self.cwd = home if target.user else target.path.parent.parent
        self.keys: list[str] = []
        self.error = ""

    def read_before_uninstall(self) -> None:
        """The keys of guardtui's hooks, while they are still in the file."""
        if self.codex is None or not self.target.path.exists():
            return
        try:
            self.keys = listed_keys(self.codex, self.target.path, self.cwd, self.env)
        except TrustError as exc:
            self.error = str(exc)

    def after_install(self) -> int:
        if self.codex is None:
            _say(f"note: `codex` is not on PATH, so guardtui could not record Codex's trust in its hooks. "
                 f"{UNGUARDED}. Run `guardtui install codex` again where `codex` is on PATH, or trust the hooks "
                 "once with /hooks in the Codex TUI.")
            return 1  # the hooks are written, but not in force: not a success
        try:
            done = record(self.codex, self.target.path, self.cwd, self.env)
        except NotListed:
            if self.target.user:
                return self._failed("install", f"Codex ({self.codex}) does not load {self.target.path}")
            _say(f"note: Codex does not load {self.target.path} yet: it loads a project's hooks only once it "
                 f"trusts the project. {UNGUARDED}. Trust the project in Codex, then run this again.")
            return 1
        except TrustError as exc:
            return self._failed("install", str(exc))
        if done.changed:
            _say(f"Codex now trusts guardtui's {len(done.changed)} hooks: recorded in {done.config} "
                 "(as /hooks in the Codex TUI would)")
            if done.backup is not None:
                _say(f"the previous file is kept in {done.backup}")
        else:
            _say(f"Codex already trusts guardtui's hooks ({done.config})")
        return 0

    def after_uninstall(self) -> int:
        if self.error:
            return self._failed("uninstall", self.error)
        if self.codex is None:
            if recorded_for(self.config, self.target.path):
                _say(f"note: `codex` is not on PATH, so Codex's trust entries for {self.target.path} stay in "
                     f"{self.config}; without the hooks they do nothing")
            return 0
        if not self.keys:
            return 0
        try:
            done = remove(self.codex, self.keys, self.cwd, self.env)
        except TrustError as exc:
            return self._failed("uninstall", str(exc))
        if done.changed:
            _say(f"removed Codex's trust in guardtui's {len(done.changed)} hooks from {done.config}")
            if done.backup is not None:
                _say(f"the previous file is kept in {done.backup}")
        return 0

    def _failed(self, command: str, why: str) -> int:
        import sys

        verb = "record" if command == "install" else "remove"
        print(f"guardtui {command} codex: could not {verb} Codex's trust in guardtui's hooks: {why}", file=sys.stderr)
        if command == "install":
            _say(f"note: {UNGUARDED}. Trust the hooks once with /hooks in the Codex TUI.")
        return 1


def _say(line: str) -> None:
    print(f"  {line}")
