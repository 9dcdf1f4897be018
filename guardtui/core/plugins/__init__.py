"""Plugin rules: files people write, test and hot-reload (see README, "Plugin rules").

    load_plugin_set(locations, cwd) -> PluginSet     find, parse, validate, order
    PluginRule(plugin_set.plugins, projects=…)       the engine's "plugins" rule
    ProjectPlugins(locations, watched_root)          each call judged with its own project's plugins
    watch_plugins(engine, locations, cwd, on_event)  hot reload (asyncio; watchfiles)
    selftest.run_plugin_tests(plugin)                a plugin's `tests:` against the full engine
"""
from .loader import PluginDir, PluginSet, load_plugin_paths, load_plugin_set, plugin_dirs, plugin_files, project_root
from .projects import ProjectPlugins
from .model import PROJECT, USER, Pattern, Plugin, PluginTest
from .rule import REGEX_TIMEOUT_S, PluginRule

__all__ = ["PROJECT", "USER", "Pattern", "Plugin", "PluginDir", "PluginRule", "PluginSet", "PluginTest",
           "ProjectPlugins", "REGEX_TIMEOUT_S", "load_plugin_paths", "load_plugin_set", "plugin_dirs",
           "plugin_files", "project_root", "watch_plugins"]


def __getattr__(name: str):
    """watch_plugins is imported when asked for: it brings asyncio and watchfiles, which judging a call
    (the offline hook, check) never needs."""
    if name == "watch_plugins":
        from .watch import watch_plugins

        return watch_plugins
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
