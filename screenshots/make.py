"""Make the README's screenshots from the real app: the demo world staged with a fixed clock
(no network), each screen driven by its keys, saved as SVG here.

    python screenshots/make.py            # every screen
    python screenshots/make.py console    # just one
"""
from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ["TZ"] = "UTC"
time.tzset()

from guardtui.tui.staging import T0, play, stage, still  # noqa: E402

SIZE = (120, 36)
SHOTS = {  # name: (keys after the scenario has played, terminal size, what it shows)
    "console": ((), SIZE, "the queue of two agents in two projects, the selected call decision first, the guard log"),
    "console-80x24": ((), (80, 24), "the same in 80×24"),
    "several-agents": (("o", "space", "space"), (160, 48), "grouped by agent session, two calls marked to answer "
                                                         "together, the header's counts per agent"),
    "agent-context": (("w",), (160, 48), "w: what the agent was doing, from its transcript"),
    "filter": (("slash", *"storefront", "enter"), (80, 24), "/: the queue filtered to one project"),
    "deny-all": (("G", "D"), SIZE, "D: deny every waiting call of one agent session"),
    "quit": (("q",), SIZE, "q: what quitting does to each agent's waiting calls"),
    "file-diff": (("j",), SIZE, "an Edit of .env: what would change on disk"),
    "always-allow": (("G", "a"), SIZE, "a: the scope of an always allow"),
    "deny-message": (("N",), SIZE, "N: deny with a message to the agent"),
    "rules": (("2", "j"), SIZE, "plugins in force, load errors, tests, trust"),
    "playground": (("3", *"ls && rm -rf build; git status"), SIZE, "a command judged as you type"),
    "editor": (("4", "down", "enter"), SIZE, "a plugin file; ctrl+s validates, reloads and tests it"),
    "history": (("5",), SIZE, "the audit log, filterable"),
    "help": (("question_mark",), SIZE, "the keys"),
}


async def shoot(name: str, keys: tuple[str, ...], size: tuple[int, int]) -> Path:
    with tempfile.TemporaryDirectory(prefix="guardtui-shots-") as root:
        staged = stage(Path(root) / "demo")
        app = staged.app
        async with app.run_test(size=size) as pilot:
            await play(staged, pilot)
            if name == "history":
                await answer_some(pilot)
            for key in keys:
                await pilot.press(key)
                await pilot.pause(0.05)
            if name == "rules":
                app.last_reload = T0
                app.screen.load()
            await pilot.pause(0.3)  # the transcript is read off the loop
            still(app)
            await pilot.pause()
            target = HERE / f"{name}.svg"
            app.save_screenshot(filename=target.name, path=str(HERE))
            await app.queue.close()
        return target


async def answer_some(pilot) -> None:
    """History needs decisions with fixed times: answer a few calls as the person would."""
    app = pilot.app
    audit = app.engine.audit
    real_record = audit.record
    audit.record = lambda *a, **k: real_record(*a, **{**k, "ts": app.clock()})  # the staged clock, not now
    for key in ("y", "n", "N"):
        await pilot.press(key)
        await pilot.pause()
        if key == "N":
            await pilot.press(*"use the compose file", "enter")
            await pilot.pause()
        app.clock.advance(7)


def main(names: list[str]) -> int:
    for name in names or list(SHOTS):
        keys, size, what = SHOTS[name]
        path = asyncio.run(shoot(name, keys, size))
        print(f"{path.name}: {what}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
