"""Ways into this machine, or into the person's keys, handed to another host (taxonomy `remote_access`).

- ssh agent forwarding (-A, ForwardAgent): the far host may use every key the agent holds while the
  session lasts (asks: the person knows whether the host is theirs);
- ssh -R (RemoteForward) of a socket that acts for the person (ssh-agent, gpg-agent, docker, guardtui's
  broker), of this machine's login port, or a reverse SOCKS proxy into its network: denies;
- a network listener or connection wired to such a socket or to a shell (socat, ncat/nc -e, websocat):
  a bind or reverse shell, the Docker API for anyone: denies;
- serving the cluster API with the person's credentials beyond loopback (kubectl proxy --address):
  denies; joining a tailnet with remote login on (tailscale --ssh), tunnels publishing sshd: deny;
- firewall rules that cut the loopback or guardtui's broker port (the hooks' way to the console): deny.
Each returns findings added to the command's own (the worst wins).
"""
from __future__ import annotations

import posixpath
import re
from functools import lru_cache
from typing import TYPE_CHECKING

from ..infra import is_local, known_host
from ..model import BlastRadius
from .findings import Finding, ask, deny
from .listeners import broker_ports
from .words import DYN, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

_LOOPBACK = re.compile(r"^(?:localhost|127(?:\.\d+){0,3}|::1|\[::1\]|0|ip6-localhost)$", re.I)


@lru_cache(maxsize=4)
def _patterns(spec_id: int, sockets: tuple[str, ...]) -> re.Pattern:
    return re.compile("|".join(f"(?:{s})" for s in sockets), re.I)


def _spec(run: "Run") -> dict:
    return run.tax.remote_access


def _socket_of_person(run: "Run", text: str) -> bool:
    sockets = tuple(_spec(run).get("sockets", ()))
    return bool(sockets) and _patterns(id(sockets), sockets).search(text) is not None


def _login_ports(run: "Run") -> set[int]:
    return set(_spec(run).get("login_ports", ())) | set(broker_ports())


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    name = posixpath.basename(inv.name)
    if name == "ssh":
        return ssh(run, inv)
    if name in _spec(run).get("relays", ()):
        return relay(run, inv)
    if name in ("kubectl", "oc"):
        return kubectl_proxy(run, inv)
    if name == "tailscale":
        return tailscale(run, inv)
    if name in _spec(run).get("tunnels", ()):
        return tunnel(run, inv)
    if name in _spec(run).get("firewalls", ()) or name in ("ip", "ifconfig"):
        return firewall(run, inv)
    return []


# -- ssh ------------------------------------------------------------------------------------------
def ssh(run: "Run", inv: "Invocation") -> list[Finding]:
    words = inv.words
    found: list[Finding] = []
    forwards: list[Word] = []
    agent = False
    i = 0
    while i < len(words):
        w = words[i]
        arg = w.value
        if not arg.startswith("-") or arg == "--" or len(arg) < 2:
            break
        if arg.startswith("-o"):
            option = arg[2:] if len(arg) > 2 else (words[i + 1].value if i + 1 < len(words) else "")
            key, value = (re.split(r"\s*[=\s]\s*", option.strip(), maxsplit=1) + [""])[:2]
            if key.lower() == "forwardagent" and value.strip().lower() not in ("no", "false", ""):
                agent = True
            if key.lower() == "remoteforward":
                forwards.append(Word(re.sub(r"\s+", ":", value.strip(), count=1), value))
            i += 1 if len(arg) > 2 else 2
            continue
        letters = arg[1:]
        for j, c in enumerate(letters):
            if c == "A":
                agent = True
            if c in _SSH_VALUES:
                if c == "R":
                    value = letters[j + 1:] or (words[i + 1].value if i + 1 < len(words) else "")
                    raw = letters[j + 1:] or (words[i + 1].raw if i + 1 < len(words) else "")
                    forwards.append(Word(value, raw))
                if j == len(letters) - 1:
                    i += 1
                break
        i += 1
    host = words[i].display() if i < len(words) else "the host"
    if i < len(words) and _LOOPBACK.match(words[i].value.rsplit("@", 1)[-1]):
        return []  # this machine: nothing leaves it
    outside = _outside(words[i].value, inv) if i < len(words) else False
    for spec in forwards:
        reason = _reverse_forward(run, spec)
        if reason:
            found.append(deny(f"ssh -R {spec.display()} {reason} to {host}: it gets a way into this machine or the "
                              "person's keys", "network", "net.remote-access"))
        elif (port := _forwarded_port(spec.value)) in set(_spec(run).get("login_ports", ())) and outside:
            found.append(deny(f"ssh -R {spec.display()} publishes this machine's ssh login on {host}, a host none of "
                              "the person's configuration names: whoever holds it gets in from there", "network",
                              "net.remote-login"))
        elif port in set(_spec(run).get("login_ports", ())):
            found.append(ask(f"ssh -R {spec.display()} publishes this machine's ssh login on {host}: whoever holds a "
                             "key or password for it gets in from there", "network", BlastRadius.HIGH,
                             "net.remote-login"))
    if agent and outside:
        found.append(deny(f"ssh forwards the person's ssh-agent to {host}, a host none of the person's configuration "
                          "names (~/.ssh/config, known_hosts): it can use every loaded key (git hosts, servers) while "
                          "the session lasts", "secrets", "net.agent-forwarding"))
    elif agent:
        found.append(ask(f"ssh forwards the person's ssh-agent to {host}: it can use every loaded key (git hosts, "
                         "servers) while the session lasts", "secrets", BlastRadius.HIGH, "net.agent-forwarding"))
    return found


