"""PowerShell (`pwsh -c '…'`, a .ps1 file) read as the shell commands it amounts to, so the shell analysis
judges it: `Remove-Item -Recurse -Force ~/.cursor` is `rm -r -f ~/.cursor`, `Invoke-WebRequest -Uri U
-OutFile F` is `curl -o F U`, `iex (iwr U)` runs downloaded code. Cmdlets that only read become no-ops;
a cmdlet not known here stays a command the shell analysis does not know (it asks); an external program
(`git status`, `& ./build.sh`) is itself."""
from __future__ import annotations

import base64
import re
import shlex

from .statements import split_statements

_SEPARATORS = ";\n|{}"  # script-block braces end a statement too

# cmdlets (and their aliases) that only read or print: nothing to judge
_READS = {
    "get-childitem", "gci", "ls", "dir", "get-content", "gc", "cat", "type", "get-item", "gi", "get-itemproperty",
    "gp", "get-location", "pwd", "gl", "test-path", "resolve-path", "rvpa", "join-path", "split-path",
    "select-string", "sls", "measure-object", "measure", "sort-object", "sort", "select-object", "select",
    "where-object", "where", "?", "format-table", "ft", "format-list", "fl", "format-wide", "fw", "out-string",
    "out-host", "oh", "out-null", "write-output", "echo", "write", "write-host", "write-verbose", "write-warning",
    "write-error", "write-debug", "write-information", "get-date", "get-command", "gcm", "get-help", "help",
    "get-process", "ps", "gps", "get-service", "gsv", "get-variable", "gv", "get-member", "gm", "compare-object",
    "compare", "diff", "convertto-json", "convertfrom-json", "convertto-csv", "convertfrom-csv", "convertto-xml",
    "get-filehash", "get-acl", "get-host", "get-module", "gmo", "get-psdrive", "gdr", "get-uptime",
    "group-object", "group", "tee-object", "start-sleep", "sleep", "get-random", "out-gridview", "ogv",
    "get-history", "h", "history", "get-alias", "gal", "import-csv", "ipcsv", "get-unique", "gu",
    "set-strictmode", "test-connection", "test-json", "get-computerinfo", "get-culture", "get-timezone",
}
_REMOVE = {"remove-item", "rm", "del", "erase", "rd", "rmdir", "ri"}
_COPY = {"copy-item", "cp", "copy", "cpi"}
_MOVE = {"move-item", "mv", "move", "mi"}
_RENAME = {"rename-item", "ren", "rni"}
_WRITE = {"set-content": ">", "sc": ">", "out-file": ">", "add-content": ">>", "ac": ">>"}
_CLEAR = {"clear-content", "clc"}
_NEW = {"new-item", "ni", "mkdir", "md"}
_WEB = {"invoke-webrequest", "iwr", "curl", "wget", "invoke-restmethod", "irm"}
_EVAL = {"invoke-expression", "iex"}
_START = {"start-process", "saps", "start"}
_STOP = {"stop-process", "kill", "spps"}
_CD = {"set-location", "cd", "sl", "chdir", "push-location", "pushd"}
_SWITCHES = {"recurse", "force", "append", "noclobber", "passthru", "wait", "confirm", "whatif", "usebasicparsing",
             "nonewline", "container", "verbose", "skipcertificatecheck"}
_VERB_NOUN = re.compile(r"^[A-Za-z]+-[A-Za-z]+$")
_ENV = re.compile(r"\$env:(\w+)", re.I)


def powershell_as_shell(code: str) -> tuple[str, list[str]]:
    """The shell script the PowerShell `code` amounts to, one command per line, and the cmdlets in it
    that are not known here (what they do is not known: they ask)."""
    code = _decoded(code) or code
    lines: list[str] = []
    for statement in split_statements(code, separators=_SEPARATORS):
        lines.extend(_translate(statement))
    unknown = [line.split()[0] for line in lines if line and _VERB_NOUN.match(line.split()[0])]
    return "\n".join(line for line in lines if line), unknown


def _decoded(code: str) -> str | None:
    """-EncodedCommand's text: base64 of UTF-16LE."""
    text = code.strip()
    if not text or " " in text or len(text) % 4 or not re.fullmatch(r"[A-Za-z0-9+/=]+", text):
        return None
    try:
        decoded = base64.b64decode(text).decode("utf-16-le")
    except (ValueError, UnicodeDecodeError):
        return None
    return decoded if decoded.isprintable() or "\n" in decoded else None



def _words(statement: str) -> list[str]:
    statement = _ENV.sub(r"$\1", statement.replace("`", "\\"))
    statement = re.sub(r"\(\s*(?:invoke-webrequest|iwr|invoke-restmethod|irm|curl|wget)\b([^)]*)\)",
                       lambda m: "__FETCH__" + m.group(1).strip().split()[-1] if m.group(1).strip() else "__FETCH__",
                       statement, flags=re.I)
    try:
        words = shlex.split(statement, posix=True)
    except ValueError:
        words = statement.split()
    out: list[str] = []
    for word in words:  # `a, b` lists: each item its own word
        if "," in word and not word.startswith("-"):
            out.extend(part for part in word.split(",") if part)
        else:
            out.append(word)
    return out


def _parameters(words: list[str]) -> tuple[dict[str, str], set[str], list[str]]:
    """Named parameters (lower-case, no dash), switches, positional words."""
    named: dict[str, str] = {}
    switches: set[str] = set()
    positional: list[str] = []
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-") and len(word) > 1 and not word[1].isdigit():
            name, _, attached = word[1:].partition(":")
            name = name.lower()
            if attached:
                named[name] = attached
            elif name not in ("path", "p") and any(s.startswith(name) for s in _SWITCHES):
                switches.add(next(s for s in _SWITCHES if s.startswith(name)))
            elif i + 1 < len(words):
                named[name] = words[i + 1]
                i += 1
        else:
            positional.append(word)
        i += 1
    return named, switches, positional


