"""Parse a bash script with tree-sitter-bash into the simple commands bash would run.

The walker follows the grammar, not the text: compound commands are split, `$(…)`,
backticks and `<(…)` are walked as scripts of their own, heredoc bodies are kept as data
for whoever reads them, and `cd` and plain assignments are followed so later words can be
resolved. What each command *does* is the analyzer's business (analyze.py).
"""
from __future__ import annotations

import fnmatch
import os
import posixpath
import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache

import tree_sitter as ts
import tree_sitter_bash as tsb

from ..budget import OverBudget, remaining
from ..gitindex import branch_after, repository
from . import respell
from .evaluate import Output, static_output
from .reeval import evaluated_again
from .refs import PROTECTED_BRANCHES, jj_bookmark_moves
from .words import DYN, GlobMatch, Scope, Word, WordResolver, expand_braces

MAX_DEPTH = 12  # nesting of $(…), bash -c, eval … before we give up (and ask)
_OPAQUE_NODES = frozenset({"heredoc_body", "comment", "raw_string", "ansi_c_string", "string_content"})


_PARSE_IN_STEPS_FROM = 4096  # bytes: a longer script is fed to the parser in pieces (see _parse)
_PIECE = 4096
_threads = threading.local()


@lru_cache(maxsize=1)
def _bash() -> ts.Language:
    return ts.Language(tsb.language())


def _parser() -> ts.Parser:
    """One parser per thread: the broker judges calls in several threads at once."""
    parser = getattr(_threads, "parser", None)
    if parser is None:
        parser = _threads.parser = ts.Parser(_bash())
    return parser


def _parse(source: bytes) -> ts.Tree:
    """Parse a script. The parser runs in C and holds the interpreter (about half a second per
    megabyte), out of the judging budget's reach (core/budget.py); so a long script is fed to it in
    small pieces with a progress callback, and once the budget is spent the parse is cancelled (or
    the next piece is the end of the input) and ends in OverBudget."""
    parser = _parser()
    if len(source) < _PARSE_IN_STEPS_FROM:
        return parser.parse(source)
    stopped: list[bool] = []

    def read(offset: int, _point) -> bytes:
        try:
            if remaining() > 0:
                return source[offset:offset + _PIECE]
        except OverBudget:  # interrupted here: an exception would not stop the parser, the end does
            pass
        stopped.append(True)
        return b""

    def progress(_offset: int, _has_error: bool) -> bool:  # a Python frame now and then: other threads get a turn
        try:
            if remaining() <= 0:
                stopped.append(True)
        except OverBudget:
            stopped.append(True)
        return bool(stopped)  # cancel (ending the input alone can leave the parser recovering for long)

    try:
        tree = parser.parse(read, progress_callback=progress)
    except BaseException:
        parser.reset()  # else the next parse would resume this one
        if remaining() <= 0 or stopped:
            raise OverBudget() from None
        raise
    if stopped:
        parser.reset()
        raise OverBudget()
    return tree


@dataclass
class Redirect:
    op: str  # >, >>, <, &>, &>>, >|, <>, >&, <&, <<, <<-, <<<
    fd: int | None
    target: Word | None = None  # the file, for file redirects
    body: str | None = None  # heredoc or here-string text (DYN marks unknown parts)
    producers: list | None = None  # `< <(cmd)`: the commands whose output is read

    @property
    def writes(self) -> bool:
        return self.op in (">", ">>", "&>", "&>>", ">|", "<>") or (self.op == ">&" and self.target is not None
                                                                   and not self.target.value.isdigit()
                                                                   and self.target.value != "-")

    @property
    def feeds_stdin(self) -> bool:
        return self.op in ("<<", "<<-", "<<<") and (self.fd in (None, 0))


@dataclass
class SimpleCommand:
    argv: list[Word]
    text: str
    span: tuple[int, int]
    scope: Scope
    via: str = ""  # how bash reaches it: "" at top level, else e.g. "$(…)", "bash -c"
    assignments: list[tuple[str, Word]] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)
    stdin_from: "SimpleCommand | None" = None  # previous pipeline stage, when it is simple
    piped: bool = False  # reads a pipe (even from a compound stage)
    stdin_group: "list[SimpleCommand] | None" = None  # the commands of a compound previous stage: ( a; b ) | c
    stdout_to: "SimpleCommand | None" = None  # the next pipeline stage, when it is simple
    pipes_out: bool = False  # its output goes to a next pipeline stage (simple or not)
    process_inputs: dict[int, list["SimpleCommand"]] = field(default_factory=dict)  # argv index -> <(…)
    assignment_inputs: dict[str, list["SimpleCommand"]] = field(default_factory=dict)  # VAR=<(…) prefixes
    depth: int = 0
    items_from: "SimpleCommand | None" = None  # xargs children: the command whose output became their arguments

    @property
    def name(self) -> Word | None:
        return self.argv[0] if self.argv else None

    @property
    def stdin_body(self) -> str | None:
        for r in reversed(self.redirects):
            if r.feeds_stdin:
                return r.body
        return None

    @property
    def stdin_redirected(self) -> bool:
        return any(r.op == "<" and (r.fd in (None, 0)) for r in self.redirects)


@dataclass
class Script:
    commands: list[SimpleCommand]
    parse_error: bool = False
    errors: list[str] = field(default_factory=list)  # why the parse was not trusted
    fork_bomb: str | None = None  # the text of a self-spawning function definition
    late_scripts: list[tuple[str, str]] = field(default_factory=list)  # (text, via): `…` in heredocs
    functions_defined: list[str] = field(default_factory=list)
    data_spans: list[tuple[str, str]] = field(default_factory=list)  # (kind, text): comments, heredocs read as data