_SSH_VALUES = set("BbcDEeFIiJLlmOopQRSWw")


def _outside(target: str, inv: "Invocation") -> bool:
    """A host that is neither on this machine or the private network nor named by the person's configuration
    (core/infra.py: ~/.ssh/config, known_hosts, …): someone else's machine."""
    host = target.rsplit("@", 1)[-1]
    host = re.sub(r"^ssh://", "", host).split(":", 1)[0] if not host.startswith("[") else host
    if not host or DYN in host or "." not in host.strip("[]") and ":" not in host:
        return False
    return not is_local(host) and not known_host(host, inv.scope.home, inv.scope.project or inv.scope.cwd)


def _reverse_forward(run: "Run", spec: Word) -> str | None:
    """Why `-R SPEC` opens this machine: None for a plain port of a dev server."""
    text = spec.value
    if _socket_of_person(run, spec.raw) or _socket_of_person(run, text):
        return "hands over a local socket that acts for the person (an agent, docker, the guard)"
    parts = _split_forward(text)
    if len(parts) == 1 and parts[0].isdigit() or len(parts) == 2 and parts[1].isdigit() and not parts[0].isdigit():
        return "opens a reverse SOCKS proxy into this machine's network (its loopback services included)"
    if _forwarded_port(text) in broker_ports():
        return f"publishes guardtui's broker port {_forwarded_port(text)} (where the hooks ask the console)"
    return None


def _forwarded_port(text: str) -> int | None:
    """The port of this machine a `[bind:]port:host:hostport` forward reaches, when host is this machine."""
    parts = _split_forward(text)
    if len(parts) >= 3 and parts[-1].isdigit() and (_LOOPBACK.match(parts[-2]) or DYN in parts[-2]):
        return int(parts[-1])
    return None


def _split_forward(text: str) -> list[str]:
    """`[bind:]port:host:hostport`, `port:/socket`, `/remote.sock:/local.sock`, `[bind:]port` ([v6] kept)."""
    return [p.strip("[]") for p in re.findall(r"\[[^\]]*\]|[^:]+", text)]


# -- relays: socat, ncat, nc, websocat ---------------------------------------------------------------
_NET_ADDRESS = re.compile(r"(?i)^(?:tcp[46]?|udp[46]?|ssl|openssl|sctp|dccp|vsock)(?:-listen|-l)?:|^ws-l:|^wss?://|"
                          r"^l?-?tcp-l|^(?:tcp|ws)-listen:")
_LISTEN_ADDRESS = re.compile(r"(?i)^(?:tcp[46]?|udp[46]?|ssl|openssl|sctp|vsock)-(?:listen|l):|^ws-l:|^ws-listen:|"
                             r"^tcp-l:")
_EXEC_ADDRESS = re.compile(r"(?i)^(?:exec|system|sh-c|cmd):(.*)$")
_SHELL = re.compile(r"(?:^|[/\s'\"])(?:ba|z|k|da|c|tc|fi|a)?sh(?:\s|$|['\"])|(?:^|/)(?:python3?|perl|ruby|php|node)"
                    r"\b.*(?:pty|subprocess|exec|system)")


