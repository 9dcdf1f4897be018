"""guardtui skills [--json]: the guard skills the guard agent would use for work here, in
precedence order, with the project skills it ignores until trusted and the files that do not
load (exit status 1 then, like `guardtui rules`)."""
from __future__ import annotations

import json
import os
import sys
from typing import IO

from ..core.config import Locations
from ..core.llm import SkillSet, load_skills
from ..wiring import llm_settings


def run(args, _command: str) -> int:
    locations = Locations.from_env()
    cwd = os.path.abspath(args.cwd) if args.cwd else os.getcwd()
    loaded = load_skills(locations, cwd)
    if args.json:
        sys.stdout.write(json.dumps(as_json(loaded), indent=2) + "\n")
    else:
        settings = llm_settings(locations)
        sys.stdout.write(f"the guard agent: {settings.describe() if settings else 'off (no llm: in settings.yaml)'}\n")
        print_skills(loaded, sys.stdout)
    return 1 if loaded.errors else 0


def as_json(loaded: SkillSet) -> dict:
    def one(skill) -> dict:
        return {"id": skill.id, "name": skill.name, "description": skill.description, "language": skill.language,
                "auto_invoke": skill.auto_invoke, "level": skill.level, "file": skill.file,
                "trusted": skill.trusted, "sha256": skill.sha256}

    return {"skills": [one(s) for s in loaded.skills], "ignored": [one(s) for s in loaded.ignored],
            "errors": [str(e) for e in loaded.errors], "notes": list(loaded.notes)}


def print_skills(loaded: SkillSet, out: IO[str]) -> None:
    for number, skill in enumerate(loaded.skills, 1):
        when = (f"up front for {skill.language} calls" if skill.language else "up front for every call") \
            if skill.auto_invoke else "when the model asks for it"
        out.write(f"{number}. {skill.id}  [{skill.level}]  {skill.name} — {when}\n")
        out.write(f"     {skill.description}\n")
        if skill.level != "built-in":
            out.write(f"     {skill.file}\n")
    for skill in loaded.ignored:
        out.write(f"ignored until trusted: {skill.id}  {skill.file}  (guardtui trust {skill.file})\n")
    for error in loaded.errors:
        out.write(f"error: {error}\n")
