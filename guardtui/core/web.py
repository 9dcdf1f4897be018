"""The web, one judge for every tool: WebFetch, curl and friends, code run by interpreters, MCP
fetchers and browsers.

    judge_url("http://2852039166/latest/meta-data/")  -> UrlJudgement("metadata", "… reaches the cloud …")
    judge_url("http://localhost:3000/")                -> None (nothing to say: ordinary and local URLs are routine)
    judge_url("file:///home/u/.ssh/id_rsa")            -> UrlJudgement(kind="file", path="/home/u/.ssh/id_rsa")

Cloud metadata endpoints (data/web.yaml) are recognised in every spelling an address has:
decimal, hex and octal parts, dotted-mixed forms (169.254.43518), IPv4-mapped, -compatible,
6to4 and NAT64 IPv6, percent-encoded and full-width characters, trailing dots, and wildcard
DNS names that embed the address (169-254-169-254.nip.io).
"""
from __future__ import annotations

import fnmatch
import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from urllib.parse import parse_qsl, unquote, urlsplit

from .protect import protect_data
from .secrets import secret_catalog
from .yamlfile import Field, check, load_yaml

_ADDRESS = {"address": Field(str, required=True), "service": Field(str, required=True)}
_HOST = {"host": Field(str, required=True), "service": Field(str, required=True)}
_ISSUER = {"command": Field(str, required=True), "hosts": Field(list, required=True, items=str)}
_HEADER = {"name": Field(str, required=True), "value": Field(str, required=True), "service": Field(str, required=True)}
_VARIABLE = {"name": Field(str, required=True), "service": Field(str, required=True)}
_TRIGGER = {"path": Field(str, required=True), "what": Field(str, required=True), "param": Field(str)}
_ACTING = {"triggers": Field(list, required=True, items=_TRIGGER),
           "operation_params": Field(list, required=True, items=str), "acting": Field(list, required=True, items=str),
           "destroying": Field(list, required=True, items=str), "delete_flag": Field(str, required=True),
           "wholes": Field(list, required=True, items=str), "teardown": Field(str, required=True),
           "production": Field(str, required=True)}
SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "acting_gets": Field(dict, fields=_ACTING),
    "metadata": Field(dict, required=True, fields={"addresses": Field(list, required=True, items=_ADDRESS),
                                                   "hosts": Field(list, required=True, items=_HOST),
                                                   "headers": Field(list, items=_HEADER),
                                                   "variables": Field(list, items=_VARIABLE)}),
    "token_issuers": Field(list, required=True, items=_ISSUER),
}


@dataclass(frozen=True)
class MetadataEndpoints:
    ipv4: dict[int, str]
    ipv6: dict[int, str]
    hosts: tuple[tuple[str, str], ...]  # (glob, service)
    issuers: dict[str, tuple[str, ...]] = None  # type: ignore[assignment]  # command -> its service's host globs
    headers: tuple[tuple[str, str, str], ...] = ()  # (name lower-cased, value glob lower-cased, service)
    variables: dict[str, str] = None  # type: ignore[assignment]  # environment variable -> the endpoint it names
    acting: "ActingGets | None" = None


@dataclass(frozen=True)
class ActingGets:
    """URLs whose GET acts (web.yaml acting_gets)."""

    triggers: tuple[tuple[re.Pattern, str, str], ...]  # (path regex, what it does, a parameter it needs)
    operation_params: frozenset[str]
    acting: frozenset[str]
    destroying: frozenset[str]
    delete_flag: re.Pattern
    wholes: frozenset[str]
    teardown: re.Pattern
    production: re.Pattern


@dataclass(frozen=True)
class UrlJudgement:
    kind: str  # metadata | credential | file
    reason: str
    path: str = ""  # for file: URLs, the local path they read


