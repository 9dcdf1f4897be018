"""guardtui run by the agent it guards, by any path: `guardtui`, /abs/bin/guardtui, a venv's
bin/guardtui, `python -m guardtui`, `pipx run guardtui`, `uvx guardtui`, a copy or link of its
launcher, and package managers asked to remove or replace it. The subcommand classes are data
(core/data/protect.yaml `commands`): read-only ones allow, starting a console asks, and what
changes the guard (trust, install, uninstall) denies: the person runs those themselves.
"""
from __future__ import annotations

import os
import posixpath
import re
from typing import TYPE_CHECKING

from ..model import BlastRadius
from ..protect import protect_data
from .findings import Finding, allow, ask, deny
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation

NAME = "guardtui"
# what a launcher of guardtui holds: pip's console script, a shell wrapper, or the hook's own command
_LAUNCHER = re.compile(rb"from guardtui\.cli import|guardtui\.cli:main|-m\s+guardtui\b|"
                       rb"guardtui[/\\](?:hook|cli|__main__)\.py")
SCRIPT = re.compile(r"(?:^|/)guardtui/(cli|__main__|hook)\.py$")  # python …/guardtui/cli.py
_SNIFF_BYTES = 4096
_HELP = frozenset({"--help", "-h"})
# uvx NAME, pipx run NAME, uv tool run NAME: options that take a value before NAME
_RUNNER_VALUES = frozenset({"--from", "--with", "--with-editable", "--with-requirements", "--python", "-p", "--spec",
                            "--index", "--index-url", "--default-index", "--extra-index-url", "--pip-args",
                            "--constraint", "--overrides", "--directory", "--project", "--env-file"})
_PACKAGE_CHANGES = frozenset({"install", "uninstall", "remove", "upgrade", "reinstall", "inject", "uninject", "add",
                              "rm", "update", "sync", "reinstall-all", "upgrade-all", "uninstall-all", "link", "unlink",
                              "switch", "pin", "unpin"})
_PACKAGE_MANAGERS = frozenset({"pip", "pip3", "pipx", "uv", "brew", "conda", "mamba", "micromamba", "pdm", "poetry",
                               "rye", "hatch", "pipenv", "apt", "apt-get", "dnf", "yum", "pacman", "nix-env", "port"})


def guardtui_words(inv: "Invocation") -> tuple[list[Word], str] | None:
    """The arguments guardtui gets when `inv` runs it, and how it was reached; None: not guardtui."""
    name = posixpath.basename(inv.name).lstrip("=")  # zsh's =guardtui is guardtui's path
    if name == NAME or posixpath.basename(inv.written_name).lstrip("=") == NAME:
        return inv.words, inv.written_name or NAME
    if name in ("uvx", "pipx", "uv"):
        return _run_by_runner(name, inv.words)
    if "/" in inv.written_name and not inv.written_name.startswith(("http:", "https:")) and \
            is_launcher(_local(inv.written_name, inv)):
        return inv.words, inv.written_name
    copied = inv.scope.facts.get("copy-of:" + inv.written_name)  # install -m 755 ~/.local/bin/guardtui x && ./x
    if copied and is_launcher(_local(copied, inv)):
        return inv.words, f"{inv.written_name} (a copy of {copied})"
    shebang = _shebang(_local(inv.written_name, inv)) if "/" in inv.written_name else None
    if shebang:  # #!/home/dev/.local/bin/guardtui uninstall: the kernel runs `guardtui uninstall SCRIPT …`
        words = shebang[1:] if posixpath.basename(shebang[0]) == "env" else shebang
        if words and words[0] in ("-S",):
            words = words[1:]
        if words and posixpath.basename(words[0]) == NAME:
            return [Word.literal(w) for w in words[1:]] + [Word.literal(inv.written_name)] + list(inv.words), \
                f"{inv.written_name}'s #! line"
    return None


def _shebang(path: str | None) -> list[str] | None:
    if not path:
        return None
    try:
        with open(path, "rb") as fh:
            first = fh.read(256).split(b"\n", 1)[0]
    except OSError:
        return None
    return first[2:].decode("utf-8", "replace").split() if first.startswith(b"#!") else None


def _run_by_runner(name: str, words: list[Word]) -> tuple[list[Word], str] | None:
    values = [w.value for w in words]
    i = 0
    if name == "pipx":
        if not values or values[0] != "run":
            return None
        i = 1
    elif name == "uv":
        if values[:2] != ["tool", "run"]:
            return None
        i = 2
    spec = ""
    while i < len(values) and values[i].startswith("-"):
        option, eq, value = values[i].partition("=")
        if option in ("--from", "--spec"):
            spec = value if eq else (values[i + 1] if i + 1 < len(values) else "")
        i += 1 if eq or option not in _RUNNER_VALUES else 2
    if i >= len(values):
        return None
    tool = values[i]
    package = re.split(r"[=<>@\[ ~!]", tool, 1)[0]
    if posixpath.basename(package) == NAME or (NAME in spec and posixpath.basename(package) == NAME):
        return words[i + 1:], f"{name} {' '.join(values[:i + 1])}"
    return None


