"""What editors' and container managers' start-up files run, as shell text (later_kinds.py's kinds `vim`,
`kak`, `ide-watchers`, `quadlet`):

- Vim/Neovim (vimscript and Lua plugin files, lazy.nvim's project .lazy.lua): the programs started through
  system()/jobstart()/vim.system() in either spelling (a string or a list of words), and the files deleted,
  renamed or written through the editor's own functions (os.remove, vim.fn.delete(…, 'rf'), vim.uv.fs_unlink,
  os.rename, writefile, io.open(…, 'w')) as the rm/mv/write commands they amount to;
- Kakoune (kakrc, autoload): every %sh{…} block, which the shell runs when the command around it runs;
- JetBrains File Watchers (.idea/watcherTasks.xml): the program and arguments run on every saved file;
- Podman quadlets (*.container): the container's Exec, with the host directories it mounts put back where
  the container sees them (`Volume=%h:/host` then `rm -rf /host/.gemini` deletes ~/.gemini).

Nothing here judges."""
from __future__ import annotations

import posixpath
import re
import shlex

from ..shell.statements import top_level_commas

_WORDS_CALL = re.compile(r"""(?:vim\.fn\.system(?:list)?|vim\.fn\.jobstart|vim\.fn\.termopen|vim\.system|"""
                         r"""vim\.fn\.systemlist|jobstart|termopen|system|systemlist|job_start)\s*\(\s*[\[{]"""
                         r"""(?P<a>[^\]}]*)[\]}]""")
_QUOTED = re.compile(r"""'((?:[^'\\\n]|\\.)*)'|"((?:[^"\\\n]|\\.)*)"|\[\[(.*?)\]\]""", re.S)
# a path as a Lua/vimscript expression: a literal, optionally wrapped in expand()/fnamemodify()/vim.fs.normalize(),
# or $HOME / os.getenv('HOME') / vim.env.HOME / vim.loop.os_homedir() joined with a literal
_STRING = r"""(?:'[^'\n]*'|"[^"\n]*")"""
_HOME = r"""(?:os\.getenv\s*\(\s*['"]HOME['"]\s*\)|vim\.env\.HOME|vim\.(?:loop|uv)\.os_homedir\s*\(\s*\)|\$HOME|""" \
        r"""vim\.fn\.expand\s*\(\s*['"](?:~|\$HOME)['"]\s*\))"""
_PATH = rf"""(?P<expr>(?:(?:vim\.fn\.)?expand|vim\.fs\.normalize|vim\.fn\.fnamemodify)\s*\(\s*{_STRING}[^)]*\)|""" \
        rf"""{_HOME}\s*(?:\.\.|\.)\s*{_STRING}|{_STRING})"""
_FILE_OPS = (  # (call, the command it amounts to; {p} is the path, {flags} what the call's flags make it)
    (re.compile(rf"""\bos\.remove\s*\(\s*{_PATH}"""), "rm -f {p}"),
    (re.compile(rf"""\b(?:vim\.(?:loop|uv)\.fs_unlink|vim\.(?:loop|uv)\.fs_rmdir)\s*\(\s*{_PATH}"""), "rm -rf {p}"),
    (re.compile(rf"""(?:\bvim\.fn\.|\bcall\s+|(?<![\w.]))delete\s*\(\s*{_PATH}\s*(?:,\s*(?P<f>['"][a-z]*['"]))?"""),
     "rm {flags} {p}"),
    (re.compile(rf"""\b(?:vim\.fn\.)?writefile\s*\(\s*[^,]+,\s*{_PATH}"""), "echo x > {p}"),
    (re.compile(rf"""\bio\.open\s*\(\s*{_PATH}\s*,\s*['"][wa]"""), "echo x > {p}"),
    (re.compile(rf"""\b(?:os\.rename|vim\.fn\.rename|vim\.(?:loop|uv)\.fs_rename)\s*\(\s*{_PATH}\s*,\s*"""
                rf"""(?P<to>{_STRING}|(?:(?:vim\.fn\.)?expand)\s*\(\s*{_STRING}\s*\)|{_HOME}\s*\.\.\s*{_STRING})"""),
     "mv -f {p} {to}"),
)


def vim_words_calls(text: str) -> list[str]:
    """system({'sh', '-c', '…'}) and the other list spellings of starting a program, as command lines (an
    element joined onto the home directory, `vim.fn.expand('~') .. '/x'`, as $HOME/x)."""
    out = []
    for m in _WORDS_CALL.finditer(text):
        words = []
        for element in _elements(m.group("a")):
            literal = "".join(a or b or c for a, b, c in _QUOTED.findall(element))
            if re.match(_HOME, element):
                literal = "".join(a or b or c for a, b, c in _QUOTED.findall(re.sub(_HOME, "", element, count=1)))
                words.append('"$HOME"' + shlex.quote(literal) if literal else '"$HOME"')
            elif re.fullmatch(rf"\s*{_PATH}\s*", element) and literal.startswith("~/"):
                words.append("~/" + shlex.quote(literal[2:]))
            elif literal or _QUOTED.search(element):
                words.append(shlex.quote(literal))
        if words:
            out.append(" ".join(words))
    return out


def _elements(text: str) -> list[str]:
    """A Lua table's or vimscript list's elements (commas inside strings and calls kept)."""
    return [e.strip() for e in top_level_commas(text) if e.strip()]


