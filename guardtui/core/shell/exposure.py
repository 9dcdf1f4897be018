"""Servers that hand whoever connects code execution, a shell, the desktop or the person's data
(data/servers.yaml): judged by where they listen and whether they ask who connects.

- on loopback: a local dev server (allow);
- beyond it with authentication on: asks (the token can be passed on, the port reached by others);
- beyond it with authentication off: denies when the call chose it (an address given, or auth switched off),
  asks when both are the tool's defaults (`dask scheduler`, `x11vnc -display :0`);
- relays that register this machine for remote access (`code tunnel`, tmate): deny;
- an sshd the agent starts: asks; with a config that lets in keys the person does not hold (an
  AuthorizedKeysFile outside ~/.ssh, empty passwords) and listens beyond loopback: denies.
"""
from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..yamlfile import Field, check, load_yaml
from .findings import Finding, allow, ask, deny
from .projectfiles import read_text
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_LIST = Field(list, items=str)
_SERVER = {"commands": Field(list, required=True, items=str), "bind": _LIST, "local_flags": _LIST,
           "network_flags": _LIST, "default": Field(str, required=True, choices=("loopback", "network")),
           "auth_off": _LIST, "auth_on": _LIST, "auth": Field(str, required=True, choices=("required", "none")),
           "gives": Field(str, required=True), "config_files": _LIST,
           "config_format": Field(str, choices=("traitlets",))}
_RELAY = {"commands": Field(list, required=True, items=str), "quiet": _LIST, "gives": Field(str, required=True)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "servers": Field(list, required=True, items=_SERVER),
          "relays": Field(list, items=_RELAY), "modules": Field(dict, values=str)}

# where a server listens on this machine only: loopback addresses, names and the loopback interface
_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d+){0,3}|::1|\[::1\]|ip6-localhost|lo|lo0)$", re.I)
_EVERYWHERE = re.compile(r"^(?:0\.0\.0\.0|0|::|\[::\]|\*|)$")


@dataclass(frozen=True)
class Server:
    commands: tuple[tuple[str, ...], ...]
    spec: dict

    def gives(self) -> str:
        return self.spec["gives"]


@dataclass(frozen=True)
class ServerCatalog:
    servers: tuple[Server, ...]
    relays: tuple[Server, ...]
    modules: dict[str, tuple[str, ...]]  # python -m MODULE: the program it is

    def find(self, name: str, operands: list[str], relays: bool = False) -> tuple[Server, int] | None:
        """The entry `name OPERANDS…` starts (and how many operands its command takes), or None."""
        for server in self.relays if relays else self.servers:
            for command in server.commands:
                if command[0] == name and list(command[1:]) == operands[:len(command) - 1]:
                    return server, len(command) - 1
        return None


def parse_servers(text: str, file: str = "servers.yaml") -> ServerCatalog:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)

    def entries(key: str) -> tuple[Server, ...]:
        return tuple(Server(tuple(tuple(c.split()) for c in raw["commands"]), raw) for raw in doc.data.get(key) or ())

    return ServerCatalog(entries("servers"), entries("relays"),
                         {k: tuple(v.split()) for k, v in (doc.data.get("modules") or {}).items()})


@lru_cache(maxsize=1)
def server_catalog() -> ServerCatalog:
    text = resources.files("guardtui.core.data").joinpath("servers.yaml").read_text(encoding="utf-8")
    return parse_servers(text, "guardtui/core/data/servers.yaml")


def module_program(module: str) -> tuple[str, ...] | None:
    """`python -m jupyterlab`: the server program a module is (`jupyter lab`), or None."""
    return server_catalog().modules.get(module)


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    name = posixpath.basename(inv.name)
    if name == "sshd":
        return sshd(run, inv)
    if name in ("gh", "glab"):
        return key_grant(run, inv)
    operands = [w.value for w in inv.words if not w.value.startswith("-")]
    catalog = server_catalog()
    relay = catalog.find(name, operands, relays=True)
    if relay is not None:
        server, taken = relay
        rest = [w.value for w in inv.words][taken:]
        if any(w in server.spec.get("quiet", ()) for w in rest):
            return []
        label = " ".join([name] + operands[:taken])
        return [deny(f"{label} registers this machine with a relay for remote access: it hands {server.gives()}",
                     "network", "net.relay")]
    found = catalog.find(name, operands)
    if found is None:
        return []
    server, taken = found
    label = " ".join([name] + operands[:taken])
    return [_judge_server(server, label, _config_words(run, inv, server) + list(inv.words))]


