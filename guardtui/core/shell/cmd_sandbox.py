"""Sandboxes and mounts on this machine: apptainer/singularity, flatpak, bwrap, proot, multipass, incus/lxc,
and FUSE or rclone mounts.

A sandbox that sees the home (apptainer binds it by default, `flatpak run --filesystem=home`, `bwrap --bind / /`)
runs its command against this machine's files: the command is judged with the sandbox's paths mapped back to
the host's. One that confines it (`apptainer --containall`, a bwrap without the home) maps only what is bound;
the rest lives inside. A tmpfs or another directory mounted over a path hides what is there, for the programs
inside (a nested agent without its hook settings) or, for a FUSE mount, for everyone: judged as that path
moved away. The options each tool has are data (taxonomy.yaml `sandboxes`, `mount_points`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import posixpath

from .findings import Finding, allow, ask, deny
from ..model import BlastRadius
from ..protect import agent_of_program, cuts_network
from .parse import SimpleCommand
from .mounts import host_path, to_host
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run


def sandbox(run: "Run", inv: "Invocation") -> list[Finding]:
    spec = run.tax.sandboxes.get(inv.name)
    if spec is None:
        return []
    style = spec["style"]
    words = inv.words
    if style == "vm":
        return _vm(run, inv, spec)
    if spec.get("subcommands"):
        verb = next((w.value for w in words if not w.value.startswith("-")), "")
        if verb not in spec["subcommands"]:
            return []
        words = words[[w.value for w in words].index(verb) + 1:]
    values = set(spec.get("value_options", ()))
    pairs = set(spec.get("pair_options", ()))
    binds = set(spec.get("bind_options", ()))
    hides = set(spec.get("hide_options", ()))
    confining = set(spec.get("confine_flags", ()))
    home_options = set(spec.get("home_options", ()))
    chdirs = set(spec.get("chdir_options", ()))
    commands = set(spec.get("command_options", ()))
    mounts: list[tuple[str, str, bool]] = []  # (inside, host, read-only)
    hidden: list[str] = []
    home_seen = bool(spec.get("home_default"))
    workdir: str | None = None
    command_word: Word | None = None
    i = 0
    while i < len(words):
        w = words[i]
        a = w.value
        if a == "--":
            i += 1
            break
        if not a.startswith("-"):
            break
        name, eq, attached = a.partition("=")
        if name in pairs and i + 2 < len(words):  # bwrap --bind SRC DEST
            src, dest = words[i + 1].value, words[i + 2].value
            _bind(inv, mounts, hidden, src, dest, read_only="ro" in name)
            i += 3
            continue
        value = attached if eq else (words[i + 1].value if name in values and i + 1 < len(words) else "")
        if name in confining:
            home_seen = False
        elif name in home_options:
            home_seen = home_seen or value in spec.get("home_values", ()) or \
                value.rstrip("/").removeprefix("~") == "" or host_path(value.split(":")[0], inv) == inv.scope.home
            if value.startswith(("/", "~")):
                host = host_path(value.split(":")[0], inv)
                mounts.append((host, host, value.endswith(":ro")))
        elif name in binds and value:
            for part in value.split(","):
                src, _, rest = part.partition(":")
                dest = rest.split(":")[0] or src
                _bind(inv, mounts, hidden, src, dest, read_only=rest.endswith(":ro"))
        elif name in hides and value:
            hidden.append(host_path(value, inv))
        elif name in chdirs and value:
            workdir = value
        elif name in commands and value:
            command_word = Word(value, value)
        i += 1 if (eq or name not in values) else 2
    rest = words[i:]
    if spec.get("image") and rest:  # apptainer exec IMAGE CMD…, flatpak run APP ARGS…
        rest = rest[1:]
    if command_word is not None:
        rest = [command_word] + list(rest)
    home = inv.scope.home.rstrip("/")
    shared = [host for inside, host, _ in mounts if inside == host]
    for path in hidden:  # a tmpfs or another tree over it: for what runs inside, what was there is gone
        # (where the agents' settings live: in the home; a scratch tmpfs above the project re-bound is no hide)
        if not (path == home or path.startswith(home + "/")) or \
                any(h != path and h.startswith(path.rstrip("/") + "/") for h in shared):
            continue
        run.effect(path, path, "move", inv.cmd, recursive=True, detail="mentioned")
    if home_seen:
        mounts.append((inv.scope.home, inv.scope.home, False))
        if spec.get("binds_cwd") and inv.scope.cwd:
            mounts.append((inv.scope.cwd, inv.scope.cwd, False))
    for _, host, read_only in mounts:
        if not read_only and host != "/":
            run.effect(host, host, "write", inv.cmd, detail="mentioned", members=("*",))
    if not rest:
        return [ask(f"{inv.name} starts a sandbox whose program is not named here", "container", BlastRadius.MEDIUM,
                    "sandbox.run")]
    cut = cuts_network(inv.name, [w.value for w in words[:i]])
    program = posixpath.basename(rest[0].value)
    if cut and agent_of_program(program) is not None:  # bwrap --unshare-net claude: its HTTP hooks fail open
        return [deny(f"{inv.name} {cut} starts {program} without this machine's network: its hooks cannot reach the "
                     "console, and a hook that cannot connect lets the call through: an agent may not start another "
                     "one unguarded; if you mean it, run it yourself in a terminal", "guard-self", "agent.unguarded")]
    _judge_inside(run, inv, rest, mounts, workdir, label=inv.name)
    return [_inside(inv)]


def _bind(inv: "Invocation", mounts: list, hidden: list, src: str, dest: str, read_only: bool) -> None:
    if not src or not dest or DYN in src + dest:
        return
    host_src, host_dest = host_path(src, inv), host_path(dest, inv)
    mounts.append((host_dest, host_src, read_only))
    if host_src != host_dest:  # another directory mounted over DEST hides what DEST holds
        hidden.append(host_dest)


def _judge_inside(run: "Run", inv: "Invocation", rest: list[Word], mounts: list, workdir: str | None,
                  label: str, remote: bool = False) -> None:
    """The sandbox's command, judged on this machine when the sandbox sees its files (the root or the home
    bound, a path mapped); else as on another machine."""
    pairs = [(inside, host) for inside, host, _ in mounts]
    command = [to_host(w, pairs) for w in rest]
    cwd = to_host(Word(workdir, workdir), pairs).value if workdir else None
    shared = {host for inside, host in pairs if inside == host}
    visible = "/" in shared or inv.scope.home in shared or any(m is not w for m, w in zip(command, rest)) or \
        (cwd is not None and (cwd != workdir or any(cwd == h or cwd.startswith(h + "/") for h in shared)))
    if visible and not remote:
        scope = inv.scope.copy()
        if cwd is not None:
            scope.cwd = cwd
    else:
        scope = Scope(workdir, "/root", {}, set(), remote=True)
    child = SimpleCommand(command, " ".join(w.display() for w in rest), inv.cmd.span, scope,
                          f"{inv.cmd.via} › {label}" if inv.cmd.via else label, depth=inv.cmd.depth + 1)
    run.judge(child, inv.cmd.depth + 1)


def _vm(run: "Run", inv: "Invocation", spec: dict) -> list[Finding]:
    """multipass mount SRC VM:DEST, incus config device add VM NAME disk source=SRC path=DEST, then
    `… exec VM -- CMD`: CMD is judged with the mounts made earlier in the same command line mapped back."""
    words = [w.value for w in inv.words]
    known = run.vm_mounts.setdefault(inv.name, {})
    positionals = [w for w in words if not w.startswith("-")]
    verb = positionals[0] if positionals else ""
    if verb == "mount" and len(positionals) >= 3:  # multipass mount SRC VM[:DEST]
        src = host_path(positionals[1], inv)
        vm, _, dest = positionals[2].partition(":")
        known.setdefault(vm, []).append((dest or src, src, False))
        run.effect(src, src, "write", inv.cmd, detail="mentioned", members=("*",))
        return [ask(f"{inv.name} mount shares {src} with the machine {vm}: what runs there may change it",
                    "container", BlastRadius.MEDIUM, "sandbox.mount")]
    if positionals[:4] == ["config", "device", "add", positionals[3] if len(positionals) > 3 else ""] and \
            len(positionals) > 5:
        vm = positionals[3]
        fields = dict(p.partition("=")[::2] for p in positionals[5:] if "=" in p)
        if "source" in fields and "path" in fields and fields["source"].startswith(("/", "~", ".")):
            src = host_path(fields["source"], inv)
            known.setdefault(vm, []).append((fields["path"], src, fields.get("readonly") in ("true", "1")))
            run.effect(src, src, "write", inv.cmd, detail="mentioned", members=("*",))
            return [ask(f"{inv.name} config device add shares {src} with {vm}: what runs there may change it",
                        "container", BlastRadius.MEDIUM, "sandbox.mount")]
        return []
    if verb in ("exec", "shell") and "--" in words:
        vm = positionals[1] if len(positionals) > 1 else ""
        rest = inv.words[words.index("--") + 1:]
        if rest:
            _judge_inside(run, inv, rest, known.get(vm, []), None, f"{inv.name} exec", remote=not known.get(vm))
            return [_inside(inv)]
    return []


def _inside(inv: "Invocation") -> Finding:
    return allow(f"{inv.name} runs a command judged as it is, with the sandbox's paths mapped to this machine's",
                 "container", rule="sandbox.run")


def mount_point(run: "Run", inv: "Invocation") -> list[Finding]:
    """rclone mount SRC DIR, sshfs HOST:P DIR, bindfs SRC DIR, squashfuse IMG DIR …: DIR's contents are hidden
    behind the mount for every program (an empty mount over ~/.cursor takes Cursor's hooks away)."""
    spec = run.tax.mount_points.get(inv.name)
    if spec is None:
        return []
    words = inv.words
    if spec.get("subcommands"):
        verb = next((w.value for w in words if not w.value.startswith("-")), "")
        if verb not in spec["subcommands"]:
            return []
    values = set(spec.get("value_options", ()))
    operands: list[Word] = []
    i = 0
    while i < len(words):
        a = words[i].value
        if a in values:
            i += 2
            continue
        if not a.startswith("-"):
            operands.append(words[i])
        i += 1
    if spec.get("subcommands"):
        operands = operands[1:]
    at = spec.get("position", 2) - 1
    if at >= len(operands):
        return []
    point = operands[at]
    run.effect(run.path(point, inv).path, point.display(), "move", inv.cmd, recursive=True)
    return [ask(f"{inv.name} mounts over {point.display()}, hiding what is there", "disk", BlastRadius.MEDIUM,
                "sandbox.mount")]
