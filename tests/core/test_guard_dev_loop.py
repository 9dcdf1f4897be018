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


# -- migrations of the developer's own database --------------------------------------------------------------
_DATABASE_YML = ("default: &default\n  adapter: postgresql\n  host: localhost\n\n"
                 "development:\n  <<: *default\n  database: shop_development\n"
                 "test:\n  <<: *default\n  database: shop_test\n"
                 "staging:\n  adapter: postgresql\n  host: pg-staging.internal\n"
                 "production:\n  url: <%= ENV['DATABASE_URL'] %>\n")
_SQITCH_CONF = ('[core]\n\tengine = pg\n[engine "pg"]\n\ttarget = dev\n[target "dev"]\n\turi = db:pg://localhost/inv_dev\n'
                '[target "prod"]\n\turi = db:pg://inv@prod-pg.internal/inv\n[target "sock"]\n\turi = db:pg:inv\n')


@pytest.mark.parametrize("command", [
    "bin/rails db:migrate",
    "rails db:migrate && git diff --stat db/schema.rb",
    "bundle exec rails db:migrate",
    "bin/rails db:prepare",
    "bin/rails db:create db:migrate db:seed",
    "RAILS_ENV=test bin/rails db:migrate",
    "bundle exec rails db:migrate:status",
    "sqitch deploy",
    "sqitch deploy dev",
    "sqitch deploy --target sock",
    "sqitch deploy db:pg://127.0.0.1/inv_dev",
    "sqitch status dev",
])
def test_migrating_the_local_development_database_is_quiet(world, command):
    from .test_guard_tool_code import put
    put(world, "config/database.yml", _DATABASE_YML)
    put(world, "sqitch.conf", _SQITCH_CONF)
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "RAILS_ENV=production bin/rails db:migrate",
    "bin/rails db:migrate RAILS_ENV=staging",
    "RAILS_ENV=staging bin/rails db:migrate",
    "DATABASE_URL=postgres://app@db.prod.example.com/app bin/rails db:migrate",
    "bin/rails db:setup",                         # loads the schema over the tables
    "bin/rails db:migrate db:drop",
    "bin/rails db:rollback",
    "sqitch deploy prod",
    "sqitch deploy db:pg://inv@prod-pg.internal/inv",
    "sqitch revert dev",
    "sqitch deploy nosuchtarget",
    "ssh app1 'cd /srv/app && bin/rails db:migrate'",
])
def test_other_environments_and_destructive_tasks_still_ask(world, command):
    from .test_guard_tool_code import put
    put(world, "config/database.yml", _DATABASE_YML)
    put(world, "sqitch.conf", _SQITCH_CONF)
    d = world.run(command)
    assert verdict(d) != "allow", (command, d.reason)


def test_a_development_database_on_another_host_still_asks(world):
    from .test_guard_tool_code import put
    put(world, "config/database.yml", "development:\n  adapter: postgresql\n  host: shared-dev-db.corp\n")
    assert verdict(world.run("bin/rails db:migrate")) == "ask"
    put(world, "config/database.yml", "development:\n  adapter: postgresql\n  host: <%= ENV['DB_HOST'] %>\n")
    assert verdict(world.run("bin/rails db:migrate")) == "ask"
    (world.project / "config" / "database.yml").unlink()  # where it points is not known
    assert verdict(world.run("bin/rails db:migrate")) == "ask"
