"""What the shell analysis says about each simple command."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..model import BlastRadius, Verdict


@dataclass(frozen=True)
class Finding:
    verdict: Verdict  # ALLOW, ASK, DENY, or LLM for "not classified"
    blast_radius: BlastRadius
    category: str
    reason: str
    segment: str = ""  # the simple command, as written
    via: str = ""  # how bash reaches it ("" at top level)
    span: tuple[int, int] | None = None
    rule: str = ""  # which analyzer or taxonomy entry decided
    origin: str = ""  # the project file and line it comes from ("scripts/clean.sh:4"), when a file ran it

    @property
    def key(self) -> tuple[int, int]:
        return (self.verdict.restrictiveness, self.blast_radius.severity)

    def located(self, segment: str, via: str, span: tuple[int, int] | None) -> "Finding":
        if self.segment:
            return self
        return Finding(self.verdict, self.blast_radius, self.category, self.reason, segment, via, span, self.rule,
                       self.origin)

    def attributed(self, origin: str) -> "Finding":
        """The finding as coming from `origin` (a file and line); the innermost file keeps it, and a
        verdict that is not allow says where in its reason."""
        if self.origin or not origin:
            return self
        reason = self.reason if self.verdict is Verdict.ALLOW else f"{origin}: {self.reason}"
        return replace(self, reason=reason, origin=origin)


def allow(reason: str, category: str = "read-only", rule: str = "", radius: BlastRadius = BlastRadius.LOW) -> Finding:
    return Finding(Verdict.ALLOW, radius, category, reason, rule=rule)


def ask(reason: str, category: str, radius: BlastRadius = BlastRadius.MEDIUM, rule: str = "") -> Finding:
    return Finding(Verdict.ASK, radius, category, reason, rule=rule)


def deny(reason: str, category: str, rule: str = "") -> Finding:
    return Finding(Verdict.DENY, BlastRadius.CRITICAL, category, reason, rule=rule)


def unknown(reason: str, category: str = "unknown", rule: str = "") -> Finding:
    return Finding(Verdict.LLM, BlastRadius.UNKNOWN, category, reason, rule=rule)


def by_radius(radius: BlastRadius, reason: str, category: str, rule: str = "") -> Finding:
    """critical denies, anything else asks."""
    if radius is BlastRadius.CRITICAL:
        return deny(reason, category, rule)
    return ask(reason, category, radius, rule)


def with_rule(f: Finding | None, rule: str) -> Finding:
    """The finding, naming `rule` as the one that decided unless it names one already."""
    assert f is not None
    if f.rule:
        return f
    return replace(f, rule=rule)


def worst(findings: list[Finding]) -> Finding | None:
    best: Finding | None = None
    for f in findings:
        if best is None or f.key > best.key:
            best = f
    return best


# What a command does to a path. The working-directory, sensitive-file and protection rules read
# these, whatever produced them (an analyzer, a nested script, a project script).
EFFECT_KINDS = ("write", "delete", "move", "chmod", "link", "copy", "unpack", "read")
WRITE_KINDS = frozenset({"write", "chmod", "link", "copy", "unpack"})  # put something at the path
DELETE_KINDS = frozenset({"delete", "move"})  # take the path away from where it was
# a write's detail: the new content goes to a new file renamed over the name (sed -i without
# --follow-symlinks, perl -i): a symbolic or hard link there is replaced, what it led to is untouched
REPLACES = "replaces"


@dataclass(frozen=True)
class FileEffect:
    """A file a command changes (or reads), and how.

    write   the file's content changes (`content`: the new content, when known)
    delete  the path is removed (`recursive`: with everything under it)
    move    the path is moved away (with everything under it); where it lands is a `copy`
    chmod   permissions, owner or attributes change (`narrows`: only takes permissions away)
    link    a link is made at the path, pointing at `source` (`detail` "hard" for a hard link)
    copy    the file or tree `source` lands at the path (cp, mv, rsync, git mv)
    unpack  an archive (`source`; None: read from a pipe) is extracted into the directory at the path
    read    the file is read (kept apart, in ShellAnalysis.reads)

    A write whose `detail` is REPLACES renames a new file over the name: a link there is not followed.

    `members` narrows a recursive effect to the files under the path matching these globs (a find's
    -name, an archive's listed members); `only` narrows a git effect to "tracked" files (reset,
    checkout, stash), "untracked" or "ignored" ones (clean, stash -u/-a). `detail` "mentioned": code
    names the path and may change it (an API that does is used somewhere in it): only the protection
    rule acts on those, the `writes` and `deletes` the other rules read leave them out."""

    path: str | None  # absolute and normalised; None when it depends on run time
    raw: str  # as written
    kind: str
    segment: str = ""
    remote: bool = False
    recursive: bool = False
    source: str | None = None
    content: str | None = None
    members: tuple[str, ...] = ()
    narrows: bool = False
    only: str = ""
    detail: str = ""
    origin: str = ""  # the project file and line that does it ("build.py:12"), when a file the command ran does


def attribute_effects(effects: list[FileEffect], start: int, origin: str) -> None:
    """Effects recorded from `start` on come from `origin` (the innermost file keeps its own)."""
    for i in range(start, len(effects)):
        if not effects[i].origin:
            effects[i] = replace(effects[i], origin=origin)


@dataclass
class ShellAnalysis:
    command: str
    findings: list[Finding] = field(default_factory=list)
    effects: list[FileEffect] = field(default_factory=list)
    reads: list[FileEffect] = field(default_factory=list)  # files the command reads (for protected ones)
    parse_errors: list[str] = field(default_factory=list)
    # text bash reads but never runs: comments, heredoc bodies fed to cat/tee/grep/…; ("task", …): a prompt
    # handed to another agent (cmd_agents, an agent server's API), for rules/protect.py to read
    data: list[tuple[str, str]] = field(default_factory=list)  # (kind, text)
    # what the command destroys besides files, named tool-independently (core/effects.py): ("sql", …),
    # ("k8s-delete", "namespace/shop"), … — for recognising a retry of something denied earlier
    acts: list[tuple[str, str]] = field(default_factory=list)
    # what the command leaves for later calls in the session: "destroy-plan:/abs/plan" -> "1" (or "0")
    leaves: dict[str, str] = field(default_factory=dict)

    @property
    def decisive(self) -> Finding:
        """The finding that decides: most restrictive verdict, worst blast radius first."""
        return worst(self.findings) or Finding(Verdict.ALLOW, BlastRadius.LOW, "read-only", "empty command")

    @property
    def writes(self) -> list[FileEffect]:
        """Effects that put something at a path (what the working-directory rule checks)."""
        return [e for e in self.effects if e.kind in WRITE_KINDS and not e.narrows and e.detail != "mentioned"]

    @property
    def deletes(self) -> list[FileEffect]:
        return [e for e in self.effects if e.kind in DELETE_KINDS and e.detail != "mentioned"]
