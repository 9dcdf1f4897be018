"""Routine local development stays quiet (the blast radius is the test): what stays on this machine, in the
project or its local dev services, allows; guardtui's own, the system's, anything shared or remote keeps asking."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


# -- a developer's own processes ---------------------------------------------------------------------------
@pytest.mark.parametrize("command", [
    "kill $(lsof -ti :3000)",
    "kill -9 $(lsof -t -i:4000)",
    "kill -TERM $(lsof -ti tcp:5173)",
    'kill "$(lsof -t -i :8080 -sTCP:LISTEN)"',
    "kill `lsof -ti:9229`",
    "kill -s TERM $(lsof -nP -ti :3001)",
    "lsof -ti :3000 | xargs kill",
    "lsof -ti:8000 | xargs kill -9",
    "fuser -k 3000/tcp",
    "fuser -k -n tcp 5173",
    "pkill -f 'node server.js'",
    "pkill -f node_modules/.bin/vite",
    "pkill -9 -f 'python manage.py runserver'",
    "pkill -f 'ts-node src/index.ts'",
    "pkill --full 'bundle exec bin/rails server'",
    "pkill -f .venv/bin/uvicorn",
])
def test_a_dev_server_of_the_project_is_stopped_quietly(world, command):
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "kill $(lsof -ti :22)",                      # sshd: a system daemon
    "kill $(lsof -ti :80)",
    "fuser -k 443/tcp",
    "kill $(pgrep node)",                        # every node process
    "kill $(lsof -t ~/notes.txt)",               # by a file, not a port
    "kill $(lsof -ti :3000) 1",                  # and init
    "kill 1234",
    "sudo kill $(lsof -ti :3000)",
    "pkill node",                                # a bare name: every node process
    "pkill -f node",
    "pkill -f 'node .*'",                        # wildcards
    "pkill -f 'server.js|sshd'",
    "pkill -f /usr/lib/node_modules/npm/bin/npm-cli.js",   # outside the project
    "pkill -u root -f app.py",
    "killall node",
    "pkill -f ../other/server.js",
    "ssh box 'pkill -f server.js'",
])
def test_broad_system_or_foreign_process_kills_still_ask(world, command):
    d = world.run(command)
    assert verdict(d) != "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "kill $(lsof -ti :8765)",                    # guardtui's broker port
    "lsof -ti :8765 | xargs kill",
    "fuser -k 8765/tcp",
    "pkill -f 'guardtui/hook.py'",
])
def test_the_guard_itself_is_still_denied(world, command):
    assert verdict(world.run(command)) == "deny", command


# -- make: the project's own tool directory ---------------------------------------------------------------
_KUBEBUILDER = ("LOCALBIN ?= $(shell pwd)/bin\nCONTROLLER_GEN ?= $(LOCALBIN)/controller-gen\n"
                "GOLANGCI_LINT = $(shell pwd -P)/bin/golangci-lint\nTOOLS := ${shell pwd}/hack/tools\n\n"
                "manifests:\n\t$(CONTROLLER_GEN) rbac:roleName=manager-role crd paths=\"./...\"\n"
                "lint:\n\t$(GOLANGCI_LINT) run\n"
                "gen:\n\t$(TOOLS)/gen-docs --out docs\n"
                "wipe:\n\trm -rf $(shell pwd)/..\n"
                "home:\n\trm -rf $(shell pwd)/../../..\n"
                "who:\n\t$(shell whoami)/bin/x\n")


@pytest.mark.parametrize("target", ["manifests", "lint", "gen"])
def test_make_runs_tools_from_its_own_directory_quietly(world, target):
    from .test_guard_tool_code import put
    put(world, "Makefile", _KUBEBUILDER)
    d = world.run(f"make {target}")
    assert verdict(d) == "allow", (target, d.reason)


@pytest.mark.parametrize("target", ["wipe", "home", "who"])
def test_make_shell_pwd_resolves_to_where_make_runs(world, target):
    from .test_guard_tool_code import put
    put(world, "Makefile", _KUBEBUILDER)
    d = world.run(f"make {target}")
    assert verdict(d) != "allow", (target, d.reason)
