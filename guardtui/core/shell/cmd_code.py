"""Interpreter one-liners (python -c, node -e, perl -e, heredocs) and database clients.

We do not run or fully parse the code. We look for the calls that matter: shelling out
(the command string is judged as shell), deleting (judged like rm, with the same path
policy) and writing files. Code with none of them reads or computes, and is allowed.
"""
from __future__ import annotations

import json
import os
import posixpath
import re
import shlex
from dataclasses import replace
from typing import TYPE_CHECKING

from ..effects import sql_effects
from ..model import BlastRadius, Verdict
from .findings import REPLACES, Finding, allow, ask, attribute_effects, deny, with_rule, worst
from .codescan import bare_path_pieces, code_scan, reverse_shell
from .datastore_code import datastore_wipe
from .datacode import code_in_data, loaders_in
from .libconfig import code_for_script
from .dbhost import client_database
from .deletes import find_delete
from .evaluate import MKTEMP_PREFIX
from .exposure import module_program
from .generated import run_process_input
from .invocation import UNKNOWN_WORD, Invocation, Origin
from .projectfiles import python_module_file, read_text, shown
from .statements import top_level_commas
from .nushell import nushell_as_shell
from .pwsh import powershell_as_shell
from .toolcode import PYTHON_PROGRAM
from .pycode import Action, python_actions
from .listeners import WHY as LISTEN_WHY, broker_ports, code_listens_on_broker_port
from .secrets import is_secret, is_secret_area, reads_secret, secret_in_text
from ..secrets import secret_catalog
from ..web import host_of, metadata_in_text, metadata_service
from .selfcall import SCRIPT, is_launcher, judge_guardtui
from .words import DYN, Scope, Word

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Run

_STR = r"""(?:[rubfRUBF]{0,2})(?P<q>'''|\"\"\"|'|"|`)(?P<s>(?:\\.|(?!(?P=q)).)*?)(?P=q)"""
_ARG = r"\s*\(?\s*"
# shelling out: the first argument is a command line
_SHELL_CALLS = {
    "python": [r"\bos\.(?:system|popen)", r"\bsubprocess\.(?:run|call|check_call|check_output|Popen|getoutput|"
               r"getstatusoutput)", r"\bcommands\.getoutput", r"\bpty\.spawn", r"\b__import__\(\s*['\"]os['\"]\s*\)\.system"],
    # a method of anything else (`regex.exec(s)`) is not child_process's exec
    "js": [r"(?:\b(?:child_process|cp|childProcess)\.|(?<=\)\.)|(?<![.\w$]))"
           r"(?:execSync|exec|spawnSync|spawn|execFileSync|execFile)\b",
           r"\bBun\.spawn(?:Sync)?", r"\bDeno\.run", r"\$`"],
    "ruby": [r"\bsystem", r"\bexec", r"%x", r"\bIO\.popen", r"\bOpen3\.\w+", r"\bspawn", r"\bKernel\.system"],
    "perl": [r"\bsystem", r"\bexec", r"\bqx", r"\bopen\s*\(\s*\w+\s*,\s*['\"]\|-?['\"]\s*,"],
    "php": [r"\b(?:system|exec|shell_exec|passthru|popen|proc_open)"],
    "lua": [r"\bos\.execute", r"\bio\.popen"],
    "octave": [r"\bsystem", r"\bunix", r"\bshell_cmd"],
    "r": [r"\bsystem2?"],
    "applescript": [r"\bdo shell script"],
    "elixir": [r"\bSystem\.shell", r":os\.cmd"],
    "erlang": [r"\bos:cmd"],
    "clojure": [r"\bshell/sh", r"\bclojure\.java\.shell/sh", r"\bbabashka\.process/(?:shell|process)", r"\bp/shell"],
    "haskell": [r"\bcallCommand", r"\bsystem", r"\bspawnCommand", r"\breadCreateProcess\s*\(\s*shell"],
    "racket": [r"\bsystem\*?", r"\bprocess\*?"],
}
# Rust: Command::new("sh").arg("-c").arg("…") or .args(["-c", "…"]): the program and its literal arguments
_RUST_COMMAND = re.compile(r"""Command::new\(\s*"(?P<program>[^"]+)"\s*\)(?P<chain>(?:\s*\.\s*(?:arg\(\s*"[^"]*"\s*\)|"""
                           r"""args\(\s*&?\[[^\]]*\]\s*\)|current_dir\([^)]*\)|env\([^)]*\)))*)""")
# Elixir's System.cmd("prog", [args]), R's system2("prog", c(args)): a program and a literal list of its words
_PROGRAM_AND_ARGS = re.compile(r"""\b(?:System\.cmd|system2|processx::run)\(\s*"(?P<program>[^"]+)"\s*,\s*"""
                               r"""(?:args\s*=\s*)?(?:\[|c\()(?P<args>[^\])]*)[\])]""")
# Go's exec.Command("sh", "-c", "…"), Java's ProcessBuilder("rm", "-rf", …), Scala's Seq("rm", "-f", …).! and
# Process(Seq(…)): a program and its literal words
_Q = r'"(?:[^"\\]|\\.)*"'  # a double-quoted literal
_ARGV_CALLS = re.compile(r"(?:\bexec\.Command(?:Context)?\(\s*(?:\w+\s*,\s*)?|\bnew\s+ProcessBuilder\(\s*(?:List\.of\(|"
                         r"Arrays\.asList\()?|\bProcess\(\s*(?:Seq|List)\(|\b(?:Seq|List)\()(?P<args>" + _Q +
                         r"(?:" + _Q + r"|[^()\"]|\((?:" + _Q + r"|[^()\"])*\))*)\)(?P<bang>\s*\)?\s*\.?\s*!{1,2})?")
# Scala's "cmd".! / Process("cmd").!! and Runtime.exec("cmd"): one string, split on spaces
_STRING_PROCESS = re.compile(r"(?:\bProcess\(\s*)?(?P<c>" + _Q + r")\s*\)?\s*\.?\s*!{1,2}|"
                             r"\bgetRuntime\(\)\s*\.\s*exec\(\s*(?P<r>" + _Q + r")")
# Clojure's and babashka's (shell "cmd"), (shell {:dir "x"} "prog" "arg"), (p/process …), (sh "prog" "arg"): literal
# words after the function (babashka tasks call shell unqualified); one word is a command line
_LISP_PROCESS = re.compile(r"\(\s*(?:(?:clojure\.java\.)?shell/sh|(?:babashka\.process|p)/(?:shell|process|sh)|shell|"
                           r"process|sh)\s+(?:\{[^{}]*\}\s+)?(?P<args>" + _Q + r"(?:\s+" + _Q + r")*)")
_ARGV_LANGUAGES = frozenset({"go", "java", "scala", "kotlin", "groovy"})
# a command that attaches to another terminal session (expect's spawn of it, then send, types into it)
_ATTACHES = re.compile(r"\b(?:tmux\s+(?:-\S+\s+)*(?:a|at|att|attach|attach-session)\b|screen\s+-[a-zA-Z]*[rx]|"
                       r"dtach\s+-a|abduco\s+-a|zellij\s+(?:a|attach)\b|reptyr)")
# Groovy (Gradle scripts) shells out through a method of the command: "ls -l".execute(), ['sh', '-c', '…'].execute()
_GROOVY_EXECUTE = re.compile(r"""(?P<recv>\[[^\]\n]*\]|'[^'\n]*'|"[^"\n]*")\s*\.execute\s*\(""")
_RECURSIVE_DELETES = [r"\bshutil\.rmtree", r"\b(?:fs\.)?(?:rmSync|rmdirSync|rm|rmdir|promises\.rm)(?=\s*\([^;]*recursive\s*:\s*true)",
                      r"\bFileUtils\.(?:rm_rf|rm_r|remove_dir|remove_entry|remove_entry_secure|rmtree)",
                      r"\b(?:File::Path::)?(?:rmtree|remove_tree)", r"\bfs\.remove(?:Sync)?", r"\brimraf(?:\.sync)?",
                      r"\bdel\.sync", r"\bDeno\.remove(?:Sync)?(?=\s*\([^;]*recursive\s*:\s*true)",
                      r"\bunlink(?=\s*\([^;]*recursive\s*=\s*(?:TRUE|T)\b)"]
_FILE_DELETES = [r"\bos\.(?:remove|unlink|rmdir|removedirs)", r"\bPath\(", r"\bfs\.(?:unlinkSync|unlink|rmSync|rm)",
                 r"\bFile\.(?:delete|unlink)", r"\bFileUtils\.(?:rm|rm_f)", r"\bunlink(?![^;]*recursive\s*=\s*(?:TRUE|T)\b)",
                 r"\bDeno\.remove(?:Sync)?", r"\bfile\.remove"]
# deleting every row through an ORM: Django, Rails, SQLAlchemy, Laravel, Prisma, Sequelize, TypeORM
# Calls that enumerate a directory: a single-file delete of a computed path beside one of them
# deletes what it enumerates (`for r, _, fs in os.walk('.'): os.remove(...)` is `rm -r .`).
_TREE_WALKS = [r"\bos\.walk", r"\bos\.fwalk", r"\bPath(?=\s*\([^)]*\)\s*\.(?:rglob|walk)\b)", r"\bFind\.find",
               r"\bFile::Find::find", r"\bDir\.glob(?=\s*\(\s*['\"][^'\"]*\*\*)",
               r"\bglob\.i?glob(?=\s*\([^)]*recursive\s*=\s*True)", r"\bfs\.readdirSync(?=\s*\([^)]*recursive)"]
_DIR_LISTINGS = [r"\bos\.(?:listdir|scandir)", r"\bPath(?=\s*\([^)]*\)\s*\.(?:iterdir|glob)\b)",
                 r"\bfs\.readdirSync", r"\bDir\.(?:children|entries|each_child|foreach)", r"\bscandir",
                 r"\bopendir"]
# a database driver handed SQL text to run (PDO, mysqli, node-postgres/mysql, DBI, JDBC, Go's database/sql)
_SQL_EXECUTED = re.compile(r"(?:->|\.|::)(?:exec|execute|query|do|prepare|raw|executeQuery|executeUpdate|Exec|Query|"
                           r"unsafe|run|all|sql)\s*\(|\bsql`|\bmysqli_query\s*\(|\bpg_query\s*\(")
_ORM_DELETE_ALL = re.compile(
    r"\.objects\.all\(\)\.delete\(\)|\.objects\.delete\(\)|\b[A-Z]\w*\.(?:delete_all|destroy_all)\b(?!\s*\()|"
    r"\b[A-Z]\w*\.(?:delete_all|destroy_all)\(\s*\)|\.query\(\s*\w+\s*\)\.delete\(\)|::truncate\(\)|->truncate\(\)|"
    r"\.deleteMany\(\s*(?:\{\s*\})?\s*\)|\.destroy\(\s*\{\s*(?:where\s*:\s*\{\s*\}\s*,?\s*)?truncate\s*:\s*true|"
    r"\.clear\(\)\s*;?\s*$|DB::table\([^)]*\)->delete\(\)")
_ORM_WRITE = re.compile(r"\.(?:update_all|delete_all|destroy_all|update|delete|bulk_update|bulk_create|raw|execute)\s*\(|"
                        r"\.objects\.\w+\([^)]*\)\.(?:update|delete)\(|->(?:update|delete|insert)\(")
# a socket connected out, then a shell or the descriptors handed to it: a reverse shell
_REVERSE_SHELL = re.compile(r"(socket|Socket|TCPSocket|net\.connect|fsockopen|/dev/tcp).*?(dup2|pty\.spawn|spawn\(|"
                            r"exec[lv]?p?\(|/bin/(ba|z)?sh|\bsh\b|\bcmd\.exe\b|subprocess)", re.S)
_WRITES = [r"\bopen(?=\s*\((?:[^,()]|\([^()]*\))*,\s*(?:mode\s*=\s*)?[rbuRBU]{0,2}['\"][^'\"]*[wax])",
           r"\b(?:fs\.)?(?:writeFileSync|appendFileSync|writeFile|appendFile|createWriteStream)",
           r"\bFile\.(?:write|open(?=\s*\([^)]*,\s*['\"][wa]))", r"\bfile_put_contents", r"\bDeno\.write(?:Text)?File(?:Sync)?"]
_PERL_OPEN_WRITE = re.compile(r"""\bopen\s*\(?\s*[\w$]+\s*,\s*(?:['"]>>?['"]\s*,\s*""" + _STR + r"|['\"]>>?\s*(?P<p>[^'\"]+)['\"])")
_PATH_UNLINK = re.compile(r"\bPath\(\s*" + _STR + r"\s*\)\s*\.(?P<m>unlink|rmdir|write_text|write_bytes|touch)")
_FORK_LOOP = re.compile(r"\bfork\b\s*(?:\(\s*\))?\s*(?:while|until)\b|"
                        r"\bfork\s*\(\s*\)[^\n;]*\bfor\s+\w+\s+in\s+(?:iter\s*\(|itertools\.(?:count|repeat|cycle)\s*\()|"
                        r"\bwhile\s*\(?\s*(?:1|true|True)\s*\)?\s*(?::|\{|do)?\s*(?:os\.)?fork\b|"
                        r"\bloop\s*(?:do|\{)\s*fork\b|\bfor\s*\(\s*;\s*;\s*\)\s*\{?\s*fork\b")
# Code that sends data out: HTTP bodies, raw sockets, mail and file transfer.
_NET_SENDS = re.compile(
    r"\b(?:requests|httpx|session|client|aiohttp)\.(?:post|put|patch)\s*\(|\burlopen\s*\([^;]*\bdata\s*=|"
    r"\bRequest\s*\([^;]*\bdata\s*=|\bHTTPS?Connection\s*\(|\bfetch\s*\([^;]*\b(?:body|method\s*:\s*['\"](?:POST|PUT|PATCH))|"
    r"\baxios\.(?:post|put|patch)\s*\(|\bhttps?\.request\s*\(|\bNet::HTTP\.(?:post|post_form|put)\b|"
    r"\bNet::HTTP::(?:Post|Put)\b|\bRestClient\.(?:post|put)\b|\bHTTParty\.(?:post|put)\b|CURLOPT_POSTFIELDS|"
    r"\bLWP::UserAgent\b|\bHTTP::Tiny\b[^;]*->(?:post|put|request)|\.(?:sendall|sendto)\s*\(|\bsmtplib\b|"
    r"\bftplib\b|\bparamiko\b|\bDeno\.connect\b|\bnet\.(?:connect|createConnection)\s*\(")
# Reading files from code: the first argument is the path.
_FILE_READS = [r"\bopen", r"\bio\.open", r"\bFile\.(?:read|open|binread|readlines)", r"\b(?:fs\.)?readFileSync",
               r"\b(?:fs\.)?readFile", r"\bfile_get_contents", r"\bfile", r"\bDeno\.readTextFile(?:Sync)?",
               r"\bIO\.read", r"\bslurp"]
_PATH_READ = re.compile(r"\bPath\(\s*" + _STR + r"\s*\)(?:\.expanduser\(\))?\.read_(?:text|bytes)")
# the whole environment (tokens and all), as opposed to one named variable
_ENV_DUMP = re.compile(r"\bdict\(\s*os\.environ\s*\)|\bos\.environ\b(?!\s*[\[.]\s*(?:get\b|['\"]))|"
                       r"\bprocess\.env\b(?!\s*[.\[])|\bENV\.(?:to_h|to_a|each|inspect)\b|\bgetenv\(\s*\)|"
                       r"\bDeno\.env\.toObject\(|%ENV\b")
