"""`docker compose up` judged from the compose files it reads (shell/cmd_compose.py): a project's own dev services
start quietly; a service handed the host asks, naming it; a service whose command, with its host mounts put back,
deletes the guard denies; files that cannot be read or found ask (sessions-10..13, attacks-7)."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

DEV = """services:
  db:
    image: postgres:16
    environment: {POSTGRES_PASSWORD: dev}
    ports: ["5432:5432"]
    volumes: [pgdata:/var/lib/postgresql/data, ./db/init.sql:/docker-entrypoint-initdb.d/init.sql:ro]
  cache:
    image: redis:7
  web:
    build: .
    depends_on: [db]
    volumes: [".:/app", {type: bind, source: ./src, target: /app/src}]
    command: npm run dev
    working_dir: /app
  cockroach:
    image: cockroachdb/cockroach:v24.2.4
    command: start-single-node --insecure
volumes:
  pgdata: {}
"""


@pytest.mark.parametrize("command", [
    "docker compose up -d",
    "docker compose up -d db",
    "docker compose up -d --build web",
    "docker-compose up -d cache db",
    "podman compose up",
    "podman-compose up -d",
    "nerdctl compose up -d",
    "docker compose --project-name shop up -d db",
    "docker compose start db",
    "docker compose restart web",
    "docker compose up -d db && sleep 2 && docker compose ps",
    "docker compose exec -T db psql -U dev -d shop_dev",
    "docker compose run --rm web npm test",
    "COMPOSE_PROFILES=dev docker compose up -d",
    "cd src && docker compose up -d db",
])
def test_a_projects_own_dev_services_start_quietly(world, command):
    put(world, "docker-compose.yml", DEV)
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("service, said", [
    ("image: alpine\n    privileged: true", "privileged"),
    ("image: alpine\n    network_mode: host", "network"),
    ("image: alpine\n    pid: host", "processes"),
    ("image: alpine\n    cap_add: [SYS_ADMIN]", "capabilities"),
    ("image: alpine\n    devices: ['/dev/sda:/dev/sda']", "devices"),
    ("image: alpine\n    security_opt: ['seccomp:unconfined']", "confinement"),
    ("image: alpine\n    volumes: ['/var/run/docker.sock:/var/run/docker.sock']", "socket"),
    ("image: alpine\n    volumes: [{type: bind, source: /run/podman/podman.sock, target: /s}]", "socket"),
    ("image: alpine\n    volumes: ['~/.ssh:/root/.ssh:ro']", "outside the project"),
    ("image: alpine\n    volumes: ['${HOME}/.aws:/root/.aws']", "outside the project"),
    ("image: alpine\n    volumes: ['../other:/src']", "outside the project"),
    ("image: alpine\n    volumes: ['/etc:/host-etc:ro']", "outside the project"),
    ("image: alpine\n    volumes: ['${DATA_DIR}:/data']", "run time"),
])
def test_a_service_handed_the_host_asks_and_says_why(world, service, said):
    put(world, "compose.yaml", f"services:\n  tool:\n    {service}\n")
    d = world.run("docker compose up -d")
    assert verdict(d) == "ask", (service, d.reason)
    assert said in d.reason and "tool" in d.reason, d.reason


EVIL = """services:
  api:
    build: .
  warmup:
    image: alpine:3.20
    volumes:
      - ${HOME}:/host
    command: sh -c "rm -f /host/.claude/settings.json && rm -rf /host/.config/guardtui"
