"""ansible-playbook: the commands its plays' tasks run (shell, command, raw, script), read from the playbook,
the task files it imports and the roles it names. A task on this machine (delegate_to: localhost, local_action,
connection: local, hosts: localhost) is judged as a command here; one on the inventory's hosts as a remote
command. Under --check only the tasks that set `check_mode: false` run."""
from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING, Any, Iterator

import yaml

from .findings import Finding
from .projectfiles import read_text
from .words import Scope

if TYPE_CHECKING:  # pragma: no cover
    from .invocation import Invocation, Run

MAX_FILES = 16  # playbook, task files and roles read for one command
_SHELL_MODULES = {f"{prefix}{name}" for prefix in ("", "ansible.builtin.", "ansible.legacy.")
                  for name in ("shell", "command", "raw", "script")}
_TASK_LISTS = ("pre_tasks", "tasks", "post_tasks", "handlers", "block", "rescue", "always")
_INCLUDES = {f"{prefix}{name}" for prefix in ("", "ansible.builtin.")
             for name in ("import_tasks", "include_tasks", "include")}
_LOCAL_HOSTS = {"localhost", "127.0.0.1", "::1"}
_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}", re.S)
_VALUE_OPTIONS = {"-i", "--inventory", "--inventory-file", "-e", "--extra-vars", "-l", "--limit", "-t", "--tags",
                  "--skip-tags", "-u", "--user", "-f", "--forks", "-c", "--connection", "--vault-id",
                  "--vault-password-file", "--private-key", "--key-file", "-M", "--module-path", "--become-user",
                  "--become-method", "-T", "--timeout", "--start-at-task", "--ssh-common-args", "--ssh-extra-args"}


def ansible_playbook(run: "Run", inv: "Invocation") -> list[Finding]:
    """Judge the commands the playbooks' tasks run; the taxonomy judges the playbook run itself."""
    words = inv.args
    if any(w in ("--syntax-check", "--list-tasks", "--list-hosts", "--list-tags") for w in words):
        return []  # parses the playbooks and runs no task
    checking = any(w in ("--check", "-C") for w in words)
    local_connection = any(w in ("--connection=local", "-clocal") for w in words) or \
        any(w in ("-c", "--connection") and nxt == "local" for w, nxt in zip(words, words[1:]))
    become = any(w in ("-b", "--become") for w in words)
    playbooks, skip = [], False
    for w in words:
        if skip:
            skip = False
        elif w in _VALUE_OPTIONS:
            skip = True
        elif not w.startswith("-"):
            playbooks.append(w)
    cwd = inv.scope.cwd
    if not cwd or inv.scope.remote:
        return []
    budget = [MAX_FILES]
    for name in playbooks:
        path = posixpath.normpath(posixpath.join(cwd, name))
        for command, local, where in _tasks_in_playbook(path, checking, local_connection, budget):
            text = _JINJA.sub("${__ansible_value}", command)
            if local:
                run.nested(text, inv, f"ansible-playbook {where}")
            else:
                scope = Scope(None, "/root" if become else "~", {}, set(), remote=True)
                run.nested(text, inv, f"ansible-playbook {where} (on the hosts)", scope)
    return []


def _load(path: str, budget: list[int]) -> Any:
    if budget[0] <= 0:
        return None
    budget[0] -= 1
    text = read_text(path)
    if text is None:
        return None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _tasks_in_playbook(path: str, checking: bool, local_connection: bool,
                       budget: list[int]) -> Iterator[tuple[str, bool, str]]:
    plays = _load(path, budget)
    if not isinstance(plays, list):
        return
    base = posixpath.dirname(path)
    for play in plays:
        if not isinstance(play, dict):
            continue
        if "import_playbook" in play or "ansible.builtin.import_playbook" in play:
            target = play.get("import_playbook") or play.get("ansible.builtin.import_playbook")
            if isinstance(target, str):
                yield from _tasks_in_playbook(posixpath.join(base, target), checking, local_connection, budget)
            continue
        hosts = play.get("hosts")
        host_list = hosts if isinstance(hosts, list) else str(hosts or "").split(",")
        local = local_connection or play.get("connection") == "local" or \
            bool(host_list) and all(str(h).strip() in _LOCAL_HOSTS for h in host_list)
        play_check = play.get("check_mode")
        for key in _TASK_LISTS:
            yield from _tasks(play.get(key), base, local, checking, play_check, budget, posixpath.basename(path))
        for role in play.get("roles") or []:
            name = role.get("role") or role.get("name") if isinstance(role, dict) else role
            if isinstance(name, str):
                main = posixpath.join(base, "roles", name, "tasks", "main.yml")
                yield from _tasks(_load(main, budget), posixpath.dirname(main), local, checking, play_check, budget,
                                  f"role {name}")


def _tasks(tasks: Any, base: str, local: bool, checking: bool, check_mode: Any, budget: list[int],
           where: str) -> Iterator[tuple[str, bool, str]]:
    if not isinstance(tasks, list):
        return
    for task in tasks:
        if not isinstance(task, dict):
            continue
        mode = task.get("check_mode", check_mode)
        runs = not checking or mode is False or str(mode).lower() in ("false", "no")
        here = local or str(task.get("delegate_to", "")).strip() in _LOCAL_HOSTS or task.get("connection") == "local"
        name = task.get("name") or "a task"
        for key in ("block", "rescue", "always"):
            yield from _tasks(task.get(key), base, here, checking, mode, budget, where)
        for key in _INCLUDES:
            target = task.get(key)
            target = target.get("file") if isinstance(target, dict) else target
            if isinstance(target, str) and "{{" not in target:
                nested = posixpath.join(base, target)
                yield from _tasks(_load(nested, budget), posixpath.dirname(nested), here, checking, mode, budget,
                                  posixpath.basename(nested))
        if not runs:
            continue
        action = task.get("local_action")
        if isinstance(action, str):  # local_action: shell rm -rf …
            module, _, rest = action.partition(" ")
            if module in _SHELL_MODULES:
                yield rest, True, f"{where}: {name}"
            continue
        for module in _SHELL_MODULES & task.keys():
            command = _command_of(task[module])
            if command:
                yield command, here, f"{where}: {name}"


def _command_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        if isinstance(value.get("cmd"), str):
            return value["cmd"]
        if isinstance(value.get("argv"), list):
            return " ".join(_quote(str(a)) for a in value["argv"])
    return None


def _quote(word: str) -> str:
    return word if re.fullmatch(r"[\w@%+=:,./-]+", word) else "'" + word.replace("'", "'\\''") + "'"