def vim_file_ops(text: str) -> list[str]:
    """The files a plugin deletes, renames or writes through the editor's functions, as shell commands."""
    out = []
    for pattern, template in _FILE_OPS:
        for m in pattern.finditer(text):
            path = _path(m.group("expr"))
            if not path:
                continue
            flags = m.groupdict().get("f") or ""
            to = _path(m.group("to")) if "to" in pattern.groupindex else ""
            out.append(template.format(p=path, to=to or "/dev/null",
                                       flags="-rf" if "r" in flags else "-f"))
    return out[:32]


def _path(expr: str | None) -> str:
    """A path expression as a shell word (~ and $HOME left to expand)."""
    if not expr:
        return ""
    home = re.match(_HOME, expr)
    literals = re.findall(r"""'([^'\n]*)'|"([^"\n]*)\"""", expr[home.end():] if home else expr)
    text = "".join(a or b for a, b in literals)
    if home:
        text = "$HOME" + ("" if text.startswith("/") else "/") + text
    if not text:
        return ""
    if text.startswith(("~/", "~")):
        return "~/" + shlex.quote(text[2:]) if text.startswith("~/") else "~"
    if text.startswith("$HOME"):
        return '"$HOME"' + shlex.quote(text[5:]) if text[5:] else '"$HOME"'
    return shlex.quote(text)


_KAK_OPEN = {"{": "}", "(": ")", "[": "]", "<": ">"}


def kak_shell_blocks(text: str) -> list[str]:
    """Every %sh{…} block of a Kakoune script (any of its delimiters; nested braces of the same kind kept whole)."""
    out = []
    for m in re.finditer(r"%sh(?P<o>[{(\[<|\"'])", text):
        opener = m.group("o")
        closer = _KAK_OPEN.get(opener, opener)
        depth, i = 1, m.end()
        while i < len(text) and depth:
            if text[i] == closer:
                depth -= 1
            elif text[i] == opener and opener != closer:
                depth += 1
            i += 1
        if depth == 0:
            out.append(text[m.end():i - 1].strip())
    return [c for c in out if c][:32]


_XML_OPTION = re.compile(r"""<option\s+name="(?P<n>[^"]+)"\s+value="(?P<v>[^"]*)"\s*/?>""")
_IDE_PROGRAMS = ("program", "COMMAND")
_IDE_ARGUMENTS = ("arguments", "PARAMETERS")


def ide_watcher_commands(text: str, project: str) -> list[str]:
    """Each JetBrains File Watcher (or external tool) as `PROGRAM ARGUMENTS`, the IDE's macros filled in: the
    project's directories with the project, the file a watcher is run for with a file name."""
    out = []
    for block in re.split(r"<TaskOptions\b|<tool\b", text)[1:]:
        options = {m.group("n"): _unxml(m.group("v")) for m in _XML_OPTION.finditer(block)}
        program = next((options[k] for k in _IDE_PROGRAMS if options.get(k)), "")
        if not program:
            continue
        arguments = next((options[k] for k in _IDE_ARGUMENTS if options.get(k)), "")
        command = f"{shlex.quote(_macros(program, project))} {_macros(arguments, project)}".strip()
        out.append(command)
    return out[:32]


def _macros(text: str, project: str) -> str:
    text = re.sub(r"\$(?:ProjectFileDir|PROJECT_DIR|ProjectDir|ContentRoot|SourcepathEntry)\$", project, text)
    text = re.sub(r"\$UserHome\$", "$HOME", text)
    return re.sub(r"\$\w+\$", "file", text)


def _unxml(text: str) -> str:
    return text.replace("&quot;", '"').replace("&apos;", "'").replace("&lt;", "<").replace("&gt;", ">") \
        .replace("&#10;", "\n").replace("&amp;", "&")


def quadlet_commands(text: str, home: str) -> list[str]:
    """A quadlet .container's Exec (and Entrypoint), with the host directories its Volume= lines mount put back
    where the container sees them; a command that touches no mounted directory stays in the container."""
    mounts: list[tuple[str, str]] = []
    commands: list[str] = []
    section = ""
    for line in text.splitlines():
        line = line.strip()
        header = re.match(r"^\[(\w+)\]", line)
        if header:
            section = header.group(1)
            continue
        key, eq, value = line.partition("=")
        if not eq or section != "Container":
            continue
        key, value = key.strip(), value.strip().replace("%h", home).replace("%u", posixpath.basename(home))
        if key in ("Volume", "Mount"):
            if key == "Mount":  # type=bind,source=…,destination=…
                fields = dict(f.partition("=")[::2] for f in value.split(","))
                source, target = fields.get("source") or fields.get("src"), fields.get("destination") or \
                    fields.get("target") or fields.get("dst")
            else:
                parts = value.split(":")
                source, target = (parts[0], parts[1]) if len(parts) >= 2 else (None, None)
            if source and target and source.startswith(("/", "~", "$")):
                source = re.sub(r"^(?:~|\$\{?HOME\}?)(?=/|$)", home, source)
                mounts.append((target.rstrip("/") or "/", source.rstrip("/") or "/"))
        elif key in ("Exec", "Entrypoint"):
            commands.append(value)
    mounts.sort(key=lambda m: -len(m[0]))
    out = []
    for command in commands:
        mapped = command
        for target, source in mounts:
            mapped = re.sub(re.escape(target) + r"""(?=/|$|[\s'";&|)])""", source, mapped)
        if mapped != command:
            out.append(mapped)
    return out[:16]
