"""Deletes over many files at once, shared by the analyzers: `find -delete` and `-exec rm`, `xargs rm`
fed by a listing, and a tool's delete fed by its own unfiltered listing (`restic forget $(restic
snapshots -q)`), which deletes all of it."""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from ..model import BlastRadius
from .findings import Finding, allow, ask, deny
from .parse import SimpleCommand
from .paths import PathKind
from .words import Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

DELETERS = {"rm", "unlink", "shred", "rmdir", "srm"}
FIND_FILTERS = {"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname",
                 "-ilname", "-user", "-group", "-uid", "-gid", "-perm", "-size", "-mtime", "-mmin", "-atime", "-amin",
                 "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-samefile", "-inum", "-links", "-used", "-empty",
                 "-fstype", "-nouser", "-nogroup", "-readable", "-writable", "-executable", "-context"}


def empties_files(child: list[Word]) -> str | None:
    """`truncate -s 0 F…`, `cp /dev/null F`: a command that leaves each file it is handed empty, its contents
    gone as a delete's would be; its name for messages, or None."""
    if not child:
        return None
    name = posixpath.basename(child[0].value)
    values = [w.value for w in child[1:]]
    if name == "truncate":
        for i, v in enumerate(values):
            size = v[len("--size="):] if v.startswith("--size=") else v[2:] if v.startswith("-s") and len(v) > 2 \
                else values[i + 1] if v in ("-s", "--size") and i + 1 < len(values) else None
            if size is not None and re.fullmatch(r"0+([KMGTPEZY]i?B?)?", size):
                return "truncate -s 0"
        return None
    if name in ("cp", "cat") and "/dev/null" in values[:1]:
        return f"{name} /dev/null"
    return None


def find_listing(producer: SimpleCommand) -> tuple[list[Word], bool] | None:
    """What `find ROOTS …` or `ls [DIRS]` lists, for commands fed by it: (roots, narrowed by filters)."""
    if not producer.argv:
        return None
    name = producer.argv[0].value.rsplit("/", 1)[-1]
    words = producer.argv[1:]
    if name in ("find", "fd", "fdfind"):
        roots = [w for w in words if not w.value.startswith("-") and w.value not in ("(", "!", ")", ",")]
        roots = roots[:1] if name != "find" else _leading_roots(words)
        filters = {w.value for w in words} & (FIND_FILTERS - {"-empty"})
        negated = any(w.value in ("!", "-not") for w in words)
        # `-path ./keep -prune -o -print` lists everything else; `-name x -prune -print` only x
        values = [w.value for w in words]
        pruned = "-prune" in values and any(v in ("-o", "-or") for v in values[values.index("-prune"):])
        narrowed = bool(filters) and not (negated and len(filters) == 1) and not (pruned and len(filters) <= 1)
        if name != "find":
            narrowed = len([w for w in words if not w.value.startswith("-")]) > 1 or bool(filters)
        return roots or [Word.literal(".")], narrowed
    if name == "ls":
        options = [w.value for w in words if w.value.startswith("-")]
        if any("d" in o[1:] for o in options if not o.startswith("--")):
            return None  # ls -d prints the paths themselves: handled as items
        dirs = [w for w in words if not w.value.startswith("-")]
        if any(w.glob or re.search(r"\.\w+$", w.value) for w in dirs):
            return None  # ls *.log lists those files, not directories' contents
        return dirs or [Word.literal(".")], False
    return None


def _leading_roots(words: list[Word]) -> list[Word]:
    roots = []
    for w in words:
        if w.value in ("-H", "-L", "-P"):
            continue
        if w.value.startswith("-") or w.value in ("(", "!", ","):
            break
        roots.append(w)
    return roots


def find_names(words: list[Word]) -> tuple[str, ...]:
    """The names a find's -name / -iname tests let through, as globs at any depth ("**/NAME"); () when
    they do not narrow it (no name test, or one that is negated or or-ed)."""
    values = [w.value for w in words]
    if any(v in ("-o", "-or", ",", "(", "\\(") for v in values):
        return ()
    out = []
    for i, v in enumerate(values[:-1]):
        if v in ("-name", "-iname") and (i == 0 or values[i - 1] not in ("!", "-not")):
            # tests joined by "and": a positive name test narrows, a negated test only narrows further
            name = values[i + 1]
            if v == "-iname":
                name = "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else c for c in name)
            out.append("**/" + name)
    return tuple(out)


