"""Commands that delete, move, write or change files: their flags parsed as the tools do."""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shlex
import zipfile
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..secrets import secret_catalog
from .deletes import DELETERS, FIND_FILTERS, empties_files, find_delete
from .findings import REPLACES, Finding, allow, ask, deny, with_rule, worst
from .parse import SimpleCommand
from .patches import patch_targets, read_patch
from .projectfiles import read_text
from .paths import PathKind, classify, describe, glob_members, write_finding
from .secrets import is_secret, is_secret_area, read_reason, reads_secret
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run


def parse_gnu(words: list[Word], short_flags: str, short_values: str, long_flags: tuple[str, ...],
              long_values: tuple[str, ...]):
    """GNU-style option parsing: clusters (-rf), values (-t DIR, -tDIR, --target=DIR), unique
    long prefixes (--recur), `--`. Returns (flags, values, operands, unknown_words).

    unknown_words are words known only at run time, before `--`: they may be options too.
    """
    flags: set[str] = set()
    values: dict[str, list[str]] = {}
    operands: list[Word] = []
    maybe_flags: list[Word] = []
    i = 0
    ended = False
    while i < len(words):
        word = words[i]
        arg = word.value
        if ended or arg == "-" or not arg.startswith("-"):
            if not ended and word.dynamic and arg.startswith(DYN):
                maybe_flags.append(word)
            operands.append(word)
            i += 1
            continue
        if arg == "--":
            ended = True
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, value = arg[2:].partition("=")
            full = _long(name, long_flags + long_values)
            if full is None:
                flags.add("--" + name)
            elif full in long_values:
                if not eq and i + 1 < len(words):
                    i += 1
                    value = words[i].value
                values.setdefault(full, []).append(value)
            else:
                flags.add(full)
            i += 1
            continue
        letters = arg[1:]
        for j, letter in enumerate(letters):
            if letter in short_values:
                value = letters[j + 1:]
                if not value and i + 1 < len(words):
                    i += 1
                    value = words[i].value
                values.setdefault(letter, []).append(value)
                break
            flags.add(letter)
        if DYN in letters:
            maybe_flags.append(word)
        i += 1
    return flags, values, operands, maybe_flags


def _long(name: str, known: tuple[str, ...]) -> str | None:
    if name in known:
        return name
    matches = [k for k in known if k.startswith(name)]
    return matches[0] if len(matches) == 1 else None


_RM_LONG = ("force", "interactive", "one-file-system", "no-preserve-root", "preserve-root", "recursive", "dir",
            "verbose", "help", "version")


def rm(run: "Run", inv: "Invocation", record: bool = True) -> list[Finding]:
    flags, _, operands, maybe = parse_gnu(inv.words, "fiIrRdv", "", _RM_LONG, ())
    recursive = bool({"r", "R", "recursive"} & flags)
    label = "rm " + " ".join(w.display() for w in inv.words if w.value.startswith("-") and w.value != "--")
    label = label.strip()
    if maybe:
        recursive = True  # "$FLAGS" may well be -rf
    targets = operands
    if not targets:
        return [allow(f"{label} names no file, so it deletes nothing", "fs-delete", rule="fs.rm")]
    findings = [run.delete(w, inv, recursive, label, record=record) for w in targets]
    if recursive and inv.scope.cd_dynamic and any(w.value in _WHOLE_DIRECTORY for w in targets):
        # `cd "$(…)" && rm -rf *`: if that cd went wrong (an empty value goes home), this wipes it
        findings.append(deny(f"{label} {' '.join(w.display() for w in targets)} deletes everything in a directory "
                             "known only at run time (an empty or wrong value there can mean your home)",
                             "fs-delete"))
    best = worst(findings)
    return [with_rule(best, "fs.rm")]


_WHOLE_DIRECTORY = frozenset({"*", "./*", ".", "./", ".*", "./.*", "* .*"})


def rimraf(run: "Run", inv: "Invocation") -> list[Finding]:
    """rimraf / del / trash-like tools: rm -rf by another name."""
    operands = [w for w in inv.words if not w.value.startswith("-")]
    if not operands:
        return [allow(f"{inv.name} names nothing to delete", "fs-delete", rule="fs.rimraf")]
    return [with_rule(worst([run.delete(w, inv, True, inv.name) for w in operands]), "fs.rimraf")]


def unlink(run: "Run", inv: "Invocation") -> list[Finding]:
    operands = [w for w in inv.words if not w.value.startswith("--")]
    if not operands:
        return [allow("unlink with no file", "fs-delete", rule="fs.unlink")]
    return [with_rule(worst([run.delete(w, inv, False, "unlink") for w in operands]), "fs.unlink")]


def rmdir(run: "Run", inv: "Invocation") -> list[Finding]:
    _, _, operands, _ = parse_gnu(inv.words, "pv", "", ("ignore-fail-on-non-empty", "parents", "verbose"), ())
    for w in operands:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "delete", inv.cmd, info.remote)
    return [allow("rmdir only removes empty directories", "fs-delete", rule="fs.rmdir")]


def shred(run: "Run", inv: "Invocation") -> list[Finding]:
    _, _, operands, _ = parse_gnu(inv.words, "fuvxz", "ns", ("force", "remove", "verbose", "exact", "zero"),
                                  ("iterations", "size", "random-source"))
    findings = []
    for w in operands:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "delete", inv.cmd, info.remote)
        if info.kind is PathKind.DEVICE:
            findings.append(deny(f"shred {w.display()} overwrites a whole disk", "disk", "fs.shred"))
        elif info.kind is PathKind.TEMP or info.kind is PathKind.PROJECT_SUB and info.path and \
                os.path.isfile(info.path):  # one file of the project's, as rm of it would be
            findings.append(allow(f"shred {w.display()} destroys one file", "fs-delete", rule="fs.shred"))
        else:
            findings.append(ask(f"shred {w.display()} destroys the file's contents beyond recovery", "fs-delete",
                                BlastRadius.HIGH if info.kind not in (PathKind.PROJECT_SUB,) else BlastRadius.MEDIUM,
                                "fs.shred"))
    return [worst(findings)] if findings else []


_MOVE_AWAY_CRITICAL = {PathKind.ROOT, PathKind.SYSTEM_TOP, PathKind.HOME_ROOT, PathKind.PROJECT_ROOT,
                       PathKind.PROJECT_ANCESTOR, PathKind.CRITICAL_FILE}


def mv(run: "Run", inv: "Invocation") -> list[Finding]:
    flags, values, operands, _ = parse_gnu(
        inv.words, "bfinuvTZ", "tS", ("backup", "force", "interactive", "no-clobber", "update", "verbose",
                                        "strip-trailing-slashes", "no-target-directory", "exchange", "context",
                                        "debug", "no-copy"),
        ("target-directory", "suffix"))
    target = values.get("t") or values.get("target-directory")
    sources = operands if target else operands[:-1]
    dest = Word(target[-1], target[-1]) if target else (operands[-1] if len(operands) >= 2 else None)
    findings: list[Finding] = []
    for w in sources:
        info = run.path(w, inv)
        # what moves is the path itself (a link, not what it points at), with everything under it
        run.effect(info.path, w.display(), "move", inv.cmd, info.remote, recursive=True, members=glob_members(w))
        if info.kind in _MOVE_AWAY_CRITICAL and not info.glob:
            findings.append(deny(f"mv {w.display()} moves away {_what(info)}", "fs-delete", "fs.mv"))
        elif info.kind in (PathKind.SYSTEM_CORE, PathKind.SYSTEM):
            findings.append(ask(f"mv {w.display()} moves a system file", "fs-write", BlastRadius.HIGH, "fs.mv"))
        elif info.kind in (PathKind.HOME_DOTFILE, PathKind.OTHER_USER):
            findings.append(ask(f"mv {w.display()} moves {info.kind.value}", "fs-write", BlastRadius.MEDIUM, "fs.mv"))
    if dest is not None:
        f = _land(run, inv, sources, dest, into=bool(target) or len(sources) > 1,
                  onto="T" in flags or "no-target-directory" in flags, what="mv into")
        if f is not None:
            findings.append(f)
    return [with_rule(worst(findings), "fs.mv")] if findings else [allow("mv moves files", "fs-write", rule="fs.mv")]


def _land(run: "Run", inv: "Invocation", sources: list[Word], dest: Word, *, into: bool, onto: bool, what: str,
          kind: str = "copy", contents: bool = False, detail: str = "", from_cwd: bool = True,
          recursive: bool = True) -> Finding | None:
    """Sources copied (moved, linked) to `dest`: each lands at dest/NAME when dest is a directory
    (or several sources go there), else at dest itself. One effect per source, saying what lands
    where (`source`: the file or tree, read from disk when it matters). `contents`: the sources'
    contents land in dest (rsync src/). `recursive`: a directory there when it runs lands whole (cp
    without -r refuses one). Returns the verdict for writing at dest."""
    info = run.path(dest, inv)
    if info.kind is PathKind.HARMLESS_DEVICE:
        return None
    is_dir = not onto and (into or dest.value.endswith("/") or _is_directory(run, info.path, inv))
    for w in sources or [dest]:
        src = run.path(w, inv) if sources else info
        landing = info.path
        members: tuple[str, ...] = ()
        source = src.path
        if src.glob or src.contents:  # `stage/*`: the matching entries of stage, each under dest
            members = glob_members(w)
        elif (contents or re.search(r"(^|/)\.$", w.value.rstrip("/"))) and info.path:
            pass  # rsync src/, cp -a src/. dest: what src holds lands in dest itself
        elif is_dir and info.path and src.path:
            landing = info.path.rstrip("/") + "/" + src.path.rstrip("/").rsplit("/", 1)[-1]
        if kind == "link" and source and not from_cwd and not w.value.startswith("/"):
            # a symbolic link's target is read from the link's own directory
            base = (landing or "/").rsplit("/", 1)[0] or "/"
            source = posixpath.normpath(posixpath.join(base, w.value)) if not w.dynamic else None
        run.effect(landing, dest.display(), kind, inv.cmd, info.remote or src.remote, source=source,
                   members=members, detail=detail, recursive=recursive)
    return write_finding(info, what)


def _is_directory(run: "Run", path: str | None, inv: "Invocation") -> bool:
    """A directory on disk, one made above, or one the command stands in (its working directory, those above it,
    the home): those are directories when it runs, whatever this machine shows (the call's cwd may be another
    machine's, or a container's)."""
    if not path:
        return False
    cwd = (inv.scope.cwd or "").rstrip("/")
    standing = path == "/" or path.rstrip("/") == inv.scope.home.rstrip("/") or \
        bool(cwd) and (cwd == path.rstrip("/") or cwd.startswith(path.rstrip("/") + "/"))
    return standing or path in run.empty_dirs or os.path.isdir(path)


