"""git: global options, config-driven execution, and the danger of each subcommand."""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import shlex
from dataclasses import replace
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..protect import project_guard_paths
from ..gitindex import branch_after, config_settings, current_branch, repository
from .findings import Finding, allow, ask, deny, unknown, worst
from .refs import JJ_VALUES, PROTECTED_BRANCHES, jj_bookmark_moves, jj_names, jj_options
from .parse import SimpleCommand
from .patches import patch_targets, read_patch
from .projectfiles import read_text, shown
from .paths import glob_members
from .secrets import is_secret, read_reason, secret_in_text
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

def environment_configs(inv: "Invocation") -> list[str]:
    """`key=value` settings git takes from its environment, as if given by -c: GIT_CONFIG_PARAMETERS,
    GIT_CONFIG_COUNT with GIT_CONFIG_KEY_n/VALUE_n, and a config file named by GIT_CONFIG_GLOBAL/SYSTEM."""
    env = dict(inv.scope.variables)
    env.update({name: word.value for name, word in inv.cmd.assignments})
    out: list[str] = []
    params = env.get("GIT_CONFIG_PARAMETERS", "")
    for m in re.finditer(r"'((?:[^'\\]|'\\'')*)'(?:=(?:'((?:[^'\\]|'\\'')*)'|(\S*)))?", params):
        out.append(f"{m.group(1)}={m.group(2) if m.group(2) is not None else m.group(3) or ''}".replace("'\\''", "'"))
    count = env.get("GIT_CONFIG_COUNT", "")
    for n in range(min(int(count), 64) if count.isdigit() else 0):
        if f"GIT_CONFIG_KEY_{n}" in env:
            out.append(f"{env[f'GIT_CONFIG_KEY_{n}']}={env.get(f'GIT_CONFIG_VALUE_{n}', '')}")
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG"):
        value = env.get(name, "")
        if value and DYN not in value and value != "/dev/null":
            path = value if value.startswith("/") else posixpath.join(inv.scope.cwd or "/", value)
            out += [f"{key}={val}" for key, val in config_settings(read_text(path) or "").items()]
    return out


# programs a command-valued git setting routinely names: pagers, editors, ssh
_PLAIN_PROGRAMS = frozenset({"less", "more", "most", "cat", "delta", "bat", "diff-so-fancy", "ssh", "code", "code-insiders",
                             "subl", "vim", "nvim", "vi", "nano", "emacs", "emacsclient", "micro", "hx", "zed", "mate",
                             "kak", "idea", "true", "false"})


def _plain_program(run, key: str, value: str) -> bool:
    """A setting that switches a hook off (core.fsmonitor=false) or names a routine pager, editor or ssh with plain
    arguments (`less -RFX`, `code --wait`, `ssh -i ~/.ssh/deploy -o IdentitiesOnly=yes`): no other program runs."""
    value = value.strip()
    if value.lower() in ("", "false", "true", "0", "1", "no", "yes", "off", "on"):
        return key.lower() not in ("core.pager", "core.editor", "core.sshcommand") or value == ""
    if key.lower().startswith(("alias.", "filter.", "credential", "diff.", "merge.", "protocol.", "include")) or \
            re.search(r"[;&|`$<>(){}\\]", value):
        return False
    program = posixpath.basename(value.split()[0]) if value.split() else ""
    return program in _PLAIN_PROGRAMS


def _hooks_dir(run, inv, key: str, value: str) -> list[Finding] | None:
    """git config core.hooksPath DIR / init.templateDir DIR: the hooks there run on later git commands (a
    template's hooks/ in every repository init or clone makes): each is judged as the script it is. None when the
    directory cannot be read (then setting it asks)."""
    base = inv.scope.home if value.startswith("~") else (inv.scope.cwd or "/")
    directory = posixpath.normpath(posixpath.join(base, value[2:] if value.startswith("~/") else value))
    hooks = posixpath.join(directory, "hooks") if key == "init.templatedir" else directory
    try:
        names = sorted(os.listdir(hooks))[:16] if os.path.isdir(hooks) else None
    except OSError:
        names = None
    if names is None:
        return None
    for name in names:
        text = read_text(posixpath.join(hooks, name))
        if text is not None:
            run.nested(text, inv, f"git config {key} › {shown(posixpath.join(hooks, name), inv.scope.cwd)}")
    return [allow(f"git config {key} {value}: the hooks there are judged above", "git", rule="git.config")]


def _judge_config_command(run, inv, key: str, value: str, label: str) -> bool:
    """The command a setting makes git run (core.pager, core.fsmonitor, a `!` alias, a filter's clean,
    diff.external …) is judged as the command it is: what it does decides, beside the ask. True when that
    command is routine (all it does allows: `go run ./cmd/dump` as a textconv)."""
    value = value.strip()
    if re.fullmatch(r"(?i)include\.path|includeif\..+\.path", key) and value and DYN not in value:
        _judge_included(run, inv, key, value, label)
        return False
    if not value or _NOT_A_COMMAND.match(key) or key.lower() == "core.fsmonitor" and value.lower() in (
            "true", "false", "1", "0", "yes", "no", "on", "off"):
        return False
    if key.lower().startswith("alias.") or key.lower() == "credential.helper":
        if not value.startswith("!"):
            return False  # a git subcommand, or a helper git names git-credential-*
        value = value[1:]
    return run.nested_routine(value, inv, label)


def _judge_included(run, inv, key: str, value: str, label: str, depth: int = 0, within: str = "") -> None:
    """include.path / includeIf.….path FILE: every setting of FILE applies wherever the include does; the programs
    it makes git run are judged as the commands they are (FILE's own includes too, a few deep, relative to it)."""
    base = inv.scope.home if value.startswith("~") else (within or inv.scope.cwd or "/")
    path = posixpath.normpath(posixpath.join(base, value[2:] if value.startswith("~/") else value))
    text = read_text(path, 65536)
    if text is None or depth > 3:
        return
    for name, setting in list(config_settings(text).items())[:256]:
        if re.fullmatch(r"(?i)include\.path|includeif\..+\.path", name):
            _judge_included(run, inv, name, setting, label, depth + 1, posixpath.dirname(path))
        elif _EXEC_CONFIG.match(name) and not _plain_program(run, name, setting):
            _judge_config_command(run, inv, name, setting, f"{label} › {shown(path, inv.scope.cwd)} {name}")


# settings that name files or switches, not command lines
_NOT_A_COMMAND = re.compile(r"^(core\.hookspath|include\.path|includeif\..*|protocol\.ext\.allow)$", re.I)
_EXEC_CONFIG = re.compile(
    r"^(core\.(pager|editor|sshcommand|fsmonitor|hookspath|askpass|gitproxy)|sequence\.editor|credential\.helper|"
    r"gpg\.(program|\w+\.program)|diff\.[^.]+\.(textconv|command)|diff\.external|merge\.[^.]+\.driver|"
    r"filter\.[^.]+\.(clean|smudge|process)|pager\.[^.]+|alias\.[^.]+|uploadpack\.packobjectshook|"
    r"protocol\.ext\.allow|interactive\.difffilter|web\.browser|browser\.[^.]+\.cmd|man\.[^.]+\.cmd|"
    r"remote\.[^.]+\.(uploadpack|receivepack)|include\.path|includeif\..*|hook\.[^.]+\.command|"
    r"(?:merge|diff)tool\.[^.]+\.cmd|lfs\.customtransfer\.[^.]+\.path|lfs\.extension\.[^.]+\.(clean|smudge)|"
    r"trailer\.[^.]+\.(cmd|command))$", re.I)

READ_ONLY = frozenset({
    "status", "log", "show", "blame", "annotate", "shortlog", "describe", "rev-parse", "rev-list", "ls-files",
    "ls-tree", "ls-remote", "cat-file", "grep", "show-ref", "for-each-ref", "name-rev", "merge-base",
    "count-objects", "fsck", "verify-commit", "verify-tag", "verify-pack", "whatchanged", "cherry", "range-diff",
    "diff-tree", "diff-index", "diff-files", "check-ignore", "check-attr", "check-mailmap", "check-ref-format",
    "var", "help", "version", "show-branch", "get-tar-commit-id", "column", "interpret-trailers", "stripspace",
    "diff", "reflog", "config", "bugreport", "difftool", "instaweb", "help"})
ROUTINE = frozenset({
    "add", "commit", "fetch", "pull", "merge", "rebase", "push", "checkout", "switch", "restore", "stash", "branch",
    "tag", "init", "clone", "gc", "remote", "cherry-pick", "revert", "am", "apply", "mv", "rm", "notes", "submodule",
    "worktree", "sparse-checkout", "maintenance", "format-patch", "request-pull", "bundle", "archive", "lfs",
    "mergetool", "stage", "bisect", "rerere", "pack-refs", "repack", "prune-packed", "update-index", "write-tree",
    "commit-tree", "mktag", "mktree", "hash-object", "citool", "gui", "reset", "clean", "update-ref", "read-tree",
    "prune", "filter-branch", "filter-repo", "replace", "send-email", "daemon", "symbolic-ref", "fast-import",
    "fast-export", "unpack-objects", "pack-objects", "index-pack", "multi-pack-index", "commit-graph", "init-db",
    "flow", "absorb", "town", "machete", "crypt", "secret", "annex", "svn", "p4", "subtree", "restore", "merge-file",
    "merge-tree", "shell", "credential", "backfill", "replay", "last-modified"})


