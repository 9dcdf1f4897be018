"""guardtui's command hook: the agent starts it for every tool call.

    python3 -S /path/to/guardtui/hook.py AGENT [--event E] [--offline ask|deny] [--timeout S]

(what `guardtui install` writes: guardtui/hook.py, a launcher small enough that Python's compiling
it costs nothing, imports this module from its cached bytecode; `guardtui hook AGENT ...` is the
same, only slower to start).
It reads the agent's payload on stdin, hands it to the broker over the Unix socket (one HTTP
request, `POST /hooks/AGENT`) and prints the broker's answer, the agent's own JSON. Standard
library only, and only `posix`, `_socket` and `_sha256` on the way (not even `os`): the agent
pays for this start-up on every call.

It trusts only the real broker: the socket's directory must be a private directory of yours,
the socket a socket of yours, the process on it yours (peer credentials), and its answer must
carry an HMAC under the broker's key (`broker.key`, rewritten at each broker start) over this
request's fresh nonce, the request and the answer. A stale socket, a planted one, or one that
answers without the proof is never trusted: the hook judges the call itself and says why on
stderr. (A process of your own user that reads the key can still pose as the broker; see the
README on what same-user isolation can promise.)

When no console runs, the call is judged as the console would with nobody watching: asks are
handed back to the agent's own prompt (`--offline ask`, the default) or denied (`--offline deny`);
an agent that cannot take a call back (Gemini CLI, whose prompt would hang a headless run) has
it denied. The judging is done by a standby (guardtui/broker/standby.py), which proves itself the
same way with its own key (`standby-X.key` beside its `standby-X.sock`): the first call judges
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
MAX_PAYLOAD = 8 * 1024 * 1024  # guardtui.judge.MAX_BODY (a test keeps the two in step)
MAX_TIMEOUT = 900.0  # guardtui.broker.server.MAX_TIMEOUT_S
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
    if not opts["timeout"] > 0:  # NaN too
        raise Usage("--timeout is a number of seconds")
    opts["timeout"] = min(opts["timeout"], MAX_TIMEOUT)
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


def key_path(path):
    """The key beside a socket: guardtui.broker.auth.key_name (a test keeps the two in step)."""
    directory, name = path[: path.rindex("/")] or "/", path[path.rindex("/") + 1:]
    return _join(directory, "broker.key" if name == "broker.sock" else name[: -len(".sock")] + ".key")


def package_dir():
    here = __file__ if __file__.startswith("/") else _join(posix.getcwd(), __file__)
    return here.rsplit("/", 1)[0]


def standby_wanted(env):
    return env.get("GUARDTUI_STANDBY", "1") not in ("0", "off", "no", "false")


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
    posix.close(posix.open(marker, posix.O_WRONLY | posix.O_CREAT | posix.O_TRUNC | posix.O_NOFOLLOW, 0o600))
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


class Untrusted(Exception):
    """The socket is there but is not (provably) guardtui's broker: never trust its answer."""


def ask_broker(path, agent, event, timeout, raw, query=""):
    """POST the payload to the broker (or the standby) over its Unix socket: (status, body, error
    line), or None when nobody answers (then the caller judges offline). Raises Untrusted when
    something answers that cannot prove it is the broker (see check_place and the proof below)."""
    target = f"/hooks/{agent}?timeout={timeout:g}" + (f"&event={event}" if event else "") + query
    return request(path, target, raw, timeout + 30.0)  # the broker answers before the agent's own timeout