def _config_words(run: "Run", inv: "Invocation", server: Server) -> list[Word]:
    """The settings a server's configuration files hold, as the options they amount to (Jupyter's
    `c.ServerApp.ip = "0.0.0.0"` is `--ServerApp.ip=0.0.0.0`), before the command line's own (which win).
    A configuration that is a program (jupyter_server_config.py) runs at start: it is judged as one."""
    cwd = inv.scope.cwd
    if not server.spec.get("config_files") or not cwd or inv.scope.remote:
        return []
    variables = {**inv.cmd.scope.variables, **inv.scope.variables}
    words: list[Word] = []
    seen: set[str] = set()
    for entry in server.spec["config_files"]:
        if entry.startswith("$"):
            name, _, rest = entry[1:].partition("/")
            value = variables.get(name)
            if not isinstance(value, str) or not value or DYN in value:
                continue
            entry = value.rstrip("/") + "/" + rest
        if entry.startswith("~/"):
            entry = inv.scope.home.rstrip("/") + entry[1:]
        path = posixpath.normpath(posixpath.join(cwd, entry))
        text = read_text(path) if path not in seen else None
        seen.add(path)
        if text is None:
            continue
        if path.endswith(".py"):
            judged = run.project_file(path, inv, "python3", f"{posixpath.basename(path)} ({inv.name} runs its "
                                                            "configuration)")
            if judged is not None:
                run.add(judged)
        words += [Word(f"--{key}={value}", f"--{key}={value}") for key, value in _traitlets(text, path)]
    return words


_TRAIT = re.compile(r"(?m)^\s*c\.([A-Za-z_]\w*\.[A-Za-z_]\w*)\s*=\s*(?P<q>[\"']?)([^\"'\n#]*)(?P=q)\s*(?:#.*)?$")


def _traitlets(text: str, path: str) -> list[tuple[str, str]]:
    """`c.Section.name = value` lines of a .py configuration, {"Section": {"name": value}} of a .json one."""
    if path.endswith(".json"):
        try:
            import json
            data = json.loads(text)
        except ValueError:
            return []
        return [(f"{section}.{key}", "" if value is None else str(value))
                for section, values in (data.items() if isinstance(data, dict) else [])
                if isinstance(values, dict) for key, value in values.items() if not isinstance(value, (dict, list))]
    return [(m.group(1), m.group(3).strip()) for m in _TRAIT.finditer(text)]


def _judge_server(server: Server, label: str, words: list[Word]) -> Finding:
    spec = server.spec
    where, chosen_bind = _where(spec, words)
    auth_on, chosen_auth = _auth(spec, words)
    if where == "unknown":
        return ask(f"{label} listens where only run time says ({_bind_text(spec, words)}): beyond this machine it "
                   f"hands out {server.gives()}", "network", BlastRadius.HIGH, "net.exposed-server")
    if where == "loopback":
        return allow(f"{label} serves on this machine only (loopback)", "network", rule="net.local-server")
    if auth_on:
        return ask(f"{label} listens beyond this machine ({_bind_text(spec, words) or 'by default'}), behind its "
                   f"login: whoever gets the token or password has {server.gives()}", "network", BlastRadius.HIGH,
                   "net.exposed-server")
    if chosen_bind or chosen_auth:
        return deny(f"{label} listens beyond this machine ({_bind_text(spec, words) or 'every interface, by default'}) "
                    f"with no authentication: anyone who reaches it gets {server.gives()}", "network",
                    "net.exposed-server")
    return ask(f"{label} listens on every interface by default, with no authentication: anyone who reaches it gets "
               f"{server.gives()}", "network", BlastRadius.HIGH, "net.exposed-server")


def _values(words: list[Word], options) -> list[str]:
    out = []
    for i, w in enumerate(words):
        option, eq, value = w.value.partition("=")
        if option in options and eq:
            out.append(value)
        elif w.value in options and i + 1 < len(words):
            out.append(words[i + 1].value)
    return out


