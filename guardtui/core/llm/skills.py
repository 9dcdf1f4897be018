"""Guard skills: Markdown files with YAML frontmatter that teach the guard agent what to look
for in one language or one kind of review.

    ---
    name: Python review
    description: what to check in Python a tool call runs or writes
    language: python        # optional: one of languages.yaml's names; none = any call
    auto_invoke: true       # put it in front of the model up front when the call is in that language
    ---
    (the body: what the model reads)

Where they come from, lowest precedence first (a later file with the same id — its file name
without `.md` — replaces an earlier one):

    built-in  guardtui/core/llm/skills/
    user      ~/.agents/guard-skills  ~/.claude/guard-skills  <guardtui config>/guard-skills
    project   <root>/.agents/guard-skills  <root>/.claude/guard-skills  <root>/.guardtui/guard-skills

The trust rules are the plugins' own: a project skill is written by the agent it reviews, so
it is not used — not listed to the model, not injected, unable to replace a skill — until the
person trusts its exact content (`guardtui trust FILE`, the same trust store). A file that does
not load keeps its last good version, or leaves the skill it would have replaced in force, and
the error is reported.
"""
from __future__ import annotations

import hashlib
import os
import posixpath
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ..config import Locations
from ..plugins.loader import PROJECT_GUARD_DIRS, files_signature, is_trusted
from ..plugins.model import PROJECT, USER
from ..plugins.trust import read_trust, store_trust
from ..yamlfile import DataError, Field, check, load_yaml
from .langdetect import language_names

BUILTIN = "built-in"
SKILLS_DIR = "guard-skills"
MAX_BYTES = 64 * 1024  # a skill is read into every review that loads it: keep it short
_ID = re.compile(r"[a-z0-9][a-z0-9._-]*")


def _language_problem(value: str) -> str | None:
    known = language_names()
    return None if value in known else f"{value!r} is not a language guardtui detects ({', '.join(known)})"


_SCHEMA = {"name": Field(str, required=True), "description": Field(str, required=True),
           "language": Field(str, check=_language_problem), "auto_invoke": Field(bool)}


@dataclass(frozen=True)
class Skill:
    id: str  # what the model asks for: the file name without `.md`
    name: str
    description: str
    body: str
    file: str
    level: str  # built-in | user | project
    language: str = ""  # "" = any call
    auto_invoke: bool = False
    sha256: str = ""
    trusted: bool = True  # project skills: only when the person trusted this exact content

    def applies_to(self, languages: tuple[str, ...]) -> bool:
        return not self.language or self.language in languages


@dataclass(frozen=True)
class SkillSet:
    skills: tuple[Skill, ...]  # in force, by id, in precedence order of first appearance
    ignored: tuple[Skill, ...] = ()  # untrusted project skills
    errors: tuple[DataError, ...] = ()
    notes: tuple[str, ...] = ()
    fingerprint: str = field(default="", compare=False)

    def get(self, skill_id: str) -> Skill | None:
        return next((s for s in self.skills if s.id == skill_id), None)

    def auto_for(self, languages: tuple[str, ...]) -> tuple[Skill, ...]:
        return tuple(s for s in self.skills if s.auto_invoke and s.applies_to(languages))

    def on_demand(self, injected: tuple[Skill, ...]) -> tuple[Skill, ...]:
        return tuple(s for s in self.skills if s not in injected)


def skill_id(path: Path | str) -> str:
    return posixpath.splitext(posixpath.basename(str(path)))[0].lower()


def is_skill_name(name: str) -> bool:
    lower = name.lower()
    return lower.endswith(".md") and not lower.startswith((".", "#", "~", "readme"))