_SECRET_NAME = r"[A-Z0-9_]*(?:TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|PRIVATE_KEY|ACCESS_KEY|CREDENTIALS?|AUTH)[A-Z0-9_]*"
_SECRET_ENV = re.compile(r"(?:os\.environ(?:\.get)?\s*[\[(]\s*|os\.getenv\s*\(\s*|process\.env\.|"
                         r"process\.env\[\s*|ENV(?:\.fetch)?\s*[\[(]\s*|getenv\s*\(\s*|\$ENV\{\s*|"
                         r"Deno\.env\.get\s*\(\s*)['\"]?(" + _SECRET_NAME + r")\b")
_PRINTS = re.compile(r"\b(?:print|println|puts|p|pp|console\.(?:log|info|error)|echo|say|printf|"
                     r"sys\.stdout\.write|process\.stdout\.write|Deno\.stdout)\b")
# exec(base64.b64decode('…')) / eval(Buffer.from('…', 'base64').toString()): code hidden in a literal
_ENCODED_CODE = re.compile(r"(?:b64decode|decodebytes|decode64|atob|base64_decode|Buffer\.from)\s*\(\s*"
                           r"(?:b?['\"])(?P<b>[A-Za-z0-9+/=\s]{8,})['\"]")
_DYNAMIC_CODE = {"python": r"\b(?:exec|eval|compile)\s*\((?!\s*['\"])", "js": r"\b(?:eval|Function|vm\.run\w*)\s*\((?!\s*['\"`])",
                 "ruby": r"\b(?:eval|instance_eval|class_eval)\s*\(?(?!\s*['\"])", "perl": r"\beval\s*(?!\s*['\"{])",
                 "php": r"\b(?:eval|assert|create_function)\s*\("}


def judge(run: "Run", inv: "Invocation") -> list[Finding]:
    spec = run.tax.interpreter(inv.name) or {}
    language = spec.get("language", "python")
    code_opts = set(spec.get("code", ()))
    value_opts = set(spec.get("value_options", ()))
    module_opts = set(spec.get("module", ()))
    words = inv.words
    i = 0
    in_place = False
    if spec.get("subcommand"):  # mix run …: the other tasks are the taxonomy's
        if not words or words[0].value != spec["subcommand"]:
            return []
        words = words[1:]
    if spec.get("code_subcommand") and words and words[0].value == spec["code_subcommand"]:
        if len(words) > 1:
            return code_findings(run, inv, words[1], language)
        return []
    if inv.name == "deno" and words and words[0].value == "run":
        words = words[1:]
    libraries = spec.get("library_commands") or {}
    loaded: list[str] = []  # the libraries -r loads (ruby -run: un.rb)
    while i < len(words):
        arg = words[i].value
        if arg == "--":
            i += 1
            break
        if libraries and arg in code_opts and i + 1 < len(words):
            command = next((lib[words[i + 1].value] for name, lib in libraries.items()
                            if name in loaded and words[i + 1].value in lib), None)
            if command is not None:  # ruby -run -e rm -- -rf PATHS: un.rb's rm, with the words after it
                operands = words[i + 2:]
                operands = operands[1:] if operands and operands[0].value == "--" else operands
                run.nested(" ".join([command] + [w.raw for w in operands]), inv, f"{inv.name} -r{words[i + 1].value}")
                return [allow(f"{inv.name} -e {words[i + 1].value}: judged as the {command} command it is",
                              "interpreter", rule="code.library-command")]
        attached = re.match(r"(--?[\w-]+)[=:]", arg) if arg.startswith("-") else None  # --eval=CODE, nim's --eval:CODE
        if arg in code_opts or (attached is not None and attached.group(1) in code_opts):
            if attached is not None and arg not in code_opts:
                return code_findings(run, inv, Word(arg[attached.end():], words[i].raw), language, in_place,
                                     words[i + 1:])
            if i + 1 < len(words):
                return code_findings(run, inv, words[i + 1], language, in_place, words[i + 2:])
            return []
        if arg in module_opts and i + 1 < len(words):
            return _module(run, inv, words[i + 1].value, words[i + 2:])
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 2 and language in ("perl", "ruby", "python"):
            letters = arg[1:]
            in_place |= "i" in letters and language in ("perl", "ruby")
            for j, letter in enumerate(letters):
                if "-" + letter in value_opts:
                    loaded.append(letters[j + 1:] or (words[i + 1].value if i + 1 < len(words) else ""))
                    break  # -MFile::Path=remove_tree: the rest of the cluster is the option's value
                if "-" + letter in code_opts:
                    attached = letters[j + 1:]
                    if attached:
                        return code_findings(run, inv, Word(attached, words[i].raw), language, in_place, words[i + 1:])
                    if i + 1 < len(words):
                        return code_findings(run, inv, words[i + 1], language, in_place, words[i + 2:])
                    return []
                if "-" + letter in module_opts:
                    target = letters[j + 1:] or (words[i + 1].value if i + 1 < len(words) else "")
                    return _module(run, inv, target, words[i + 2:] if not letters[j + 1:] else words[i + 1:])
            i += 1
            continue
        if language == "js" and re.fullmatch(r"-[pe]{2}", arg) and i + 1 < len(words):
            return code_findings(run, inv, words[i + 1], language)  # node -pe CODE: print what CODE gives
        if arg in value_opts:
            loaded.append(words[i + 1].value if i + 1 < len(words) else "")
            if language == "js" and arg in ("-r", "--require", "--import") and i + 1 < len(words):
                _preload(run, inv, words[i + 1])  # node -r ./hook.js app.js: the hook runs first
            i += 2
            continue
        if arg.startswith("-") and arg != "-":
            in_place |= arg == "-i" and language in ("perl", "ruby")
            i += 1
            continue
        break
    rest = words[i:]
    if spec.get("code_only"):
        return []  # `nim c -r app.nim`, `octave script.m`: the taxonomy's (no code option was given)
    if rest and spec.get("family") in ("bun", "deno") and re.fullmatch(r"[a-z][a-z-]*", rest[0].value):
        return run.taxonomy(inv)  # `bun install`, `deno test`: a subcommand, not a script
    if rest and rest[0].value != "-":
        index = inv.words.index(rest[0])
        if index in inv.process_inputs():
            return run_process_input(run, inv, index, f"{inv.name} <(…)")
        script = rest[0].value.rsplit("/", 1)[-1]
        launched = SCRIPT.search(rest[0].value)
        if launched or (not rest[0].dynamic and is_launcher(_script_file(rest[0].value, inv))):
            args = ([Word.literal("hook")] if launched and launched.group(1) == "hook" else []) + rest[1:]
            return judge_guardtui(args, f"{inv.name} {rest[0].display()}")
        if script in _FRAMEWORK_SCRIPTS:
            return framework_script(run, inv, script, rest[1:])
        if language == "python" and (any(re.fullmatch(r"-[A-Za-z]*[PI][A-Za-z]*", w.value) for w in words[:i]) or
                                     inv.scope.variables.get("PYTHONSAFEPATH")):
            # python3 -P / -I: the script's directory is not put on sys.path (its statistics.py is not imported)
            scope = inv.scope.copy()
            scope.facts[SAFE_PATH] = "1"
            inv = inv.__class__(inv.name, inv.words, inv.cmd, scope, inv.privileged, inv.written_name)
        return [run.script_run(inv.as_script(rest[0], rest[1:]), inv.name)]
    stream = run.stdin_source(inv.cmd)
    kind = stream.kind
    if kind == "text" and stream.text is not None:
        findings = code_findings(run, inv, Word(stream.text, stream.text), language)
        if stream.obfuscated:
            findings.append(ask(f"pipes encoded code into {inv.name}: what runs is hidden until it is decoded",
                                "dynamic-exec", BlastRadius.HIGH, "code.obfuscated"))
        return findings
    if kind == "network":
        return [ask(f"{inv.name} runs code downloaded from the network", "remote-exec", BlastRadius.HIGH,
                    "code.remote")]
    if kind == "unknown":
        return [ask(f"{inv.name} runs code read from its input", "dynamic-exec", BlastRadius.MEDIUM, "code.stdin")]
    if kind == "file":  # python3 - < tool.py: the file is the program
        fed = run.fed_program(inv, language)
        if fed is not None:
            return [fed]
    return [allow(f"{inv.name} runs a program", "interpreter", rule="code.run")]


def _script_file(value: str, inv: "Invocation") -> str | None:
    if value.startswith("~/"):
        return inv.scope.home.rstrip("/") + value[1:]
    if value.startswith("/"):
        return value
    return inv.scope.cwd.rstrip("/") + "/" + value if inv.scope.cwd else None


def _preload(run: "Run", inv: "Invocation", word: Word) -> None:
    if not word.value.startswith(("./", "../", "/")) or word.dynamic:
        return
    info = run.path(word, inv)
    if info.path:
        for suffix in ("", ".js", ".mjs", ".cjs", ".ts"):
            if os.path.isfile(info.path + suffix):
                judged = run.project_file(info.path + suffix, inv, "node")
                if judged is not None:
                    run.add(judged)
                return


# modules that are a tool of the same name (`python -m pytest` is pytest)
_TOOL_MODULES = {"pytest": "pytest", "mypy": "mypy", "black": "black", "ruff": "ruff", "flake8": "flake8",
                 "pylint": "pylint", "coverage": "coverage", "tox": "tox", "nox": "nox", "mkdocs": "mkdocs",
                 "isort": "isort", "pyright": "pyright", "bandit": "bandit"}


_PYTEST_VALUES = frozenset({"-k", "-m", "-p", "-c", "-o", "-W", "--rootdir", "--basetemp", "--confcutdir", "--junitxml",
                            "--junit-xml", "--html", "--cov", "--cov-report", "--deselect", "--ignore", "--durations",
                            "--maxfail", "-n", "--dist", "--tb", "--log-level", "--import-mode", "--override-ini"})


def pytest(run: "Run", inv: "Invocation") -> list[Finding]:
    """pytest -p NAME: the plugin module is imported before any test; the project's own is judged as the file it
    is. Test files named on the command line (and the conftest.py files above them) are judged as the programs
    they are (what pytest does besides is the taxonomy's)."""
    words = [w.value for w in inv.words]
    files: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word in _PYTEST_VALUES:
            skip = True
            continue
        name = word.split("::")[0]
        if not word.startswith("-") and name.endswith(".py") and DYN not in name and inv.scope.cwd:
            files.append(posixpath.normpath(posixpath.join(inv.scope.cwd, name)))
    for file in files[:8]:
        here, chain = posixpath.dirname(file), []
        while here.startswith(inv.scope.cwd) and len(chain) < 8:
            chain.append(posixpath.join(here, "conftest.py"))
            here = posixpath.dirname(here)
        for path in reversed(chain) if not inv.scope.remote else ():
            if os.path.isfile(path):
                judged = run.project_file(path, inv, "python3", shown(path, inv.scope.cwd))
                if judged is not None:
                    run.add(judged)
        if os.path.isfile(file) and not inv.scope.remote:
            judged = run.project_file(file, inv, "python3", f"{shown(file, inv.scope.cwd)} (tests pytest runs)")
            if judged is not None:
                run.add(judged)
    for i, word in enumerate(words):
        name = words[i + 1] if word == "-p" and i + 1 < len(words) else word[2:] if word.startswith("-p") and \
            len(word) > 2 and not word.startswith("--") else ""
        if not name or name.startswith("no:") or DYN in name or inv.scope.remote:
            continue
        file = python_module_file(inv.scope.cwd, name)
        if file:
            judged = run.project_file(file, inv, "python3", f"{shown(file, inv.scope.cwd)} (pytest plugin)")
            if judged is not None:
                run.add(judged)
    return []


def _module(run: "Run", inv: "Invocation", module: str, rest: list[Word]) -> list[Finding]:
    if module == "guardtui" or module.startswith("guardtui."):  # python -m guardtui trust …
        args = ([Word.literal("hook")] if module == "guardtui.hook" else []) + rest
        return judge_guardtui(args, f"{inv.name} -m {module}")
    if module in ("zipfile", "tarfile") and rest and rest[0].value in ("-e", "--extract") and len(rest) > 1:
        archive = run.path(rest[1], inv)
        target = rest[2] if len(rest) > 2 else Word.literal(".")
        run.write(target, inv, f"{inv.name} -m {module} -e into", kind="unpack",
                  source=archive.path if not rest[1].dynamic else None)
        return [allow(f"{inv.name} -m {module} extracts an archive", "fs-write", rule="code.module")]
    if module in _TOOL_MODULES:  # python -m pytest …: the tool, with what its options do
        scope = inv.scope.copy()
        if "/" in inv.written_name and inv.scope.cwd:  # .venv/bin/python -m pytest: that environment's plugins
            scope.facts[PYTHON_PROGRAM] = posixpath.normpath(posixpath.join(inv.scope.cwd, inv.written_name))
        return run.judge_invocation(Invocation(_TOOL_MODULES[module], rest, inv.cmd, scope, inv.privileged,
                                               _TOOL_MODULES[module]))
    if module == "venv" and any(w.value == "--clear" for w in rest):  # venv --clear DIR: DIR's contents go first
        for word in rest:
            if not word.value.startswith("-") and not word.dynamic:
                info = run.path(word, inv)
                run.effect(info.path, word.display(), "delete", inv.cmd, info.remote, recursive=True,
                           detail="mentioned")
    if module == "pdb" and inv.scope.cwd and not inv.scope.remote:  # pdb runs ./.pdbrc and ~/.pdbrc first
        for rc in (posixpath.join(inv.scope.home, ".pdbrc"), posixpath.join(inv.scope.cwd, ".pdbrc")):
            text = read_text(rc)
            statements = [line.strip().lstrip("!") for line in (text or "").splitlines()
                          if line.strip() and not line.lstrip().startswith("#") and
                          (line.strip().startswith("!") or re.match(r"(?:import|from|[\w.]+\s*\(|[\w.]+\s*=)",
                                                                    line.strip()))]
            if statements:
                run.nested(f"python3 -c {shlex.quote(chr(10).join(statements))}", inv, f"{inv.name} -m pdb › {rc}")
        rest = [w for w in rest if w.value not in ("-c",)]
    if module == "json.tool":  # python -m json.tool IN OUT: OUT is written
        operands = [w for w in rest if not w.value.startswith("-")]
        if len(operands) > 1:
            written = run.write(operands[1], inv, f"{inv.name} -m json.tool writes")
            return [written] if written is not None else []
    if module in ("pip", "pip3", "ensurepip", "uv", "poetry", "pipx", "build"):  # python -m build: pyproject-build
        name = {"ensurepip": "pip", "build": "pyproject-build"}.get(module, module)
        return run.judge_invocation(Invocation(name, rest, inv.cmd, inv.scope, inv.privileged, module))
    program = module_program(module)
    if program:  # python -m jupyterlab --ip 0.0.0.0: the server's own program (data/servers.yaml modules)
        words = [Word.literal(w) for w in program[1:]] + rest
        return run.judge_invocation(Invocation(program[0], words, inv.cmd, inv.scope, inv.privileged, module))
    if module in ("http.server", "SimpleHTTPServer"):
        port = next((int(w.value) for w in rest if w.value.isdigit()), None)
        if port is not None and port in broker_ports():
            return [deny(f"{inv.name} -m {module} {port} listens on guardtui's broker port: {LISTEN_WHY}", "guard-self",
                         "code.fake-broker")]
        served = Word.literal(".")
        for i, w in enumerate(rest):
            if w.value in ("-d", "--directory") and i + 1 < len(rest):
                served = rest[i + 1]
        from .paths import PathKind
        kind = run.path(served, inv).kind
        bind = next((rest[i + 1].value for i, w in enumerate(rest[:-1]) if w.value in ("-b", "--bind")), "")
        if bind in ("0.0.0.0", "::", "[::]", "*") and kind in (PathKind.HOME_ROOT, PathKind.HOME_ANCESTOR,
                                                             PathKind.ROOT, PathKind.HOME_DOTFILE):
            return [deny(f"{inv.name} -m http.server serves {served.display()} ({kind.value}: keys and tokens with it) "
                         f"to every machine on the network", "secrets", "code.module")]
        if bind in ("0.0.0.0", "::", "[::]", "*"):  # said out loud: for other machines to fetch from
            return [ask(f"{inv.name} -m http.server serves {served.display()} to every machine on the network "
                        f"(--bind {bind})", "network", BlastRadius.MEDIUM, "code.module")]
        if kind in (PathKind.PROJECT_ROOT, PathKind.PROJECT_SUB, PathKind.TEMP):
            return [allow(f"{inv.name} -m http.server serves {served.display()}", "network", rule="code.module")]
        return [ask(f"{inv.name} -m http.server serves {served.display()} ({kind.value}) over the network",
                    "network", BlastRadius.MEDIUM, "code.module")]
    file = python_module_file(inv.scope.cwd, module) if not inv.scope.remote else None
    if file:  # python -m tools.release: the project's own module, judged as the script it is
        judged = run.project_file(file, inv.__class__(inv.name, rest, inv.cmd, inv.scope, inv.privileged,
                                                      inv.written_name), inv.name)
        if judged is not None:
            return [judged]
    return [allow(f"{inv.name} -m {module} runs a module", "build-test", rule="code.module")]


