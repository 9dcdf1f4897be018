"""core/protect.py: protected targets matched as the OS resolves paths, on real files."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from guardtui.core import protect
from guardtui.core.config import Locations
from guardtui.core.hook_settings import Unreadable, is_ours, judge_change, parse
from guardtui.core.plugins.loader import PROJECT_GUARD_DIRS
from guardtui.core.protect import GUARD_CONFIG, HOOKS, PROJECT_GUARDS, TOKEN, USER_GUARDS, Protection
from guardtui.core.yamlfile import DataError


@pytest.fixture
def tree(tmp_path):
    home = tmp_path / "home"
    project = home / "work" / "app"
    (project / "src").mkdir(parents=True)
    config = home / ".config" / "guardtui"
    (config / "guards").mkdir(parents=True)
    (config / "token").write_text("t" * 43)
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text("{}")
    locations = Locations(config, home / ".local" / "state" / "guardtui", tmp_path / "run" / "guardtui", home)
    protection = Protection(locations, env={}, code_dir="")
    return home, project, protection


def test_a_path_reaches_a_target_by_its_name_tilde_dotdot_and_a_link(tree):
    home, project, protection = tree
    p = protection.for_call(str(project), str(home))
    assert p.match("~/.claude/settings.json").kind == HOOKS
    assert p.match("../../.claude/settings.json", str(project)).kind == HOOKS
    assert p.match(".claude/settings.local.json", str(project)).target.path == f"{project}/.claude/settings.local.json"
    os.symlink(home / ".config" / "guardtui", project / "cfg")
    m = p.match("cfg/guards/evil.yaml", str(project))
    assert m.kind == USER_GUARDS and m.how == "link"
    assert p.match("src/main.py", str(project)) is None


def test_dotdot_after_a_link_is_applied_where_the_link_leads(tree):
    home, project, protection = tree
    (home / "elsewhere" / "deep").mkdir(parents=True)
    os.symlink(home / ".config" / "guardtui" / "guards", project / "g")
    p = protection.for_call(str(project), str(home))
    # the OS follows g first, then `..`: g/../token is the guard's token, not project/token
    assert p.match("g/../token", str(project)).kind == TOKEN


def test_a_hard_link_is_the_same_file(tree):
    home, project, protection = tree
    os.link(home / ".claude" / "settings.json", project / "h.json")
    m = protection.for_call(str(project), str(home)).match("h.json", str(project))
    assert m is not None and m.kind == HOOKS and m.how == "hard link"


def test_follow_false_judges_the_link_itself(tree):
    home, project, protection = tree
    os.symlink(home / ".claude" / "settings.json", project / "s.json")
    p = protection.for_call(str(project), str(home))
    assert p.match("s.json", str(project)).kind == HOOKS  # a write through it
    assert p.match("s.json", str(project), follow=False) is None  # rm s.json removes only the link


def test_a_directory_holding_a_target(tree):
    home, project, protection = tree
    (project / ".guardtui" / "guards").mkdir(parents=True)
    p = protection.for_call(str(project), str(home))
    assert p.match(".guardtui", str(project)).kind == PROJECT_GUARDS  # the tree itself
    held = p.match("~/.config", contains="existing")
    assert held is not None and held.contains and held.target.kind in (GUARD_CONFIG, USER_GUARDS, TOKEN)
    # a project's settings that do not exist yet count only where something could be created
    assert p.match(".codex", str(project), contains="existing") is None
    assert p.match(".codex", str(project), contains="any").rel in ("hooks.json", "config.toml", "rules")


def test_case_folding_only_where_the_file_system_folds(tree):
    home, project, protection = tree
    p = protection.for_call(str(project), str(home))
    assert p.match("~/.CLAUDE/Settings.json") is None  # this file system tells cases apart
    # what a case-insensitive volume (macOS by default) reports for the home directory
    p._insensitive[str(home)] = True
    m = p.match("~/.CLAUDE/Settings.json")
    assert m is not None and m.how == "case" and m.kind == HOOKS


def test_a_path_known_in_part_is_placed_by_its_tail(tree):
    home, project, protection = tree
    p = protection.for_call(str(project), str(home))
    assert p.match_text("$XDG_CONFIG_HOME/guardtui/token").kind == TOKEN
    assert p.match_text("${DIR}/.claude/settings.json").kind == HOOKS
    assert p.match_text("$X/.agents/guards/evil.yaml").kind in (USER_GUARDS, PROJECT_GUARDS)
    assert p.match_text("$X/guards/auth.guard.ts") is None  # an app's own guards/ is not a plugin dir
    assert p.match_text("$X/notes.txt") is None and p.match_text("$X/token") is None  # one part says too little


def test_another_projects_settings_are_settings_too(tree):
    home, project, protection = tree
    p = protection.for_call(str(project), str(home))
    assert p.match("/srv/other/.gemini/settings.json").kind == HOOKS
    assert p.match("/srv/other/.gemini/settings.json.bak") is None


def test_environment_overrides_add_their_places(tree, tmp_path):
    home, project, _ = tree
    codex = tmp_path / "codex-home"
    protection = Protection(None, homes=[str(home)], env={"CODEX_HOME": str(codex)}, code_dir="")
    assert protection.for_call(str(project)).match(str(codex / "hooks.json")).kind == HOOKS


def test_the_data_covers_the_plugin_loaders_directories():
    paths = {p for e in protect.protect_data().entries for p in e["paths"]}
    for sub in PROJECT_GUARD_DIRS:
        assert any(p.startswith(f"<project>/{sub}/") for p in paths), sub
    assert "~/.agents/guards/" in paths and "~/.claude/guards/" in paths


@pytest.mark.parametrize("entry,field", [
    ("{kind: hooks, format: json, paths: [relative/x]}", "agents[0].paths[0]"),
    ("{kind: hooks, paths: [~/x]}", "agents[0]"),
    ("{kind: nonsense, paths: [~/x]}", "agents[0].kind"),
])
def test_bad_data_is_one_line_naming_file_line_and_field(entry, field):
    text = (f"version: 1\nagents:\n  - {entry}\nguards: []\nbypass: {{}}\nhook_entries: {{command: x, url: y}}\n"
            "commands: {read: [], console: [], changes: []}\npackages: []\n")
    with pytest.raises(DataError) as err:
        protect.parse_protect_data(text, "protect.yaml")
    message = str(err.value)
    assert message.startswith("protect.yaml:3: ") and field in message and "\n" not in message


# -- hook settings -----------------------------------------------------------------------------------
def test_what_install_writes_is_recognised_as_guardtuis():
    from guardtui.commands.install import Target, entries

    for agent in ("claude", "codex", "gemini", "cursor"):
        for _, pairs in entries(Target(agent, Path("/x"), False, 0), lambda: "tok").items():
            assert all(is_ours(handler) for _, handler in pairs), agent
    http = entries(Target("claude", Path("/x"), True, 8765), lambda: "tok")["PreToolUse"][0][1]
    assert is_ours(http)
    assert not is_ours({"type": "command", "command": "npx prettier --write"})


def test_yaml_alias_bombs_and_deep_json_cannot_be_read():
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    with pytest.raises(Unreadable, match="aliases"):
        parse(bomb, "yaml")
    with pytest.raises(Unreadable):
        parse("[" * 100_000 + "]" * 100_000, "json")


def test_codexs_recorded_trust_in_a_hook_is_part_of_the_guard():
    target = protect.Target("/h/.codex/config.toml", HOOKS, "Codex's hook settings", agent="codex", format="toml")
    old = 'model = "gpt-5"\n[hooks.state."/h/.codex/hooks.json:pre_tool_use:0:0"]\ntrusted_hash = "sha256:abc"\n'
    assert not judge_change(target, old, old.replace("sha256:abc", "sha256:0")).keeps_guard
    assert judge_change(target, old, old.replace("gpt-5", "o3")).keeps_guard


def test_a_change_keeps_the_guard_only_with_its_entries_in_place():
    target = protect.Target("/h/.claude/settings.json", HOOKS, "Claude Code's hook settings", agent="claude",
                            format="json")
    ours = {"type": "command", "command": "/usr/bin/python3 -S /x/guardtui/hook.py claude --timeout 600"}
    old = {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [ours]}]}}
    import json

    keep = {**old, "model": "sonnet", "permissions": {"deny": ["Bash(curl *)"]}}
    assert judge_change(target, json.dumps(old), json.dumps(keep)).keeps_guard
    wider = {**old, "permissions": {"allow": ["Bash(npm test)"]}}
    assert not judge_change(target, json.dumps(old), json.dumps(wider)).keeps_guard
    fewer_denies = {**keep, "permissions": {"deny": []}}
    assert not judge_change(target, json.dumps(keep), json.dumps(fewer_denies)).keeps_guard
    narrowed = {"hooks": {"PreToolUse": [{"matcher": "Nothing", "hooks": [ours]}]}}
    assert not judge_change(target, json.dumps(old), json.dumps(narrowed)).keeps_guard
    assert not judge_change(target, json.dumps(old), json.dumps({**old, "disableAllHooks": True})).keeps_guard
    assert not judge_change(target, json.dumps(old), "{not json").keeps_guard
    assert not judge_change(target, json.dumps(old), "{}").keeps_guard
