"""D-Bus method calls (gdbus call, busctl call, dbus-send) judged as the commands they amount to (data/dbus.yaml):
systemd's Manager.StopUnit is `systemctl stop`, StartTransientUnit runs its ExecStart argv as `systemd-run`
does. Reads (get-property, introspect, Get*/List*) allow; a method no service lists asks."""
from __future__ import annotations

import ast
import fnmatch
import posixpath
import re
import shlex
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..yamlfile import Field, check, load_yaml
from .findings import Finding, allow, ask

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_SERVICE = {"destination": Field(str, required=True), "methods": Field(dict, values=str),
            "reads": Field(list, items=str)}
SCHEMA = {"version": Field(int, required=True, choices=(1,)), "read_verbs": Field(dict, values=list),
          "services": Field(list, required=True, items=_SERVICE)}
MAX_ITEMS = 64


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("guardtui.core.data").joinpath("dbus.yaml").read_text(encoding="utf-8")
    return parse_dbus(text, "guardtui/core/data/dbus.yaml")


def parse_dbus(text: str, file: str = "dbus.yaml") -> dict:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return doc.data


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    call = _call(inv)
    if call is None:
        return []
    if call == "read":
        return [allow(f"{inv.name} only reads over D-Bus")]
    dest, path, method, args = call
    service = next((s for s in _data()["services"] if s["destination"] == dest), None)
    if service is None:
        return [ask(f"{inv.name} calls {method or '?'} on {dest or '?'} over D-Bus", "process")]
    if any(fnmatch.fnmatchcase(method, pattern) for pattern in service.get("reads") or ()):
        return [allow(f"{inv.name} calls {method}, which only reads")]
    template = (service.get("methods") or {}).get(method)
    if template is None:
        return [ask(f"{inv.name} calls {method} on {dest} over D-Bus", "process")]
    text = _transient(args) if template == "transient" else _fill(template, path, args)
    if text is None or "\x00" in text:
        return [ask(f"{inv.name} calls {method} with arguments that cannot be read", "process")]
    run.nested(text, inv, f"{inv.name} {method.rpartition('.')[2]}")
    return [allow(f"{inv.name} calls {method}, judged as `{text[:80]}`", "process")]


def _call(inv: "Invocation") -> "tuple[str, str, str, list] | str | None":
    """(destination, object path, Interface.Method, arguments) of a method call; "read" for a verb that reads."""
    words = [w.value for w in inv.words]
    reads = _data().get("read_verbs") or {}
    if inv.name == "gdbus":
        if not words or words[0] != "call":
            return "read" if words and words[0] in reads.get("gdbus", ()) else None
        opts, rest = _options(words[1:], {"-d", "--dest", "-o", "--object-path", "-m", "--method", "-a", "--address",
                                          "-t", "--timeout"}, permute=True)
        return (opts.get("-d") or opts.get("--dest") or "", opts.get("-o") or opts.get("--object-path") or "",
                opts.get("-m") or opts.get("--method") or "", [_gvariant(a) for a in rest])
    if inv.name == "busctl":
        _opts, rest = _options(words, {"-H", "--host", "-M", "--machine", "--address", "--timeout", "--match",
                                       "--destination"})
        if not rest:
            return "read"
        if rest[0] in reads.get("busctl", ()):
            return "read"
        if rest[0] != "call" or len(rest) < 5:
            return None
        dest, path, interface, method = rest[1:5]
        args = _busctl_args(rest[5], rest[6:]) if len(rest) > 5 else []
        return dest, path, f"{interface}.{method}", args if args is not None else [None]
    if inv.name == "dbus-send":
        opts, rest = _options(words, set())
        dest = next((w.split("=", 1)[1] for w in words if w.startswith("--dest=")), "")
        if len(rest) < 2:
            return None
        return dest, rest[0], rest[1], [_dbus_send_arg(a) for a in rest[2:]]
    return None


def _options(words: list[str], valued: set[str], permute: bool = False) -> tuple[dict[str, str], list[str]]:
    opts: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--" and permute:
            rest.extend(words[i + 1:])
            break
        if (rest and not permute) or not w.startswith("-") or re.fullmatch(r"-\d[\d.]*", w):
            rest.append(w)
        elif "=" in w:
            key, _, value = w.partition("=")
            opts[key] = value
        elif w in valued and i + 1 < len(words):
            opts[w] = words[i + 1]
            i += 1
        i += 1
    return opts, rest


def _gvariant(text: str):
    """A gdbus argument (GVariant text, else a plain string): strings and lists of them, as far as read here."""
    text = text.strip()
    if text[:1] in "[(<@":
        value = _gvariant_value(text)
        return value if value is not None else _strings(text)
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"" else text


