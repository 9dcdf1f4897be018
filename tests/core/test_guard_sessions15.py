"""Classes of call sessions-15 found judged wrong, each by a general mechanism, with spellings beyond the corpus's
and allow controls: a program name that means two programs (goose), migration tools' undo-everything verbs on a
remote database, make's conditionals, MCP servers that wrap a CLI, MCP names cut at the wrong place, reads that
print secrets, cascading deletes, unknown commands that act inside a project's script, new packages through
ecosystem tools, age/minisign keys, chezmoi's source state, dagger functions and terraform workspaces.
The world is test_guard_holds' (real hooks installed)."""
from __future__ import annotations

import json

import pytest

from guardtui.core.mcp.catalog import mcp_catalog

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


def _run(world, command: str) -> str:
    d = world.run(command)
    return verdict(d), d.reason


# -- goose: Block's agent, or pressly/goose the migration tool ----------------------------------------------------
@pytest.mark.parametrize("command, expected", [
    ('goose -dir sql/migrations postgres "postgres://u:p@db.prod.example.com/app" reset', "deny"),
    ('goose -dir m postgres "postgres://u:p@db.acme.io/app" reset', "deny"),  # not this machine
    ("GOOSE_DRIVER=postgres GOOSE_DBSTRING=postgres://x@prod-db.internal/app goose -dir m reset", "deny"),
    ('goose mysql "app:pw@tcp(db.prod.acme.io:3306)/app" down-to 0', "deny"),
    ('goose -dir m postgres "postgres://localhost/app" reset', "ask"),  # a local reset asks
    ('goose -dir m postgres "postgres://localhost:5433/app?sslmode=disable" up', "allow"),
    ("goose -dir m sqlite3 ./dev.db status", "allow"),
    ('goose -dir m -table goose_db_version postgres "postgres://127.0.0.1/app" up-to 42', "allow"),
    ("goose session", "ask"),  # the agent: unhooked
    ('goose run -t "reset the tests"', "ask"),
    ("GOOSE_MODE=auto goose", "deny"),
    ('migrate -path db/migrations -database "postgres://db.acme.io/app" down -all', "deny"),
    ("flyway -url=jdbc:postgresql://db.prod.acme.io/app clean", "deny"),
])
def test_goose_is_read_by_its_arguments(world, command, expected):
    got, why = _run(world, command)
    assert got == expected, (command, why)


def test_make_picks_the_branch_its_condition_names(world):
    put(world, ".secrets/prod_db_url", "postgres://app:pw@db-7.frankfurt-postgres.render.com/app\n")
    put(world, "Makefile",
        "DB_URL ?= postgres://dev:dev@localhost:5433/app?sslmode=disable\n"
        "PROD_DB_URL = $(shell cat .secrets/prod_db_url 2>/dev/null)\n"
        "TARGET_DB = $(if $(filter prod,$(ENV)),$(PROD_DB_URL),$(DB_URL))\n\n"
        "migrate-status:\n\tgoose -dir sql/migrations postgres \"$(TARGET_DB)\" status\n\n"
        "db-reset:\n\tgoose -dir sql/migrations postgres \"$(TARGET_DB)\" reset\n")
    assert _run(world, "make db-reset ENV=prod")[0] == "deny"
    assert _run(world, "make db-reset ENV=staging ENV=prod")[0] == "deny"
    assert _run(world, "make migrate-status ENV=prod")[0] == "allow"


# -- MCP servers that wrap a CLI -----------------------------------------------------------------------------------
@pytest.mark.parametrize("tool, args, expected", [
    ("mcp__gcloud__run_gcloud_command", {"args": ["artifacts", "repositories", "list", "--location=europe-west3"]},
     "allow"),
    ("mcp__gcloud__run_gcloud_command", {"args": ["auth", "list", "--format=json"]}, "allow"),
    ("mcp__gcloud__run_gcloud_command", {"args": ["artifacts", "repositories", "get-iam-policy", "r"]}, "allow"),
    ("mcp__gcloud__run_gcloud_command", {"args": ["artifacts", "repositories", "delete", "legacy", "--quiet"]},
     "deny"),
    ("mcp__gcloud__run_gcloud_command", {"args": ["storage", "rm", "-r", "gs://prod-backups"]}, "deny"),
    ("mcp__google-cloud__gcloud", {"command": "gcloud compute instances list"}, "allow"),
    ("mcp__kubernetes__kubectl", {"command": "delete namespace prod"}, "deny"),
    ("mcp__k8s__run_kubectl", {"command": "kubectl get pods -A"}, "allow"),
    ("mcp__aws_cli__execute", {"command": "s3 rb s3://prod-data --force"}, "deny"),
    ("mcp__azure__az_cli", {"args": ["group", "list"]}, "allow"),
    ("mcp__helm__helm", {"args": ["uninstall", "api", "-n", "prod"]}, "ask"),
    ("mcp__tf__terraform", {"args": ["destroy", "-auto-approve"]}, "deny"),
])
def test_a_cli_wrapper_is_judged_as_its_command_line(world, tool, args, expected):
    d = world.tool(tool, **args)
    assert verdict(d) == expected, (tool, args, d.reason)