def _local(written: str, inv: "Invocation") -> str | None:
    if DYN in written:
        return None
    if written.startswith("~/"):
        return inv.scope.home.rstrip("/") + written[1:]
    if written.startswith("/"):
        return written
    return posixpath.join(inv.scope.cwd, written) if inv.scope.cwd else None


def is_launcher(path: str | None) -> bool:
    """Is the program at `path` (through links) guardtui: its console script, or a copy of one?"""
    if not path:
        return False
    try:
        real = os.path.realpath(path)
        if posixpath.basename(real) == NAME:
            return True
        if os.path.getsize(real) > 1024 * 1024:
            return False
        with open(real, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except OSError:
        return False
    return bool(_LAUNCHER.search(head))


def judge_guardtui(args: list[Word], how: str) -> list[Finding]:
    """guardtui with these arguments: allow what only reads, ask for a console, deny what changes the guard."""
    classes = protect_data().commands
    values = [w.value for w in args]
    sub = ""
    for v in values:
        if DYN in v:
            return [ask(f"{how} runs a guardtui subcommand known only at run time", "guard-self", BlastRadius.HIGH,
                        "self.dynamic")]
        if v in classes["read"]:  # --help, --version anywhere before the subcommand
            sub = v
            break
        if not v.startswith("-"):
            sub = v
            break
    shown = f"{how} {sub}".strip()
    options = values[:values.index("--")] if "--" in values else values
    if sub not in classes["read"] and any(v in _HELP for v in options):
        # `guardtui trust --help`: argparse prints the usage and exits before the subcommand runs
        return [allow(f"{shown} --help only prints its usage; it changes nothing", "read-only", rule="self.read")]
    if sub in classes["broker"]:
        return [deny(f"{shown} starts a second broker that takes the agents' calls and answers them with no one "
                     "watching the console: an agent may not stand one up; if you mean it, run it yourself in a "
                     "terminal", "guard-self", "self.broker")]
    if sub in classes["changes"]:
        return [deny(f"{shown} changes the guard itself (its hooks, trusted plugins or settings): an agent may "
                     "not; if you mean it, run it yourself in a terminal", "guard-self", "self.changes")]
    if sub in classes["read"]:
        return [allow(f"{shown} only reads or judges; it changes nothing", "read-only", rule="self.read")]
    if sub in classes["console"]:
        what = "a guardtui console" if sub in ("", "console", "demo") else f"guardtui {sub}"
        return [ask(f"{shown} starts {what}: another process that takes calls and answers them", "guard-self",
                    BlastRadius.MEDIUM, "self.console")]
    return [ask(f"{shown} is not a guardtui subcommand guardtui knows", "guard-self", BlastRadius.HIGH,
                "self.unknown")]


# programs that only print or search their words: `echo guardtui trust`, `grep -r "guardtui install" docs`
_ONLY_WORDS = frozenset({"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "man", "info", "which",
                         "whereis", "type", "command", "apropos", "whatis", "say", "figlet", "cowsay", "notify-send",
                         "ls", "stat", "file", "readlink", "realpath", "test", "["})


def guardtui_inside(inv: "Invocation") -> list[Finding]:
    """guardtui's own subcommands named anywhere in a command's words, whatever runs them (a wrapper guardtui
    does not know, a debugger, a clock faker, a sandbox escape): `X … guardtui trust F`, `X … python3 -m guardtui
    uninstall`, `X … /abs/bin/guardtui install`. What would change the guard denies; the rest is left to the
    program's own judgement (nothing here allows)."""
    if posixpath.basename(inv.name) in _ONLY_WORDS:
        return []
    words = list(inv.words)
    for i, w in enumerate(words):
        value = w.value
        after: list[Word] | None = None
        if posixpath.basename(value).lstrip("=") == NAME or SCRIPT.search(value):
            after = words[i + 1:]
        elif value == "-m" and i + 1 < len(words) and words[i + 1].value in (NAME, NAME + ".cli", NAME + ".__main__"):
            after = words[i + 2:]
        elif value in ("-m" + NAME, "-m" + NAME + ".cli"):
            after = words[i + 1:]
        if after is None:
            continue
        found = [f for f in judge_guardtui(after, f"{posixpath.basename(inv.name)} … {NAME}")
                 if f.verdict.value == "deny"]
        if found:
            return found
    return []


def package_change(inv: "Invocation") -> list[Finding]:
    """`pip uninstall guardtui`, `pipx inject guardtui x`, `uv tool install --force guardtui@0.1`:
    removing or replacing the installed guard (or what it imports) is the person's call."""
    if posixpath.basename(inv.name) not in _PACKAGE_MANAGERS:
        return []
    values = [w.value for w in inv.words]
    if not any(v in _PACKAGE_CHANGES for v in values[:3]):
        return []
    packages = protect_data().packages
    for v in values:
        if v.startswith("-"):
            continue
        package = re.split(r"[=<>@\[ ~!;]", v, 1)[0].lower()
        if posixpath.basename(package.rstrip("/")) in packages or package in packages:
            return [deny(f"{inv.name} {' '.join(values[:3])} … changes the installed guardtui (the code its hooks "
                         "run): an agent may not; if you mean it, run it yourself in a terminal", "guard-self",
                         "self.package")]
    return []


__all__ = ["guardtui_words", "guardtui_inside", "judge_guardtui", "package_change", "is_launcher"]
