"""What a Python program does, read from its syntax tree: the commands it runs, the files it
deletes and writes, what it sends over the network and what it reads that is secret, each with
the line it is on.

    actions = python_actions(source, path="/p/build.py", cwd="/p", home="/home/u")

The walk is a small abstract interpreter: module code runs top to bottom, names keep the
values that are knowable (string literals, f-strings, `os.path.join`, `Path(__file__).parent /
"x"`, `Path.home()`, `os.environ["HOME"]`, lists of them), a call to a function defined in the
file walks its body with the arguments of that call, and every function not reached that way is
walked once with unknown arguments (it may still be called: a CLI dispatch, a decorator). A part
known only at run time is DYN, as in the shell analysis. Nothing here judges: the interpreter
analyzer (cmd_code) turns the actions into verdicts with the shell's own rules.
"""
from __future__ import annotations

import ast
import posixpath
import re
import shlex
from dataclasses import dataclass, field
from typing import Iterable

from .words import DYN

MAX_STEPS = 12_000  # statements and expressions walked per program; past it, a flat pass over every call
MAX_CALL_DEPTH = 4  # local function calls followed inside each other
MAX_LOOP_ITEMS = 16


@dataclass(frozen=True)
class Action:
    """Something the program does at `line`.

    kind: shell (value: a command line for a shell, DYN where unknown), exec (argv: a program and
    its arguments, None items unknown), delete / write / read (value: a path), send (value: the URL or
    "" ; sources: what the payload carries), fetch (value: a URL), print (sources), eval (code run
    from a string; value the code when literal), sql (value: the statement), orm-delete-all,
    reverse-shell, fork-bomb."""

    kind: str
    line: int
    value: str | None = None
    argv: tuple[str | None, ...] | None = None
    detail: str = ""  # the call as written: shutil.rmtree, subprocess.run …
    recursive: bool = False
    cwd: str | None = None
    sources: frozenset[str] = frozenset()  # file:PATH, env:NAME, environ


@dataclass(frozen=True)
class Value:
    text: str | None = None  # a known string (DYN marks unknown parts)
    items: tuple["Value", ...] | None = None  # a list, tuple or the values of a dict
    keys: tuple[str | None, ...] | None = None  # the keys of a dict (with items)
    kind: str = ""  # environ | file | socket | path-of:<qualified call> | module:<name>
    sources: frozenset[str] = frozenset()

    def with_sources(self, more: Iterable[str]) -> "Value":
        more = frozenset(more)
        return self if more <= self.sources else Value(self.text, self.items, self.keys, self.kind,
                                                       self.sources | more)


UNKNOWN = Value()
_SEND_METHODS = {"post", "put", "patch"}
_HTTP_MODULES = ("requests", "httpx", "aiohttp", "urllib3")
_SUBPROCESS = {"subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output",
               "subprocess.Popen", "asyncio.create_subprocess_exec", "os.spawnv", "os.spawnvp", "os.spawnl",
               "os.spawnlp", "pty.spawn", "os.execv", "os.execvp", "os.execve", "os.execvpe", "os.execl",
               "os.execlp", "os.execle", "os.execlpe", "sh.Command", "plumbum.local"}
_SHELL_STRING = {"os.system", "os.popen", "subprocess.getoutput", "subprocess.getstatusoutput", "commands.getoutput",
                 "asyncio.create_subprocess_shell", "fabric.api.local", "fabric.api.run", "fabric.api.sudo",
                 "invoke.run"}
_DELETES = {"shutil.rmtree": True, "os.remove": False, "os.unlink": False, "os.rmdir": False,
            "os.removedirs": True, "send2trash.send2trash": True}
_COPIES = {"shutil.copy", "shutil.copy2", "shutil.copyfile", "shutil.copytree", "shutil.copymode", "shutil.copystat",
           "os.link", "os.symlink"}
_MOVES = {"shutil.move", "os.rename", "os.replace", "os.renames"}
_ONE_PATH_WRITES = {"os.makedirs", "os.mkdir", "os.chmod", "os.chown", "os.lchown", "os.truncate", "os.utime",
                    "os.mkfifo", "os.lchmod", "shutil.chown"}
_PATH_METHODS_WRITE = {"write_text", "write_bytes", "touch", "mkdir", "chmod", "lchmod", "symlink_to",
                       "hardlink_to"}
_PATH_FACTORIES = {"pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath", "pathlib.PurePosixPath", "Path"}
_SECRET_ENV = re.compile(r"(?i)(TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIAL|AUTH)")


def python_actions(source: str, path: str, cwd: str | None, home: str, temp: str = "/tmp",
                   argv: tuple[str | None, ...] | None = None) -> list[Action] | None:
    """The actions of a Python program; None when it does not parse (not Python 3). `argv`, when the command
    line that runs it is known, is its sys.argv (None for a word known only at run time)."""
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    walker = _Walker(source, path, cwd, home, temp)
    walker.argv = argv
    try:
        walker.run(tree)
    except (RecursionError, _Budget):
        # too large or too deep to follow value by value: every call in the file, with what its literal
        # arguments say (what was found before stays)
        flat = _Walker(source, path, cwd, home, temp)
        flat.flat = True
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                flat.stmt(node)
            elif isinstance(node, ast.Call):
                flat.steps = 0
                try:
                    flat.call(node)
                except (RecursionError, _Budget):
                    continue
        seen = set(walker.actions)
        walker.actions += [a for a in flat.actions if a not in seen]
    return walker.actions


class _Budget(Exception):
    pass


@dataclass
class _Frame:
    names: dict[str, Value] = field(default_factory=dict)
    returned: Value | None = None


