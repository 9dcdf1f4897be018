"""The console's themes. The only place a colour is written down: every style uses these
variables, and `$guard` is the amber of guard events in any theme."""
from __future__ import annotations

from textual.theme import Theme

GUARD_AMBER = "#FFB000"

DARK = Theme(
    name="guardtui",
    primary="#5AA2E0",
    secondary="#3D6E9E",
    accent="#C792EA",
    warning="#E8C547",
    error="#F0616D",
    success="#6CC68A",
    foreground="#D9DEE7",
    background="#111318",
    surface="#181B22",
    panel="#222733",
    dark=True,
    variables={"guard": GUARD_AMBER, "footer-key-foreground": "#5AA2E0"},
)

LIGHT = Theme(
    name="guardtui-light",
    primary="#1F6FB8",
    secondary="#3D6E9E",
    accent="#8B4DB8",
    warning="#9A6B00",
    error="#C4303D",
    success="#237A45",
    foreground="#1D2128",
    background="#F6F7F9",
    surface="#ECEEF2",
    panel="#DDE1E8",
    dark=False,
    variables={"guard": "#A86200"},
)

THEMES = (DARK, LIGHT)
VARIABLE_DEFAULTS = {"guard": GUARD_AMBER}