def git(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    scope = inv.scope
    configs: list[str] = environment_configs(inv)
    i = 0
    while i < len(words):
        arg = words[i].value
        if arg == "-C" and i + 1 < len(words):
            scope = _cd(scope, words[i + 1].value)
            i += 2
        elif arg.startswith("-C") and len(arg) > 2:
            scope = _cd(scope, arg[2:])
            i += 1
        elif arg == "-c" and i + 1 < len(words):
            configs.append(words[i + 1].value)
            i += 2
        elif arg.startswith("-c") and len(arg) > 2 and "=" in arg:
            configs.append(arg[2:])
            i += 1
        elif arg in ("--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds"):
            if arg == "--config-env" and i + 1 < len(words):
                configs.append(words[i + 1].value)
            i += 2
        elif arg.startswith("--config-env="):
            configs.append(arg.partition("=")[2])
            i += 1
        elif arg in ("--version", "--help", "-h", "--html-path", "--man-path", "--info-path") or \
                (arg == "--exec-path"):
            return [allow(f"git {arg} only prints information", "git", rule="git.describe")]
        elif arg == "--":
            return [allow("git -- runs no subcommand", "git", rule="git.describe")]
        elif arg.startswith("-"):
            i += 1
        else:
            break
    if i >= len(words):
        return [allow("git with no subcommand prints usage", "git", rule="git.describe")]
    sub_word = words[i]
    rest = words[i + 1:]
    inv_scope = inv.__class__(inv.name, inv.words, inv.cmd, scope, inv.privileged, inv.written_name)
    findings: list[Finding] = []
    # aliases defined earlier in this command (`git config alias.x …; git x`), then by -c here
    aliases = {k[len("git-alias:"):]: v for k, v in scope.facts.items() if k.startswith("git-alias:")}
    for entry in configs:
        key, _, value = entry.partition("=")
        if key.lower().startswith("alias."):
            aliases[key[6:]] = value
            continue
        if _EXEC_CONFIG.match(key.strip()):
            # a one-off override for this command only: a routine program it names (`go run ./cmd/dump` as a
            # textconv) is only itself
            routine = _judge_config_command(run, inv, key.strip(), value, f"git -c {key.strip()}")
            if not routine and not _plain_program(run, key.strip(), value):
                findings.append(ask(f"git -c {key}=… makes git run another program", "git", BlastRadius.HIGH,
                                    "git.config-exec"))
    if sub_word.dynamic:
        return findings + [ask("the git subcommand is only known at run time", "git", BlastRadius.HIGH,
                               "git.dynamic")]
    sub = sub_word.value
    rest = _expand_abbreviations(sub, rest)
    if sub in _NAMING_SUBCOMMANDS:  # git commit -m "Token: $(grep TOKEN .env)", checkout -b "ci/$(cat ~/.pypirc)"
        carried = [w for w in rest if (w.dynamic or "$(" in w.raw or "`" in w.raw) and
                   secret_in_text(w.raw + " " + w.origin, scope)]
        if carried:
            run.staged_secrets.append(carried[0].raw[:60])  # a push later in the command sends it: denied there
            return [ask(f"git {sub} puts a secret into the repository's history or names ({carried[0].raw[:60]})",
                        "secrets", BlastRadius.HIGH, "git.secret-metadata")]
    if sub == "init":  # a repository made here, with nothing in it yet
        where = next((w.value for w in rest if not w.value.startswith("-")), None)
        path = posixpath.normpath(posixpath.join(scope.cwd or "/", where)) if where and DYN not in where else scope.cwd
        if path and not os.path.exists(posixpath.join(path, ".git")):
            run.empty_dirs.add(path.rstrip("/"))
    if sub in aliases:
        body = aliases[sub]
        scope = scope.copy()
        scope.facts.pop("git-alias:" + sub, None)  # an alias naming itself runs git's own command
        inv_scope = inv.__class__(inv.name, inv.words, inv.cmd, scope, inv.privileged, inv.written_name)
        if body.startswith("!"):  # a shell alias: git runs the rest through sh, with the arguments
            run.nested(" ".join([body[1:]] + [w.value for w in rest]), inv_scope, f"git alias {sub}")
            return findings + [ask(f"git alias {sub} runs a shell command", "git", BlastRadius.LOW, "git.alias")]
        expanded = [Word.literal(p) for p in body.split()] + rest
        return findings + git(run, inv.__class__(inv.name, expanded, inv.cmd, scope, inv.privileged,
                                                 inv.written_name))
    if any(w.value in ("--help", "-h") for w in rest if not w.value.startswith("--") or w.value == "--help") and \
            any(w.value == "--help" for w in rest):
        return findings + [allow(f"git {sub} --help only prints help", "git", rule="git.describe")]
    _repository_programs(run, inv_scope, sub, [w.value for w in rest], configs)
    handler = _SUBCOMMANDS.get(sub)
    if handler is not None:
        findings.extend(handler(run, inv_scope, rest))
    elif sub in READ_ONLY:
        findings.append(allow(f"git {sub} only reads the repository", "git", rule="git.read"))
    elif sub in ROUTINE:
        findings.append(allow(f"git {sub} is everyday repository work", "git", rule="git.routine"))
    else:
        findings.append(unknown(f"git {sub} is not a git command guardtui knows (an extension or alias?)", "git",
                                rule="git.unknown"))
    if sub in ("checkout", "switch"):
        _note_branch(run, inv_scope, sub, rest)
    return [worst(findings)] if findings else []


# Long options git accepts by any unique prefix (`reset --har`, `commit --no-verif`): the ones that matter here.
_LONG_OPTIONS = {
    "reset": ["hard", "soft", "mixed", "merge", "keep", "quiet", "no-quiet", "recurse-submodules",
              "no-recurse-submodules", "pathspec-from-file", "pathspec-file-nul", "no-refresh", "refresh"],
    "commit": ["no-verify", "verify", "all", "amend", "message", "file", "reuse-message", "reedit-message", "fixup",
               "squash", "reset-author", "signoff", "no-signoff", "edit", "no-edit", "cleanup", "include", "only",
               "untracked-files", "verbose", "quiet", "dry-run", "allow-empty", "allow-empty-message", "author",
               "date", "trailer", "pathspec-from-file", "gpg-sign", "no-gpg-sign", "interactive", "patch"],
    "push": ["force", "no-force", "force-with-lease", "no-force-with-lease", "force-if-includes",
             "no-force-if-includes", "delete", "dry-run", "mirror", "prune", "no-prune", "all", "branches", "tags",
             "follow-tags", "no-follow-tags", "verify", "no-verify", "set-upstream", "repo", "receive-pack", "exec",
             "push-option", "atomic", "no-atomic", "signed", "no-signed", "quiet", "verbose", "progress",
             "porcelain", "recurse-submodules", "no-recurse-submodules"],
    "clean": ["force", "dry-run", "interactive", "quiet", "exclude"],
    "checkout": ["force", "ours", "theirs", "merge", "patch", "detach", "orphan", "track", "no-track", "conflict",
                 "pathspec-from-file", "quiet", "progress", "ignore-other-worktrees", "overwrite-ignore",
                 "no-overwrite-ignore", "recurse-submodules", "no-recurse-submodules", "guess", "no-guess"],
    "switch": ["force", "discard-changes", "create", "force-create", "detach", "orphan", "track", "no-track",
               "merge", "conflict", "quiet", "guess", "no-guess"],
    "restore": ["source", "staged", "worktree", "patch", "ours", "theirs", "merge", "conflict", "overlay",
                "no-overlay", "ignore-unmerged", "pathspec-from-file", "quiet", "progress"],
    "branch": ["delete", "force", "move", "copy", "list", "all", "remotes", "track", "no-track", "set-upstream-to",
               "unset-upstream", "edit-description", "contains", "merged", "no-merged", "show-current"],
    "stash": ["keep-index", "no-keep-index", "include-untracked", "all", "quiet", "message", "patch", "staged"],
    "merge": ["no-verify", "verify", "commit", "no-commit", "ff", "no-ff", "ff-only", "squash", "abort", "continue",
              "quit", "strategy", "strategy-option", "message", "edit", "no-edit", "signoff"],
    "rebase": ["exec", "interactive", "onto", "root", "abort", "continue", "skip", "autosquash", "no-verify",
               "verify"],
    "submodule": ["force", "init", "recursive", "remote", "merge", "rebase", "checkout", "quiet"],
}


def _expand_abbreviations(sub: str, rest: list[Word]) -> list[Word]:
    known = _LONG_OPTIONS.get(sub)
    if not known:
        return rest
    out = []
    for w in rest:
        name, eq, value = w.value.partition("=")
        if name.startswith("--") and len(name) > 3 and name[2:] not in known:
            matches = [k for k in known if k.startswith(name[2:])]
            if len(matches) == 1:
                w = Word(f"--{matches[0]}{eq}{value}", w.raw, w.quoted, w.glob)
        out.append(w)
    return out


def _cd(scope, target: str):
    new = scope.copy()
    if DYN in target:
        new.cwd = None
    elif scope.cwd is not None or target.startswith("/"):
        new.cwd = posixpath.normpath(posixpath.join(scope.cwd or "/", target))
    return new


def _options(rest: list[Word]) -> tuple[list[str], list[Word], list[Word]]:
    """(options, positionals before --, words after --)."""
    options, positionals, after = [], [], []
    ended = False
    for w in rest:
        if ended:
            after.append(w)
        elif w.value == "--":
            ended = True
        elif w.value.startswith("-") and w.value != "-":
            options.append(w.value)
        else:
            positionals.append(w)
    return options, positionals, after


def _short(options: list[str], letter: str, value_letters: str = "") -> bool:
    """Is -<letter> among the options, alone or inside a cluster (stopping at value letters)?"""
    for opt in options:
        if opt.startswith("--") or not opt.startswith("-"):
            continue
        for c in opt[1:]:
            if c == letter:
                return True
            if c in value_letters:
                break
    return False


def _long(options: list[str], *names: str) -> bool:
    return any(o == n or o.startswith(n + "=") for o in options for n in names)


def reset(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--hard", "--merge"):
        mode = "--hard" if _long(options, "--hard") else "--merge"
        _restores(run, inv, _work_tree(inv))
        return [ask(f"git reset {mode} discards uncommitted changes", "git", BlastRadius.MEDIUM, "git.reset")]
    return [allow("git reset without --hard keeps your working files", "git", rule="git.reset")]


_CHECKOUT_VALUES = {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file", "-U"}


def checkout(run, inv, rest) -> list[Finding]:
    options: list[str] = []
    positionals: list[Word] = []
    after: list[Word] = []
    creates = False
    i = 0
    ended = False
    while i < len(rest):
        w = rest[i]
        v = w.value
        if ended:
            after.append(w)
        elif v == "--":
            ended = True
        elif v in _CHECKOUT_VALUES:
            options.append(v)
            creates |= v in ("-b", "-B", "--orphan")
            i += 1
        elif v in ("--track", "-t") and i + 1 < len(rest) and rest[i + 1].value in ("direct", "inherit"):
            options.append(v)
            i += 1
        elif v.startswith("-") and v != "-":
            options.append(v)
            if not v.startswith("--") and any(c in v[1:] for c in "bB"):
                creates = True
                if v[-1] in "bB":
                    i += 1
        else:
            positionals.append(w)
        i += 1
    if after or len(positionals) >= 2:
        # `checkout TREE -- paths` writes TREE's version of every path, changed or not; `checkout -- paths` the index's
        from_tree = len(positionals) >= 1 and bool(after) or len(positionals) >= 2
        _restores(run, inv, after or positionals[1:], only="" if from_tree else "tracked")
    elif len(positionals) == 1 and not creates and _looks_like_path(positionals[0], inv.scope.cwd):
        _restores(run, inv, positionals)
    if _long(options, "--force") or _short(options, "f", "bB"):
        return [ask("git checkout -f throws away local changes", "git", BlastRadius.MEDIUM, "git.checkout")]
    if _short(options, "B"):
        return [ask("git checkout -B resets an existing branch to another commit", "git", BlastRadius.MEDIUM,
                    "git.checkout")]
    if _long(options, "--ours", "--theirs", "--merge", "--patch") or _short(options, "m", "bB") or \
            _short(options, "p", "bB"):
        return [ask("git checkout --ours/--theirs/-m/-p overwrites working files", "git", BlastRadius.MEDIUM,
                    "git.checkout")]
    if _long(options, "--pathspec-from-file"):
        return [ask("git checkout --pathspec-from-file restores the listed files, discarding their changes", "git",
                    BlastRadius.MEDIUM, "git.checkout")]
    if after:
        shown = " ".join(w.display() for w in after)
        return [ask(f"git checkout -- {shown} discards uncommitted changes to those files", "git",
                    BlastRadius.MEDIUM, "git.checkout")]
    if creates or not positionals:
        return [allow("git checkout switches or creates a branch", "git", rule="git.checkout")]
    if len(positionals) >= 2:
        shown = " ".join(w.display() for w in positionals[1:])
        return [ask(f"git checkout {positionals[0].display()} {shown} overwrites those files from "
                    f"{positionals[0].display()}", "git", BlastRadius.MEDIUM, "git.checkout")]
    target = positionals[0]
    if _looks_like_path(target, inv.scope.cwd):
        return [ask(f"git checkout {target.display()} restores the path, discarding local changes", "git",
                    BlastRadius.MEDIUM, "git.checkout")]
    return [allow(f"git checkout {target.display()} switches branch", "git", rule="git.checkout")]


def _looks_like_path(word: Word, cwd: str | None) -> bool:
    value = word.value
    if word.dynamic or word.glob or value in (".", "..", "./", ":/") or value.startswith(("./", "../", "/", ":(")):
        return True
    if re.fullmatch(r"v?\d+(\.\d+)+([-.+][\w.]+)?", value):  # a version tag
        return False
    if cwd and os.path.exists(os.path.join(cwd, value)) and not _is_ref(cwd, value):
        return True
    return bool(re.search(r"\.[A-Za-z][A-Za-z0-9]{0,6}$", value)) and "/" not in value.split(".")[0][-1:]


def _is_ref(cwd: str, name: str) -> bool:
    git_dir = os.path.join(cwd, ".git")
    for sub in ("refs/heads/", "refs/tags/", "refs/remotes/origin/"):
        if os.path.exists(os.path.join(git_dir, sub + name)):
            return True
    try:
        with open(os.path.join(git_dir, "packed-refs"), encoding="utf-8", errors="replace") as fh:
            return any(line.rstrip().endswith(("/" + name)) for line in fh)
    except OSError:
        return False


def switch(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--force", "--discard-changes") or _short(options, "f", "cC"):
        return [ask("git switch --discard-changes throws away local changes", "git", BlastRadius.MEDIUM,
                    "git.switch")]
    return [allow("git switch changes branch", "git", rule="git.switch")]


def restore(run, inv, rest) -> list[Finding]:
    options, positionals, after = _options(rest)
    staged = _long(options, "--staged") or _short(options, "S", "s")
    worktree = _long(options, "--worktree") or _short(options, "W", "s")
    if staged and not worktree:
        return [allow("git restore --staged only unstages", "git", rule="git.restore")]
    # --source TREE writes TREE's version of every path, changed or not (and removes what TREE lacks)
    from_tree = _long(options, "--source") or _short(options, "s", "")
    if positionals and ("--source" in options or any(o.startswith("-") and not o.startswith("--") and
                                                     o.endswith("s") for o in options)):
        positionals = positionals[1:]  # `--source TREE`: TREE is the option's value, not a path
    _restores(run, inv, positionals + after, only="" if from_tree else "tracked")
    shown = " ".join(w.display() for w in positionals + after) or "files"
    return [ask(f"git restore {shown} discards uncommitted changes", "git", BlastRadius.MEDIUM, "git.restore")]


def clean(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--dry-run") or _short(options, "n", "e"):
        return [allow("git clean -n only lists what it would delete", "git", rule="git.clean")]
    if _long(options, "--force", "--interactive") or _short(options, "f", "e") or _short(options, "i", "e"):
        ignored = _short(options, "x", "e") or _short(options, "X", "e")
        only = "ignored" if _short(options, "X", "e") else "untracked+ignored" if ignored else "untracked"
        _, paths, after = _options(rest)
        _removes(run, inv, paths + after or [Word.literal(".")], only)
        return [ask("git clean -f deletes untracked files" + (" and ignored ones" if ignored else ""), "git",
                    BlastRadius.HIGH if ignored else BlastRadius.MEDIUM, "git.clean")]
    return [allow("git clean without -f deletes nothing", "git", rule="git.clean")]


def stash(run, inv, rest) -> list[Finding]:
    options, positionals, after = _options(rest)
    action = positionals[0].value if positionals else "push"
    if action in ("push", "save") and not _long(options, "--staged") and not _short(options, "S"):
        paths = after or (positionals[1:] if action == "push" else []) or _work_tree(inv)
        _restores(run, inv, paths)  # the changes are put away: the files go back to what is committed
        if _long(options, "--all") or _short(options, "a"):
            _removes(run, inv, paths, "untracked+ignored")
        elif _long(options, "--include-untracked") or _short(options, "u"):
            _removes(run, inv, paths, "untracked")
    if action in ("drop", "clear"):
        return [ask(f"git stash {action} deletes stashed changes", "git", BlastRadius.MEDIUM, "git.stash")]
    return [allow(f"git stash {action}", "git", rule="git.stash")]


def branch(run, inv, rest) -> list[Finding]:
    options, positionals, _ = _options(rest)
    force = _long(options, "--force") or _short(options, "f")
    deleting = _long(options, "--delete") or _short(options, "d")
    if _short(options, "D") or (deleting and force):
        return [ask("git branch -D deletes a branch even if it is not merged", "git", BlastRadius.MEDIUM,
                    "git.branch")]
    if _short(options, "M") or _short(options, "C") or (force and (_long(options, "--move", "--copy") or
                                                                    _short(options, "m") or _short(options, "c"))):
        return [ask("git branch -M overwrites an existing branch", "git", BlastRadius.MEDIUM, "git.branch")]
    if force and positionals:
        return [ask("git branch -f moves an existing branch", "git", BlastRadius.LOW, "git.branch")]
    return [allow("git branch lists, creates, renames or safely deletes branches", "git", rule="git.branch")]


_PUSH_VALUES = {"-o", "--push-option", "--repo", "--receive-pack", "--exec", "--recurse-submodules"}


def _repository_keys(scope) -> list[str]:
    """Where what this session knows of a repository's HEAD is kept: its work tree, else the directory."""
    cwd = scope.cwd
    if not cwd:
        return []
    repo = repository(cwd)
    return [repo[0], cwd] if repo and repo[0] != cwd else [cwd]


def _note_branch(run, inv, sub: str, rest: list[Word]) -> None:
    """A checkout or switch moves HEAD: later calls of the session read which branch HEAD is from this
    when the repository on disk cannot say (it is read from .git/HEAD first)."""
    words = [w.value for w in rest]
    if any(w.dynamic for w in rest):
        branch: str | None = ""
    else:
        branch = branch_after(sub, words)
        positionals = [w for w in rest if not w.value.startswith("-")]
        if sub == "checkout" and branch and len(positionals) == 1 and branch == positionals[0].value and \
                _looks_like_path(positionals[0], inv.scope.cwd):
            branch = None  # `git checkout README.md` restores a file
    keys = _repository_keys(inv.scope)
    if branch is not None and keys:
        run.result.leaves["git-branch:" + keys[0]] = branch


# subcommands whose arguments end up in what is pushed: messages, notes, branch and tag names
_NAMING_SUBCOMMANDS = frozenset({"commit", "tag", "notes", "checkout", "switch", "branch", "stash", "merge"})


def _deploy_remote(run: "Run", scope, remote: str) -> str | None:
    """The remote a push goes to when it is a deployment host (taxonomy deploy_remotes: heroku, dokku …), by its
    name or by the URL .git/config gives it."""
    if not remote or DYN in remote:
        return None
    url = remote
    found = repository(scope.cwd) if scope.cwd and not re.match(r"^[\w+]+://|^[\w.-]+@", remote) else None
    if found is not None:
        url = config_settings(read_text(posixpath.join(found[1], "config")) or "").get(f"remote.{remote}.url", remote)
    for marker in run.tax.deploy_remotes:
        if marker == remote or marker in url:
            return f"{remote} ({url})" if url != remote else remote
    return None


def _config_values(text: str, section: str, key: str) -> list[str]:
    """Every value of a multi-valued setting (`push = …` lines of `[remote "x"]`), in order."""
    out, inside = [], False
    for line in text.splitlines():
        line = line.strip()
        header = re.match(r'^\[\s*([\w.-]+)(?:\s+"([^"]*)")?\s*\]', line)
        if header:
            inside = (header.group(1).lower() + (f".{header.group(2)}" if header.group(2) is not None else "")) == section
            continue
        name, eq, value = line.partition("=")
        if inside and eq and name.strip().lower() == key:
            out.append(value.strip().strip('"'))
    return out


def _push_remote(scope) -> str | None:
    """The remote a plain `git push` goes to: branch.<b>.pushRemote, remote.pushDefault, branch.<b>.remote."""
    repo = repository(scope.cwd) if scope.cwd else None
    if repo is None:
        return None
    settings = config_settings(read_text(posixpath.join(repo[1], "config")) or "")
    here = current_branch_of(scope)
    return settings.get(f"branch.{here}.pushremote") or settings.get("remote.pushdefault") or \
        settings.get(f"branch.{here}.remote")


def _configured_push(scope, remote: str | None) -> tuple[bool, list[str]]:
    """(the remote is a mirror, its push refspecs) as the repository's .git/config gives them."""
    if remote is not None and (DYN in remote or re.match(r"^[\w+]+://|^[\w.-]+@|^[./~]", remote)):
        return False, []
    repo = repository(scope.cwd) if scope.cwd else None
    if repo is None:
        return False, []
    text = read_text(posixpath.join(repo[1], "config")) or ""
    name = remote or _push_remote(scope) or "origin"
    mirror = config_settings(text).get(f"remote.{name}.mirror", "").lower() in ("true", "yes", "on", "1")
    return mirror, _config_values(text, f"remote.{name}", "push")


def current_branch_of(scope) -> str | None:
    """The branch HEAD is on where a command runs: switched to earlier in this command, else what the
    repository's HEAD says, else what this session switched to earlier; None when unknown."""
    keys = _repository_keys(scope)
    for key in keys:
        if "git-switch:" + key in scope.facts:
            return scope.facts["git-switch:" + key] or None
    repo = repository(scope.cwd) if scope.cwd else None
    if repo is not None:
        head = current_branch(repo[1])
        if head is not None:
            return head
    for key in keys:
        if "git-branch:" + key in scope.facts:
            return scope.facts["git-branch:" + key] or None
    return None


def push(run, inv, rest) -> list[Finding]:
    options: list[str] = []
    positionals: list[str] = []
    i = 0
    while i < len(rest):
        v = rest[i].value
        if v in _PUSH_VALUES:
            options.append(v)
            i += 2
            continue
        if v == "--":
            positionals.extend(w.value for w in rest[i + 1:])
            break
        (options if v.startswith("-") else positionals).append(v)
        i += 1
    if _long(options, "--dry-run") or _short(options, "n", "o"):
        return [allow("git push --dry-run sends nothing", "git", rule="git.push")]
    refspecs = positionals[1:]
    mirror_configured = False
    if not refspecs and not _long(options, "--all", "--branches", "--mirror", "--tags"):
        # a plain `git push [REMOTE]` pushes what .git/config says for that remote: its push refspecs, or everything
        # when it is a mirror (a `+refs/heads/*:refs/heads/*` there force-updates main)
        remote_name = positionals[0] if positionals else None
        mirror_configured, configured = _configured_push(inv.scope, remote_name)
        refspecs = configured
        if positionals == [] and (mirror_configured or configured):
            positionals = [_push_remote(inv.scope) or "origin"]
    forcing = [o for o in options if o in ("--force", "--no-force") or (not o.startswith("--") and "f" in o)]
    global_force = bool(forcing) and forcing[-1] != "--no-force"  # --force --no-force pushes plainly
    force = global_force or any(r.startswith("+") for r in refspecs)
    lease = _long(options, "--force-with-lease")  # --force-if-includes alone forces nothing
    mirror = _long(options, "--mirror") or mirror_configured
    targets, forced_targets, replaced = set(), set(), set()
    here = None
    if any(part in ("HEAD", "@") for r in refspecs for part in r.lstrip("+").split(":", 1)) or \
            (not refspecs and not _long(options, "--all", "--branches", "--mirror", "--tags")):
        here = current_branch_of(inv.scope)  # HEAD, or no refspec at all (push.default): the current branch
    if not refspecs and here and (global_force or lease):
        refspecs = [here]
    for r in refspecs:
        plus = r.startswith("+")
        r = r.lstrip("+")
        dst = re.sub(r"^refs/heads/", "", r.split(":", 1)[1] if ":" in r else r)
        if dst in ("HEAD", "@") and here:
            dst = here
        targets.add(dst)
        if plus or global_force:
            forced_targets.add(dst)
        src = re.sub(r"^refs/heads/", "", r.split(":", 1)[0]) if ":" in r else dst
        if src in ("HEAD", "@"):
            src = here or src  # HEAD on a branch not known here: another branch than main, as far as we know
        if src != dst:
            replaced.add(dst)  # HEAD:main, feature:main: another branch's history put in its place
    findings: list[Finding] = []
    wildcard = any("*" in t for t in targets) or _long(options, "--all", "--branches")
    if mirror or ((force or lease) and wildcard and not lease):
        # the team's remote, or any remote from a repository this command just made (git init /tmp/e && git -C
        # /tmp/e push --mirror URL): its main is overwritten and what it has that we lack deleted
        shared = not positionals or positionals[0] in ("origin", "upstream") or \
            (inv.scope.cwd or "").rstrip("/") in run.empty_dirs
        if shared:  # the team's remote: its main is overwritten and what it has that we lack deleted
            return [deny("git push --mirror (or a forced push of every branch) overwrites main and deletes the "
                         "remote's other refs", "git", "git.push-force-main")]
        return [ask(f"git push --mirror (or a forced push of every branch) to {positionals[0]} overwrites every "
                    f"branch there and deletes the refs it lacks", "git", BlastRadius.HIGH, "git.push-force-all")]
    if run.staged_secrets:
        return [deny(f"pushes commits that contain secrets ({', '.join(run.staged_secrets[:2])})", "secrets",
                     "git.push-secrets")]
    remote = positionals[0] if positionals else ""
    _local_receive_hooks(run, inv, remote)
    deploys = _deploy_remote(run, inv.scope, remote)
    if deploys:  # git push heroku main: the push is the deploy
        findings.append(ask(f"git push to {deploys} deploys the app", "deploy", BlastRadius.HIGH, "git.push-deploy"))
    if remote in run.added_remotes or re.match(r"^(https?|ssh|git)://|^[\w.-]+@[\w.-]+:", remote):
        findings.append(ask(f"git push to {remote}, a remote named only in this command: the code leaves for "
                            "somewhere new", "network", BlastRadius.MEDIUM, "git.push-remote"))
    if forced_targets & PROTECTED_BRANCHES:
        branch_name = sorted(forced_targets & PROTECTED_BRANCHES)[0]
        return [deny(f"force-pushing to {branch_name} rewrites the shared history of {branch_name}", "git",
                     "git.push-force-main")]
    if lease and replaced & PROTECTED_BRANCHES:  # the lease guards against a race, not against the overwrite
        branch_name = sorted(replaced & PROTECTED_BRANCHES)[0]
        return [deny(f"force-pushing another branch onto {branch_name} (--force-with-lease) replaces the shared "
                     f"history of {branch_name}", "git", "git.push-force-main")]
    if lease and targets & PROTECTED_BRANCHES:  # a force push to main all the same: what others built on is rewritten
        branch_name = sorted(targets & PROTECTED_BRANCHES)[0]
        return [deny(f"force-pushing to {branch_name} (--force-with-lease only guards against a race) rewrites the "
                     f"shared history of {branch_name}", "git", "git.push-force-main")]
    if force or mirror:
        findings.append(ask("git push --force rewrites the remote branch's history", "git", BlastRadius.HIGH,
                            "git.push-force"))
    elif lease:
        findings.append(ask("git push --force-with-lease still rewrites the remote branch's history", "git",
                            BlastRadius.MEDIUM, "git.push-force"))
    deleting = _long(options, "--delete") or _short(options, "d")
    deleted = {r.lstrip("+")[1:] for r in refspecs if r.lstrip("+").startswith(":") and len(r.lstrip("+")) > 1} | \
        ({r.rsplit("/", 1)[-1] for r in refspecs} if deleting else set())
    if deleted & PROTECTED_BRANCHES:  # git push origin :main: the shared branch is gone for everyone
        branch_name = sorted(deleted & PROTECTED_BRANCHES)[0]
        return [deny(f"git push deletes the remote {branch_name} branch, the shared history everyone builds on",
                     "git", "git.push-delete-main")]
    if deleting or _short(options, "o") or deleted:
        findings.append(ask("git push --delete deletes a remote branch", "git", BlastRadius.MEDIUM, "git.push"))
    if _long(options, "--prune"):
        findings.append(ask("git push --prune deletes remote branches that are gone locally", "git",
                            BlastRadius.MEDIUM, "git.push"))
    if _long(options, "--receive-pack", "--exec"):
        findings.append(ask("git push --receive-pack runs a program on the remote", "git", BlastRadius.HIGH,
                            "git.push"))
    if _long(options, "--no-verify"):
        findings.append(ask("git push --no-verify skips the pre-push hooks", "git", BlastRadius.LOW, "git.push"))
    return findings or [allow("git push publishes commits (no force)", "git", rule="git.push")]


def add(run, inv, rest) -> list[Finding]:
    from .paths import classify

    _, positionals, after = _options(rest)
    secrets = []
    for w in positionals + after:
        info = classify(w, inv.scope, run.tax)
        if info.path and (info.path in run.secret_copies or is_secret(info.path, inv.scope.home, run.tax)):
            secrets.append(w.display())
    if secrets:
        run.staged_secrets.extend(secrets)
        return [ask(f"git add stages secrets ({', '.join(secrets[:3])})", "secrets", BlastRadius.HIGH, "git.add")]
    return [allow("git add stages changes", "git", rule="git.add")]


def remote(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    if len(positionals) >= 2 and positionals[0].value == "add":
        run.added_remotes.add(positionals[1].value)
    return [allow("git remote manages remote names", "git", rule="git.remote")]


def gc(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if any(o in ("--prune=now", "--prune=all") for o in options):
        return [ask("git gc --prune=now drops unreachable commits at once (no reflog safety net)", "git",
                    BlastRadius.LOW, "git.gc")]
    return [allow("git gc tidies the repository", "git", rule="git.gc")]


def lfs(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    words = [w.value for w in positionals]
    if words[:1] == ["migrate"] and words[1:2] in (["import"], ["export"]):
        return [ask("git lfs migrate rewrites history", "git", BlastRadius.HIGH, "git.lfs")]
    if words[:1] == ["prune"]:
        return [ask("git lfs prune deletes local copies of old large files", "git", BlastRadius.LOW, "git.lfs")]
    return [allow("git lfs", "git", rule="git.lfs")]


def commit(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--no-verify") or _short(options, "n", "mFCctS"):
        return [ask("git commit --no-verify skips the commit hooks", "git", BlastRadius.LOW, "git.commit")]
    return [allow("git commit records changes", "git", rule="git.commit")]


def worktree(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    action = positionals[0].value if positionals else "list"
    if action == "remove":
        return [ask("git worktree remove deletes the worktree's directory", "git", BlastRadius.MEDIUM,
                    "git.worktree")]
    return [allow(f"git worktree {action}", "git", rule="git.worktree")]


def git_rm(run, inv, rest) -> list[Finding]:
    options, paths, after = _options(rest)
    if _long(options, "--cached"):
        return [allow("git rm --cached only untracks files", "git", rule="git.rm")]
    if not (_long(options, "--dry-run") or _short(options, "n")):
        _removes(run, inv, paths + after, "", recursive=_short(options, "r"))
    if _long(options, "--force") or _short(options, "f"):
        return [ask("git rm -f deletes files even with uncommitted changes", "git", BlastRadius.MEDIUM, "git.rm")]
    return [allow("git rm deletes committed files (recoverable from history)", "git", rule="git.rm")]


def update_ref(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _short(options, "d") or _long(options, "--stdin"):
        return [ask("git update-ref -d deletes a ref", "git", BlastRadius.MEDIUM, "git.update-ref")]
    return [ask("git update-ref moves a ref directly", "git", BlastRadius.LOW, "git.update-ref")]


def read_tree(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--reset"):
        return [ask("git read-tree --reset discards the index (and files with -u)", "git", BlastRadius.MEDIUM,
                    "git.read-tree")]
    return [allow("git read-tree reads a tree into the index", "git", rule="git.read-tree")]


def prune(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--dry-run") or _short(options, "n"):
        return [allow("git prune -n only lists", "git", rule="git.prune")]
    return [ask("git prune deletes unreachable objects for good", "git", BlastRadius.LOW, "git.prune")]


def reflog(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    options, _, _ = _options(rest)
    if positionals and positionals[0].value in ("expire", "delete", "drop") and \
            not (_long(options, "--dry-run") or _short(options, "n")):
        return [ask(f"git reflog {positionals[0].value} deletes the safety net of past positions", "git",
                    BlastRadius.MEDIUM, "git.reflog")]
    return [allow("git reflog shows past positions", "git", rule="git.reflog")]


def rewrite_history(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--analyze", "--dry-run"):
        return [allow("git filter-repo --analyze only reports", "git", rule="git.filter")]
    words = [w.value for w in rest]
    paths = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("--path", "--path-glob")]
    if paths:  # filter-repo keeps only these paths (or, --invert-paths, drops them), in history and work tree
        invert = "--invert-paths" in words
        dropped = _guard_files_dropped(inv.scope, lambda p: any(
            _covers(q, p) for q in paths) != invert)
        if dropped:
            return _guard_removed("git filter-repo", dropped)
    return [ask("rewriting the whole history changes every commit", "git", BlastRadius.HIGH, "git.filter")]


def sparse_checkout(run, inv, rest) -> list[Finding]:
    """git sparse-checkout set/add/init: the work tree keeps only what the patterns name (in cone mode also the
    files at the top): the guard's files they leave out are taken away."""
    routine = [allow("git sparse-checkout is everyday repository work", "git", rule="git.routine")]
    words = [w.value for w in rest]
    if not words or words[0] not in ("set", "init"):
        return routine
    patterns = [w for w in words[1:] if not w.startswith("-")]
    if any(DYN in p for p in patterns):
        return routine
    cone = "--no-cone" not in words

    def kept(path: str) -> bool:
        if cone and "/" not in path.rstrip("/") and not path.endswith("/"):
            return True  # cone mode keeps the files at the top, not the directories there
        return any(_covers(p, path) for p in patterns)

    dropped = _guard_files_dropped(inv.scope, kept)
    return _guard_removed(f"git sparse-checkout {words[0]}", dropped) if dropped else routine


def _covers(pattern: str, path: str) -> bool:
    """Does a path pattern (a directory, a file, a glob; `/` anchors it at the top) name `path`?"""
    q = pattern.lstrip("/").rstrip("/")
    if not q or q in ("*", "**"):
        return True
    path = path.rstrip("/")
    return path == q or path.startswith(q + "/") or fnmatch.fnmatchcase(path, q) or \
        fnmatch.fnmatchcase(path, q + "/*") or q.startswith(path + "/")


def _guard_files_dropped(scope, kept) -> list[str]:
    """The guard's files in the repository's work tree (those that exist) that `kept` leaves out."""
    found = repository(scope.cwd) if scope.cwd else None
    if found is None:
        return []
    root = found[0]
    return [rel for rel in project_guard_paths() if os.path.exists(posixpath.join(root, rel)) and not kept(rel)]


def _guard_removed(what: str, dropped: list[str]) -> list[Finding]:
    return [deny(f"{what} removes {', '.join(dropped[:3])} (the guard's files) from the working tree: an agent may "
                 "not change the guard that watches it; if you mean it, run it yourself in a terminal", "guard-self",
                 "git.guard-files")]


def merge(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    if _long(options, "--no-verify"):
        return [ask("git merge --no-verify skips the merge hooks", "git", BlastRadius.LOW, "git.merge")]
    return [allow("git merge", "git", rule="git.merge")]


def checkout_index(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    prefix = next((o.partition("=")[2] for o in options if o.startswith("--prefix=")), None)
    if prefix:
        f = run.write(Word.literal(prefix), inv, "git checkout-index --prefix")
        root = inv.scope.project or inv.scope.cwd or "/"
        inside = posixpath.normpath(posixpath.join(root, prefix)).startswith(root.rstrip("/") + "/") and \
            not prefix.startswith(("~", "/"))
        if (_long(options, "--all") or _short(options, "a")) and DYN not in prefix and not inside:
            # every tracked file lands at PREFIX/its path: the repository's dot directories land there too
            for rel in _tracked_dot_files(inv.scope.project or inv.scope.cwd)[:64]:
                landed = run.write(Word.literal(prefix + rel), inv, "git checkout-index --prefix writes")
                f = worst([x for x in (f, landed) if x is not None]) if landed is not None else f
        return [f] if f else [allow("git checkout-index exports files to another directory", "git",
                                    rule="git.checkout-index")]
    if _long(options, "--force") or _short(options, "f"):
        return [ask("git checkout-index -f overwrites working files", "git", BlastRadius.MEDIUM, "git.checkout-index")]
    return [allow("git checkout-index writes missing files", "git", rule="git.checkout-index")]


# the programs a repository's own config makes git run that depend on the command's arguments: a diff of files
# .gitattributes gives a driver (textconv), a merge (merge drivers), the submodules updated (`update = !cmd`),
# a signature (gpg programs, ssh's default key command). The settings every run of a subcommand uses
# (core.fsmonitor, filters, pager, ssh command) and the hooks are rules/later.py's _repository_commands.
_PROGRAM_KEYS = (
    (re.compile(r"diff\..+\.(?:textconv|command)|diff\.external"),
     {"diff", "show", "blame", "annotate", "format-patch", "log -p"}, ("--no-textconv", "--no-ext-diff")),
    (re.compile(r"merge\..+\.driver"), {"merge", "pull", "rebase", "cherry-pick", "revert", "am", "stash", "checkout",
                                         "switch"}, ()),
    (re.compile(r"submodule\..+\.update"), {"submodule", "clone", "pull"}, ()),
    # git add -p and the other patch modes pipe every hunk through interactive.diffFilter
    (re.compile(r"interactive\.difffilter"), {"add -p", "checkout -p", "reset -p", "restore -p", "stash -p",
                                               "commit -p", "add -i", "commit -i"}, ()),
    (re.compile(r"mergetool\..+\.cmd"), {"mergetool"}, ()),
    (re.compile(r"difftool\..+\.cmd"), {"difftool"}, ()),
    # a trailer's command runs whenever git interprets trailers: `git commit --trailer`, `git interpret-trailers`
    (re.compile(r"trailer\..+\.(?:cmd|command)"), {"commit trailer", "interpret-trailers", "tag trailer"}, ()),
    # git-lfs runs a custom transfer agent for every object it moves (and its smudge filter on checkout)
    (re.compile(r"lfs\.customtransfer\..+\.path|lfs\.extension\..+\.(?:clean|smudge)"),
     {"lfs", "pull", "clone", "checkout", "switch", "fetch", "push", "reset", "restore"}, ()),
    (re.compile(r"gpg\.program|gpg\..+\.program|gpg\.ssh\.defaultkeycommand|gpg\.ssh\.program"),
     {"commit signed", "tag signed", "merge signed", "rebase signed", "cherry-pick signed", "revert signed",
      "am signed", "pull signed", "verify-commit", "verify-tag"}, ()),
)


def _repository_programs(run: "Run", inv: "Invocation", sub: str, args: list[str], overrides: list[str]) -> None:
    """What the repository's own .git/config makes this git command run (a textconv for `git diff`, a merge driver
    for `git merge`): judged as the commands they are, for what would deny (a config the agent cannot have
    written without the guard seeing it may still have come with the repository)."""
    if inv.scope.remote or not inv.scope.cwd:
        return
    repo = repository(inv.scope.cwd)
    text = read_text(posixpath.join(repo[1], "config"), 65536) if repo else None
    if not text:
        return
    overridden = {o.partition("=")[0].strip().lower() for o in overrides}
    settings = config_settings(text)
    forms = {sub}
    if sub == "log" and {"-p", "--patch", "-u"} & set(args):
        forms.add("log -p")
    if {"-p", "--patch"} & set(args) or any(re.fullmatch(r"-[a-zA-Z]*p[a-zA-Z]*", a) for a in args if a != "-p"):
        forms.add(f"{sub} -p")
    if {"-i", "--interactive"} & set(args):
        forms.add(f"{sub} -i")
    if "--trailer" in args or any(a.startswith("--trailer=") for a in args):
        forms.add(f"{sub} trailer")
    signing = {"-S", "--gpg-sign", "-s", "--sign"} & set(args) or any(a.startswith("--gpg-sign=") for a in args) or \
        settings.get("commit.gpgsign", "").lower() == "true" and sub != "tag" or \
        settings.get("tag.gpgsign", "").lower() == "true" and sub == "tag"
    if signing and "--no-gpg-sign" not in args:
        forms.add(f"{sub} signed")
    attributes = _attribute_drivers(repo[0])
    paths = args[args.index("--") + 1:] if "--" in args else []
    for key, value in list(settings.items())[:512]:
        if key in overridden or not value:
            continue
        for pattern, subcommands, off in _PROGRAM_KEYS:
            if pattern.fullmatch(key) and forms & subcommands and not set(args) & set(off):
                command = value[1:] if value.startswith("!") else value
                if key.startswith("submodule.") and (not value.startswith("!") or
                                                     _other_submodules(key, args)):
                    break  # checkout, rebase, merge, none: git's own ways of updating; or not this submodule
                driver = key.split(".")[1] if key.count(".") >= 2 and key.split(".")[0] in ("diff", "merge") else ""
                if driver and not _attribute_reaches(attributes, key.split(".")[0], driver, paths, repo[0]):
                    break  # no file these paths reach is given to that driver (.gitattributes)
                before = len(run.result.findings)
                run.nested(command, inv, f"git {sub} › {key}")
                kept = [f for f in run.result.findings[before:] if f.verdict is Verdict.DENY]
                del run.result.findings[before:]
                for finding in kept:
                    run.add(finding)
                break


def _attribute_drivers(root: str) -> list[tuple[str, str, str]]:
    """(pattern, attribute, driver) for each `PATTERN diff=NAME` / `merge=NAME` line of the top .gitattributes."""
    text = read_text(posixpath.join(root, ".gitattributes"), 65536) or ""
    out = []
    for line in text.splitlines()[:2000]:
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        for attr in parts[1:]:
            name, eq, driver = attr.partition("=")
            if eq and name in ("diff", "merge"):
                out.append((parts[0], name, driver))
    return out


def _attribute_reaches(attributes: list[tuple[str, str, str]], kind: str, driver: str, paths: list[str],
                       root: str) -> bool:
    """Could a file under these paths (every file: no paths) be given to that driver? A directory is looked
    into (a bounded walk)."""
    patterns = [p.lstrip("/") for p, k, d in attributes if k == kind and d == driver]
    if not patterns or not paths:
        return bool(patterns)

    def matches(rel: str) -> bool:
        return any(fnmatch.fnmatchcase(posixpath.basename(rel), p) or fnmatch.fnmatchcase(rel, p) for p in patterns)

    seen = 0
    for path in paths[:16]:
        rel = posixpath.normpath(path).lstrip("./")
        if matches(rel):
            return True
        for directory, _, files in os.walk(posixpath.join(root, rel)):
            for name in files:
                seen += 1
                if matches(posixpath.relpath(posixpath.join(directory, name), root)) or seen > 2000:
                    return True
    return False


def _other_submodules(key: str, args: list[str]) -> bool:
    """`git submodule update --init third_party/fonts`: only the named submodules are updated."""
    named = [a.rstrip("/") for a in args if not a.startswith("-") and a not in ("update", "foreach", "init", "sync")]
    return bool(named) and key.split(".", 1)[1].rsplit(".", 1)[0].rstrip("/") not in named


_AGENT_DIRS = (".claude", ".codex", ".gemini", ".cursor", ".agents", ".guardtui", ".config")


def _tracked_dot_files(root: str | None) -> list[str]:
    """The files under the repository's agent and config dot directories (what a checkout elsewhere carries)."""
    found: list[str] = []
    for name in _AGENT_DIRS if root else ():
        for directory, _, files in os.walk(os.path.join(root, name)):
            found += [os.path.relpath(os.path.join(directory, f), root) for f in files]
            if len(found) > 64:
                return found
    return found


def _local_receive_hooks(run, inv, remote: str) -> None:
    """git push ../mirror.git: a repository on this machine runs its own receive hooks, here and now."""
    if not remote or DYN in remote or inv.scope.remote or not inv.scope.cwd:
        return
    path = remote[len("file://"):] if remote.startswith("file://") else remote
    if not path.startswith(("/", "./", "../", "~/")):
        return
    base = posixpath.normpath(posixpath.join(inv.scope.cwd, os.path.expanduser(path)))
    for hooks in (posixpath.join(base, "hooks"), posixpath.join(base, ".git", "hooks")):
        for name in ("pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
                     "push-to-checkout"):
            hook = posixpath.join(hooks, name)
            if os.path.isfile(hook):
                judged = run.project_file(hook, inv, "", f"{name} (the receiving repository's hook)")
                if judged is not None:
                    run.add(judged)


def difftool(run, inv, rest) -> list[Finding]:
    """git difftool -x CMD: CMD runs once per changed file (judged as it is)."""
    values = [w.value for w in rest]
    for i, value in enumerate(values):
        command = values[i + 1] if value in ("-x", "--extcmd") and i + 1 < len(values) else \
            value.partition("=")[2] if value.startswith("--extcmd=") else None
        if command and DYN not in command:
            run.nested(command, inv, "git difftool -x")
    return [allow("git difftool shows the changes in a diff program", "git", rule="git.read")]


def subtree(run, inv, rest) -> list[Finding]:
    """git subtree add|pull|merge --prefix=P: another repository's files land under P."""
    prefix = next((w.value.partition("=")[2] for w in rest if w.value.startswith("--prefix=")), None) or \
        next((rest[i + 1].value for i, w in enumerate(rest[:-1]) if w.value in ("--prefix", "-P")), None)
    sub = next((w.value for w in rest if not w.value.startswith("-")), "")
    if prefix and sub in ("add", "pull", "merge") and DYN not in prefix:
        written = run.write(Word.literal(prefix), inv, f"git subtree {sub} puts files in", recursive=True)
        if written is not None:
            return [written]
    return [allow(f"git subtree {sub} is everyday repository work", "git", rule="git.subtree")]


def config(run, inv, rest) -> list[Finding]:
    options, positionals, _ = _options(rest)
    reading = _long(options, "--get", "--get-all", "--get-regexp", "--list", "--show-origin", "--get-urlmatch") or \
        _short(options, "l") or (positionals and positionals[0].value in ("get", "list"))
    files = [rest[i + 1] for i, w in enumerate(rest[:-1]) if w.value in ("-f", "--file")] + \
        [Word.literal(w.value.partition("=")[2]) for w in rest if w.value.startswith("--file=")]
    if reading:
        for file in files:  # git config -f ~/.aws/credentials --get …: git as an INI reader of that file
            info = run.path(file, inv)
            if info.path and not inv.scope.remote and (
                    is_secret(info.path, inv.scope.home, run.tax, home_only=True) or
                    read_reason(info.path, inv.scope.home, inv.scope.project or inv.scope.cwd)):
                return [ask(f"git config -f {file.display()} reads a secret (keys or credentials)", "sensitive-read",
                            BlastRadius.MEDIUM, "git.config-secret-read")]
        return [allow("git config only reads settings", "git", rule="git.config")]
    for file in files:  # git config -f ~/.codex/config.toml features.hooks false: writes that file, whatever it is
        written = run.write(file, inv, "git config -f writes")
        if written is not None:
            return [written]
    words = [w.value for w in positionals]
    if words and words[0] in ("set", "unset", "rename-section", "remove-section", "edit"):
        words = words[1:]
    key = words[0] if words else ""
    if _long(options, "--edit") or _short(options, "e"):
        return [ask("git config --edit opens an editor on the config", "git", BlastRadius.LOW, "git.config")]
    harmless_alias = key.lower().startswith("alias.") and len(words) >= 2 and not words[1].startswith("!")
    if key.lower() == "credential.helper" and len(words) >= 2 and words[1].startswith("!") and \
            re.search(r"\b(curl|wget|nc|ncat|socat|scp|rsync|ssh)\b|/dev/(tcp|udp)/", words[1]):
        # git hands this helper every username and password it stores or asks for
        return [deny("git config credential.helper installs a helper that sends your credentials to another host",
                     "secrets", "git.credential-exfiltration")]
    if key.lower() in ("core.hookspath", "init.templatedir") and len(words) >= 2 and DYN not in words[1]:
        judged = _hooks_dir(run, inv, key.lower(), words[1])
        if judged is not None:
            return judged
    armed = _armed_push(key, words[1] if len(words) >= 2 else "", options)
    if armed is not None:  # remote.origin.mirror true: every later plain push is judged as it will then run
        remote_name, argv = armed
        judged = push(run, inv, [Word.literal(w) for w in [remote_name] + argv])
        if any(f.verdict is not Verdict.ALLOW for f in judged):
            return [replace(f, reason=f"git config {key} makes every later `git push {remote_name}` one that "
                                      f"{f.reason[0].lower() + f.reason[1:]}") for f in judged]
    if re.fullmatch(r"(?i)url\..+\.(?:push)?insteadof|(?:http|https)(?:\..+)?\.proxy", key) and len(words) >= 2:
        # every later fetch and push of those URLs (with the token the credential helper gives) goes elsewhere
        return [ask(f"git config {key} sends git's traffic for those URLs, and their credentials, somewhere else",
                    "network", BlastRadius.HIGH, "git.config-redirect")]
    if key and _EXEC_CONFIG.match(key) and len(words) >= 2 and not harmless_alias:
        _judge_config_command(run, inv, key, words[1], f"git config {key}")
        if _plain_program(run, key, words[1]):
            return [allow(f"git config {key} {words[1]} sets a pager, editor or ssh command guardtui knows",
                          "git", rule="git.config")]
        return [ask(f"git config {key} makes git run a program", "git", BlastRadius.HIGH, "git.config-exec")]
    return [allow("git config changes a setting", "git", rule="git.config")]


def _armed_push(key: str, value: str, options: list[str]) -> tuple[str, list[str]] | None:
    """A setting that changes what a later plain `git push REMOTE` does: (remote, the push it then amounts to)."""
    m = re.fullmatch(r"(?i)remote\.(.+)\.(mirror|push)", key)
    if m is None or not value or DYN in value or _long(options, "--unset", "--unset-all"):
        return None
    if m.group(2).lower() == "mirror":
        return (m.group(1), ["--mirror"]) if value.lower() in ("true", "yes", "on", "1") else None
    return m.group(1), [value]


_CLONE_VALUES = {"-o", "--origin", "-b", "--branch", "-u", "--upload-pack", "--reference", "--reference-if-able",
                 "--separate-git-dir", "--depth", "--shallow-since", "--shallow-exclude", "-c", "--config", "--filter",
                 "-j", "--jobs", "--template", "--bundle-uri", "--server-option", "--ref-format"}


def clone(run, inv, rest) -> list[Finding]:
    """git clone URL [DIR]: the directory is made with what the repository holds (a guard dir among them denies)."""
    positionals: list[Word] = []
    i = 0
    while i < len(rest):
        v = rest[i].value
        if v == "--":
            positionals += rest[i + 1:]
            break
        if v in _CLONE_VALUES:
            i += 2
            continue
        if not v.startswith("-"):
            positionals.append(rest[i])
        i += 1
    if positionals:
        url = positionals[0].value
        path = positionals[1] if len(positionals) >= 2 else \
            Word.literal(re.sub(r"\.git$", "", url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]) or ".")
        if not path.dynamic:
            found = run.write(path, inv, "git clone makes", recursive=True, detail="fetched")
            if found is not None and found.verdict is not Verdict.ALLOW:
                return [found]
    return [allow("git clone is everyday repository work", "git", rule="git.routine")]


_SUBMODULE_VALUES = {"-b", "--branch", "--name", "--reference", "--depth"}


def submodule(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    if positionals and positionals[0].value == "add":
        add_at = next(i for i, w in enumerate(rest) if w.value == "add")
        positionals = [Word.literal("add")] + [w for i, w in enumerate(rest[add_at + 1:], add_at + 1) if
                                               not w.value.startswith("-") and rest[i - 1].value not in _SUBMODULE_VALUES]
    if positionals and positionals[0].value == "add" and len(positionals) >= 2:
        # git submodule add URL [PATH]: an outside repository checked out into the project (its files land at PATH)
        url = positionals[1].value
        path = positionals[2] if len(positionals) >= 3 else \
            Word.literal(re.sub(r"\.git$", "", url.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]))
        written = run.write(path, inv, "git submodule add checks a repository out into", recursive=True,
                            detail="fetched")
        if written is not None and written.verdict is not Verdict.ALLOW:
            return [written]
        return [ask(f"git submodule add brings {url} into the project: outside code, like a new dependency", "package",
                    BlastRadius.MEDIUM, "git.submodule-add")]
    if positionals and positionals[0].value == "foreach":
        idx = next(i for i, w in enumerate(rest) if w.value == "foreach")
        command = " ".join(w.value for w in rest[idx + 1:] if not w.value.startswith("--recursive"))
        run.nested(command, inv, "git submodule foreach")
        return [allow("git submodule foreach (its command is judged on its own)", "git", rule="git.submodule")]
    if positionals and positionals[0].value == "update" and (_long(_options(rest)[0], "--force") or
                                                              _short(_options(rest)[0], "f")):
        return [ask("git submodule update --force throws away local changes in submodules", "git",
                    BlastRadius.MEDIUM, "git.submodule")]
    if positionals and positionals[0].value == "deinit":
        return [ask("git submodule deinit removes the submodule's working tree", "git", BlastRadius.MEDIUM,
                    "git.submodule")]
    return [allow("git submodule", "git", rule="git.submodule")]


def rebase(run, inv, rest) -> list[Finding]:
    for i, w in enumerate(rest):
        if w.value in ("-x", "--exec") and i + 1 < len(rest):
            run.nested(rest[i + 1].value, inv, "git rebase --exec")
        elif w.value.startswith("--exec="):
            run.nested(w.value.partition("=")[2], inv, "git rebase --exec")
    return [allow("git rebase replays commits (recoverable through the reflog)", "git", rule="git.rebase")]


def bisect(run, inv, rest) -> list[Finding]:
    if rest and rest[0].value == "run" and len(rest) > 1:
        synthetic = SimpleCommand(rest[1:], " ".join(w.display() for w in rest[1:]), inv.cmd.span,
                                  inv.scope.copy(), "git bisect run", depth=inv.cmd.depth + 1)
        run.judge(synthetic, inv.cmd.depth + 1)
    return [allow("git bisect", "git", rule="git.bisect")]


def blob_secrets(run, inv, rest) -> list[Finding]:
    """`git show REV:deploy/staging.env`, `git cat-file -p REV:.env`: a secret file's text as a commit holds it,
    printed where the agent reads it (a secret by name, or an environment file: staging.env). What that old
    version holds is not known without running git: it asks, as reading the file would when it holds credentials."""
    cwd = inv.scope.cwd
    for w in rest:
        m = re.match(r"^[^-:][^:]*:(?!/)(.+)$", w.value) if w.static else None
        if m is None or not cwd:
            continue
        root = (repository(cwd) or (cwd,))[0]
        path = posixpath.normpath(posixpath.join(cwd if m.group(1).startswith("./") else root, m.group(1)))
        if is_secret(path, inv.scope.home) or fnmatch.fnmatchcase(posixpath.basename(path), "?*.env"):
            return [ask(f"git prints {m.group(1)} as {w.value.split(':', 1)[0]} holds it: a secret file's contents "
                        f"(keys or credentials)", "secrets", BlastRadius.MEDIUM, "git.secret-blob")]
    return []


def diff_like(run, inv, rest) -> list[Finding]:
    options, _, _ = _options(rest)
    findings: list[Finding] = blob_secrets(run, inv, rest)
    if _long(options, "--ext-diff", "--textconv"):
        findings.append(ask("--ext-diff/--textconv make git run configured programs", "git", BlastRadius.MEDIUM,
                            "git.diff-exec"))
    for i, w in enumerate(rest):
        if w.value.startswith("--output="):
            f = run.write(Word.literal(w.value.partition("=")[2]), inv, "git --output")
            if f is not None:
                findings.append(f)
        elif w.value in ("--output", "-o") and i + 1 < len(rest):
            f = run.write(rest[i + 1], inv, "git --output")
            if f is not None:
                findings.append(f)
    return findings or [allow("git only reads the repository", "git", rule="git.read")]


_PROGRAM_OPTIONS = ("--exec", "--upload-pack", "-u", "--receive-pack", "--upload-archive")
_REMOTE_OPTIONS = ("--remote",)


def _remote_programs(run, inv, rest) -> list[Finding]:
    """git archive --remote=R --exec=PROG, git fetch/clone/ls-remote --upload-pack=PROG, git push --receive-pack:
    PROG runs in place of git's own server program, here when R is a path on this machine (judged as the command
    it is, with R as its argument), on the other host otherwise (an ask)."""
    values = [w.value for w in rest]
    programs: list[str] = []
    remote = ""
    for i, value in enumerate(values):
        name, eq, attached = value.partition("=")
        if name in _PROGRAM_OPTIONS and (eq or i + 1 < len(values)) and (eq or name.startswith("--") or name == "-u"):
            programs.append(attached if eq else values[i + 1])
        elif name in _REMOTE_OPTIONS and (eq or i + 1 < len(values)):
            remote = attached if eq else values[i + 1]
    if not remote:  # fetch/clone/ls-remote/push: the first operand is the remote
        remote = next((v for v in values if not v.startswith("-") and v not in programs), "")
    findings: list[Finding] = []
    for program in programs[:4]:
        if DYN in program:
            findings.append(ask(f"git runs a program only known at run time ({program[:40]})", "dynamic-exec",
                                BlastRadius.HIGH, "git.remote-program"))
            continue
        local = remote.startswith(("/", "./", "../", "~/", "file://")) or (remote and "://" not in remote and
                                                                         ":" not in remote)
        if local:
            run.nested(f"{program} {shlex.quote(remote[len('file://'):] if remote.startswith('file://') else remote)}",
                       inv, f"git {program[:40]} (in place of git's own server program)")
        findings.append(ask(f"git runs {program[:60]} in place of its own server program", "git", BlastRadius.HIGH,
                            "git.remote-program"))
    return findings


def archive(run, inv, rest) -> list[Finding]:
    return _remote_programs(run, inv, rest) + diff_like(run, inv, rest)


def send_email(run, inv, rest) -> list[Finding]:
    return [ask("git send-email sends email", "git", BlastRadius.MEDIUM, "git.send-email")]


def credential(run, inv, rest) -> list[Finding]:
    _, positionals, _ = _options(rest)
    action = positionals[0].value if positionals else ""
    if action == "fill":
        return [ask("git credential fill prints the stored username and password", "secrets", BlastRadius.MEDIUM,
                    "git.credential")]
    if action in ("approve", "reject", "store", "erase"):
        return [ask(f"git credential {action} changes stored credentials", "secrets", BlastRadius.MEDIUM,
                    "git.credential")]
    return [allow("git credential", "git", rule="git.credential")]



# -- what git does to the files (effects, for the protection rule) -------------------------------------
def _restores(run, inv, words: list[Word], only: str = "tracked") -> None:
    """git puts back (checkout, restore, reset --hard, stash) the tracked changes of these paths."""
    for w in words:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "write", inv.cmd, info.remote, recursive=True, only=only,
                   members=glob_members(w))


def _removes(run, inv, words: list[Word], only: str, recursive: bool = True) -> None:
    for w in words:
        info = run.path(w, inv)
        run.effect(info.path, w.display(), "delete", inv.cmd, info.remote, recursive=recursive, only=only,
                   members=glob_members(w))


def _work_tree(inv) -> list[Word]:
    """The whole work tree (stash and reset --hard act on all of it), as a word."""
    cwd = inv.scope.cwd
    repo = repository(cwd) if cwd else None
    return [Word.literal(repo[0] if repo else (cwd or "."))]


def apply(run, inv, rest) -> list[Finding]:
    """git apply / am: the files the patch names are written (unless it only checks or stats)."""
    options, positionals, _ = _options(rest)
    if any(o in ("--check", "--stat", "--numstat", "--summary", "--cached") for o in options):
        return [allow("git apply --check/--stat/--cached leaves the work tree alone", "git", rule="git.apply")]
    strip = next((int(o[2:]) for o in options if o.startswith("-p") and o[2:].isdigit()), 1)
    for w in positionals or [None]:
        text = read_patch(run.path(w, inv).path) if w is not None and not w.dynamic else None
        if w is None:
            stream = run.stdin_source(inv.cmd)
            text = stream.text if stream.kind == "text" else None
        for name in patch_targets(text or "", strip):
            info = run.path(Word.literal(name), inv)
            run.effect(info.path, name, "write", inv.cmd, info.remote)
    return [allow("git apply changes files as the patch says", "git", rule="git.apply")]


def git_mv(run, inv, rest) -> list[Finding]:
    options, positionals, after = _options(rest)
    operands = positionals + after
    if len(operands) >= 2:
        dest = operands[-1]
        dest_info = run.path(dest, inv)
        for w in operands[:-1]:
            info = run.path(w, inv)
            run.effect(info.path, w.display(), "move", inv.cmd, info.remote, recursive=True)
            landing = dest_info.path
            if landing and info.path and (len(operands) > 2 or os.path.isdir(landing)):
                landing = landing.rstrip("/") + "/" + info.path.rstrip("/").rsplit("/", 1)[-1]
            run.effect(landing, dest.display(), "copy", inv.cmd, dest_info.remote, source=info.path)
    return [allow("git mv renames tracked files", "git", rule="git.mv")]


_SUBCOMMANDS = {
    "subtree": subtree, "difftool": difftool, "reset": reset, "checkout": checkout, "switch": switch, "restore": restore, "clean": clean, "stash": stash,
    "branch": branch, "push": push, "commit": commit, "worktree": worktree, "rm": git_rm, "update-ref": update_ref,
    "read-tree": read_tree, "prune": prune, "reflog": reflog, "filter-branch": rewrite_history,
    "filter-repo": rewrite_history, "config": config, "submodule": submodule, "clone": clone, "rebase": rebase, "bisect": bisect,
    "diff": diff_like, "log": diff_like, "show": diff_like, "format-patch": diff_like, "archive": archive,
    "send-email": send_email, "add": add, "remote": remote, "gc": gc, "lfs": lfs, "merge": merge,
    "checkout-index": checkout_index, "credential": credential, "mv": git_mv, "apply": apply,
    "sparse-checkout": sparse_checkout, "am": apply,
    "cat-file": lambda run, inv, rest: blob_secrets(run, inv, rest) or [
        allow("git cat-file only reads the repository", "git", rule="git.read")],
    # push's plumbing takes push's refspecs and --force: judged as the push it is
    "send-pack": lambda run, inv, rest: ([ask("git send-pack --stdin reads the refs it pushes from its input", "git",
                                              BlastRadius.HIGH, "git.push")]
                                         if any(w.value == "--stdin" for w in rest) else push(run, inv, rest)),
    "http-push": push,
    # --upload-pack=PROG: PROG serves the fetch (here, for a repository on this machine)
    "fetch": lambda run, inv, rest: _remote_programs(run, inv, rest) or [
        allow("git fetch is everyday repository work", "git", rule="git.routine")],
    "pull": lambda run, inv, rest: _remote_programs(run, inv, rest) or [
        allow("git pull is everyday repository work", "git", rule="git.routine")],
    "ls-remote": lambda run, inv, rest: _remote_programs(run, inv, rest) or [
        allow("git ls-remote only reads the repository", "git", rule="git.read")],
}

__all__ = ["git", "PROTECTED_BRANCHES"]


# --- Jujutsu (jj): a git-backed VCS. Its local rewrites are undoable (`jj op log`); its push is the shared act.
# jj moves a bookmark backwards or sideways only with --allow-backwards (-B), and then `jj git push` of that
# bookmark force-updates the remote one (with a lease, but without asking): main rewound for everyone.
_JJ_READ = frozenset({"st", "status", "log", "show", "diff", "interdiff", "evolog", "obslog", "root", "help",
                      "version", "files", "cat", "blame", "annotate", "--version", "-V", "--help", "-h"})
_JJ_LOCAL = frozenset({"describe", "desc", "new", "commit", "ci", "edit", "squash", "split", "rebase", "abandon",
                       "restore", "undo", "redo", "duplicate", "absorb", "next", "prev", "backout", "revert",
                       "parallelize", "simplify-parents", "diffedit", "resolve", "fix", "sparse", "init", "file",
                       "workspace", "op", "operation", "tag", "bookmark", "b", "branch", "evolve", "unsquash",
                       "move", "checkout", "co", "merge", "chmod", "untrack", "util", "sign", "unsign", "metaedit",
                       "arrange", "show"})
_JJ_GLOBALS = ("-R", "--repository", "--at-operation", "--at-op", "--color", "--config", "--config-toml",
               "--config-file")


def is_jujutsu(inv: "Invocation") -> bool:
    """`jj` is Jujutsu when its first operand is one of Jujutsu's subcommands (or there is none); else it is
    another jj (tidwall's JSON editor: `jj -v x -i f.json key`)."""
    words = [w.value for w in inv.words]
    while words and words[0].startswith("-"):
        if words[0] not in _JJ_GLOBALS and not words[0].startswith("--"):
            return words[0] in ("-h", "-V")
        words = words[2:] if words[0] in _JJ_GLOBALS else words[1:]
    return not words or words[0] in _JJ_READ | _JJ_LOCAL | {"git", "config"}


def jj(run: "Run", inv: "Invocation") -> list[Finding]:
    """jj: reading and local rewrites are everyday work (jj op undo takes them back); `jj git push` of main after
    main was moved backwards (or deleted) in this command or earlier in the session rewrites the shared main."""
    words = [w.value for w in inv.words]
    while words and words[0].startswith("-"):  # global options before the subcommand
        words = words[2:] if words[0] in _JJ_GLOBALS else words[1:]
    if not words:
        return [allow("jj with no subcommand shows the log", "git", rule="jj.read")]
    if any(w.dynamic for w in inv.words):
        return [ask("the jj command is only known at run time", "git", BlastRadius.HIGH, "jj.dynamic")]
    sub = words[0]
    moves = jj_bookmark_moves(words, PROTECTED_BRANCHES)
    if moves:
        for name, what in moves.items():
            run.result.leaves[f"jj-{what}:{name}"] = "1"
        name, what = sorted(moves.items())[0]
        verb = "moves {} backwards" if what == "rewound" else "deletes {}"
        return [ask(f"jj bookmark {words[1]} {verb.format(name)}: the next jj git push rewrites the shared {name}", "git",
                    BlastRadius.HIGH, "jj.bookmark-main")]
    if sub == "git" and len(words) > 1 and words[1] == "push":
        return [_jj_push(inv, words[2:])]
    if sub == "git":
        action = words[1] if len(words) > 1 else ""
        if action in ("fetch", "import", "export", "init", "clone", "colocation", "root"):
            return [allow(f"jj git {action} is everyday repository work", "git", rule="jj.routine")]
        if action == "remote" and len(words) > 2 and words[2] in ("list", "l"):
            return [allow("jj git remote list only reads", "git", rule="jj.read")]
        return [ask(f"jj git {action} changes the repository's remotes", "git", BlastRadius.LOW, "jj.git")]
    if sub == "config":
        action = words[1] if len(words) > 1 else ""
        if action in ("list", "l", "get", "path"):
            return [allow(f"jj config {action} only reads", "git", rule="jj.read")]
        return [ask(f"jj config {action} changes settings (some name programs jj runs)", "git", BlastRadius.MEDIUM,
                    "jj.config")]
    if "--ignore-immutable" in words:
        return [ask(f"jj {sub} --ignore-immutable rewrites commits already on main or pushed", "git",
                    BlastRadius.HIGH, "jj.rewrite-immutable")]
    if sub in _JJ_READ:
        return [allow(f"jj {sub} only reads the repository", "git", rule="jj.read")]
    if sub in _JJ_LOCAL:
        return [allow(f"jj {sub} changes only the local repository (jj undo takes it back)", "git",
                      rule="jj.routine")]
    return [unknown(f"jj {sub} is not a jj command guardtui knows", "git", rule="jj.unknown")]


def _jj_push(inv: "Invocation", rest: list[str]) -> Finding:
    options, _, flags = jj_options(rest, JJ_VALUES - {"-B", "-A", "-d", "-o", "-s", "-t", "-f", "-m", "-n"})
    if "--dry-run" in flags:
        return allow("jj git push --dry-run sends nothing", "git", rule="jj.push")
    facts = inv.scope.facts
    rewound = {b for b in PROTECTED_BRANCHES if facts.get("jj-rewound:" + b)}
    deleted = {b for b in PROTECTED_BRANCHES if facts.get("jj-deleted:" + b)}
    named = jj_names(options.get("-b", []) + options.get("--bookmark", []) + options.get("--branch", []) +
                      [v.partition("=")[0] for v in options.get("--named", [])], PROTECTED_BRANCHES)
    every = bool(flags & {"--all", "--tracked"}) or not (named or options.get("-c") or options.get("--change") or
                                                         options.get("-r") or options.get("--revisions"))
    pushed = (named | (PROTECTED_BRANCHES if every else set())) & PROTECTED_BRANCHES
    if "--deleted" in flags:
        pushed |= deleted
    if flags & {"--force", "-f", "--force-with-lease", "--allow-backwards"} and pushed:
        return deny(f"jj git push forcing {sorted(pushed)[0]} rewrites the shared history of it", "git",
                    "jj.push-main")
    if pushed & rewound:
        name = sorted(pushed & rewound)[0]
        return deny(f"jj git push of {name} after moving it backwards rewinds the remote {name}: every commit after "
                    "it is dropped for everyone", "git", "jj.push-main")
    if pushed & deleted:
        name = sorted(pushed & deleted)[0]
        return deny(f"jj git push deletes the remote {name} branch, the shared history everyone builds on", "git",
                    "jj.push-main")
    return allow("jj git push publishes bookmarks (jj refuses to move a remote bookmark it has not seen)", "git",
                 rule="jj.push")
