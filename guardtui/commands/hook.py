"""guardtui hook AGENT: the command hook through the full CLI (slower to start than the launcher
`guardtui install` writes, which runs guardtui/hook.py directly)."""
from __future__ import annotations

from .. import hook_client as hook


def run(args, _command: str) -> int:
    argv = [args.agent, "--offline", args.offline]
    if args.event:
        argv += ["--event", args.event]
    if args.timeout is not None:
        argv += ["--timeout", str(args.timeout)]
    return hook.main(argv)
