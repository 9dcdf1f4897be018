"""What a network client's configuration files add to its command line: `curl -K FILE` (and ~/.curlrc),
`wget --config FILE` / `-e CMD` (and ~/.wgetrc, $WGETRC), `aria2c --conf-path FILE` (and its default
aria2.conf), an httpie session file, the URL lists `wget -i` and `aria2c -i` read, and the host aliases
HOSTALIASES names. Read on this machine at judging time (regular files, size-capped, text), so that a URL,
a header, an upload or an output file written in a file is judged as if it were on the command line.

    config_words("curl", ["-K", "probe.curlrc"], cwd, home, env)
        -> [Word("--url"), Word("http://metadata.google.internal/…"), Word("--header"), Word("Metadata-Flavor: Google")]
"""
from __future__ import annotations

import json
import os
import posixpath
import re
from typing import Iterable, Mapping

from .projectfiles import read_text
from .words import DYN, Word

MAX_CONFIG_BYTES = 64 * 1024
MAX_WORDS = 512
_WGET_COMMANDS = {  # wgetrc commands (also `wget -e CMD`) that mean an option of the command line
    "header": "--header", "post_data": "--post-data", "post_file": "--post-file", "body_data": "--body-data",
    "body_file": "--body-file", "output_document": "--output-document", "dir_prefix": "--directory-prefix",
    "logfile": "--output-file", "input": "--input-file", "http_proxy": "--proxy-url", "https_proxy": "--proxy-url",
    "method": "--method", "user_agent": "--user-agent",
}


def _path(value: str, cwd: str | None, home: str) -> str | None:
    if not value or DYN in value:
        return None
    if value.startswith("~/"):
        value = home.rstrip("/") + value[1:]
    if not value.startswith("/"):
        if not cwd:
            return None
        value = posixpath.join(cwd, value)
    return posixpath.normpath(value)


def option_value(args: list[str], i: int, long: tuple[str, ...], short: str = "") -> tuple[str | None, int]:
    """The value of the option at args[i] when it is one of `long` (`--x v`, `--x=v`) or `short` (`-K v`,
    `-Kv`, and last in a cluster `-sK v`): (value, how many words it took), or (None, 0)."""
    arg = args[i]
    name, eq, attached = arg.partition("=")
    if name in long:
        if eq:
            return attached, 1
        return (args[i + 1], 2) if i + 1 < len(args) else (None, 0)
    if short and len(arg) > 1 and arg[0] == "-" and arg[1] != "-":
        letters = arg[1:]
        at = letters.find(short)
        if at < 0 or at and not letters[:at].isalpha():
            return None, 0
        rest = letters[at + 1:]
        if rest:
            return rest, 1
        return (args[i + 1], 2) if i + 1 < len(args) else (None, 0)
    return None, 0


def _curl_lines(text: str) -> Iterable[tuple[str, str]]:
    """(option, value) of a curl config file: `url = "…"`, `header: x`, `--silent`, `-H x`."""
    for line in text.splitlines()[:2000]:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.match(r"^(-{0,2}[A-Za-z0-9][\w-]*)\s*(?:[=:]\s*|\s+|$)(.*)$", line)
        if m is None:
            continue
        name, value = m.group(1), m.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        if not name.startswith("-"):
            name = "--" + name
        yield name, value


def _curl_words(text: str) -> list[str]:
    out: list[str] = []
    for name, value in _curl_lines(text):
        out.append(name)
        if value:
            out.append(value)
    return out


def _settings(text: str) -> list[tuple[str, str]]:
    """`name = value` lines (wgetrc, aria2.conf), comments and blank lines left out."""
    out = []
    for line in text.splitlines()[:2000]:
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def _wget_words(text: str) -> list[str]:
    out: list[str] = []
    for name, value in _settings(text):
        option = _WGET_COMMANDS.get(name.lower().replace("-", "_"))
        if option:
            out += [option, value]
    return out


def _aria2_words(text: str) -> list[str]:
    return [word for name, value in _settings(text) for word in ("--" + name, value)]