class Walker:
    def __init__(self, source: bytes, base: int, via: str, depth: int, defer_functions: bool = False):
        self.source = source
        self.base = base  # offset of this script in the top-level command (for spans)
        self.via = via
        self.depth = depth
        self.script = Script([])
        self.resolver = WordResolver(source, self._static_output)
        self.function_bodies: dict[str, object] = {}  # name -> body node, to walk again per call
        self.calling: set[str] = set()  # functions being walked for a call (no endless recursion)
        # a project file run with its arguments: a function's body is walked where it is called, and one
        # never called (nor named anywhere bash would run) never runs
        self.defer_functions = defer_functions
        self.deferred: dict[str, tuple[object, object, Scope]] = {}  # name -> (definition, body, scope)
        self.called: set[str] = set()
        self.skipped: list[tuple[int, int]] = []  # byte ranges bash never runs (case arms not taken)

    # -- entry -----------------------------------------------------------------------
    def run(self, scope: Scope) -> Script:
        try:
            tree = _parse(self.source)
            if respell.wanted(self.source):
                respelled, variables = respell.respell(self.source, tree.root_node)
                for name, value in variables.items():
                    if value == "$!":
                        scope.origins[name] = value  # the coprocess's pid: a job this command started
                    else:
                        scope.variables[name] = value
                if respelled != self.source:
                    self.source = respelled
                    self.resolver.source = respelled
                    tree = _parse(respelled)
            root = tree.root_node
            if root.has_error:
                self.script.parse_error = True
                self.script.errors.append("bash could not parse this (tree-sitter found a syntax error)")
            self._check_coverage(root)
            self._statements(root.children, scope)
            self._uncalled_functions(scope)
            return self.script
        finally:  # the resolver refers back to this walker: let go, so no cycle waits for the garbage collector
            self.resolver.subst_eval = None
            self.function_bodies.clear()
            self.deferred.clear()

    def _uncalled_functions(self, final: Scope) -> None:
        """Deferred functions no walked path called: walked (with unknown arguments) when their name
        appears anywhere bash may still run it from (a trap, an eval, a dynamic dispatch), else data."""
        if not self.deferred:
            return
        progress = True
        while progress:
            progress = False
            blanked = bytearray(self.source)
            for start, end in self.skipped + [(n.start_byte, n.end_byte) for n, _, _ in self.deferred.values()]:
                blanked[start:end] = b" " * (end - start)
            text = blanked.decode("utf-8", "replace")
            for name, (node, body, _) in list(self.deferred.items()):
                if name in self.called or not re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", text):
                    continue
                self.called.add(name)
                progress = True
                inner = final.copy()  # run later (a trap at exit, an eval): with what the script set by then
                inner.arrays.pop("@", None)  # called from somewhere we did not follow: its arguments are unknown
                before = len(self.script.commands)
                self.calling.add(name)
                try:
                    self._statement(body, inner)
                finally:
                    self.calling.discard(name)
                for cmd in self.script.commands[before:]:
                    cmd.via = f"function {name}" if not self.via else f"{self.via} › function {name}"
        for name, (node, _, _) in self.deferred.items():
            if name not in self.called:
                self.script.data_spans.append(("uncalled", self.text(node)))

    def text(self, node) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "replace")

    # -- statements ------------------------------------------------------------------
    def _statements(self, nodes, scope: Scope) -> None:
        for node in nodes:
            if node.is_named:
                self._statement(node, scope)

    def _statement(self, node, scope: Scope, stdin_from: SimpleCommand | None = None,
                   piped: bool = False, extra_redirects: list | None = None) -> SimpleCommand | None:
        """Walk one statement; return it when it is a simple command (for pipelines).
        extra_redirects: redirect nodes that belong to this statement (see _flatten_pipeline)."""
        kind = node.type
        extra = extra_redirects or []
        if kind == "command":
            redirects, args = self._redirect_nodes(extra, scope)
            return self._command(node, scope, stdin_from, piped, redirects, args)
        if kind == "redirected_statement":
            return self._redirected(node, scope, stdin_from, piped, extra)
        if kind == "pipeline":
            self._pipeline(node, scope, stdin_from, piped, tail_redirects=extra)
        elif kind == "list":
            self._list(_flatten_list(node), scope)
        elif kind in ("subshell",):
            self._statements(node.children, scope.copy())
        elif kind in ("compound_statement", "do_group", "else_clause", "elif_clause", "program"):
            self._statements(node.children, scope)
        elif kind == "if_statement":
            self._if(node, scope)
        elif kind in ("while_statement", "until_statement"):
            self._loop(node, scope)
        elif kind == "for_statement":
            self._for(node, scope)
        elif kind == "c_style_for_statement":
            self._substitutions(node, scope)
            body = node.child_by_field_name("body")
            if body is not None:
                self._statement(body, scope)
        elif kind == "case_statement":
            value = node.child_by_field_name("value")
            if value is not None:
                self._substitutions(value, scope)
            items = [item for item in node.named_children if item.type == "case_item"]
            chosen = self._case_choice(value, items, scope)
            for item in items:
                if chosen is not None and item not in chosen:  # a known word picks its arm: the others never run
                    self.script.data_spans.append(("skipped", self.text(item)))
                    self.skipped.append((item.start_byte, item.end_byte))
                    continue
                body = [c for i, c in enumerate(item.children)
                        if c.is_named and item.field_name_for_child(i) != "value"]
                self._statements(body, scope.copy())
        elif kind == "function_definition":
            self._function(node, scope)
        elif kind == "negated_command":
            self._statements(node.children, scope)
        elif kind == "variable_assignment":
            self._assignment(node, scope)
        elif kind == "variable_assignments":
            for child in node.named_children:
                self._assignment(child, scope)
        elif kind in ("declaration_command", "unset_command"):
            return self._declaration(node, scope, stdin_from, piped)
        elif kind == "test_command":
            self._substitutions(node, scope)
        elif kind == "comment":
            self.script.data_spans.append(("comment", self.text(node)))
            self.skipped.append((node.start_byte, node.end_byte))
        elif kind in ("heredoc_body", "heredoc_end", "heredoc_start"):
            pass
        elif kind == "ERROR":
            self._statements(node.children, scope)
        elif kind in ("word", "concatenation", "string", "raw_string", "simple_expansion", "expansion",
                      "command_substitution", "arithmetic_expansion", "number"):
            # error recovery can leave bare words at statement level; treat them as a command
            self._substitutions(node, scope)
        else:
            self._substitutions(node, scope)
        return None

    def _case_choice(self, value, items, scope: Scope) -> list | None:
        """`case "$1" in …` when the word is known (a script run with its arguments): the arm bash
        runs, or none; None when the word or a pattern is only known at run time, or arms fall through."""
        if value is None:
            return None
        words = self.resolver.fields(value, scope)
        if len(words) != 1 or DYN in words[0].value or words[0].assumed:
            return None
        word = words[0].value
        for item in items:
            if ";&" in self.text(item) or ";;&" in self.text(item):
                return None
            patterns = [c for i, c in enumerate(item.children) if item.field_name_for_child(i) == "value"]
            for pattern in patterns:
                resolved = self.resolver.fields(pattern, scope)
                if len(resolved) != 1 or DYN in resolved[0].value:
                    return None
                glob = resolved[0].value if not resolved[0].quoted else _escape_glob(resolved[0].value)
                if fnmatch.fnmatchcase(word, glob):
                    return [item]
        return []

    # -- conditions known before they run: `false && rm -rf /`, `if false; then …; fi` ---------------
    def _constant(self, node, scope: Scope) -> bool | None:
        """The exit status of a bare `true`, `:` or `false` (not redefined as a function); else None."""
        if node is None or node.type != "command" or node.named_child_count != 1:
            return None
        name = self.text(node).strip()
        if name in scope.functions:
            return None
        return {"true": True, ":": True, "false": False}.get(name)

    def _never_runs(self, node) -> None:
        self.script.data_spans.append(("never runs", self.text(node)))

    def _list(self, items, scope: Scope) -> None:
        """Walk `a && b || c; d` as bash runs it: what a constant status skips never runs."""
        status: bool | None = None
        op = ";"
        for item in items:
            if not item.is_named:
                op = item.type
                continue
            if item.type == "comment":
                self._statement(item, scope)
                continue
            if (op == "&&" and status is False) or (op == "||" and status is True):
                self._never_runs(item)  # the status carries on unchanged
                continue
            self._statement(item, scope)
            status = self._constant(item, scope)

    def _if(self, node, scope: Scope) -> None:
        conditions = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition"]
        named = [c for c in conditions if c.is_named]
        constant = self._constant(named[0], scope) if len(named) == 1 else None
        self._statements(conditions, scope)
        in_then = False
        for child in node.children:
            if child.type == "then":
                in_then = True
            elif child.type in ("elif_clause", "else_clause", "fi"):
                in_then = False
                if child.is_named and constant is True:
                    self._never_runs(child)
                elif child.is_named:
                    self._statement(child, scope)
            elif in_then and child.is_named:
                if constant is False:
                    self._never_runs(child)
                else:
                    self._statement(child, scope)

    def _loop(self, node, scope: Scope) -> None:
        conditions = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "condition"]
        named = [c for c in conditions if c.is_named]
        constant = self._constant(named[0], scope) if len(named) == 1 else None
        # tree-sitter calls both loops while_statement; the keyword tells them apart
        until = node.type == "until_statement" or (node.children and node.children[0].type == "until")
        runs_forever = constant is (not until)
        self._statements(conditions, scope)
        body = node.child_by_field_name("body")
        if body is None:
            return
        if constant is until:
            self._never_runs(body)  # `while false`, `until true`: the body never runs
            return
        self._statement(body, scope)
        if runs_forever and self._spawns_without_pause(body):
            self.script.fork_bomb = self.text(node)

    def _spawns_without_pause(self, body) -> bool:
        """A loop body that starts background work and never waits: it piles up processes forever."""
        parts = [c for c in body.children]
        background = any(c.type == "&" for c in parts)
        pauses = re.search(r"(^|[\s;&|(])(sleep|wait|read|timeout)\b", self.text(body))
        return background and not pauses

    def _pipeline(self, node, scope: Scope, stdin_from=None, piped=False, tail_redirects=()) -> None:
        stages = self._flatten_pipeline(node)
        if tail_redirects:
            stages[-1] = (stages[-1][0], stages[-1][1] + list(tail_redirects))
        prev: SimpleCommand | None = stdin_from
        group: list[SimpleCommand] | None = None
        first = stdin_from is None
        for index, (child, redirect_nodes) in enumerate(stages):
            before = len(self.script.commands)
            # every stage runs in a subshell
            simple = self._statement(child, scope.copy(), prev, piped=(not first) or piped,
                                     extra_redirects=redirect_nodes)
            if index < len(stages) - 1:
                for c in self.script.commands[before:]:
                    if c.via == self.via:
                        c.pipes_out = True
            if simple is not None:
                if group is not None:
                    simple.stdin_group = group
                if prev is not None and prev.stdout_to is None:
                    prev.stdout_to = simple
            group = None if simple is not None else [c for c in self.script.commands[before:] if c.via == self.via]
            prev = simple
            first = False

    def _flatten_pipeline(self, node) -> list[tuple[object, list]]:
        """tree-sitter reads `a | b 2>&1 | c` as ((a | b) 2>&1) | c; bash gives 2>&1 to b."""
        stages: list[tuple[object, list]] = []
        for child in node.named_children:
            body = child.child_by_field_name("body") if child.type == "redirected_statement" else None
            if body is not None and body.type == "pipeline":
                inner = self._flatten_pipeline(body)
                redirects = [c for i, c in enumerate(child.children) if child.field_name_for_child(i) == "redirect"]
                inner[-1] = (inner[-1][0], inner[-1][1] + redirects)
                stages.extend(inner)
            else:
                stages.append((child, []))
        return stages

    def _redirect_nodes(self, nodes: list, scope: Scope) -> tuple[list[Redirect], list]:
        redirects: list[Redirect] = []
        args: list = []
        for child in nodes:
            redirects.extend(self._redirect(child, scope, [], args))
        return redirects, args

    def _redirected(self, node, scope: Scope, stdin_from, piped, extra_nodes=()) -> SimpleCommand | None:
        body = node.child_by_field_name("body")
        redirects: list[Redirect] = []
        continuations = []  # tree-sitter nests `cat <<EOF | sh` and `<<EOF && x` inside the heredoc node
        extra_args: list = []  # `git >/dev/null reset --hard`: words after a redirect target are arguments
        redirect_nodes = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) != "body"
                          and c.type in ("file_redirect", "heredoc_redirect", "herestring_redirect")]
        if body is not None and body.type == "pipeline":
            self._pipeline(body, scope, stdin_from, piped, tail_redirects=redirect_nodes + list(extra_nodes))
            return None
        if body is not None and body.type == "list":
            # `a && cat > f <<EOF`: tree-sitter hangs the redirects on the list; bash gives them to the last command
            items = [c for c in _flatten_list(body) if c.is_named]
            for item in items[:-1]:
                self._statement(item, scope)
            return self._statement(items[-1], scope, stdin_from, piped,
                                   extra_redirects=redirect_nodes + list(extra_nodes)) if items else None
        for child in redirect_nodes + list(extra_nodes):
            redirects.extend(self._redirect(child, scope, continuations, extra_args))
        if body is None:  # `> f` alone: bash opens (and empties) f
            result = None
            if any(r.writes for r in redirects):
                self.script.commands.append(SimpleCommand([], self.text(node), self._span(node), scope.copy(),
                                                          self.via, redirects=redirects, depth=self.depth))
        elif body.type == "command":
            result = self._command(body, scope, stdin_from, piped, redirects, extra_args)
        else:
            # a redirected compound statement: the redirects apply to all of it
            self._statement(body, scope, stdin_from, piped)
            holder = SimpleCommand([], self.text(node), self._span(node), scope.copy(), self.via,
                                   redirects=redirects, depth=self.depth)
            if any(r.writes or r.feeds_stdin for r in redirects):
                self.script.commands.append(holder)
            result = None
        for kind, cont in continuations:
            if kind == "pipeline":  # `cat <<EOF | sh`: the heredoc's command is the pipeline's first stage
                self._pipeline(cont, scope, result, piped=True)
            else:
                self._statement(cont, scope)
        return result

    def _redirect(self, node, scope: Scope, continuations: list, extra_args: list | None = None) -> list[Redirect]:
        fd_node = node.child_by_field_name("descriptor")
        fd = int(self.text(fd_node)) if fd_node is not None and self.text(fd_node).isdigit() else None
        if node.type == "heredoc_redirect":
            op = "<<"
            quoted_delim = False
            body_text = ""
            extra: list[Redirect] = []
            for i, child in enumerate(node.children):
                field_name = node.field_name_for_child(i)
                if child.type == "<<-":
                    op = "<<-"
                elif child.type == "heredoc_start":
                    start = self.text(child)
                    quoted_delim = any(q in start for q in "'\"\\")
                elif child.type == "heredoc_body":
                    body_text = self._heredoc_text(child, scope, quoted_delim)
                elif child.type == "pipeline":
                    continuations.append(("pipeline", child))
                elif field_name == "right":
                    continuations.append(("statement", child))
                elif child.type in ("file_redirect", "herestring_redirect"):
                    extra.extend(self._redirect(child, scope, continuations, extra_args))
                elif child.is_named and child.type not in ("heredoc_end", "heredoc_content"):
                    continuations.append(("statement", child))
            if op == "<<-":
                body_text = "\n".join(line.lstrip("\t") for line in body_text.split("\n"))
            return [Redirect(op, fd, None, body_text)] + extra
        if node.type == "herestring_redirect":
            target = next((c for c in node.named_children if c.type != "file_descriptor"), None)
            if target is None:
                return [Redirect("<<<", fd, None, "")]
            self._substitutions(target, scope)
            return [Redirect("<<<", fd, None, self.resolver.word(target, scope).value + "\n")]
        # file_redirect
        op = next((c.type for c in node.children if not c.is_named), ">")
        dests = [c for i, c in enumerate(node.children) if node.field_name_for_child(i) == "destination"]
        if not dests:
            dests = [c for c in node.named_children if c.type != "file_descriptor"][-1:]
        dest = dests[0] if dests else None
        if extra_args is not None:
            for extra in dests[1:]:
                following = self.source[extra.end_byte:extra.end_byte + 1]
                if self.text(extra).isdigit() and following in (b">", b"<"):
                    continue  # `>& /dev/tcp/x 0>&1`: tree-sitter splits the IO number off the next redirect
                extra_args.append(extra)
        target = None
        producers = None
        if dest is not None:
            self._substitutions(dest, scope)
            target = self.resolver.word(dest, scope)
            if op == "<" and dest.type == "process_substitution":
                producers = self._walk_nested(dest, scope, "<(…)", collect=True)
        return [Redirect(op, fd, target, producers=producers)]

    def _heredoc_text(self, node, scope: Scope, quoted: bool) -> str:
        if quoted:
            return self.text(node)
        # unquoted delimiter: $(…) and `…` in the body run now, and expand into the text
        self._substitutions(node, scope)
        for m in re.finditer(r"(?<!\\)`((?:\\.|[^`\\])+)`", self.text(node)):
            self.script.late_scripts.append((m.group(1), "heredoc `…`"))
        parts: list[str] = []
        pos = node.start_byte
        for child in node.named_children:
            if child.type == "heredoc_content":
                continue
            parts.append(self.source[pos : child.start_byte].decode("utf-8", "replace"))
            parts.append(self.resolver.word(child, scope).value)
            pos = child.end_byte
        parts.append(self.source[pos : node.end_byte].decode("utf-8", "replace"))
        return "".join(parts)

    def _for(self, node, scope: Scope) -> None:
        var = node.child_by_field_name("variable")
        values: list[Word] = []
        for i, child in enumerate(node.children):
            if node.field_name_for_child(i) == "value":
                self._substitutions(child, scope)
                values.extend(self.resolver.fields(child, scope))
        body = node.child_by_field_name("body")
        name = self.text(var) if var is not None else ""
        static = values and len(values) <= 8 and all(v.static for v in values)
        origin = " ".join(self.text(c) for i, c in enumerate(node.children) if node.field_name_for_child(i) == "value")
        for value in (values if static else [None]):
            branch = scope.copy()
            if name:
                branch.variables[name] = DYN if value is None else GlobMatch(value.value) if value.glob \
                    else value.value
                if "$(" in origin or "`" in origin:
                    branch.origins[name] = origin
            if body is not None:
                self._statement(body, branch)

    def _function(self, node, scope: Scope) -> None:
        name_node = node.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        body = node.child_by_field_name("body")
        if name:
            scope.functions.add(name)
            self.script.functions_defined.append(name)
        if body is None:
            return
        if name:
            self.function_bodies[name] = body
        if name and self.defer_functions:
            self.deferred[name] = (node, body, scope.copy())
            word = r"(?<![\w-])" + re.escape(name) + r"(?![\w-])"
            if re.search(word + r"\s*(?:\|(?!\|)|&(?!&))|\|\s*" + word, self.text(body)):
                self.script.fork_bomb = self.text(node)  # it pipes into or backgrounds itself: :(){ :|:& }
            return
        before = len(self.script.commands)
        inner_scope = scope.copy()
        inner_scope.arrays.pop("@", None)  # walked where it is defined: the arguments of its calls are unknown
        self._statement(body, inner_scope)
        inner = self.script.commands[before:]
        if name and any(c.argv and c.argv[0].value == name for c in inner):
            # a function that spawns itself (`:(){ :|:& };:`) is a fork bomb, even unused
            if any(c.via == self.via and (c.piped or "&" in c.text) for c in inner) or "&" in self.text(body):
                self.script.fork_bomb = self.text(node)
        for cmd in inner:
            cmd.via = (f"function {name}" if not self.via else f"{self.via} › function {name}")

    def _assignment(self, node, scope: Scope, export_only: bool = False) -> tuple[str, Word] | None:
        name_node = node.child_by_field_name("name")
        value_node = node.child_by_field_name("value")
        name = self.text(name_node) if name_node is not None else ""
        if value_node is not None:
            self._substitutions(value_node, scope)
            if value_node.type == "array":
                value = Word(DYN, self.text(value_node))
            else:
                value = self.resolver.word(value_node, scope)
        else:
            value = Word("", "")
        if value_node is not None and value_node.type == "array" and name:
            items: list[str] = []
            for child in value_node.named_children:
                items.extend(w.value for w in self.resolver.fields(child, scope))
            scope.arrays[name] = items
            scope.variables[name] = items[0] if items else ""
        elif name and "[" not in name:
            scope.variables[name] = value.value
            self._evaluated_again(name, value.value, node)
            scope.arrays.pop(name, None)
            if "$(" in value.raw or "`" in value.raw or value.origin:
                scope.origins[name] = value.raw + " " + value.origin
            elif value.raw in ("$!", "${!}", '"$!"'):
                scope.origins[name] = "$!"  # the job this command put in the background
            else:
                scope.origins.pop(name, None)
        return name, value

    def _evaluated_again(self, name: str, value: str, node) -> None:
        """A literal `$(…)` stored in a variable that bash evaluates again later (reeval.py): judged as run."""
        if "$(" not in value and "`" not in value:
            return
        elsewhere = (self.source[:node.start_byte] + self.source[node.end_byte:]).decode("utf-8", "replace")
        for script in evaluated_again(name, value, elsewhere):
            late = (script, f"${name} evaluated again")
            if late not in self.script.late_scripts:
                self.script.late_scripts.append(late)

    def _declaration(self, node, scope: Scope, stdin_from, piped) -> SimpleCommand:
        """export / declare / local / readonly / typeset / unset: a command with assignments."""
        keyword = node.children[0].type if node.children else "export"
        argv = [Word.literal(keyword)]
        assignments: list[tuple[str, Word]] = []
        for child in node.named_children:
            if child.type == "variable_assignment":
                name, value = self._assignment(child, scope)
                assignments.append((name, value))
                argv.append(Word(f"{name}={value.value}", self.text(child)))
            else:
                self._substitutions(child, scope)
                argv.extend(self.resolver.fields(child, scope))
                if keyword == "unset" and child.type in ("variable_name", "word"):
                    scope.variables.pop(self.text(child), None)
        cmd = SimpleCommand(argv, self.text(node), self._span(node), scope.copy(), self.via, assignments,
                            [], stdin_from, piped, depth=self.depth)
        self.script.commands.append(cmd)
        return cmd

    def _command(self, node, scope: Scope, stdin_from, piped, redirects: list[Redirect],
                 extra_args: list | None = None) -> SimpleCommand:
        argv: list[Word] = []
        assignments: list[tuple[str, Word]] = []
        process_nodes: dict[int, object] = {}
        assignment_procs: dict[str, object] = {}
        prefix_scope = scope.copy()  # VAR=x cmd: x is set for cmd, but $VAR in cmd's words is the old value
        for i, child in enumerate(node.children):
            field_name = node.field_name_for_child(i)
            if child.type == "variable_assignment" and not argv and not _VALID_NAME.match(
                    self.text(child.child_by_field_name("name") or child)):
                argv.append(Word.literal(self.text(child)))  # `9X=y rm …`: not an assignment, a command name
                continue
            if child.type == "variable_assignment" and not argv:
                name_node = child.child_by_field_name("name")
                value_node = child.child_by_field_name("value")
                if value_node is not None:
                    self._substitutions(value_node, scope)
                value = self.resolver.word(value_node, scope) if value_node is not None else Word("", "")
                if value_node is not None and value_node.type == "process_substitution" and name_node is not None:
                    assignment_procs[self.text(name_node)] = value_node
                if name_node is not None:
                    assignments.append((self.text(name_node), value))
                    prefix_scope.variables[self.text(name_node)] = value.value
                    self._evaluated_again(self.text(name_node), value.value, child)
                continue
            if child.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                trailing: list = []
                redirects = redirects + self._redirect(child, scope, [], trailing)
                for extra in trailing:
                    self._substitutions(extra, scope)
                    argv.extend(self.resolver.fields(extra, scope))
                continue
            if field_name not in ("name", "argument") and child.type not in ("command_name",):
                if child.is_named:
                    self._substitutions(child, scope)
                continue
            if field_name == "name" and argv:
                field_name = "argument"  # the command word came earlier (`9X=y rm`)
            target = child.named_children[0] if child.type == "command_name" and child.named_children else child
            if target.type == "process_substitution":
                process_nodes[len(argv)] = target
            self._substitutions(target, scope)
            argv.extend(self.resolver.fields(target, scope))
        for extra in extra_args or []:
            self._substitutions(extra, scope)
            argv.extend(self.resolver.fields(extra, scope))
        # the command (and anything it starts) sees its VAR=x prefixes; its own words did not
        cmd = SimpleCommand(argv, self.text(node), self._span(node), prefix_scope, self.via, assignments,
                            redirects, stdin_from, piped, depth=self.depth)
        for index, proc in process_nodes.items():
            cmd.process_inputs[index] = self._walk_nested(proc, scope, "<(…)", collect=True)
        for name, proc in assignment_procs.items():
            cmd.assignment_inputs[name] = self._walk_nested(proc, scope, "<(…)", collect=True)
        if not argv and assignments:
            for name, value in assignments:  # a bare `A=1` sets A for the rest of the script
                scope.variables[name] = value.value
        self._follow_cd(argv, scope, prefix_scope.variables.get("CDPATH"))
        self._follow_facts(argv, scope)
        if len(argv) >= 4 and argv[0].value == "printf" and argv[1].value == "-v":
            out = static_output(["printf"] + [w.value for w in argv[3:]], None, scope)
            scope.variables[argv[2].value] = out.text if out is not None else DYN  # printf -v cmd FMT …
            if out is not None:
                self._evaluated_again(argv[2].value, out.text, node)
        if argv and argv[0].value == "alias":
            for w in argv[1:]:
                name, eq, body = w.value.partition("=")
                if eq and name and DYN not in body:
                    scope.aliases[name] = body  # later lines may expand it (shopt -s expand_aliases)
        if argv and argv[0].value == "set" and len(argv) > 1 and argv[1].value == "--":
            scope.arrays["@"] = [w.value for w in argv[2:]]  # set -- a b: the positional parameters
        self.script.commands.append(cmd)
        self._call_function(argv, scope)
        self._mapfile_callback(cmd, scope)
        return cmd

    def _mapfile_callback(self, cmd: SimpleCommand, scope: Scope) -> None:
        """`mapfile -C CB [-c N] arr < file`: bash evaluates `CB INDEX LINE` as it reads (every N lines, 5000
        by default). The callback is walked as those calls, with the file's lines where it can be read and
        with unknown ones where not (`readarray` is the same builtin)."""
        argv = cmd.argv
        if not argv or argv[0].value not in ("mapfile", "readarray"):
            return
        callback, quantum, origin, i = None, 5000, 0, 1
        while i < len(argv) and argv[i].value.startswith("-") and argv[i].value != "--":
            flags = argv[i].value[1:]
            for k, flag in enumerate(flags):
                if flag in "CcdnOsu":
                    value = flags[k + 1:] or (argv[i + 1].value if i + 1 < len(argv) else "")
                    i += 0 if flags[k + 1:] else 1
                    if flag == "C":
                        callback = value
                    elif flag == "c":
                        quantum = int(value) if value.isdigit() and int(value) > 0 else 1
                    elif flag == "O":
                        origin = int(value) if value.isdigit() else 0
                    break
            i += 1
        if not callback:
            return
        source = next((r.target for r in reversed(cmd.redirects) if r.op == "<" and r.fd in (None, 0)
                       and r.target is not None), None)
        text = None
        if source is not None and source.static and scope.cwd is not None:
            text = _small_text(posixpath.normpath(posixpath.join(scope.cwd, source.value)))
        lines = text.split("\n")[:-1] if text and text.endswith("\n") else (text.split("\n") if text else None)
        calls = [(origin + n, line) for n, line in enumerate(lines or []) if (n + 1) % quantum == 0][:64] \
            if lines is not None else [(DYN, DYN)]
        for index, line in calls:
            self._callback_call(callback, str(index), line, cmd, scope)

    def _callback_call(self, callback: str, index: str, line: str, cmd: SimpleCommand, scope: Scope) -> None:
        head = callback.split()[0] if callback.split() else ""
        if head in self.function_bodies and head == callback.strip() and DYN not in line:
            self._call_function([Word(head, head), Word(index, index), Word(line, line)], scope)
            return
        if head in self.function_bodies:
            return  # its body was walked where it is defined, with unknown arguments
        quoted = "'" + line.replace("'", "'\\''") + "'" if DYN not in line else '"$MAPFILE_LINE"'
        late = (f"{callback} {index if DYN not in index else 0} {quoted}", f"mapfile -C {head}")
        if late not in self.script.late_scripts:
            self.script.late_scripts.append(late)

    def _call_function(self, argv: list[Word], scope: Scope) -> None:
        """`cleanup() { rm -rf "$1"; }; cleanup /`: walk the body again with the call's arguments."""
        name = argv[0].value if argv else ""
        body = self.function_bodies.get(name)
        if body is not None and self.defer_functions and name in self.deferred and name not in self.calling \
                and len(argv) <= 17:
            self.called.add(name)
        elif body is None or name in self.calling or len(argv) < 2 or len(argv) > 17 or \
                not all(w.static for w in argv[1:]):
            return
        inner_scope = scope.copy()
        inner_scope.arrays["@"] = [w.value for w in argv[1:]]
        before = len(self.script.commands)
        self.calling.add(name)
        try:
            self._statement(body, inner_scope)
        finally:
            self.calling.discard(name)
        label = f"function {name} {' '.join(w.display() for w in argv[1:])}"[:80]
        for cmd in self.script.commands[before:]:
            cmd.via = label if not self.via else f"{self.via} › {label}"

    def _follow_facts(self, argv: list[Word], scope: Scope) -> None:
        """Note what this command sets up for the ones after it (see Scope.facts)."""
        while argv and posixpath.basename(argv[0].value) in ("sudo", "doas", "command", "nohup", "env", "time"):
            argv = argv[1:]
            while argv and argv[0].value.startswith("-"):
                argv = argv[1:]
        words = [w.value for w in argv]
        if not words:
            return
        name = posixpath.basename(words[0])
        if name == "git" and len(words) > 1 and words[1] in ("checkout", "switch") and scope.cwd:
            branch = "" if any(w.dynamic for w in argv[2:]) else branch_after(words[1], words[2:])
            if branch is not None:  # HEAD moves for the commands after it (`git checkout main && git push -f`)
                repo = repository(scope.cwd)
                scope.facts["git-switch:" + (repo[0] if repo else scope.cwd)] = branch
        elif name == "git" and "config" in words[1:4]:
            for i, w in enumerate(words):
                if w.startswith("alias.") and i + 1 < len(words) and not argv[i + 1].dynamic:
                    scope.facts["git-alias:" + w[len("alias."):]] = words[i + 1]
                    break
        elif name in ("terraform", "tofu", "terragrunt") and "plan" in words and \
                any(w in ("-destroy", "--destroy") for w in words):
            for i, w in enumerate(words):
                if w.startswith(("-out=", "--out=")):
                    scope.facts["destroy-plan:" + w.partition("=")[2]] = "1"
                elif w in ("-out", "--out") and i + 1 < len(words):
                    scope.facts["destroy-plan:" + words[i + 1]] = "1"
        elif name == "jj":  # `jj bookmark set main -B -r v1 && jj git push -b main`: the push sees main moved back
            args = words[1:]
            while args and args[0].startswith("-"):
                args = args[2:] if args[0] in ("-R", "--repository", "--at-operation", "--at-op", "--color",
                                               "--config", "--config-toml", "--config-file") else args[1:]
            for bookmark, what in jj_bookmark_moves(args, PROTECTED_BRANCHES).items():
                scope.facts[f"jj-{what}:{bookmark}"] = "1"
        elif name == "hash" and "-p" in words[1:-1] and len(words) >= 4 and not argv[-1].dynamic:
            # hash -p PATH NAME: NAME runs PATH from now on
            scope.facts["copy-of:" + words[-1]] = words[words.index("-p") + 1]
        elif name in ("cp", "install") and len(words) >= 3 and not argv[-1].dynamic and not argv[-2].dynamic:
            scope.facts["copy-of:" + words[-1]] = words[-2]
        elif name in ("redis-cli", "valkey-cli", "keydb-cli") and "CONFIG" in (w.upper() for w in words):
            upper = [w.upper() for w in words]
            for i in range(len(words) - 3):  # the server writes its dump at dir/dbfilename from now on
                if upper[i:i + 2] == ["CONFIG", "SET"] and words[i + 2].lower() in ("dir", "dbfilename") and \
                        not argv[i + 3].dynamic:
                    scope.facts["redis-" + words[i + 2].lower()] = words[i + 3]
        elif name == "ztcp":
            scope.facts["tcp-fd"] = "REPLY"
        elif name in ("source", ".") and len(words) > 1 and words[1].endswith("/bin/activate") and scope.cwd and \
                not argv[1].dynamic:  # the environment's bin/ now comes first on PATH
            scope.facts["path-first"] = posixpath.dirname(posixpath.normpath(posixpath.join(scope.cwd, words[1])))
        elif name in ("source", ".") and len(words) > 1 and scope.cwd and not argv[1].dynamic and self.depth < 4:
            self._sourced_path(posixpath.normpath(posixpath.join(scope.cwd, words[1])), scope)
        elif name == "ln" and any(w.startswith("-") and "s" in w.lstrip("-") and not w.startswith("--")
                                  or w == "--symbolic" for w in words[1:]):
            operands = [a for a in argv[1:] if not a.value.startswith("-")]
            if len(operands) == 2 and not any(a.dynamic for a in operands) and scope.cwd:
                link = posixpath.normpath(posixpath.join(scope.cwd, operands[1].value))
                target = operands[0].value  # `ln -sfn "$HOME" x`: a later `rm -rf x/*` deletes in the target
                scope.facts["link-to:" + link] = posixpath.normpath(posixpath.join(posixpath.dirname(link), target))

    def _sourced_path(self, path: str, scope: Scope) -> None:
        """`source env.sh && ls`: the PATH the sourced file leaves is the one later names are looked up in
        (a project program found first there is judged: toolcode.local_program)."""
        text = _small_text(path)
        if not text or "PATH" not in text:
            return
        inner = scope.copy()
        parse_script(text, inner, depth=self.depth + 1)
        if "PATH" in inner.variables and inner.variables["PATH"] != scope.variables.get("PATH"):
            scope.variables["PATH"] = inner.variables["PATH"]

    def _follow_cd(self, argv: list[Word], scope: Scope, cdpath: str | None = None) -> None:
        if not argv or argv[0].value not in ("cd", "pushd", "popd", "chdir"):
            return
        args = [a for a in argv[1:] if not (a.value.startswith("-") and len(a.value) > 1)]
        previous = scope.cwd
        if argv[0].value in ("pushd", "popd") and self._follow_dirstack(argv[0].value, argv[1:], scope):
            return
        if argv[0].value == "popd":
            scope.cwd, scope.oldpwd = None, previous
            return
        if not args:
            scope.cwd, scope.oldpwd = (scope.home if argv[0].value == "cd" else None), previous
            return
        target = args[0]
        if target.value == "-":
            scope.cwd, scope.oldpwd = scope.oldpwd, previous  # back where it was (unknown if never moved here)
            return
        if target.dynamic or scope.cwd is None and not target.value.startswith("/"):
            scope.cwd, scope.oldpwd = None, previous
            scope.cd_dynamic = scope.cd_dynamic or target.dynamic
            return
        scope.cd_dynamic = False
        base = scope.cwd or "/"
        cdpath = cdpath or scope.variables.get("CDPATH")
        if cdpath and not target.value.startswith(("/", "./", "../")) and target.value not in (".", ".."):
            # CDPATH=~/.config cd guardtui: bash looks in CDPATH's directories before the current one
            for entry in str(cdpath).split(":"):
                entry = scope.home.rstrip("/") + entry[1:] if entry.startswith("~") else entry
                if entry and DYN not in entry and os.path.isdir(posixpath.join(entry, target.value)):
                    base = entry if entry.startswith("/") else posixpath.join(base, entry)
                    break
                if DYN in entry:
                    scope.cwd, scope.oldpwd = None, previous
                    return
        scope.cwd, scope.oldpwd = posixpath.normpath(posixpath.join(base, target.value)), previous
        if argv[0].value == "pushd" and scope.dirstack is not None:
            scope.dirstack.insert(0, previous) if previous else setattr(scope, "dirstack", None)

    @staticmethod
    def _follow_dirstack(name: str, args: list[Word], scope: Scope) -> bool:
        """pushd/popd forms that move within the stack (no operand, +N/-N): followed here when the stack
        is known, forgotten when not. False leaves a `pushd DIR` to the cd logic."""
        if name == "pushd" and args and (not args[0].value.startswith(("+", "-")) or args[0].value == "-"):
            return False
        if args and args[0].value == "--":
            args = args[1:]
        stack = scope.dirstack
        previous = scope.cwd
        if args and args[0].value == "-n":  # the stack changes, the directory does not: forget the stack
            scope.dirstack = None
            return True
        entries = None if stack is None or previous is None else [previous] + stack
        if entries is None or any(a.dynamic for a in args):
            scope.cwd, scope.oldpwd, scope.dirstack = None, previous, None
            return True
        spec = args[0].value if args else ""
        number = int(spec[1:]) if spec[1:].isdigit() else None
        index = None if number is None else (number if spec.startswith("+") else len(entries) - 1 - number)
        if name == "pushd":
            if not args and len(entries) >= 2:
                entries[0], entries[1] = entries[1], entries[0]
            elif index is not None and 0 <= index < len(entries):
                entries = entries[index:] + entries[:index]  # rotate: entry N comes to the top
        elif not args and len(entries) >= 2:
            entries = entries[1:]
        elif index is not None and 0 <= index < len(entries) and len(entries) >= 2:
            entries = entries[:index] + entries[index + 1:]
        scope.cwd, scope.dirstack = entries[0], entries[1:]
        if scope.cwd != previous:
            scope.oldpwd = previous
        return True

    # -- substitutions ---------------------------------------------------------------
    def _substitutions(self, node, scope: Scope) -> None:
        """Walk every $(…), `…`, <(…) and >(…) under node as scripts that run now."""
        stack = [node]
        while stack:
            cur = stack.pop()
            if cur.type == "command_substitution":
                self._walk_nested(cur, scope, "$(…)")
            elif cur.type == "process_substitution":
                self._walk_nested(cur, scope, "<(…)" if self.text(cur).startswith("<") else ">(…)")
            else:
                stack.extend(reversed(cur.children))

    def _walk_nested(self, node, scope: Scope, label: str, collect: bool = False) -> list[SimpleCommand]:
        key = (node.start_byte, node.end_byte)
        seen = getattr(self, "_walked", None)
        if seen is None:
            seen = self._walked = {}
        if key in seen:
            return seen[key]
        if self.depth >= MAX_DEPTH:
            self.script.errors.append("nesting too deep to follow")
            seen[key] = []
            return []
        inner_scope = scope.copy()
        before = len(self.script.commands)
        saved_via, saved_depth = self.via, self.depth
        self.via = label if not saved_via else f"{saved_via} › {label}"
        self.depth += 1
        self._statements(node.children, inner_scope)
        self.via, self.depth = saved_via, saved_depth
        commands = self.script.commands[before:]
        seen[key] = commands
        return commands

    def _static_output(self, node, scope: Scope) -> str | None:
        """What `$(…)` prints when that is knowable (see evaluate.py), else None."""
        statements = [c for c in node.named_children if c.type != "comment"]
        if len(statements) == 1 and statements[0].type == "list":
            statements = [c for c in statements[0].named_children if c.type != "comment"]
        if len(statements) == 2:  # $(cd "$(dirname "$0")/.." && pwd): the directory cd went to
            return self._cd_pwd(statements, scope)
        if len(statements) != 1:
            return None
        stages = statements[0].named_children if statements[0].type == "pipeline" else [statements[0]]
        output: Output | None = None
        for stage in stages:
            if stage.type != "command":
                return None
            words: list[Word] = []
            for i, child in enumerate(stage.children):
                if stage.field_name_for_child(i) in ("name", "argument"):
                    target = child.named_children[0] if child.type == "command_name" and child.named_children \
                        else child
                    if target.type == "process_substitution":
                        return None
                    words.extend(self.resolver.fields(target, scope))
                elif child.is_named:
                    return None
            output = static_output([w.value for w in words], output, scope)
            if output is None:
                return None
        return output.text.rstrip("\n") if output is not None else None

    def _cd_pwd(self, statements, scope: Scope) -> str | None:
        argv = []
        for statement in statements:
            if statement.type != "command":
                return None
            words: list[Word] = []
            for i, child in enumerate(statement.children):
                if statement.field_name_for_child(i) in ("name", "argument"):
                    target = child.named_children[0] if child.type == "command_name" and child.named_children \
                        else child
                    words.extend(self.resolver.fields(target, scope))
                elif child.is_named:
                    return None
            argv.append([w.value for w in words])
        (cd, *target), pwd = argv
        if cd != "cd" or len(target) != 1 or pwd[:1] != ["pwd"] or DYN in target[0]:
            return None
        directory = target[0]
        if directory.startswith("~"):
            directory = scope.home + directory[1:]
        if not directory.startswith("/"):
            if not scope.cwd:
                return None
            directory = posixpath.join(scope.cwd, directory)
        return posixpath.normpath(directory)

    # -- checks ----------------------------------------------------------------------
    def _check_coverage(self, root) -> None:
        """tree-sitter sometimes drops text silently; bash would not. Note it."""
        ranges: list[tuple[int, int]] = []
        stack = [root]
        while stack:
            node = stack.pop()
            if node.child_count == 0 or node.type in _OPAQUE_NODES:
                ranges.append((node.start_byte, node.end_byte))
            else:
                stack.extend(node.children)
        ranges.sort()
        missing: list[bytes] = []
        pos = 0
        for start, end in ranges:
            if start > pos:
                missing.append(self.source[pos:start])
            pos = max(pos, end)
        missing.append(self.source[pos:])
        gap = b"".join(missing).replace(b"\\\n", b"").translate(None, b" \t\r\n")
        # a lone `-` before `<<` is a known tree-sitter-bash drop (`python3 - <<EOF`); it means stdin
        if gap.strip(b"-"):
            self.script.parse_error = True
            self.script.errors.append("part of the command could not be parsed")

    def _span(self, node) -> tuple[int, int]:
        return (self.base + node.start_byte, self.base + node.end_byte)


