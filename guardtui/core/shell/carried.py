"""Secret files a command carries off the machine inside something bigger (core/carried.py answers which):

- `npm publish` (pnpm, yarn npm, bun): the package's files (files[], else what .npmignore/.gitignore leave in);
- `docker build` whose Dockerfile copies the whole context, pushed (`--push`, a later `docker push` of its tag,
  in this command or a later call of the session); a build sent to a remote daemon is cmd_containers';
- `git push` of commits that put a credential the session wrote (Write/Edit, core/carried.written_secret) into a
  file the commit took (`git add -A`, `git commit -a`, a path), in this command or earlier in the session.
Each denies: the secret leaves for a registry or a Git host. `npm pack`, a build kept local and a commit
not pushed stay as they were."""
from __future__ import annotations

import os
import posixpath
import re
from typing import TYPE_CHECKING

from .. import carried
from ..carried import WROTE_SECRET
from ..secrets import secret_catalog
from ..gitindex import _ignored, repository
from .findings import Finding, deny
from .words import DYN

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_PACKAGERS = {"npm", "pnpm", "yarn", "bun"}
_BUILDERS = {"docker", "podman", "nerdctl", "buildah"}
COMMITTED_SECRET = "committed-secret:"  # that file, committed since -> what it is
STAGED_SECRET = "staged-secret:"
SECRET_IMAGE = "secret-image:"  # an image built with a secret file in it -> which file


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    if inv.scope.remote or not inv.scope.cwd:
        return []
    if inv.name in _PACKAGERS:
        return _publish(inv)
    if inv.name in _BUILDERS:
        return _image(run, inv)
    if inv.name == "git":
        return _git(run, inv)
    return []


def _path(inv: "Invocation", word: str) -> str:
    if word.startswith("~/"):
        return posixpath.normpath(inv.scope.home.rstrip("/") + word[1:])
    return posixpath.normpath(posixpath.join(inv.scope.cwd or "/", word))


def _shown(found: list[tuple[str, str]]) -> str:
    rel, reason = found[0]
    more = f" and {len(found) - 1} more" if len(found) > 1 else ""
    return f"{rel} ({reason}){more}"


_PM_VALUES = {"--prefix", "-C", "--dir", "--cwd", "--tag", "--otp", "--access", "--registry", "--workspace", "-w",
              "--filter", "-F", "--userconfig", "--provenance-file", "--publish-branch", "--report-summary"}


# -- npm publish ------------------------------------------------------------------------------------------
def _publish(inv: "Invocation") -> list[Finding]:
    words = [w.value for w in inv.words]
    positionals = [w for i, w in enumerate(words) if not w.startswith("-") and not (i and words[i - 1] in _PM_VALUES)]
    if inv.name == "yarn" and positionals[:2] == ["npm", "publish"]:
        positionals = positionals[1:]
    if positionals[:1] != ["publish"] or any(w in ("--dry-run", "-n") or w.startswith("--dry-run=true")
                                             for w in words):
        return []
    directory = inv.scope.cwd or "/"
    for i, w in enumerate(words):  # npm publish --prefix DIR / pnpm -C DIR / yarn --cwd DIR
        if w in ("--prefix", "-C", "--dir", "--cwd") and i + 1 < len(words):
            directory = _path(inv, words[i + 1])
        elif w.startswith(("--prefix=", "--dir=", "--cwd=")):
            directory = _path(inv, w.partition("=")[2])
    target = next((p for p in positionals[1:] if DYN not in p), None)
    if target:
        where = _path(inv, target)
        if os.path.isfile(where):  # a packed tarball: judged by its members' names
            members = carried.tarball_files(where) or []
            catalog = secret_catalog()  # what the members hold is not read: their names say
            found = [(m, entry.reason) for m in members if (entry := catalog.match("/" + m, inv.scope.home))]
            return _published(inv, found)
        if os.path.isdir(where):
            directory = where
    files = carried.package_files(directory)
    if files is None:
        return []
    return _published(inv, carried.secrets_among(directory, files, inv.scope.home))


def _published(inv: "Invocation", found: list[tuple[str, str]]) -> list[Finding]:
    if not found:
        return []
    return [deny(f"{inv.name} publish packs {_shown(found)} into the package: the registry hands it to everyone "
                 "who installs it", "secrets", "publish.secret-file")]