class _Walker:
    def __init__(self, source: str, path: str, cwd: str | None, home: str, temp: str):
        self.source = source
        self.path = path
        self.cwd = cwd
        self.home = home.rstrip("/") or "/"
        self.temp = temp
        self.actions: list[Action] = []
        self.aliases: dict[str, str] = {}  # local name -> qualified name (imports)
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.walked: set[str] = set()
        self.globals = _Frame()
        self.frames: list[_Frame] = [self.globals]
        self.steps = 0
        self.calling: list[str] = []
        self.loop_forever = 0
        self.call_lines: list[int] = []  # call sites of the local functions being walked (0: no arguments)
        self.walks: set = set()  # (function, arguments) already walked: the same call twice says nothing new
        self.flat = False  # the flat pass: calls judged one by one, local functions not followed
        self.lines: list[str] | None = None
        self.argv: tuple[str | None, ...] | None = None  # sys.argv, when the command line is known

    # -- driving ------------------------------------------------------------------------
    def run(self, tree: ast.Module) -> None:
        self._collect_defs(tree.body, "")
        self.block(tree.body)
        for name, node in list(self.functions.items()):
            if name not in self.walked:
                self.walked.add(name)
                self.call_local(name, node, [], {}, unknown_args=True)

    def _collect_defs(self, body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions.setdefault(prefix + node.name, node)
            elif isinstance(node, ast.ClassDef):
                self._collect_defs(node.body, prefix + node.name + ".")
            elif isinstance(node, (ast.If, ast.Try, ast.With)):
                for part in ("body", "orelse", "finalbody"):
                    self._collect_defs(getattr(node, part, []) or [], prefix)

    def tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _Budget()

    @property
    def frame(self) -> _Frame:
        return self.frames[-1]

    def lookup(self, name: str) -> Value | None:
        if name in self.frame.names:
            return self.frame.names[name]
        return self.globals.names.get(name)

    def assign(self, target: ast.expr, value: Value) -> None:
        if isinstance(target, ast.Name):
            self.frame.names[target.id] = value
        elif isinstance(target, ast.Attribute):
            key = _dotted(target)
            if key:
                self.frame.names[key] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            items = value.items if value.items is not None and len(value.items) == len(target.elts) else None
            for i, element in enumerate(target.elts):
                self.assign(element, items[i] if items else UNKNOWN.with_sources(value.sources))
        elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
            container = self.lookup(target.value.id)
            if container is not None and container.sources != (container.sources | value.sources):
                self.frame.names[target.value.id] = container.with_sources(value.sources)

    # -- statements ---------------------------------------------------------------------
    def block(self, body: list[ast.stmt]) -> None:
        for node in body:
            if self.frame.returned is not None and len(self.frames) > 1:
                return
            self.stmt(node)

    def stmt(self, node: ast.stmt) -> None:
        self.tick()
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                self.aliases[local] = alias.name if alias.asname else alias.name.split(".")[0]
                self.actions.append(Action("import", node.lineno, alias.name))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
            self.actions.append(Action("import", node.lineno, "." * node.level + module,
                                       detail=",".join(a.name for a in node.names)))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                self.expr(decorator)
            if isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if not isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        self.stmt(sub)
        elif isinstance(node, ast.Assign):
            value = self.expr(node.value)
            for target in node.targets:
                self.assign(target, value)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self.assign(node.target, self.expr(node.value))
        elif isinstance(node, ast.AugAssign):
            current = self.expr(node.target) if isinstance(node.target, ast.Name) else UNKNOWN
            self.assign(node.target, _binop(node.op, current, self.expr(node.value)))
        elif isinstance(node, ast.Expr):
            self.expr(node.value)
        elif isinstance(node, ast.Return):
            value = self.expr(node.value) if node.value is not None else Value("")
            if len(self.frames) > 1:
                self.frame.returned = value
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self.for_loop(node)
        elif isinstance(node, ast.While):
            self.expr(node.test)
            forever = isinstance(node.test, ast.Constant) and bool(node.test.value)
            self.loop_forever += forever
            self.block(node.body)
            self.loop_forever -= forever
            self.block(node.orelse)
        elif isinstance(node, ast.If):
            self.expr(node.test)
            self.block(node.body)
            self.block(node.orelse)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                value = self.expr(item.context_expr)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, value)
            self.block(node.body)
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            self.block(node.body)
            for handler in node.handlers:
                self.block(handler.body)
            self.block(node.orelse)
            self.block(node.finalbody)
        elif isinstance(node, ast.Match):
            self.expr(node.subject)
            for case in node.cases:
                self.block(case.body)
        elif isinstance(node, (ast.Raise, ast.Assert, ast.Delete)):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.expr(child)

    def for_loop(self, node: ast.For | ast.AsyncFor) -> None:
        iterable = self.expr(node.iter)
        items = list(iterable.items or ())[:MAX_LOOP_ITEMS] if iterable.items is not None else None
        if items is None and isinstance(node.iter, ast.Call) and _call_name(node.iter, self.aliases) in (
                "os.walk", "os.fwalk"):
            items = [Value(items=(UNKNOWN.with_sources(iterable.sources),) * 3)]
        for item in items or [UNKNOWN.with_sources(iterable.sources)]:
            self.assign(node.target, item)
            self.block(node.body)
        self.block(node.orelse)

    # -- expressions --------------------------------------------------------------------
    def expr(self, node: ast.expr | None) -> Value:
        if node is None:
            return UNKNOWN
        self.tick()
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bytes):
                return Value(node.value.decode("latin-1"))
            return Value(node.value) if isinstance(node.value, str) else \
                Value(str(node.value)) if isinstance(node.value, (int, float)) else UNKNOWN
        if isinstance(node, ast.JoinedStr):
            parts, sources = [], set()
            for part in node.values:
                value = self.expr(part.value if isinstance(part, ast.FormattedValue) else part)
                sources |= value.sources
                parts.append(value.text if value.text is not None else DYN)
            return Value("".join(parts), sources=frozenset(sources))
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items = []
            for element in node.elts:
                if isinstance(element, ast.Starred):
                    inner = self.expr(element.value)
                    items.extend(inner.items if inner.items is not None else [UNKNOWN.with_sources(inner.sources)])
                else:
                    items.append(self.expr(element))
            return Value(items=tuple(items), sources=_union(items))
        if isinstance(node, ast.Dict):
            keys, values = [], []
            for k, v in zip(node.keys, node.values):
                key = self.expr(k) if k is not None else UNKNOWN
                value = self.expr(v)
                keys.append(key.text)
                values.append(value.with_sources(key.sources))
            return Value(items=tuple(values), keys=tuple(keys), sources=_union(values))
        if isinstance(node, ast.Name):
            found = self.lookup(node.id)
            if found is not None:
                return found
            if node.id == "__file__":
                return Value(self.path)
            qualified = self.aliases.get(node.id)
            return Value(kind="module:" + qualified) if qualified else UNKNOWN
        if isinstance(node, ast.Attribute):
            return self.attribute(node)
        if isinstance(node, ast.BinOp):
            return _binop(node.op, self.expr(node.left), self.expr(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            operand = self.expr(node.operand)
            return Value("-" + operand.text) if operand.text and operand.text.isdigit() else UNKNOWN
        if isinstance(node, ast.Subscript):
            return self.subscript(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, (ast.Await, ast.Starred, ast.NamedExpr)):
            value = self.expr(node.value)
            if isinstance(node, ast.NamedExpr):
                self.assign(node.target, value)
            return value
        if isinstance(node, ast.IfExp):
            self.expr(node.test)
            a, b = self.expr(node.body), self.expr(node.orelse)
            return a if a == b else UNKNOWN.with_sources(a.sources | b.sources)
        if isinstance(node, ast.BoolOp):
            values = [self.expr(v) for v in node.values]
            known = [v for v in values if v.text]
            chosen = known[0] if known and isinstance(node.op, ast.Or) else UNKNOWN
            return chosen.with_sources(_union(values))
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for generator in node.generators:
                iterable = self.expr(generator.iter)
                self.assign(generator.target, UNKNOWN.with_sources(iterable.sources))
                for condition in generator.ifs:
                    self.expr(condition)
            element = self.expr(node.value if isinstance(node, ast.DictComp) else node.elt)
            return UNKNOWN.with_sources(element.sources)
        if isinstance(node, ast.Lambda):
            return UNKNOWN
        sources: set[str] = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                sources |= self.expr(child).sources
        return UNKNOWN.with_sources(sources)

    def attribute(self, node: ast.Attribute) -> Value:
        dotted = self.qualified(node)
        if dotted in ("os.environ", "os.environb"):
            return Value(kind="environ")
        if dotted == "sys.executable":
            return Value("python3")
        if dotted in ("os.sep", "os.path.sep"):
            return Value("/")
        if dotted in ("os.curdir",):
            return Value(".")
        local = _dotted(node)
        if local and self.lookup(local) is not None:
            return self.lookup(local)  # type: ignore[return-value]
        base = self.expr(node.value)
        if base.text is not None and DYN not in base.text[:1]:
            path = base.text
            if node.attr == "parent":
                return Value(posixpath.dirname(path.rstrip("/")) or "/", sources=base.sources)
            if node.attr == "name":
                return Value(posixpath.basename(path.rstrip("/")), sources=base.sources)
            if node.attr == "stem":
                return Value(posixpath.splitext(posixpath.basename(path))[0], sources=base.sources)
            if node.attr == "parents":
                parents, current = [], path
                for _ in range(8):
                    current = posixpath.dirname(current.rstrip("/")) or "/"
                    parents.append(Value(current))
                return Value(items=tuple(parents), sources=base.sources)
        if base.kind.startswith("module:"):
            return Value(kind=base.kind + "." + node.attr)
        return UNKNOWN.with_sources(base.sources)

    def subscript(self, node: ast.Subscript) -> Value:
        container = self.expr(node.value)
        if isinstance(node.slice, ast.Slice) and container.text is not None and DYN not in container.text:
            parts = (node.slice.lower, node.slice.upper, node.slice.step)
            bounds = [self.expr(p).text if p is not None else "" for p in parts]
            try:
                numbers = [int(b) if b != "" else None for b in bounds]  # an unknown bound raises: unknown
                return Value(container.text[numbers[0]:numbers[1]:numbers[2]], sources=container.sources)
            except (TypeError, ValueError):
                return UNKNOWN.with_sources(container.sources)
        key = self.expr(node.slice)
        if container.kind == "environ":
            return self.environment(key.text)
        if container.items is not None:
            if container.keys is not None and key.text is not None:
                for k, v in zip(container.keys, container.items):
                    if k == key.text:
                        return v
            elif isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
                index = node.slice.value
                if -len(container.items) <= index < len(container.items):
                    return container.items[index]
        if container.kind.endswith("sys.argv"):
            index = _int_constant(node.slice)
            if self.argv is not None and index is not None and -len(self.argv) <= index < len(self.argv):
                word = self.argv[index]
                return Value(word) if word is not None else UNKNOWN  # merge_settings.py a.json ~/.x/settings.json
            return UNKNOWN
        return UNKNOWN.with_sources(container.sources | key.sources)

    def environment(self, name: str | None, default: Value | None = None) -> Value:
        if name == "HOME":
            return Value(self.home)
        if name in ("TMPDIR", "TEMP", "TMP"):
            return Value(self.temp)
        if name in ("PWD",) and self.cwd:
            return Value(self.cwd)
        sources = frozenset({f"env:{name}"}) if name else frozenset({"environ"})
        if default is not None and default.text is not None and not (name and _SECRET_ENV.search(name)):
            return Value(default.text, sources=sources)
        return Value(DYN, sources=sources)

    # -- calls --------------------------------------------------------------------------
    def qualified(self, node: ast.expr) -> str:
        dotted = _dotted(node)
        if not dotted:
            return ""
        head, _, rest = dotted.partition(".")
        if head in self.aliases and self.lookup(head) is None:
            return self.aliases[head] + ("." + rest if rest else "")
        return dotted

    def call(self, node: ast.Call) -> Value:
        name = self.qualified(node.func)
        args = [self.expr(a) for a in node.args]
        kwargs = {k.arg: self.expr(k.value) for k in node.keywords if k.arg}
        for k in node.keywords:
            if k.arg is None:  # f(**options): the keys known from a dict we followed
                spread = self.expr(k.value)
                for key, value in zip(spread.keys or (), spread.items or ()):
                    if key is not None:
                        kwargs.setdefault(key, value)
        receiver = self.expr(node.func.value) if isinstance(node.func, ast.Attribute) else None
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        line = node.lineno
        sources = _union(args + list(kwargs.values()))
        local = node.func.id if isinstance(node.func, ast.Name) else ""
        if local and local in self.functions and self.lookup(local) is None:
            return self.call_local(local, self.functions[local], args, kwargs, line=line)
        if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name) and \
                node.func.value.id == "self":
            for qualified_name in self.functions:
                if qualified_name.endswith("." + method):
                    return self.call_local(qualified_name, self.functions[qualified_name], args, kwargs, line=line)
        result = self.effects(name, method, receiver, args, kwargs, self.shown_line(line), node)
        if result is not None:
            return result
        return UNKNOWN.with_sources(sources | (receiver.sources if receiver is not None else frozenset()))

    def call_local(self, name: str, node: ast.FunctionDef | ast.AsyncFunctionDef, args: list[Value],
                   kwargs: dict[str, Value], unknown_args: bool = False, line: int = 0) -> Value:
        if self.flat or len(self.calling) >= MAX_CALL_DEPTH or name in self.calling:
            return UNKNOWN
        try:
            key = (name, tuple(args), tuple(sorted(kwargs.items())), unknown_args, tuple(self.calling))
            hash(key)
        except TypeError:
            key = None
        if key is not None:
            if key in self.walks:
                return UNKNOWN
            self.walks.add(key)
        self.walked.add(name)
        frame = _Frame()
        params = node.args.posonlyargs + node.args.args
        if params and params[0].arg in ("self", "cls") and "." in name:
            params = params[1:]
        defaults = node.args.defaults
        first_default = len(params) - len(defaults)
        for i, param in enumerate(params):
            if unknown_args:
                value = UNKNOWN
            elif i < len(args):
                value = args[i]
            elif param.arg in kwargs:
                value = kwargs[param.arg]
            elif i >= first_default:
                value = self.expr(defaults[i - first_default])
            else:
                value = UNKNOWN
            frame.names[param.arg] = value
        for param, default in zip(node.args.kwonlyargs, node.args.kw_defaults):
            frame.names[param.arg] = kwargs.get(param.arg) or (self.expr(default) if default is not None and
                                                               not unknown_args else UNKNOWN)
        if node.args.vararg:
            frame.names[node.args.vararg.arg] = UNKNOWN if unknown_args else Value(items=tuple(args[len(params):]))
        if node.args.kwarg:
            named = {p.arg for p in params} | {p.arg for p in node.args.kwonlyargs}
            rest = {k: v for k, v in kwargs.items() if k not in named}
            frame.names[node.args.kwarg.arg] = UNKNOWN if unknown_args else \
                Value(items=tuple(rest.values()), keys=tuple(rest.keys()), sources=_union(rest.values()))
        self.frames.append(frame)
        self.calling.append(name)
        self.call_lines.append(line if (args or kwargs) and not unknown_args else 0)
        try:
            self.block(node.body)
        finally:
            self.frames.pop()
            self.calling.pop()
            self.call_lines.pop()
        return frame.returned or UNKNOWN

    def effects(self, name: str, method: str, receiver: Value | None, args: list[Value], kwargs: dict[str, Value],
                line: int, node: ast.Call) -> Value | None:
        """Record what the call does; return its value when knowable (None: unknown)."""
        first = args[0] if args else kwargs.get("path") or kwargs.get("args") or kwargs.get("cmd") or UNKNOWN
        detail = name or method
        # -- values -----------------------------------------------------------------------
        if name in ("os.path.join", "posixpath.join") or name in _PATH_FACTORIES:
            return _join(args) if args else Value(self.cwd or ".")
        if name in ("os.path.expanduser", "os.path.expandvars"):
            return self.expand(first)
        if name in ("os.path.abspath", "os.path.realpath", "os.path.normpath"):
            return self.absolute(first)
        if name in ("os.path.dirname",) and first.text is not None:
            return Value(posixpath.dirname(first.text), sources=first.sources)
        if name in ("os.path.basename",) and first.text is not None:
            return Value(posixpath.basename(first.text), sources=first.sources)
        if name in ("pathlib.Path.home", "Path.home") or (name == "os.path.expanduser" and first.text == "~"):
            return Value(self.home)
        if name in ("pathlib.Path.cwd", "Path.cwd", "os.getcwd"):
            return Value(self.cwd or DYN)
        if name in ("tempfile.mkdtemp", "tempfile.gettempdir", "tempfile.TemporaryDirectory"):
            return Value(self.temp + "/tmp.guardtui-code")
        if name in ("os.environ.get", "os.getenv", "os.environ.setdefault"):
            return self.environment(first.text, args[1] if len(args) > 1 else kwargs.get("default"))
        if name in ("dict", "os.environ.copy", "copy.copy", "copy.deepcopy") and args and args[0].kind == "environ" \
                or name == "os.environ.copy":
            return Value(kind="environ", sources=frozenset({"environ"}))
        if name in _DECODERS:
            return _decoded(name, first, args[1] if len(args) > 1 else kwargs.get("encoding"))
        if name == "chr" and first.text is not None and first.text.isdigit():
            return Value(chr(int(first.text))) if int(first.text) < 0x110000 else UNKNOWN
        if name == "shutil.which" and first.text:
            return Value(first.text)
        if name == "shlex.split" and first.text is not None:
            try:
                return Value(items=tuple(Value(w) for w in shlex.split(first.text)), sources=first.sources)
            except ValueError:
                return UNKNOWN
        if name == "shlex.join" and first.items is not None:
            return Value(" ".join(shlex.quote(i.text) if i.text is not None and DYN not in i.text else DYN
                                  for i in first.items), sources=first.sources)
        if name == "shlex.quote":
            return first
        if name in ("str", "os.fspath", "os.fsdecode", "pathlib.Path.resolve") and args:
            return first
        if name in ("json.dumps", "json.dump", "base64.b64encode", "urllib.parse.urlencode", "repr") and args:
            return UNKNOWN.with_sources(first.sources)
        if name in ("socket.socket", "socket.create_connection", "socket.fromfd", "ssl.wrap_socket"):
            if name == "socket.create_connection":
                self.actions.append(Action("send", line, _url_of(first), detail=detail))
            return Value(kind="socket")
        # -- methods on known values ------------------------------------------------------------
        if receiver is not None:
            result = self.method(method, receiver, args, kwargs, line, detail)
            if result is not None:
                return result
        # -- running programs ---------------------------------------------------------------
        if name in _SHELL_STRING or (method == "run" and receiver is not None and not name.startswith(
                ("subprocess", "asyncio")) and _looks_like_task_context(node)):
            command = first.text if first.text is not None else (
                " ".join(i.text if i.text is not None else DYN for i in first.items) if first.items else None)
            self.actions.append(Action("shell", line, command if command is not None else DYN, detail=detail,
                                       cwd=self.text_of(kwargs.get("cwd"))))
            return Value(kind="process")
        if name in _SUBPROCESS or name == "subprocess.Popen":
            shell = kwargs.get("shell")
            cwd = self.text_of(kwargs.get("cwd"))
            if name.startswith(("os.exec", "os.spawn")):
                program_index = 1 if name.startswith("os.spawn") else 0
                rest = args[program_index + 1:]
                argv = rest[0].items if len(rest) == 1 and rest[0].items is not None else tuple(rest)
                words = tuple(i.text if i.text is not None and DYN not in i.text else None for i in argv or ())
                self.actions.append(Action("exec", line, argv=words or (None,), detail=detail, cwd=cwd))
                return Value(kind="process")
            if shell is not None and shell.text not in (None, "False", "0") and first.text is not None:
                self.actions.append(Action("shell", line, first.text, detail=detail, cwd=cwd))
            elif first.items is not None:
                argv = first.items if name != "asyncio.create_subprocess_exec" else tuple(args)
                words = tuple(i.text if i.text is not None and DYN not in i.text else None for i in argv)
                self.actions.append(Action("exec", line, argv=words, detail=detail, cwd=cwd))
            elif name == "asyncio.create_subprocess_exec" or name == "pty.spawn" and first.text is not None:
                words = tuple(a.text if a.text is not None and DYN not in a.text else None for a in args)
                self.actions.append(Action("exec", line, argv=words, detail=detail, cwd=cwd))
            elif first.text is not None and DYN not in first.text and shell is None:
                self.actions.append(Action("exec", line, argv=(first.text,), detail=detail, cwd=cwd))
            elif shell is not None and shell.text not in (None, "False", "0"):
                self.actions.append(Action("shell", line, first.text or DYN, detail=detail, cwd=cwd))
            else:
                self.actions.append(Action("exec", line, argv=(None,), detail=detail, cwd=cwd))
            if any(kwargs.get(k, UNKNOWN).kind in _SOCKET_KINDS for k in ("stdin", "stdout", "stderr")):
                self.actions.append(Action("reverse-shell", line, detail=detail))  # a program wired to a socket
            return Value(kind="process")
        if name == "os.dup2" and first.kind in _SOCKET_KINDS:  # the socket becomes stdin/stdout
            self.actions.append(Action("reverse-shell", line, detail=detail))
        if name == "os.fork" and self.loop_forever:
            self.actions.append(Action("fork-bomb", line, detail=detail))
        # -- files ----------------------------------------------------------------------------
        if name in _DELETES:
            self.actions.append(Action("delete", line, self.text_of(first), detail=detail, recursive=_DELETES[name],
                                       sources=first.sources))
            return UNKNOWN
        if name in _MOVES:
            self.actions.append(Action("delete", line, self.text_of(first), detail=detail, recursive=True))
            target = args[1] if len(args) > 1 else kwargs.get("dst") or UNKNOWN
            self.actions.append(Action("write", line, self.text_of(target), detail=detail))
            return target
        if name in _COPIES:
            target = args[1] if len(args) > 1 else kwargs.get("dst") or UNKNOWN
            self.actions.append(Action("write", line, self.text_of(target), detail=detail))
            return target
        if name in _ONE_PATH_WRITES:
            self.actions.append(Action("write", line, self.text_of(first), detail=detail, sources=first.sources))
            return UNKNOWN
        if name in ("open", "io.open", "codecs.open", "builtins.open", "os.open"):
            mode = args[1] if len(args) > 1 else kwargs.get("mode") or kwargs.get("flags")
            mode_text = mode.text if mode is not None and mode.text is not None else ("r" if mode is None else "w")
            writes = name == "os.open" and mode is not None and mode.text != "0" or \
                name != "os.open" and any(c in mode_text for c in "wax+")
            path = self.text_of(first)
            if writes:
                self.actions.append(Action("write", line, path, detail=f"{detail}(…, {mode_text!r})",
                                           sources=first.sources))
                return Value(kind="file")
            if path:
                self.actions.append(Action("read", line, path, detail=detail))
            return Value(kind="file", sources=frozenset({f"file:{path}"}) if path else frozenset())
        if name in ("tarfile.open", "zipfile.ZipFile", "shutil.unpack_archive"):
            if name == "shutil.unpack_archive":
                target = args[1] if len(args) > 1 else kwargs.get("extract_dir") or Value(self.cwd or DYN)
                self.actions.append(Action("write", line, self.text_of(target), detail=detail))
            return Value(kind="archive")
        # -- the network ----------------------------------------------------------------------
        module = name.split(".", 1)[0]
        verb = name.rsplit(".", 1)[-1] if name else method
        if module in _HTTP_MODULES or (receiver is not None and receiver.kind in ("http-client", "socket")):
            return self.http(verb, args, kwargs, line, detail, receiver)
        if name in ("urllib.request.urlopen", "urllib.request.urlretrieve", "urllib.request.Request"):
            data = args[1] if len(args) > 1 else kwargs.get("data")
            if name == "urllib.request.Request":
                return Value(first.text, kind="request", sources=(data.sources if data else frozenset())
                             | ({"has-data"} if data is not None else set()))
            target = first.text
            carried = first.sources | (data.sources if data else frozenset())
            if data is not None or "has-data" in first.sources:
                self.actions.append(Action("send", line, target or "", detail=detail,
                                           sources=carried - {"has-data"}))
            elif target:
                self.actions.append(Action("fetch", line, target, detail=detail))
            if name == "urllib.request.urlretrieve" and len(args) > 1:
                self.actions.append(Action("write", line, self.text_of(args[1]), detail=detail))
            return Value(kind="response")
        if name in ("http.client.HTTPConnection", "http.client.HTTPSConnection"):
            return Value(kind="http-client")
        if name.startswith(("smtplib.", "ftplib.", "paramiko.")):
            self.actions.append(Action("send", line, "", detail=detail, sources=sources_of(args, kwargs)))
            return Value(kind="http-client")
        # -- printing, code, SQL ----------------------------------------------------------------
        if name in ("print", "pprint.pprint", "sys.stdout.write", "logging.info", "logging.warning") or \
                (receiver is not None and method in ("write",) and name.startswith("sys.std")):
            carried = sources_of(args, kwargs)
            if carried:
                self.actions.append(Action("print", line, detail=detail, sources=carried))
            return UNKNOWN
        if name in ("exec", "eval", "compile", "builtins.exec", "builtins.eval"):
            code = first.text if first.text is not None and DYN not in first.text else None
            self.actions.append(Action("eval", line, code, detail=detail))
            return UNKNOWN
        if name in ("runpy.run_path",):
            self.actions.append(Action("exec", line, argv=("python3", self.text_of(first)), detail=detail))
        if method in ("execute", "executescript", "executemany", "exec_driver_sql") or \
                name in ("sqlalchemy.text", "text"):
            if first.text is not None and DYN not in first.text:
                self.actions.append(Action("sql", line, first.text, detail=detail))
            return UNKNOWN if name not in ("sqlalchemy.text", "text") else first
        segment = self.segment(node) if method in _ORM_METHODS else ""
        if segment and _ORM_DELETE_ALL.search(segment):
            self.actions.append(Action("orm-delete-all", line, segment[:120], detail=detail))
        return None

    def method(self, method: str, receiver: Value, args: list[Value], kwargs: dict[str, Value], line: int,
               detail: str) -> Value | None:
        """Methods of values the walk knows: paths, strings, the environment, files and sockets."""
        first = args[0] if args else UNKNOWN
        text = receiver.text
        if receiver.kind == "environ":
            if method in ("get", "setdefault"):
                return self.environment(first.text, args[1] if len(args) > 1 else None)
            if method in ("copy", "items", "keys", "values"):
                return Value(kind="environ" if method == "copy" else "", sources=frozenset({"environ"}))
            return UNKNOWN
        if receiver.kind == "file":
            if method in ("read", "readlines", "readline"):
                return UNKNOWN.with_sources(receiver.sources)
            return UNKNOWN
        if receiver.kind == "socket":
            if method == "fileno":
                return Value(kind="socket-fd")
            if method == "makefile":
                return Value(kind="socket-file")
            if method in ("wrap_socket",):
                return Value(kind="socket")
            if method in ("connect", "connect_ex"):
                self.actions.append(Action("send", line, _url_of(first), detail=f"socket.{method}"))
            if method in ("send", "sendall", "sendto"):
                self.actions.append(Action("send", line, "", detail=f"socket.{method}", sources=first.sources))
            return UNKNOWN
        if receiver.kind == "archive" and method in ("extractall", "extract"):
            target = kwargs.get("path") or (args[1] if method == "extract" and len(args) > 1 else
                                            args[0] if method == "extractall" and args else None)
            self.actions.append(Action("write", line, self.text_of(target) if target else (self.cwd or DYN),
                                       detail=f"{method}"))
            return UNKNOWN
        if receiver.kind == "http-client" and method in ("request", "putrequest", "sendmail", "send_message",
                                                          "storbinary", "storlines", "put", "send"):
            carried = sources_of(args, kwargs)
            verb = first.text.upper() if method in ("request", "putrequest") and first.text else "POST"
            if verb not in ("GET", "HEAD", "OPTIONS") or carried:
                self.actions.append(Action("send", line, "", detail=f"{detail}", sources=carried))
            return UNKNOWN
        if receiver.kind in ("module:requests", "session") or receiver.kind.startswith("module:httpx"):
            return None
        if text is None:
            if method in ("read_text", "read_bytes", "open") and receiver.sources:
                return UNKNOWN.with_sources(receiver.sources)
            return None
        # a string or a path
        if method in ("format",):
            if DYN not in text and all(a.text is not None for a in args) and not kwargs:
                try:
                    return Value(text.format(*[a.text for a in args]), sources=_union(args))
                except (IndexError, KeyError, ValueError):
                    return UNKNOWN
            return Value(re.sub(r"\{[^}]*\}", DYN, text), sources=receiver.sources | _union(args + list(kwargs.values())))
        if method == "join" and first.items is not None:
            return Value(text.join(i.text if i.text is not None else DYN for i in first.items),
                         sources=receiver.sources | first.sources)
        if method in ("strip", "rstrip", "lstrip", "lower", "upper", "casefold", "expanduser", "resolve", "absolute",
                      "as_posix", "__str__", "decode", "encode"):
            if method == "expanduser":
                return self.expand(receiver)
            if method in ("resolve", "absolute"):
                return self.absolute(receiver)
            return receiver if method not in ("lower", "upper", "casefold") else \
                Value(getattr(text, method)(), sources=receiver.sources)
        if method == "replace" and len(args) == 2 and all(a.text is not None for a in args):
            return Value(text.replace(args[0].text, args[1].text), sources=receiver.sources)  # type: ignore[arg-type]
        if method == "split":
            return UNKNOWN.with_sources(receiver.sources)
        if method in ("joinpath", "with_name", "with_suffix", "with_stem"):
            if method == "joinpath":
                return _join([receiver] + args)
            if args and args[0].text is not None:
                base = posixpath.dirname(text)
                name = posixpath.basename(text)
                if method == "with_name":
                    name = args[0].text
                elif method == "with_suffix":
                    name = posixpath.splitext(name)[0] + args[0].text
                else:
                    name = args[0].text + posixpath.splitext(name)[1]
                return Value(posixpath.join(base, name))
            return UNKNOWN
        # path effects
        if method in ("unlink", "rmdir"):
            self.actions.append(Action("delete", line, self.text_of(receiver), detail=f"Path.{method}"))
            return UNKNOWN
        if method in ("rename", "replace"):
            self.actions.append(Action("delete", line, self.text_of(receiver), detail=f"Path.{method}",
                                       recursive=True))
            self.actions.append(Action("write", line, self.text_of(first), detail=f"Path.{method}"))
            return first
        if method in _PATH_METHODS_WRITE:
            self.actions.append(Action("write", line, self.text_of(receiver), detail=f"Path.{method}",
                                       sources=receiver.sources))
            return UNKNOWN
        if method == "open":
            mode = first.text if args else (kwargs["mode"].text if "mode" in kwargs else "r")
            if mode is None or any(c in mode for c in "wax+"):
                self.actions.append(Action("write", line, self.text_of(receiver), detail="Path.open"))
                return Value(kind="file")
            self.actions.append(Action("read", line, self.text_of(receiver), detail="Path.open"))
            return Value(kind="file", sources=frozenset({f"file:{self.text_of(receiver)}"}))
        if method in ("read_text", "read_bytes"):
            self.actions.append(Action("read", line, self.text_of(receiver), detail=f"Path.{method}"))
            return Value(kind="", sources=frozenset({f"file:{self.text_of(receiver)}"}))
        if method in ("exists", "is_file", "is_dir", "stat", "glob", "rglob", "iterdir", "walk", "startswith",
                      "endswith", "count", "find", "index", "relative_to", "match"):
            return UNKNOWN
        return None

    def http(self, verb: str, args: list[Value], kwargs: dict[str, Value], line: int, detail: str,
             receiver: Value | None) -> Value:
        verb = verb.lower()
        if verb in ("session", "client", "asyncclient", "clientsession", "poolmanager"):
            return Value(kind="http-client")
        if verb == "request" and args:
            method = (args[0].text or "POST").lower()
            url_value = args[1] if len(args) > 1 else kwargs.get("url") or UNKNOWN
        else:
            method = verb
            url_value = args[0] if args else kwargs.get("url") or UNKNOWN
        payload = [kwargs[k] for k in ("data", "json", "files", "content", "body", "params", "fields") if k in kwargs]
        carried = _union(payload) | url_value.sources
        if method in _SEND_METHODS or (method == "request" and "fields" in kwargs) or \
                (method not in ("get", "head", "options") and payload):
            self.actions.append(Action("send", line, url_value.text or "", detail=detail, sources=carried))
        elif method in ("get", "head", "options", "stream", "urlopen"):
            if carried:
                self.actions.append(Action("send", line, url_value.text or "", detail=detail, sources=carried))
            elif url_value.text:
                self.actions.append(Action("fetch", line, url_value.text, detail=detail))
        elif method == "delete":
            self.actions.append(Action("send", line, url_value.text or "", detail=detail, sources=carried))
        return Value(kind="response")

    # -- helpers --------------------------------------------------------------------------
    def segment(self, node: ast.expr) -> str:
        """The source text of a node (ast.get_source_segment splits the whole file on every call)."""
        if self.lines is None:
            self.lines = self.source.splitlines(keepends=True)
        if node.end_lineno is None or node.end_col_offset is None:
            return ""
        lines = self.lines[node.lineno - 1:node.end_lineno]
        if not lines:
            return ""
        if len(lines) == 1:
            return lines[0].encode()[node.col_offset:node.end_col_offset].decode("utf-8", "replace")
        first = lines[0].encode()[node.col_offset:].decode("utf-8", "replace")
        last = lines[-1].encode()[:node.end_col_offset].decode("utf-8", "replace")
        return first + "".join(lines[1:-1]) + last

    def shown_line(self, line: int) -> int:
        """The line to show for an action: inside a helper called with arguments (`run(cmd)`),
        the line that called it with them, which says what ran."""
        for call_line in reversed(self.call_lines):
            if call_line:
                return call_line
        return line

    def text_of(self, value: Value | None) -> str | None:
        """A path or command as text (DYN where unknown), None when nothing of it is known."""
        if value is None or value.text is None:
            return None
        return value.text

    def expand(self, value: Value) -> Value:
        text = value.text
        if text is None:
            return value
        if text == "~" or text.startswith("~/"):
            return Value(self.home + text[1:], sources=value.sources)
        return value

    def absolute(self, value: Value) -> Value:
        text = value.text
        if text is None or text.startswith(("/", DYN)) or not self.cwd:
            return value
        return Value(posixpath.normpath(posixpath.join(self.cwd, text)), sources=value.sources)


_DECODERS = {"base64.b64decode", "base64.standard_b64decode", "base64.urlsafe_b64decode", "base64.b32decode",
             "base64.b16decode", "base64.decodebytes", "base64.a85decode", "base64.b85decode", "binascii.unhexlify",
             "binascii.a2b_hex", "binascii.a2b_base64", "bytes.fromhex", "bytearray.fromhex", "codecs.decode",
             "zlib.decompress", "gzip.decompress", "bz2.decompress", "lzma.decompress", "marshal.loads",
             "pickle.loads"}


def _decoded(name: str, value: Value, encoding: Value | None) -> Value:
    """What a decoder gives for a literal it is handed; a value marked "decoded" when the input is not
    known (a path or command hidden until run time)."""
    import base64
    import binascii
    import codecs

    hidden = Value(DYN, sources=value.sources | {"decoded"})
    text = value.text
    if text is None or DYN in text:
        return hidden
    try:
        if name in ("base64.b64decode", "base64.standard_b64decode", "base64.decodebytes", "binascii.a2b_base64"):
            out = base64.b64decode(text.encode("latin-1"))
        elif name == "base64.urlsafe_b64decode":
            out = base64.urlsafe_b64decode(text.encode("latin-1"))
        elif name == "base64.b32decode":
            out = base64.b32decode(text.encode("latin-1"))
        elif name == "base64.b16decode":
            out = base64.b16decode(text.encode("latin-1"))
        elif name in ("binascii.unhexlify", "binascii.a2b_hex", "bytes.fromhex", "bytearray.fromhex"):
            out = bytes.fromhex(text)
        elif name == "codecs.decode":
            kind = (encoding.text if encoding is not None else "") or ""
            if kind.replace("_", "").replace("-", "").lower() in ("rot13", "rot_13"):
                return Value(codecs.decode(text, "rot13"), sources=value.sources)
            if kind.lower() in ("hex", "hex_codec"):
                out = bytes.fromhex(text)
            elif kind.lower() in ("base64", "base64_codec"):
                out = base64.b64decode(text.encode("latin-1"))
            else:
                return hidden
        else:
            return hidden
    except (binascii.Error, ValueError):
        return hidden
    return Value(out.decode("utf-8", "replace"), sources=value.sources)


_SOCKET_KINDS = frozenset({"socket", "socket-fd", "socket-file"})
_ORM_METHODS = frozenset({"delete", "delete_all", "destroy_all", "delete_many", "drop_all"})
_ORM_DELETE_ALL = re.compile(
    r"\.objects\.all\(\)\.delete\(\)|\.objects\.delete\(\)|\b[A-Z]\w*\.(?:delete_all|destroy_all)\(\s*\)|"
    r"\.query\(\s*\w+\s*\)\.delete\(\)|\.delete_many\(\s*\{\s*\}\s*\)|\.drop_all\(")


def _looks_like_task_context(node: ast.Call) -> bool:
    """`c.run("…")` in an invoke/fabric task: the receiver is the task's context."""
    func = node.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and \
        func.value.id in ("c", "ctx", "context", "conn", "connection", "cx")


def _dotted(node: ast.expr) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):  # Path(...).home(), requests.Session().post
        inner = _dotted(node.func)
        return inner + "()." + ".".join(reversed(parts)) if inner and parts else ""
    return ""