def _flatten_list(node) -> list:
    """`a && b && c` is nested left-deep by tree-sitter; walk it as a flat sequence (no deep recursion)."""
    out = []
    stack = [node]
    while stack:
        cur = stack.pop()
        if cur.type == "list":
            stack.extend(reversed(cur.children))
        else:
            out.append(cur)
    return out


_VALID_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[.*\])?$")
_BRACE_COMMAND = re.compile(r"(?m)(^|[;&|\n(]\s*)\{([^\s{}]*,[^\s{}]*)\}(?=\s|$|;)")


def join_continuations(text: str) -> str:
    """Remove backslash-newline outside single quotes, as bash does before splitting words."""
    if "\\\n" not in text:
        return text
    out, i, quote = [], 0, ""
    while i < len(text):
        ch = text[i]
        if ch == "'" and quote != '"':
            quote = "" if quote == "'" else "'"
        elif ch == '"' and quote != "'":
            quote = "" if quote == '"' else '"'
        elif ch == "\\" and quote != "'" and i + 1 < len(text):
            if text[i + 1] == "\n":
                i += 2
                continue
            out.append(text[i:i + 2])
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_READ_WRITE = re.compile(r"(?<=[\s\d])<>(?=\s*[\w/$~\"'])")  # the `<>` redirect operator


