"""Escape sequences the console writes to the terminal itself: its title (how many calls wait,
seen on a tab in the background) and a notification (OSC 9 or OSC 777), which, unlike
notify-send, reaches the person's own terminal over SSH. No Textual.

Inside tmux a notification is wrapped for passthrough (tmux's `allow-passthrough` lets it out);
the title is tmux's own pane title (OSC 2), which tmux shows and can pass on (`set-titles`).
"""
from __future__ import annotations

from typing import Mapping

ESC, BEL, ST = "\x1b", "\x07", "\x1b\\"
# terminals known to show OSC 777 notifications but not OSC 9 (most others take OSC 9)
OSC777_TERMINALS = ("foot", "rxvt", "urxvt", "contour")


def clean(text: str, limit: int = 200) -> str:
    """Printable text only: an agent's command must not end the sequence or start another."""
    out = "".join(ch if ch.isprintable() else " " for ch in text)
    return out[:limit]


def title_sequence(title: str) -> str:
    """OSC 2: the window (tab) title."""
    return f"{ESC}]2;{clean(title)}{BEL}"


def which_notification(mode: str, env: Mapping[str, str]) -> str:
    """osc9, osc777 or "" (off) for this terminal."""
    if mode in ("osc9", "osc777", "off"):
        return "" if mode == "off" else mode
    names = " ".join(env.get(k, "") for k in ("TERM", "TERM_PROGRAM", "LC_TERMINAL")).lower()
    return "osc777" if any(name in names for name in OSC777_TERMINALS) else "osc9"


def notification(mode: str, title: str, body: str, env: Mapping[str, str]) -> str:
    """The notification sequence for this terminal ("" when off)."""
    kind = which_notification(mode, env)
    if kind == "osc9":
        sequence = f"{ESC}]9;{clean(title)}: {clean(body)}{BEL}"
    elif kind == "osc777":
        sequence = f"{ESC}]777;notify;{clean(title).replace(';', ',')};{clean(body).replace(';', ',')}{BEL}"
    else:
        return ""
    if env.get("TMUX"):  # tmux passes a sequence through when it is wrapped, its ESCs doubled
        sequence = f"{ESC}Ptmux;{sequence.replace(ESC, ESC + ESC)}{ST}"
    return sequence