def cp(run: "Run", inv: "Invocation") -> list[Finding]:
    flags, values, operands, _ = parse_gnu(
        inv.words, "abdfHilLnPprRsTuvxZ", "tSmogQ" if inv.name == "install" else "tS",
        ("archive", "attributes-only", "backup", "copy-contents", "force", "interactive", "link", "dereference",
         "no-clobber", "no-dereference", "parents", "recursive", "remove-destination", "strip-trailing-slashes",
         "symbolic-link", "no-target-directory", "update", "verbose", "one-file-system", "debug", "directory",
         "compare", "preserve-context", "strip"),
        ("target-directory", "suffix", "reflink", "sparse", "preserve", "no-preserve", "mode", "owner", "group"))
    target = values.get("t") or values.get("target-directory")
    dest = Word(target[-1], target[-1]) if target else (operands[-1] if len(operands) >= 2 else None)
    sources = operands if target else operands[:-1]
    findings: list[Finding] = []
    if inv.name == "install" and "d" in flags or "directory" in flags:
        findings = [f for d in operands if (f := run.write(d, inv, f"{inv.name} into")) is not None]
    elif dest is not None and "parents" in flags:  # cp --parents a/b/c DIR: lands at DIR/a/b/c
        for w in sources:
            f = None if w.dynamic else _land(
                run, inv, [w], Word.literal(posixpath.join(dest.value, posixpath.dirname(w.value.lstrip("/")))),
                into=True, onto=False, what=f"{inv.name} --parents into", kind="copy",
                recursive=bool({"r", "R", "a", "recursive", "archive"} & set(flags)))
            if f is not None:
                findings.append(f)
    elif dest is not None:
        linking = "l" in flags or "link" in flags or "s" in flags or "symbolic-link" in flags
        f = _land(run, inv, sources, dest, into=bool(target) or len(sources) > 1,
                  onto="T" in flags or "no-target-directory" in flags, what=f"{inv.name} into",
                  kind="link" if linking else "copy",
                  detail="hard" if "l" in flags or "link" in flags else "symbolic" if linking else "",
                  recursive=bool({"r", "R", "a", "recursive", "archive"} & set(flags)))
        if f is not None:
            findings.append(f)
    for w in sources:
        info = run.path(w, inv)
        run.read(w, inv)
        if info.path and (is_secret(info.path, inv.scope.home, run.tax, home_only=True) or
                          (not inv.scope.remote and reads_secret(info.path, inv.scope.home,
                                                                 inv.scope.project or inv.scope.cwd))):
            findings.append(ask(f"{inv.name} copies {w.display()}, a secret (keys or credentials)", "secrets",
                                BlastRadius.MEDIUM, "fs.cp"))
            dest_info = run.path(dest, inv) if dest is not None else None
            if dest_info is not None and dest_info.path:
                run.secret_copies.add(dest_info.path)
                run.secret_copies.add(dest_info.path.rstrip("/") + "/" + info.path.rsplit("/", 1)[-1])
        elif info.path and dest is not None and run.carries_secret(info.path, inv.scope):
            # a settings file with a password in it: copying it is routine, sending the copy away is not
            dest_info = run.path(dest, inv)
            if dest_info.path:
                run.secret_copies.add(dest_info.path)
                run.secret_copies.add(dest_info.path.rstrip("/") + "/" + info.path.rsplit("/", 1)[-1])
    return [with_rule(worst(findings), "fs.cp")] if findings else \
        [allow(f"{inv.name} copies files", "fs-write", rule="fs.cp")]


def ln(run: "Run", inv: "Invocation") -> list[Finding]:
    flags, values, operands, _ = parse_gnu(
        inv.words, "bdfFiLnPrsTv", "tS", ("backup", "directory", "force", "interactive", "logical", "no-dereference",
                                          "physical", "relative", "symbolic", "no-target-directory", "verbose"),
        ("target-directory", "suffix"))
    target = values.get("t") or values.get("target-directory")
    dest = Word(target[-1], target[-1]) if target else (operands[-1] if len(operands) >= 2 else Word.literal("."))
    sources = operands if target or len(operands) < 2 else operands[:-1]
    symbolic = "s" in flags or "symbolic" in flags
    relative = "r" in flags or "relative" in flags  # -r: the target is given from the cwd
    f = _land(run, inv, sources, dest, into=bool(target) or len(sources) > 1 or len(operands) < 2,
              onto="T" in flags or "no-target-directory" in flags or "n" in flags or "no-dereference" in flags,
              what="ln to", kind="link", detail="symbolic" if symbolic else "hard", from_cwd=not symbolic or relative)
    return [with_rule(f, "fs.ln")] if f else [allow("ln creates a link", "fs-write", rule="fs.ln")]


_WRITE_SPECS = {
    "touch": ("acfhm", "dtr", ("no-create", "no-dereference", "time"), ("date", "reference")),
    "mkdir": ("pvZ", "m", ("parents", "verbose", "context"), ("mode",)),
    "tee": ("aip", "", ("append", "ignore-interrupts", "output-error"), ()),
    "truncate": ("co", "sr", ("no-create", "io-blocks"), ("size", "reference")),
    "sponge": ("a", "", (), ()),
    "mkfifo": ("Z", "m", ("context",), ("mode",)),  # a named pipe made at each operand
}


def rename(run: "Run", inv: "Invocation") -> list[Finding]:
    """rename 's/x/y/' FILES (Perl's) or rename FROM TO FILES (util-linux's): each file is moved to a new name."""
    operands = [w for w in inv.words if not w.value.startswith("-")]
    perl = bool(operands) and re.match(r"^(?:s|y|tr)\W", operands[0].value) is not None
    files = operands[1:] if perl else operands[2:]
    for w in files[:64]:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "move", inv.cmd, info.remote)
    return [allow(f"{inv.name} renames files", "fs-write", rule="fs.rename")]


def swap(run: "Run", inv: "Invocation") -> list[Finding]:
    """exch A B (util-linux): the two files exchange places, so each is replaced by the other."""
    operands = [w for w in inv.words if not w.value.startswith("-") or w.value == "-"]
    findings = [f for w in operands[:2] if (f := run.write(w, inv, f"{inv.name} replaces")) is not None]
    for w in operands[:2]:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "move", inv.cmd, info.remote)
    return [with_rule(worst(findings), "fs.swap")] if findings else \
        [allow(f"{inv.name} exchanges two files", "fs-write", rule="fs.swap")]


def editor_renamer(run: "Run", inv: "Invocation") -> list[Finding]:
    """vidir DIR, qmv DIR: the directory's files are listed in an editor (EDITOR, which may be any program),
    and each line removed or changed deletes or renames its file; without an operand, the working directory."""
    operands = [w for w in inv.words if not w.value.startswith("-")] or [Word.literal(".")]
    findings = []
    for w in operands[:32]:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "delete", inv.cmd, info.remote, recursive=True,
                   members=glob_members(w))
        if info.path is not None and not os.path.isdir(info.path):
            run.effect(info.path, w.display(), "move", inv.cmd, info.remote)
        findings.append(ask(f"{inv.name} renames or deletes the files of {w.display()} as an editor says",
                            "fs-delete", BlastRadius.MEDIUM, "fs.editor-rename"))
    return findings


def rewrites_files(run: "Run", inv: "Invocation") -> list[Finding]:
    """fallocate FILE (creates it, or punches holes in it), recode REQUEST FILE…: the files are rewritten in
    place."""
    operands = [w for w in inv.words if not w.value.startswith("-")]
    values = {"-l", "--length", "-o", "--offset"}
    operands = [w for i, w in enumerate(inv.words) if not w.value.startswith("-") and
                not (i and inv.words[i - 1].value in values)] if inv.name == "fallocate" else operands[1:]
    findings = [f for w in operands[:32] if (f := run.write(w, inv, f"{inv.name} rewrites")) is not None]
    return [with_rule(worst(findings), f"fs.{inv.name}")] if findings else \
        [allow(f"{inv.name} rewrites files", "fs-write", rule=f"fs.{inv.name}")]


def gio(run: "Run", inv: "Invocation") -> list[Finding]:
    """gio trash|remove FILE… is rimraf's kind of delete (trash: recoverable); the rest is the taxonomy's."""
    if inv.words and inv.words[0].value in ("trash", "remove", "rm"):
        return rimraf(run, inv.__class__("gio-trash" if inv.words[0].value == "trash" else "rimraf", inv.words[1:],
                                         inv.cmd, inv.scope, inv.privileged, inv.written_name))
    return []


def uudecode(run: "Run", inv: "Invocation") -> list[Finding]:
    """uudecode writes each file to the path its `begin MODE PATH` line names, unless -o names another."""
    flags, values, operands, _ = parse_gnu(inv.words, "cis", "o", ("ignore-chmod",), ("output-file",))
    output = values.get("o") or values.get("output-file")
    targets = [Word(output[-1], output[-1])] if output else []
    if not output:
        for w in operands[:8]:
            info = run.path(w, inv)
            text = read_text(info.path) if info.path and not inv.scope.remote else None
            if text is None:
                return [ask(f"uudecode writes where {w.display()} says, which cannot be read now", "fs-write",
                            BlastRadius.MEDIUM, "fs.uudecode")]
            targets += [Word.literal(m.group(1)) for m in re.finditer(r"(?m)^begin(?:-base64)?\s+\d+\s+(\S.*)$", text)]
        if not operands:
            return [ask("uudecode writes where its input says, which is only known at run time", "fs-write",
                        BlastRadius.MEDIUM, "fs.uudecode")]
    findings = [f for t in targets if t.value != "/dev/stdout" and
                (f := run.write(t, inv, "uudecode writes")) is not None]
    return [with_rule(worst(findings), "fs.uudecode")] if findings else \
        [allow("uudecode writes the files it decodes", "fs-write", rule="fs.uudecode")]


def write_operands(run: "Run", inv: "Invocation") -> list[Finding]:
    short, short_values, long_flags, long_values = _WRITE_SPECS[inv.name]
    flags, _, operands, _ = parse_gnu(inv.words, short, short_values, long_flags, long_values)
    more: dict = {}
    if inv.name == "tee":  # tee writes its input: known text is the file's new content (or what is appended)
        stream = run.stdin_source(inv.cmd)
        if stream.kind == "text" and stream.text is not None:
            more = {"content": stream.text, "detail": "append" if {"a", "append"} & flags else ""}
    findings = [f for w in operands if (f := run.write(w, inv, inv.name, **more)) is not None]
    if findings:
        return [with_rule(worst(findings), f"fs.{inv.name}")]
    return [allow(f"{inv.name} writes files in place it may", "fs-write", rule=f"fs.{inv.name}")]


_SETID = re.compile(r"^(?:[0-7]?[2467][0-7]{3}|[ugoa]*[+=][rwxXt]*s[rwxXst]*)$")
_WORLD = re.compile(r"^(?:[0-7]?[0-7]{2}[2367]|[0-7]?[0-7][2367][0-7]|(?:a|o|ugo|uo|go)*[+=][rwxXt]*w[rwxXt]*|[+=]?rwx+)$")