def _named(named: dict[str, str], *names: str) -> str | None:
    for key, value in named.items():
        if any(n.startswith(key) or key.startswith(n) for n in names) and len(key) >= 2:
            return value
    return None


def _q(words) -> str:
    return " ".join(shlex.quote(w) if not w.startswith(("$", "~")) else w for w in words)


def _translate(statement: str) -> list[str]:
    if statement.startswith("&") or statement.startswith("."):  # `& prog args`: call an external program
        statement = statement[1:].strip()
    inner = re.match(r"^\$?\(\s*([^()]*)\s*\)(?:\.\w+(?:\(\))?|\[\d+\])*$", statement)
    if inner:  # `(Import-Csv x).Count`: the expression in parentheses is what runs, the member only reads
        return _translate(inner.group(1).strip())
    words = _words(statement)
    if not words:
        return []
    head, rest = words[0], words[1:]
    name = head.lower()
    if name.startswith("$"):  # `$x = …`: an assignment, its right side judged; `$PSVersionTable`: printed
        _, equals, value = statement.partition("=")
        return _translate(value.strip()) if equals else [":"]
    if name in _READS:
        return [":"]
    named, switches, positional = _parameters(rest)
    if "whatif" in switches:  # a dry run: it says what it would do
        return [":"]
    if name in _REMOVE:
        targets = [v for v in (_named(named, "path", "literalpath"),) if v] + positional
        flags = ("-r " if "recurse" in switches else "") + ("-f " if "force" in switches else "")
        return [f"rm {flags}-- {_q(targets or ['$PIPELINE_INPUT'])}"]
    if name in _COPY or name in _MOVE:
        source = _named(named, "path", "literalpath") or (positional.pop(0) if positional else "$PIPELINE_INPUT")
        dest = _named(named, "destination") or (positional[0] if positional else ".")
        verb = "cp -r" if name in _COPY and "recurse" in switches else "cp" if name in _COPY else "mv"
        return [f"{verb} -- {_q([source, dest])}"]
    if name in _RENAME:
        source = _named(named, "path", "literalpath") or (positional.pop(0) if positional else "$PIPELINE_INPUT")
        new = _named(named, "newname") or (positional[0] if positional else "renamed")
        directory = source.rsplit("/", 1)[0] + "/" if "/" in source else ""
        return [f"mv -- {_q([source, directory + new])}"]
    if name in _WRITE:
        path = _named(named, "path", "literalpath", "filepath") or (positional.pop(0) if positional else "")
        value = _named(named, "value", "inputobject") or " ".join(positional)
        redirect = ">>" if _WRITE[name] == ">>" or "append" in switches else ">"
        return [f"printf %s {shlex.quote(value)} {redirect} {_q([path or '$PIPELINE_OUTPUT'])}"]
    if name in _CLEAR:
        path = _named(named, "path", "literalpath") or (positional[0] if positional else "$PIPELINE_INPUT")
        return [f": > {_q([path])}"]
    if name in _NEW:
        path = _named(named, "path", "name") or (positional[0] if positional else "")
        kind = (_named(named, "itemtype", "type") or ("directory" if name in ("mkdir", "md") else "file")).lower()
        target = _named(named, "target", "value")
        if kind in ("symboliclink", "hardlink", "junction") and target:
            return [f"ln {'-s ' if kind != 'hardlink' else ''}-f -- {_q([target, path])}"]
        if kind == "directory":
            return [f"mkdir -p -- {_q([path])}"]
        if target:
            return [f"printf %s {shlex.quote(target)} > {_q([path])}"]
        return [f"touch -- {_q([path])}"]
    if name in _WEB:
        uri = _named(named, "uri") or (positional[0] if positional else "")
        parts = ["curl", "-sS"]
        method = _named(named, "method")
        if method:
            parts += ["-X", method.upper()]
        body = _named(named, "body")
        if body:
            parts += ["--data", body]
        infile = _named(named, "infile")
        if infile:
            parts += ["-T", infile]
        out = _named(named, "outfile")
        if out:
            parts += ["-o", out]
        for header in re.findall(r"['\"]?([\w-]+)['\"]?\s*=\s*['\"]([^'\"]*)['\"]", _named(named, "headers") or ""):
            parts += ["-H", f"{header[0]}: {header[1]}"]
        return [_q(parts + [uri])]
    if name in _EVAL:
        argument = _named(named, "command") or " ".join(positional)
        fetched = re.match(r"__FETCH__(\S*)", argument)
        if fetched:  # iex (iwr URL): code downloaded and run
            return [f"curl -fsSL {_q([fetched.group(1) or '$URL'])} | sh"]
        return [line for statement in split_statements(argument, separators=_SEPARATORS)
                for line in _translate(statement)]
    if name in _START:
        program = _named(named, "filepath") or (positional.pop(0) if positional else "")
        arguments = _named(named, "argumentlist")
        return [f"{_q([program])} {arguments or _q(positional)}".strip()]
    if name in _STOP:
        target = _named(named, "name") or _named(named, "id") or (positional[0] if positional else "")
        return [f"pkill -x {_q([target])}" if not target.isdigit() else f"kill {target}"]
    if name in _CD:
        return [f"cd {_q([_named(named, 'path', 'literalpath') or (positional[0] if positional else '~')])}"]
    # an external program with its arguments, or a cmdlet not known here (powershell_as_shell names it)
    return [_q([head] + rest)]