def parse_script(text: str, scope: Scope, via: str = "", depth: int = 0, base: int = 0,
                 defer_functions: bool = False) -> Script:
    """`defer_functions`: a project file run with its arguments, whose functions run where called."""
    text = join_continuations(text)
    walker = Walker(text.encode("utf-8", "surrogatepass"), base, via, depth, defer_functions)
    script = walker.run(scope)
    if script.parse_error and ("\\$" in text or "\\`" in text):
        # tree-sitter chokes on \$( in heredocs; escaped, they are plain text to bash: parse them as such
        retry = Walker(text.replace("\\$", "\x01").replace("\\`", "\x02").encode("utf-8", "surrogatepass"),
                       base, via, depth, defer_functions).run(scope)
        if not retry.parse_error:
            return retry
    if script.parse_error and _READ_WRITE.search(text):
        # `exec 3<>/dev/tcp/h/p`: tree-sitter-bash has no `<>`; read as `<` (same length: spans hold)
        retry = Walker(_READ_WRITE.sub("< ", text).encode("utf-8", "surrogatepass"), base, via, depth,
                       defer_functions).run(scope)
        if not retry.parse_error:
            return retry
    if script.parse_error and _BRACE_COMMAND.search(text):
        # `{rm,-rf,~}`: with no space after `{` bash reads a brace expansion, not a group; tree-sitter does not
        expanded = _BRACE_COMMAND.sub(lambda m: m.group(1) + " ".join(expand_braces("{" + m.group(2) + "}")), text)
        retry = Walker(expanded.encode("utf-8", "surrogatepass"), base, via, depth, defer_functions).run(scope)
        if not retry.parse_error:
            return retry
    return script


def normalise_path(path: str, cwd: str | None) -> str | None:
    """An absolute, normalised path, or None when it depends on an unknown cwd."""
    if path.startswith("/"):
        return posixpath.normpath(path) if not path.startswith("//") else posixpath.normpath(path[1:])
    if cwd is None:
        return None
    return posixpath.normpath(posixpath.join(cwd, path))


__all__ = ["Redirect", "SimpleCommand", "Script", "parse_script", "normalise_path"]


def _escape_glob(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


MAX_READ_BYTES = 256 * 1024


def _small_text(path: str) -> str | None:
    """The text of a small regular file a command reads (mapfile's input), else None."""
    try:
        if not os.path.isfile(path) or os.path.getsize(path) > MAX_READ_BYTES:
            return None
        with open(path, "rb") as fh:
            data = fh.read(MAX_READ_BYTES)
    except OSError:
        return None
    return None if b"\0" in data else data.decode("utf-8", "replace")