def _url_list(text: str) -> list[str]:
    """A list of URLs (wget -i, aria2c -i: one per line; aria2c's indented lines are options)."""
    out: list[str] = []
    for line in text.splitlines()[:2000]:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if line[:1] in (" ", "\t"):
            out += _aria2_words(line)
        else:
            out += line.split("\t")
    return out


def _httpie_session(text: str) -> list[str]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    headers = data.get("headers") if isinstance(data, dict) else None
    items = headers.items() if isinstance(headers, dict) else \
        ((h.get("name"), h.get("value")) for h in headers if isinstance(h, dict)) if isinstance(headers, list) else ()
    return [f"{k}:{v}" for k, v in items if isinstance(k, str) and isinstance(v, str)]


def config_words(tool: str, args: list[str], cwd: str | None, home: str,
                 env: Mapping[str, str] | None = None) -> list[Word]:
    """The arguments `tool`'s configuration files add to `args` (see the module's docstring)."""
    env = env or {}
    found: list[str] = []

    def read(value: str | None, parse) -> None:
        path = _path(value or "", cwd, home)
        text = read_text(path, MAX_CONFIG_BYTES) if path else None
        if text:
            found.extend(parse(text))

    if tool == "curl":
        if not (args[:1] and args[0] in ("-q", "--disable")):  # curl reads its default config unless told first
            for default in (posixpath.join(env.get("CURL_HOME") or home, ".curlrc"),
                            posixpath.join(env.get("XDG_CONFIG_HOME") or posixpath.join(home, ".config"), ".curlrc")):
                read(default, _curl_words)
        for i in range(len(args)):
            value, _ = option_value(args, i, ("--config",), "K")
            if value is not None:
                read(value, _curl_words)
    elif tool == "wget":
        default = env.get("WGETRC") or posixpath.join(home, ".wgetrc")
        config = None
        for i in range(len(args)):
            value, _ = option_value(args, i, ("--config",))
            config = value if value is not None else config
            command, _ = option_value(args, i, ("--execute",), "e")
            if command is not None:
                found.extend(_wget_words(command))
            listed, _ = option_value(args, i, ("--input-file",), "i")
            if listed is not None and listed != "-":
                read(listed, _url_list)
        if "--no-config" not in args:
            read(config or default, _wget_words)
    elif tool == "aria2c":
        config = None
        for i in range(len(args)):
            value, _ = option_value(args, i, ("--conf-path",))
            config = value if value is not None else config
            listed, _ = option_value(args, i, ("--input-file",), "i")
            if listed is not None and listed != "-":
                read(listed, _url_list)
        if "--no-conf" not in args and "--no-conf=true" not in args:
            for path in ([config] if config else [posixpath.join(home, ".aria2", "aria2.conf"),
                                                   posixpath.join(env.get("XDG_CONFIG_HOME") or
                                                                  posixpath.join(home, ".config"), "aria2",
                                                                  "aria2.conf")]):
                read(path, _aria2_words)
    elif tool in ("http", "https", "httpie", "xh"):
        for i in range(len(args)):
            value, _ = option_value(args, i, ("--session", "--session-read-only"))
            if value is None:
                continue
            if "/" in value or value.endswith(".json"):
                read(value, _httpie_session)
            else:  # a named session: the config dir's sessions/HOST/NAME.json, for whichever host
                sessions = posixpath.join(env.get("HTTPIE_CONFIG_DIR") or posixpath.join(home, ".config", "httpie"),
                                          "sessions")
                try:
                    hosts = sorted(os.listdir(sessions))[:64]
                except OSError:
                    hosts = []
                for host in hosts:
                    read(posixpath.join(sessions, host, value + ".json"), _httpie_session)
    return [Word.literal(v) for v in found[:MAX_WORDS]]


def host_aliases(path_value: str | None, cwd: str | None, home: str) -> dict[str, str]:
    """glibc's HOSTALIASES file: alias -> the name it stands for (`gmeta metadata.google.internal`)."""
    path = _path(path_value or "", cwd, home)
    text = read_text(path, MAX_CONFIG_BYTES) if path else None
    out: dict[str, str] = {}
    for line in (text or "").splitlines()[:2000]:
        parts = line.split("#", 1)[0].split()
        if len(parts) >= 2:
            out[parts[0].lower()] = parts[1]
    return out
