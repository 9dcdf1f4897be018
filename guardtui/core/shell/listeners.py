"""A server started on guardtui's broker port (data/protect.yaml `processes.ports`): an HTTP hook
posts its calls there, so whatever listens on it answers for the console (the threat model's
limit of HTTP hooks). Shared by the analyzers of network clients and interpreters."""
from __future__ import annotations

import re

from ..protect import protect_data

WHY = ("agents' HTTP hooks post their calls to that port, so whatever listens there answers them in the "
       "console's place: an agent may not stand up a broker; if you mean it, run it yourself in a terminal")


def broker_ports() -> tuple[int, ...]:
    return tuple(protect_data().processes.get("ports", ()))


def listens_on_broker_port(name: str, args: list[str]) -> int | None:
    """nc -l 8765, ncat -lp 8765, socat TCP-LISTEN:8765,… : the broker's port it would listen on."""
    ports = broker_ports()
    if name in ("nc", "ncat", "netcat"):
        listening = any(a.startswith("-") and not a.startswith("--") and "l" in a[1:] or a == "--listen" for a in args)
        if listening:
            for a in args:
                for part in re.split(r"[:=]", a):
                    if part.isdigit() and int(part) in ports:
                        return int(part)
    if name == "socat":
        for a in args:
            m = re.search(r"(?i)\b(?:tcp[46]?|ssl|openssl)-listen:(\d+)", a)
            if m and int(m.group(1)) in ports:
                return int(m.group(1))
    return None


def code_listens_on_broker_port(code: str) -> int | None:
    """`.listen(8765)`, `bind(('127.0.0.1', 8765))`, `HTTPServer(('', 8765), …)` in code."""
    for port in broker_ports():
        if re.search(rf"(?:listen|bind|serve|Server|run)\s*\([^)]*(?<![\d.]){port}(?!\d)", code) or \
                re.search(rf"\bport\s*[=:]\s*{port}(?!\d)", code) and re.search(r"listen|bind|serve|Server", code):
            return port
    return None


__all__ = ["listens_on_broker_port", "code_listens_on_broker_port", "broker_ports", "WHY"]
