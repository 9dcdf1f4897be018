"""What several subcommands share: building the engine the way the console would."""
from __future__ import annotations

import os

from ..core.config import Locations
from ..core.engine import Engine
from ..core.factory import build_engine
from ..core.plugins import PluginRule, load_plugin_set


def cli_engine(cwd: str, record: bool = False, locations: Locations | None = None,
               path_env: str | None = None) -> Engine:
    """An engine over the user's config and the project's plugins (no broker, no LLM)."""
    locations = Locations.from_env() if locations is None else locations
    plugin_rule = PluginRule(load_plugin_set(locations, cwd).plugins)
    return build_engine(locations, record=record, plugin_rule=plugin_rule,
                        path_env=os.environ.get("PATH", "") if path_env is None else path_env)