def code_findings(run: "Run", inv: "Invocation", code_word: Word, language: str, in_place: bool = False,
                  operands: list[Word] | None = None) -> list[Finding]:
    if code_word.dynamic and code_word.value.startswith(DYN):
        return [ask(f"{inv.name} runs code that is only known at run time", "dynamic-exec", BlastRadius.HIGH,
                    "code.dynamic")]
    code = code_word.value
    if language == "powershell":  # read as the shell commands it amounts to (shell/pwsh.py)
        script, unknown = powershell_as_shell(code)
        run.nested(script, inv, f"{inv.name} → PowerShell")
        if unknown:
            return [ask(f"{inv.name} runs {unknown[0]}, a PowerShell cmdlet guardtui does not know", "unknown",
                        BlastRadius.MEDIUM, "code.powershell")]
        return [allow(f"{inv.name}: its PowerShell commands are judged as the shell commands they amount to",
                      "interpreter", rule="code.inline")]
    if language == "nushell":  # read as the shell commands it amounts to (shell/nushell.py)
        run.nested(nushell_as_shell(code), inv, f"{inv.name} → nushell")
        return [allow(f"{inv.name}: its nushell commands are judged as the shell commands they amount to",
                      "interpreter", rule="code.inline")]
    findings: list[Finding] = []
    findings_from = len(run.result.findings)  # what the commands this code runs find (run.nested)
    reached = metadata_in_text(code)
    if reached is not None:  # requests.get("http://169.254.169.254/…"), fetch(…), socket.connect((…, 80))
        findings.append(deny(f"{inv.name} code reaches {reached[1]} ({reached[0][:60]}), which hands out this "
                             f"machine's cloud credentials", "secrets", "code.metadata"))
    recorded_from = len(run.result.effects)  # the effects this code's own calls record (for _mentioned_paths)
    scope = inv.scope.copy()
    # `d = tempfile.mkdtemp()`, `home = os.path.expanduser("~")`: names whose values we can know
    for m in re.finditer(r"(?m)(?:^|;)\s*(?:(?:const|let|var|my|local)\s+)?\$?([A-Za-z_]\w*)\s*=(?!=)\s*([^\n;]+)", code):
        value = evaluate_expression(m.group(2).strip(), scope)
        if value is not None:
            scope.variables["py:" + m.group(1)] = value
    inv = inv.__class__(inv.name, inv.words, inv.cmd, scope, inv.privileged, inv.written_name)
    for pattern in _SHELL_CALLS.get(language, []) + list(code_scan().shell_calls.get(language, ())):
        for m in re.finditer(pattern + r"(?=(?P<rest>.*))", code, re.S):
            rest = m.group("rest")
            literal = _first_argument(rest if not pattern.endswith("`") else "`" + rest, scope=inv.scope, argv=True)
            if not literal and (decoded := _decoded_argument(rest)) is not None:
                # os.system(base64.b64decode('ZGQg…').decode()), perl's system pack "H*", "…": hidden but literal
                run.nested(decoded, inv, f"{inv.name} → shell (decoded)")
            elif literal is None:
                findings.append(ask(f"{inv.name} runs a shell command built at run time", "dynamic-exec",
                                    BlastRadius.HIGH, "code.shell"))
            elif literal:
                run.nested(literal, inv, f"{inv.name} → shell")
    for m in _PROGRAM_AND_ARGS.finditer(code) if language in ("elixir", "r", "julia", "kotlin", "scala") else ():
        # System.cmd("sh", ["-c", "…"]), system2("rm", c("-rf", "…")), run(`rm -rf …`): the program and its words
        words = [m.group("program")] + [_unescape(a) for a in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group("args"))]
        run.nested(shlex.join(words), inv, f"{inv.name} → {m.group('program')}")
    for m in _ARGV_CALLS.finditer(code) if language in _ARGV_LANGUAGES else ():
        # each argument a literal, a join of literals and the home, or a word known only when it runs
        known = [evaluate_expression(a.strip(), inv.scope) for a in top_level_commas(m.group("args"))]
        words = [k if k is not None else UNKNOWN_WORD for k in known]
        # a Scala Seq(…) is a process only when it is run (.! / .!!); the others always are
        if words and (m.group("bang") or not m.group(0).lstrip().startswith(("Seq", "List"))):
            run.nested(" ".join(_argv_word(w) if w != UNKNOWN_WORD else '"$code_argument"' for w in words), inv,
                       f"{inv.name} → {words[0]}")
    for m in _STRING_PROCESS.finditer(code) if language in _ARGV_LANGUAGES else ():
        command = _unescape((m.group("c") if m.group("c") is not None else m.group("r"))[1:-1])
        if command.strip():
            run.nested(command, inv, f"{inv.name} → {command.split()[0]}")
    for m in _LISP_PROCESS.finditer(code) if language == "clojure" else ():
        words = [_unescape(a) for a in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group("args"))]
        run.nested(words[0] if len(words) == 1 else shlex.join(words), inv, f"{inv.name} → {words[0].split()[0]}")
    for m in _RUST_COMMAND.finditer(code) if language == "rust" else ():
        words = [m.group("program")] + [_unescape(a) for a in re.findall(r'"((?:[^"\\]|\\.)*)"', " ".join(
            re.findall(r"\.\s*args?\((.*?)\)\s*(?=\.|$)", m.group("chain"), re.S)))]
        run.nested(shlex.join(words), inv, f"{inv.name} → {m.group('program')}")
    if language == "tcl":  # Tcl's exec and expect's spawn take the command as bare words: the rest of the line
        for m in re.finditer(r"(?m)(?:^|[\[;{]\s*)(?:exec|spawn)\s+(?:-\w+\s+)*([^\]\n;}]+)", code):
            command = m.group(1).strip().rstrip("&").strip()
            run.nested(command, inv, f"{inv.name} → {command.split()[0] if command.split() else 'exec'}")
            if re.search(r"\bsend\b", code) and _ATTACHES.search(command):
                findings.append(deny(f"{inv.name} attaches to a terminal session ({command[:40]}) and sends it keys: "
                                     f"in guardtui's console a key answers a waiting call as if you had pressed it",
                                     "terminal-input", "term.typing"))
    for m in _GROOVY_EXECUTE.finditer(code) if language == "groovy" else ():
        literal = _first_argument("(" + m.group("recv") + ")", scope=inv.scope)
        if literal:
            run.nested(literal, inv, f"{inv.name} → shell")
    for pattern in re.finditer(r"`(?P<s>[^`]+)`", code) if language in ("ruby", "perl", "php", "julia") else ():
        run.nested(pattern.group("s"), inv, f"{inv.name} → shell")
    for m in re.finditer(r"\b(?:qx|%x)\s*[\(\{\[](?P<s>[^\)\}\]]*)[\)\}\]]", code):
        run.nested(m.group("s"), inv, f"{inv.name} → shell")
    for pattern in _RECURSIVE_DELETES:
        for m in re.finditer(pattern + r"(?=(?P<rest>.*))", code, re.S):
            target = _first_argument(m.group("rest"), scope=inv.scope)
            head = m.group(0)
            looped = _loop_values(code, m.group("rest")) if target is None else None
            for value in looped or [target]:  # for p in ("/usr/local", "/etc"): shutil.rmtree(p)
                findings.append(run.delete(_path_word(value, inv.scope.home), inv, True,
                                           f"{inv.name}: {_name(head)}"))
    computed_delete = False
    for pattern in _FILE_DELETES:
        for m in re.finditer(pattern + r"(?=(?P<rest>.*))", code, re.S):
            if pattern == r"\bPath\(":
                continue
            head = m.group(0)
            if re.search(r"(rmSync|rm|rmdirSync|rmdir)$", head) and \
                    re.match(r"\s*\([^;]*recursive\s*:\s*true", m.group("rest")):
                continue
            target = _first_argument(m.group("rest"), allow_glob_call=True, scope=inv.scope)
            if target == "" and code[:m.start()].endswith("."):
                target = None  # p.unlink(): the path is the object's, computed at run time
            computed_delete |= target is None
            word = _path_word(target, inv.scope.home)
            findings.append(run.delete(word, inv, False, f"{inv.name}: {_name(head)}"))
    if computed_delete:
        findings.extend(_enumerated_deletes(run, inv, code))
    for m in _PATH_UNLINK.finditer(code):
        word = Word.literal(_unescape(m.group("s")))
        if m.group("m") in ("unlink", "rmdir"):
            findings.append(run.delete(word, inv, False, f"{inv.name}: Path.{m.group('m')}"))
        else:
            f = run.write(word, inv, f"{inv.name}: Path.{m.group('m')}")
            if f:
                findings.append(f)
    for pattern in _WRITES:
        for m in re.finditer(pattern + r"(?=(?P<rest>.*))", code, re.S):
            target = _first_argument(m.group("rest"), scope=inv.scope)
            if target:
                f = run.write(_path_word(target, inv.scope.home), inv, f"{inv.name} writes")
                if f:
                    findings.append(f)
    if language == "perl":
        for m in _PERL_OPEN_WRITE.finditer(code):
            target = m.group("s") if m.group("s") is not None else m.group("p")
            if target:
                f = run.write(Word.literal(target.strip()), inv, "perl open >")
                if f:
                    findings.append(f)
    if language != "python" and _SQL_EXECUTED.search(code):
        # $pdo->exec('DELETE FROM runs'), pool.query("DROP TABLE x"): the statement runs as written
        verdicts = [v for lit in [m.group("s") for m in re.finditer(_STR, code)][:_MAX_LITERALS]
                    if len(lit) < 4096 and (v := classify_sql(lit)) is not None]
        worst_sql = next((v for v in verdicts if v[0] == "critical"), None) or \
            next((v for v in verdicts if v[0] == "high"), None)
        if worst_sql is not None and worst_sql[0] == "critical":
            findings.append(deny(f"{inv.name} runs SQL: {worst_sql[1]}", "database", "sql.destructive"))
        elif worst_sql is not None:
            findings.append(ask(f"{inv.name} runs SQL: {worst_sql[1]}", "database", BlastRadius.HIGH, "sql.write"))
    wiped = datastore_wipe(code, inv, run.tax)
    if wiped is not None:  # client.delete_collection(…), db.dropDatabase(), es.indices.delete(index="*")
        findings.append(wiped)
    if _ORM_DELETE_ALL.search(code):
        findings.append(deny(f"{inv.name} deletes every row of a table through the ORM", "database", "code.orm-delete"))
    elif _ORM_WRITE.search(_GROOVY_EXECUTE.sub("", code) if language == "groovy" else code):
        findings.append(ask(f"{inv.name} changes or deletes many rows through the ORM", "database", BlastRadius.MEDIUM,
                            "code.orm-write"))
    if _REVERSE_SHELL.search(code) and re.search(r"connect|fsockopen|TCPSocket", code):
        findings.append(deny(f"{inv.name} connects a shell to a remote host (reverse shell)", "network",
                             "code.reverse-shell"))
    elif (socket := reverse_shell(code)) is not None:  # Tcl's socket + exec, R's socketConnection + system
        findings.append(deny(f"{inv.name} opens a connection ({socket.strip()[:40]}) and runs programs: what the "
                             f"other host sends runs here (a reverse shell)", "network", "code.reverse-shell"))
    if _FORK_LOOP.search(code):
        findings.append(deny(f"{inv.name} forks in an endless loop (fork bomb): it exhausts the machine", "fork-bomb",
                             "code.fork-bomb"))
    installer = next((m for rx in run.tax.installs_in(language) if (m := rx.search(code))), None)
    if installer is not None:  # install.packages("x"), Pkg.add("x"): new code from the network
        findings.append(ask(f"{inv.name} installs packages ({installer.group(0).rstrip('( ')})", "package",
                            BlastRadius.MEDIUM, "code.install"))
    findings.extend(_data_flow(run, inv, code))
    findings.extend(_against_the_guard(run, inv, code, language, recorded_from))
    decoded = _decoded_code(code)
    dynamic = _DYNAMIC_CODE.get(language)
    if decoded is not None and dynamic and re.search(dynamic, code):
        # exec(b64decode('…')): judge what is hidden, and say it was hidden
        hidden = code_findings(run, inv, Word.literal(decoded), language)
        findings.extend(f for f in hidden if f.verdict is not Verdict.ALLOW)
        findings.append(ask(f"{inv.name} runs code hidden in base64", "obfuscation", BlastRadius.MEDIUM,
                            "code.encoded"))
    elif dynamic and re.search(dynamic, code):
        findings.append(ask(f"{inv.name} evaluates code built at run time", "dynamic-exec", BlastRadius.MEDIUM,
                            "code.eval"))
    if in_place:
        for w in operands or []:
            if not w.value.startswith("-"):
                f = run.write(w, inv, f"{inv.name} -i", detail=REPLACES)  # renames a new file over the name
                if f:
                    findings.append(f)
    best = worst(findings)
    if best is None and language in code_scan().opaque and not run.result.findings[findings_from:] and (
            (unknowable := code_scan().deletes.search(code) or code_scan().execs.search(code) or
             code_scan().sockets.search(code)) is not None):
        # a language guardtui has no parser for, doing what cannot be placed: the person's call, never a quiet allow
        best = ask(f"{inv.name} code does what guardtui cannot follow in this language ({unknowable.group(0).strip()[:40]})",
                   "dynamic-exec", BlastRadius.MEDIUM, "code.opaque")
    if best is None:
        return [allow(f"{inv.name} code only computes or reads", "interpreter", rule="code.inline")]
    return [best if best.rule else replace(best, rule="code.inline")]


def _against_the_guard(run: "Run", inv: "Invocation", code: str, language: str, recorded_from: int) -> list[Finding]:
    """What code does to the guard itself, read from its whole text (a one-liner or a program file alike):
    keystrokes pushed into a terminal, guardtui's own code driven, a fake broker on its port, and
    protected paths the code names (recorded as effects for the protection rule)."""
    findings = _terminal_input(inv, code, language, run.tax.typing_code) + _guardtui_code(inv, code)
    port = code_listens_on_broker_port(code)
    if port is not None:
        findings.append(deny(f"{inv.name} code listens on {port}, guardtui's broker port: {LISTEN_WHY}", "guard-self",
                             "code.fake-broker"))
    _mentioned_paths(run, inv, code, recorded_from=recorded_from)
    return findings