def relay(run: "Run", inv: "Invocation") -> list[Finding]:
    name = posixpath.basename(inv.name)
    words = inv.words
    args = [w.value for w in words]
    network = any(_NET_ADDRESS.match(a) for a in args)
    listening = any(_LISTEN_ADDRESS.match(a) for a in args)
    if name in ("nc", "ncat", "netcat", "nc.traditional", "nc.openbsd"):
        listening = listening or any(a == "--listen" or a.startswith("-") and not a.startswith("--") and "l" in a[1:]
                                     for a in args)
        network = network or any(not a.startswith("-") for a in args) or listening
    if name == "websocat":
        listening = listening or any(a in ("-s", "--server-mode") or a.startswith("ws-l:") for a in args)
        network = True
    if not network:
        return []
    shell = _runs_shell(words)
    if shell:
        what = "serves a shell to whoever connects (a bind shell)" if listening else \
            "wires a shell to a network connection (a reverse shell)"
        return [deny(f"{name} {what}: it hands this machine to a remote host", "network", "net.remote-shell")]
    if listening and any(_socket_of_person(run, w.raw) or _socket_of_person(run, w.value) for w in words):
        return [deny(f"{name} listens on the network and forwards to a local socket that acts for the person "
                     "(docker's API is root on this machine; an agent socket holds the keys)", "network",
                     "net.socket-exposed")]
    if listening:
        for a in args:
            m = re.match(r"(?i)^tcp[46]?(?:-connect)?:([^:,]+):(\d+)", a)
            if m and _LOOPBACK.match(m.group(1)) and int(m.group(2)) in _login_ports(run):
                return [_published(name, int(m.group(2)), "on the network")]
    return []


def _runs_shell(words: list[Word]) -> bool:
    values = [w.value for w in words]
    for i, a in enumerate(values):
        m = _EXEC_ADDRESS.match(a)
        if m and _SHELL.search(" " + m.group(1).split(",", 1)[0] + " "):
            return True
        option, eq, attached = a.partition("=")
        if option in ("-e", "-c", "--exec", "--sh-exec", "--lua-exec", "--exec-args") or \
                re.fullmatch(r"-[a-zA-Z]*[ec]", a) and not a.startswith("--"):
            program = attached if eq else (values[i + 1] if i + 1 < len(values) else "")
            if program and _SHELL.search(" " + program + " "):
                return True
    return False


def network_client(cmd, tax) -> bool:
    """Is a pipeline stage a raw network connection (nc, socat, telnet, openssl s_client, …)? A shell
    reading from or writing to one is a reverse shell."""
    if not cmd.argv:
        return False
    name = posixpath.basename(cmd.argv[0].value)
    words = [w.value for w in cmd.argv[1:]]
    spec = tax.remote_access
    if name in spec.get("relays", ()) or name in spec.get("clients", ()):
        return True
    return any(name == tool and sub in words for tool, sub in
               (entry.split(" ", 1) for entry in spec.get("client_subcommands", ()) if " " in entry))


# -- kubectl proxy, tailscale, tunnels ------------------------------------------------------------
def kubectl_proxy(run: "Run", inv: "Invocation") -> list[Finding]:
    operands = [w.value for w in inv.words if not w.value.startswith("-")]
    if not operands or operands[0] != "proxy":
        return []
    values = _option_values(inv.words, ("--address", "--accept-hosts"))
    address = values.get("--address", "127.0.0.1")
    accept = values.get("--accept-hosts", "")
    if (address and DYN not in address and not _LOOPBACK.match(address)) or \
            (accept and re.search(r"\.\*|\.\+|^\*$", accept) and address != "127.0.0.1"):
        return [deny(f"kubectl proxy serves the cluster API with the person's credentials on {address}, with no "
                     "authentication: anyone who reaches it acts as the person in the cluster", "network",
                     "net.cluster-exposed")]
    return []


def tailscale(run: "Run", inv: "Invocation") -> list[Finding]:
    operands = [w.value for w in inv.words if not w.value.startswith("-")]
    sub = operands[0] if operands else ""
    values = _option_values(inv.words, ("--ssh", "--auth-key", "--authkey", "--login-server"))
    found: list[Finding] = []
    if sub in ("up", "set", "login") and "--ssh" in values and values["--ssh"].lower() not in ("false", "0"):
        found.append(deny("tailscale --ssh lets the tailnet's members log in to this machine (Tailscale SSH)",
                          "network", "net.remote-login"))
    for port in (int(m.group(1)) for o in operands[1:] if (m := re.search(r"(?:^|:)(\d+)$", o))):
        if sub in ("funnel", "serve") and port in _login_ports(run):
            found.append(_published(f"tailscale {sub}", port, "to the tailnet or the internet"))
    if sub in ("up", "login") and ("--auth-key" in values or "--authkey" in values or "--login-server" in values):
        found.append(ask("tailscale joins this machine to the tailnet the key or server belongs to: its members "
                         "reach this machine's services", "network", BlastRadius.HIGH, "net.join-network"))
    return found