def chmod(run: "Run", inv: "Invocation") -> list[Finding]:
    name = inv.name
    words = list(inv.words)
    recursive = False
    mode: str | None = None
    operands: list[Word] = []
    ended = False
    for w in words:
        v = w.value
        if not ended and v == "--":
            ended = True
            continue
        if not ended and v.startswith("--"):
            if v in ("--recursive",):
                recursive = True
            continue
        if not ended and name == "chmod" and mode is None and re.fullmatch(r"-[rwxXst]+", v):
            mode = v  # chmod -w file: a mode, not an option
            continue
        if not ended and v.startswith("-") and len(v) > 1:
            recursive |= "R" in v
            continue
        if mode is None:
            mode = v
        else:
            operands.append(w)
    findings: list[Finding] = []
    subject = mode or ""
    tightening = name == "chmod" and bool(mode) and _only_removes(mode)
    for w in operands:
        info = run.path(w, inv)
        # taking permissions away changes nothing the working-directory rule guards (`narrows`)
        run.effect(info.path, w.display(), "chmod", inv.cmd, info.remote, recursive=recursive, narrows=tightening,
                   members=glob_members(w), detail=f"{name} {subject}".strip())
        shallow = info.path is not None and info.path.count("/") <= 2  # /etc, /usr/lib: not /usr/local/lib/x
        if recursive and (info.kind in (PathKind.ROOT, PathKind.SYSTEM_TOP) or
                          info.kind is PathKind.SYSTEM_CORE and shallow) and not info.glob:
            findings.append(deny(f"{name} -R {subject} {w.display()} changes permissions across {_what(info)}",
                                 "permissions", f"fs.{name}"))
        elif recursive and info.kind in (PathKind.HOME_ROOT, PathKind.PROJECT_ANCESTOR, PathKind.SYSTEM,
                                         PathKind.SYSTEM_CORE):
            findings.append(ask(f"{name} -R {subject} {w.display()} changes permissions across {_what(info)}",
                                "permissions", BlastRadius.HIGH, f"fs.{name}"))
        elif info.kind in (PathKind.ROOT, PathKind.SYSTEM_TOP, PathKind.SYSTEM_CORE, PathKind.SYSTEM,
                           PathKind.CRITICAL_FILE, PathKind.DEVICE):
            findings.append(ask(f"{name} {subject} {w.display()} changes a system path", "permissions",
                                BlastRadius.HIGH, f"fs.{name}"))
        elif info.kind in (PathKind.HOME_DOTFILE, PathKind.OTHER_USER) and not tightening:
            findings.append(ask(f"{name} {subject} {w.display()} changes {info.kind.value}", "permissions",
                                BlastRadius.MEDIUM, f"fs.{name}"))
    if name == "chmod" and mode:
        for part in mode.split(","):
            if _SETID.match(part):
                shell = next((w for w in operands if _is_shell_binary(run, w, inv)), None)
                if shell is not None:  # cp /bin/bash /tmp/x && chmod +s /tmp/x: a root shell for anyone
                    findings.append(deny(f"chmod {mode} {shell.display()} makes a setuid shell: anyone who runs it "
                                         "gets its owner's rights (root)", "privilege", "fs.chmod-setuid-shell"))
                    break
                findings.append(ask(f"chmod {mode} sets the setuid/setgid bit", "permissions", BlastRadius.HIGH,
                                    "fs.chmod"))
                break
            if _WORLD.match(part) or part in ("777", "0777", "666", "0666", "a=rwx", "ugo+rwx"):
                findings.append(ask(f"chmod {mode} makes files writable by everyone", "permissions",
                                    BlastRadius.MEDIUM, "fs.chmod"))
                break
    if name in ("chown", "chgrp") and mode and re.match(r"^(root|0|wheel|admin)?(:(root|0|wheel))?$", mode) and \
            mode not in ("", ":"):
        findings.append(ask(f"{name} {mode} hands files to root", "permissions", BlastRadius.MEDIUM, f"fs.{name}"))
    if findings:
        return [worst(findings)]
    return [allow(f"{name} changes permissions of project files", "permissions", rule=f"fs.{name}")]


def attributes(run: "Run", inv: "Invocation") -> list[Finding]:
    """chattr, setfacl: the files whose attributes or ACLs change (the taxonomy gives the verdict)."""
    words = inv.words
    takes_value = {"setfacl": ("-m", "-M", "-x", "-X", "--modify", "--modify-file", "--remove", "--remove-file",
                               "--set", "--set-file"), "chattr": ("-v", "-p")}.get(inv.name, ())
    recursive = False
    operands: list[Word] = []
    i = 0
    ended = False
    while i < len(words):
        v = words[i].value
        if not ended and v == "--":
            ended = True
        elif not ended and inv.name == "chattr" and re.fullmatch(r"[-+=][aAcCdDeFijmPsStTux]+", v):
            pass  # the attribute change itself
        elif not ended and (v in takes_value or v.partition("=")[0] in takes_value):
            i += 0 if "=" in v else 1
        elif not ended and v.startswith("-"):
            recursive |= v in ("-R", "--recursive") or (not v.startswith("--") and "R" in v)
        else:
            operands.append(words[i])
        i += 1
    for w in operands:  # for the protection rule; the working-directory rule leaves attributes to the taxonomy
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "chmod", inv.cmd, info.remote, recursive=recursive, narrows=True,
                   members=glob_members(w), detail=inv.name)
    return []


def patch(run: "Run", inv: "Invocation") -> list[Finding]:
    """patch [-pN] [-d DIR] [-i FILE | < FILE] [ORIGINAL [PATCHFILE]]: ORIGINAL when given, else the files
    named in the patch (read from its text, under DIR), are written."""
    strip, source, operands, directory = 0, None, [], None
    words = inv.words
    i = 0
    while i < len(words):
        v = words[i].value
        if v in ("-d", "--directory") and i + 1 < len(words):
            directory, i = words[i + 1], i + 1
        elif v.startswith("--directory="):
            directory = Word.literal(v.partition("=")[2])
        elif v.startswith("-d") and len(v) > 2:
            directory = Word.literal(v[2:])
        elif v.startswith("-p") and v[2:].isdigit():
            strip = int(v[2:])
        elif v in ("-p", "--strip") and i + 1 < len(words) and words[i + 1].value.isdigit():
            strip, i = int(words[i + 1].value), i + 1
        elif v.startswith("--strip="):
            strip = int(v.partition("=")[2] or 0) if v.partition("=")[2].isdigit() else 0
        elif v in ("-i", "--input") and i + 1 < len(words):
            source, i = words[i + 1], i + 1
        elif not v.startswith("-"):
            operands.append(words[i])
        i += 1
    source = source or (operands[1] if len(operands) > 1 else None)
    if operands:  # patch FILE < diff: FILE is what changes, whatever names the diff gives
        info = run.path(operands[0], inv)
        run.effect(info.path, operands[0].display(), "write", inv.cmd, info.remote)
        return []
    base = run.path(directory, inv).path if directory is not None and not directory.dynamic else None
    write_patched(run, inv, source, strip, base)
    return []


def write_patched(run: "Run", inv: "Invocation", source: Word | None, strip: int, base: str | None = None) -> None:
    """Record a write for each file the patch (a file, or the command's input) changes (under `base`, the
    directory patch -d works in, when given)."""
    text = None
    if source is not None and not source.dynamic:
        text = read_patch(run.path(source, inv).path)
    else:
        stream = run.stdin_source(inv.cmd)
        if stream.kind == "text":
            text = stream.text
        elif stream.kind == "file":
            target = next((r.target for r in reversed(inv.cmd.redirects) if r.op == "<" and r.target is not None), None)
            text = read_patch(run.path(target, inv).path) if target is not None else None
    if text is None and base:  # patch -d DIR with a patch not known here: it changes files under DIR
        run.effect(base, base, "write", inv.cmd, False)
    for name in patch_targets(text or "", strip):
        info = run.path(Word.literal(posixpath.join(base, name) if base else name), inv)
        run.effect(info.path, name, "write", inv.cmd, info.remote)


def editor(run: "Run", inv: "Invocation") -> list[Finding]:
    """ed, ex, vim -c …, emacs --batch: the files they open they may write (scripted, they do). Recorded
    for the protection rule only (`mentioned`); the taxonomy judges the editor itself."""
    words = inv.words
    findings: list[Finding] = []
    for i, w in enumerate(words):
        flag, eq, attached = w.value.partition("=")
        if inv.name in ("emacs", "emacsclient") and flag in _ELISP_OPTIONS:  # --eval CODE, -l FILE: Lisp that runs
            value = attached if eq else (words[i + 1].value if i + 1 < len(words) else "")
            if _ELISP_OPTIONS[flag] == "file" and value:
                where = inv.scope.home + value[1:] if value.startswith("~") else \
                    posixpath.join(inv.scope.cwd or "/nonexistent", value)
                text = read_text(where)
                findings += _elisp(run, inv, text if text is not None else "", value, known=text is not None)
            else:
                findings += _elisp(run, inv, value, "", known=True)
            continue
        if w.value.startswith(("-", "+")) or w.dynamic or (i and words[i - 1].value.partition("=")[0] in _ELISP_OPTIONS
                                                           and inv.name == "emacs"):
            continue
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "write", inv.cmd, info.remote, detail="mentioned")
    return findings


def _is_dir(run: "Run", word: Word, inv: "Invocation") -> bool:
    info = run.path(word, inv)
    return bool(info.path) and not inv.scope.remote and (word.value.endswith("/") or os.path.isdir(info.path))


def in_place(run: "Run", inv: "Invocation") -> list[Finding]:
    """An editor that changes the files it is handed (taxonomy in_place_editors: yq -i, sd, xmlstarlet ed -L,
    dasel put -f FILE): each file is written; without its in-place flag it only prints."""
    spec = run.tax.in_place_editors[inv.name]
    words = inv.words
    if spec.get("subcommands") and not (words and words[0].value in spec["subcommands"]):
        return []
    flags = set(spec.get("flags", ()))
    values = set(spec.get("value_options", ()))
    file_options = set(spec.get("file_options", ()))
    on = "" in flags and not any(w.value in ("-p", "--preview") for w in words)
    operands: list[Word] = []
    files: list[Word] = []
    i = 1 if spec.get("subcommands") else 0
    while i < len(words):
        v = words[i].value
        name, eq, _ = v.partition("=")
        if v in flags or name in flags or (v.startswith("-") and not v.startswith("--") and len(v) > 2 and
                                           any(f"-{c}" in flags for c in v[1:])):
            on = True
        if name in file_options:
            if eq:
                files.append(Word(v.partition("=")[2], words[i].raw))
            elif i + 1 < len(words):
                files.append(words[i + 1])
                i += 1
        elif name in values and not eq:
            i += 1
        elif not v.startswith("-") or v == "-":
            if v not in flags:
                operands.append(words[i])
        i += 1
    if not on:
        return []
    files += [w for w in operands[spec.get("skip", 0):] if w.value != "-"]
    # a directory given to a tool that rewrites trees (fastmod, ast-grep -U, comby -d): every file under it
    findings = [f for w in files if (f := run.write(w, inv, f"{inv.name} (in place)", recursive=_is_dir(run, w, inv)))
                is not None]
    if findings:
        return [with_rule(worst(findings), "fs.in-place")]
    return [allow(f"{inv.name} edits files in place it may", "fs-write", rule="fs.in-place")] if files else []