# -- project files ------------------------------------------------------------------------------
def judge_file(run: "Run", inv: "Invocation", text: str, language: str, origin: "Origin",
               scope: Scope | None = None) -> list[Finding]:
    """A program file the command runs (`python3 build.py`, `node scripts/x.js`): Python through its
    syntax tree (pycode), the other languages through the same calls `-c`/`-e` code is judged by.
    Each finding says the file and line it comes from."""
    if scope is not None:
        inv = inv.__class__(inv.name, inv.words, inv.cmd, scope, inv.privileged, inv.written_name)
    if language == "python":
        _data_it_loads(run, inv, text, scope)
        _configs_it_loads(run, inv, text, scope.variables.get("0", "") if scope is not None else origin.file,
                          scope.elements("@") if scope is not None else None)
        path = scope.variables.get("0", "") if scope is not None else ""
        args = scope.elements("@") if scope is not None else None
        argv = (path or origin.file, *(None if a is None or DYN in a else a for a in args)) if args is not None else None
        actions = python_actions(text, path or origin.file, inv.scope.cwd, inv.scope.home,
                                 MKTEMP_PREFIX.rsplit("/", 1)[0], argv)
        if actions is not None:
            recorded_from = len(run.result.effects)
            found = _python_file(run, inv, actions, origin)
            # the syntax tree follows values; the whole text still tells what is aimed at the guard itself
            against = _against_the_guard(run, inv, text, language, recorded_from)
            wiped = datastore_wipe(text, inv, run.tax)
            if wiped is not None:
                against.append(wiped)
            reached = metadata_in_text(text)
            if reached is not None:
                against.append(deny(f"{inv.name} code reaches {reached[1]} ({reached[0][:60]}), which hands out "
                                    f"this machine's cloud credentials", "secrets", "code.metadata"))
            attribute_effects(run.result.effects, recorded_from, origin.at(0))
            return found + [f.attributed(origin.at(0)) for f in against]
    return _code_file(run, inv, text, language, origin)


def _configs_it_loads(run: "Run", inv: "Invocation", text: str, script: str, args: list[str] | None) -> None:
    """A library the script uses loads code its configuration names (matplotlibrc's module:// backend, a
    logging.ini handler's args, Hydra's _target_): each is judged as what it runs (libconfig.py)."""
    cwd = inv.scope.cwd
    if inv.scope.remote or not cwd:
        return
    script = posixpath.join(cwd, script) if script and not script.startswith("/") else script
    here = posixpath.dirname(script) if script else cwd
    variables = {k: v for k, v in {**inv.cmd.scope.variables, **inv.scope.variables}.items() if isinstance(v, str)}
    for kind, payload, config in code_for_script(text, here, cwd, inv.scope.home, variables, args):
        label = f"{inv.name} loads {shown(config, cwd)}"
        if kind == "shell":
            run.nested(payload, inv, label)
        elif kind == "python":
            run.nested(f"python3 -c {shlex.quote('import logging, sys, os; _ = ' + payload)}", inv, label)
        else:
            module = payload.replace(".", "/")
            for base in dict.fromkeys([here, cwd, posixpath.join(cwd, "src")]):
                file = next((f for f in (posixpath.join(base, module + ".py"), posixpath.join(base, module, "__init__.py"))
                             if os.path.isfile(f)), None)
                if file is None or file in run.modules or file == script or len(run.modules) >= MAX_MODULES:
                    continue
                run.modules.add(file)
                judged = run.project_file(file, inv.__class__("python3", [], inv.cmd, inv.scope, inv.privileged,
                                                              "python3"), "python3", f"import {payload} ({label})")
                if judged is not None:
                    run.add(judged)
                break


def _data_it_loads(run: "Run", inv: "Invocation", text: str, scope: Scope | None) -> None:
    """A script that unpickles, unsafe-loads YAML or trusts a model's own code, handed a file or directory on its
    command line (`evaluate.py --model models/ranker.pkl`): what loading that data runs is judged."""
    loaders = loaders_in(text)
    if not loaders or scope is None or inv.scope.remote or not inv.scope.cwd:
        return
    for arg in scope.elements("@") or []:
        if not arg or arg.startswith("-") or DYN in arg:
            continue
        path = posixpath.normpath(posixpath.join(inv.scope.cwd, arg))
        for kind, payload in code_in_data(path, loaders):
            label = f"{inv.name} loads {shown(path, inv.scope.cwd)}"
            if kind == "shell":
                run.nested(payload, inv, label)
            elif kind == "python":
                run.nested(f"python3 -c {shlex.quote(payload)}", inv, label)
            else:
                judged = run.project_file(payload, inv, "python3", f"{shown(payload, inv.scope.cwd)} ({label})")
                if judged is not None:
                    run.add(judged)


def _python_file(run: "Run", inv: "Invocation", actions: list[Action], origin: "Origin") -> list[Finding]:
    findings: list[Finding] = []
    home = inv.scope.home
    secret_files = {a.value for a in actions if a.kind == "read" and a.value and _secret_path(run, inv, a.value)}
    for action in actions:
        here = Origin(origin.file, origin.line + action.line - 1)
        where = here.at(0)
        what = action.detail or inv.name
        found: list[Finding] = []
        effects = len(run.result.effects)
        if action.kind in ("shell", "exec"):
            found = _python_runs(run, inv, action, here, what)
        elif action.kind == "delete":
            found = [with_rule(run.delete(_path_word(_known(action.value), home), inv, action.recursive, what),
                               "code.delete")]
        elif action.kind == "write" and _known(action.value) is None:
            # a target computed from run-time input (an argument, a loop): like a -c one-liner's, not judged;
            # one decoded from hidden text is a path the script hides
            if "decoded" in action.sources:
                found = [ask(f"{what} writes to a path it decodes at run time", "obfuscation", BlastRadius.HIGH,
                             "code.hidden-path")]
        elif action.kind == "write":
            written = run.write(_path_word(_known(action.value), home), inv, what)
            found = [with_rule(written, "code.write")] if written else []
        elif action.kind == "import":
            _import(run, inv, action, origin)
        elif action.kind == "read" and action.value in secret_files:
            found = [ask(f"{what} reads {action.value}, a secret (keys or credentials)", "sensitive-read",
                         BlastRadius.MEDIUM, "code.secret-read")]
        elif action.kind == "send":
            found = [_python_send(action, secret_files, what)]
        elif action.kind == "fetch" and action.value and DYN not in action.value:
            run.nested("curl -s " + shlex.quote(action.value), inv, f"{what} → fetch", origin=here)
        elif action.kind == "print":
            shown_secret = _secret_sources(action.sources, secret_files, env_names=True)
            if shown_secret:
                found = [ask(f"{what} prints {shown_secret}", "sensitive-read", BlastRadius.LOW, "code.secret-print")]
        elif action.kind == "eval":
            if action.value is not None:
                found = code_findings(run, inv, Word.literal(action.value), "python")
                found = [f for f in found if f.verdict is not Verdict.ALLOW]
            else:
                found = [ask(f"{what} runs code built at run time", "dynamic-exec", BlastRadius.MEDIUM, "code.eval")]
        elif action.kind == "sql" and action.value:
            run.result.acts.extend(sql_effects(action.value))
            verdict = classify_sql(action.value)
            if verdict is not None and verdict[0] == "critical":
                found = [deny(f"{what}: {verdict[1]}", "database", "sql.destructive")]
            elif verdict is not None and verdict[0] == "high":
                found = [ask(f"{what}: {verdict[1]}", "database", BlastRadius.HIGH, "sql.write")]
        elif action.kind == "orm-delete-all":
            found = [deny(f"{what} deletes every row of a table through the ORM", "database", "code.orm-delete")]
        elif action.kind == "reverse-shell":
            found = [deny("it connects a shell to a remote host (reverse shell)", "network", "code.reverse-shell")]
        elif action.kind == "fork-bomb":
            found = [deny("it forks in an endless loop (fork bomb): it exhausts the machine", "fork-bomb",
                          "code.fork-bomb")]
        findings.extend(f.attributed(where) for f in found if f is not None)
        attribute_effects(run.result.effects, effects, where)
    return findings


MAX_MODULES = 16  # project modules a command's programs import, judged (each once)


def _import(run: "Run", inv: "Invocation", action: Action, origin: "Origin") -> None:
    """`import helpers`, `from .tasks import clean`: the project's own modules run when imported (and
    what they define may run): each is judged once, as a Python file."""
    script = inv.scope.variables.get("0", "")
    dotted = action.value or ""
    level = len(dotted) - len(dotted.lstrip("."))
    module = dotted.lstrip(".").replace(".", "/")
    here = posixpath.dirname(script) if script else inv.scope.cwd
    if not here:
        return
    if level:
        for _ in range(level - 1):
            here = posixpath.dirname(here)
        bases = [here]
    elif inv.scope.facts.get(SAFE_PATH):
        return  # python3 -P: an absolute import comes from the installed packages, not the script's directory
    else:
        cwd = inv.scope.cwd or here
        bases = list(dict.fromkeys([here, cwd, posixpath.join(cwd, "src")]))
    names = [n for n in action.detail.split(",") if n and n != "*"]
    for base in bases:
        target = posixpath.join(base, module) if module else base
        candidates = [target + ".py", posixpath.join(target, "__init__.py")] if module else []
        candidates += [posixpath.join(target, n + ".py") for n in names]
        for file in candidates:
            if file in run.modules or file == script or len(run.modules) >= MAX_MODULES or not os.path.isfile(file):
                continue
            run.modules.add(file)
            run.project_file(file, inv.__class__("python3", [], inv.cmd, inv.scope, inv.privileged, "python3"),
                             "python3", label=f"import {dotted}")
        if any(os.path.isfile(c) for c in candidates):
            return


def _python_runs(run: "Run", inv: "Invocation", action: Action, origin: "Origin", what: str) -> list[Finding]:
    """A program the Python code starts: its command line judged as the shell would judge it."""
    scope = inv.scope.copy()
    if action.cwd and not action.cwd.startswith(DYN):
        scope.cwd = action.cwd if action.cwd.startswith("/") else posixpath.normpath(
            posixpath.join(scope.cwd or "/", action.cwd)) if scope.cwd else None
    if action.kind == "shell":
        command = action.value or DYN
        if command.startswith(DYN) and not command.strip(DYN).strip():
            return [ask(f"{what} runs a shell command built at run time", "dynamic-exec", BlastRadius.HIGH,
                        "code.shell")]
        run.nested(command.replace(DYN, UNKNOWN_WORD), inv, f"{what} → shell", scope, origin)
        return []
    argv = action.argv or (None,)
    if argv[0] is None:
        return [ask(f"{what} runs a program known only at run time", "dynamic-exec", BlastRadius.HIGH, "code.shell")]
    words = [shlex.quote(w) if w is not None else UNKNOWN_WORD for w in argv]
    run.nested(" ".join(words), inv, f"{what} → {posixpath.basename(argv[0])}", scope, origin)
    return []


def _python_send(action: Action, secret_files: set, what: str) -> Finding:
    target = f" to {action.value}" if action.value and DYN not in action.value else " to a remote host"
    stolen = _secret_sources(action.sources, secret_files, env_names=False)
    if stolen:
        return deny(f"{what} sends {stolen}{target}", "secrets", "code.exfiltration")
    token = _secret_sources(action.sources, secret_files, env_names=True)
    if token:
        return ask(f"{what} sends {token}{target}", "network", BlastRadius.HIGH, "code.network-send")
    if action.value and re.match(r"(?i)^\w+://(localhost|127\.\d+\.\d+\.\d+|\[::1\]|0\.0\.0\.0)(:\d+)?(/|$)",
                                 action.value):
        return allow(f"{what} sends data to a local server", "network", rule="code.network-local")
    return ask(f"{what} sends data{target}", "network", BlastRadius.MEDIUM, "code.network-send")


def _secret_sources(sources: frozenset, secret_files: set, env_names: bool) -> str:
    """What secret a value carries: a secret file's path, the whole environment, or (env_names) a
    secret variable's name; "" when none."""
    for source in sorted(sources):
        kind, _, name = source.partition(":")
        if kind == "file" and name in secret_files:
            return name
        if source == "environ":
            return "the environment (tokens and all)"
    if env_names:
        for source in sorted(sources):
            kind, _, name = source.partition(":")
            if kind == "env" and re.fullmatch(_SECRET_NAME, name or ""):
                return "$" + name
    return ""


def _secret_path(run: "Run", inv: "Invocation", path: str) -> bool:
    info = run.path(_path_word(path, inv.scope.home), inv)
    home = inv.scope.home
    return bool(info.path) and (is_secret(info.path, home, run.tax, home_only=True) or
                                is_secret_area(info.path, home, run.tax) or _project_secret(inv, info.path))


def _project_secret(inv: "Invocation", path: str) -> bool:
    """A secret by name whose reading asks (one in the project holding credentials, one outside it)."""
    return not inv.scope.remote and reads_secret(path, inv.scope.home, inv.scope.project or inv.scope.cwd)


def _known(value: str | None) -> str | None:
    """A path from pycode: None when nothing of it is known; unknown parts stay DYN."""
    return value if value and value.strip(DYN) else None


SAFE_PATH = "python-safe-path"  # scope fact: python -P/-I, the script's directory is not on sys.path
_CHILD_PROCESS = re.compile(r"child_process|\bexeca\b|\bzx\b|\bshelljs\b|Bun\.spawn|Deno\.(?:run|Command)|\$`")
# in a whole file these heuristics fire on ordinary code (`regex.exec(s)`, `dict.update(…)`, any POST):
# they are kept for one-liners, where the code is the point, and dropped for the project's own files
_NOISY_IN_FILES = frozenset({"code.eval", "code.orm-write", "code.network-send", "code.secret-print", "code.shell",
                             "code.opaque"})


def _code_file(run: "Run", inv: "Invocation", text: str, language: str, origin: "Origin") -> list[Finding]:
    """A JavaScript, Ruby, Perl or PHP file (or Python that does not parse as Python 3): the
    one-liner analysis over the whole file, keeping what it says precisely."""
    path = inv.scope.variables.get("0", "")
    if language == "js" and path:  # __dirname is the script's own directory
        directory = posixpath.dirname(path)
        text = re.sub(r"\b__dirname\b|\bimport\.meta\.dirname\b", json.dumps(directory), text)
        text = re.sub(r"\b__filename\b|\bimport\.meta\.filename\b", json.dumps(path), text)
    before = len(run.result.findings)
    findings = code_findings(run, inv, Word.literal(text), language)
    shells = language != "js" or _CHILD_PROCESS.search(text) is not None
    if path:
        _local_requires(run, inv, text, language, posixpath.dirname(path))
    for i in range(before, len(run.result.findings)):  # commands the code runs, found by code_findings
        f = run.result.findings[i]
        run.result.findings[i] = f.attributed(origin.at(_line_in(text, f.segment) - 1))
    kept = []
    for f in findings:
        if f.rule in _NOISY_IN_FILES and f.verdict is not Verdict.DENY and not (f.rule == "code.shell" and shells):
            continue
        target = _target_in(f.reason)
        line = _line_in(text, target + "(") if target and target + "(" in text else _line_in(text, target)
        kept.append(f.attributed(origin.at(line - 1)))
    return kept


_REQUIRES = {
    "js": re.compile(r"""(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|^\s*import\s+)['"](\.{1,2}/[^'"]+)['"]""", re.M),
    "ruby": re.compile(r"""\b(?:require_relative|load)\s*\(?\s*['"]([^'"]+)['"]"""),
    "php": re.compile(r"""\b(?:require|include)(?:_once)?\s*\(?\s*(?:__DIR__\s*\.\s*)?['"](\.?/?[^'"]+\.php)['"]"""),
}
_SUFFIXES = {"js": ("", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx", ".jsx", "/index.js", "/index.ts",
                    "/index.mjs"),
             "ruby": ("", ".rb"), "php": ("",)}
_RUNNER_FOR = {"js": "node", "ruby": "ruby", "php": "php"}