def find_delete(run: "Run", inv: "Invocation", roots: list[Word], filtered: bool, what: str) -> list[Finding]:
    out = []
    for root in roots:
        if not filtered:
            out.append(run.delete(root, inv, True, what))
            continue
        info = run.path(root, inv)
        names = find_names(inv.words) if inv.name in ("find", "fd", "fdfind") else None
        # what a find's filter can reach under the root: files whose name matches its -name (or, with other
        # tests, anything); a filter guardtui cannot read (code's own) stays the root alone
        run.effect(info.path, root.display(), "delete", inv.cmd, info.remote, recursive=names is not None,
                   members=names or ())
        if info.kind is PathKind.TEMP:
            out.append(allow(f"{what} deletes matching files under the temp directory", "fs-delete"))
        elif info.kind in (PathKind.PROJECT_ROOT, PathKind.PROJECT_SUB):
            out.append(ask(f"{what} deletes the matching files in {root.display()}", "fs-delete", BlastRadius.MEDIUM))
        elif info.kind in (PathKind.SYSTEM_CORE, PathKind.CRITICAL_FILE) or \
                info.kind in (PathKind.SYSTEM, PathKind.SYSTEM_TOP) and info.path and any(
                    info.path == d or info.path.startswith(d + "/") for d in run.tax.core_system_dirs):
            out.append(deny(f"{what} deletes files across {root.display()} ({info.kind.value}): the system "
                            f"breaks", "fs-delete", "fs.find-delete-system"))
        else:
            out.append(ask(f"{what} deletes the matching files under {root.display()}", "fs-delete",
                           BlastRadius.HIGH))
    return out


_LISTING_VERBS = frozenset({"snapshots", "list", "ls", "ps", "images", "volumes", "keys", "archives", "backups",
                            "instances", "buckets", "objects", "releases", "tags", "branches", "get"})
_LISTING_WORD = re.compile(r"^(list|describe|get|ls)-(db-)?(cluster-)?(snapshots|backups|archives|recovery-points|"
                           r"instances|clusters|volumes|buckets|namespaces|functions|stacks)"
                           r"(-by-\w+)?$")
# what a delete fed by the tool's own unfiltered listing wipes out: every backup (nothing left to
# restore from), or every namespace, instance, cluster, volume or release (the whole environment)
_EVERYTHING = re.compile(r"(?i)\b(snapshots|backups|archives|ns|namespaces?|instances|db-instances|clusters|volumes|"
                         r"buckets|stacks|functions)\b|^helm (list|ls)\b|"
                         # the datastore's or the environment's items themselves: every topic, queue, index,
                         # collection, database, server, app, job or repository there is
                         r"\b(topics?|queues?|streams?|collections?|indexes|indices|index|databases?|dbs|keyspaces?|"
                         r"tables?|servers?|droplets?|vms?|machines?|jobs?|apps?|services?|deployments?|"
                         r"repos?|repositories|projects?)\b")
# a label filter naming a whole environment (`-l cluster=k3s`, `--selector env=prod`) selects all of it
_WHOLE_ENVIRONMENT_FILTER = re.compile(r"(?i)\s(-l|--label|--selector|--filter|--tag)[ =]['\"]?"
                                       r"(cluster|env|environment|stage|project|stack|tier)=[\w.-]+['\"]?(?=\s)")


def everything_listed(inv: Invocation, category: str) -> str | None:
    """The listing a delete is fed, when it deletes all of what matters (see _EVERYTHING)."""
    listing = whole_listing(inv)
    return listing if listing and (category == "backup" or _EVERYTHING.search(listing)) else None
_NARROWING = re.compile(r"(?<![\w-])((grep|egrep)(?!\s+-\w*v)|head(?=\s|$)|sed(?=\s)|select\(|map\(select|awk\s+'[^']*(==|~|>|<))|--(filters?|tag|"
                        r"host|path|older|before|since|label|prefix|keep)|\[\?|\s-f\s|\s-l\s")


def whole_listing(inv: Invocation) -> str | None:
    """`restic forget $(restic snapshots -q --json | jq -r '.[].id')`: a delete fed by the same tool's
    unfiltered listing deletes all of it. The listing's text, or None."""
    listings = []
    for w in inv.words:
        m = re.search(r"\$\((.+)\)|`(.+)`", w.raw, re.S)
        if m:
            listings.append((m.group(1) or m.group(2)).strip())
    if inv.cmd.items_from is not None:
        # `aws ec2 describe-snapshots … | xargs -n1 aws ec2 delete-snapshot --snapshot-id`
        stages = []
        stage: SimpleCommand | None = inv.cmd.items_from
        while stage is not None:
            stages.insert(0, stage.text)
            stage = stage.stdin_from
        if stages:
            listings.append(" | ".join(stages))
    for inner in listings:
        first = inner.split("|")[0].split()
        if not first or posixpath.basename(first[0]) != inv.name:
            continue
        # `kafka-topics --bootstrap-server B --list`: the listing asked for by an option
        if any(v in _LISTING_VERBS or _LISTING_WORD.match(v) or v == "--list" for v in first[1:6]) and \
                not _NARROWING.search(_WHOLE_ENVIRONMENT_FILTER.sub(" ", " " + inner + " ")):
            return inner
    return None
