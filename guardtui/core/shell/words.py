"""Turn tree-sitter word nodes into the words bash would pass: quotes and escapes
removed, variables we can know substituted, the rest marked as unknown.

An unknown part of a word is written as DYN (a NUL, which no real argument holds), so a
word such as ``/etc/$X`` still reads as "something under /etc" while ``$X`` alone is
"anything at all".
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable

DYN = "\x00"

# Variables whose value we treat symbolically rather than as unknown.
TEMP_DIR = "/tmp"


@dataclass(frozen=True)
class Word:
    value: str  # bash's view of the word; DYN marks a part known only at run time
    raw: str  # the source text
    quoted: bool = False  # some part was quoted (so not a glob, not an assignment, ...)
    glob: bool = False  # an unquoted *, ? or [ that bash would expand
    assumed: bool = False  # part of the value is a ${X:-default} taken because X looked unset
    origin: str = ""  # where expanded variables got their values (`$(base64 .env)`), for exfiltration checks

    @property
    def dynamic(self) -> bool:
        return DYN in self.value

    @property
    def static(self) -> bool:
        return DYN not in self.value

    @property
    def fully_dynamic(self) -> bool:
        return self.value.startswith(DYN)

    def display(self) -> str:
        """The word as the person wrote it when that says more (`~`, `$HOME/x`), else its value."""
        if self.raw and (self.dynamic or "~" in self.raw or "$" in self.raw):
            return self.raw
        return self.value

    @staticmethod
    def literal(text: str) -> "Word":
        return Word(text, text)


@dataclass
class Scope:
    """What the walker knows at one point of the script."""

    cwd: str | None  # None once a `cd` went somewhere we cannot know
    home: str
    variables: dict[str, str] = field(default_factory=dict)  # name -> value (may hold DYN)
    functions: set[str] = field(default_factory=set)
    remote: bool = False  # inside `ssh host '…'`: paths are on another machine
    project: str | None = None  # the agent's working directory: `cd` moves cwd, never the project
    arrays: dict[str, list[str]] = field(default_factory=dict)  # a=(x y); "@" holds `set --` parameters
    aliases: dict[str, str] = field(default_factory=dict)  # alias ls='…' earlier in the script
    origins: dict[str, str] = field(default_factory=dict)  # variable -> the text its value came from
    oldpwd: str | None = None  # the directory before the last cd (`cd -`, `~-`)
    cd_dynamic: bool = False  # the last cd went to a directory known only at run time (`cd "$X"`)
    # what earlier commands set up for later ones: "git-alias:NAME" -> its value, "destroy-plan:PATH",
    # "copy-of:PATH" -> the file it was copied from, "tcp-fd" -> the variable holding a socket
    facts: dict[str, str] = field(default_factory=dict)
    # pushd's directory stack below the current directory (`dirs` entries 1…); None once unknown
    dirstack: list[str] | None = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.project is None and not self.remote:
            self.project = self.cwd

    def copy(self) -> "Scope":
        return Scope(self.cwd, self.home, dict(self.variables), set(self.functions), self.remote, self.project,
                     {k: list(v) for k, v in self.arrays.items()}, dict(self.aliases), dict(self.origins), self.oldpwd,
                     self.cd_dynamic, dict(self.facts),
                     None if self.dirstack is None else list(self.dirstack))

    def elements(self, name: str) -> list[str] | None:
        """The elements of an array (or of "@", the positional parameters), when known."""
        return self.arrays.get(name)

    def lookup(self, name: str) -> str:
        if name in self.variables:
            return self.variables[name]
        if name == "HOME":
            return self.home
        if name == "TMPDIR":
            return TEMP_DIR
        if name == "PWD" and self.cwd is not None:
            return self.cwd
        if name == "OLDPWD" and self.oldpwd is not None:
            return self.oldpwd
        if name == "SHELL":
            return "/bin/sh"  # some shell: whatever it is, `$SHELL -c 'x'` runs x
        return DYN


# set on a script's scope when the arguments it was run with are all it has: a parameter beyond them is
# empty, not unknown (analyze._Run.program judges a script again that way: `rm -rf "$1"/` run with none)
EXACT_PARAMETERS = "exact-parameters"
# the fact naming the directory the agent's session started in (its project), when the call runs elsewhere
SESSION_ROOT = "session-root"


def _parameter(scope: Scope, number: int) -> str:
    """$1, $2 …: the positional parameter when the parameters are known; else unknown."""
    params = scope.elements("@")
    if params is None or number < 1:
        return DYN
    if number <= len(params):
        return params[number - 1]
    return "" if EXACT_PARAMETERS in scope.facts else DYN


# A substitution evaluator: given the node of `$(…)`, return its static output or None.
SubstEval = Callable[[object, Scope], "str | None"]

_ANSI_SIMPLE = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
                "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_RE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)", re.S)


def decode_ansi_c(body: str) -> str:
    """The value of $'…' (without the $' and ')."""

    def repl(m: re.Match[str]) -> str:
        esc = m.group(1)
        head = esc[0]
        if head in "xuU":
            if len(esc) == 1:
                return "\\" + esc  # \x with no hex digits stays as written
            return chr(min(int(esc[1:], 16), 0x10FFFF))
        if head in "01234567":
            return chr(int(esc, 8) & 0xFF)
        if head == "c" and len(esc) == 2:
            return chr(ord(esc[1]) & 0x1F)
        return _ANSI_SIMPLE.get(head, "\\" + esc)

    return _ANSI_RE.sub(repl, body)


_ESCAPED = re.compile(r"\\(.)", re.S)


def unescape_unquoted(text: str) -> tuple[str, bool]:
    """Remove backslashes as bash does outside quotes; report an unescaped glob char."""
    if "\\" not in text:  # the usual word: nothing to remove (and no loop over a megabyte of it)
        return text, "*" in text or "?" in text or "[" in text
    bare = _ESCAPED.sub("", text)  # what is not escaped
    glob = "*" in bare or "?" in bare or "[" in bare
    return _ESCAPED.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), text), glob


def unescape_double_quoted(text: str) -> str:
    return re.sub(r'\\([$`"\\\n])', lambda m: "" if m.group(1) == "\n" else m.group(1), text)


def expand_braces(text: str) -> list[str]:
    """Bash brace expansion of a plain unquoted word: a{b,c}d -> abd acd; {1..3} -> 1 2 3."""
    depth = 0
    start = -1
    for i, ch in enumerate(text):
        if ch == "{" and (i == 0 or text[i - 1] != "$"):
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth:
            depth -= 1
            if depth == 0:
                inner = text[start + 1 : i]
                options = _split_top_level_commas(inner)
                if options is None:
                    rng = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", inner)
                    if rng and abs(int(rng.group(2)) - int(rng.group(1))) < 64:
                        a, b = int(rng.group(1)), int(rng.group(2))
                        step = 1 if b >= a else -1
                        options = [str(n) for n in range(a, b + step, step)]
                if options is None:
                    continue
                prefix, suffix = text[:start], text[i + 1 :]
                results: list[str] = []
                for option in options:
                    results.extend(expand_braces(prefix + option + suffix))
                    if len(results) > 64:
                        break
                return results
    return [text]


def _split_top_level_commas(inner: str) -> list[str] | None:
    parts, depth, cur = [], 0, []
    for ch in inner:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts if len(parts) > 1 else None


class WordResolver:
    """Resolves word nodes in a scope. `subst_eval` knows what `$(echo x)` prints."""

    def __init__(self, source: bytes, subst_eval: SubstEval | None = None):
        self.source = source
        self.subst_eval = subst_eval

    def text(self, node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def fields(self, node, scope: Scope) -> list[Word]:
        """The words (fields) one argument node becomes after expansion and splitting."""
        raw = self.text(node)
        if node.type in ("word", "concatenation") and "{" in raw and ("," in raw or ".." in raw):
            if node.type == "word" or all(c.type == "word" for c in node.children):
                expanded = expand_braces(raw)
                if len(expanded) > 1:
                    words = []
                    for item in expanded:
                        value, glob = unescape_unquoted(item)
                        words.append(Word(_tilde(value, scope), item, False, glob))
                    return words
        ifs = scope.variables.get("IFS", " \t\n")
        builder = _FieldBuilder(raw, ifs if DYN not in ifs else " \t\n")
        self._collect(node, scope, builder, quoted=False)
        return builder.finish()

    def word(self, node, scope: Scope) -> Word:
        """One node as a single word (for places where bash does no splitting)."""
        fields = self.fields(node, scope)
        if len(fields) == 1:
            return fields[0]
        raw = self.text(node)
        if not fields:
            return Word("", raw, quoted=True)
        return Word(" ".join(f.value for f in fields), raw, any(f.quoted for f in fields),
                    any(f.glob for f in fields))

    # -- internals -------------------------------------------------------------------
    def _collect(self, node, scope: Scope, out: "_FieldBuilder", quoted: bool) -> None:
        kind = node.type
        if kind in ("word", "number", "file_descriptor", "variable_name", "special_variable_name"):
            text = self.text(node)
            if quoted:
                out.add(text, quoted=True)
            else:
                value, glob = unescape_unquoted(text)
                if out.at_start and value.startswith("~"):
                    value = _tilde(value, scope)
                out.add(value, quoted=False, glob=glob)
        elif kind == "raw_string":
            out.add(self.text(node)[1:-1], quoted=True)
        elif kind == "ansi_c_string":
            out.add(decode_ansi_c(self.text(node)[2:-1]), quoted=True)
        elif kind in ("string", "translated_string"):
            out.mark_quoted()
            for child in node.named_children:
                if child.type == "string_content":
                    out.add(unescape_double_quoted(self.text(child)), quoted=True)
                elif child.type == "string":  # translated_string wraps a string
                    self._collect(child, scope, out, quoted=True)
                else:
                    self._collect(child, scope, out, quoted=True)
        elif kind == "concatenation":
            for child in node.children:
                self._collect(child, scope, out, quoted)
        elif kind == "simple_expansion":
            name = self.text(node)[1:]
            out.origin += scope.origins.get(name, "")
            if name in ("@", "*"):
                out.add_list(scope.elements("@"), quoted, join=name == "*")
            elif name == "0":
                out.add_expansion(scope.variables.get("0", DYN), quoted)
            elif name.isdigit():
                out.add_expansion(_parameter(scope, int(name)), quoted)
            else:
                out.add_expansion(scope.lookup(name) if _is_name(name) else DYN, quoted)
        elif kind == "expansion":
            m = re.match(r"\$\{[#!]?(\w+)", self.text(node))
            if m:
                out.origin += scope.origins.get(m.group(1), "")
            value = expand_parameter(self.text(node), scope)
            if isinstance(value, list) or value is None:
                out.add_list(value, quoted, join="[*]" in self.text(node))
            else:
                out.add_expansion(value, quoted)
        elif kind == "command_substitution":
            value = self.subst_eval(node, scope) if self.subst_eval else None
            out.add_expansion(DYN if value is None else value, quoted)
        elif kind == "arithmetic_expansion":
            out.add_expansion(DYN, quoted=True)  # a number: never splits into flags or paths
        elif kind == "process_substitution":
            out.add("/dev/fd/63", quoted=True)
        elif kind in ('"', "'"):
            out.mark_quoted()
        else:
            out.add_expansion(DYN, quoted)

_PARAM_RE = re.compile(
    r"^\$\{(?P<len>#)?(?P<bang>!)?(?P<name>[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])(?:\[(?P<index>[^\]]*)\])?"
    r"(?P<op>:?[-=+?]|%%|%|##|#|//|/#|/%|/|\^\^|\^|,,|,|:)?(?P<arg>.*)\}$", re.S)


def expand_parameter(text: str, scope: Scope) -> str | list[str] | None:
    """The value of ${…}: a string (DYN where unknown), or a list for ${a[@]} (None: unknown list)."""
    m = _PARAM_RE.match(text)
    if m is None:
        return DYN
    name, index, op, arg = m.group("name"), m.group("index"), m.group("op"), m.group("arg")
    if m.group("len"):
        return DYN  # a length: a number
    if m.group("bang") and not op and index is None:
        target = scope.lookup(name) if _is_name(name) else DYN  # ${!ref}: the variable ref names
        return scope.lookup(target) if _is_name(target) else DYN
    if index in ("@", "*") or (name in ("@", "*") and index is None):
        items = scope.elements("@" if name in ("@", "*") else name)
        return None if items is None else items if not op else DYN
    if index is not None:
        items = scope.elements(name)
        value = items[int(index)] if items is not None and index.isdigit() and int(index) < len(items) else DYN
    elif name.isdigit():
        params = scope.elements("@")
        value = _parameter(scope, int(name)) if not op else \
            params[int(name) - 1] if params is not None and 0 < int(name) <= len(params) else DYN
        if params is not None and int(name) > len(params) and op in (":-", "-", ":=", "="):
            return _tilde(_literal(arg), scope)  # the parameters are known and this one is not given: the default
    else:
        value = scope.lookup(name) if _is_name(name) else DYN
    known = DYN not in value
    if op is None:
        return value
    if op in (":-", "-", ":=", "="):
        if known and (value or op in ("-", "=")):
            return value
        if not known and name in scope.variables:
            return DYN  # set earlier to something we cannot know
        # unset (as far as the command shows): the default is what runs (bash expands a ~ in it: ${X:-~})
        return Assumed(_tilde(_literal(arg), scope))
    if op in (":+", "+"):
        return (_literal(arg) if value else "") if known else DYN
    if op in (":?", "?"):
        return value
    if not known:
        return DYN
    if op in ("%", "%%", "#", "##"):
        return _remove_pattern(value, _literal(arg), op)
    if op in ("/", "//", "/#", "/%"):
        pattern, _, replacement = arg.partition("/")
        return _replace_pattern(value, _literal(pattern), _literal(replacement), op)
    if op in ("^^", "^"):
        return value.upper() if op == "^^" else value[:1].upper() + value[1:]
    if op in (",,", ","):
        return value.lower() if op == ",," else value[:1].lower() + value[1:]
    if op == ":":
        parts = arg.split(":")
        try:
            start = int(parts[0] or 0)
            length = int(parts[1]) if len(parts) > 1 else None
        except ValueError:
            return DYN
        return value[start:] if length is None else value[start:start + length]
    return DYN


class Assumed(str):
    """A value taken from ${X:-default} because X was never set in the command."""


class GlobMatch(str):
    """A loop variable over a glob (`for d in /*`): each value is one of its matches, so "$d"
    stands for the glob itself, quoted or not."""


def _split_ifs(value: str, ifs: str) -> list[str]:
    """Word splitting on IFS: whitespace in IFS folds, other characters separate exactly."""
    if ifs == " \t\n":
        return value.split()
    if not ifs:
        return [value]
    return [p for p in re.split("[" + re.escape(ifs) + "]", value) if p or not set(ifs) <= set(" \t\n")]


def _literal(text: str) -> str:
    value, _ = unescape_unquoted(text.strip("'\""))
    return value if "$" not in value and "`" not in value else DYN


def _glob_regex(pattern: str, greedy: bool) -> str:
    out = []
    for ch in pattern:
        out.append((".*" if greedy else ".*?") if ch == "*" else "." if ch == "?" else re.escape(ch))
    return "".join(out)


def _remove_pattern(value: str, pattern: str, op: str) -> str:
    if DYN in pattern:
        return DYN
    greedy = op in ("%%", "##")
    body = _glob_regex(pattern, greedy)
    if op.startswith("#"):
        m = re.match(body, value, re.S)
        return value[m.end():] if m else value
    # suffix: try the shortest (or longest) suffix that matches
    starts = range(len(value) + 1) if greedy else range(len(value), -1, -1)
    for i in starts:
        if re.fullmatch(_glob_regex(pattern, True), value[i:], re.S):
            return value[:i]
    return value


def _replace_pattern(value: str, pattern: str, replacement: str, op: str) -> str:
    if DYN in pattern or DYN in replacement:
        return DYN
    body = _glob_regex(pattern, True)
    if op == "/#":
        return re.sub("^" + body, lambda _m: replacement, value, count=1, flags=re.S)
    if op == "/%":
        return re.sub(body + "$", lambda _m: replacement, value, count=1, flags=re.S)
    return re.sub(body, lambda _m: replacement, value, count=0 if op == "//" else 1, flags=re.S)


def _is_name(name: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name))


def _login_name() -> str:
    try:
        import getpass
        return getpass.getuser()
    except Exception:  # no name for this uid (a container): only the home's last part names the person
        return ""


def _tilde(value: str, scope: Scope) -> str:
    if not value.startswith("~"):
        return value
    head, sep, rest = value.partition("/")
    if head == "~":
        base = scope.home
    elif head == "~+" and scope.cwd:
        base = scope.cwd
    elif head == "~-" and scope.oldpwd:
        base = scope.oldpwd
    elif re.fullmatch(r"~[+-]?[0-9]+", head):
        # ~N, ~+N, ~-N: an entry of pushd's directory stack (`dirs +N`, `dirs -N`)
        entry = _dirstack_entry(head[1:], scope)
        if entry is None:
            return value if scope.dirstack == [] else DYN + (sep + rest if sep else "")
        base = entry
    elif re.fullmatch(r"~[a-z_][a-z0-9_.-]*", head):
        # ~dev, the person's own name: their home, wherever it is (the account's name or the home's last part)
        if head[1:] in (_login_name(), scope.home.rstrip("/").rsplit("/", 1)[-1]):
            base = scope.home
        else:
            base = "/root" if head == "~root" else "/home/" + head[1:]
    else:
        return value
    return base + (sep + rest if sep else "")


def _dirstack_entry(spec: str, scope: Scope) -> str | None:
    """`dirs` entry +N (from the top, 0 the current directory) or -N (from the bottom); None when unknown
    or beyond the stack (bash leaves such a word as it is)."""
    if scope.dirstack is None or scope.cwd is None:
        return None
    entries = [scope.cwd] + scope.dirstack
    number = int(spec.lstrip("+-"))
    index = len(entries) - 1 - number if spec.startswith("-") else number
    return entries[index] if 0 <= index < len(entries) else None


class _FieldBuilder:
    """Accumulates the pieces of one argument into fields, splitting unquoted expansions."""

    def __init__(self, raw: str, ifs: str = " \t\n"):
        self.raw = raw
        self.ifs = ifs  # what unquoted expansions split on ($IFS, when the script set it)
        self.fields: list[Word] = []
        self.cur: list[str] = []
        self.cur_quoted = False
        self.cur_glob = False
        self.cur_assumed = False
        self.has_cur = False
        self.origin = ""

    @property
    def at_start(self) -> bool:
        return not self.has_cur and not self.fields

    def mark_quoted(self) -> None:
        self.cur_quoted = True
        self.has_cur = True

    def add(self, text: str, quoted: bool, glob: bool = False) -> None:
        self.cur.append(text)
        self.cur_quoted |= quoted
        self.cur_glob |= glob
        self.has_cur = True

    def add_expansion(self, value: str, quoted: bool) -> None:
        if isinstance(value, Assumed):
            self.cur_assumed = True
            self.has_cur = True
        if isinstance(value, GlobMatch):
            self.add(value, quoted=False, glob=True)
            return
        if quoted or value == DYN:
            self.add(value, quoted=quoted)  # an unknown value may split too; one field is the cautious reading
            return
        pieces = _split_ifs(value, self.ifs)
        if not pieces:
            return
        if value[:1] in self.ifs:
            self._flush()
        for i, piece in enumerate(pieces):
            if i:
                self._flush()
            self.add(piece, quoted=False, glob=any(c in piece for c in "*?["))
        if value[-1:] in self.ifs:
            self._flush()

    def add_list(self, items: list[str] | None, quoted: bool, join: bool = False) -> None:
        """"${a[@]}": one field per element (the first joins what came before); None: unknown."""
        if items is None:
            self.add(DYN, quoted=quoted)
            return
        if join or not items:
            if items:
                self.add_expansion(" ".join(items), quoted)
            return
        for i, item in enumerate(items):
            if i:
                self._flush()
            if quoted:
                self.add(item, quoted=True)
            else:
                self.add_expansion(item, quoted=False)

    def _flush(self) -> None:
        if self.has_cur:
            self.fields.append(Word("".join(self.cur), self.raw, self.cur_quoted, self.cur_glob, self.cur_assumed,
                                    self.origin))
        self.cur, self.cur_quoted, self.cur_glob, self.cur_assumed, self.has_cur = [], False, False, False, False

    def finish(self) -> list[Word]:
        self._flush()
        return self.fields


def join_words(words: Iterable[Word]) -> str:
    return " ".join(w.display() for w in words)