def _local_requires(run: "Run", inv: "Invocation", text: str, language: str, directory: str) -> None:
    """`require('./helpers')`, `require_relative 'tasks'`: the project's own files a program loads run
    with it; each is judged once."""
    pattern = _REQUIRES.get(language)
    if pattern is None:
        return
    for m in pattern.finditer(text):
        base = posixpath.normpath(posixpath.join(directory, m.group(1).lstrip("/") if language == "php"
                                                 else m.group(1)))
        for suffix in _SUFFIXES[language]:
            file = base + suffix
            if os.path.isfile(file):
                if file not in run.modules and len(run.modules) < MAX_MODULES:
                    run.modules.add(file)
                    runner = _RUNNER_FOR[language]
                    run.project_file(file, inv.__class__(runner, [], inv.cmd, inv.scope, inv.privileged, runner),
                                     runner, label=f"loads {m.group(1)}")
                break


def _line_in(text: str, needle: str) -> int:
    """The line `needle` is on; else the line of its longest tail after a `/` (a path built in parts)."""
    needle = needle.strip()
    while needle:
        index = text.find(needle)
        if index >= 0:
            return text.count("\n", 0, index) + 1
        needle = needle.partition("/")[2] if "/" in needle else ""
    return 1


def _target_in(reason: str) -> str:
    """What a one-liner finding names, to find its line: the call (`node: fs.rmSync dist …`), else the
    path it reads or sends (`node sends ~/.ssh/id_ed25519 …`)."""
    m = re.match(r"[\w.-]+: ([\w.$]+)", reason)
    if m:
        return m.group(1)
    m = re.search(r"(?:sends|reads|prints|writes|deletes) (\S+)", reason)
    return m.group(1).lstrip("~$") if m else ""


# Typing into a terminal from code: the TIOCSTI ioctl pushes characters into a terminal's input, as if typed
_TIOCSTI = re.compile(r"\bTIOCSTI\b|\b0x5412\b|\b21522\b")
_KEYSTROKES = re.compile(r"\bkeystroke\b|\bkey code\b", re.I)  # AppleScript's System Events typing


def _terminal_input(inv: "Invocation", code: str, language: str, typing: tuple = ()) -> list[Finding]:
    typed = next((m for rx in typing if (m := rx.search(code))), None)
    if typed is not None:  # taxonomy typing_code: AT-SPI, pynput, pyautogui, XTest, uinput…
        return [deny(f"{inv.name} code synthesises keystrokes ({typed.group(0)[:40].strip()}) into the focused window: "
                     "typed into guardtui's console, they would answer a waiting call as if you had", "terminal-input",
                     "code.keystroke")]
    if _TIOCSTI.search(code) and re.search(r"ioctl", code):
        return [deny(f"{inv.name} pushes keystrokes into a terminal (TIOCSTI): typed into guardtui's console, they "
                     "would answer a waiting call as if you had", "terminal-input", "code.tiocsti")]
    if language == "applescript" and _KEYSTROKES.search(code):
        return [deny(f"{inv.name} types keystrokes into another application: typed into guardtui's console, they "
                     "would answer a waiting call as if you had", "terminal-input", "code.keystroke")]
    return []


# importing guardtui, or running its modules by name (runpy.run_module('guardtui'), importlib, __import__)
_GUARDTUI_IMPORT = re.compile(r"\b(?:from\s+guardtui\b|import\s+guardtui\b|require\(['\"]guardtui)|"
                              r"\b(?:run_module|run_path|import_module|__import__|find_spec)\s*\(\s*['\"]guardtui\b")
_GUARDTUI_METADATA = frozenset({"__file__", "__path__", "__version__", "__name__", "__spec__"})
_GUARDTUI_CHANGES = re.compile(r"\b(?:trust|store_trust|vouch|install|uninstall|remove_ours|write_text|dump)\b")


def _guardtui_code(inv: "Invocation", code: str) -> list[Finding]:
    """Code that imports guardtui can do what its commands do, without them."""
    if not _GUARDTUI_IMPORT.search(code):
        return []
    uses = set(re.findall(r"\bguardtui\s*\.\s*(\w+)", code))
    # the module handed to inspect only to say where it is (inspect.getsourcefile(guardtui)): a metadata use
    located = re.sub(r"\binspect\s*\.\s*(?:getsourcefile|getfile|getmodule|getmodulename)\s*\(\s*guardtui\s*\)",
                     "guardtui.__file__", code)
    uses |= set(re.findall(r"\bguardtui\s*\.\s*(\w+)", located))
    bare = re.sub(r"\bimport\s+guardtui\b|\bguardtui\s*\.\s*\w+", "", located)
    if uses and uses <= _GUARDTUI_METADATA and not re.search(r"\bguardtui\b", bare) and \
            not re.search(r"\bfrom\s+guardtui\b|\bimport\s+guardtui\.", code):
        return []  # print(os.path.dirname(guardtui.__file__)): where it is installed, or its version
    argv = re.search(r"\bsys\.argv\s*=\s*\[([^\]]*)\]", code) if re.search(r"\brun_(?:module|path)\b", code) else None
    words = re.findall(r"""['"]([^'"]*)['"]""", argv.group(1)) if argv else []
    if words and posixpath.basename(words[0]) == "guardtui" and not re.search(r"\bsys\.argv\s*(?:\+=|\.|\[)", code):
        # runpy.run_module('guardtui') with sys.argv set: `guardtui ARGS`, judged as that command
        return judge_guardtui([Word.literal(w) for w in words[1:]], f"{inv.name} runpy guardtui")
    if _GUARDTUI_CHANGES.search(code):
        return [deny(f"{inv.name} runs guardtui's own code to change the guard (trust, install, its files): an "
                     "agent may not; if you mean it, run it yourself in a terminal", "guard-self", "code.guardtui")]
    return [ask(f"{inv.name} runs guardtui's own code", "guard-self", BlastRadius.HIGH, "code.guardtui")]


# APIs that take a path away, or change what or where it is (any language): with one of these anywhere in the
# code, a path named in it may be changed (the protection rule then judges each path it names)
_REMOVING_API = re.compile(
    r"\bos\.replace\s*\(|\)\.replace\s*\(\s*(?:['\"]?/|Path)|"
    r"\b(?:rename|renames|renameSync|move|unlink|unlinkSync|remove|removedirs|rmdir|rmdirSync|rmtree|"
    r"rm_rf|rm_r|rm_f|rmSync|rm|chmod|chmodSync|lchmod|chown|chownSync|lchown|chflags|symlink|symlinkSync|link|"
    r"linkSync|hardlink_to|symlink_to|mv|truncate|truncateSync|utime|removeSync|file\.rename|file\.remove|"
    r"remove_file|remove_dir|remove_dir_all|set_permissions|"
    r"deleteFile|deleteFileAbsolute|deleteTree|deleteTreeAbsolute|deleteDir|deleteDirAbsolute|"  # Zig's std.fs
    r"removeFile|removeDir|rmFile|rmDir|RemoveAll|deleteIfExists|deleteRecursively|removeDirectoryRecursive|"
    r"removePathForcibly)!?\s*\(|\bFiles\.delete\s*\(|"
    # xmake's os.tryrm, Mill's os.remove.all, Swift's FileManager removeItem/trashItem, Dart's deleteSync, the
    # JVM's File(…).delete(), Crystal's File.delete / FileUtils.rm_rf
    r"\b(?:tryrm|trashItem|removeItem|deleteSync|remove_all|rm_rf)\s*\(|\bremove\.all\s*\(|\.delete\s*\(|"
    # Clojure's (fs/delete-if-exists …), (babashka.fs/delete-tree …), (io/delete-file …)
    r"\(\s*(?:[\w.]+/)?(?:delete-if-exists|delete-tree|delete-file|delete-on-exit|delete)\s|"  # Elixir's File.rm_rf!(…) raises instead of returning
    r"\bfile\s+(?:delete|rename|link)\b", re.I)  # … and Tcl's `file delete PATH`
_WRITING_API = re.compile(
    r"\bopen\s*\([^,)]*,\s*(?:mode\s*=\s*)?['\"][^'\"]*[wax+][^'\"]*['\"]|"
    r"\b(?:write_text|write_bytes|writeFile|writeFileSync|"
    r"appendFile|appendFileSync|createWriteStream|file_put_contents|touch|mkdir|makedirs|mkdirSync|copy|copy2|"
    r"copyfile|copytree|copyFile|copyFileSync|cpSync|cp_r|cp|install|syswrite|print\s+\$?\w+|"
    r"File\.(?:write|open)|IO\.write|bind|writeTextFile|writeTextFileSync|writeFileStr|writeLines|write\.\w+|"
    r"saveRDS|save|sink|file\.(?:copy|create|append)|io\.output|fs::write|File::create|OpenOptions::new)!?\s*\(|"
    r">>?\s*['\"]|\bsysopen\b|"
    # open(…, 'w') with calls inside its path (Lua's io.open(os.getenv("HOME")..'/x', 'w')), Julia's and
    # Lua's bare write(PATH, …), R's cat(…, file = PATH), Tcl's `open PATH w` and `file copy`
    r"\bopen\s*\((?:[^()]|\([^()]*\))*?,\s*(?:mode\s*=\s*)?['\"][rbt]*[wax+]|(?<![.\w:])write\s*\(|"
    r"\bcat\s*\([^)]*\bfile\s*=|\bopen\s+\S+\s+[wa]\+?\b|\bfile\s+(?:copy|mkdir)\b", re.I)
_DB_OPEN = re.compile(r"\b(?:sqlite3\.connect|dbm\.open|shelve\.open|SQLite3::Database\.new|"
                      r"new\s+(?:sqlite3\.)?Database)\s*\(")
_MAX_LITERALS = 200
# holding a lock on a file blocks its owner as surely as changing it (the guard's audit database, stalled)
_DB_LOCK = re.compile(r"(?i)^\s*(begin\s+(exclusive|immediate)|pragma\s+(\w+\.)?(locking_mode|journal_mode|"
                      r"writable_schema|user_version)\s*=|vacuum\b|reindex\b)")
_LOCKING_API = re.compile(r"\b(?:fcntl\s*\.\s*(?:flock|lockf|fcntl)|flock|lockf|portalocker|FileLock|"
                          r"lockfile)\s*\(|\.lock\s*\(\s*\)|\bF_SETLKW?\b")


def _mentioned_paths(run: "Run", inv: "Invocation", code: str, recorded_from: int) -> None:
    """Every path the code names (string literals, and runs of them joined: Path.home() / '.claude' /
    'settings.json'): read, and, when the code uses an API that writes, removes, renames, links or
    changes permissions anywhere, possibly changed. Recorded as effects the protection rule reads
    (`detail` "mentioned": the working-directory and sensitive-file rules leave them alone)."""
    literals = [_unescape(m.group("s")) for m in re.finditer(_STR, code)][:_MAX_LITERALS]
    # '/../' joined to __DIR__ is a step up from the script, not the root: bare slashes and dots name no path
    literals = [lit for lit in literals if lit and DYN not in lit and "\n" not in lit and len(lit) < 512 and
                not re.fullmatch(r"[./]*", lit)]
    scan = code_scan()
    home_named = bool(_HOME_IN_CODE.search(code) or scan.home.search(code))
    if home_named:  # format!("{}/.codex/hooks.json", home), "%s/.claude" % home: the home's
        literals += [re.sub(r"^(?:\{\w*\}|%s)(?=/)", "~", lit) for lit in literals
                     if re.match(r"(?:\{\w*\}|%s)/", lit)]
        literals += bare_path_pieces(code)  # Tcl's `file join $env(HOME) .config guardtui guards`
    # bare words that are paths (Tcl's `file delete ~/.x`, `open $env(HOME)/.x w`)
    literals += [re.sub(r"^\$(?:env\(HOME\)|\{?HOME\}?)", "~", m.group(1)) for m in re.finditer(
        r"(?:^|(?<=[\s\[{]))((?:~|\$env\(HOME\)|\$\{?HOME\}?)/[\w./~-]+)", code)][:32]
    # and the paths the code computes from them (`p = os.path.join(home, '.' + 'clau' + 'de', …)`)
    literals += [v for k, v in inv.scope.variables.items() if k.startswith("py:") and v.startswith(("~", "/"))
                 and DYN not in v and "${" not in v][:16]
    if not literals:
        return
    removing = bool(_REMOVING_API.search(code) or scan.deletes.search(code))
    # a database opened from code and a statement that changes it: the file it opens is written
    database_write = bool(_DB_OPEN.search(code)) and any(classify_sql(lit) or _DB_LOCK.match(lit) for lit in literals)
    writing = removing or database_write or bool(_WRITING_API.search(code)) or bool(_LOCKING_API.search(code)) or \
        bool(scan.writes.search(code))
    bases = [inv.scope.cwd] if inv.scope.cwd else []
    if home_named:
        bases.append(inv.scope.home)
    done = {e.path for e in run.result.effects[recorded_from:]}
    seen: set[str] = set()
    for i in range(len(literals)):
        for j in range(i + 1, min(i + 5, len(literals) + 1)):
            joined = "/".join(part.strip("/") if k else part.rstrip("/") for k, part in enumerate(literals[i:j]))
            if not joined or not re.search(r"[\w.]", joined):
                continue
            paths = []
            if joined.startswith("~"):
                paths.append(inv.scope.home.rstrip("/") + joined[1:])
            elif joined.startswith("/"):
                paths.append(joined)
                if joined.startswith("/.") and inv.scope.home in bases:  # getenv('HOME') . '/.config/…'
                    paths.append(inv.scope.home.rstrip("/") + joined)
            else:
                paths.extend(b.rstrip("/") + "/" + joined for b in bases)
            for path in paths:
                path = posixpath.normpath(path)
                if path in seen or path in done:
                    continue
                seen.add(path)
                run.effect(path, literals[i], "read", inv.cmd)
                if writing:
                    run.effect(path, literals[i], "move" if removing else "write", inv.cmd, recursive=removing,
                               detail="mentioned")


def _data_flow(run: "Run", inv: "Invocation", code: str) -> list[Finding]:
    """Secrets read, printed or sent from code: the same lines the shell draws for cat and curl."""

    home = inv.scope.home
    secrets: list[str] = []
    for pattern in _FILE_READS:
        for m in re.finditer(pattern + r"(?=\s*\()(?=(?P<rest>.*))", code, re.S):
            target = _first_argument(m.group("rest"), scope=inv.scope)
            if target:
                info = run.path(_path_word(target, home), inv)
                if info.path and (is_secret(info.path, home, run.tax, home_only=True) or
                                  is_secret_area(info.path, home, run.tax) or _project_secret(inv, info.path)):
                    secrets.append(target)
    secrets += [_unescape(m.group("s")) for m in _PATH_READ.finditer(code)
                if (info := run.path(_path_word(_unescape(m.group("s")), home), inv)).path
                and (is_secret(info.path, home, run.tax, home_only=True) or _project_secret(inv, info.path))]
    if any(re.search(pattern + r"\s*\(", code) for pattern in _FILE_READS):
        secrets += _home_secrets_named(run, inv, code)
    env_dump = bool(_ENV_DUMP.search(code))
    secret_env = [m.group(1) for m in _SECRET_ENV.finditer(code)]
    if _NET_SENDS.search(code):
        if secrets or env_dump:
            what = secrets[0] if secrets else "the environment (tokens and all)"
            return [deny(f"{inv.name} sends {what} to a remote host", "secrets", "code.exfiltration")]
        if secret_env:
            return [ask(f"{inv.name} sends data, with ${secret_env[0]} at hand, to a remote host", "network",
                        BlastRadius.HIGH, "code.network-send")]
        return [ask(f"{inv.name} sends data to a remote host", "network", BlastRadius.MEDIUM, "code.network-send")]
    if secrets:
        return [ask(f"{inv.name} reads {secrets[0]}, a secret (keys or credentials)", "sensitive-read",
                    BlastRadius.MEDIUM, "code.secret-read")]
    if (secret_env or env_dump) and _PRINTS.search(code):
        what = f"${secret_env[0]}" if secret_env else "the whole environment"
        return [ask(f"{inv.name} prints {what}", "sensitive-read", BlastRadius.LOW, "code.secret-print")]
    return []


