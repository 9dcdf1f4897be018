"""Project plugins may only tighten until the person trusts that exact content; any edit revokes it."""
from __future__ import annotations

import json
import stat

import pytest

from guardtui.cli import main
from guardtui.core.model import Verdict
from guardtui.core.plugins import load_plugin_set
from guardtui.core.plugins.parse import digest
from guardtui.core.plugins.trust import read_trust, store_trust
from guardtui.core.yamlfile import DataError

from .helpers import bash, engine_with, write

LOOSENING = """
id: frob
patterns:
  - {match: "^frob", verdict: allow, reason: frob is our build tool}
  - {match: "defrob", verdict: deny}
"""


def engine_for(make_engine, plugins):
    return engine_with(make_engine, plugins, every_command_installed=True)  # frob: installed, unknown


def test_a_project_plugins_allow_is_ignored_and_reported_but_its_deny_applies(locations, project, make_engine):
    write(project / ".guardtui/guards/frob.yaml", LOOSENING)
    plugin = load_plugin_set(locations, str(project)).plugins[0]
    assert (plugin.level, plugin.trusted) == ("project", False)
    assert [p.verdict for p in plugin.patterns] == [Verdict.DENY]
    assert [p.reason for p in plugin.ignored] == ["frob is our build tool"]
    assert "guardtui trust" in plugin.ignored_note
    engine = engine_for(make_engine, [plugin])
    assert engine.evaluate(bash("frob bake"), record=False).verdict is Verdict.ASK  # unknown command: asks
    assert engine.evaluate(bash("defrob"), record=False).verdict is Verdict.DENY


def test_the_same_file_at_user_level_allows(locations, project, make_engine):
    write(locations.user_plugins_dir / "frob.yaml", LOOSENING)
    plugin = load_plugin_set(locations, str(project)).plugins[0]
    assert plugin.trusted and plugin.ignored == ()
    assert engine_for(make_engine, [plugin]).evaluate(bash("frob bake"), record=False).verdict is Verdict.ALLOW


def test_trust_lets_the_allow_apply_and_any_edit_revokes_it(locations, project, make_engine, capsys, monkeypatch):
    path = write(project / ".guardtui/guards/frob.yaml", LOOSENING)
    monkeypatch.chdir(project)
    assert main(["trust", ".guardtui/guards/frob.yaml"]) == 0
    out = capsys.readouterr().out
    assert "trusted frob" in out and "now applies: match /^frob/ → allow" in out

    trusted = load_plugin_set(locations, str(project)).plugins[0]
    assert trusted.trusted and trusted.ignored == ()
    assert engine_for(make_engine, [trusted]).evaluate(bash("frob bake"), record=False).verdict is Verdict.ALLOW

    path.write_text(path.read_text() + "# one more line\n")
    edited = load_plugin_set(locations, str(project)).plugins[0]
    assert not edited.trusted and len(edited.ignored) == 1
    assert engine_for(make_engine, [edited]).evaluate(bash("frob bake"), record=False).verdict is Verdict.ASK


def test_the_store_keeps_the_sha256_of_the_exact_content_private_and_keeps_other_entries(locations, project):
    first = write(project / ".guardtui/guards/a.yaml", LOOSENING)
    second = write(project / ".claude/guards/b.yaml", LOOSENING)
    store_trust(locations.trust_file, first, "a" * 64)
    store_trust(locations.trust_file, second, "b" * 64)
    assert read_trust(locations.trust_file) == {str(first): "a" * 64, str(second): "b" * 64}
    assert stat.S_IMODE(locations.trust_file.stat().st_mode) == 0o600
    assert [p.name for p in locations.trust_file.parent.iterdir() if p.name.startswith(".trusted-")] == []


def test_a_damaged_trust_store_trusts_nothing_is_reported_and_is_never_overwritten(locations, project, capsys,
                                                                                   monkeypatch):
    write(project / ".guardtui/guards/frob.yaml", LOOSENING)
    locations.trust_file.parent.mkdir(parents=True, exist_ok=True)
    locations.trust_file.write_text('{"plugins": {"x": ')
    loaded = load_plugin_set(locations, str(project))
    assert not loaded.plugins[0].trusted
    assert [e.file for e in loaded.errors] == [str(locations.trust_file)]
    monkeypatch.chdir(project)
    assert main(["trust", ".guardtui/guards/frob.yaml"]) == 1
    assert f"{locations.trust_file}:1: invalid JSON" in capsys.readouterr().err
    assert locations.trust_file.read_text() == '{"plugins": {"x": '


@pytest.mark.parametrize("content, message", [
    ('{"plugins": []}', "plugins: must be a mapping of file path to SHA-256"),
    ('{"plugins": {"/p.yaml": "not-a-hash"}}', "plugins./p.yaml: must be a SHA-256 in hex"),
])
def test_trust_store_shape_errors_are_one_line(locations, content, message):
    locations.trust_file.parent.mkdir(parents=True, exist_ok=True)
    locations.trust_file.write_text(content)
    with pytest.raises(DataError, match=message):
        read_trust(locations.trust_file)


def test_a_broken_file_cannot_be_trusted(locations, project, capsys, monkeypatch):
    write(project / ".guardtui/guards/bad.yaml", "patterns: [{match: x, verdict: yes}]\n")
    monkeypatch.chdir(project)
    assert main(["trust", ".guardtui/guards/bad.yaml"]) == 1
    assert "bad.yaml:1: patterns[0].verdict" in capsys.readouterr().err
    assert not locations.trust_file.exists()


def test_trusting_a_user_plugin_is_not_needed(locations, project, capsys, monkeypatch):
    path = write(locations.user_plugins_dir / "frob.yaml", LOOSENING)
    monkeypatch.chdir(project)
    assert main(["trust", str(path)]) == 0
    assert "nothing to trust" in capsys.readouterr().out
    assert not locations.trust_file.exists()


def test_a_trusted_project_plugin_may_replace_a_user_plugin_of_the_same_id(locations, project):
    write(locations.user_plugins_dir / "frob.yaml", "patterns: [{match: x, verdict: deny}]\n")
    path = write(project / ".guardtui/guards/frob.yaml", LOOSENING)
    assert len(load_plugin_set(locations, str(project)).plugins) == 2
    store_trust(locations.trust_file, path, digest(path.read_bytes()))
    assert [p.file for p in load_plugin_set(locations, str(project)).plugins] == [str(path)]


def test_trust_store_file_is_json_with_a_version(locations, project):
    path = write(project / ".guardtui/guards/frob.yaml", LOOSENING)
    store_trust(locations.trust_file, path, "c" * 64)
    assert json.loads(locations.trust_file.read_text())["version"] == 1
