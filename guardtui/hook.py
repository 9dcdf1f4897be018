"""guardtui's command hook: the agent starts it for every tool call.

    python3 -S /path/to/guardtui/hook.py AGENT [--event E] [--offline ask|deny] [--timeout S]

(what `guardtui install` writes; `guardtui hook AGENT ...` is the same, only slower to start).
It reads the agent's payload on stdin, hands it to the broker over the Unix socket (one HTTP
request, `POST /hooks/AGENT`) and prints the broker's answer, the agent's own JSON. Standard
library only, and only the built-in `posix` and `_socket` on the way (not even `os`): the agent
pays for this start-up on every call.

When no console runs, the call is judged as the console would with nobody watching: asks are
handed back to the agent's own prompt (`--offline ask`, the default) or denied (`--offline deny`);
an agent that cannot take a call back (Gemini CLI, whose prompt would hang a headless run) has
it denied. The judging is done by a standby (guardtui/broker/standby.py): the first call judges
here (that imports the engine, so it is slower) and starts one in the background; later calls
reach it over its own socket and cost about what a call to the console does. GUARDTUI_STANDBY=0
judges here every time. A payload it cannot judge gets a one-line error on stderr and the agent's
fail-safe answer, never an allow; if even that is out of reach it exits 2, which every agent
takes as a block.
"""
import posix
import sys

AGENTS = ("claude", "codex", "gemini", "cursor", "docker-agent")
# the agents' own default hook timeouts (s); the adapters carry the same numbers (a test checks)
TIMEOUTS = {"claude": 600.0, "codex": 600.0, "gemini": 60.0, "cursor": 600.0, "docker-agent": 60.0}
USAGE = "usage: guardtui hook {claude,codex,gemini,cursor,docker-agent} [--event E] [--offline ask|deny] [--timeout S]"
BLOCK = 2  # the exit status every agent reads as "blocked"
MAX_BODY = 8 * 1024 * 1024  # guardtui.judge.MAX_BODY (a test keeps them equal): a larger payload is not judged
STANDBY_RETRY_S = 10.0  # a standby that did not come up is started again after this long
# what judging depends on, besides the GUARDTUI_* settings: the standby a hook reaches shares them
_FINGERPRINTED = (b"HOME", b"PATH", b"TMPDIR", b"TEMP", b"TMP", b"XDG_CONFIG_HOME", b"XDG_STATE_HOME",
                  b"XDG_DATA_HOME", b"XDG_CACHE_HOME", b"XDG_RUNTIME_DIR", b"XDG_CONFIG_DIRS", b"XDG_DATA_DIRS")
_NOT_FINGERPRINTED = (b"GUARDTUI_STANDBY", b"GUARDTUI_DEBUG")


class Usage(Exception):
    pass


def parse_args(argv):
    opts = {"agent": None, "event": None, "offline": "ask", "timeout": None}
    args = list(argv)
    while args:
        word = args.pop(0)
        if word.startswith("--") and "=" in word:
            word, value = word.split("=", 1)
            args.insert(0, value)
        if word in ("--event", "--offline", "--timeout"):
            if not args:
                raise Usage(f"{word} needs a value")
            opts[word[2:]] = args.pop(0)
        elif word.startswith("-"):
            raise Usage(f"unknown option {word}")
        elif opts["agent"] is None:
            opts["agent"] = word
        else:
            raise Usage(f"unexpected argument {word}")
    if opts["agent"] not in AGENTS:
        raise Usage(f"agent must be one of {', '.join(AGENTS)}")
    if opts["offline"] not in ("ask", "deny"):
        raise Usage("--offline is ask or deny")
    event = opts["event"]
    if event is not None and not (event and all(c.isalnum() or c == "_" for c in event)):
        raise Usage("--event is a hook event name such as PreToolUse")
    try:
        opts["timeout"] = float(opts["timeout"]) if opts["timeout"] is not None else TIMEOUTS[opts["agent"]]
    except ValueError:
        raise Usage("--timeout is a number of seconds") from None
    return opts


class Environ:
    """os.environ's get(), read from posix.environ (importing os costs more than the rest)."""

    def get(self, name, default=None):
        value = posix.environ.get(name.encode())
        return default if value is None else value.decode("utf-8", "surrogateescape")


