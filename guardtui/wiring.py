"""Wiring: the engine built the way every entry point builds it (the console, `serve`, `check`,
the offline command hook), and the guard agent's settings. Below the console and the commands,
so both can use it. (The guard agent's HTTP client is the broker's: broker/llm_client.py.)"""
from __future__ import annotations

import gc
import os
import sys

from .core.config import Locations
from .core.engine import Engine
from .core.factory import build_engine
from .core.llm import LLMSettings, load_llm_settings
from .core.plugins import PluginRule, ProjectPlugins, load_plugin_set, project_root
from .core.yamlfile import DataError


def cli_engine(cwd: str, record: bool = False, locations: Locations | None = None,
               path_env: str | None = None) -> Engine:
    """An engine over the user's config and the project's plugins (a call made in another
    project: that project's). Calls it escalates are the guard agent's (llm_settings)."""
    locations = Locations.from_env() if locations is None else locations
    plugin_rule = PluginRule(load_plugin_set(locations, cwd).plugins,
                             projects=ProjectPlugins(locations, project_root(cwd, locations.home) or cwd))
    return build_engine(locations, record=record, plugin_rule=plugin_rule,
                        path_env=os.environ.get("PATH", "") if path_env is None else path_env)


def offline_engine(cwd: str, fallback_cwd: str, record: bool = True) -> Engine:
    """The engine the offline command hook judges a call with (and the standby, for it): built afresh
    for the call's own directory, or `fallback_cwd` (the hook's) when the call names none that exists."""
    return cli_engine(cwd if cwd and os.path.isdir(cwd) else fallback_cwd, record=record)


def llm_settings(locations: Locations, warn: bool = True) -> LLMSettings | None:
    """The guard agent's settings (settings.yaml, GUARDTUI_LLM_*), or None: not configured. A bad
    value is said in one line and no LLM is used (escalated calls then ask: the cautious side)."""
    try:
        return load_llm_settings(locations.settings_file)
    except DataError as exc:
        if warn:
            print(f"guardtui: {exc} (the guard agent is off; unrecognised calls will ask)", file=sys.stderr)
        return None


def long_running() -> None:
    """Tune a process that judges for hours (the console, `serve`, the standby), once start-up is over.

    What start-up built (modules, the taxonomy, compiled regexes) is moved out of the garbage
    collector's reach (gc.freeze), so a full collection no longer walks it: no pause of several
    milliseconds every few thousand calls. Threads switch every millisecond, so a call judged on
    the event loop waits at most about that long for a large one judged in a worker thread."""
    from .core.engine import load_all_data

    load_all_data()  # loaded now, and frozen with the rest, not inside some call's budget later
    gc.collect()
    gc.freeze()
    sys.setswitchinterval(0.001)