# -- docker build / push ----------------------------------------------------------------------------------
_BUILD_VALUES = {"-f", "--file", "-t", "--tag", "--build-arg", "--label", "--target", "--platform", "-o",
                 "--output", "--secret", "--ssh", "--cache-from", "--cache-to", "--network", "--progress",
                 "--builder", "--iidfile", "--metadata-file", "--add-host", "--build-context", "--shm-size",
                 "-m", "--memory", "--ulimit", "--attest", "--sbom", "--provenance", "--annotation", "-c",
                 "--context", "-H", "--host", "--config", "-l", "--log-level", "--allow", "--call"}


def _image(run: "Run", inv: "Invocation") -> list[Finding]:
    words = [w.value for w in inv.words]
    positionals, options = [], []
    i = 0
    while i < len(words):
        w = words[i]
        if w.startswith("-"):
            value = words[i + 1] if w in _BUILD_VALUES and i + 1 < len(words) else None
            options.append((w.partition("=")[0], w.partition("=")[2] if "=" in w else value))
            i += 2 if value is not None else 1
            continue
        positionals.append(w)
        i += 1
    images = _secret_images(run, inv)
    if positionals[:1] in (["build"], ["bud"]) or positionals[:2] in (["buildx", "build"], ["image", "build"],
                                                                      ["builder", "build"]):
        tags = [v for o, v in options if o in ("-t", "--tag") and v]
        dockerfile = next((v for o, v in options if o in ("-f", "--file") and v), None)
        context = positionals[-1] if len(positionals) > (2 if positionals[0] != "build" else 1) else "."
        if context.startswith(("http://", "https://", "git@")) or DYN in context or context == "-":
            return []
        directory = _path(inv, context)
        listed = carried.context_files(directory, _path(inv, dockerfile) if dockerfile else None)
        if listed is None:
            return []
        files, copies_all = listed
        found = carried.secrets_among(directory, files, inv.scope.home) if copies_all else []
        if not found:
            return []
        pushed = any(o == "--push" or (o in ("-o", "--output") and v and ("type=registry" in v or "push=true" in v))
                     for o, v in options)
        if pushed:
            return [deny(f"{inv.name} build copies {_shown(found)} into an image it pushes to a registry: whoever "
                         "pulls the image gets it", "secrets", "container.secret-in-image")]
        for tag in tags:
            images[tag] = found[0][0]
            run.result.leaves[SECRET_IMAGE + tag] = found[0][0]
        return []
    if positionals[:1] == ["tag"] or positionals[:2] == ["image", "tag"]:
        names = positionals[-2:]
        if len(names) == 2 and names[0] in images:
            images[names[1]] = images[names[0]]
            run.result.leaves[SECRET_IMAGE + names[1]] = images[names[0]]
        return []
    if positionals[:1] == ["push"] or positionals[:2] == ["image", "push"]:
        name = positionals[-1] if len(positionals) > 1 else ""
        held = images.get(name) or images.get(name + ":latest") or \
            (images.get(name.rsplit(":", 1)[0]) if name.endswith(":latest") else None)
        if held:
            return [deny(f"{inv.name} push publishes {name}, an image built with {held} (a secret) copied into it: "
                         "whoever pulls the image gets it", "secrets", "container.secret-in-image")]
    return []


def _secret_images(run: "Run", inv: "Invocation") -> dict[str, str]:
    images = run.__dict__.setdefault("carried_images", {})  # built earlier in this command
    for key, value in inv.scope.facts.items():  # or earlier in the session
        if key.startswith(SECRET_IMAGE):
            images.setdefault(key[len(SECRET_IMAGE):], value)
    return images