def runtime_dir(env):
    """guardtui's runtime dir: the same rule as guardtui.core.config.Locations (a test checks)."""
    runtime = env.get("GUARDTUI_RUNTIME_DIR")
    if not runtime:
        base = env.get("XDG_RUNTIME_DIR")
        if base and _is_dir(base) and posix.access(base, posix.W_OK):
            runtime = _join(base, "guardtui")
        else:
            runtime = _join(temp_dir(env), f"guardtui-{posix.getuid()}")
    return runtime


def socket_path(env):
    """The broker's socket (the console's, or `guardtui serve`'s)."""
    return _join(runtime_dir(env), "broker.sock")


def standby_socket(env):
    """The socket of the standby that judges as this hook would (broker/standby.py): its name is a
    fingerprint of this guardtui, this Python and the settings judging depends on."""
    # the interpreter's directory and version (python and python3 of one venv are the same; sys.prefix
    # is not yet the venv's under -S), this guardtui, this user
    parts = [sys.executable.rsplit("/", 1)[0].encode(), sys.version.encode(), package_dir().encode(),
             str(posix.getuid()).encode()]
    for key in sorted(posix.environ):
        if key in _FINGERPRINTED or (key.startswith(b"GUARDTUI_") and key not in _NOT_FINGERPRINTED):
            parts += [key, posix.environ[key]]
    digest = int.from_bytes(b"\0".join(parts), "little") % ((1 << 61) - 1)  # a cheap hash, stable across runs
    return _join(runtime_dir(env), f"standby-{digest:016x}.sock")


def package_dir():
    here = __file__ if __file__.startswith("/") else _join(posix.getcwd(), __file__)
    return here.rsplit("/", 1)[0]


def start_standby(path, env):
    """Start a standby for this socket in the background (detached, its own session, no inherited
    stdio), at most once per STANDBY_RETRY_S."""
    import time

    marker = path[: -len(".sock")] + ".started"
    try:
        if time.time() - posix.stat(marker).st_mtime < STANDBY_RETRY_S:
            return
    except OSError:
        pass
    runtime = path.rsplit("/", 1)[0]
    try:
        posix.mkdir(runtime, 0o700)
    except FileExistsError:
        pass
    posix.close(posix.open(marker, posix.O_WRONLY | posix.O_CREAT | posix.O_TRUNC, 0o600))
    parent = package_dir().rsplit("/", 1)[0] or "/"
    code = (f"import sys; sys.path.insert(0, {parent!r}); from guardtui.cli import main; "
            f"sys.exit(main(['standby', '--socket', {path!r}]))")
    quiet = [(posix.POSIX_SPAWN_OPEN, fd, "/dev/null", posix.O_RDWR, 0) for fd in (0, 1, 2)]
    try:
        posix.posix_spawn(sys.executable, [sys.executable, "-c", code], posix.environ, file_actions=quiet,
                          setsid=True)
    except NotImplementedError:  # no setsid in posix_spawn here: its own process group will do
        posix.posix_spawn(sys.executable, [sys.executable, "-c", code], posix.environ, file_actions=quiet,
                          setpgroup=0)


def standby_wanted(env):
    return env.get("GUARDTUI_STANDBY", "1") not in ("0", "off", "no", "false")


def read_payload(stream):
    """The payload, up to one byte past MAX_BODY; the rest is read and dropped, so the agent is never
    left blocked writing it."""
    data = stream.read(MAX_BODY + 1)
    if len(data) > MAX_BODY:
        while stream.read(1 << 20):
            pass
    return data


def _quote(text):
    return "".join(chr(b) if chr(b).isalnum() and b < 128 or b in b"/-._~" else f"%{b:02X}"
                   for b in text.encode("utf-8", "surrogateescape"))


def temp_dir(env):
    """tempfile.gettempdir() without importing tempfile (it costs more than the rest of the hook)."""
    for candidate in (env.get("TMPDIR"), env.get("TEMP"), env.get("TMP"), "/tmp", "/var/tmp", "/usr/tmp"):
        if candidate and _is_dir(candidate) and posix.access(candidate, posix.W_OK | posix.X_OK):
            if not candidate.startswith("/"):
                import os

                return os.path.abspath(candidate)
            return candidate if candidate == "/" else candidate.rstrip("/")
    return posix.getcwd()


