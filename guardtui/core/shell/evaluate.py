"""What a command prints, when that can be known without running it.

Used for `$(…)` in words (`rm -rf "$(mktemp -d)"`, `$(echo L3Vzcg== | base64 -d)`) and
for the stdin of shells and interpreters (`echo … | base64 -d | sh`). Only commands whose
output follows from their words: echo, printf, pwd, mktemp, which, basename, dirname,
realpath, git rev-parse --show-toplevel, and the decoders base64 -d, base32 -d, rev, xxd -r -p.
`obfuscated` tells that the text had to be decoded to be read (an agent hiding what runs).
"""
from __future__ import annotations

import base64
import binascii
import posixpath
import re
from dataclasses import dataclass

from .words import DYN, TEMP_DIR, Scope, decode_ansi_c


MKTEMP_PREFIX = "/tmp/tmp.guardtui-"  # what `$(mktemp -d)` stands for: a fresh, empty temp path


@dataclass(frozen=True)
class Output:
    text: str
    obfuscated: bool = False


def static_output(args: list[str], stdin: Output | None, scope: Scope) -> Output | None:
    """args[0] is the command name; None when the output cannot be known."""
    if not args or any(DYN in a for a in args):
        return None
    name = posixpath.basename(args[0])
    rest = args[1:]
    handler = _HANDLERS.get(name)
    return handler(rest, stdin, scope) if handler else None


def _echo(args: list[str], stdin, scope) -> Output:
    interpret = False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        interpret = "e" in args[0] or (interpret and "E" not in args[0])
        args = args[1:]
    text = " ".join(args)
    if interpret and "\\" in text:
        return Output(decode_ansi_c(text), obfuscated=bool(re.search(r"\\(x|[0-7]|u)", text)))
    return Output(text)


_PRINTF_SPEC = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?([sbdicqu]))")


def _printf(args: list[str], stdin, scope) -> Output | None:
    """printf FORMAT ARGS: the format is applied to as many arguments as it has conversions, and
    again while arguments remain (`printf 'rm -%s %s' rf /` prints `rm -rf /`)."""
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        return None
    fmt, rest = args[0], args[1:]
    obfuscated = bool(re.search(r"\\(x|[0-7]|u)", fmt))
    fmt = decode_ansi_c(fmt)
    if "%" not in fmt:
        return Output(fmt, obfuscated)
    specs = [m for m in _PRINTF_SPEC.finditer(fmt) if m.group(1) != "%"]
    if len(specs) != fmt.count("%") - 2 * fmt.count("%%"):
        return None  # a conversion we do not model
    out = []
    queue = list(rest)
    while True:
        def fill(m: re.Match) -> str:
            nonlocal obfuscated
            if m.group(1) == "%":
                return "%"
            token = queue.pop(0) if queue else ""
            if m.group(2) == "b":
                obfuscated |= bool(re.search(r"\\(x|[0-7]|u)", token))
                return decode_ansi_c(token)
            return token
        out.append(_PRINTF_SPEC.sub(fill, fmt))
        if not queue or not specs:
            break
    return Output("".join(out), obfuscated)


def _pwd(args, stdin, scope: Scope) -> Output | None:
    return Output(scope.cwd) if scope.cwd and not [a for a in args if a not in ("-L", "-P")] else None


def _mktemp(args, stdin, scope: Scope) -> Output | None:
    directory = TEMP_DIR
    template = ""
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-p", "--tmpdir") and i + 1 < len(args):
            directory = args[i + 1]
            i += 2
            continue
        if a.startswith("--tmpdir="):
            directory = a.partition("=")[2]
        elif not a.startswith("-"):
            template = a
        i += 1
    if "/" in template and "-t" not in args:
        base = template if template.startswith("/") else posixpath.join(scope.cwd or "", template)
        return Output(posixpath.normpath(base)) if base.startswith("/") else None
    if directory == TEMP_DIR:
        return Output(MKTEMP_PREFIX + (template.replace("X", "a") or "a"))
    return Output(posixpath.join(directory, template.replace("X", "a") or "tmp.a"))


def _which(args, stdin, scope) -> Output | None:
    names = [a for a in args if not a.startswith("-")]
    return Output(f"/usr/bin/{names[0]}") if len(names) == 1 and "/" not in names[0] else None


def _command(args, stdin, scope) -> Output | None:
    if args and args[0] in ("-v", "-V"):
        return _which(args[1:], stdin, scope)
    return None


def _basename(args, stdin, scope) -> Output | None:
    operands = [a for a in args if not a.startswith("-")]
    if not operands:
        return None
    name = posixpath.basename(operands[0].rstrip("/")) or "/"
    if len(operands) == 2 and name.endswith(operands[1]) and name != operands[1]:
        name = name[: -len(operands[1])]
    return Output(name)


def _dirname(args, stdin, scope) -> Output | None:
    operands = [a for a in args if not a.startswith("-")]
    return Output(posixpath.dirname(operands[0].rstrip("/")) or ".") if len(operands) == 1 else None