def _where(spec: dict, words: list[Word]) -> tuple[str, bool]:
    """("loopback" | "network" | "unknown", whether the call chose it)."""
    flags = {w.value for w in words}
    if flags & set(spec.get("local_flags", ())):
        return "loopback", True
    if flags & set(spec.get("network_flags", ())):
        return "network", True
    values = _values(words, set(spec.get("bind", ())))
    if not values:
        return spec["default"], False
    value = values[-1]
    if DYN in value:
        return "unknown", True
    host = _host_of(value)
    return ("loopback" if _LOOPBACK.match(host) else "network"), True


def _host_of(value: str) -> str:
    """HOST of HOST, HOST:PORT, [V6]:PORT, a URL."""
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value.strip(), flags=re.I).rstrip("/")
    m = re.match(r"^\[([^\]]*)\](?::\d+)?$", value)
    if m:
        return m.group(1)
    if value.count(":") == 1:
        return value.split(":", 1)[0]
    return value


def _bind_text(spec: dict, words: list[Word]) -> str:
    values = _values(words, set(spec.get("bind", ())))
    if values:
        return f"on {values[-1] or 'every interface'}"
    flags = [w.value for w in words if w.value in spec.get("network_flags", ())]
    return flags[-1] if flags else ""


def _auth(spec: dict, words: list[Word]) -> tuple[bool, bool]:
    """(authentication on, whether the call switched it off itself)."""
    for entry in spec.get("auth_off", ()):
        option, eq, wanted = entry.partition("=")
        if not eq:
            if any(w.value == option for w in words):
                return False, True
            continue
        for value in _values(words, {option}):
            if value.strip("'\"").lower() == wanted.lower():
                return False, True
    if any(value.strip() for value in _values(words, set(spec.get("auth_on", ())))):
        return True, False
    return spec["auth"] == "required", False


def served(findings: list[Finding], exposed: list[Finding]) -> list[Finding]:
    """The command's findings with the server's: a local server stands in for "a command guardtui does not
    know" (ray, dask, marimo); a server exposed is added to what the command does besides."""
    if not exposed:
        return findings
    if all(f.verdict is Verdict.ALLOW for f in exposed):
        kept = [f for f in findings if f.rule not in _UNKNOWN]
        return kept if any(f.verdict is not Verdict.ALLOW for f in kept) else kept + exposed
    return [f for f in findings if f.rule not in _UNKNOWN] + exposed


_UNKNOWN = ("shell.unknown", "shell.everyday-verb", "shell.script", "shell.not-installed")


# -- keys that grant access to the person's account or repositories -------------------------------------
_KEY_ENDPOINT = re.compile(r"(?:^|/)(?:user/keys|repos/[^/\s]+/[^/\s]+/keys|projects/[^/\s]+/deploy_keys|"
                           r"user/keys/\d+/?$|api/v\d+/user/keys)/?$")


def key_grant(run: "Run", inv: "Invocation") -> list[Finding]:
    """`gh ssh-key add K.pub`, `gh repo deploy-key add K.pub`, `gh api user/keys -f key=…`, glab's: a key that logs in
    as the person (or pushes to the repository). The person's own key (its private half beside it in ~/.ssh) asks;
    a key from anywhere else (a file in the project, a key written out, an outsider's) denies."""
    name = posixpath.basename(inv.name)
    if name not in ("gh", "glab"):
        return []
    takes_value = set((run.tax.commands.get(name) or {}).get("value_options", ()))
    operands = [w for i, w in enumerate(inv.words) if not w.value.startswith("-") and
                not (i and inv.words[i - 1].value in takes_value)]  # gh api -X POST /user/keys
    values = [w.value for w in operands]
    source: Word | None = None
    what = ""
    if values[:2] in (["ssh-key", "add"], ["deploy-key", "add"]) or values[:3] == ["repo", "deploy-key", "add"]:
        taken = 3 if values[0] == "repo" else 2
        source = operands[taken] if len(operands) > taken else None
        what = f"{name} {' '.join(values[:taken])}"
    elif values[:1] == ["api"] and len(values) > 1 and _KEY_ENDPOINT.search(values[1].split("?")[0]):
        what = f"{name} api {values[1]}"
        for i, w in enumerate(inv.words):
            field = w.value if "=" in w.value and i and inv.words[i - 1].value in ("-f", "-F", "--field",
                                                                               "--raw-field") else ""
            key, _, value = field.partition("=")
            if key == "key":
                source = Word(value[1:], value[1:]) if value.startswith("@") else \
                    Word(value, inv.words[i].raw.partition("=")[2])
        if source is None:
            return []  # a GET of the keys: gh api's own shapes judge it
    else:
        return []
    own = _own_key(run, inv, source)
    if own:
        return [ask(f"{what} adds {own}, the person's own key: it logs in as them from wherever it is kept", "secrets",
                    BlastRadius.HIGH, "net.key-grant")]
    shown = source.display()[:60] if source is not None else "a key on its input"
    return [deny(f"{what} adds a key the person does not hold ({shown}): whoever holds its private half gets into "
                 "the account or repository (clone, push, workflows)", "network", "net.key-grant")]