def _is_dir(path):
    try:
        return (posix.stat(path).st_mode & 0o170000) == 0o040000
    except (OSError, ValueError):
        return False


def _join(directory, name):
    return directory + name if directory.endswith("/") else f"{directory}/{name}"


def ask_broker(path, agent, event, timeout, raw, query=""):
    """POST the payload to the broker (or the standby) over its Unix socket: (status, body, error
    line), or None when nobody answers (then the caller judges offline)."""
    target = f"/hooks/{agent}?timeout={timeout:g}" + (f"&event={event}" if event else "") + query
    return request(path, target, raw, timeout + 30.0)  # the broker answers before the agent's own timeout


def request(path, target, raw, timeout):
    """One HTTP POST over a Unix socket: (status, body, error line), or None when nobody answers."""
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(5.0)
        sock.connect(path)
        sock.settimeout(timeout)
        head = (f"POST {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(raw)}\r\nConnection: close\r\n\r\n")
        sock.sendall(head.encode("ascii") + raw)
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError:
        return None
    finally:
        sock.close()
    return parse_response(b"".join(chunks))


def parse_response(data):
    head, sep, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if not sep or len(parts) < 2 or not parts[0].startswith("HTTP/"):
        return None
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = headers.get("content-length")
    if length is not None and length.isdigit():
        if len(body) < int(length):
            return None  # cut short: the broker went away mid-answer
        body = body[: int(length)]
    return parts[1], body.decode("utf-8", "replace"), headers.get("x-guardtui-error", "")


def judge_offline(opts, raw):
    """No broker: the engine here, asks answered by the --offline policy."""
    import os

    if sys.flags.no_site:  # started with -S for speed: the engine needs site-packages
        import site

        site.main()
    from guardtui.adapters import adapter_for
    from guardtui.judge import answer_offline
    from guardtui.wiring import offline_engine

    here = os.getcwd()
    answer = answer_offline(adapter_for(opts["agent"]), raw, opts["event"], opts["offline"],
                            lambda cwd: offline_engine(cwd, here))
    return answer.encode().decode("utf-8"), answer.error


def main(argv=None):
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
    except Usage as exc:
        sys.stderr.write(f"guardtui hook: {exc}\n{USAGE}\n")
        return BLOCK
    try:
        raw = read_payload(sys.stdin.buffer)
        env = Environ()
        result = standby = None
        if len(raw) <= MAX_BODY:  # a larger one is not sent anywhere: judge_offline answers it fail-safe
            result = ask_broker(socket_path(env), opts["agent"], opts["event"], opts["timeout"], raw)
            if result is None and standby_wanted(env):
                standby = standby_socket(env)
                result = ask_broker(standby, opts["agent"], opts["event"], opts["timeout"], raw,
                                    f"&offline={opts['offline']}&cwd={_quote(posix.getcwd())}")
                if result is None:
                    start_standby(standby, env)  # it starts while this call is judged here
        if result is not None and result[0] == "200":
            body, error = result[1], result[2]
        else:  # no console, or it refused us: judge here
            body, error = judge_offline(opts, raw)
            if result is not None and standby is None:  # (a standby refuses a call only when guardtui changed)
                error = f"the broker refused the call ({result[0]} {result[2]}); judged here" + \
                    (f"; {error}" if error else "")
    except BaseException as exc:  # never a traceback, never an allow: exit 2 blocks in every agent
        if isinstance(exc, SystemExit):
            raise
        sys.stderr.write(f"guardtui hook: cannot judge this call ({type(exc).__name__}: {exc}); blocking it\n")
        return BLOCK
    if error:
        sys.stderr.write(f"guardtui hook: {error}\n")
    if body:
        sys.stdout.write(body + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    # run by path (`python -S .../guardtui/hook.py`): import guardtui from the directory above
    if sys.path and sys.path[0].rstrip("/").endswith("/guardtui"):
        sys.path[0] = sys.path[0].rstrip("/")[: -len("/guardtui")] or "/"
    sys.exit(main())