def tunnel(run: "Run", inv: "Invocation") -> list[Finding]:
    """cloudflared tunnel --url ssh://localhost:22, ngrok tcp 22, bore local 22, zerotier-cli join NET."""
    name = posixpath.basename(inv.name)
    args = [w.value for w in inv.words]
    if name in ("zerotier-cli", "zerotier") and "join" in args:
        return [ask("zerotier-cli join puts this machine on a virtual network: its members reach this machine's "
                    "services", "network", BlastRadius.HIGH, "net.join-network")]
    if name == "devtunnel" and re.search(r"(?:^| )(?:--allow-anonymous|-a)(?: |$)", " ".join(args)) and \
            {"host", "create", "port"} & set(args):
        return [deny("devtunnel --allow-anonymous serves this machine's port to anyone on the internet without "
                     "sign-in (a notebook or a dev server there runs code for them)", "network", "net.exposed-server")]
    ports = _login_ports(run)
    reverse_only = name == "chisel"  # chisel client SERVER R:2222:localhost:22: only R: remotes come in
    for a in args:
        value = a.partition("=")[2] if a.startswith("--") and "=" in a else a
        if reverse_only and not value.startswith("R:"):
            continue
        m = re.search(r"(?:^|ssh://|tcp://|rdp://|[\w.\]]:)(\d{1,5})$", value)
        if m and int(m.group(1)) in ports and (value == m.group(1) or re.search(r"localhost|127\.|\[::1\]|ssh://|"
                                                                                   r"tcp://|^R:", value)):
            if int(m.group(1)) in broker_ports():
                return [_published(name, int(m.group(1)), "through a public tunnel")]
            where = "to the tunnel server's side" if reverse_only else "on a public relay"
            return [deny(f"{name} publishes this machine's ssh login (port {m.group(1)}) {where}: a way into this "
                         "machine from anywhere", "network", "net.remote-login")]
    return []


def _published(name: str, port: int, where: str) -> Finding:
    """guardtui's broker port published denies (the hooks' way to the console); sshd asks (it still wants a
    key or a password, and publishing it can be meant)."""
    if port in broker_ports():
        return deny(f"{name} publishes guardtui's broker port {port} {where}: whoever reaches it answers or floods "
                    "the hooks' calls", "guard-self", "net.remote-login")
    return ask(f"{name} publishes this machine's ssh login (port {port}) {where}: whoever holds a key or password "
               "gets in from anywhere", "network", BlastRadius.HIGH, "net.remote-login")


# -- firewalls ------------------------------------------------------------------------------------
_BLOCK = re.compile(r"(?i)^(?:drop|reject|deny|block|tarpit)$")


def firewall(run: "Run", inv: "Invocation") -> list[Finding]:
    name = posixpath.basename(inv.name)
    args = [w.value for w in inv.words]
    text = " ".join(args)
    if name in ("ip", "ifconfig"):
        if re.search(r"(?:^|\s)lo\s+down\b", text) or (name == "ip" and re.search(r"\blink\s+set\s+(?:dev\s+)?lo\b.*"
                                                                                    r"\bdown\b", text)):
            return [deny("it takes the loopback interface down: the agents' hooks no longer reach guardtui's console",
                         "guard-self", "net.guard-cut-off")]
        return []
    blocks = any(_BLOCK.match(a) for a in args) or re.search(r"(?i)\b(?:drop|reject|deny)\b", text) is not None
    if not blocks:
        return []
    ports = [str(p) for p in broker_ports()]
    port_hit = any(re.search(rf"(?<![\d.]){p}(?!\d)", text) for p in ports)
    loopback = re.search(r"(?:-i|-o|--in-interface|--out-interface|iif|oif|iifname|oifname|\bon)\s+['\"]?lo['\"]?"
                         r"(?:\s|$)|(?<![\d.])127\.0\.0\.\d+|(?<![\w:])::1(?![\w:])|\blocalhost\b", text)
    if port_hit or loopback:
        what = "guardtui's broker port" if port_hit else "the loopback"
        return [deny(f"{name} blocks {what}: the agents' hooks can no longer reach guardtui's console, so calls go "
                     "unjudged or stall", "guard-self", "net.guard-cut-off")]
    return []


def _option_values(words: list[Word], names: tuple[str, ...]) -> dict[str, str]:
    out: dict[str, str] = {}
    for i, w in enumerate(words):
        option, eq, value = w.value.partition("=")
        if option in names:
            if eq:
                out[option] = value
            elif i + 1 < len(words) and not words[i + 1].value.startswith("-") and option != "--ssh":
                out[option] = words[i + 1].value
            else:
                out[option] = "true"
    return out