def cpio(run: "Run", inv: "Invocation") -> list[Finding]:
    """cpio -p DEST (copy-pass): the files listed on its input land under DEST, as `cp -r` of what the listing
    names (find ROOT …: ROOT's tree); -i unpacks an archive from its input (what it holds cannot be read here)."""
    words = [w for w in inv.words]
    flags = "".join(w.value[1:] for w in words if w.value.startswith("-") and not w.value.startswith("--"))
    operands = [w for w in words if not w.value.startswith("-")]
    producer = inv.cmd.stdin_from
    if "p" in flags or any(w.value == "--pass-through" for w in words):
        if not operands:
            return []
        dest = operands[-1]
        roots = _listing_roots(producer)
        if roots is None:
            f = run.write(dest, inv, "cpio -p", kind="copy")
            return [with_rule(f, "fs.cpio")] if f else [ask(f"cpio -p copies files it is told on its input into "
                                                             f"{dest.display()}", "fs-write", BlastRadius.MEDIUM,
                                                             "fs.cpio")]
        for root in roots:
            run.nested(f"cp -r --parents -- {shlex.quote(root)} {shlex.quote(dest.value)}", inv, "cpio -p → cp")
        return [allow(f"cpio -p copies {', '.join(roots)} into {dest.display()}", "fs-write", rule="fs.cpio")]
    if "i" in flags or any(w.value == "--extract" for w in words):
        return [ask("cpio -i unpacks an archive from its input into the current directory: what it holds cannot be "
                    "read here", "fs-write", BlastRadius.MEDIUM, "fs.cpio")]
    return [allow("cpio writes an archive to its output", "read-only", rule="fs.cpio")]


def _listing_roots(producer) -> list[str] | None:
    """The directories a `find ROOT …` (or `ls`/`printf` of names) that feeds a listing starts from."""
    if producer is None or not producer.argv:
        return None
    name = posixpath.basename(producer.argv[0].value)
    if name not in ("find", "gfind", "fd"):
        return None
    roots = []
    for w in producer.argv[1:]:
        if w.value.startswith(("-", "(", "!")):
            break
        if w.dynamic:
            return None
        roots.append(w.value)
    return roots or ["."]


def mount(run: "Run", inv: "Invocation") -> list[Finding]:
    """mount [-t TYPE] [--bind] SOURCE DIR: whatever was in DIR is hidden behind the mount for the processes that see
    it (a tmpfs over ~/.claude is the hook settings moved away): DIR is judged as moved away, recursively."""
    operands, i, words = [], 0, inv.words
    while i < len(words):
        v = words[i].value
        if v in ("-t", "--types", "-o", "--options", "-L", "--label", "-U", "--uuid", "-O", "--test-opts", "-N",
                 "--namespace"):
            i += 2
            continue
        if not v.startswith("-"):
            operands.append(words[i])
        i += 1
    if not operands:
        return [allow("mount lists what is mounted", "read-only", rule="fs.mount")]
    point = operands[-1]
    if not any("remount" in w.value or w.value.startswith("--make-") for w in words):  # a remount hides nothing
        run.effect(run.path(point, inv).path, point.display(), "move", inv.cmd, recursive=True)
    return [ask(f"mount over {point.display()} hides what is there", "disk", BlastRadius.HIGH, "fs.mount")]


_ELISP_OPTIONS = {"--eval": "code", "-eval": "code", "--execute": "code", "-e": "code", "-l": "file", "--load": "file",
                  "-load": "file", "--script": "file", "-script": "file", "-x": "file"}
# Emacs Lisp that changes files: the paths its strings name are written (or moved)
_ELISP_WRITES = re.compile(r"\((?:with-temp-file|write-region|write-file|append-to-file|copy-file|make-directory|"
                           r"set-file-modes|save-buffer|make-symbolic-link|add-name-to-file|copy-directory)\b")
_ELISP_REMOVES = re.compile(r"\((?:delete-file|delete-directory|rename-file|move-file-to-trash)\b")
_ELISP_SHELL = re.compile(r"\((?:shell-command(?:-to-string)?|call-process-shell-command|async-shell-command)\s+"
                          r"\"((?:[^\"\\]|\\.)*)\"")


_ELISP_TYPING = re.compile(r"\((?:vterm-send-(?:string|key|return)|term-send-raw(?:-string)?|comint-send-string|"
                           r"process-send-string|eat-term-send-string)\b")


def _elisp(run: "Run", inv: "Invocation", code: str, file: str, known: bool) -> list[Finding]:
    """What Emacs Lisp run by --eval or loaded (-l FILE) does to files: the strings it names are paths it may
    write when it calls a writing function, shell commands it runs are judged; a file not readable asks."""
    if not known:
        return [ask(f"{inv.name} loads {file}, which guardtui cannot read: what it runs is not known", "dynamic-exec",
                    BlastRadius.MEDIUM, "fs.editor-code")]
    if _ELISP_TYPING.search(code):  # (vterm-send-string "a"): keys into a terminal buffer, the console's perhaps
        return [deny(f"{inv.name} types into a terminal buffer: in guardtui's console a key answers a waiting call as "
                     f"if you had pressed it", "terminal-input", "term.typing")]
    for m in _ELISP_SHELL.finditer(code):
        run.nested(m.group(1).encode().decode("unicode_escape", "replace"), inv, f"{inv.name} → shell")
    removing = bool(_ELISP_REMOVES.search(code))
    if not (removing or _ELISP_WRITES.search(code)):
        return []
    findings = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"', code):
        text = m.group(1)
        if not text or "\n" in text or not re.search(r"[/~.]", text) or len(text) > 512:
            continue
        word = Word.literal(inv.scope.home + text[1:] if text.startswith("~/") else text)
        info = run.path(word, inv)
        run.effect(info.path, text, "move" if removing else "write", inv.cmd, info.remote, recursive=removing,
                   detail="mentioned")
        f = write_finding(info, inv.name)
        if f is not None:
            findings.append(f)
    return findings


def mkfs(run: "Run", inv: "Invocation") -> list[Finding]:
    """mkfs on a device erases it; on an image file in the project it only builds an image."""
    operands = [w for w in inv.words if not w.value.startswith("-")]
    if not operands:
        return [allow(f"{inv.name} names no device, so it formats nothing", "disk", rule="fs.mkfs")]
    # mke2fs -n and mkfs.xfs -N only show what they would do
    dry = "-n" if re.match(r"(mke2fs|mkfs\.ext[234])$", inv.name) else "-N" if inv.name == "mkfs.xfs" else None
    if dry and any(w.value.startswith("-") and not w.value.startswith("--") and dry[1] in w.value[1:]
                   for w in inv.words):
        return [allow(f"{inv.name} {dry} only shows what it would do; it writes nothing", "disk", rule="fs.mkfs")]
    findings = []
    for w in operands[-1:]:
        info = run.path(w, inv)
        if info.kind in (PathKind.DEVICE, PathKind.SYSTEM, PathKind.DYNAMIC, PathKind.ROOT) or w.dynamic:
            findings.append(deny(f"{inv.name} {w.display()} formats a file system, erasing what was on it", "disk",
                                 "fs.mkfs"))
        else:
            run.effect(info.path, w.display(), "write", inv.cmd, info.remote)
            f = write_finding(info, inv.name)
            findings.append(f or allow(f"{inv.name} {w.display()} formats an image file, not a disk", "disk",
                                       rule="fs.mkfs"))
    return [worst(findings)]


_SHELL_BINARIES = re.compile(r"^(/usr)?/bin/(ba|da|z|k|c|tc|fi|yash|)sh$|^(/usr)?/bin/(python3?|perl|ruby|node|env)$")


def _is_shell_binary(run: "Run", w: Word, inv: "Invocation") -> bool:
    """A shell (or interpreter) binary, or a copy of one made earlier in the command."""
    if w.dynamic:
        return False
    source = inv.scope.facts.get("copy-of:" + w.value, w.value)
    return bool(_SHELL_BINARIES.match(source))


def _only_removes(mode: str) -> bool:
    """600, 0400, go-rwx: the mode only takes permissions away from others (no setuid, no write for all)."""
    if re.fullmatch(r"0?[0-7]{3}", mode):
        owner, group, other = (int(c) for c in mode[-3:])
        return group in (0, 4, 5) and other in (0, 4, 5) and group <= 5 and other <= 5 and not (group | other) & 2
    return all(re.fullmatch(r"[ugoa]*-[rwxXst]+", part) for part in mode.split(","))


def dd(run: "Run", inv: "Invocation") -> list[Finding]:
    findings = []
    for w in inv.words:
        key, eq, value = w.value.partition("=")
        if key == "of" and eq:
            target = Word(value, w.raw, w.quoted, w.glob)
            f = run.write(target, inv, "dd of=")
            if f is not None:
                findings.append(with_rule(f, "fs.dd"))
        elif key == "if" and eq:  # what it reads (the token, a secret): the protection rule judges it
            run.read(Word(value, w.raw, w.quoted, w.glob), inv)
    return [worst(findings)] if findings else [allow("dd copies data", "fs-write", rule="fs.dd")]


_FIND_VALUE = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname",
               "-ilname", "-type", "-xtype", "-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-mmin",
               "-atime", "-amin", "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-samefile", "-inum", "-links",
               "-used", "-context", "-fstype", "-printf", "-maxdepth", "-mindepth", "-regextype", "-files0-from",
               "-fprint", "-fprint0", "-fls", "-D", "-O"}