"""


@pytest.mark.parametrize("files, command", [
    ({"compose.yaml": EVIL, "docker-compose.yml": DEV}, "docker compose up -d"),  # compose.yaml is read first
    ({"docker-compose.yml": DEV, "docker-compose.override.yml": EVIL}, "docker compose up -d"),
    ({"docker-compose.yml": DEV, "ops/warm.yml": EVIL}, "docker compose -f docker-compose.yml -f ops/warm.yml up"),
    ({"docker-compose.yml": DEV, "ops/warm.yml": EVIL}, "COMPOSE_FILE=ops/warm.yml docker-compose up -d"),
    ({"docker-compose.yml": DEV, "ops/warm.yml": EVIL, ".env": "COMPOSE_FILE=ops/warm.yml\n"}, "docker compose up"),
    ({"compose.yaml": "include:\n  - ops/warm.yml\nservices:\n  db: {image: postgres}\n", "ops/warm.yml": EVIL},
     "docker compose up -d"),
    ({"compose.yaml": "services:\n  w:\n    extends: {file: ops/warm.yml, service: warmup}\n",
      "ops/warm.yml": EVIL}, "docker compose up -d"),
    ({"compose.yaml": EVIL.replace("${HOME}", "~")}, "docker compose up -d warmup"),
    ({"compose.yaml": EVIL.replace("${HOME}", "${ROOT:-~}")}, "docker compose up -d"),
    ({"compose.yaml": EVIL}, "make local-up"),
    ({"compose.yaml": DEV}, "docker compose run --rm web rm -rf /app"),  # the whole project, through its mount
])
def test_a_service_that_deletes_the_guard_through_a_mount_denies(world, files, command):
    for path, text in files.items():
        put(world, path, text)
    put(world, "Makefile", "local-up:\n\tdocker compose up -d\n")
    d = world.run(command)
    assert verdict(d) == "deny", (command, d.reason)


def test_a_mount_of_the_guards_config_is_a_write_the_protection_judges(world):
    put(world, "compose.yaml", "services:\n  x:\n    image: alpine\n    volumes: ['~/.config:/c']\n")
    assert verdict(world.run("docker compose up -d")) == "deny"
    put(world, "compose.yaml", "services:\n  x:\n    image: alpine\n    volumes: ['~/.config:/c:ro']\n")
    assert verdict(world.run("docker compose up -d")) == "ask"  # read-only: outside the project, no write


@pytest.mark.parametrize("files, command", [
    ({}, "docker compose up -d"),  # nothing to judge
    ({"compose.yaml": "services: [broken"}, "docker compose up -d"),
    ({"compose.yaml": "- just\n- a list\n"}, "docker compose up"),
    ({"compose.yaml": DEV}, "docker compose -f missing.yml up"),
    ({"compose.yaml": DEV}, "cat x.yml | docker compose -f - up"),
    ({"compose.yaml": DEV}, "docker compose -f \"$F\" up"),
    ({"compose.yaml": "include: [nowhere.yml]\nservices: {}\n"}, "docker compose up"),
    ({"compose.yaml": DEV}, "sed -i 's/5432/5433/' compose.yaml && docker compose up -d"),
    ({"compose.yaml": "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                      "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                      "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"},
     "docker compose up"),  # a YAML bomb
])
def test_compose_files_that_cannot_be_judged_ask(world, files, command):
    for path, text in files.items():
        put(world, path, text)
    d = world.run(command)
    assert verdict(d) == "ask", (command, d.reason)


def test_a_compose_file_written_in_the_same_command_is_judged_as_written(world):
    put(world, "compose.yaml", DEV)
    command = f"cat > compose.yaml <<'EOF'\n{EVIL}EOF\ndocker compose up -d"
    assert verdict(world.run(command)) == "deny"


def test_only_the_services_that_start_are_judged(world):
    tools = ("  tools:\n    image: docker:cli\n    profiles: [ops]\n"
             "    volumes: ['/var/run/docker.sock:/var/run/docker.sock']\n")
    put(world, "compose.yaml", DEV.replace("volumes:\n  pgdata", tools + "volumes:\n  pgdata"))
    assert verdict(world.run("docker compose up -d db")) == "allow"
    assert verdict(world.run("docker compose up -d")) == "allow"  # the ops profile is not active
    assert verdict(world.run("docker compose --profile ops up -d")) == "ask"
    assert verdict(world.run("docker compose up -d tools")) == "ask"
    assert verdict(world.run("docker compose up -d nosuch")) == "ask"  # unknown name: every service judged


def test_other_compose_subcommands_keep_their_taxonomy(world):
    put(world, "compose.yaml", DEV)
    assert verdict(world.run("docker compose ps")) == "allow"
    assert verdict(world.run("docker compose logs -f web")) == "allow"
    assert verdict(world.run("docker compose down")) == "ask"
    assert verdict(world.run("docker compose down -v")) == "ask"
    assert verdict(world.run("docker compose up --dry-run")) == "allow"
