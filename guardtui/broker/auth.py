"""Who may talk to the broker: a bearer token over loopback TCP (with a loopback Host header, so
a web page cannot reach it through DNS rebinding), the same user over the Unix socket.

The token is created once, kept 0600 in the user's config dir, and written only into
user-local agent settings (the HTTP hook entry carries it).

And how the command hook knows the socket is the broker's, not a stale file or a fake planted
in its place: each broker start writes a new random key (`broker.key`, 0600, next to the socket;
never copied anywhere), and answers every request that carries a nonce with an HMAC-SHA256 under
that key over the nonce, the request and its answer (`proof`). The hook (guardtui/hook.py, which
computes the same without importing this module) trusts only an answer whose proof checks.
"""
from __future__ import annotations

import hashlib
import hmac
import ipaddress
import os
import secrets
import socket
import struct
from functools import lru_cache
from pathlib import Path

NONCE_HEADER = "X-Guardtui-Nonce"
PROOF_HEADER = "X-Guardtui-Proof"
PROOF_LABEL = b"guardtui-broker-proof-v1"
KEY_NAME = "broker.key"

from ..core.config import Locations, ensure_private_dir


def load_or_create_token(locations: Locations) -> str:
    """The broker's token: read it, or create it (0600) the first time."""
    path = locations.token_file
    ensure_private_dir(path.parent)
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            if (path.stat().st_mode & 0o077) != 0:
                os.chmod(path, 0o600)
            token = path.read_text(encoding="ascii", errors="replace").strip()
            if len(token) >= 32:
                return token
            path.unlink(missing_ok=True)  # empty or cut short (a crash while writing): make a new one
            continue
        token = secrets.token_urlsafe(32)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(token + "\n")
        return token
    raise OSError(f"cannot create the token file {path}")


def token_matches(authorization: str | None, token: str) -> bool:
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def is_loopback_host(host: str | None) -> bool:
    """A Host header naming this machine's loopback: localhost, 127.x.y.z or [::1], any port."""
    if not host:
        return False
    host = host.strip().lower()
    if host.startswith("["):
        name, _, _ = host[1:].partition("]")
    else:
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
    return _loopback_name(name)


@lru_cache(maxsize=256)  # asked on every request, with the same few names
def _loopback_name(name: str) -> bool:
    if name in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a Unix socket (None when the OS does not say)."""
    try:
        if hasattr(socket, "SO_PEERCRED"):  # Linux: struct ucred {pid, uid, gid}
            raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            return struct.unpack("3i", raw)[1]
        if hasattr(socket, "LOCAL_PEERCRED"):  # macOS / BSD: struct xucred {version, uid, ...}
            raw = sock.getsockopt(0, socket.LOCAL_PEERCRED, 76)
            return struct.unpack_from("=I I", raw)[1]
    except OSError:
        return None
    return None


# -- the broker's proof to the command hook -------------------------------------------------------
def key_name(socket_name: str) -> str:
    """The key file beside a socket: `broker.key` for the broker's, `standby-X.key` for a standby's
    `standby-X.sock` (guardtui/hook_client.py finds it the same way)."""
    return KEY_NAME if socket_name == "broker.sock" else socket_name.removesuffix(".sock") + ".key"


def write_broker_key(directory: Path, name: str = KEY_NAME) -> bytes:
    """A new key for this broker's life, written 0600 (atomically) next to its socket."""
    key = secrets.token_hex(32).encode("ascii")
    path = directory / name
    tmp = directory / f".{name}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, key + b"\n")
    finally:
        os.close(fd)
    os.replace(tmp, path)
    return key


def remove_broker_key(directory: Path, key: bytes, name: str = KEY_NAME) -> None:
    """Remove the key file if it still holds this broker's key (another broker may have replaced it)."""
    path = directory / name
    try:
        if path.read_bytes().strip() == key:
            path.unlink()
    except OSError:
        pass


def proof(key: bytes, nonce: bytes, target: bytes, request_body: bytes, status: bytes, response_body: bytes) -> str:
    """The HMAC the hook checks: every part length-prefixed, so no two requests share a message."""
    mac = hmac.new(key, PROOF_LABEL, hashlib.sha256)
    for part in (nonce, target, request_body, status, response_body):
        mac.update(len(part).to_bytes(8, "big"))
        mac.update(part)
    return mac.hexdigest()
