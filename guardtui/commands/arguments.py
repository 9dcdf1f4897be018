"""The `guardtui` command line: every command's arguments (argparse). Imported only when a command is
not answered before (see cli.py)."""
from __future__ import annotations

import argparse

from .. import __version__

DEFAULT_PORT = 8765  # the broker's (guardtui.broker.server.DEFAULT_PORT; a test keeps them equal)
CONSOLE_OPTIONS = ("port", "no_broker", "notify", "no_bell", "terminal_notify", "on_timeout")


def console_options(p: argparse.ArgumentParser, demo: bool = False) -> None:
    """The console's options: on `guardtui console` and `guardtui demo`, and on bare `guardtui`."""
    p.add_argument("--port", type=int, default=None,
                   help="loopback TCP port for HTTP hooks (default: a free one)" if demo else
                   f"loopback TCP port for HTTP hooks (default: {DEFAULT_PORT})")
    p.add_argument("--no-broker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--notify", action="store_true", help="desktop notifications (notify-send) for new calls")
    p.add_argument("--no-bell", action="store_true", help="do not ring the terminal bell for new calls")
    p.add_argument("--terminal-notify", choices=("auto", "osc9", "osc777", "off"), default="auto",
                   help="a terminal notification for new calls (OSC 9 or 777; works over SSH; auto: by TERM)")
    p.add_argument("--on-timeout", choices=("defer", "deny"), default="defer",
                   help="a call nobody answers in time: hand it back to the agent's own prompt (defer, the "
                        "default) or deny it")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="guardtui", description="A terminal approval console for LLM coding agents. Without a command: the "
                                     "console (the options below are its own).")
    parser.add_argument("--version", action="version", version=f"guardtui {__version__}")
    console_options(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    for name, help_text in (("console", "start the approval console (the default)"),
                            ("demo", "start the console fed by a built-in scenario")):
        console_options(sub.add_parser(name, help=help_text), demo=name == "demo")

    p = sub.add_parser("serve", help="run the broker without a console (asks answered by policy)")
    p.add_argument("--port", type=int, default=None, help=f"loopback TCP port for HTTP hooks (default: {DEFAULT_PORT})")
    p.add_argument("--ask", choices=("deny", "defer"), default="defer",
                   help="what an ask becomes with no person watching (default: defer to the agent's own prompt)")

    p = sub.add_parser("hook", help="command hook: read the agent's payload on stdin, print its answer")
    p.add_argument("agent", help="claude, codex, gemini, cursor or docker-agent")
    p.add_argument("--event", default=None, help="the hook event, when the payload does not say")
    p.add_argument("--offline", choices=("ask", "deny"), default="ask",
                   help="with no console running: hand asks to the agent's prompt (ask) or deny them")
    p.add_argument("--timeout", type=float, default=None, help="the agent's hook timeout in seconds")

    p = sub.add_parser("check", help="judge a shell command or a tool call, without running it")
    p.add_argument("--cwd", default=None, help="working directory of the call (default: the current one)")
    p.add_argument("--json", action="store_true", help="print the decision as JSON")
    p.add_argument("--tool", default=None, help="judge a call of this tool (with --input)")
    p.add_argument("--input", default=None, help="the tool's input as a JSON object")
    p.add_argument("--llm", action="store_true",
                   help="calls no rule classifies go to the guard agent configured in settings.yaml (as in the console)")
    p.add_argument("--batch", default=None, metavar="FILE",
                   help="judge JSON lines from FILE (- for stdin): {\"command\"} or {\"tool_name\", \"tool_input\", \"cwd\"}")
    p.add_argument("command_words", nargs=argparse.REMAINDER, metavar="-- COMMAND")

    p = sub.add_parser("test", help="run the plugins' own tests against the full engine")
    p.add_argument("paths", nargs="*", help="plugin files or directories (default: every plugin in force)")
    p.add_argument("--cwd", default=None, help="project directory (default: the current one)")

    p = sub.add_parser("rules", help="list the plugins in force (--builtin: the MCP servers guardtui knows)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--builtin", action="store_true", help="list the built-in knowledge of MCP servers and tools")
    p.add_argument("--examples", action="store_true",
                   help="print the directory of the shipped example plugins (to copy one into your guards)")
    p.add_argument("--cwd", default=None, help="project directory (default: the current one)")

    p = sub.add_parser("skills", help="list the guard agent's skills in force (and the ones waiting for trust)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--cwd", default=None, help="project directory (default: the current one)")

    p = sub.add_parser("trust", help="trust a project plugin's or guard skill's exact content (its allow "
                                     "patterns apply; the skill is used)")
    p.add_argument("file")

    p = sub.add_parser("log", help="print the audit log")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--limit", type=int, default=50, help="newest N decisions (default 50)")
    p.add_argument("--verdict", choices=("allow", "deny", "ask"), default=None)
    p.add_argument("--agent", default=None)

    p = sub.add_parser("standby", help="the command hook's judge kept warm while no console runs (--stop: stop it)")
    p.add_argument("--stop", action="store_true", help="stop every standby of this user")
    p.add_argument("--socket", default=None, help=argparse.SUPPRESS)
    p.add_argument("--idle", type=float, default=600.0, help=argparse.SUPPRESS)

    for name in ("install", "uninstall"):
        p = sub.add_parser(name, help=f"{name} guardtui's hooks in an agent's settings")
        p.add_argument("agent", choices=("claude", "codex", "gemini", "cursor", "docker-agent"))
        where = p.add_mutually_exclusive_group()
        where.add_argument("--project", default=None, metavar="DIR", help="the project's settings (default: .)")
        where.add_argument("--user", action="store_true", help="the user's settings")
        how = p.add_mutually_exclusive_group()
        how.add_argument("--http", action="store_true", help="an HTTP hook to the running console")
        how.add_argument("--command", action="store_true", dest="command_hook", help="a command hook (the default)")
        p.add_argument("--port", type=int, default=None,
                       help="the console's HTTP port (default: the running console's, else 8765)")
    return parser