def parse_web(text: str, file: str = "web.yaml") -> MetadataEndpoints:
    doc = load_yaml(text, file)
    check(doc, SCHEMA)
    ipv4: dict[int, str] = {}
    ipv6: dict[int, str] = {}
    for i, raw in enumerate(doc.data["metadata"]["addresses"]):
        try:
            address = ipaddress.ip_address(raw["address"])
        except ValueError:
            raise doc.error(("metadata", "addresses", i, "address"), f"{raw['address']!r} is not an IP address") \
                from None
        (ipv4 if address.version == 4 else ipv6)[int(address)] = raw["service"]
    hosts = tuple((raw["host"].lower(), raw["service"]) for raw in doc.data["metadata"]["hosts"])
    issuers = {raw["command"]: tuple(h.lower() for h in raw["hosts"]) for raw in doc.data["token_issuers"]}
    headers = tuple((raw["name"].lower(), raw["value"].lower(), raw["service"])
                    for raw in doc.data["metadata"].get("headers") or ())
    variables = {raw["name"]: raw["service"] for raw in doc.data["metadata"].get("variables") or ()}
    acting = None
    raw = doc.data.get("acting_gets")
    if raw:
        try:
            acting = ActingGets(
                tuple((re.compile(t["path"], re.I), t["what"], t.get("param", "")) for t in raw["triggers"]),
                frozenset(p.lower() for p in raw["operation_params"]), frozenset(v.lower() for v in raw["acting"]),
                frozenset(v.lower() for v in raw["destroying"]), re.compile(raw["delete_flag"]),
                frozenset(w.lower() for w in raw["wholes"]), re.compile(raw["teardown"]), re.compile(raw["production"]))
        except re.error as exc:
            raise doc.error(("acting_gets",), f"a pattern does not compile: {exc}") from None
    return MetadataEndpoints(ipv4, ipv6, hosts, issuers, headers, variables, acting)


@lru_cache(maxsize=1)
def metadata_endpoints() -> MetadataEndpoints:
    text = resources.files("guardtui.core.data").joinpath("web.yaml").read_text(encoding="utf-8")
    return parse_web(text, "guardtui/core/data/web.yaml")


# -- addresses ----------------------------------------------------------------------------
def _ipv4_number(host: str) -> int | None:
    """The address inet_aton (and so curl, wget, browsers) reads in `host`: 1 to 4 parts, each
    decimal, 0x-hex or 0-octal, the last filling the remaining bytes (169.254.43518, 2852039166)."""
    parts = host.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    values = []
    for part in parts:
        if re.fullmatch(r"0[xX][0-9a-fA-F]*", part):
            values.append(int(part[2:] or "0", 16))
        elif re.fullmatch(r"0[0-7]+", part):
            values.append(int(part, 8))
        elif re.fullmatch(r"[0-9]+", part):
            values.append(int(part))
        else:
            return None
    *head, last = values
    if any(v > 255 for v in head) or last >= 256 ** (4 - len(head)):
        return None
    number = 0
    for v in head:
        number = number * 256 + v
    return number * 256 ** (4 - len(head)) + last


def _embedded_ipv4(address: ipaddress.IPv6Address) -> int | None:
    """The IPv4 address an IPv6 one carries: mapped (::ffff:a.b.c.d), compatible (::a.b.c.d),
    6to4 (2002:AABB:CCDD::) or NAT64 (64:ff9b::a.b.c.d)."""
    if address.ipv4_mapped is not None:
        return int(address.ipv4_mapped)
    if address.sixtofour is not None:
        return int(address.sixtofour)
    number = int(address)
    if number >> 32 == 0 and number > 1:
        return number
    if number >> 32 == 0x0064FF9B << 64:
        return number & 0xFFFFFFFF
    return None


def normalise_host(host: str) -> str:
    """A host as a resolver sees it: %-decoded, NFKC (full-width digits, ideographic dots),
    lower case, without brackets' zone, port-free, trailing dot dropped."""
    host = unquote(host)
    host = unicodedata.normalize("NFKC", host).replace("\u3002", ".").replace("\uff61", ".")
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].split("]", 1)[0]
    host = host.split("%", 1)[0] if ":" in host else host  # an IPv6 zone (fe80::1%eth0)
    return host.rstrip(".")


def metadata_service(host: str) -> str | None:
    """The metadata service `host` reaches (its name for a reason), or None."""
    if not host:
        return None
    endpoints = metadata_endpoints()
    host = normalise_host(host)
    if ":" in host:
        try:
            address = ipaddress.IPv6Address(host)
        except ValueError:
            return None
        if int(address) in endpoints.ipv6:
            return endpoints.ipv6[int(address)]
        embedded = _embedded_ipv4(address)
        if embedded is not None and embedded in endpoints.ipv4:
            return endpoints.ipv4[embedded]
        # fd00:c1::a9fe:a9fe (OCI): a cloud's IPv6 spelling ends in the IPv4 address of its service
        return endpoints.ipv4.get(int(address) & 0xFFFFFFFF)
    number = _ipv4_number(host)
    if number is not None:
        return endpoints.ipv4.get(number)
    for pattern, service in endpoints.hosts:
        if fnmatch.fnmatchcase(host, pattern):
            return service
    return _wildcard_dns(host, endpoints)


