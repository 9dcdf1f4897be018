"""`guardtui` / `guardtui console`: the approval console with its broker.
`guardtui demo`: the same console in a throwaway world, fed by a built-in scenario."""
from __future__ import annotations

import tempfile
from pathlib import Path


def run(args, command: str) -> int:
    from ..tui.app import ConsoleSettings
    from ..tui.factory import make_console, make_demo

    settings = ConsoleSettings(bell=not getattr(args, "no_bell", False),
                               desktop=bool(getattr(args, "notify", False)), catch_signals=True,
                               terminal=getattr(args, "terminal_notify", "auto"))
    if command == "demo":
        with tempfile.TemporaryDirectory(prefix="guardtui-demo-") as root:
            app, _world = make_demo(Path(root), port=args.port if args.port is not None else 0, settings=settings)
            code = app.run()
    else:
        from ..broker.queue import Outcome

        app = make_console(port=args.port, broker=not args.no_broker, settings=settings,
                           timeout_policy=Outcome(getattr(args, "on_timeout", "defer")))
        code = app.run()
    if app.return_code not in (None, 0):
        return app.return_code
    return int(code or 0) if isinstance(code, int) else 0