_GV_TOKEN = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[<>]|@\S+|\b(?:true|false|u?int(?:16|32|64)|byte|"
                       r"objectpath|signature|handle|double|boolean|string)\b")
_GV_WORDS = {"<": "", ">": "", "true": "True", "false": "False"}


def _gvariant_value(text: str):
    """GVariant text as Python values (variants unwrapped, type annotations dropped); None when unreadable."""
    def swap(m: re.Match) -> str:
        token = m.group(0)
        return token if token[0] in "'\"" else _GV_WORDS.get(token, "")
    try:
        return ast.literal_eval(_GV_TOKEN.sub(swap, text))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _strings(text: str) -> list:
    return [a or b for a, b in re.findall(r"'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\"", text)]


def _dbus_send_arg(text: str):
    kind, _, value = text.partition(":")
    if kind in ("array", "dict"):
        return value.partition(":")[2].split(",")
    return value if _ else text


def _busctl_args(signature: str, words: list[str]) -> list | None:
    """busctl's arguments read by their signature: `ssa(sv)` takes 2 strings and an array of structs."""
    pos = [0]

    def take():
        if pos[0] >= len(words):
            raise ValueError
        pos[0] += 1
        return words[pos[0] - 1]

    def one(sig: str, i: int):
        c = sig[i]
        if c == "a":
            end = _end(sig, i + 1)
            count = int(take())
            if count > MAX_ITEMS:
                raise ValueError
            items = [one(sig, i + 1)[0] for _ in range(count)]
            return items, end
        if c == "(":
            end = _end(sig, i)
            fields, j = [], i + 1
            while j < end - 1:
                value, j = one(sig, j)
                fields.append(value)
            return tuple(fields), end
        if c == "{":
            end = _end(sig, i)
            key, j = one(sig, i + 1)
            value, _ = one(sig, j)
            return (key, value), end
        if c == "v":
            inner = take()
            value, _ = one(inner, 0)
            return value, i + 1
        return take(), i + 1

    try:
        out, i = [], 0
        while i < len(signature):
            value, i = one(signature, i)
            out.append(value)
        return out
    except (ValueError, IndexError):
        return None


def _end(sig: str, i: int) -> int:
    """The index after the complete type starting at sig[i]."""
    c = sig[i]
    if c == "a":
        return _end(sig, i + 1)
    if c in "({":
        depth, j = 0, i
        while j < len(sig):
            depth += sig[j] in "({"
            depth -= sig[j] in ")}"
            j += 1
            if depth == 0:
                return j
        raise ValueError
    return i + 1


def _flat(value) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [s for v in value for s in _flat(v)]
    return [str(value)]


def _fill(template: str, path: str, args: list) -> str | None:
    if any(a is None for a in args):
        return None
    unit = _unit_of(path)
    out = []
    for word in template.split():
        m = re.fullmatch(r"\{(\d+|unit)\}", word)
        if not m:
            out.append(word)
        elif m.group(1) == "unit":
            if not unit:
                return None
            out.append(shlex.quote(unit))
        else:
            index = int(m.group(1)) - 1
            if index >= len(args):
                return None
            out.extend(shlex.quote(s) for s in _flat(args[index])[:MAX_ITEMS])
    return " ".join(out)


def _unit_of(path: str) -> str:
    """The unit an object path names: /org/freedesktop/systemd1/unit/guardtui_2eservice is guardtui.service."""
    if not path.startswith("/org/freedesktop/systemd1/unit/"):
        return ""
    name = path.rsplit("/", 1)[1]
    return re.sub(r"_([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), name)


def _transient(args: list) -> str | None:
    """StartTransientUnit(name, mode, properties, aux): the command its ExecStart runs, where it runs it."""
    if len(args) < 3 or not isinstance(args[2], list):
        return None
    commands: list[list[str]] = []
    workdir = ""
    for prop in args[2]:
        if not isinstance(prop, tuple) or len(prop) != 2:
            return None
        key, value = prop
        if key in ("ExecStart", "ExecStartPre", "ExecStartPost", "ExecStop", "ExecStopPost", "ExecReload",
                   "ExecCondition"):
            for entry in value if isinstance(value, list) else []:
                if isinstance(entry, tuple) and len(entry) >= 2 and isinstance(entry[1], list):
                    argv = [str(entry[0])] + [str(a) for a in entry[1][1:]]
                    commands.append(argv)
                else:
                    return None
        elif key == "WorkingDirectory" and isinstance(value, str):
            workdir = value.lstrip("!-")
    if not commands:
        return None
    run = " && ".join(shlex.join(argv) for argv in commands)
    # a user unit starts in the home unless told otherwise
    where = shlex.quote(workdir) if workdir and workdir != "~" and posixpath.isabs(workdir) else "~"
    return f"cd {where} && {run}"
