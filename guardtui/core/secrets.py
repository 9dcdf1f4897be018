"""Secrets, one source for every tool: which files hold keys and credentials, and what a
credential looks like in text (data/secrets.yaml).

    catalog = secret_catalog()
    catalog.match("/home/u/.aws/credentials", "/home/u")        -> SecretFile(reason="AWS credentials", …)
    catalog.read_reason("/home/u/proj/.env", "/home/u", "/home/u/proj")  -> None (the project's own, no key in it)
                                                    -> "environment file holding a Stripe live key"
    catalog.credential_in("token=ghp_…")                         -> "a GitHub token"

The shell (core/shell/secrets.py), the file-tool rules, MCP tools and the web rule all ask here.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

from .yamlfile import DataError, Field, check, load_yaml, read_regular_file

_FILE = {"path": Field(str), "name": Field(str), "reason": Field(str, required=True), "reads": Field(bool),
         "content": Field(bool)}
_TOKEN = {"name": Field(str, required=True), "pattern": Field(str, required=True)}
_SETTINGS = {"names": Field(str, required=True), "public": Field(str, required=True),
             "placeholders": Field(str, required=True), "bare_key": Field(str, required=True),
             "environment": Field(str), "labelled": Field(str)}
SCHEMA = {
    "version": Field(int, required=True, choices=(1,)),
    "files": Field(list, required=True, items=_FILE),
    "not_secret": Field(list, required=True, items=str),
    "areas": Field(list, required=True, items=str),
    "synced_folders": Field(list, items=str),
    "synced_configs": Field(list, items=str),
    "tokens": Field(list, required=True, items=_TOKEN),
    "settings": Field(dict, fields=_SETTINGS),  # without it, only the token shapes tell a credential
    # environment variables that hold a credential though their names do not say so (IDENTITY_HEADER):
    # a filter on the environment (`env | grep -i identity`) that matches one prints a secret
    "environment_names": Field(list, items=str),
    # places in a home directory (globs) where tools keep their settings: a file there that no entry names
    # asks to read, outside the project, when it holds credentials (~/.config/restic/b2.env, ~/.bundle/config)
    "config_places": Field(list, items=str),
    # a sync client's local API that shares folders and pairs devices (URL path regexes): a folder sent there
    "sync_apis": Field(list, items=str),
    # commands that read a key or certificate file and print only its public part ("PROGRAM SUBCOMMAND")
    "public_readers": Field(list, items=str),
}
MAX_CONTENT_BYTES = 256 * 1024  # what is read of a file to tell whether it holds credentials
# {"client_secret": "…"}, PHP's and Ruby's 'password' => '…'
_JSON_PAIR = re.compile(r"""(["'])([A-Za-z_][\w.-]*)\1\s*(?::|=>)\s*(["'])([^"'\n]*)\3""")
_SETTING = re.compile(r"^\s*(?:export\s+)?[\"']?([A-Za-z_][\w.-]*)[\"']?\s*[:=]\s*(.*?)\s*$")
# NAME=value or NAME: value inside prose; the name written as a setting (upper case, or with _ or -)
_INLINE_SETTING = re.compile(r"(?<![\w$.-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)"
                             r"\s?[=:]\s?[\"']?([^\s\"'`<>]{8,200})")
_HOMES = r"(?:/home/[^/]+|/Users/[^/]+|/root)"
# a secrets store's entries: {"name": "TOWER_ACCESS_TOKEN", "value": "…"} (Nextflow's store, a vault export)
_NAMED_VALUE = re.compile(r"""["'](?:name|key|id)["']\s*:\s*["']([A-Za-z_][\w.-]*)["']\s*,\s*["'](?:value|secret)["']"""
                          r"""\s*:\s*["']([^"'\n]*)["']""")
# a key written as its bytes: a JSON array of 32 or 64 numbers 0-255 (a Solana keypair, an ed25519 seed)
_BYTE_KEY = re.compile(r"^\[\s*(\d{1,3}\s*(?:,\s*\d{1,3}\s*)*)\]$")


@dataclass(frozen=True)
class SecretFile:
    """One entry of the list: where it matches, why it is a secret, whether reading it asks."""

    pattern: str
    reason: str
    by_name: bool  # a file name anywhere (.env), not a place (~/.aws/credentials)
    reads: bool = True
    content: bool = False  # reading asks only when the file holds credentials (~/.aws/config)


@dataclass
class SecretCatalog:
    files: tuple[SecretFile, ...]
    not_secret: tuple[str, ...]
    areas: tuple[str, ...]
    tokens: tuple[tuple[str, re.Pattern], ...]
    settings: dict[str, re.Pattern] = field(default_factory=dict)  # names, public, placeholders, bare_key
    environment_names: tuple[str, ...] = ()
    synced_folders: tuple[str, ...] = ()  # folders a sync client mirrors off the machine (home-relative globs)
    synced_configs: tuple[str, ...] = ()  # the clients' own lists of them (home-relative)
    config_places: tuple[str, ...] = ()  # tools' settings in a home: reading one holding credentials asks
    sync_apis: tuple[str, ...] = ()  # /rest/config/folders: a folder shared there leaves for another device
    public_readers: tuple[tuple[str, ...], ...] = ()  # `openssl x509`: prints a certificate, never a key
    _compiled: dict = field(default_factory=dict, repr=False)

    # -- files ----------------------------------------------------------------------
    def prepare(self, home: str) -> None:
        """Compile the patterns for this home now (about 45 ms: never inside a call's budget)."""
        self._compiled_for(home)

    def match(self, path: str, home: str, *, places_only: bool = False, reading: bool = False) -> SecretFile | None:
        """The first entry that `path` (absolute, normalised) matches, or None.

        places_only: only entries that name a place (home or system), not a file name anywhere.
        reading: only entries whose reading asks (skips `reads: false`)."""
        if not path:
            return None
        m = self._compiled_for(home)
        rel = _in_home(path, m.home_prefix)  # ".ssh/id_rsa" for any home directory, None elsewhere
        base = path.rsplit("/", 1)[-1]
        if not ((rel is not None and m.any_home.match(rel)) or m.any_absolute.match(path) or
                (not places_only and m.any_name.match(base))):
            return None  # the common case, in a few regexes: not a secret at all
        if m.unsecret.match(path) or m.unsecret.match(base):
            return None
        for entry, rx in m.home:
            if (entry.reads or not reading) and rel is not None and rx.match(rel):
                return entry
        for entry, rx in m.absolute:
            if (entry.reads or not reading) and rx.match(path):
                return entry
        if places_only:
            return None
        for entry, rx in m.names:
            if (entry.reads or not reading) and rx.match(base):
                return entry
        return None

    def read_reason(self, path: str, home: str, project: str | None) -> str | None:
        """Why reading `path` asks: a secret in a home directory or the system, a secret file outside
        the project, or one inside it (or a `content` entry) whose content on disk holds credentials.
        None when reading it is routine."""
        entry = self.match(path, home, reading=True)
        if entry is None:
            return self._config_holding_credentials(path, home, project)
        if entry.content or (entry.by_name and project and _within(path, project)):
            # the project's own .env and its test keys are its configuration, unless they hold the real thing
            held = self.credentials_in_file(path)
            return f"{entry.reason.split(' (')[0]} holding {held}" if held else None
        return entry.reason

    def _config_holding_credentials(self, path: str, home: str, project: str | None) -> str | None:
        """A tool's settings file in a home directory, outside the project, that holds credentials: any tool's
        (butler_creds, restic's b2.env, rclone's, a CLI not listed by name) is told by what it holds."""
        if not self.config_places or (project and _within(path, project)) or \
                self.match(path, home) is not None:  # an entry whose reading does not ask (`reads: false`)
            return None
        m = self._compiled_for(home)
        rel = _in_home(path, m.home_prefix)
        if rel is None or m.unsecret.match(path) or not m.config_places.match(rel):
            return None
        held = self.credentials_in_file(path)
        if held is None or held.startswith("what cannot be read") or held == "binary key material":
            return None  # a directory, a socket, a cache, an image: not a settings file
        return f"a tool's settings outside the project holding {held}"

    def credentials_in_file(self, path: str) -> str | None:
        """What credential the file holds ("a Stripe live key", "a value for STRIPE_SECRET_KEY", …), or
        None: no credential in it, or no file. A file that exists but cannot be read as text (too large,
        binary: a key store) is taken to hold one."""
        try:
            data = read_regular_file(path, MAX_CONTENT_BYTES)
        except FileNotFoundError:
            return None
        except DataError:
            return "what cannot be read to check (too large, or not a regular file)"
        if b"\x00" in data[:8192]:
            return "binary key material"
        return self.credentials_in_text(data.decode("utf-8", "replace"))

    def credentials_in_text(self, text: str) -> str | None:
        """The credential a file's text holds: a token shape, a setting whose name says secret with a
        value that is no placeholder, or the whole text one bare key."""
        found = self.credential_in(text)
        if found:
            return found
        names, public = self.settings.get("names"), self.settings.get("public")
        placeholders = self.settings.get("placeholders")
        if names is None or public is None or placeholders is None:
            return None
        pairs = [(m.group(1), _unquoted(m.group(2))) for line in text.splitlines()
                 if not line.lstrip().startswith(("#", "//", ";")) and (m := _SETTING.match(line))]
        pairs += [(m.group(2), m.group(4)) for m in _JSON_PAIR.finditer(text)]  # {"client_secret": "…", …}
        pairs += _NAMED_VALUE.findall(text)
        for name, value in pairs:
            if names.search(name) and not public.search(name) and _looks_real(value, placeholders):
                return f"a value for {name}"
        if _byte_key(text):
            return "a private key written as its bytes"
        for line in text.splitlines():  # an rc file's option carrying a setting: --remote_header=x-api-key=…
            if not line.lstrip().startswith(("#", "//", ";")) and re.search(r"(?:^|\s)--?[\w-]+[= ]", line):
                held = self.credential_in_message(line)
                if held:
                    return held
        bare = self.settings.get("bare_key")
        stripped = text.strip()
        if bare is not None and "\n" not in stripped and bare.match(stripped) and re.search(r"\d", stripped) and \
                re.search(r"[A-Za-z]", stripped):
            return "a bare key"
        return None

    def secret_values(self, text: str, limit: int = 64) -> list[tuple[str, str]]:
        """(what, value) for each credential value a file's text holds: the values of settings whose name
        says secret, bare keys as a setting's value, and token-shaped strings (what the session remembers
        when the agent reads the file, to know them again in what it sends)."""
        out: list[tuple[str, str]] = []
        names, public = self.settings.get("names"), self.settings.get("public")
        placeholders, bare = self.settings.get("placeholders"), self.settings.get("bare_key")
        if names is not None and public is not None and placeholders is not None:
            pairs = [(m.group(1), _unquoted(m.group(2))) for line in text.splitlines()[:4000]
                     if not line.lstrip().startswith(("#", "//", ";")) and (m := _SETTING.match(line))]
            pairs += [(m.group(2), m.group(4)) for m in _JSON_PAIR.finditer(text)]
            pairs += _NAMED_VALUE.findall(text)
            for name, value in pairs:
                if public.search(name) or not _looks_real(value, placeholders):
                    continue
                if names.search(name) or (bare is not None and bare.match(value) and re.search(r"\d", value)
                                          and re.search(r"[A-Za-z]", value) and len(value) >= 32):
                    out.append((name, value))
        for name, rx in self.tokens:
            out += [(name, m.group(0)) for m in rx.finditer(text[:MAX_CONTENT_BYTES])]
        stripped = text.strip()
        if bare is not None and "\n" not in stripped and bare.match(stripped) and re.search(r"\d", stripped) and \
                re.search(r"[A-Za-z]", stripped):
            out.append(("a bare key", stripped))  # a file that is one key (butler_creds, a master.key)
        if _byte_key(text):
            out.append(("a private key written as its bytes", re.sub(r"\s+", "", stripped)))
        return out[:limit]

    def credential_in_message(self, text: str) -> str | None:
        """The credential a message, comment or request carries: a token shape, or a setting written
        inline (`…release job: STORE_PASSWORD=Tr4nsit!Release#2024, keystore at …`) whose name says
        secret and whose value is no placeholder."""
        found = self.credential_in(text)
        if found or not text:
            return found
        names, public = self.settings.get("names"), self.settings.get("public")
        placeholders = self.settings.get("placeholders")
        if names is None or public is None or placeholders is None:
            return None
        for m in _INLINE_SETTING.finditer(text):
            name, value = m.group(1), m.group(2).rstrip(".,;:\"'")
            for opening, closing in ("()", "[]", "{}"):  # "(see KEY=x)": the bracket closes the prose
                if value.endswith(closing) and opening not in value:
                    value = value[:-1]
            if names.search(name) and not public.search(name) and _looks_real(value, placeholders):
                return f"a value for {name}"
        labelled = self.settings.get("labelled")
        for m in labelled.finditer(text) if labelled is not None else ():
            value = m.group("value").rstrip(".,;:)]}")
            if re.fullmatch(r"[a-z]{4}(?: [a-z]{4}){3}", value):
                return "an app password"
            if "://" not in value and not value.startswith(("/", "~", "$")) and _looks_real(value, placeholders):
                return "a password written after its label"
        return None

    def in_area(self, path: str, home: str) -> bool:
        """A directory that holds keys (~/.ssh, ~/.aws, …) or a file in one."""
        for base in {home.rstrip("/"), *re.findall(r"^/(?:home|Users)/[^/]+|^/root", path)}:
            if any(path == f"{base}/{d}" or path.startswith(f"{base}/{d}/") for d in self.areas):
                return True
        return False

    # -- text -----------------------------------------------------------------------
    def credential_in(self, text: str) -> str | None:
        """The kind of credential `text` carries (an AWS access key, a private key, …), or None."""
        if not text:
            return None
        for name, rx in self.tokens:
            if rx.search(text):
                return name
        return None

    def _compiled_for(self, home: str) -> "_Matchers":
        found = self._compiled.get(home)
        if found is None:
            home_rx, absolute, names = [], [], []
            for entry in self.files:
                if entry.by_name:
                    names.append((entry, re.compile(_glob(entry.pattern) + "$", re.S)))
                elif entry.pattern.startswith("~/"):
                    home_rx.append((entry, re.compile(_glob(entry.pattern[2:]) + "$", re.S)))
                else:
                    absolute.append((entry, re.compile(_glob(entry.pattern) + "$", re.S)))

            def union(items: list) -> re.Pattern:
                return re.compile("|".join(f"(?:{rx.pattern})" for _, rx in items) or "(?!)", re.S)

            prefix = re.compile("(?:" + "|".join(filter(None, [re.escape(home.rstrip("/")), _HOMES])) + ")/")
            found = self._compiled[home] = _Matchers(
                prefix, tuple(home_rx), tuple(absolute), tuple(names), union(home_rx), union(absolute), union(names),
                re.compile("(?:" + "|".join(_glob(p) for p in self.not_secret) + ")$", re.S),
                re.compile("(?:" + ("|".join(_glob(p) for p in self.config_places) or "(?!)") + ")$", re.S))
        return found


@dataclass(frozen=True)
class _Matchers:
    """The list compiled for one home directory: each entry alone (for its reason) and all at once."""

    home_prefix: re.Pattern
    home: tuple
    absolute: tuple
    names: tuple
    any_home: re.Pattern
    any_absolute: re.Pattern
    any_name: re.Pattern
    unsecret: re.Pattern
    config_places: re.Pattern


def _in_home(path: str, prefix: re.Pattern) -> str | None:
    m = prefix.match(path)
    return path[m.end():] if m else None


def _unquoted(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    value = re.split(r"\s+#", value, maxsplit=1)[0]  # a trailing comment
    return value.rstrip(",").strip().strip("\"'")


def _byte_key(text: str) -> bool:
    m = _BYTE_KEY.match(text.strip())
    if not m:
        return False
    numbers = [int(n) for n in re.findall(r"\d+", m.group(1))]
    return len(numbers) in (32, 64) and max(numbers) <= 255 and len(set(numbers)) > 8


def _looks_real(value: str, placeholders: re.Pattern) -> bool:
    """A setting's value that is a credential, not a placeholder, a reference or a word."""
    if len(value) < 8 or placeholders.match(value):
        return False
    kinds = sum(bool(re.search(rx, value)) for rx in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    return kinds >= 2 and not re.fullmatch(r"[a-z]+(?:[-_][a-z]+)*", value)


def _glob(pattern: str) -> str:
    return "".join(".*" if c == "*" else "[^/]" if c == "?" else re.escape(c) for c in pattern)


def _within(path: str, base: str) -> bool:
    base = base.rstrip("/") or "/"
    return path == base or path.startswith(base + "/") or base == "/"


def parse_secrets(text: str, file: str = "secrets.yaml") -> SecretCatalog:
    doc = load_yaml(text, file)
    check(doc, SCHEMA)
    files = []
    for i, raw in enumerate(doc.data["files"]):
        if bool(raw.get("name")) == bool(raw.get("path")):
            raise doc.error(("files", i), "give exactly one of name or path")
        pattern = raw.get("path") or raw["name"]
        if raw.get("path") and not pattern.startswith(("~/", "/")):
            raise doc.error(("files", i, "path"), "a path starts with ~/ or /")
        if raw.get("name") and "/" in pattern:
            raise doc.error(("files", i, "name"), "a name has no /; use path")
        files.append(SecretFile(pattern, raw["reason"], bool(raw.get("name")), raw.get("reads", True),
                                raw.get("content", False)))
    tokens = []
    for i, raw in enumerate(doc.data["tokens"]):
        try:
            tokens.append((raw["name"], re.compile(raw["pattern"])))
        except re.error as exc:
            raise doc.error(("tokens", i, "pattern"), f"regex does not compile: {exc}") from None
    if not files:
        raise DataError(file, None, "files", "the list of secret files is empty")
    settings = {}
    for key, pattern in (doc.data.get("settings") or {}).items():
        try:
            settings[key] = re.compile(pattern)
        except re.error as exc:
            raise doc.error(("settings", key), f"regex does not compile: {exc}") from None
    return SecretCatalog(tuple(files), tuple(doc.data["not_secret"]), tuple(doc.data["areas"]), tuple(tokens),
                         settings, environment_names=tuple(doc.data.get("environment_names") or ()),
                         synced_folders=tuple(doc.data.get("synced_folders") or ()),
                         synced_configs=tuple(doc.data.get("synced_configs") or ()),
                         config_places=tuple(doc.data.get("config_places") or ()),
                         sync_apis=tuple(doc.data.get("sync_apis") or ()),
                         public_readers=tuple(tuple(c.split()) for c in doc.data.get("public_readers") or ()))


@lru_cache(maxsize=1)
def secret_catalog() -> SecretCatalog:
    text = resources.files("guardtui.core.data").joinpath("secrets.yaml").read_text(encoding="utf-8")
    return parse_secrets(text, "guardtui/core/data/secrets.yaml")
