"""Finding plugin files: directories and precedence, replacement by id, fixed order, broken files."""
from __future__ import annotations

import os

from guardtui.core.model import Verdict
from guardtui.core.plugins import PluginRule, load_plugin_set, plugin_dirs

from .helpers import bash, judge, write

ASK_X = "patterns: [{match: x, verdict: ask}]\n"


def ids(loaded) -> list[str]:
    return [p.id for p in loaded.plugins]


def test_the_six_directories_lowest_to_highest(locations, project):
    dirs = plugin_dirs(locations, str(project))
    home = locations.home
    assert [(d.path, d.level) for d in dirs] == [
        (home / ".agents/guards", "user"), (home / ".claude/guards", "user"), (locations.user_plugins_dir, "user"),
        (project / ".agents/guards", "project"), (project / ".claude/guards", "project"),
        (project / ".guardtui/guards", "project")]


def test_a_project_that_is_the_home_directory_does_not_list_the_user_dirs_twice(locations):
    dirs = plugin_dirs(locations, str(locations.home))
    assert [d.level for d in dirs] == ["user", "user", "user", "project"]
    assert dirs[-1].path == locations.home / ".guardtui/guards"


def test_every_directory_is_read_with_its_level(locations, project):
    write(locations.home / ".agents/guards/a.yaml", ASK_X)
    write(locations.home / ".claude/guards/b.yml", ASK_X)
    write(locations.user_plugins_dir / "c.md", "---\n" + ASK_X + "---\n")
    write(project / ".agents/guards/d.yaml", ASK_X)
    write(project / ".claude/guards/e.yaml", ASK_X)
    write(project / ".guardtui/guards/f.yaml", ASK_X)
    loaded = load_plugin_set(locations, str(project))
    assert ids(loaded) == ["a", "b", "c", "d", "e", "f"]
    assert [p.level for p in loaded.plugins] == ["user"] * 3 + ["project"] * 3
    assert loaded.errors == () and loaded.loaded_at > 0


def test_a_later_file_with_the_same_id_replaces_an_earlier_one_and_takes_its_place(locations, project):
    write(locations.home / ".agents/guards/docker.yaml", "patterns: [{match: docker, verdict: ask}]\n")
    write(locations.home / ".claude/guards/other.yaml", ASK_X)
    write(locations.user_plugins_dir / "mine.yaml", "id: docker\npatterns: [{match: docker, verdict: deny}]\n")
    loaded = load_plugin_set(locations, str(project))
    assert ids(loaded) == ["other", "docker"]
    assert loaded.plugins[1].file == str(locations.user_plugins_dir / "mine.yaml")
    assert any("replaces" in note and "docker.yaml" in note for note in loaded.notes)


def test_order_within_a_directory_is_sorted_never_creation_order(locations, project):
    guards = locations.user_plugins_dir
    for name in ("zeta.yaml", "alpha.yaml", "Mid.yml", "beta.md"):
        text = ("---\n" + ASK_X + "---\n") if name.endswith(".md") else ASK_X
        write(guards / name, text)
    assert ids(load_plugin_set(locations, str(project))) == ["Mid", "alpha", "beta", "zeta"]
    os.utime(guards / "alpha.yaml")  # touching a file changes nothing
    assert ids(load_plugin_set(locations, str(project))) == ["Mid", "alpha", "beta", "zeta"]


def test_editor_temp_files_hidden_files_and_readmes_are_not_plugins(locations, project):
    guards = locations.user_plugins_dir
    write(guards / "real.yaml", ASK_X)
    for name in (".real.yaml.swp", ".#real.yaml", "#real.yaml#", "real.yaml~", "real.yaml.tmp", "4913",
                 "README.md", ".hidden.yaml"):
        write(guards / name, "garbage: [")
    (guards / "sub.yaml").mkdir()
    loaded = load_plugin_set(locations, str(project))
    assert ids(loaded) == ["real"] and loaded.errors == ()