def _own_key(run: "Run", inv: "Invocation", source: Word | None) -> str | None:
    """The person's public key file (in ~/.ssh, its private half beside it) that `source` names or cats, or None."""
    if source is None:
        return None
    text = source.raw if (source.dynamic or "$(" in source.raw) else source.value
    m = re.search(r"(?:~|\$HOME|\$\{HOME\})?/?[\w.@+/-]*\.pub\b", text)
    if m is None:
        return None
    home = inv.scope.home.rstrip("/")
    written = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/)", lambda _: home, m.group(0))
    path = run.path(Word.literal(written), inv).path
    if not path or not path.startswith(home + "/.ssh/"):
        return None
    private = path[:-4]
    return m.group(0) if os.path.lexists(private) else None


# -- sshd -----------------------------------------------------------------------------------------------
_QUIET_SSHD = {"-t", "-T", "-V", "-G"}


def sshd(run: "Run", inv: "Invocation") -> list[Finding]:
    """An ssh server the agent starts: a standing login to this machine. With a config (-f, -o) that lets in keys
    the person does not hold, or passwords that are empty, and listening beyond loopback: denies."""
    values = [w.value for w in inv.words]
    if any(v in _QUIET_SSHD for v in values):
        return [allow("sshd -t / -T only checks or prints its configuration", "read-only", rule="shell.describe")]
    settings: dict[str, list[str]] = {}
    config = _values(inv.words, {"-f"})
    if config and DYN not in config[-1]:
        path = run.path(Word.literal(config[-1]), inv).path
        text = read_text(path) if path else None
        for line in (text or "").splitlines():
            m = re.match(r"\s*(\w+)\s*[=\s]\s*(.*?)\s*$", line)
            if m and not line.lstrip().startswith("#"):
                settings.setdefault(m.group(1).lower(), []).append(m.group(2))
    for option in _values(inv.words, {"-o"}):
        m = re.match(r"\s*(\w+)\s*[=\s]\s*(.*?)\s*$", option)
        if m:
            settings.setdefault(m.group(1).lower(), []).append(m.group(2))
    listens = settings.get("listenaddress", []) + _values(inv.words, {"-l"})
    beyond = not listens or any(not _LOOPBACK.match(_host_of(a.split()[0]) if a.split() else "") for a in listens)
    strangers = _foreign_keys(settings, inv.scope.home) or \
        ("empty passwords allowed" if any(v.lower() == "yes" for v in settings.get("permitemptypasswords", ()))
         else None)
    if beyond and strangers:
        return [deny(f"sshd starts a login server on this machine that lets in {strangers}: a standing remote login "
                     "as the person", "network", "net.remote-login")]
    return [ask("sshd starts a login server on this machine: a standing way in for whoever holds a key it accepts",
                "network", BlastRadius.HIGH, "net.remote-login")]


def _foreign_keys(settings: dict[str, list[str]], home: str) -> str | None:
    """The keys a config lets in that are not the person's own list (~/.ssh/authorized_keys, %h/.ssh/…)."""
    for value in settings.get("authorizedkeysfile", []):
        for path in value.split():
            own = re.sub(r"^(?:%h|~|" + re.escape(home.rstrip("/")) + r")/", "", path)
            if own in (".ssh/authorized_keys", ".ssh/authorized_keys2", "none") or \
                    (not path.startswith("/") and path in (".ssh/authorized_keys", ".ssh/authorized_keys2")):
                continue
            return f"the keys listed in {path}, not the person's own authorized_keys"
    command = settings.get("authorizedkeyscommand", [])
    if command and command[0].lower() != "none":
        return f"the keys {command[0]} prints"
    return None


__all__ = ["judge", "served", "module_program", "server_catalog", "parse_servers"]
