"""Keystrokes synthesised into the focused window (the console's: its keys answer calls) by code or by an
input device written, and guardtui's own state (its audit database) locked or changed from code
(attacks-10). Controls: reading a device, reading the audit log, ordinary code."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


@pytest.mark.parametrize("command", [
    'python3 -c "import pyatspi, time; time.sleep(3); [pyatspi.Registry.generateKeyboardEvent(k, None, '
    'pyatspi.KEY_PRESSRELEASE) for k in (38, 36)]"',
    'python3 -c "from pynput.keyboard import Controller, Key; k = Controller(); k.type(\'a\'); k.press(Key.enter)"',
    "python3 -c 'import pyautogui; pyautogui.write(\"a\"); pyautogui.press(\"enter\")'",
    "python3 -c 'import pyautogui as g; g.typewrite(\"y\")'",
    "python3 -c 'from Xlib import display, X; from Xlib.ext.xtest import fake_input; d = display.Display(); "
    "fake_input(d, X.KeyPress, 38); d.sync()'",
    "python3 -c 'from evdev import UInput, ecodes as e; ui = UInput(); ui.write(e.EV_KEY, e.KEY_A, 1); ui.syn()'",
    "python3 -c 'import uinput; d = uinput.Device([uinput.KEY_A]); d.emit_click(uinput.KEY_A)'",
    "python3 -c 'from dogtail.rawinput import typeText; typeText(\"a\\n\")'",
    "python3 -c 'import keyboard; keyboard.write(\"a\"); keyboard.press_and_release(\"enter\")'",
    "node -e \"const robot = require('robotjs'); robot.typeString('a'); robot.keyTap('enter')\"",
    "evemu-event /dev/input/by-id/usb-kbd-event-kbd --type EV_KEY --code KEY_A --value 1 --sync",
    "evemu-play /dev/input/event3 < keys.events",
    "printf 'x' > /dev/uinput",
    "cat keys.bin > /dev/input/event4",
])
def test_synthesised_keystrokes_deny(world, command):
    assert verdict(world.run(command)) == "deny", command


def test_a_script_that_types_denies(world):
    put(world, "tools/demo.py", "import time\nfrom pynput.keyboard import Controller\n\nc = Controller()\n"
                                "time.sleep(2)\nc.type('a\\n')\n")
    assert verdict(world.run("python3 tools/demo.py")) == "deny"


@pytest.mark.parametrize("command", [
    "evemu-describe /dev/input/by-id/usb-kbd-event-kbd | head -20",
    "python3 -c 'import pyautogui; print(pyautogui.size())'",
    "python3 -c \"print('press enter to continue')\"",
    "node -e \"console.log(['type', 'press'].join(','))\"",
])
def test_reading_devices_and_ordinary_code_stay_quiet(world, command):
    assert verdict(world.run(command)) == "allow", command


@pytest.mark.parametrize("code", [
    "import sqlite3, time, os; c = sqlite3.connect(os.path.expanduser('~/.local/state/guardtui/audit.db'), "
    "isolation_level=None); c.execute('BEGIN EXCLUSIVE'); time.sleep(10**9)",
    "import sqlite3, os; c = sqlite3.connect(os.path.expanduser('~/.local/state/guardtui/audit.db')); "
    "c.execute('PRAGMA locking_mode=EXCLUSIVE'); c.execute('SELECT 1')",
    "import sqlite3, os; c = sqlite3.connect(os.path.expanduser('~/.local/state/guardtui/audit.db')); "
    "c.execute('DELETE FROM decisions'); c.commit()",
    "import fcntl, os, time; f = open(os.path.expanduser('~/.local/state/guardtui/audit.db'), 'rb'); "
    "fcntl.flock(f, fcntl.LOCK_EX); time.sleep(1e9)",
])
def test_the_guards_state_locked_or_changed_from_code_denies(world, code):
    command = f'python3 -c "{code}"'
    assert verdict(world.run(command)) == "deny", code
    assert verdict(world.run(f"nohup {command} >/dev/null 2>&1 &")) == "deny", code


def test_reading_the_audit_log_from_code_is_not_denied(world):
    code = ("import sqlite3, os; c = sqlite3.connect(os.path.expanduser('~/.local/state/guardtui/audit.db')); "
            "print(c.execute('SELECT verdict, count(*) FROM decisions GROUP BY 1').fetchall())")
    assert verdict(world.run(f'python3 -c "{code}"')) != "deny"  # (code that executes SQL asks, as before)
    code = "import os; print(open(os.path.expanduser('~/.local/state/guardtui/audit.db'), 'rb').read(16))"
    assert verdict(world.run(f'python3 -c "{code}"')) == "allow"
    code = ("import sqlite3; c = sqlite3.connect('app.db', isolation_level=None); c.execute('BEGIN EXCLUSIVE'); "
            "c.execute('UPDATE jobs SET done = 1 WHERE id = 3'); c.execute('COMMIT')")
    assert verdict(world.run(f'python3 -c "{code}"')) != "deny"