_HOME_IN_CODE = re.compile(r"\bhomedir\s*\(|\bPath\.home\s*\(|expanduser\s*\(|\bos\.homedir\b|\$HOME\b|"
                           r"\bENV\[\s*['\"]HOME|getenv\s*\(\s*['\"]HOME|environ(?:\.get)?\s*[\[(]\s*['\"]HOME|"
                           r"\bDir\.home\b|System\.user_home|\bhome_dir\b|\bvar(?:_os)?\s*\(\s*\"HOME\"|"
                           r"getEnvVarOwned\s*\([^)]*\"HOME\"|\bgetHomeDir\s*\(|getEnv\s*\(\s*['\"]HOME|"
                           # Go's os.UserHomeDir(), the JVM's user.home property, Haskell's getHomeDirectory
                           r"\bUserHomeDir\s*\(|[\"(]user\.home\"|\bgetHomeDirectory\b|"
                           # Scala's os-lib (Mill) os.home, Swift's NSHomeDirectory() and homeDirectoryForCurrentUser
                           r"\bos\.home\b|\bNSHomeDirectory\s*\(|\bhomeDirectoryForCurrentUser\b")
_LITERAL = re.compile(r"""(['"`])((?:~/|\.)[\w.@+/-]{2,200})\1""")


def _home_secrets_named(run: "Run", inv: "Invocation", code: str) -> list[str]:
    """Secret files a program names under the home directory, the path built from parts
    (`join(homedir(), '.npmrc')`, `Path.home() / '.aws' / 'credentials'`): it reads files, so these."""
    home = inv.scope.home.rstrip("/")
    joins = _HOME_IN_CODE.search(code) is not None
    literals = [m.group(2) for m in _LITERAL.finditer(code)]
    found = []
    for literal in literals:
        if literal.startswith("~/"):
            path = home + literal[1:]
        elif joins and literal.startswith("."):
            path = home + "/" + literal
        else:
            continue
        if is_secret(path, home, run.tax, home_only=True) or is_secret_area(path, home, run.tax):
            found.append(literal)
    return found


def _decoded_code(code: str) -> str | None:
    m = _ENCODED_CODE.search(code)
    if m is None:
        return None
    import base64
    import binascii

    try:
        text = base64.b64decode("".join(m.group("b").split()), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return text if text.isprintable() or "\n" in text else None


def _enumerated_deletes(run: "Run", inv: "Invocation", code: str) -> list[Finding]:
    """Deletes of computed paths inside a walk or listing: the walked tree or the listed directory.
    A name filter (`rglob('*.pyc')`, `if f.endswith(...)`) makes it `find ROOT -name … -delete`."""
    findings = []
    filtered_in_code = bool(re.search(r"\bif\b|endswith|startswith|fnmatch|\.match\(|\.suffix|filter|\.test\(|=~", code))
    for patterns, recursive in ((_TREE_WALKS, True), (_DIR_LISTINGS, False)):
        for pattern in patterns:
            for m in re.finditer(pattern + r"(?=(?P<rest>.*))", code, re.S):
                root = _first_argument(m.group("rest"), scope=inv.scope)
                if root == "" and not m.group("rest").lstrip().startswith("("):
                    continue
                root = (root or ".") if root is not None else None
                head = _name(m.group(0))
                what = f"{inv.name}: deleting what {head} finds in"
                glob = re.match(r"\s*\([^)]*\)\s*\.(?:r?glob|walk)\s*\(\s*" + _STR, m.group("rest"))
                name_filter = glob and _unescape(glob.group("s")).lstrip("*/") not in ("", ".*")
                if name_filter or filtered_in_code:
                    findings.extend(find_delete(run, inv, [_path_word(root, inv.scope.home)], True,
                                                 f"{inv.name}: {head}"))
                    continue
                if root is not None and not recursive:
                    root = root.rstrip("/") + "/*"
                findings.append(run.delete(_path_word(root, inv.scope.home), inv, recursive, what))
    return findings


def _first_argument(rest: str, allow_glob_call: bool = False, scope=None, argv: bool = False) -> str | None:
    """The first argument of a call as text: "" when there is no call, None when it is not knowable.

    Literals, concatenations of literals and the usual spellings of the home and working
    directories (os.path.expanduser('~'), process.env.HOME, os.getcwd(), Dir.home, …) are knowable."""
    rest = rest.lstrip()
    if rest.startswith("(") and re.match(r"\(\s*\[", rest):  # a list of literals: (["rm", "-rf", "/"])
        body = rest[: rest.find("]") + 1] if "]" in rest else rest
        items = [_unescape(s) for _, s in re.findall(_STR, body)]
        bare = re.sub(_STR, "", body[body.find("[") + 1: -1])
        if items and not re.search(r"[A-Za-z_]", bare):
            return shlex.join(items)
        return None
    args = _call_arguments(rest)
    if args is None:
        return ""
    if not args:
        return ""
    first = args[0]
    if allow_glob_call:
        first = re.sub(r"^glob\s*\(?\s*|\)$", "", first) if first.startswith("glob") else first
    value = evaluate_expression(first, scope)
    if value is not None and len(args) > 1 and re.match(r"\s*\[", args[1]):  # spawn("rm", ["-rf", "/"])
        items = [_unescape(s) for _, s in re.findall(_STR, args[1])]
        value = shlex.join([value] + items)
    elif argv and value is not None and len(args) > 1:  # a shell call: its words after the program
        extra = [a for a in args[1:] if not _KEYWORD_ARGUMENT.match(a)]
        if extra and evaluate_expression(extra[0], scope) is not None:
            # Ruby's and Perl's system("prog", "arg", …): a program and its argv, no shell line; a word known only
            # at run time stays an unknown word
            known = [evaluate_expression(a, scope) for a in extra]
            value = " ".join([_argv_word(value)] + [_argv_word(k) if k is not None else '"$code_argument"'
                                                    for k in known])
    return value


def _argv_word(value: str) -> str:
    """One argv word as shell text; the home as code spells it (File.expand_path("~/x")) stays the home."""
    if value == "~" or value.startswith("~/"):
        return "~" + (shlex.quote(value[1:]) if value[1:] else "")
    return shlex.quote(value)


_KEYWORD_ARGUMENT = re.compile(r"\s*(?:\w+\s*(?::(?!:)|=(?!=))|:\w+\s*=>)")  # out: File::NULL, shell=True, :err => …


def _scan(text: str):
    """Yield (index, char, depth) for characters outside quotes; depth counts open brackets."""
    depth, quote, i = 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"`":
            quote = ch
        else:
            if ch in ")]}":
                depth -= 1
            yield i, ch, depth
            if ch in "([{":
                depth += 1
        i += 1


def _call_arguments(rest: str) -> list[str] | None:
    """Top-level arguments of a call starting at `rest` (`(a, b)` or perl's bare `a, b;`); None: no call."""
    if rest.startswith("("):
        out, start = [], 1
        for i, ch, depth in _scan(rest):
            if ch == ")" and depth == 0:
                out.append(rest[start:i].strip())
                return [a for a in out if a]
            if ch == "," and depth == 1:
                out.append(rest[start:i].strip())
                start = i + 1
        return None
    m = re.match(r"([^;\n]+)", rest)  # perl/ruby without parentheses: system "rm -rf /";
    if m is None or not re.match(r"\s*(['\"`]|glob|\$ENV|ENV|Dir|File)", m.group(1)):
        return None
    return [m.group(1).split(",")[0].strip()]


_HOME_EXPRESSIONS = re.compile(
    r"^(?:(?:require\(\s*['\"]os['\"]\s*\)|os)\.homedir\(\)|process\.env\.HOME|process\.env\[['\"]HOME['\"]\]|"
    r"os\.environ\[['\"]HOME['\"]\]|os\.environ\.get\(\s*['\"]HOME['\"]\s*\)|os\.getenv\(\s*['\"]HOME['\"]\s*\)|"
    r"(?:pathlib\.)?Path\.home\(\)|ENV\[['\"]HOME['\"]\]|ENV\.fetch\(\s*['\"]HOME['\"]\s*\)|Dir\.home|"
    r"\$ENV\{\s*['\"]?HOME['\"]?\s*\}|Deno\.env\.get\(\s*['\"]HOME['\"]\s*\)|\$_SERVER\[['\"]HOME['\"]\]|"
    r"(?:getenv|getEnv)\(\s*['\"]HOME['\"]\s*\)|Sys\.getenv\(\s*['\"]HOME['\"]\s*\)|path\.expand\(\s*['\"]~['\"]\s*\)|"
    # the JVM's (Java, Scala, Kotlin, Clojure's interop) and Go's spellings
    r"(?:System\.)?getProperty\(\s*\"user\.home\"\s*\)|sys\.props\(\s*\"user\.home\"\s*\)|System\.getenv\(\s*\"HOME\"\s*\)|"
    r"os\.Getenv\(\s*\"HOME\"\s*\))$")
_ENV_READ = re.compile(r"os\.environ\[\s*['\"](\w+)['\"]\s*\]|os\.environ\.get\(\s*['\"](\w+)['\"][^)]*\)|"
                       r"os\.getenv\(\s*['\"](\w+)['\"][^)]*\)|process\.env\.(\w+)|process\.env\[['\"](\w+)['\"]\]|"
                       r"ENV\[['\"](\w+)['\"]\]|ENV\.fetch\(\s*['\"](\w+)['\"][^)]*\)|\$ENV\{\s*['\"]?(\w+)['\"]?\s*\}|"
                       r"getenv\(\s*['\"](\w+)['\"]\s*\)|Deno\.env\.get\(\s*['\"](\w+)['\"]\s*\)")
_TEMP_EXPRESSIONS = re.compile(r"^(?:tempfile\.(?:mkdtemp|gettempdir|mkstemp)\([^)]*\)|(?:fs\.)?mkdtempSync\([^)]*\)|"
                               r"os\.tmpdir\(\)|Dir\.mktmpdir(?:\([^)]*\))?|tempdir\(\)|sys_get_temp_dir\(\)|tempdir\(\))$")
_CWD_EXPRESSIONS = re.compile(r"^(?:os\.getcwd\(\)|process\.cwd\(\)|Dir\.pwd|(?:pathlib\.)?Path\.cwd\(\)|"
                              r"(?:Cwd::)?getcwd\(\)|Deno\.cwd\(\)|getcwd\(\))$")


def evaluate_expression(expr: str, scope=None) -> str | None:
    """A path or command string from code, when knowable: literals joined with + or . or
    os.path.join, ~ expanded, home and cwd expressions resolved. None when not knowable."""
    expr = expr.strip()
    join = re.fullmatch(r"(?:os\.path\.join|path\.join|path\.resolve|File\.join|(?:pathlib\.)?Path)\((.*)\)", expr,
                        re.S)
    if join:
        parts = _call_arguments("(" + join.group(1) + ")") or []
        values = [evaluate_expression(p, scope) for p in parts]
        if not values or any(v is None for v in values):
            return None
        out = values[0]
        for v in values[1:]:
            out = v if v.startswith("/") else out.rstrip("/") + "/" + v
        return out
    expand = re.fullmatch(r"(?:os\.path\.expanduser|File\.expand_path|Path\((.*)\)\.expanduser)\((.*)\)", expr, re.S)
    if expand:
        inner = evaluate_expression(expand.group(2) or expand.group(1) or "", scope)
        return inner
    pieces = _split_concatenation(expr)
    if pieces is None:
        return None
    out = []
    for piece in pieces:
        m = re.fullmatch(_STR, piece, re.S)
        if m:
            text = _unescape(m.group("s"))
            if m.group("q") == "`" and "${" in text:  # a template literal: `${os.homedir()}/.x`
                text = re.sub(r"\$\{([^}]*)\}", lambda i: "~" if _HOME_EXPRESSIONS.match(i.group(1).strip())
                              else DYN, text)
                if DYN in text:
                    return None
            if m.group("q") == '"' and "#{" in text:  # Ruby interpolation: "rm -rf #{ENV['HOME']}/x"
                text = re.sub(r"#\{([^}]*)\}", lambda i: "~" if _HOME_EXPRESSIONS.match(i.group(1).strip())
                              else DYN, text)
            if m.group("q") == '"' and "$ENV{" in text:  # Perl interpolation: "$ENV{HOME}/.config"
                text = re.sub(r"\$ENV\{\s*['\"]?HOME['\"]?\s*\}", "~", text)
            out.append(text)
        elif _HOME_EXPRESSIONS.match(piece):
            out.append("~")
        elif re.fullmatch(r"getHomeDir\(\)|os\.getHomeDir\(\)", piece):  # Nim's: the home with its trailing slash
            out.append("~/")
        elif (env := _ENV_READ.fullmatch(piece)) is not None:  # os.environ['XDG_RUNTIME_DIR']: a run-time part
            out.append("${" + next(g for g in env.groups() if g) + "}")
        elif _CWD_EXPRESSIONS.match(piece):
            out.append(scope.cwd if scope is not None and scope.cwd else ".")
        elif _TEMP_EXPRESSIONS.match(piece):
            out.append(MKTEMP_PREFIX + "code")
        elif scope is not None and re.fullmatch(r"\$?[A-Za-z_]\w*", piece) and \
                ("py:" + piece.lstrip("$")) in scope.variables:
            out.append(scope.variables["py:" + piece.lstrip("$")])
        elif len(pieces) > 1 and (value := evaluate_expression(piece, scope)) is not None:
            out.append(value)
        else:
            return None
    text = "".join(out)
    return text


_BASE64_CALL = re.compile(r"""^\s*\(?\s*(?:[\w.]*b64decode|atob|Buffer\.from|Base64\.decode64|base64_decode|"""
                          r"""decode_base64)\s*\(\s*[bB]?(['"])([A-Za-z0-9+/=\s]+)\1""")


_HEX_CALL = re.compile(r"""^\s*\(?\s*(?:pack\s*\(?\s*(['"])H\*\1\s*,\s*|(?:bytes\.fromhex|unhexlify|hex2bin)\s*\(\s*"""
                       r"""[bB]?)(?:['"])([0-9a-fA-F]{2,})['"]""")


def _decoded_argument(rest: str) -> str | None:
    """The text of a base64 or hex literal decoded as the call's first argument, when it is one."""
    import base64
    import binascii

    hexed = _HEX_CALL.match(rest)
    if hexed is not None:  # perl's pack "H*", "726d…"; bytes.fromhex("726d…").decode()
        try:
            return bytes.fromhex(hexed.group(2)).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
    m = _BASE64_CALL.match(rest)
    if m is None:
        return None
    try:
        return base64.b64decode(re.sub(r"\s", "", m.group(2)), validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _loop_values(code: str, rest: str) -> list[str] | None:
    """The strings a loop variable takes when the call's argument is one, over a literal list:
    `for p in ("/a", "/b"):`, `for (const p of ["/a"])`, `["/a"].each do |p|`, `foreach (["/a"] as $p)`."""
    m = re.match(r"\s*\(?\s*(\$?[A-Za-z_]\w*)\s*[,)]", rest)
    if m is None:
        return None
    name = re.escape(m.group(1))
    loops = (rf"\bfor\s+{name}\s+in\s+[\(\[]([^\)\]]*)[\)\]]",
             rf"\bfor\s*\(\s*(?:const|let|var|my)?\s*{name}\s+of\s+\[([^\]]*)\]",
             rf"\[([^\]]*)\]\.each\s*(?:do\s*|\{{\s*)\|{name}\|",
             rf"\bforeach\s*\(\s*\[([^\]]*)\]\s+as\s+{name}\s*\)",
             rf"\bfor(?:each)?\s+(?:my\s+)?{name}\s*\(([^\)]*)\)")
    for loop in loops:
        found = re.search(loop, code)
        if found is None:
            continue
        items = [i.strip() for i in found.group(1).split(",") if i.strip()]
        values = [re.fullmatch(_STR, i, re.S) for i in items]
        if values and all(values):
            return [_unescape(v.group("s")) for v in values if v is not None][:16]
    return None


def _split_concatenation(expr: str) -> list[str] | None:
    """a + 'b' + c  /  $x . "/y": the top-level operands, or None for anything else."""
    parts, start, skip = [], 0, -1
    for i, ch, depth in _scan(expr):
        if i <= skip:
            continue
        # `..` joins strings in Lua, ` & ` in Nim: `home .. "/x"`, `getHomeDir() & ".x"`
        wide = depth == 0 and (expr[i:i + 2] == ".." and expr[i + 2:i + 3] != "." and expr[i - 1:i] != "." or
                               ch == "&" and expr[i - 1:i] == " " and expr[i + 1:i + 2] == " ")
        if wide:
            parts.append(expr[start:i].strip())
            skip = i + (1 if ch == "." else 0)
            start = skip + 1
            continue
        # `.` joins strings in PHP and Perl: `$a . "/x"`, or unspaced between a call or string and a string
        dot = ch == "." and ((expr[i - 1:i] in (" ", "") and expr[i + 1:i + 2] == " ") or
                             (expr[i - 1:i] in (")", "'", '"') and expr[i + 1:i + 2] in ("'", '"', "$")))
        if depth == 0 and (ch == "+" or dot):
            parts.append(expr[start:i].strip())
            start = i + 1
    parts.append(expr[start:].strip())
    return [p for p in parts if p] or None


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)


def _path_word(target: str | None, home: str) -> Word:
    """A path from code as a word: unknown when not knowable, ~ meaning the home directory."""
    if target is None:
        return Word(DYN, "<a path computed at run time>")
    value = home + target[1:] if target == "~" or target.startswith("~/") else target
    if "${" in value:  # os.environ['XDG_RUNTIME_DIR'] + '/guardtui/broker.sock': placed by what is known
        return Word(re.sub(r"\$\{\w+\}", DYN, value), target)
    return Word(value, target, quoted=False, glob=any(c in target for c in "*?["))


def _name(call: str) -> str:
    return call.strip().rstrip("(").strip()


# -- databases ------------------------------------------------------------------------------
_SQL_RULES = [
    (re.compile(r"\bdrop\s+(database|schema|table|keyspace)\b", re.I), "critical", "{stmt} deletes the {obj} and all its data"),
    (re.compile(r"\btruncate\b", re.I), "critical", "TRUNCATE deletes every row of the table"),
    (re.compile(r"\bdrop\s+owned\b", re.I), "critical", "DROP OWNED deletes every object the role owns"),
    # (in a CTE too: `WITH gone AS (DELETE FROM t RETURNING 1) …`)
    (re.compile(r"\bdelete\s+from\s+(?:only\s+)?[\w.\"`\[\]]+\s*(;|$|\)|\breturning\b)", re.I), "critical",
     "DELETE without WHERE deletes every row"),
    (re.compile(r"\bdropDatabase\s*\(|\.drop\s*\(\s*\)|\.deleteMany\s*\(\s*\{\s*\}\s*\)|\.remove\s*\(\s*\{\s*\}\s*\)",
                re.I), "critical", "{stmt} deletes a whole database or collection"),
    (re.compile(r"\bupdate\s+[\w.\"`\[\]]+\s+set\b(?![^;]*\bwhere\b)", re.I), "critical",
     "UPDATE without WHERE overwrites every row"),
    (re.compile(r"\bto\s+program\b", re.I), "critical", "COPY … TO PROGRAM runs a shell command on the database "
     "server and hands it the data"),
    (re.compile(r"\bfrom\s+program\b", re.I), "high", "COPY … FROM PROGRAM runs a shell command on the database server"),
    (re.compile(r"\bpg_terminate_backend\b|\bpg_cancel_backend\b|^\s*kill\s+\d+", re.I | re.M), "medium",
     "{stmt} kills database connections"),
    (re.compile(r"\.(?:dropIndex|dropIndexes|renameCollection)\s*\(", re.I), "medium",
     "{stmt} drops an index or renames a collection"),
    (re.compile(r"\.(?:deleteMany|deleteOne|remove|findOneAndDelete|findAndModify|drop)\s*\(", re.I), "medium",
     "{stmt} deletes documents"),
    (re.compile(r"\bdrop\s+(index|view|function|procedure|trigger|user|role|sequence|column|materialized)\b", re.I),
     "high", "{stmt} drops a database object"),
    (re.compile(r"\balter\s+table\b[^;]*\bdrop\b", re.I), "high", "ALTER TABLE … DROP deletes a column or constraint"),
    # ClickHouse's mutations: they rewrite the table's data parts in the background, with no transaction to undo
    (re.compile(r"\balter\s+table\b[^;]*\b(?:delete|update)\b[^;]*\bwhere\b", re.I), "high",
     "ALTER TABLE … DELETE/UPDATE is a mutation that rewrites the table's data (no transaction undoes it)"),
    (re.compile(r"\bdelete\s+from\b", re.I), "medium", "DELETE removes rows"),
    (re.compile(r"\b(insert|update|upsert|merge|replace|alter|create|grant|revoke|copy|vacuum|reindex|cluster|"
                r"deleteOne|insertOne|insertMany|updateOne|updateMany)\b", re.I), "low", "the SQL changes data or schema"),
]


# SQL that writes or reads files on this machine (DuckDB, SQLite): COPY … TO 'f', VACUUM INTO 'f', ATTACH 'f';
# read_text('f'), read_csv('f') … (a URL there is fetched)
SQL_FILE_WRITE = re.compile(r"(?is)(?:\bcopy\b(?:\s*\((?:[^()]|\([^()]*\))*\)|\s+[\w.\"]+)\s+to|\bvacuum\s+(?:\w+\s+)?into"
                             r"|\battach(?:\s+database)?)\s+'([^']+)'")
SQL_FILE_READ = re.compile(r"(?i)\b(?:read_text|read_blob|read_csv(?:_auto)?|read_json(?:_auto)?|read_parquet|"
                            r"read_ndjson|readfile)\s*\(\s*'([^']+)'")


def _sql_files(run: "Run", inv: "Invocation", sql: str, findings: list[Finding]) -> str:
    """The files a statement writes (judged as writes: a guard file denies, one in the project allows) and reads
    (a secret asks; a URL carrying one is a send); returns the SQL without the file-writing statements, which
    change no database."""
    for m in SQL_FILE_WRITE.finditer(sql):
        target = m.group(1)
        if re.match(r"(?i)^(?:s3|gs|gcs|az|azure|https?|r2)://", target):
            sent = any(is_secret(run.path(Word.literal(p), inv).path or p, inv.scope.home, run.tax) for p in SQL_FILE_READ.findall(sql))
            findings.append(deny(f"{inv.name} copies secrets to {target}", "secrets", "sql.exfiltration") if sent else
                            ask(f"{inv.name} copies query results to {target}", "network", BlastRadius.MEDIUM,
                                "sql.copy-out"))
            continue
        written = run.write(Word.literal(target), inv, f"{inv.name} writes")
        if written is not None:
            findings.append(written)
    for path in SQL_FILE_READ.findall(sql):
        if path.rstrip().endswith("|"):  # DuckDB's shellfs: a "file" ending in | is a command whose output is read
            run.nested(path.rstrip()[:-1], inv, f"{inv.name} shellfs")
            continue
        if re.match(r"(?i)^https?://", path):
            service = metadata_service(host_of(path) or "")
            if service:  # read_text('http://169.254.169.254/…'): DuckDB's httpfs fetches the node's credentials
                findings.append(deny(f"{inv.name} reaches {service} ({path[:60]}), which hands out this machine's "
                                     "cloud credentials", "secrets", "net.metadata"))
            elif secret_catalog().credential_in(path):
                findings.append(deny(f"{inv.name} fetches {path[:60]}, a URL carrying a credential", "secrets",
                                     "sql.exfiltration"))
            continue
        local = run.path(Word.literal(path), inv).path or path
        run.read(Word.literal(path), inv)
        if is_secret(local, inv.scope.home, run.tax):
            findings.append(ask(f"{inv.name} reads {path}, a secret, into the query's output", "sensitive-read",
                                BlastRadius.MEDIUM, "sql.secret-read"))
    return without_file_writes(sql)


def without_file_writes(sql: str) -> str:
    """The SQL without its statements that only write a file (COPY … TO 'f', VACUUM INTO 'f')."""
    return re.sub(r"(?is)\b(?:copy\b(?:\s*\((?:[^()]|\([^()]*\))*\)|\s+[\w.\"]+)\s+to|vacuum\s+(?:\w+\s+)?into)"
                  r"\s+'[^']+'[^;]*;?", " ", sql)


def classify_sql(sql: str) -> tuple[str, str] | None:
    cleaned = re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)
    cleaned = re.sub(r"'(?:''|[^'])*'", "''", cleaned)
    # a transaction that is rolled back changes nothing
    cleaned = re.sub(r"\b(begin|start\s+transaction)\s*;(.*?)\brollback\s*;?", " ", cleaned, flags=re.I | re.S)
    # WHERE true / WHERE 1=1 filter nothing: read them as no WHERE at all
    _ALWAYS = r"(?:true|1|1\s*=\s*1|''\s*=\s*''|not\s+false)"
    cleaned = re.sub(r"\bwhere\s+" + _ALWAYS + r"\s*(?=;|$)", "", cleaned, flags=re.I | re.M)
    # … WHERE x OR true: the OR makes the filter pass every row
    cleaned = re.sub(r"\bwhere\b[^;]*?\bor\s+" + _ALWAYS + r"\s*(?=;|$)", "", cleaned, flags=re.I | re.M)
    # EXPLAIN only plans a statement; EXPLAIN ANALYZE runs it
    cleaned = re.sub(r"\bexplain\b(?!\s*(?:\(\s*)?analy[sz]e)[^;]*", " ", cleaned, flags=re.I)
    for pattern, radius, reason in _SQL_RULES:
        m = pattern.search(cleaned)
        if m:
            stmt = " ".join(m.group(0).split()).upper()
            obj = (m.group(1) if m.groups() and m.group(1) else "object").lower()
            return radius, reason.format(stmt=stmt, obj=obj)
    return None


