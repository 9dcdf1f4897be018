"""What the console does to plugin files: save an "always allow" as a rule, add a test case,
reload, watch. No Textual here; the plugin format itself belongs to `core.plugins`.

Edits are textual (a list item inserted under `patterns:` or `tests:`), so a person's
comments and layout survive; every edit is validated by loading the file again, and
undone when the loader reports an error for it.
"""
from __future__ import annotations

import asyncio
import fnmatch
import json
import os
import re
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from ..core.config import Locations
from ..core.engine import Engine, GuardEvent
from ..core.model import Decision, ToolCall
from ..core.plugins import USER, Plugin, PluginRule, PluginSet, load_plugin_set, plugin_dirs, plugin_files, watch_plugins
from ..core.plugins.vouch import trust_plugin
from ..core.plugins.selftest import SelfTestResult, run_plugin_tests
from ..core.plugins.watch import Reloader
from ..core.session import Approval

APPROVALS_FILE = "console-approvals.yaml"
PLAYGROUND_FILE = "playground.yaml"
# characters that end or chain a shell command: a saved pattern never matches across them
SHELL_BREAKS = r"[^;&|`$()<>\n]"


class PluginEditError(Exception):
    """An edit the console refused or could not make (the file is left as it was)."""


def approvals_file(locations: Locations) -> Path:
    return locations.user_plugins_dir / APPROVALS_FILE


# -- where an allow rule can take effect ---------------------------------------------------
def rule_blocker(engine: Engine, decision: Decision) -> str:
    """Why a plugin allow rule could not change this decision ("" when it could)."""
    ids = [r.id for r in engine.rules]
    if PluginRule.id not in ids:
        return "plugins are not loaded in this console"
    deciding = (decision.rule or "").split("/", 1)[0]
    if deciding in ids and ids.index(deciding) < ids.index(PluginRule.id):
        return f"{deciding} judges this before plugins do, so a plugin rule cannot allow it"
    return ""


# -- the rule and its test ------------------------------------------------------------------
def glob_to_command_regex(glob: str) -> str:
    """`npm test*` -> a regex for the whole command that cannot reach past ; && | $( …"""
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if ch == "*":
            out.append(SHELL_BREAKS + "*")
        elif ch == "?":
            out.append(SHELL_BREAKS)
        elif ch == "[" and glob[i + 2:i + 3] == "]" and glob[i + 1] not in "!^":  # `[*]`: the character itself
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(ch))
        i += 1
    return "^" + "".join(out) + "$"


def allow_pattern(call: ToolCall, approval: Approval) -> dict[str, Any]:
    """The plugin pattern for an approval: shell `match`, file `path_match`, else `arg_match`."""
    reason = f"always allowed at the console ({approval.value})"
    if call.is_shell:
        return {"match": glob_to_command_regex(approval.value), "verdict": "allow", "reason": reason}
    if call.file_path is not None:
        return {"path_match": approval.value, "verdict": "allow", "reason": reason}
    return {"arg_match": fnmatch.translate(approval.value), "verdict": "allow", "reason": reason}


def test_case(call: ToolCall, expect: str) -> dict[str, Any]:
    """A plugin test case for this call (the shape `guardtui test` runs)."""
    if call.is_shell:
        return {"command": call.command, "expect": expect}
    case: dict[str, Any] = {"tool": call.tool, "input": dict(call.input), "expect": expect}
    return case


def flow(value: Any) -> str:
    """One-line YAML (flow style) for a list item."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, sort_keys=False, width=10**6)
    return text.strip()


def insert_item(text: str, key: str, item: str) -> str:
    """Insert `- item` at the end of the top-level block list `key:` (created when missing).

    Works on a YAML file or on a Markdown file's front matter."""
    lines = text.splitlines()
    start, end = 0, len(lines)
    if lines and lines[0].strip() == "---":  # Markdown front matter
        close = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
        if close is None:
            raise PluginEditError("the front matter is not closed with ---")
        start, end = 1, close
    key_at = next((i for i in range(start, end) if re.match(rf"^{re.escape(key)}\s*:\s*(#.*)?$", lines[i])), None)
    if key_at is None:
        if any(re.match(rf"^{re.escape(key)}\s*:", lines[i]) for i in range(start, end)):
            raise PluginEditError(f"`{key}:` is written inline; add the item by hand in the editor")
        block = [f"{key}:", f"  - {item}"]
        lines[end:end] = block
    else:
        indent = "  "
        last = key_at
        for i in range(key_at + 1, end):
            line = lines[i]
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace() and not line.startswith("-"):
                break
            if line.lstrip().startswith("- "):
                indent = line[: len(line) - len(line.lstrip())]
            last = i
        lines.insert(last + 1, f"{indent}- {item}")
    return "\n".join(lines) + "\n"


def new_plugin_text(plugin_id: str, description: str) -> str:
    return (f"# Written by guardtui's console; edit freely (`guardtui test` runs the tests below).\n"
            f"id: {plugin_id}\n"
            f"description: {json.dumps(description)}\n"
            f"patterns:\n"
            f"tests:\n")