def find(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    i = 0
    while i < len(words) and words[i].value in ("-H", "-L", "-P"):
        i += 1
    roots: list[Word] = []
    while i < len(words) and not (words[i].value.startswith("-") or words[i].value in ("(", "!", ",", ")")):
        roots.append(words[i])
        i += 1
    if not roots:
        roots = [Word.literal(".")]
    exact = _exact_match(words[i:])
    if exact is not None:  # find / -maxdepth 1 -name home: the one path it can match
        roots = [Word(r.value.rstrip("/") + "/" + exact, r.raw + "/" + exact) for r in roots]
        words = words[:i] + [w for w in words[i:] if w.value not in ("-name", exact)]
    findings: list[Finding] = []
    filtered = False
    negated = False
    while i < len(words):
        arg = words[i].value
        if (arg in FIND_FILTERS or arg.startswith("-newer")) and not negated:
            filtered = True  # `! -name .git` excludes a few files: it does not narrow the delete
        if arg in ("-o", "-or"):
            filtered = False  # `-name x -o -delete`: the other branch is not narrowed by this one's tests
        negated = arg in ("!", "-not")
        if arg == "-delete" and "-empty" in [w.value for w in words[:i]] and "!" not in [w.value for w in words[:i]]:
            findings.append(allow("find -empty -delete only deletes empty files and directories", "fs-delete",
                                  rule="fs.find"))
        elif arg == "-delete":
            findings.extend(find_delete(run, inv, roots, filtered, "find -delete"))
        elif arg in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            child: list[Word] = []
            while j < len(words) and words[j].value not in (";", "+"):
                child.append(words[j])
                j += 1
            findings.extend(_find_exec(run, inv, roots, filtered, child, arg))
            i = j + 1
            continue
        elif arg in ("-fprint", "-fprint0", "-fls", "-fprintf") and i + 1 < len(words):
            f = run.write(words[i + 1], inv, f"find {arg}")
            if f is not None:
                findings.append(f)
        if arg in _FIND_VALUE:
            i += 2 if arg != "-fprintf" else 3
            continue
        i += 1
    if findings:
        return [with_rule(worst(findings), "fs.find")]
    return [allow("find only lists files", "read-only", rule="fs.find")]


def _exact_match(expression: list[Word]) -> str | None:
    """`-maxdepth 1 -name NAME` with a literal NAME (and no other test): find matches ROOT/NAME only."""
    values = [w.value for w in expression]
    if "-maxdepth" not in values or "-name" not in values:
        return None
    depth = values[values.index("-maxdepth") + 1] if values.index("-maxdepth") + 1 < len(values) else ""
    name = values[values.index("-name") + 1] if values.index("-name") + 1 < len(values) else ""
    tests = [v for v in values if v in FIND_FILTERS or v in ("-o", "-or", "!", "-not")]
    if depth == "1" and name and not any(c in name for c in "*?[") and DYN not in name and tests == ["-name"]:
        return name
    return None


def fd(run: "Run", inv: "Invocation") -> list[Finding]:
    """fd PATTERN [PATH] -x/-X CMD: like find -exec (a pattern of '.' or none matches everything)."""
    words = inv.words
    positionals: list[Word] = []
    child: list[Word] = []
    filtered = False
    i = 0
    while i < len(words):
        v = words[i].value
        if v in ("-x", "--exec", "-X", "--exec-batch"):
            child = [w for w in words[i + 1:] if w.value != ";"]
            break
        if v in ("-e", "--extension", "-g", "--glob", "-S", "--size", "--changed-within", "--changed-before",
                 "-o", "--owner"):
            filtered = True
            i += 2
            continue
        if v in ("-t", "--type", "-d", "--max-depth", "--min-depth", "-E", "--exclude", "-j", "--threads"):
            i += 2
            continue
        if not v.startswith("-"):
            positionals.append(words[i])
        i += 1
    if not child:
        return [allow("fd only lists files", "read-only", rule="fs.fd")]
    pattern = positionals[0].value if positionals else ""
    filtered |= pattern not in ("", ".", "^", ".*")
    roots = positionals[1:] or [Word.literal(".")]
    return [with_rule(f, "fs.fd") for f in _find_exec(run, inv, roots, filtered, child, "-x")]


def _find_exec(run: "Run", inv: "Invocation", roots: list[Word], filtered: bool, child: list[Word],
               action: str) -> list[Finding]:
    if not child:
        return []
    head = child[0].value.rsplit("/", 1)[-1]
    if head in DELETERS:
        return find_delete(run, inv, roots, filtered, f"find {action} {head}")
    emptier = empties_files(child)
    if emptier and not filtered:  # every file under the root left empty: as good as deleted
        return find_delete(run, inv, roots, False, f"find {action} {emptier}")
    out: list[Finding] = []
    for root in roots:
        placeholder = root if not filtered else Word(root.value.rstrip("/") + "/" + DYN, root.raw + "/{}")
        secret = _secret_found(run, inv, root) if filtered else None
        if secret is not None:  # find ~ -name 'id_*' -exec curl -F f=@{}: {} is a private key
            placeholder = Word(secret, root.raw + "/{}")
        argv = [placeholder if w.value == "{}" else
                Word(w.value.replace("{}", placeholder.value), w.raw, w.quoted, w.glob) for w in child]
        if not filtered and head in ("chmod", "chown", "chgrp", "setfacl"):
            argv.insert(1, Word.literal("-R"))  # every file under the root: as recursive as -R
        synthetic = SimpleCommand(argv, " ".join(w.display() for w in child), inv.cmd.span, inv.scope.copy(),
                                  _via(inv, f"find {action}"), depth=inv.cmd.depth + 1)
        before = len(run.result.findings)
        run.judge(synthetic, inv.cmd.depth + 1)
        out.extend(run.result.findings[before:])
        del run.result.findings[before:]
    return out


# well-known secret files, to test what a find's -name could reach
_KNOWN_SECRETS = ("~/.ssh/id_rsa", "~/.ssh/id_ed25519", "~/.ssh/id_ecdsa", "~/.ssh/id_dsa", "~/.aws/credentials",
                  "~/.netrc", "~/.kube/config", "~/.docker/config.json", "~/.git-credentials", "~/.pgpass",
                  "~/.npmrc", "~/.pypirc", "./.env")


def _secret_found(run: "Run", inv: "Invocation", root: Word) -> str | None:
    """A well-known secret file under `root` whose name a positive -name/-iname of this find matches."""
    words = [w.value for w in inv.words]
    patterns = []
    for i, w in enumerate(words[:-1]):
        if w in ("-name", "-iname") and not (i > 0 and words[i - 1] in ("!", "-not")):
            patterns.append((words[i + 1], w == "-iname"))
    if not patterns:
        return None
    base = run.path(root, inv).path
    if not base:
        return None
    for known in _KNOWN_SECRETS:
        literal = inv.scope.home.rstrip("/") + known[1:] if known.startswith("~/") else known
        path = run.path(Word.literal(literal), inv).path
        if not path or not (path == base or path.startswith(base.rstrip("/") + "/")):
            continue
        name = path.rsplit("/", 1)[-1]
        if any(fnmatch.fnmatchcase(name.lower() if fold else name, p.lower() if fold else p) for p, fold in patterns):
            return path
    return None


def _via(inv: "Invocation", label: str) -> str:
    return f"{inv.cmd.via} › {label}" if inv.cmd.via else label


_SED_SHORT_VALUES = "efl"
_SED_LONG = ("quiet", "silent", "debug", "posix", "regexp-extended", "separate", "sandbox", "unbuffered",
             "null-data", "zero-terminated", "follow-symlinks", "help", "version")


def sed(run: "Run", inv: "Invocation") -> list[Finding]:
    scripts: list[str] = []
    files: list[Word] = []
    in_place = False
    quiet = False
    follows = False  # --follow-symlinks: writes through a link; without it a new file is renamed over the name
    words = inv.words
    i = 0
    explicit_script = False
    ended = False
    while i < len(words):
        w = words[i]
        v = w.value
        if ended or not v.startswith("-") or v == "-":
            files.append(w)
        elif v == "--":
            ended = True
        elif v.startswith("--in-place"):
            in_place = True
        elif v.startswith("--expression"):
            explicit_script = True
            scripts.append(v.partition("=")[2] or (words[i + 1].value if i + 1 < len(words) else ""))
            if "=" not in v:
                i += 1
        elif v.startswith("--file"):
            explicit_script = True
            if "=" not in v:
                i += 1
        elif v in ("--quiet", "--silent"):
            quiet = True
        elif v == "--follow-symlinks":
            follows = True
        elif v.startswith("--"):
            pass
        else:
            letters = v[1:]
            for j, c in enumerate(letters):
                if c == "i":
                    in_place = True
                    break  # -iSUFFIX
                if c == "n":
                    quiet = True
                if c in "ef":
                    explicit_script = True
                    value = letters[j + 1:] or (words[i + 1].value if i + 1 < len(words) else "")
                    if not letters[j + 1:]:
                        i += 1
                    if c == "e":
                        scripts.append(value)
                    break
        i += 1
    if not explicit_script and files:
        scripts.append(files.pop(0).value)
    findings: list[Finding] = []
    for command, argument in sed_commands("\n".join(scripts)):
        if command == "e":
            if argument:
                run.nested(argument, inv, "sed e")
            else:
                findings.append(ask("sed's e command runs the text as a shell command", "dynamic-exec",
                                    BlastRadius.HIGH, "fs.sed"))
        elif command in ("w", "W") and argument and argument not in ("/dev/stdout", "/dev/stderr"):
            f = run.write(Word.literal(argument), inv, "sed w")
            if f is not None:
                findings.append(f)
    if not in_place:
        findings += read_secret(run, inv)  # `sed -n p .env` prints it as cat does
    if in_place:
        for w in files:
            f = run.write(w, inv, "sed -i", **({} if follows else {"detail": REPLACES}))
            if f is not None:
                findings.append(f)
        if quiet and re.search(r"p", "\n".join(scripts)):
            findings.append(ask("sed -n … -i keeps only the printed lines: the rest of the file is lost",
                                "fs-write", BlastRadius.MEDIUM, "fs.sed"))
    if findings:
        return [with_rule(worst(findings), "fs.sed")]
    return [allow("sed edits text" + (" in place" if in_place else ""), "fs-write" if in_place else "read-only",
                  rule="fs.sed")]


_SED_ADDRESS = r"(?:\d+(?:~\d+)?|\$|/(?:\\.|[^/\\])*/[IM]*|\\(.)(?:\\.|(?!\1).)*\1)"
_SED_COMMAND = re.compile(
    r"(?:^|[;\n{}])\s*(?:" + _SED_ADDRESS + r"(?:\s*,\s*(?:" + _SED_ADDRESS.replace("\\1", "\\2").replace("(.)", "(.)", 1)
    + r"|[+~]\d+))?)?\s*!?\s*(?P<cmd>[ewW])(?:\s+(?P<arg>[^;\n}]*)|(?=[;\n}]|$))")
_SED_SUBST = re.compile(r"(?:^|[;\n{}])\s*[^;\n{}]*?s(?P<d>[^\w\s\\])(?:\\.|(?!(?P=d)).)*(?P=d)(?:\\.|(?!(?P=d)).)*"
                        r"(?P=d)(?P<flags>[gpiImMe0-9]*)(?:w\s*(?P<file>[^;\n}]*))?")


def sed_commands(script: str) -> list[tuple[str, str]]:
    """The e (execute) and w (write) commands of a sed script, with their arguments."""
    found = [(m.group("cmd"), (m.group("arg") or "").strip()) for m in _SED_COMMAND.finditer(script)]
    for m in _SED_SUBST.finditer(script):
        if "e" in m.group("flags"):
            found.append(("e", ""))
        if m.group("file"):
            found.append(("w", m.group("file").strip()))
    return found


def awk(run: "Run", inv: "Invocation") -> list[Finding]:
    program = None
    words = inv.words
    i = 0
    while i < len(words):
        v = words[i].value
        if v == "--":
            i += 1
            break
        if v in ("-F", "-v", "-f", "--field-separator", "--assign", "--file") or \
                (v.startswith(("-F", "-v", "-f")) and len(v) == 2):
            if v in ("-f", "--file"):
                program = ""
            i += 2
            continue
        if v.startswith("-") and v != "-":
            i += 1
            continue
        break
    if program is None and i < len(words):
        program = words[i].value
    findings: list[Finding] = []
    if program and re.search(r"/inet[46]?/(?:tcp|udp)/", program):
        # gawk's /inet special files open a network connection; text read from it run as a command (system(c),
        # c |& getline, print | "sh") is a reverse shell
        coprocesses = set(re.findall(r"(\w+)\s*\|&\s*getline", program))
        if "system" in program or len(coprocesses) > 1 or re.search(r"""\|\s*"(?:/bin/)?(?:ba|z|da|k)?sh\b""", program):
            return [deny(f"{inv.name} connects through /inet and runs what the far end sends as commands (a reverse "
                         "shell)", "network", "net.remote-shell")]
        findings.append(ask(f"{inv.name} opens a network connection through /inet", "network", BlastRadius.HIGH,
                            "fs.awk"))
    if program:
        for m in re.finditer(r"""system\s*\(((?:"(?:[^"\\]|\\.)*"|[^)"])*)\)""", program):
            command = _awk_string(m.group(1), inv.scope)
            if command is not None:
                run.nested(command, inv, "awk system()")
            else:
                findings.append(ask("awk system() runs a command built at run time", "dynamic-exec",
                                    BlastRadius.HIGH, "fs.awk"))
        for m in re.finditer(r"""\|\s*"((?:[^"\\]|\\.)*)"|"((?:[^"\\]|\\.)*)"\s*\|\s*getline""", program):
            run.nested((m.group(1) or m.group(2) or ""), inv, "awk pipe")
        for target in _awk_outputs(program, inv.scope):  # print > "f", printf … > ENVIRON["HOME"] "/x", > f
            f = run.write(target, inv, "awk print >")
            if f is not None:
                findings.append(f)
    data_files = words[i:] if program == "" else words[i + 1:]  # after the program text (none with -f)
    findings += read_secret(run, inv.__class__(inv.name, data_files, inv.cmd, inv.scope, inv.privileged,
                                               inv.written_name))
    return [with_rule(worst(findings), "fs.awk")] if findings else [allow("awk processes text", "read-only",
                                                                               rule="fs.awk")]


_AWK_STRING = r'"(?:[^"\\]|\\.)*"'
_AWK_OUTPUT = re.compile(r"\bprintf?\b(?:" + _AWK_STRING + r"|\([^()]*\)|[^;}\n>|\"])*(?<!\|)>>?\s*(?P<t>(?:"
                         + _AWK_STRING + r"|[^;}\n|])+)")
_AWK_ASSIGN = re.compile(r"(?:^|[;{\s])([A-Za-z_]\w*)\s*=(?!=)\s*((?:" + _AWK_STRING + r"|[^;}\n])+)")


def _awk_outputs(program: str, scope) -> list[Word]:
    """The files an awk program's print and printf statements redirect into (`> "f"`, `>> f`, `> ENVIRON["HOME"]
    "/x"`, `> (dir "/" $1)`): a variable assigned in the program stands for its expression, one unknown here
    is a part known only at run time."""
    assigned = {m.group(1): m.group(2).strip() for m in _AWK_ASSIGN.finditer(program)}
    out = []
    for m in _AWK_OUTPUT.finditer(program):
        expr = m.group("t").strip()
        if expr.startswith("(") and expr.endswith(")"):
            expr = expr[1:-1]
        expr = re.sub(r"(?<![\w\"$])([A-Za-z_]\w*)(?![\w\[(])",
                      lambda v: assigned.get(v.group(1), v.group(1)) if v.group(1) != "ENVIRON" else v.group(1), expr)
        target = _awk_target(expr, scope)
        if target is not None:
            out.append(target)
    return out


def _awk_target(expr: str, scope) -> Word | None:
    """The file an awk output redirection names (`> (ENVIRON["HOME"] "/.claude/settings.json")`), as a word:
    a variable not known here stays `$X`, a part known only at run time."""
    value, raw = [], []
    for m in re.finditer(r'\s*(?:"((?:[^"\\]|\\.)*)"|ENVIRON\[\s*"(\w+)"\s*\]|(\S+))', expr):
        if m.group(3):
            value.append(DYN)
            raw.append("$" + re.sub(r"\W", "", m.group(3)))
        elif m.group(2):
            known = scope.lookup(m.group(2))
            value.append(known if DYN not in known else DYN)
            raw.append(known if DYN not in known else "$" + m.group(2))
        else:
            text = m.group(1).encode().decode("unicode_escape", "replace")
            value.append(text)
            raw.append(text)
    return Word("".join(value), "".join(raw)) if value else None


def _awk_string(expr: str, scope) -> str | None:
    """An awk string expression: literals and ENVIRON["X"] side by side (awk joins them)."""
    out = []
    for m in re.finditer(r'\s*(?:"((?:[^"\\]|\\.)*)"|ENVIRON\[\s*"(\w+)"\s*\]|(\S))', expr):
        if m.group(3):
            return None
        if m.group(2):
            value = scope.lookup(m.group(2))
            if DYN in value:
                return None
            out.append(value)
        else:
            out.append(m.group(1).encode().decode("unicode_escape", "replace"))
    return "".join(out)


def tar(run: "Run", inv: "Invocation") -> list[Finding]:
    args = inv.args
    first = args[0] if args else ""
    cluster = first.lstrip("-") if first and not first.startswith("--") else ""
    extracting = "x" in cluster or any(a in ("-x", "--extract", "--get") for a in args) or \
        any(a.startswith("-") and not a.startswith("--") and "x" in a for a in args)
    findings: list[Finding] = []
    for i, a in enumerate(args):
        name, eq, value = a.partition("=")
        if name in ("--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
                    "--new-volume-script", "--rsh-command", "-I", "-F"):
            program = value if eq else (args[i + 1] if i + 1 < len(args) else "")
            if name == "--checkpoint-action":
                program = program.partition("=")[2] if program.startswith("exec=") else ""
            if program and DYN not in program:
                run.nested(program, inv, f"tar {name}")
            compressor = name in ("-I", "--use-compress-program") and program.split()[:1] and \
                posixpath.basename(program.split()[0]) in run.tax.compressors
            if compressor:  # tar -I 'zstd -19 -T0': a compressor with its options (judged above)
                continue
            findings.append(ask(f"tar {name} runs another program", "dynamic-exec", BlastRadius.MEDIUM, "fs.tar"))
    directory = None
    for i, a in enumerate(args):
        if a in ("-C", "--directory") and i + 1 < len(args):
            directory = inv.words[i + 1]
        elif a.startswith("--directory="):
            directory = Word.literal(a.partition("=")[2])
    if not extracting:
        _archive_of_secrets(run, inv, directory)
        if "--remove-files" in args:  # tar --remove-files -cf X PATHS: every file archived is deleted after
            for path in tar_member_paths(run, inv.words, inv.scope):
                findings.append(run.delete(Word.literal(path), inv, True, "tar --remove-files deletes"))
    if extracting:
        target = directory or Word.literal(".")
        archive, members, strip = _tar_operands(inv.words)
        # -s/--transform rename members as they land (bsdtar -s ',^claude/,.claude/,'): what the archive calls
        # them says nothing about where they go, so its contents count as unknown
        renamed = any(a in ("-s", "--transform", "--xform") or a.startswith(("--transform=", "--xform="))
                      for a in args)
        f = run.write(target, inv, "tar -x into", kind="unpack",
                      source=None if renamed else _archive_path(run, inv, archive),
                      members=() if renamed else tuple(w.value for w in members),
                      detail=f"strip={strip}" if strip and not renamed else "")
        if f is not None:
            findings.append(f)
        if any(a in ("-P", "--absolute-names") or re.fullmatch(r"-?[a-zA-Z]*P[a-zA-Z]*", a) and a is args[0] or
               a.startswith("-") and not a.startswith("--") and "P" in a[1:] and a[1:].isalpha() for a in args):
            findings.append(ask("tar -P extracts absolute paths anywhere on disk", "fs-write", BlastRadius.HIGH,
                                "fs.tar"))
    return [with_rule(worst(findings), "fs.tar")] if findings else [allow("tar packs or lists files", "fs-write",
                                                                           rule="fs.tar")]


def tar_member_paths(run: "Run", words: list[Word], scope) -> list[str]:
    """Where the members a `tar c` names are on disk: relative ones under its -C directory."""
    base = scope.cwd
    for i, w in enumerate(words):
        if w.value in ("-C", "--directory") and i + 1 < len(words):
            target = words[i + 1]
            base = None if target.dynamic else classify(target, scope, run.tax).path
        elif w.value.startswith("--directory="):
            base = classify(Word.literal(w.value.partition("=")[2]), scope, run.tax).path
    _, members, _ = _tar_operands(words)
    paths = []
    for m in members:
        if m.dynamic and not m.value.startswith("/"):
            continue
        if m.value.startswith(("/", "~")) or base is None:
            info = classify(m, scope, run.tax)
            if info.path:
                paths.append(info.path)
        else:
            paths.append(posixpath.normpath(posixpath.join(base, m.value)))
    return paths


def _archive_of_secrets(run: "Run", inv: "Invocation", directory: Word | None) -> None:
    """`tar czf $out/env.tgz -C ~ .config/fly`: the archive now holds credentials; sending it (or the
    directory it is in) away later in the command sends them."""
    archive, _, _ = _tar_operands(inv.words)
    if archive is None or archive.value == "-" or archive.dynamic and not archive.value.startswith("/"):
        return
    if any(run.carries_secret(p, inv.scope) for p in tar_member_paths(run, inv.words, inv.scope)):
        info = run.path(archive, inv)
        if info.path:
            run.secret_copies.add(info.path)


_TAR_VALUE_LETTERS = "fCbgHKLNTVXIF"  # short options that take a value (-f FILE, -C DIR, …)
_TAR_LONG_VALUES = ("--file", "--directory", "--strip-components", "--exclude", "--exclude-from", "--files-from",
                    "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--newer", "--after-date",
                    "--blocking-factor", "--record-size", "--format", "--label", "--tape-length", "--volno-file",
                    "--use-compress-program", "--to-command", "--checkpoint-action", "--info-script",
                    "--new-volume-script", "--rsh-command", "--rmt-command", "--warning", "--suffix", "--backup")


def _tar_operands(words: list[Word]) -> tuple[Word | None, list[Word], int]:
    """tar's archive (-f; None: stdin), the members named on the command line, and --strip-components.
    The old style (`tar xzf a.tgz`) gives the values of a first cluster's letters in order."""
    archive: Word | None = None
    members: list[Word] = []
    strip = 0
    pending: list[str] = []

    def take(letter: str, value: Word) -> None:
        nonlocal archive, strip
        if letter in ("f", "--file"):
            archive = value
        elif letter == "--strip-components" and value.value.isdigit():
            strip = int(value.value)

    i = 0
    ended = False
    while i < len(words):
        w = words[i]
        v = w.value
        if pending:
            take(pending.pop(0), w)
        elif i == 0 and re.fullmatch(r"[A-Za-z]+", v):
            pending = [c for c in v if c in _TAR_VALUE_LETTERS]
        elif ended or not v.startswith("-") or v == "-":
            members.append(w)
        elif v == "--":
            ended = True
        elif v.startswith("--"):
            name, eq, value = v.partition("=")
            if name in _TAR_LONG_VALUES:
                if not eq and i + 1 < len(words):
                    i += 1
                    take(name, words[i])
                elif eq:
                    take(name, Word(value, value))
        else:
            letters = v[1:]
            for j, c in enumerate(letters):
                if c in _TAR_VALUE_LETTERS:
                    value_word = Word(letters[j + 1:], letters[j + 1:]) if letters[j + 1:] else \
                        (words[i + 1] if i + 1 < len(words) else None)
                    if not letters[j + 1:]:
                        i += 1
                    if value_word is not None:
                        take(c, value_word)
                    break
        i += 1
    return archive, members, strip


def _archive_path(run: "Run", inv: "Invocation", archive: Word | None) -> str | None:
    """The archive's absolute path; None when it is read from a pipe or known only at run time."""
    if archive is None or archive.value == "-" or archive.dynamic:
        return None
    return run.path(archive, inv).path


def unzip(run: "Run", inv: "Invocation") -> list[Finding]:
    args = inv.args
    if "-l" in args or "-t" in args or "-Z" in args or "-v" in args:
        return [allow("unzip only lists", "read-only", rule="fs.unzip")]
    target = Word.literal(".")
    archive: Word | None = None
    members: list[str] = []
    excluding = False
    words = inv.words
    i = 0
    while i < len(words):
        v = words[i].value
        if v == "-d" and i + 1 < len(words):
            target = words[i + 1]
            i += 2
            continue
        if v.startswith("-d") and len(v) > 2:
            target = Word(v[2:], v[2:])
        elif v == "-x":
            excluding = True
        elif v.startswith("-"):
            pass
        elif archive is None:
            archive = words[i]
        elif not excluding:
            members.append(v)
        i += 1
    f = run.write(target, inv, "unzip into", kind="unpack", source=_archive_path(run, inv, archive),
                  members=tuple(members))
    if any(w.value.startswith("-") and not w.value.startswith("--") and ":" in w.value for w in words):
        # unzip -: keeps ../ in member names: those land outside the target, each where its name leads
        escaped = _escaping_members(_archive_path(run, inv, archive))
        if escaped is None:
            return [ask("unzip -: keeps ../ in member names, and the archive cannot be read here: its files may "
                        "land anywhere", "fs-write", BlastRadius.HIGH, "fs.unzip")]
        base = target.value.rstrip("/") or "/"
        for name in escaped[:32]:
            w = run.write(Word.literal(posixpath.join(base, name)), inv, "unzip -: (a ../ member) writes")
            f = worst([x for x in (f, w) if x is not None]) if (f or w) else None
    return [with_rule(f, "fs.unzip")] if f else [allow("unzip extracts files", "fs-write", rule="fs.unzip")]


def _escaping_members(archive: str | None) -> list[str] | None:
    """A zip's member names that climb out with ../ (None: not readable)."""
    if archive is None:
        return None
    try:
        with zipfile.ZipFile(archive) as zf:
            names = zf.namelist()[:4096]
    except (OSError, zipfile.BadZipFile, ValueError):
        return None
    return [n for n in names if n.startswith("../") or "/../" in n]


def pax(run: "Run", inv: "Invocation") -> list[Finding]:
    """pax: -r reads an archive into the working directory, -rw copies the operands into the last one; -s
    substitutions rename what lands (so where it goes is not known from the names)."""
    words = inv.words
    letters = "".join(w.value[1:] for w in words if w.value.startswith("-") and not w.value.startswith("--"))
    reading, writing = "r" in letters, "w" in letters
    if not reading:
        return [allow("pax lists or writes an archive", "fs-write", rule="fs.pax")] if writing else \
            [allow("pax lists an archive", "read-only", rule="fs.pax")]
    values = {"-f", "-s", "-o", "-x", "-b", "-p", "-U", "-G", "-T", "-B"}
    operands: list[Word] = []
    archive: Word | None = None
    renamed = False
    i = 0
    while i < len(words):
        v = words[i].value
        if v in values and i + 1 < len(words):
            if v == "-f":
                archive = words[i + 1]
            renamed = renamed or v == "-s"
            i += 2
            continue
        if not v.startswith("-"):
            operands.append(words[i])
        i += 1
    if writing:  # copy mode: pax -rw SRC… DEST
        if len(operands) < 2:
            return []
        dest = operands[-1]
        found = [f for src in operands[:-1] for f in [
            run.write(dest, inv, "pax -rw copies into", kind="unpack", source=None) if renamed else
            run.write(Word.literal(posixpath.join(dest.value, src.value.lstrip("/"))), inv,
                      "pax -rw copies onto", kind="copy", source=run.path(src, inv).path, recursive=True)]
            if f is not None]
    else:
        f = run.write(Word.literal("."), inv, "pax -r into", kind="unpack",
                      source=None if renamed else _archive_path(run, inv, archive))
        found = [f] if f is not None else []
    return [with_rule(worst(found), "fs.pax")] if found else [allow("pax copies or unpacks files", "fs-write",
                                                                    rule="fs.pax")]


# host:path, user@host:path (a part known only at run time included: "deploy@${host}:/opt"), rsync://, host::
_REMOTE = re.compile(r"^(?:[\w.@%s-]+:(?!//)|rsync://|[\w.%s-]+::)" % (DYN, DYN))


def rsync(run: "Run", inv: "Invocation") -> list[Finding]:
    args = inv.args
    operands = [w for w in inv.words if not w.value.startswith("-")]
    if "--dry-run" in args or any(a.startswith("-") and not a.startswith("--") and "n" in a for a in args):
        return [allow("rsync -n is a dry run: nothing is copied or deleted", "read-only", rule="fs.rsync")]
    findings: list[Finding] = []
    remote = any(_REMOTE.match(w.value) for w in operands)
    dest = operands[-1] if len(operands) >= 2 else None
    dest_info = run.path(dest, inv) if dest is not None and not _REMOTE.match(dest.value) else None
    if any(a.startswith("--delete") or a == "--del" for a in args):
        source = operands[0] if operands else None
        if source is not None and run.known_empty(source, inv):
            findings.append(deny(f"rsync --delete from the empty {source.display()} wipes the destination",
                                 "fs-delete", "fs.rsync"))
        elif dest_info is not None and dest_info.kind is PathKind.TEMP:
            findings.append(allow("rsync --delete only removes files under the temp directory", "fs-delete",
                                  rule="fs.rsync"))
        else:
            radius = BlastRadius.MEDIUM if dest_info is not None and dest_info.kind is PathKind.PROJECT_SUB \
                else BlastRadius.HIGH
            findings.append(ask("rsync --delete removes destination files that are not in the source", "fs-delete",
                                radius, "fs.rsync"))
    if "--remove-source-files" in args:
        inside = not remote and dest_info is not None and dest_info.kind is PathKind.PROJECT_SUB
        for w in operands[:-1]:
            if not _REMOTE.match(w.value):
                info = run.path(w, inv)
                inside = inside and info.kind is PathKind.PROJECT_SUB and not w.dynamic
                run.effect(info.path, w.display(), "delete", inv.cmd, info.remote, recursive=True,
                           members=glob_members(w))
        if not inside:  # a move within the project is a mv (the guard's files are the protection's to judge)
            findings.append(ask("rsync --remove-source-files deletes the files it copied", "fs-delete",
                                BlastRadius.MEDIUM, "fs.rsync"))
    if remote:
        sent = [w for w in operands[:-1] if not _REMOTE.match(w.value)]
        if any((info := run.path(w, inv)).path and is_secret_area(info.path, inv.scope.home, run.tax) for w in sent):
            findings.append(deny(f"rsync sends {sent[0].display()} (keys or credentials) to another host", "secrets",
                                 "fs.rsync"))
        findings.append(ask("rsync copies files to or from another host", "network", BlastRadius.MEDIUM, "fs.rsync"))
    elif dest is not None:
        f = None
        relative = "--relative" in args or any(re.fullmatch(r"-[a-zA-Z]*R[a-zA-Z]*", a) for a in args)
        for w in operands[:-1]:  # `src/` copies what is in src; `src` copies src itself
            if relative and not w.dynamic:  # -R: the source's path (after a /./) is rebuilt under dest
                kept = w.value.split("/./", 1)[1] if "/./" in w.value else w.value.lstrip("/")
                f = _land(run, inv, [w], Word.literal(posixpath.join(dest.value, posixpath.dirname(kept)) or "."),
                          into=True, onto=False, what="rsync -R into", contents=w.value.endswith("/"))
                continue
            f = _land(run, inv, [w], dest, into=len(operands) > 2, onto=False, what="rsync into",
                      contents=w.value.endswith("/"))
        for a in args:  # --backup-dir=DIR: each file rsync replaces is moved into DIR
            if a.startswith("--backup-dir=") and DYN not in a:
                backup = run.write(Word.literal(a.partition("=")[2]), inv, "rsync --backup-dir moves replaced files into")
                findings += [backup] if backup is not None else []
        if any(a.startswith("--delete") or a == "--del" for a in args) and dest_info is not None:
            # what the source lacks goes: everything under the destination may be deleted
            run.effect(dest_info.path, dest.display(), "delete", inv.cmd, dest_info.remote, recursive=True)
        if f is not None:
            findings.append(f)
    return [worst(findings)] if findings else [allow("rsync copies files locally", "fs-write", rule="fs.rsync")]


def ripgrep(run: "Run", inv: "Invocation") -> list[Finding]:
    """rg --pre PROGRAM runs PROGRAM FILE for every file it searches: judged as that command (a project script is
    read and judged); a program known only at run time asks."""
    args = list(inv.args)
    for i, a in enumerate(args):
        if a == "--":
            break
        if a == "--pre" or a.startswith("--pre="):
            program = a.partition("=")[2] if "=" in a else (args[i + 1] if i + 1 < len(args) else "")
            path = os.path.normpath(os.path.join(inv.scope.cwd or "/", program)) if program and DYN not in program \
                else ""
            if "/" not in program or not os.path.isfile(path):  # a program found on PATH, or not there: asks
                return [ask("rg --pre runs a program on every file it searches", "dynamic-exec", BlastRadius.MEDIUM,
                            "fs.rg")]
            run.nested(f"{shlex.quote(program)} searched-file", inv, f"rg --pre {program}")
            return [allow(f"rg --pre runs {program} on each file it searches (judged)", "read-only", rule="fs.rg")]
    return []


# commands that look at a file's name, size or existence, never print what is in it
METADATA_ONLY = frozenset({"test", "[", "[[", "ls", "ll", "la", "stat", "file", "du", "realpath", "readlink",
                            "basename", "dirname", "wc", "md5sum", "sha1sum", "sha256sum", "sha512sum", "b2sum",
                            "cksum", "cd", "pushd", "which", "type", "tree", "lsof"})


_GREPS = frozenset({"grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack"})
_SECRET_WORD = re.compile(r"(?i)token|secret|passw|api_?key|private|credential|auth")


def _grep_for_secret_values(run: "Run", inv: "Invocation") -> list[Finding]:
    """`grep TOKEN .env`: searching a secrets file for secret names prints their values
    (`grep -c`, `-l` and `-q` print none)."""
    words = [w for w in inv.words if not w.dynamic]
    options = [w.value for w in words if w.value.startswith("-")]
    if any(o in ("-c", "--count", "-l", "-L", "--files-with-matches", "--files-without-match", "-q", "--quiet")
           or (not o.startswith("--") and any(ch in o[1:] for ch in "clLq")) for o in options):
        return []
    operands = [w for w in words if not w.value.startswith("-")]
    if len(operands) < 2 or not _SECRET_WORD.search(operands[0].value):
        return []
    for w in operands[1:]:
        info = run.path(w, inv)
        name = (w.value if w.glob or not info.path else info.path).rsplit("/", 1)[-1]
        if is_secret(info.path or w.value, inv.scope.home, run.tax) or fnmatch.fnmatchcase(name, ".env*"):
            return [ask(f"{inv.name} {operands[0].display()} {w.display()} prints secret values", "sensitive-read",
                        BlastRadius.LOW, "fs.secret-grep")]
    return []


# DATABASE_URL and *_DSN: a connection string carries its password
_SECRET_VARIABLE = re.compile(r"\$\{?([A-Za-z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|"
                              r"CREDENTIALS?|DATABASE_URL|_DSN\b|REDIS_URL|MONGO(?:DB)?_URI)[A-Za-z0-9_]*)", re.I)


def _prints_secret_variable(inv: "Invocation") -> list[Finding]:
    """`echo $OPENAI_API_KEY` puts the token on the screen and into the agent's transcript;
    `echo "$TOKEN" | docker login --password-stdin` hands it on, and the next stage is judged."""
    cmd = inv.cmd
    if cmd.pipes_out or cmd.via or any(r.writes and r.fd in (None, 1) for r in cmd.redirects):
        return []
    for w in inv.words:
        m = _SECRET_VARIABLE.search(w.raw)
        if m and "'" not in w.raw[: m.start()]:
            return [ask(f"{inv.name} prints ${m.group(1)}, a secret", "sensitive-read", BlastRadius.LOW,
                        "fs.secret-print")]
    return []


_LISTS_ONLY = ("-c", "--count", "-l", "-L", "--files-with-matches", "--files-without-match", "-q", "--quiet")


def _reaches_terminal(cmd) -> bool:
    """Its output is printed (to the agent's transcript), not piped on, captured or redirected."""
    return not (cmd.pipes_out or cmd.via or any(r.writes and r.fd in (None, 1) for r in cmd.redirects))


def _prints_secret_names(inv: "Invocation") -> list[Finding]:
    """`printenv AWS_SECRET_ACCESS_KEY` prints the value."""
    if not _reaches_terminal(inv.cmd):
        return []
    for w in inv.words:
        if not w.value.startswith("-") and _SECRET_VARIABLE.search("$" + w.value):
            return [ask(f"{inv.name} {w.value} prints a secret", "sensitive-read", BlastRadius.LOW,
                        "fs.secret-print")]
    return []


def _grep_environment(run: "Run", inv: "Invocation") -> list[Finding]:
    """`env | grep -i aws` prints the matching secrets' values (`grep -c` only counts them)."""
    if not _reaches_terminal(inv.cmd) or run.stdin_source(inv.cmd).kind != "secret":
        return []
    words = [w for w in inv.words if not w.dynamic]
    options = [w.value for w in words if w.value.startswith("-")]
    if any(o in _LISTS_ONLY or (not o.startswith("--") and any(ch in o[1:] for ch in "clLq")) for o in options):
        return []
    patterns = [w.value for w in words if not w.value.startswith("-")][:1]
    patterns += [words[i + 1].value for i, w in enumerate(words[:-1]) if w.value in ("-e", "--regexp")]
    catalog = secret_catalog()
    secret_names = catalog.settings.get("environment") or catalog.settings["names"]
    ignore_case = any(o in ("--ignore-case", "-i") or not o.startswith("--") and "i" in o[1:] for o in options)
    if any(secret_names.search(p) or _matches_a_name(p, catalog.environment_names, ignore_case, options)
           for p in patterns):
        return [ask(f"{inv.name} {patterns[0]} prints secret values from the environment", "sensitive-read",
                    BlastRadius.LOW, "fs.secret-grep")]
    return []


def _matches_a_name(pattern: str, names: tuple[str, ...], ignore_case: bool, options: list[str]) -> bool:
    """Would grep PATTERN pick out NAME=… for one of `names`? (-F: a plain string; else a regex, read as
    Python's: a pattern that does not compile is taken as plain text)."""
    flags = re.I if ignore_case else 0
    fixed = any(o in ("-F", "--fixed-strings") or not o.startswith("--") and "F" in o[1:] for o in options)
    try:
        regex = re.compile(re.escape(pattern) if fixed else pattern.replace(r"\|", "|"), flags)
    except re.error:
        regex = re.compile(re.escape(pattern), flags)
    return any(regex.search(f"{name}=") for name in names)


def read_secret(run: "Run", inv: "Invocation") -> list[Finding]:
    """Reading a private key or cloud credential asks (project .env files do not), as an operand or
    on stdin (`base64 < ~/.kube/config`); so does printing secrets from the environment."""
    if inv.name in METADATA_ONLY:
        return []
    words = [w.value for w in inv.words]
    if any(reader[0] == inv.name and words[:len(reader) - 1] == list(reader[1:])
           for reader in secret_catalog().public_readers):
        return []  # openssl x509 -in client.pem -noout -subject: the certificate's fields only
    if inv.name in _GREPS:
        found = _grep_for_secret_values(run, inv) or _grep_environment(run, inv)
        if found:
            return found
    if inv.name in ("echo", "printf"):
        return _prints_secret_variable(inv)
    if inv.name == "printenv":
        return _prints_secret_names(inv)
    stdin_files = [r.target for r in inv.cmd.redirects if r.op == "<" and r.fd in (None, 0) and r.target is not None]
    for w in list(inv.words) + stdin_files:
        if w.value.startswith("-"):
            continue
        if w.dynamic:
            if _secret_whatever_fills(w.value, inv.scope.home):  # < /proc/$(pgrep -f 'guardtui console')/environ
                return [ask(f"{inv.name} {w.display()} reads a secret (keys or credentials) whatever its unknown part "
                            "turns out to be", "sensitive-read", BlastRadius.MEDIUM, "fs.secret-read")]
            continue
        info = run.path(w, inv)
        if not info.path:
            continue
        if is_secret(info.path, inv.scope.home, run.tax, home_only=True):
            return [ask(f"{inv.name} {w.display()} reads a secret (keys or credentials)", "sensitive-read",
                        BlastRadius.MEDIUM, "fs.secret-read")]
        reason = None if inv.scope.remote else read_reason(info.path, inv.scope.home,
                                                             inv.scope.project or inv.scope.cwd)
        if reason:  # the project's .env holding a live key, as Read of it
            return [ask(f"{inv.name} {w.display()} reads a secret ({reason})", "sensitive-read",
                        BlastRadius.MEDIUM, "fs.secret-read")]
    return []


def _secret_whatever_fills(value: str, home: str) -> bool:
    """An absolute path known but for a part inside it (`/proc/$$/environ`, `/proc/$(pgrep x)/environ`) that is a
    secret with that part filled by a plain name: the secret's place does not depend on it."""
    if value.startswith(DYN) or not value.startswith(("/", "~/")):
        return False
    filled = re.sub(f"{re.escape(DYN)}+", "1", value)
    if "*" in filled or "?" in filled:
        return False
    filled = home.rstrip("/") + filled[1:] if filled.startswith("~/") else filled
    return is_secret(posixpath.normpath(filled), home, home_only=True)


def _what(info) -> str:
    return describe(info)


__all__ = ["rm", "unlink", "rmdir", "shred", "mv", "cp", "ln", "write_operands", "chmod", "dd", "find", "sed",
           "awk", "tar", "unzip", "rsync", "ripgrep", "read_secret", "parse_gnu", "Verdict"]


# -- stow ---------------------------------------------------------------------------------------------
_STOW_VALUES = frozenset({"-d", "--dir", "-t", "--target", "--ignore", "--defer", "--override", "-S", "--stow",
                          "-D", "--delete", "-R", "--restow"})
_STOW_MAX = 2000  # files of a package looked at


def stow(run: "Run", inv: "Invocation") -> list[Finding]:
    """GNU stow links every file of each package into the target directory (its parent by default):
    each link is an effect, so one put where an agent's hook settings are is judged as such."""
    words = [w.value for w in inv.words]
    if any(v in ("-n", "--no", "--simulate") or (v.startswith("-") and not v.startswith("--") and "n" in v[1:])
           for v in words):
        return [allow("stow -n only says what it would link", "read-only", rule="fs.stow")]
    stow_dir, target, packages, removing = inv.scope.cwd or "", "", [], False
    i = 0
    while i < len(words):
        v = words[i]
        option, eq, value = v.partition("=")
        if option in ("-D", "--delete", "-R", "--restow", "-S", "--stow"):
            removing = option in ("-D", "--delete")
            i += 1
            continue
        if option in _STOW_VALUES:
            value = value if eq else (words[i + 1] if i + 1 < len(words) else "")
            if option in ("-d", "--dir"):
                stow_dir = value
            elif option in ("-t", "--target"):
                target = value
            i += 1 if eq else 2
            continue
        if v.startswith("-"):
            i += 1
            continue
        packages.append(v)
        i += 1
    base = run.path(Word.literal(stow_dir or "."), inv).path
    dest = run.path(Word.literal(target), inv).path if target else (posixpath.dirname(base) if base else None)
    if not base or not dest or any(DYN in p for p in packages):
        return [ask("stow links files to a place known only at run time", "fs-write", BlastRadius.MEDIUM, "fs.stow")]
    for package in packages:
        root = posixpath.join(base, package)
        count = 0
        for folder, _, files in os.walk(root):
            for name in files:
                source = posixpath.join(folder, name)
                rel = posixpath.relpath(source, root)
                where = posixpath.normpath(posixpath.join(dest, rel))
                if removing:  # stow removes only its own links (into the package)
                    if os.path.islink(where) and os.path.realpath(where) == os.path.realpath(source):
                        run.effect(where, where, "delete", inv.cmd)
                else:
                    run.effect(where, where, "link", inv.cmd, source=source, detail="symbolic")
                count += 1
                if count >= _STOW_MAX:
                    break
            if count >= _STOW_MAX:
                break
    verb = "unlinks" if removing else "links"
    return [ask(f"stow {verb} the files of {', '.join(packages) or 'nothing'} in {dest}", "fs-write",
                BlastRadius.LOW, "fs.stow")]