_DB_HOST_OPTIONS = ("-h", "--host", "--hostname", "-H", "--server")
_LOCAL_DB = re.compile(r"^(?:localhost|127(?:\.\d+){0,3}|::1|\[::1\]|/.*|)$", re.I)


def _secret_into_remote_database(run: "Run", inv: "Invocation") -> Finding | None:
    """`psql postgres://…@db.partner.io -c "insert … '$(base64 ~/.aws/credentials)'"`: a secret a substitution
    brings into the SQL, sent to a database on another machine."""
    carrying = [w for w in inv.words if w.dynamic and ("$(" in w.raw or "`" in w.raw) and
                secret_in_text(w.raw + " " + w.origin, inv.scope)]
    if not carrying:
        return None
    hosts = [w.value for i, w in enumerate(inv.words) if i and inv.words[i - 1].value in _DB_HOST_OPTIONS]
    hosts += [w.value.partition("=")[2] for w in inv.words if w.value.partition("=")[0] in _DB_HOST_OPTIONS[1:]]
    hosts += [host_of(w.value) or "" for w in inv.words if re.match(r"(?i)^[a-z][a-z0-9+.-]*://", w.value)]
    remote = [h for h in hosts if DYN not in h and not _LOCAL_DB.match(h.strip("[]"))]
    if not remote:
        return None
    return deny(f"{inv.name} sends secrets ({carrying[0].raw[:60]}) into a database at {remote[0]}: a secret leaving "
                "the machine", "secrets", "net.exfiltration")


def judge_sql(run: "Run", inv: "Invocation") -> list[Finding]:
    spec = run.tax.sql_clients[inv.name]
    if spec.get("store_commands"):
        return _judge_store(run, inv, spec)
    sql_after = spec.get("sql_after")
    after = _words_after(inv, sql_after, set(spec.get("value_options", ()))) if sql_after else None
    if sql_after and after is None:
        return []  # bq ls / show / rm, wp plugin list: the taxonomy
    code_opts = set(spec.get("code", ()))
    file_opts = set(spec.get("file", ()))
    value_opts = set(spec.get("value_options", ())) | file_opts
    statements: list[str] = []
    positionals: list[Word] = []
    runs_file = False
    words = inv.words
    i = 0
    while i < len(words):
        arg = words[i].value
        name, eq, attached = arg.partition("=")
        if name in code_opts:
            value = attached if eq else (words[i + 1].value if i + 1 < len(words) else "")
            statements.append(value)
            i += 1 if eq else 2
            continue
        if arg[:2] in code_opts and len(arg) > 2 and not arg.startswith("--"):
            statements.append(arg[2:])
            i += 1
            continue
        if _cluster_ends_in(arg, code_opts) and i + 1 < len(words):
            statements.append(words[i + 1].value)  # psql -Atc QUERY, mysql -Be QUERY
            i += 2
            continue
        if name in file_opts or (arg[:2] in file_opts and len(arg) > 2):
            runs_file = True
            index = i + 1 if not eq and name in file_opts else i
            procs = inv.process_inputs().get(index)
            if procs:  # psql -f <(echo 'drop schema …'): the "file" is known text
                out = run.output_of(procs[-1])
                if out.kind == "text" and out.text is not None:
                    statements.append(out.text)
                    runs_file = False
            elif index < len(words):  # psql -f migrations/0042.sql: the file, read (size-capped) as it is now
                text = _sql_file(inv, words[index] if index != i else
                                 Word(attached if eq else arg[2:], words[i].raw))
                if text is not None:
                    statements.append(text)
                    runs_file = False
        if name in value_opts and not eq:
            i += 2
            continue
        if not arg.startswith("-"):
            positionals.append(words[i])
        i += 1
    if after is not None:
        statements.extend(w.value for w in after)
    elif spec.get("positional_sql") and len(positionals) > 1:
        statements.extend(w.value for w in positionals[1:])
    if spec.get("only_with_code") and not statements and not runs_file:
        return []  # `wrangler deploy`: not a query; the taxonomy judges it
    if not statements:
        stream = run.stdin_source(inv.cmd)
        kind = stream.kind
        redirected = [r for r in inv.cmd.redirects if r.op == "<" and r.fd in (None, 0) and r.target is not None]
        if kind == "text" and stream.text is not None:
            statements.append(stream.text)
        elif kind == "file" and redirected and (text := _sql_file(inv, redirected[-1].target)) is not None:
            statements.append(text)  # sqlite3 app.db < db/reset.sql, mysql < dump.sql: the file's statements
        elif kind in ("file", "unknown", "network") or runs_file:
            generated = _generated_sql(run, inv)
            if generated is not None:
                verdict = classify_sql(generated)
                if verdict is not None and verdict[0] == "critical":
                    return [deny(f"{inv.name} runs SQL another query generates: {verdict[1]}", "database",
                                 "sql.generated")]
            return [ask(f"{inv.name} runs SQL from a file or a pipe", "database", BlastRadius.MEDIUM, "sql.file")]
        else:
            return [allow(f"{inv.name} opens an interactive session", "database", rule="sql.session")]
    findings = []
    database_file = positionals[0] if inv.name in ("sqlite3", "duckdb") and positionals else None
    if inv.name in ("sqlite3", "duckdb"):  # the shell's own dot-commands: .output FILE, .shell CMD, …
        statements = [_dot_commands(run, inv, sql, findings, database_file) for sql in statements]
    statements = [_client_shell_escapes(run, inv, sql) for sql in statements]
    for sql in statements:  # url('http://169.254.169.254/…'), COPY FROM PROGRAM 'curl …metadata…'
        reached = metadata_in_text(sql)
        if reached is not None:
            return [deny(f"{inv.name} runs SQL that makes the server fetch {reached[0][:60]}: {reached[1]} hands out "
                         "the machine's cloud credentials", "secrets", "net.metadata")]
    carried = _secret_into_remote_database(run, inv)
    if carried is not None:
        return [carried]
    for sql in statements:
        if DYN in sql:
            findings.append(ask(f"{inv.name} runs SQL built at run time", "database", BlastRadius.HIGH, "sql.dynamic"))
            continue
        run.result.acts.extend(sql_effects(sql))
        sql = _sql_files(run, inv, sql, findings)
        verdict = classify_sql(sql)
        if verdict is None:
            continue
        if database_file is not None:  # the statement changes the database file itself
            info = run.path(database_file, inv)
            run.effect(info.path, database_file.display(), "write", inv.cmd, info.remote)
            database_file = None
        radius, reason = verdict
        if radius == "critical":
            findings.append(deny(reason, "database", "sql.destructive"))
        else:
            findings.append(ask(reason, "database", BlastRadius(radius), "sql.write"))
    routine = (BlastRadius.LOW, BlastRadius.MEDIUM)  # not DROP INDEX, ALTER … DROP, COPY … FROM PROGRAM
    if findings and all(f.verdict is Verdict.ALLOW or f.rule == "sql.write" and f.blast_radius in routine
                        for f in findings) and \
            any(f.rule == "sql.write" for f in findings) and (where := client_database(run, inv)) is not None:
        # rows or schema of the developer's own database (a project file, the local server): routine local work
        changed = next(f for f in findings if f.rule == "sql.write")
        findings = [f for f in findings if f.rule != "sql.write"] + [
            allow(f"{inv.name} changes {where}: {changed.reason}", "database", rule="sql.local-write")]
    best = worst(findings)
    return [best] if best else [allow(f"{inv.name} runs a read-only query", "database", rule="sql.read")]