def save_allow_rule(locations: Locations, cwd: str, call: ToolCall, approval: Approval) -> Path:
    """Append an allow pattern (and a test that this call is allowed) to the approvals file."""
    path = approvals_file(locations)
    text = path.read_text(encoding="utf-8") if path.exists() else \
        new_plugin_text("console-approvals", "Calls the person always allowed at the console")
    text = insert_item(text, "patterns", flow(allow_pattern(call, approval)))
    text = insert_item(text, "tests", flow(test_case(call, "allow")))
    write_validated(path, text, locations, cwd)
    return path


def playground_file(locations: Locations) -> Path:
    return locations.user_plugins_dir / PLAYGROUND_FILE


def exact_pattern(call: ToolCall, verdict: str) -> dict[str, Any]:
    """A pattern for exactly this call (a new playground plugin starts with one)."""
    reason = f"saved from the playground ({verdict})"
    if call.is_shell:
        return {"match": "^" + re.escape(call.command) + "$", "verdict": verdict, "reason": reason}
    if call.file_path is not None:
        return {"path_match": call.file_path, "verdict": verdict, "reason": reason}
    return {"arg_match": "^" + re.escape(call.serialised_input()) + "$", "verdict": verdict, "reason": reason}


def save_test(path: Path, call: ToolCall, expect: str, locations: Locations, cwd: str) -> None:
    """Add this call as a test (expecting `expect`) to a plugin file. A file that does not exist
    yet is created as a plugin with a rule for exactly this call, so its test has something to test."""
    if path.exists():
        text = path.read_text(encoding="utf-8")
    else:
        text = new_plugin_text(path.stem, "Cases saved from the console's playground")
        text = insert_item(text, "patterns", flow(exact_pattern(call, expect)))
    write_validated(path, insert_item(text, "tests", flow(test_case(call, expect))), locations, cwd)




def write_validated(path: Path, text: str, locations: Locations, cwd: str) -> None:
    """Write the file, load the plugins, and put the old content back if this file fails."""
    old = path.read_text(encoding="utf-8") if path.exists() else None
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, text)
    errors = file_errors(path, locations, cwd)
    if errors:
        if old is None:
            path.unlink(missing_ok=True)
        else:
            atomic_write(path, old)
        raise PluginEditError(f"{path.name}: {errors[0]}")


def atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


# -- loading, testing, trusting: the plugin system's own functions ---------------------------
def load(locations: Locations, cwd: str, last_good: Iterable[Plugin] = ()) -> PluginSet:
    return load_plugin_set(locations, cwd, last_good)


def in_force(engine: Engine) -> tuple[Plugin, ...]:
    rule = next((r for r in engine.rules if r.id == PluginRule.id), None)
    return tuple(getattr(rule, "plugins", ()))


def file_errors(path: Path, locations: Locations, cwd: str) -> list[str]:
    """This file's load errors, one line each (`line 4: patterns[0].verdict: …`)."""
    target = path.resolve()
    out = []
    for error in load(locations, cwd).errors:
        if Path(str(error.file)).resolve() == target:
            where = f"line {error.line}: " if error.line else ""
            field = f"{error.field}: " if getattr(error, "field", "") else ""
            out.append(f"{where}{field}{error.message}")
    return out


def writable_files(locations: Locations, cwd: str) -> list[Path]:
    """Plugin files that exist in the guard directories (user first, then project)."""
    return [path for directory in plugin_dirs(locations, cwd) for path in plugin_files(directory.path)]


def user_dirs(locations: Locations, cwd: str) -> set[Path]:
    return {d.path for d in plugin_dirs(locations, cwd) if d.level == USER}


def plugin_for_file(path: Path, plugins: Iterable[Plugin]) -> Plugin | None:
    """The plugin in force that this file provides, or None."""
    target = path.resolve()
    return next((p for p in plugins if Path(p.file).resolve() == target), None)


def run_tests(plugin: Plugin) -> list[SelfTestResult]:
    return run_plugin_tests(plugin)


def trust(file: str, locations: Locations, cwd: str) -> str:
    """Trust a project plugin file's current content; returns what `guardtui trust` says."""
    return "\n".join(trust_plugin(file, locations, cwd))


async def reload(engine: Engine, locations: Locations, cwd: str, on_event: Callable[[GuardEvent], None],
                 changed: Iterable[str] = ()) -> PluginSet | None:
    """Re-read the plugin files now, as the watcher would (last good versions kept, the swap
    atomic, the change reported as a guard event)."""
    return await Reloader(engine, locations, cwd, on_event).reload(set(changed))


async def watch(engine: Engine, locations: Locations, cwd: str, on_event: Callable[[GuardEvent], None],
                stop: asyncio.Event) -> None:
    await watch_plugins(engine, locations, cwd, on_event, stop)
