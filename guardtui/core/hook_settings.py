"""An agent's hook settings before and after a change: does guardtui still guard?

A change keeps the guard when every hook entry of guardtui's in the old file is still there,
unchanged and in the same place (event, matcher), it adds no setting that switches hooks
or approvals off (data/protect.yaml `bypass`), and it changes nothing else but what loosens
nothing (`settings_changes`: the model, the theme; deny and ask rules added): a new hook, a
status line or key helper (programs the guard never judges), wider permissions, the sandbox,
env variables or a hook's recorded trust all loosen it. Anything that cannot be read (bad
syntax, too big, too deep, a YAML alias bomb) cannot be shown to keep the guard.

    verdict = judge_change(target, old_text, new_text)   # Kept(...) or Broken(why)
"""
from __future__ import annotations

import json
import tomllib
from collections import Counter
from dataclasses import dataclass
from typing import Any

import yaml

from .protect import Target, protect_data

MAX_TEXT = 1024 * 1024  # settings files are small; a bigger one is not judged
_MAX_NODES = 100_000  # values walked in one document (YAML aliases count each time they are used)
_MAX_DEPTH = 64


class Unreadable(ValueError):
    pass


@dataclass(frozen=True)
class Outcome:
    keeps_guard: bool
    why: str
    entries: int = 0  # guardtui's entries in the old file


def is_ours(handler: Any) -> bool:
    """A hook handler guardtui installed: it runs guardtui's hook, or posts to the broker on loopback."""
    if not isinstance(handler, dict):
        return False
    data = protect_data()
    command, url = handler.get("command"), handler.get("url")
    return (isinstance(command, str) and bool(data.our_command.search(command + " "))) or \
        (isinstance(url, str) and bool(data.our_url.match(url)))


def parse(text: str, fmt: str) -> Any:
    """The settings as Python data; raises Unreadable."""
    if len(text) > MAX_TEXT:
        raise Unreadable(f"more than {MAX_TEXT // 1024} KiB")
    if not text.strip():
        return {}
    try:
        if fmt == "json":
            return json.loads(text)
        if fmt == "toml":
            return tomllib.loads(text)
        if fmt == "yaml":
            return _yaml(text)
    except Unreadable:
        raise
    except RecursionError:
        raise Unreadable("nested too deeply") from None
    except (ValueError, yaml.YAMLError) as exc:
        raise Unreadable(f"not valid {fmt.upper()}: {str(exc).splitlines()[0][:120]}") from None
    raise Unreadable(f"unknown format {fmt}")