def _wildcard_dns(host: str, endpoints: MetadataEndpoints) -> str | None:
    """169.254.169.254.nip.io, 169-254-169-254.sslip.io, a9fea9fe.nip.io: names that resolve to
    the address they spell."""
    labels = host.split(".")
    for i in range(len(labels) - 3):
        number = _ipv4_number(".".join(labels[i:i + 4]))
        if number is not None and number in endpoints.ipv4:
            return endpoints.ipv4[number]
    for label in labels:
        for candidate in (label.replace("-", "."), label):
            if re.fullmatch(r"[0-9a-f]{8}", candidate):
                candidate = str(int(candidate, 16))
            if "." in candidate or candidate.isdigit():
                number = _ipv4_number(candidate)
                if number is not None and number in endpoints.ipv4 and (candidate.count(".") == 3 or
                                                                        len(labels) > 1):
                    return endpoints.ipv4[number]
    return None


# -- URLs ---------------------------------------------------------------------------------
_SCHEME = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(//)?")


def host_of(target: str) -> str | None:
    """The host a URL or a bare `host[:port][/path]` (as curl takes it) names, or None."""
    target = target.strip()
    m = _SCHEME.match(target)
    if m and not m.group(2):
        return None  # mailto:, data:, javascript:
    rest = target[m.end():] if m else target
    authority = re.split(r"[/?#\\]", rest, maxsplit=1)[0]
    authority = authority.rsplit("@", 1)[-1]
    if authority.startswith("["):
        return authority[: authority.find("]") + 1] if "]" in authority else authority
    if authority.count(":") > 1 and not m:
        return authority  # a bare IPv6 address
    return authority.split(":", 1)[0] or None


def broker_port_of(url: str) -> int | None:
    """The port of guardtui's broker when `url` is on this machine and on that port (protect.yaml processes.ports)."""
    m = re.match(r"(?i)^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(\[[^\]]+\]|[^:/?#]+)(?::(\d+))?", url.strip())
    if m is None or m.group(2) is None:
        return None
    host = m.group(1).strip("[]").lower()
    loopback = host in ("localhost", "0.0.0.0", "::1", "0:0:0:0:0:0:0:1", "0") or host.startswith("127.") or \
        host.endswith(".localhost")
    port = int(m.group(2))
    return port if loopback and port in protect_data().processes.get("ports", ()) else None


_LOOPBACK_AT = (r"(?:localhost|[\w.-]+\.localhost|127(?:\.\d+){0,3}|0x7f[0-9a-f]*|2130706433|0\.0\.0\.0|0|"
                r"\[(?:::1|0:0:0:0:0:0:0:1|::ffff:127\.[\d.]+)\])")
_HOOK_PATHS = re.compile(r"^/(?:hooks/[\w-]+/?|health/?)?$")


def broker_endpoint_in(text: str) -> str | None:
    """A place on guardtui's broker port on this machine that `text` (a command line, a script) reaches beyond
    what a hook does (a POST to /hooks/<agent>, /health): `http://127.0.0.1:8765/decide`, `localhost:8765/api/x`,
    httpie's `:8765/approve`, bash's `/dev/tcp/127.0.0.1/8765`. None when it reaches none."""
    for port in protect_data().processes.get("ports", ()):
        url = re.compile(rf"(?i)(?:(?<![\w.-])(?:[a-z][a-z0-9+.-]*://)?(?:[^@\s/'\"]*@)?{_LOOPBACK_AT}|(?<![\w.]))"
                         rf":{port}(?!\d)(/[^\s'\"?#]*)?")
        for m in url.finditer(text):
            path = m.group(1)
            if m.group(0).startswith(":") and path is None:
                continue  # `ss 'sport = :8765'`, `lsof -i :8765`: a port named, nothing sent
            if not _HOOK_PATHS.match(path or "/"):
                return m.group(0)
        tcp = re.search(rf"/dev/(?:tcp|udp)/{_LOOPBACK_AT}/{port}(?!\d)", text)
        if tcp:
            return tcp.group(0)
    return None


def judge_url(url: str) -> UrlJudgement | None:
    """What a tool reaching `url` does that matters: a metadata service (deny), a credential in
    the URL itself (deny: it is sent to that host), a local file (judge it as a read). None when
    the URL is ordinary or local: nothing to say."""
    if not isinstance(url, str) or not url.strip():
        return None
    url = url.strip()
    m = _SCHEME.match(url)
    if m and m.group(1).lower() == "file":
        path = unquote(url[m.end():])
        path = "/" + path.split("/", 1)[1] if not path.startswith("/") and "/" in path else path  # file://host/p
        return UrlJudgement("file", f"the URL reads the local file {path}", path=path or "/")
    service = metadata_service(host_of(url) or "")
    if service:
        return UrlJudgement("metadata", f"{url.split('?')[0][:80]} reaches {service}, which hands out this machine's "
                                        f"cloud credentials")
    nested = nested_metadata(url)
    if nested:
        return UrlJudgement("metadata", f"{url.split('?')[0][:80]} is handed the URL {nested[0][:80]}, which reaches "
                                        f"{nested[1]}: a proxy or fetcher behind it brings back the machine's cloud "
                                        "credentials")
    credential = secret_catalog().credential_in(unquote(url))
    if credential:
        return UrlJudgement("credential", f"the URL carries {credential}: requesting it sends the credential to "
                                          f"{host_of(url) or 'another host'}")
    return None


_TRUE = frozenset({"true", "1", "yes", "on", "y"})


def acting_get(url: str) -> UrlJudgement | None:
    """What fetching `url` does when its GET acts: UrlJudgement("destroys", …) for a whole datastore deleted
    or an environment torn down (Solr's action=UNLOAD&deleteIndex=true, a Jenkins prod-teardown job),
    UrlJudgement("acts", …) for another trigger or operation (a Jenkins build, cmd=restart); None for an
    ordinary URL (its path's words are never read: only the query and known trigger endpoints)."""
    acting = metadata_endpoints().acting
    if acting is None or not isinstance(url, str) or "://" not in url:
        return None
    try:
        parsed = urlsplit(url.strip())
    except ValueError:  # "Invalid IPv6 URL": no request this judge can read
        return None
    if parsed.scheme.lower() not in ("http", "https"):
        return None
    path = unquote(parsed.path or "/")
    params = [(k.strip().lower(), v.strip()) for k, v in parse_qsl(parsed.query, keep_blank_values=True)][:256]
    names = {k for k, _ in params}
    segments = {s.lower() for s in path.split("/") if s}
    shown = url.split("?")[0][:80]
    trigger = next((what for rx, what, need in acting.triggers if rx.search(path) and (not need or need.lower() in names)),
                   None)
    operations = [v.lower() for k, v in params if k in acting.operation_params and v.lower() in acting.acting]
    flags = [k for k, v in params if acting.delete_flag.match(k) and v.lower() in _TRUE]
    destroying = [o for o in operations if o in acting.destroying]
    if flags or destroying:
        whole = next((f for f in flags if any(w in f for w in acting.wholes if len(w) > 3) or
                      re.search(r"(?i)(dir|index|core|db|database|all)$", f)), None)
        if whole is None and destroying:
            whole = next((n for n in names | segments if n in acting.wholes), None)
        if whole is not None:
            what = ", ".join(sorted(set(destroying + flags)))[:80]
            return UrlJudgement("destroys", f"fetching {shown} deletes ({what}): a GET of this URL takes a whole "
                                            f"datastore ({whole}) with it")
    if trigger is not None:
        said = " ".join([path] + [f"{k}={v}" for k, v in params])
        if acting.teardown.search(said) and acting.production.search(said):
            return UrlJudgement("destroys", f"fetching {shown} {trigger} that tears down production (a GET of this "
                                            f"URL triggers it)")
        return UrlJudgement("acts", f"fetching {shown} {trigger} (a GET of this URL triggers it)")
    if operations or flags:
        what = ", ".join(sorted(set(operations + flags)))[:80]
        return UrlJudgement("acts", f"fetching {shown} runs an operation ({what}): a GET of this URL acts")
    return None


_URL_IN_TEXT = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s'\"<>`)\]},;]+")
_QUOTED = re.compile(r"'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"|`([^`\n]{1,200})`")


_NESTED_URL = re.compile(r"(?i)\b[a-z][a-z0-9+.-]*://[^\s&'\"<>|]+")


def nested_metadata(url: str) -> tuple[str, str] | None:
    """(inner URL, service) when a URL carries another URL, in its query or path, percent-encoded or not
    (`/proxy?src=http%3A%2F%2F169.254.42.42%2Fconf`), that reaches a metadata service: whatever fetches it on the
    far side (an app's proxy, an image resizer, a webhook tester) reads the metadata for the caller."""
    if not isinstance(url, str) or len(url) > 8192:
        return None
    text = url
    for _ in range(3):  # encoded once, twice or thrice
        start = _SCHEME.match(text)
        for m in _NESTED_URL.finditer(text, start.end() if start else 0):
            service = metadata_service(host_of(m.group(0)) or "")
            if service:
                return m.group(0), service
        decoded = unquote(text.replace("+", " "))
        if decoded == text:
            break
        text = decoded
    return None


def metadata_in_text(text: str) -> tuple[str, str] | None:
    """(what, service) for a URL or a quoted host in program text that reaches a metadata
    service: `fetch('http://169.254.169.254/…')`, `socket.connect(("169.254.169.254", 80))`."""
    if not text:
        return None
    header = metadata_header_in_text(text)
    if header is not None:
        return header
    for m in re.finditer(r"\$\{?([A-Z_][A-Z0-9_]*)|(?:environ|env|getenv)\W{1,4}([A-Z_][A-Z0-9_]*)", text):
        name = m.group(1) or m.group(2)
        service = (metadata_endpoints().variables or {}).get(name)
        if service and _REQUEST_WORDS.search(text):
            return name, service
    for m in _URL_IN_TEXT.finditer(text):
        service = metadata_service(host_of(m.group(0)) or "")
        if service:
            return m.group(0), service
    for m in _QUOTED.finditer(text):
        literal = next(g for g in m.groups() if g is not None).strip()
        if not literal or " " in literal:
            continue
        host = host_of(literal) if ("/" in literal or ":" in literal) else literal
        if host and ("." in host or ":" in host) and metadata_service(host):
            return literal, metadata_service(host)  # type: ignore[return-value]
    return None


def metadata_header(line: str) -> str | None:
    """The metadata service a request header (`Metadata-Flavor: Google`, `X-aws-ec2-metadata-token: …`)
    is meant for, or None: only those services ask for these headers, whatever the host is called."""
    name, sep, value = line.partition(":")
    if not sep:
        return None
    name, value = name.strip().strip("'\"").lower(), value.strip().strip("'\"").lower()
    for header, glob, service in metadata_endpoints().headers:
        if name == header and fnmatch.fnmatchcase(" ".join(value.split()), glob):
            return service
    return None


_HEADER_IN_CODE = re.compile(r"""(?i)(?<![\w-])["']?([A-Za-z][\w-]{2,60})["']?\s*(?::|=>|,|=)\s*["']([^"'\n]{1,80})["']""")
_REQUEST_WORDS = re.compile(r"(?i)https?:|request|urlopen|fetch|axios|http\.|httpx|curl|wget|headers|socket")


def metadata_header_in_text(text: str) -> tuple[str, str] | None:
    """(the header, its service) for a metadata-only header a program sends (`headers={"Metadata-Flavor":
    "Google"}`, `-H 'Metadata: true'` in a script), or None. The text must also make a request."""
    if not text or ":" not in text and "," not in text and "=" not in text:
        return None
    names = {h[0] for h in metadata_endpoints().headers}
    lowered = text.lower()
    if not any(n in lowered for n in names) or not _REQUEST_WORDS.search(text):
        return None
    for m in _HEADER_IN_CODE.finditer(text):
        if m.group(1).lower() in names:
            service = metadata_header(f"{m.group(1)}: {m.group(2)}")
            if service:
                return f"{m.group(1)}: {m.group(2)}", service
    for m in re.finditer(r"(?i)([A-Za-z][\w-]{2,60}):\s*([^'\"\n\\]{1,80})", text):  # curl -H 'Name: value' in a script
        if m.group(1).lower() in names:
            service = metadata_header(m.group(0))
            if service:
                return m.group(0).strip(), service
    return None


def metadata_variable(raw: str) -> tuple[str, str] | None:
    """(the variable, its endpoint) when a word as written starts with a variable a platform sets to its
    metadata or managed-identity endpoint (`"$IDENTITY_ENDPOINT?resource=…"`), or None."""
    m = re.match(r"""["']?\$\{?([A-Za-z_]\w*)""", raw.strip()) if raw else None
    if m is None:
        return None
    service = (metadata_endpoints().variables or {}).get(m.group(1))
    return (m.group(1), service) if service else None


def serves_its_own_tokens(command: str, host: str) -> bool:
    """Is `host` the service whose tokens `command` hands out (gcloud → *.googleapis.com)?"""
    globs = (metadata_endpoints().issuers or {}).get(command, ())
    host = normalise_host(host)
    return bool(host) and any(fnmatch.fnmatchcase(host, g) for g in globs)


def urls_in(text: str) -> list[str]:
    return [m.group(0) for m in _URL_IN_TEXT.finditer(text or "")]