# -- git add / commit / push ------------------------------------------------------------------------------
def _git(run: "Run", inv: "Invocation") -> list[Finding]:
    words = [w.value for w in inv.words]
    cwd = inv.scope.cwd or "/"
    i = 0
    while i < len(words) and words[i].startswith("-"):
        if words[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") and i + 1 < len(words):
            if words[i] == "-C":
                cwd = _path(inv, words[i + 1])
            i += 2
        else:
            i += 1
    if i >= len(words):
        return []
    sub, rest = words[i], words[i + 1:]
    root = _work_tree(cwd)
    if root is None:
        return []
    written = _under(inv.scope.facts, WROTE_SECRET, root)
    pending = run.__dict__.setdefault("carried_staged", {})  # path -> what, staged earlier in this command
    committed = run.__dict__.setdefault("carried_committed", {})
    earlier = _under(inv.scope.facts, COMMITTED_SECRET, root)
    if sub == "add" and (written or earlier):
        for path, what in _taken(root, cwd, rest, written, adding=True).items():
            pending[path] = what
            run.result.leaves[STAGED_SECRET + path] = what
        added = run.__dict__.setdefault("carried_added", set())  # staged again, maybe without the credential now
        added.update(_taken(root, cwd, rest, {**written, **earlier}, adding=True, clean=True))
    elif sub == "commit":
        staged = dict(_under(inv.scope.facts, STAGED_SECRET, root))
        staged.update({p: w for p, w in pending.items() if _within(p, root)})
        if written and any(w in ("-a", "--all") or (re.fullmatch(r"-[a-zA-Z]+", w) and "a" in w) for w in rest):
            staged.update(_taken(root, cwd, rest, written, adding=False))
        if written and "--" in rest:  # git commit -m … -- config.yml: those paths, staged or not
            staged.update(_taken(root, cwd, rest[rest.index("--") + 1:], written, adding=True))
        if "--amend" in rest:  # the unpushed commit rewritten: a file taken again without its credential is clean
            retaken = set(run.__dict__.get("carried_added", ())) | \
                (set(_taken(root, cwd, rest, earlier, adding=False, clean=True)) if "-a" in rest or "--all" in rest
                 else set())
            for path in earlier:
                if path in retaken and path not in staged and not carried.file_credential(path):
                    committed.pop(path, None)
                    run.result.leaves[COMMITTED_SECRET + path] = ""
        for path, what in staged.items():
            committed[path] = what
            run.result.leaves[COMMITTED_SECRET + path] = what
            run.result.leaves[STAGED_SECRET + path] = ""  # in the commit now, no longer only staged
            pending.pop(path, None)
    elif sub == "push" and not any(w in ("-n", "--dry-run", "--tags", "--delete", "-d") for w in rest):
        found = {**{p: w for p, w in earlier.items() if run.result.leaves.get(COMMITTED_SECRET + p) != ""},
                 **{p: w for p, w in committed.items() if _within(p, root)}}
        if found:
            path, what = next(iter(found.items()))
            return [deny(f"git push sends commits that put {what} into {posixpath.relpath(path, root)} (written in "
                         "this session) to the Git host", "secrets", "git.push-secrets")]
    return []


def _work_tree(cwd: str) -> str | None:
    repo = repository(cwd)
    if repo is not None:
        return repo[0]
    d = cwd
    while True:  # a .git that is not readable as a repository still marks the work tree
        if os.path.exists(posixpath.join(d, ".git")):
            return d
        parent = posixpath.dirname(d)
        if parent == d:
            return None
        d = parent


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _under(facts: dict[str, str], prefix: str, root: str) -> dict[str, str]:
    return {k[len(prefix):]: v for k, v in facts.items()
            if v and k.startswith(prefix) and _within(k[len(prefix):], root)}  # "": cleared since


def _taken(root: str, cwd: str, args: list[str], written: dict[str, str], adding: bool,
           clean: bool = False) -> dict[str, str]:
    """Which of the files written with a credential `git add ARGS` stages (or `commit -a` takes): not ignored,
    covered by a pathspec (or -A/-u/--all, no pathspec), still holding a credential where it can be read."""
    specs = [a for a in args if not a.startswith("-") and a != "--"]
    if not adding:
        specs = []
    gitdir = (repository(root) or (root, posixpath.join(root, ".git")))[1]
    out = {}
    for path, what in written.items():
        rel = posixpath.relpath(path, root)
        if _ignored(root, gitdir, rel):
            continue
        if specs and not any(_covers(posixpath.normpath(posixpath.join(cwd, s)), s, path) for s in specs):
            continue
        if not specs and adding and not any(a in ("-A", "--all", "-u", "--update", "--no-ignore-removal")
                                            for a in args):
            continue
        if not clean and os.path.isfile(path) and carried.file_credential(path) is None:
            continue  # the credential was taken out again before the commit
        out[path] = what
    return out


def _covers(spec_path: str, spec: str, path: str) -> bool:
    if any(c in spec for c in "*?["):
        return carried.matches(posixpath.basename(spec), posixpath.basename(path)) and \
            _within(path, posixpath.dirname(spec_path))
    return _within(path, spec_path)
