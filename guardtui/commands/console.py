"""`guardtui` / `guardtui console`: the approval console with its broker.
`guardtui demo`: the same console in a throwaway world, fed by a built-in scenario."""
from __future__ import annotations

import socket
import sys
import tempfile
from pathlib import Path


def run(args, command: str) -> int:
    from ..tui.app import ConsoleSettings
    from ..tui.factory import make_console, make_demo

    settings = ConsoleSettings(bell=not getattr(args, "no_bell", False),
                               desktop=bool(getattr(args, "notify", False)), catch_signals=True,
                               terminal=getattr(args, "terminal_notify", "auto"), own_process=True)
    if command == "console" and not args.no_broker:
        problem = broker_problem(args.port)
        if problem:  # before the screen opens: one line, and no console that cannot hear its agents
            print(f"guardtui: {problem}", file=sys.stderr)
            return 1
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



def broker_problem(port: int | None) -> str | None:
    """Why the console's broker could not start (another console runs, the port is taken), or None."""
    from ..broker.server import DEFAULT_PORT
    from ..core.config import Locations

    port = DEFAULT_PORT if port is None else port
    path = Locations.from_env().socket_path
    if path.exists():
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.settimeout(2.0)
        try:
            probe.connect(str(path))
            return f"another guardtui console (or guardtui serve) is running: its socket {path} answers"
        except OSError:
            pass  # left behind by one that died: the broker replaces it
        finally:
            probe.close()
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the broker binds
    try:
        probe.bind(("127.0.0.1", port))
    except OSError as exc:
        return f"cannot listen on 127.0.0.1:{port} ({exc.strerror or exc}); choose another with --port"
    finally:
        probe.close()
    return None