def request(path, target, raw, timeout):
    """One proven HTTP POST over a Unix socket: (status, body, error line), or None when nobody
    answers. Raises Untrusted when the answer does not carry the proof under the socket's key."""
    import _socket

    directory = path[: path.rindex("/")] or "/"
    if not _exists(path):
        return None
    key = check_place(directory, path)
    nonce = _hex(posix.urandom(16))
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.settimeout(5.0)
        try:
            sock.connect(path)
        except OSError:
            return None  # a stale socket: no broker runs
        uid = peer_uid(sock, _socket)
        if uid is not None and uid != posix.getuid():
            raise Untrusted(f"the process on {path} runs as uid {uid}, not as you")
        sock.settimeout(timeout)
        head = (f"POST {target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                f"X-Guardtui-Nonce: {nonce}\r\nContent-Length: {len(raw)}\r\nConnection: close\r\n\r\n")
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
    answer = parse_response(b"".join(chunks))
    if answer is None:
        return None
    status, body, error, given = answer
    expected = proof(key, nonce.encode("ascii"), target.encode("ascii"), raw, status.encode("ascii"), body)
    if not _same(given, expected):
        raise Untrusted(f"the process on {path} answered without the broker's proof (a stale or planted socket)")
    return status, body.decode("utf-8", "replace"), error


def check_place(directory, path):
    """The broker's directory is yours and private, the socket is a socket of yours, and the key
    is a private file of yours: its bytes. Raises Untrusted saying which is not."""
    uid = posix.getuid()
    try:
        st = posix.stat(directory)
    except OSError as exc:
        raise Untrusted(f"cannot look at {directory}: {exc.strerror}") from None
    if (st.st_mode & 0o170000) != 0o040000 or st.st_uid != uid or st.st_mode & 0o077:
        raise Untrusted(f"{directory} is not a private directory of yours (owner uid {st.st_uid}, "
                        f"mode {st.st_mode & 0o777:o})")
    try:
        st = posix.lstat(path)
    except OSError as exc:
        raise Untrusted(f"cannot look at {path}: {exc.strerror}") from None
    if (st.st_mode & 0o170000) != 0o140000 or st.st_uid != uid:
        raise Untrusted(f"{path} is not a socket of yours")
    key_file = key_path(path)
    try:
        fd = posix.open(key_file, posix.O_RDONLY | posix.O_NOFOLLOW | posix.O_NONBLOCK)
    except OSError:
        raise Untrusted(f"the broker's key {key_file} is missing") from None
    try:
        st = posix.fstat(fd)
        if (st.st_mode & 0o170000) != 0o100000 or st.st_uid != uid or st.st_mode & 0o077:
            raise Untrusted(f"the broker's key {key_file} is not a private file of yours")
        key = posix.read(fd, 256).strip()
    finally:
        posix.close(fd)
    if len(key) < 32:
        raise Untrusted(f"the broker's key {key_file} is too short")
    return key


def peer_uid(sock, _socket):
    """The uid of the process listening on the socket (None where the OS does not say)."""
    try:
        if hasattr(_socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}, native ints
            raw = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
            return int.from_bytes(raw[4:8], sys.byteorder)
        if hasattr(_socket, "LOCAL_PEERCRED"):  # macOS / BSD: struct xucred {u_int version; uid_t uid; ...}
            raw = sock.getsockopt(0, _socket.LOCAL_PEERCRED, 76)
            return int.from_bytes(raw[4:8], sys.byteorder)
    except OSError:
        return None
    return None


def proof(key, nonce, target, request_body, status, response_body):
    """HMAC-SHA256 as guardtui.broker.auth.proof computes it (a test keeps the two in step), with
    the small _sha256 module rather than hmac and hashlib, which cost more than the rest of the hook."""
    try:
        from _sha256 import sha256
    except ImportError:  # Python 3.12+: _sha2
        from _sha2 import sha256
    if len(key) > 64:
        key = sha256(key).digest()
    key = key + bytes(64 - len(key))
    inner = sha256(bytes(b ^ 0x36 for b in key))
    inner.update(b"guardtui-broker-proof-v1")
    for part in (nonce, target, request_body, status, response_body):
        inner.update(len(part).to_bytes(8, "big"))
        inner.update(part)
    outer = sha256(bytes(b ^ 0x5C for b in key))
    outer.update(inner.digest())
    return outer.hexdigest()


def _same(given, expected):
    """Compare without stopping at the first difference (no timing hint to a guesser)."""
    given = given.encode("ascii", "replace") if isinstance(given, str) else b""
    expected = expected.encode("ascii")
    diff = len(given) ^ len(expected)
    for a, b in zip(given, expected):
        diff |= a ^ b
    return diff == 0


def _hex(data):
    return "".join("0123456789abcdef"[b >> 4] + "0123456789abcdef"[b & 15] for b in data)


def _exists(path):
    try:
        posix.lstat(path)
        return True
    except OSError:
        return False


def parse_response(data):
    """(status, body bytes, error header, proof header), or None when it is not a whole answer."""
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
    return parts[1], body, headers.get("x-guardtui-error", ""), headers.get("x-guardtui-proof", "")


def judge_offline(opts, raw):
    """No broker: the engine here, asks answered by the --offline policy."""
    import os

    if sys.flags.no_site:  # started with -S for speed: the engine needs site-packages
        import site

        site.main()
    from guardtui.adapters import adapter_for
    from guardtui.judge import answer_offline
    from guardtui.wiring import offline_engine

    problems = []  # a failing audit write: said on stderr (the verdict stands)
    here = os.getcwd()

    def make_engine(cwd):
        engine = offline_engine(cwd, here, record=True)
        engine.on_event = lambda event: problems.append(event.message) if event.kind == "audit-error" else None
        return engine

    answer = answer_offline(adapter_for(opts["agent"]), raw, opts["event"], opts["offline"], make_engine)
    return answer.encode().decode("utf-8"), "; ".join(filter(None, [answer.error, *problems]))


def main(argv=None):
    try:
        opts = parse_args(sys.argv[1:] if argv is None else argv)
    except Usage as exc:
        sys.stderr.write(f"guardtui hook: {exc}\n{USAGE}\n")
        return BLOCK
    try:
        raw = sys.stdin.buffer.read(MAX_PAYLOAD + 1)  # more is not judged (fail-safe), and not held
        env = Environ()
        result = standby = None
        distrust = ""
        if len(raw) <= MAX_PAYLOAD:
            try:
                result = ask_broker(socket_path(env), opts["agent"], opts["event"], opts["timeout"], raw)
            except Untrusted as exc:  # never its answer: the engine here judges
                distrust = f"not trusting the broker's socket: {exc}; judged here"
            if result is None and not distrust and standby_wanted(env):
                standby = standby_socket(env)
                try:
                    result = ask_broker(standby, opts["agent"], opts["event"], opts["timeout"], raw,
                                        f"&offline={opts['offline']}&cwd={_quote(posix.getcwd())}")
                except Untrusted as exc:
                    distrust = f"not trusting the standby's socket: {exc}; judged here"
                if result is None and not distrust:
                    start_standby(standby, env)  # it starts while this call is judged here
        if result is not None and result[0] == "200":
            body, error = result[1], result[2]
        else:  # no console, or it refused us, or it is not the console: judge here
            body, error = judge_offline(opts, raw)
            if result is not None and standby is None:  # (a standby refuses a call only when guardtui changed)
                distrust = f"the broker refused the call ({result[0]} {result[2]}); judged here"
            error = "; ".join(filter(None, [distrust, error]))
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
