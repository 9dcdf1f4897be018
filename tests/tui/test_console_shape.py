"""The console's shape: how the CLI builds it, the plugin watcher feeding the guard log, styles
that ship in the wheel and use theme variables only."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

from guardtui import cli
from guardtui.tui import shipped
from guardtui.tui.app import ConsoleSettings, GuardApp
from guardtui.tui.widgets.guard_log import GuardLog

from .conftest import wait_until

ROOT = Path(__file__).resolve().parents[2]


def launched(monkeypatch, argv: list[str]) -> GuardApp:
    seen: list[GuardApp] = []
    monkeypatch.setattr(GuardApp, "run", lambda self, *a, **k: seen.append(self) or 0)
    assert cli.main(argv) == 0
    [app] = seen
    return app


def test_guardtui_with_no_subcommand_starts_the_console_with_its_broker(isolated_env, monkeypatch):
    app = launched(monkeypatch, [])
    assert app.broker is not None and app.broker._want_port == 8765 and app.broker._want_socket
    assert app.feeder is None and app.settings.bell and not app.settings.desktop
    assert app.engine.audit is not None and app.locations.config_dir == isolated_env / "home" / ".config" / "guardtui"
    assert app.queue.timeout_policy.value == "defer"
    app = launched(monkeypatch, ["console", "--port", "9000", "--notify", "--no-bell", "--on-timeout", "deny"])
    assert app.broker._want_port == 9000 and app.settings.desktop and not app.settings.bell
    assert app.queue.timeout_policy.value == "deny"


def test_guardtui_demo_lives_in_a_throwaway_world(isolated_env, monkeypatch):
    app = launched(monkeypatch, ["demo"])
    assert app.feeder is not None
    assert app.broker._want_port == 0 and not app.broker._want_socket  # never meets a running console
    assert not str(app.locations.config_dir).startswith(str(isolated_env))  # not the person's own config
    assert not (isolated_env / "home" / ".config" / "guardtui").exists()


async def test_plugin_reloads_and_their_errors_reach_the_guard_log(console):
    app = console(broker=False, settings=ConsoleSettings(bell=False, popups=False, watch_plugins=True,
                                                         answer_pause_s=0))
    guards = app.locations.user_plugins_dir
    guards.mkdir(parents=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause(0.5)  # the watcher is up
        (guards / "mine.yaml").write_text("id: mine\npatterns:\n  - {match: 'terraform', verdict: ask}\n")
        log = app.screen.query_one(GuardLog)
        await wait_until(pilot, lambda: any(line.label == "reload" and "mine" in line.text for line in log.lines),
                         timeout=15, what="the reload line")
        (guards / "mine.yaml").write_text("id: mine\npatterns:\n  - {match: 'terraform', verdict: block}\n")
        await wait_until(pilot, lambda: any(line.tone == "error" and "mine.yaml" in line.text for line in log.lines),
                         timeout=15, what="the reload error")
        plugins = next(r for r in app.engine.rules if r.id == "plugins").plugins
        assert any(p.id == "mine" for p in plugins)  # the last good version stays


def test_styles_ship_in_the_wheel_and_load_from_the_checkout(monkeypatch, tmp_path):
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    include = project["tool"]["hatch"]["build"]["targets"]["wheel"]["force-include"]
    assert include["styles"] == "guardtui/_shipped/styles"
    assert shipped.shipped_dir("styles") == ROOT / "styles"  # a checkout / an editable install
    installed = tmp_path / "site" / "guardtui"
    (installed / "_shipped" / "styles").mkdir(parents=True)
    monkeypatch.setattr(shipped, "PACKAGE", installed)
    assert shipped.shipped_dir("styles") == installed / "_shipped" / "styles"  # the wheel


COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}\b|\brgba?\(|\b(?:red|green|blue|yellow|orange|amber|white|black|grey|gray|"
                    r"magenta|cyan)\b")


def test_colours_come_only_from_theme_variables():
    offenders = []
    for path in sorted((ROOT / "styles").glob("*.tcss")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if ":" in line and not line.strip().startswith("/*") and COLOUR.search(line.split(":", 1)[1]):
                offenders.append(f"{path.name}:{number}: {line.strip()}")
    for path in sorted((ROOT / "guardtui" / "tui").rglob("*.py")):
        if path.name == "theme.py":  # where the variables get their values
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r"#[0-9a-fA-F]{6}\b|\brgba?\(|Color\.parse|from_rgb", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert offenders == []
    assert "$guard" in (ROOT / "styles" / "console.tcss").read_text()
