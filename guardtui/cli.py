"""The `guardtui` command. Each subcommand's module is imported only when it runs, so
`guardtui hook` (started by the agent for every tool call) stays fast; `guardtui check -- COMMAND`
is answered by the standby before even argparse is imported (commands/check_fast.py)."""
from __future__ import annotations

import importlib
import os
import sys

COMMANDS = {
    "console": "guardtui.commands.console",
    "demo": "guardtui.commands.console",
    "serve": "guardtui.commands.serve",
    "hook": "guardtui.commands.hook",
    "check": "guardtui.commands.check",
    "test": "guardtui.commands.plugin_test",
    "rules": "guardtui.commands.rules",
    "trust": "guardtui.commands.rules",
    "skills": "guardtui.commands.skills",
    "log": "guardtui.commands.log",
    "install": "guardtui.commands.install",
    "uninstall": "guardtui.commands.install",
    "standby": "guardtui.commands.standby",
}


def build_parser():
    from .commands.arguments import build_parser

    return build_parser()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["check"]:
        from .commands.check_fast import fast

        status = fast(argv)
        if status is not None:
            return status
    from .commands.arguments import CONSOLE_OPTIONS

    parser = build_parser()
    args = parser.parse_args(argv)
    command = args.command or "console"
    if args.command is not None:  # console options given before the command: the console's, or a mistake
        defaults, top = vars(parser.parse_args([])), vars(parser.parse_args(_before_command(argv, args.command)))
        for name in (n for n in CONSOLE_OPTIONS if top[n] != defaults[n]):
            if args.command not in ("console", "demo"):
                parser.error(f"--{name.replace('_', '-')} is an option of the console, not of {args.command}")
            if getattr(args, name) == defaults[name]:
                setattr(args, name, top[name])
    module = importlib.import_module(COMMANDS[command])
    try:
        return int(module.run(args, command) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # one line, never a traceback (GUARDTUI_DEBUG=1 shows it)
        if os.environ.get("GUARDTUI_DEBUG"):
            raise
        print(f"guardtui {command}: error: {exc}", file=sys.stderr)
        return 1


def _before_command(argv: list[str], command: str) -> list[str]:
    """The arguments before the command's name (the top-level ones)."""
    return argv[: argv.index(command)] if command in argv else []


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