def _realpath(args, stdin, scope: Scope) -> Output | None:
    operands = [a for a in args if not a.startswith("-")]
    if len(operands) != 1 or (args and args[0] not in ("-f", "-e", "-m") and args[0].startswith("-")
                              and args[0] != operands[0]):
        return None
    path = operands[0]
    if not path.startswith("/"):
        if scope.cwd is None:
            return None
        path = posixpath.join(scope.cwd, path)
    return Output(posixpath.normpath(path))


def _git(args, stdin, scope: Scope) -> Output | None:
    if args == ["rev-parse", "--show-toplevel"] and scope.project:
        return Output(scope.project)
    return None


def _cat(args, stdin: Output | None, scope) -> Output | None:
    return stdin if not args or args == ["-"] else None


def _base64(args, stdin: Output | None, scope) -> Output | None:
    if stdin is None or not any(a in ("-d", "--decode", "-D") for a in args):
        return None
    try:
        raw = base64.b64decode(re.sub(r"\s+", "", stdin.text) + "===", validate=False)
    except (binascii.Error, ValueError):
        return None
    return Output(raw.decode("utf-8", "replace"), obfuscated=True)


def _base32(args, stdin: Output | None, scope) -> Output | None:
    if stdin is None or not any(a in ("-d", "--decode") for a in args):
        return None
    try:
        text = re.sub(r"\s+", "", stdin.text).upper()
        raw = base64.b32decode(text + "=" * (-len(text) % 8))
    except (binascii.Error, ValueError):
        return None
    return Output(raw.decode("utf-8", "replace"), obfuscated=True)


def _rev(args, stdin: Output | None, scope) -> Output | None:
    if stdin is None or args:
        return None
    return Output("\n".join(line[::-1] for line in stdin.text.split("\n")), obfuscated=True)


def _xxd(args, stdin: Output | None, scope) -> Output | None:
    if stdin is None or not ("-r" in args and "-p" in args or "-rp" in args or "-pr" in args):
        return None
    try:
        return Output(bytes.fromhex(re.sub(r"\s+", "", stdin.text)).decode("utf-8", "replace"), obfuscated=True)
    except ValueError:
        return None


def _tr(args, stdin: Output | None, scope) -> Output | None:
    """tr SET1 SET2 with ranges (ROT13 and friends); tr -d SET."""
    if stdin is None:
        return None
    if args[:1] == ["-d"] and len(args) == 2:
        drop = set(_tr_set(args[1]))
        if not drop:
            return None
        return Output("".join(c for c in stdin.text if c not in drop), stdin.obfuscated)
    if len(args) != 2 or any(a.startswith("-") for a in args):
        return None
    src, dst = _tr_set(args[0]), _tr_set(args[1])
    if not src or not dst:
        return None
    dst = dst + dst[-1] * (len(src) - len(dst))
    table = str.maketrans(dict(zip(src, dst)))
    return Output(stdin.text.translate(table), obfuscated=True)


_TR_CLASSES = {
    "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "lower": "abcdefghijklmnopqrstuvwxyz", "digit": "0123456789",
    "alpha": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "xdigit": "0123456789ABCDEFabcdef", "blank": " \t", "space": " \t\n\v\f\r",
}
_TR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "v": "\v", "f": "\f", "a": "\a", "b": "\b"}


def _tr_set(spec: str) -> str:
    """A tr set spelled out: ranges, character classes ([:upper:] …) and backslash escapes. Anything
    else tr gives a meaning of its own ([=c=], [c*n], octal escapes) is not guessed at: "" (unknown),
    and the command's output is then unknown rather than wrong."""
    out, i = [], 0
    while i < len(spec):
        if spec.startswith("[:", i):
            end = spec.find(":]", i + 2)
            name = spec[i + 2:end] if end > 0 else ""
            if name not in _TR_CLASSES:
                return ""
            out.extend(_TR_CLASSES[name])
            i = end + 2
        elif spec.startswith(("[=", "[", "\\0", "\\1", "\\2", "\\3"), i) and (spec[i] == "[" or spec[i + 1:i + 2].isdigit()):
            return ""
        elif spec[i] == "\\" and i + 1 < len(spec):
            if spec[i + 1] not in _TR_ESCAPES:
                return ""
            out.append(_TR_ESCAPES[spec[i + 1]])
            i += 2
        elif i + 2 < len(spec) and spec[i + 1] == "-":
            if ord(spec[i + 2]) < ord(spec[i]):
                return ""
            out.extend(chr(c) for c in range(ord(spec[i]), ord(spec[i + 2]) + 1))
            i += 3
        else:
            out.append(spec[i])
            i += 1
    return "".join(out)


_HANDLERS = {"echo": _echo, "tr": _tr, "printf": _printf, "pwd": _pwd, "mktemp": _mktemp, "which": _which,
             "command": _command, "type": None, "basename": _basename, "dirname": _dirname, "realpath": _realpath,
             "readlink": _realpath, "git": _git, "cat": _cat, "base64": _base64, "base32": _base32,
             "rev": _rev, "xxd": _xxd}
_HANDLERS = {k: v for k, v in _HANDLERS.items() if v is not None}