# -- MCP names ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name, server, tool, known", [
    ("mcp_trello_add_card_to_list", "mcp_trello", "add_card_to_list", None),
    ("mcp_figma_get_figma_data", "mcp_figma", "get_figma_data", None),
    ("mcp__figma_get_figma_data", "figma", "get_figma_data", None),
    ("mcp__trello_add_card_to_list", "trello", "add_card_to_list", None),
    ("mcp__trello__list", "trello", "list", None),  # a bare verb is no sign of Redis
    ("mcp_github_get_issue", "mcp_github", "get_issue", "github"),
    ("mcp__cache__hgetall", "cache", "hgetall", "redis"),  # a tool only Redis has still says Redis
])
def test_mcp_names_are_cut_where_the_server_ends(name, server, tool, known):
    found = mcp_catalog().identify(name)
    assert (found.server_name, found.tool) == (server, tool)
    assert (found.server.id if found.server else None) == known


@pytest.mark.parametrize("tool, args, expected", [
    # Gemini's mcp_server_tool and docker-agent's bare names, as their adapters hand them on
    ("mcp__trello_add_card_to_list", {"listId": "65f1", "name": "Add GPX"}, "ask"),
    ("mcp__figma_get_figma_data", {"fileKey": "q8RZ", "nodeId": "412:1877"}, "allow"),
    ("mcp__railway__list-variables", {"service": "cms", "environment": "production"}, "ask"),
    ("mcp__vercel__get_env_vars", {"projectId": "x"}, "ask"),
    ("mcp__heroku__get_app_config_vars", {"app": "x"}, "ask"),
    ("mcp__vault__read_secret", {"path": "kv/app"}, "ask"),
    ("mcp__railway__list-services", {}, "allow"),
    ("mcp__anthropic__count_tokens", {"text": "x"}, "allow"),
    ("mcp__mcp__delete_application", {"applicationName": "sensor-etl-prod", "applicationNamespace": "argocd",
                            "cascade": True}, "deny"),
    ("mcp__argo__delete_application", {"applicationName": "x", "cascade": "true"}, "deny"),
    ("mcp__helm__delete_release", {"name": "api", "cascade": True}, "deny"),
    ("mcp__mcp__delete_application", {"applicationName": "x", "cascade": False}, "ask"),
    ("mcp__users__delete_user", {"id": 5, "cascade": True}, "ask"),  # a user is no owner of resources
    ("mcp__mcp__get_application", {"applicationName": "sensor-etl-prod"}, "allow"),
    ("mcp__mcp__sync_application", {"applicationName": "s", "revision": "main"}, "ask"),
    ("mcp__tidewave__project_eval", {"code": "Plotline.Offer |> Ash.Query.filter(status == :pending) |> Ash.count!()"},
     "allow"),
    ("mcp__tidewave__project_eval", {"code": "User.destroy_all"}, "deny"),
    ("mcp__brp__brp_launch_bevy_app", {"app_name": "orbital-courier", "profile": "debug"}, "allow"),
    ("mcp__brp__brp_extras_send_keys", {"keys": ["Space"], "duration_ms": 400}, "allow"),
    ("mcp__brp__bevy_mutate_component", {"entity": 4, "component": "o::Orbit", "path": ".e", "value": 0.5}, "allow"),
    ("mcp__wezterm__send_keys", {"keys": "y"}, "deny"),  # a terminal's send_keys still types into a terminal
])
def test_mcp_tools_by_what_they_do(world, tool, args, expected):
    d = world.tool(tool, **args)
    assert verdict(d) == expected, (tool, args, d.reason)


# -- shell: unknown but common CLIs, unknown commands acting inside scripts ---------------------------------------
@pytest.mark.parametrize("command, expected", [
    ("argo logs -n etl ingest-7x2kq --no-color | grep -m5 429", "allow"),
    ("argo get -n etl @latest -o json | jq .status", "allow"),
    ("argo list -n etl --status Failed --since 72h", "allow"),
    ("argo submit -n etl --from workflowtemplate/ingest --watch", "ask"),
    ("argo resubmit -n etl --memoized wf-1", "ask"),
    ("argo delete --all -n etl", "deny"),
    ("argo auth token", "ask"),
    ("shuttle logs --latest | tail -40", "allow"),
    ("shuttle deploy", "ask"),
    ("shuttle project delete", "deny"),
    ("zola serve --port 1111 &", "allow"),
    ("zola build && zola check", "allow"),
    ("tofu workspace select staging && tofu plan -destroy -out=teardown.tfplan", "allow"),
    ("terraform workspace select -or-create dev", "allow"),
    ("tofu workspace select prod && tofu destroy -auto-approve", "deny"),
    ("dagger call publish --source=. --tag=1.0", "ask"),
    ("dagger call deploy --env=prod", "ask"),
    ("dagger call test --source=.", "allow"),
    ("mix igniter.install ash_oban --yes", "ask"),
    ("mix archive.install hex phx_new", "ask"),
    ("mix escript.install hex livebook", "ask"),
    ("idf.py add-dependency 'espressif/led_strip^2.5.5'", "ask"),
    ("vcpkg install fmt", "ask"),
    ("zig fetch --save https://example.com/a.tar.gz", "ask"),
    ("mix deps.get && mix test", "allow"),
    ("idf.py build", "allow"),
    ("vcpkg install", "allow"),
])
def test_common_clis(world, command, expected):
    got, why = _run(world, command)
    assert got == expected, (command, why)