def parse_skill(data: bytes, file: str, level: str, trusted: bool = True) -> Skill:
    """One skill file's exact bytes. Raises DataError naming the file, line and field."""
    if len(data) > MAX_BYTES:
        raise DataError(file, None, "", f"file is larger than {MAX_BYTES // 1024} KiB (a skill is read into a "
                                        "review: keep it short)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DataError(file, None, "", f"not UTF-8 text (byte {exc.start})") from None
    ident = skill_id(file)
    if not _ID.fullmatch(ident):
        raise DataError(file, None, "", "the file name must be lower-case letters, digits, '.', '_' or '-' "
                                        "(it is the skill's id)")
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise DataError(file, 1, "", "a guard skill starts with a '---' line (its YAML frontmatter)")
    end = next((i for i in range(1, len(lines)) if lines[i].strip() in ("---", "...")), None)
    if end is None:
        raise DataError(file, 1, "", "the frontmatter has no closing '---' line")
    doc = load_yaml("".join(lines[1:end]), file, line_offset=1)
    if doc.data is None:
        raise DataError(file, 2, "", "the frontmatter is empty (it needs `name` and `description`)")
    check(doc, _SCHEMA)
    body = "".join(lines[end + 1:]).strip()
    if not body:
        raise DataError(file, end + 2, "", "the skill has no body after its frontmatter")
    meta = doc.data
    return Skill(ident, meta["name"].strip(), meta["description"].strip(), body, file, level,
                 meta.get("language") or "", bool(meta.get("auto_invoke")), hashlib.sha256(data).hexdigest(),
                 trusted)


def skill_dirs(locations: Locations, cwd: str | None) -> list[tuple[Path, str]]:
    """(directory, level), lowest precedence first; `cwd` None: the user's only."""
    home = Path(locations.home)
    dirs = [(home / ".agents" / SKILLS_DIR, USER), (home / ".claude" / SKILLS_DIR, USER),
            (Path(locations.config_dir) / SKILLS_DIR, USER)]
    if cwd is None:
        return dirs
    root = Path(skills_root(cwd, str(locations.home)) or os.path.abspath(cwd))
    seen = {d for d, _ in dirs}
    return dirs + [(root / sub / SKILLS_DIR, PROJECT) for sub in PROJECT_GUARD_DIRS
                   if root / sub / SKILLS_DIR not in seen]


def skills_root(cwd: str, home: str) -> str | None:
    """The project of a working directory: the nearest directory upwards (below home) holding a
    project guard directory with guard skills or plugins; None when there is none."""
    path, home = os.path.abspath(cwd), os.path.abspath(home)
    while path != home:
        if any(os.path.isdir(os.path.join(path, sub, kind)) for sub in PROJECT_GUARD_DIRS
               for kind in (SKILLS_DIR, "guards")):
            return path
        parent = os.path.dirname(path)
        if parent == path:
            return None
        path = parent
    return None


def builtin_skills() -> list[Skill]:
    folder = resources.files("guardtui.core.llm").joinpath("skills")
    out = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if is_skill_name(entry.name):
            out.append(parse_skill(entry.read_bytes(), f"guardtui/core/llm/skills/{entry.name}", BUILTIN))
    return out


def load_skills(locations: Locations, cwd: str | None, last_good: dict[str, Skill] | None = None) -> SkillSet:
    """Every skill in force for work in `cwd`. `last_good`: file -> the skill it last loaded as."""
    errors: list[DataError] = []
    notes: list[str] = []
    try:
        hashes = read_trust(locations.trust_file)
    except DataError as exc:  # a damaged trust store trusts nothing
        errors.append(exc)
        hashes = {}
    by_id: dict[str, Skill] = {s.id: s for s in builtin_skills()}
    ignored: list[Skill] = []
    for directory, level in skill_dirs(locations, cwd):
        for path in _skill_files(directory, errors):
            skill = _read(path, level, hashes, errors, (last_good or {}).get(str(path)))
            if skill is None:
                continue
            if not skill.trusted:
                ignored.append(skill)
                notes.append(f"{path}: a project guard skill is not used until you trust it "
                             f"(guardtui trust {path})")
                continue
            if skill.id in by_id:
                notes.append(f"{path} replaces {by_id[skill.id].file} (same id {skill.id!r})")
            by_id[skill.id] = skill
    skills = tuple(by_id.values())
    fingerprint = hashlib.sha256("".join(f"{s.id}:{s.sha256};" for s in skills).encode()).hexdigest()[:16]
    return SkillSet(skills, tuple(ignored), tuple(errors), tuple(notes), fingerprint)


def _skill_files(directory: Path, errors: list[DataError]) -> list[Path]:
    try:
        names = sorted(os.listdir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        errors.append(DataError(str(directory), None, "", f"cannot list the directory: {exc.strerror}"))
        return []
    return [directory / n for n in names if is_skill_name(n) and ((directory / n).is_file() or (directory / n).is_symlink())]


def _read(path: Path, level: str, hashes: dict[str, str], errors: list[DataError],
          good: Skill | None) -> Skill | None:
    try:
        data = path.read_bytes()
        return parse_skill(data, str(path), level, is_trusted(path, level, hashlib.sha256(data).hexdigest(), hashes))
    except OSError as exc:
        error = DataError(str(path), None, "", f"cannot read: {exc.strerror}")
    except DataError as exc:
        error = exc
    errors.append(error)
    if good is None:
        return None
    # the last good version, trusted only if the person trusted that content
    return Skill(**{**good.__dict__, "trusted": is_trusted(path, level, good.sha256, hashes)})


class SkillLibrary:
    """The skills for each call's project, re-read only when a skill file or the trust store changed."""

    def __init__(self, locations: Locations):
        self.locations = locations
        self._loaded: dict[str, tuple[tuple, SkillSet]] = {}
        self._good: dict[str, Skill] = {}

    def for_cwd(self, cwd: str) -> SkillSet:
        dirs = skill_dirs(self.locations, cwd or None)
        key = str(dirs[-1][0]) if cwd else ""
        signature = files_signature([d for d, _ in dirs], str(self.locations.trust_file))
        cached = self._loaded.get(key)
        if cached is not None and cached[0] == signature:
            return cached[1]
        loaded = load_skills(self.locations, cwd or None, self._good)
        self._good.update({s.file: s for s in (*loaded.skills, *loaded.ignored) if s.level != BUILTIN})
        if len(self._loaded) > 64:  # a long-running console meets many projects: keep the recent ones
            self._loaded.pop(next(iter(self._loaded)))
        self._loaded[key] = (signature, loaded)
        return loaded


def trust_skill(file: str, locations: Locations, cwd: str) -> list[str]:
    """`guardtui trust` for a project guard skill: record its exact content's hash. Raises
    DataError (a broken file cannot be trusted; a damaged trust store is never overwritten)."""
    path = Path(file).absolute()
    if not path.is_file():
        raise DataError(file, None, "", "no such file")
    user_dirs = {d.resolve() for d, level in skill_dirs(locations, cwd) if level == USER}
    if path.resolve().parent in user_dirs:
        return [f"{file} is a user-level guard skill: it is already used; nothing to trust"]
    read_trust(locations.trust_file)
    skill = parse_skill(path.read_bytes(), str(path), PROJECT)
    store_trust(locations.trust_file, path, skill.sha256)
    when = f"calls in {skill.language}" if skill.language else "every call"
    how = f"put in front of the model for {when}" if skill.auto_invoke else "loaded when the model asks for it"
    return [f"trusted guard skill {skill.id} ({file}), sha256 {skill.sha256[:16]}…; any edit revokes the trust",
            f"  now used: {skill.name} — {how}"]


def is_skill_file(file: str) -> bool:
    return Path(file).absolute().parent.name == SKILLS_DIR