def test_a_broken_file_without_a_good_version_makes_every_call_ask(locations, project, make_engine):
    write(locations.user_plugins_dir / "typo.yaml", "patterns:\n  - match: x\n    verdict: block\n")
    loaded = load_plugin_set(locations, str(project))
    assert [str(e) for e in loaded.errors] == [
        f"{locations.user_plugins_dir / 'typo.yaml'}:3: patterns[0].verdict: 'block' is not one of allow, deny, ask, flag"]
    assert loaded.plugins[0].broken
    decision = judge(make_engine, list(loaded.plugins), bash("ls"))
    assert decision.verdict is Verdict.ASK and decision.category == "config-error"
    assert "'block' is not one of" in decision.reason and decision.rule == "plugins/typo"


def test_a_broken_file_keeps_its_last_good_version(locations, project, make_engine):
    path = write(locations.user_plugins_dir / "docker.yaml", "patterns: [{match: docker, verdict: deny}]\n")
    good = load_plugin_set(locations, str(project))
    write(path, "patterns: [{match: docker, verdict: DENY}]\n")
    loaded = load_plugin_set(locations, str(project), last_good=good.plugins)
    kept = loaded.plugins[0]
    assert kept.sha256 == good.plugins[0].sha256 and not kept.broken
    assert "'DENY' is not one of" in kept.error and len(loaded.errors) == 1
    assert judge(make_engine, list(loaded.plugins), bash("docker ps")).verdict is Verdict.DENY


def test_a_deleted_file_is_gone_even_with_a_last_good_version(locations, project):
    path = write(locations.user_plugins_dir / "docker.yaml", "patterns: [{match: docker, verdict: deny}]\n")
    good = load_plugin_set(locations, str(project))
    path.unlink()
    assert load_plugin_set(locations, str(project), last_good=good.plugins).plugins == ()


def test_an_untrusted_project_plugin_cannot_switch_off_a_user_plugin_by_reusing_its_id(locations, project,
                                                                                        make_engine):
    write(locations.user_plugins_dir / "no-network.yaml", "patterns: [{match: curl, verdict: deny}]\n")
    write(project / ".guardtui/guards/no-network.yaml", "patterns: [{match: harmless, verdict: ask}]\n")
    loaded = load_plugin_set(locations, str(project))
    assert [(p.id, p.level) for p in loaded.plugins] == [("no-network", "user"), ("no-network", "project")]
    assert any("cannot replace" in note for note in loaded.notes)
    assert judge(make_engine, list(loaded.plugins), bash("curl https://x")).verdict is Verdict.DENY


def test_project_plugins_may_replace_each_other(locations, project):
    write(project / ".agents/guards/x.yaml", "patterns: [{match: a, verdict: deny}]\n")
    write(project / ".guardtui/guards/x.yaml", "patterns: [{match: b, verdict: ask}]\n")
    loaded = load_plugin_set(locations, str(project))
    assert [p.file for p in loaded.plugins] == [str(project / ".guardtui/guards/x.yaml")]


def test_the_engine_always_has_a_plugins_slot_between_the_built_in_rules_and_the_default(make_engine):
    engine = make_engine(record=False)
    assert [r.id for r in engine.rules][-2:] == ["plugins", "default"]
    assert isinstance(engine.rules[-2], PluginRule) and engine.rules[-2].plugins == ()
    assert [r.id for r in engine.rules].index("sensitive") < [r.id for r in engine.rules].index("plugins")


def test_a_guard_directory_that_cannot_be_listed_makes_every_call_ask(locations, project, make_engine,
                                                                      monkeypatch):
    guards = locations.user_plugins_dir
    write(guards / "docker.yaml", ASK_X)
    real_listdir = os.listdir

    def listdir(path):
        if str(path) == str(guards):
            raise PermissionError(13, "Permission denied")
        return real_listdir(path)

    monkeypatch.setattr(os, "listdir", listdir)  # (root can list anything: simulate the refusal)
    loaded = load_plugin_set(locations, str(project))
    assert [str(e) for e in loaded.errors] == [f"{guards}: cannot list the directory: Permission denied"]
    assert judge(make_engine, list(loaded.plugins), bash("ls")).verdict is Verdict.ASK


def test_a_dangling_symlink_is_reported_not_skipped(locations, project):
    guards = locations.user_plugins_dir
    guards.mkdir(parents=True)
    (guards / "gone.yaml").symlink_to(guards / "nowhere.yaml")
    loaded = load_plugin_set(locations, str(project))
    assert [str(e) for e in loaded.errors] == [f"{guards / 'gone.yaml'}: cannot read: No such file or directory"]
    assert loaded.plugins[0].broken