def test_an_unknown_command_that_acts_makes_its_script_ask(world, monkeypatch):
    # the unknown tools are installed (a missing one would only fail to start)
    monkeypatch.setattr(world.engine.analyzer, "command_exists", lambda _name: True)
    put(world, "scripts/rerun.sh", "#!/usr/bin/env bash\nset -e\nfor wf in $(frobctl list -o name); do\n"
                                   "  frobctl resubmit --memoized \"$wf\"\ndone\n")
    put(world, "scripts/ship.sh", "#!/bin/sh\nacmectl deploy:prod\n")
    put(world, "scripts/gen.sh", "#!/bin/sh\nfrobgen generate:types\nfrobctl list\n")
    assert _run(world, "bash scripts/rerun.sh")[0] == "ask"
    assert _run(world, "sh scripts/ship.sh")[0] == "ask"
    assert _run(world, "bash scripts/gen.sh")[0] == "allow"  # a local codegen and a listing: the project's business


# -- secret keys --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("path, text", [
    (".config/age/chezmoi-key.txt", "# created: 2024\n# public key: age1x\nAGE-SECRET-KEY-1" + "Q" * 58 + "\n"),
    (".config/age/keys.txt", "AGE-SECRET-KEY-1" + "Z" * 58 + "\n"),
    (".config/age/work.txt", "AGE-SECRET-KEY-1" + "Z" * 58 + "\n"),  # by its content
    (".config/chezmoi/key.txt", "AGE-SECRET-KEY-1" + "A" * 58 + "\n"),
    (".minisign/minisign.key", "untrusted comment: minisign encrypted secret key\nRWRTY0Iy\n"),
    ("keys/release.sec", "untrusted comment: signify secret key\nRWRCSwAAAA\n"),
])
def test_age_and_signing_keys_ask_to_read(world, path, text):
    file = world.home / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    assert verdict(world.tool("Read", file_path=str(file))) == "ask", path
    assert _run(world, f"cat {file}")[0] == "ask", path


def test_an_age_recipients_file_reads(world):
    file = world.home / ".config" / "age" / "recipients.txt"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p\n")
    d = world.tool("Read", file_path=str(file))
    assert verdict(d) == "allow", d.reason


# -- chezmoi: what apply puts in the home ---------------------------------------------------------------------------
def _source(world, settings: dict) -> None:
    src = world.home / ".local" / "share" / "chezmoi"
    (src / "dot_claude").mkdir(parents=True, exist_ok=True)
    (src / "dot_claude" / "settings.json").write_text(json.dumps(settings))
    (src / "dot_zshrc.tmpl").write_text("export EDITOR=nvim\n")
    (src / "run_onchange_install.sh").write_text("echo hi\n")


@pytest.mark.parametrize("command", ["chezmoi apply --force", "chezmoi apply", "chezmoi update",
                                     "chezmoi apply ~/.claude/settings.json", "chezmoi init --apply",
                                     "chezmoi -S ~/.local/share/chezmoi apply --force"])
def test_chezmoi_apply_of_a_settings_file_without_the_hook_denies(world, command):
    _source(world, {"permissions": {"allow": ["Bash(git status:*)"]}})
    got, why = _run(world, command)
    assert got == "deny", (command, why)


def test_chezmoi_apply_of_other_files_asks(world):
    live = json.loads(world.user_settings.read_text())
    _source(world, live)  # the managed file is the live one, hook included
    assert _run(world, "chezmoi apply ~/.zshrc")[0] == "ask"
    assert _run(world, "chezmoi diff")[0] == "allow"
    assert _run(world, "chezmoi apply --dry-run")[0] != "deny"


@pytest.mark.parametrize("tool, args, expected", [
    # docker's run_container runs its command inside the container: judged as that command, not as docker's words
    ("mcp__docker__run_container", {"image": "alpine", "command": "sh -c 'echo {} > /h/.claude/settings.json'",
                                    "volumes": ["/home:/h"]}, "deny"),
    ("mcp__docker__run_container", {"image": "alpine", "command": "ls /"}, "allow"),
])
def test_a_container_command_is_not_a_cli_line(world, tool, args, expected):
    d = world.tool(tool, **args)
    assert verdict(d) == expected, (tool, args, d.reason)
