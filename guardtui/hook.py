"""The command hook's launcher: `python3 -S /path/to/guardtui/hook.py AGENT ...` (what `guardtui
install` writes). Python compiles a script run by path on every start, and the agent pays for
each start on every call: so this file stays small and the hook itself (guardtui/hook_client.py)
comes from its cached bytecode. Anything that keeps it from loading blocks the call (exit 2)."""
import sys

if __name__ == "__main__":
    # run by path: import guardtui from the directory above this file, not from the agent's cwd
    if sys.path and sys.path[0].rstrip("/").endswith("/guardtui"):
        sys.path[0] = sys.path[0].rstrip("/")[: -len("/guardtui")] or "/"
    try:
        from guardtui.hook_client import main
    except BaseException as exc:  # a broken installation: never a traceback, never an allow
        sys.stderr.write(f"guardtui hook: cannot judge this call ({type(exc).__name__}: {exc}); blocking it\n")
        sys.exit(2)
    sys.exit(main())