def _yaml(text: str) -> Any:
    """YAML without expanding aliases beyond a budget (a billion-laughs file stops here)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)(text)
    budget = [_MAX_NODES]

    def build(n: yaml.Node, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0 or depth > _MAX_DEPTH:
            raise Unreadable("too large once its aliases are expanded")
        if isinstance(n, yaml.MappingNode):
            return {str(build(k, depth + 1)): build(v, depth + 1) for k, v in n.value}
        if isinstance(n, yaml.SequenceNode):
            return [build(v, depth + 1) for v in n.value]
        return loader.construct_object(n)

    try:
        node = loader.get_single_node()
        return build(node, 0) if node is not None else {}
    finally:
        loader.dispose()


def our_entries(data: Any) -> Counter:
    """guardtui's handlers, each with where it sits: the keys leading to it and the other fields of
    the groups around it (a changed matcher, `preempt_yolo` or `failClosed` changes the entry)."""
    found: Counter = Counter()

    def walk(value: Any, keys: tuple, context: tuple, in_list: bool, depth: int) -> None:
        if depth > _MAX_DEPTH:
            raise Unreadable("nested too deeply")
        if isinstance(value, dict):
            if is_ours(value):
                found[(keys, context, _canonical(value))] += 1
                return
            scalars = tuple(sorted((k, _canonical(v)) for k, v in value.items() if not isinstance(v, (dict, list))))
            inner = context + (scalars,) if in_list else context
            for k, v in value.items():
                walk(v, keys + (str(k),), inner, in_list, depth + 1)
        elif isinstance(value, list):
            for item in value:
                walk(item, keys + ("[]",), context, True, depth + 1)

    walk(data, (), (), False, 0)
    return found


def bypasses(data: Any, agent: str) -> list[str]:
    """The settings in `data` that switch hooks or approvals off (`disableAllHooks: true`)."""
    out = []
    for rule in protect_data().bypass.get(agent, ()):
        value: Any = data
        for part in rule["key"].split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if "is" in rule and value is not None and value == rule["is"] and type(value) is type(rule["is"]):
            out.append(f"{rule['key']}: {json.dumps(value)}")
        elif "has" in rule and isinstance(value, list) and rule["has"] in value:
            out.append(f"{rule['key']} lists {rule['has']}")
    return out


def judge_change(target: Target, old_text: str | None, new_text: str) -> Outcome:
    """Does the new content of an agent's hook settings still hold guardtui's entries, adding no bypass?"""
    try:
        old = parse(old_text, target.format) if old_text is not None else {}
    except Unreadable as exc:
        return Outcome(False, f"the file as it is cannot be read ({exc}), so what the change keeps cannot be told")
    try:
        new = parse(new_text, target.format)
        before, after = our_entries(old), our_entries(new)
    except Unreadable as exc:
        return Outcome(False, f"the new content cannot be read ({exc}): the agent would lose its hooks")
    missing = before - after
    if not after and (before or old_text is None):
        # settings made anew (or emptied) without a hook of guardtui's: nothing shows the guard stays on; a file
        # that exists and never held one (Codex's config.toml beside its hooks.json) is judged by what changes
        return Outcome(False, "it leaves the settings without guardtui's hook entry" if not before else
                       f"it removes guardtui's hook entr{'ies' if sum(before.values()) > 1 else 'y'}",
                       sum(before.values()))
    if missing:
        entries = "entries" if sum(missing.values()) > 1 else "entry"
        return Outcome(False, f"it removes or changes guardtui's hook {entries}", sum(before.values()))
    added = [b for b in bypasses(new, target.agent) if b not in bypasses(old, target.agent)]
    if added:
        return Outcome(False, f"it sets {', '.join(added)}, which switches the guard's hooks or the agent's "
                              "approvals off", sum(before.values()))
    kept = sum(before.values())
    loosened = loosening(old, new, target.agent)
    if loosened:
        return Outcome(False, f"it changes {loosened}, which can let more through than the person chose (a new hook "
                              "or helper runs a program the guard never judges; wider permissions, another sandbox or "
                              "env let the agent do more)", kept)
    return Outcome(True, f"guardtui's {kept} hook entr{'ies stay' if kept != 1 else 'y stays'} as they are"
                   if kept else "it adds no setting that switches hooks off", kept)


def loosening(old: Any, new: Any, agent: str) -> str:
    """The first setting the change touches that is not known to loosen nothing, or ""."""
    rules = protect_data().settings_changes.get(agent, {})
    neutral = tuple(rules.get("neutral", ()))
    tighten = set(rules.get("tighten", ()))
    for key, before, after in _changes(old, new, ()):
        dotted = ".".join(key)
        if any(dotted == n or dotted.startswith(n + ".") for n in neutral):
            continue
        if dotted in tighten and isinstance(after, list) and \
                all(item in after for item in (before if isinstance(before, list) else [])):
            continue  # a deny or ask rule added: tighter
        return dotted or "the whole file"
    return ""


def _changes(old: Any, new: Any, key: tuple) -> list[tuple[tuple, Any, Any]]:
    """(key path, before, after) of every value that differs; lists compared as what they hold."""
    if isinstance(old, dict) and new is None or old is None and isinstance(new, dict):
        old, new = old or {}, new or {}  # a section added or taken away: what it holds is what changes
    if isinstance(old, dict) and isinstance(new, dict):
        out = []
        for k in list(old) + [k for k in new if k not in old]:
            if len(key) > _MAX_DEPTH:
                return [(key, old, new)]
            out += _changes(old.get(k), new.get(k), key + (str(k),))
        return out
    if isinstance(old, list) or isinstance(new, list):
        before = old if isinstance(old, list) else []
        after = new if isinstance(new, list) else []
        if (old is None or isinstance(old, list)) and (new is None or isinstance(new, list)) and \
                sorted(map(_canonical, before)) == sorted(map(_canonical, after)):
            return []  # the same items (an empty list added or taken away changes nothing)
        return [(key, old, new)]
    return [] if _canonical(old) == _canonical(new) else [(key, old, new)]


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def apply_edits(text: str, edits: list[tuple[str, str, bool]]) -> str | None:
    """Edit / MultiEdit applied to `text` in order, as the tools do; None when one does not apply."""
    for old, new, replace_all in edits:
        if not old or old not in text:
            return None
        if not replace_all and text.count(old) > 1:
            return None  # the tool refuses an ambiguous edit
        text = text.replace(old, new) if replace_all else text.replace(old, new, 1)
    return text