def _call_name(node: ast.Call, aliases: dict[str, str]) -> str:
    dotted = _dotted(node.func)
    head, _, rest = dotted.partition(".")
    return aliases.get(head, head) + ("." + rest if rest else "")


def _union(values: Iterable[Value]) -> frozenset[str]:
    out: frozenset[str] = frozenset()
    for v in values:
        out |= v.sources
    return out


def _int_constant(node: ast.expr) -> int | None:
    """The integer a subscript's index is when written as one (`1`, `-1`)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int_constant(node.operand)
        return None if inner is None else -inner
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def sources_of(args: list[Value], kwargs: dict[str, Value]) -> frozenset[str]:
    return _union(list(args) + list(kwargs.values()))


def _binop(op: ast.operator, left: Value, right: Value) -> Value:
    sources = left.sources | right.sources
    if isinstance(op, ast.Add):
        if left.text is not None and right.text is not None:
            return Value(left.text + right.text, sources=sources)
        if left.items is not None and right.items is not None:
            return Value(items=left.items + right.items, sources=sources)
        if left.text is not None or right.text is not None:
            return Value((left.text if left.text is not None else DYN) + (right.text if right.text is not None
                                                                          else DYN), sources=sources)
    if isinstance(op, ast.Div):  # Path / "x"
        return _join([left, right])
    if isinstance(op, ast.Mod) and left.text is not None:
        values = list(right.items) if right.items is not None else [right]
        out, count = left.text, 0

        def fill(m: re.Match) -> str:
            nonlocal count
            value = values[count] if count < len(values) else UNKNOWN
            count += 1
            return value.text if value.text is not None else DYN

        return Value(re.sub(r"%[-#0 +]*\d*(?:\.\d+)?[sdrif]", fill, out), sources=sources)
    return UNKNOWN.with_sources(sources)


def _join(parts: list[Value]) -> Value:
    out: str | None = None
    sources: frozenset[str] = frozenset()
    for part in parts:
        sources |= part.sources
        text = part.text if part.text is not None else DYN
        if out is None or text.startswith("/"):
            out = text
        else:
            out = out.rstrip("/") + "/" + text if out else text
    return Value(out if out is not None else DYN, sources=sources)


def _url_of(value: Value) -> str:
    if value.items and value.items[0].text:
        return value.items[0].text
    return value.text or ""


__all__ = ["Action", "python_actions"]
