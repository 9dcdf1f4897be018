"""Which languages a tool call runs code in (guardtui/core/llm/data/languages.yaml): the guard
agent puts the skills for those languages in front of the model before its first turn.

Detection errs on the side of more: a shell command that mentions `python3` anywhere gets the
python skill too (a few hundred tokens), since a missed language costs the review its context.
"""
from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass
from functools import cached_property, lru_cache
from importlib import resources

from ..catalog import tool_classes
from ..model import ToolCall
from ..yamlfile import Field, check, load_yaml

_LANGUAGE = {"commands": Field(list, required=True, items=str), "extensions": Field(list, required=True, items=str),
             "shebangs": Field(list, required=True, items=str)}
_SCHEMA = {"version": Field(int, required=True, choices=(1,)),
           "languages": Field(dict, required=True, values=_LANGUAGE)}
_WORDS = re.compile(r"[^\s;|&()<>`$'\"={}\[\]]+")
SHELL_LANGUAGE = "bash"


@dataclass(frozen=True)
class Language:
    name: str
    commands: tuple[str, ...]
    extensions: tuple[str, ...]
    shebangs: tuple[str, ...]

    @cached_property
    def _command_re(self) -> re.Pattern:
        return re.compile("|".join(fnmatch.translate(p) for p in self.commands) or "(?!)")

    def runs(self, word: str) -> bool:
        return self._command_re.match(posixpath.basename(word)) is not None

    def owns_file(self, path: str) -> bool:
        base = posixpath.basename(path).lower()
        return any(base == ext or (ext.startswith(".") and base.endswith(ext)) for ext in self.extensions)

    def interprets(self, shebang: str) -> bool:
        words = shebang[2:].split()
        if words and posixpath.basename(words[0]) == "env":
            words = [w for w in words[1:] if not w.startswith("-")]
        return bool(words) and any(fnmatch.fnmatchcase(posixpath.basename(words[0]), p) for p in self.shebangs)


@lru_cache(maxsize=1)
def languages() -> tuple[Language, ...]:
    name = "languages.yaml"
    text = resources.files("guardtui.core.llm.data").joinpath(name).read_text(encoding="utf-8")
    doc = load_yaml(text, f"guardtui/core/llm/data/{name}")
    check(doc, _SCHEMA)
    return tuple(Language(key, tuple(v["commands"]), tuple(e.lower() for e in v["extensions"]), tuple(v["shebangs"]))
                 for key, v in doc.data["languages"].items())


def language_names() -> tuple[str, ...]:
    return tuple(lang.name for lang in languages())


def detect_languages(call: ToolCall) -> tuple[str, ...]:
    """The languages the call runs or writes, in the data file's order (empty: none known)."""
    found: set[str] = set()
    if call.is_shell or call.tool in tool_classes().shell:
        found.add(SHELL_LANGUAGE)
        words = _WORDS.findall(call.command)
        found.update(lang.name for lang in languages() if any(lang.runs(word) for word in words))
    elif call.file_path is not None and call.tool in tool_classes().write:
        found.update(lang.name for lang in languages() if lang.owns_file(call.file_path))
        content = call.input.get("content")
        if isinstance(content, str) and content.startswith("#!"):
            first = content.splitlines()[0]
            found.update(lang.name for lang in languages() if lang.interprets(first))
    return tuple(lang.name for lang in languages() if lang.name in found)