def _words_after(inv: "Invocation", subcommand: list[str], value_options: set[str]) -> list[Word] | None:
    """The positional words after `subcommand` (`wp @staging db query SQL` -> [SQL]); None when the
    command's positionals do not hold it."""
    positionals: list[Word] = []
    words = inv.words
    i = 0
    while i < len(words):
        arg = words[i].value
        if arg.startswith("-") and len(arg) > 1:
            i += 2 if arg in value_options else 1
            continue
        positionals.append(words[i])
        i += 1
    values = [w.value for w in positionals]
    n = len(subcommand)
    for start in range(min(len(values) - n + 1, 3)):  # after a site alias or a global word at most
        if values[start:start + n] == subcommand:
            return positionals[start + n:]
    return None


def _sql_file(inv: "Invocation", word: Word) -> str | None:
    """The text of an SQL file a client runs (-f FILE, < FILE), read as it is on disk now (size-capped):
    None when it cannot be known (a name known only at run time, not there, too large, not text)."""
    if word.dynamic or DYN in word.value or not word.value:
        return None
    value = word.value
    path = inv.scope.home + value[1:] if value.startswith("~/") else value if value.startswith("/") else \
        posixpath.join(inv.scope.cwd, value) if inv.scope.cwd else None
    return read_text(path) if path else None


# sqlite3's (and duckdb's) dot-commands: the ones that write a file, run a program, or read more SQL
_DOT_WRITES = {".output": 1, ".once": 1, ".save": 1, ".backup": -1, ".excel": 0, ".log": 1, ".dump": 0}
_DOT_RUNS = (".shell", ".system")


# a client's own commands that run a shell on this machine: psql's \! and \copy … to/from program, mysql's
# system and \!
_CLIENT_SHELL = re.compile(r"(?im)^\s*(?:\\!|system\s)\s*(?P<c>[^\n]+)$|"
                           r"\\copy\b[^\n]*?\b(?:to|from)\s+program\s+'(?P<p>[^']+)'")


def _client_shell_escapes(run: "Run", inv: "Invocation", sql: str) -> str:
    """Judge the shell commands a database client's own escapes run (`psql -c '\\! rm …'`, mysql's `system …`)
    and return the SQL without them."""
    if "\\" not in sql and "system" not in sql.lower():
        return sql
    for m in _CLIENT_SHELL.finditer(sql):
        run.nested((m.group("c") or m.group("p")).strip(), inv, f"{inv.name} shell escape")
    return _CLIENT_SHELL.sub("", sql)


def _dot_commands(run: "Run", inv: "Invocation", sql: str, findings: list[Finding],
                  database: Word | None = None) -> str:
    """Judge the dot-commands in an sqlite3 script (`.output ~/x`, `.backup main FILE`, `.shell rm …`, `.read FILE`,
    `.load LIB`, `.restore FILE` over the database) and return the SQL without them."""
    kept = []
    for line in sql.splitlines():
        stripped = line.strip()
        if not stripped.startswith("."):
            kept.append(line)
            continue
        try:
            parts = shlex.split(stripped)
        except ValueError:
            parts = stripped.split()
        command, args = parts[0], [a for a in parts[1:] if not a.startswith("-")]
        if command in _DOT_RUNS and len(parts) > 1:
            run.nested(stripped[len(command):].strip(), inv, f"{inv.name} {command}")
        elif command in _DOT_WRITES and args and args[-1] not in ("stdout", "-e", "-x"):
            target = args[-1]
            if target.startswith("|"):  # .output |cmd: the output goes to a program
                run.nested(target[1:].strip(), inv, f"{inv.name} {command} |")
                continue
            f = run.write(Word.literal(inv.scope.home + target[1:] if target.startswith("~/") else target), inv,
                          f"{inv.name} {command}")
            if f is not None:
                findings.append(f)
        elif command == ".read" and args:
            text = _sql_file(inv, Word.literal(args[0]))
            if text is None:
                findings.append(ask(f"{inv.name} .read runs SQL from {args[0]}, which guardtui cannot read",
                                    "database", BlastRadius.MEDIUM, "sql.file"))
            else:
                kept.append(_dot_commands(run, inv, text, findings, database))
        elif command == ".restore" and args and database is not None:  # the database replaced by FILE's
            f = run.write(database, inv, f"{inv.name} .restore over")
            if f is not None:
                findings.append(f)
        elif command == ".load":
            findings.append(ask(f"{inv.name} .load loads a native extension: it runs its code", "dynamic-exec",
                                BlastRadius.HIGH, "sql.load"))
        elif command == ".import" and args:
            run.read(Word.literal(args[0]), inv)
    return "\n".join(kept)


def _cluster_ends_in(arg: str, options: set[str]) -> bool:
    """`-Atc`: a cluster of short flags whose last letter is one of `options` (which takes the next word)."""
    return (len(arg) > 2 and arg.startswith("-") and not arg.startswith("--") and arg[1:].isalpha()
            and f"-{arg[-1]}" in options)


def _generated_sql(run: "Run", inv: "Invocation") -> str | None:
    """`psql -Atc "select 'drop table ' || tablename …" | psql`: the text the first query's string
    literals spell out, which is what the second client runs."""
    import posixpath

    producer = inv.cmd.stdin_from
    if producer is None or not producer.argv:
        return None
    name = posixpath.basename(producer.argv[0].value)
    spec = run.tax.sql_clients.get(name)
    if spec is None:
        return None
    code_opts = set(spec.get("code", ()))
    texts = []
    words = [w.value for w in producer.argv[1:]]
    for i, arg in enumerate(words):
        option, eq, attached = arg.partition("=")
        if option in code_opts:
            texts.append(attached if eq else (words[i + 1] if i + 1 < len(words) else ""))
        elif arg[:2] in code_opts and len(arg) > 2 and not arg.startswith("--"):
            texts.append(arg[2:])
        elif _cluster_ends_in(arg, code_opts) and i + 1 < len(words):
            texts.append(words[i + 1])
    literals = [m.group(1).replace("''", "'") for t in texts for m in re.finditer(r"'((?:''|[^'])*)'", t)]
    return " ".join(literals) if literals else None


def _judge_store(run: "Run", inv: "Invocation", spec: dict) -> list[Finding]:
    """redis-cli: the store command in its arguments, or the lines it reads from stdin."""
    from .taxonomy import split_args

    args = inv.args
    if any(a.split("=", 1)[0] in spec.get("read_options", ()) for a in args if a.startswith("-")):
        return [allow(f"{inv.name} only inspects the store", "database", rule="store.read")]
    positionals, _ = split_args(args, frozenset(spec.get("value_options", ())))
    if positionals:
        lines = [positionals]
    else:
        stream = run.stdin_source(inv.cmd)
        if stream.kind == "text" and stream.text is not None:
            lines = [line.split() for line in stream.text.splitlines() if line.strip()]
        elif stream.kind in ("file", "unknown", "network"):
            return [ask(f"{inv.name} runs store commands from a file or a pipe", "database", BlastRadius.MEDIUM,
                        "store.file")]
        else:
            return [allow(f"{inv.name} opens an interactive session", "database", rule="store.session")]
    groups = spec["store_commands"]
    findings = []
    for words in lines:
        if not words:
            continue
        if DYN in words[0]:
            findings.append(ask(f"{inv.name} runs a command built at run time", "database", BlastRadius.HIGH,
                                "store.dynamic"))
            continue
        one = words[0].upper()
        two = f"{one} {words[1].upper()}" if len(words) > 1 and DYN not in words[1] else one

        def member(group: str) -> bool:
            names = groups.get(group, ())
            return two in names or one in names

        if two == "CONFIG SET" and len(words) >= 4 and words[2].lower() in groups.get("file_settings", ()):
            findings.extend(_store_file_setting(run, inv, words[2].lower(), words[3]))
        if member("critical"):
            findings.append(deny(f"{one} deletes every key in the store", "database", "store.destructive"))
        elif member("routine"):
            findings.append(allow(f"{one} snapshots the store into its own dump file", "database",
                                  rule="store.snapshot"))
        elif member("high"):
            findings.append(ask(f"{two if two in groups.get('high', ()) else one} changes how the store runs",
                                "database", BlastRadius.HIGH, "store.admin"))
        elif not member("read"):
            findings.append(ask(f"{one} changes or deletes data in the store", "database", BlastRadius.MEDIUM,
                                "store.write"))
    best = worst(findings)
    return [best] if best else [allow(f"{inv.name} only reads", "database", rule="store.read")]


def _store_file_setting(run: "Run", inv: "Invocation", setting: str, value: str) -> list[Finding]:
    """`redis-cli CONFIG SET dir ~/.claude` then `dbfilename settings.json`: the server (this machine's, as this
    user) writes its dump there at the next save, judged as a write of that file; a server elsewhere writes
    on its own machine (the store.admin ask stands)."""
    import posixpath

    if not _local_store(inv) or DYN in value:
        return []
    facts = inv.scope.facts
    if setting == "dir":
        target = posixpath.join(value, facts.get("redis-dbfilename", "dump.rdb"))
    elif setting == "appenddirname":
        target = posixpath.join(facts.get("redis-dir", "."), value)
    elif setting in ("dbfilename", "appendfilename") or not value.startswith("/"):
        directory = facts.get("redis-dir")
        if directory is None:
            return [ask(f"CONFIG SET {setting} {value} makes the server write {value} in its working directory, "
                        "known only to it", "fs-write", BlastRadius.HIGH, "store.file-write")]
        target = posixpath.join(directory, value)
    else:
        target = value
    written = run.write(Word.literal(target), inv, f"CONFIG SET {setting} makes the server write")
    return [written] if written is not None else []


def _local_store(inv: "Invocation") -> bool:
    words = [w.value for w in inv.words]
    for i, w in enumerate(words):
        host = words[i + 1] if w == "-h" and i + 1 < len(words) else \
            re.sub(r"^rediss?://(?:[^@/]*@)?([^:/]*).*$", r"\1", words[i + 1]) if w == "-u" and i + 1 < len(words) \
            else None
        if host is not None and host not in ("localhost", "127.0.0.1", "::1", "") and not host.startswith("127."):
            return False
    return True


# Scripts whose subcommands are database and shell tools in disguise: `python manage.py flush`,
# `python manage.py shell -c CODE`, `php artisan tinker --execute=CODE`.
_FRAMEWORK_SCRIPTS = {"manage.py": ("shell", "python"), "artisan": ("tinker", "php"), "console": ("", "php")}


def framework_script(run: "Run", inv: "Invocation", script: str, args: list[Word]) -> list[Finding]:

    code_command, language = _FRAMEWORK_SCRIPTS[script]
    if args and args[0].value in _DB_SHELLS:
        return _db_shell(run, inv, f"{script} {args[0].value}")
    if code_command and args and args[0].value == code_command:
        for i, w in enumerate(args):
            if w.value in ("-c", "--command", "--execute") and i + 1 < len(args):
                return code_findings(run, inv, args[i + 1], language)
            if w.value.startswith(("--command=", "--execute=")):
                return code_findings(run, inv, Word(w.value.partition("=")[2], w.raw), language)
    findings = run.taxonomy(Invocation(script, args, inv.cmd, inv.scope, inv.privileged, script))
    if script == "manage.py" and args and re.fullmatch(r"[\w-]+", args[0].value) and not inv.scope.remote:
        command = _management_command(inv.scope.cwd, args[0].value)
        if command:  # the project's own management command: judged as the script it is
            judged = run.project_file(command, Invocation(inv.name, args[1:], inv.cmd, inv.scope, inv.privileged,
                                                          inv.written_name), "python3")
            if judged is not None:
                findings.append(judged)
    if any(f.rule.startswith("taxonomy:") for f in findings):
        return findings
    sub = args[0].value if args else ""
    return findings[-1:] if findings and findings[-1].rule == "shell.project-script" else \
        [allow(f"{script} {sub} runs a project command".replace("  ", " "), "build-test", rule="code.framework")]


def _management_command(cwd: str | None, name: str) -> str | None:
    """Django's `manage.py NAME`: the project's app/management/commands/NAME.py, if there is one."""
    if not cwd:
        return None
    for directory, dirs, files in os.walk(cwd):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules", "venv", ".venv", "static",
                                                                          "media", "site-packages")]
        if directory.endswith("/management/commands") and f"{name}.py" in files:
            return posixpath.join(directory, f"{name}.py")
        if directory.count("/") - cwd.count("/") >= 4:
            dirs[:] = []
    return None


def rails(run: "Run", inv: "Invocation") -> list[Finding]:
    """`rails runner CODE` runs Ruby; `rails dbconsole` is a SQL client; the rest goes to the taxonomy."""
    args = inv.words
    if args and args[0].value in ("runner", "r") and len(args) > 1:
        if args[1].value.endswith(".rb") and not args[1].dynamic:  # rails runner script/backfill.rb
            info = run.path(args[1], inv)
            judged = run.project_file(info.path, inv.__class__("ruby", args[2:], inv.cmd, inv.scope, inv.privileged,
                                                               "ruby"), "ruby") if info.path else None
            if judged is not None:
                return [judged]
        return code_findings(run, inv, args[1], "ruby")
    if args and args[0].value in _DB_SHELLS:
        return _db_shell(run, inv, f"rails {args[0].value}")
    return []


# `manage.py dbshell`, `rails dbconsole`, `artisan db`: the project's SQL client, fed on stdin
_DB_SHELLS = ("dbshell", "dbconsole", "db")


def _db_shell(run: "Run", inv: "Invocation", name: str) -> list[Finding]:
    client = inv.__class__("psql", [], inv.cmd, inv.scope, inv.privileged, "psql")
    findings = judge_sql(run, client)
    return [replace(f, reason=f.reason.replace("psql", name)) for f in findings]
