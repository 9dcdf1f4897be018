"""The developer's own databases: SQL that changes rows or schema of a database file in the project, or of a
server on this machine, is routine local work and allows; a remote, unknown or configured-elsewhere server, a
file outside the project, and what destroys everything keep their verdicts."""
from __future__ import annotations

import pytest

from guardtui.core.shell.dbhost import is_local, url_host

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)


@pytest.mark.parametrize("command", [
    "sqlite3 data/notes.db \"DELETE FROM drafts WHERE created_at < '2024-01-01'\"",
    "sqlite3 app.sqlite3 'INSERT INTO settings(k, v) VALUES (1, 2)'",
    "sqlite3 -bail db/dev.db \"UPDATE users SET admin = 1 WHERE id = 7\"",
    "duckdb warehouse/dev.duckdb -c 'CREATE TABLE t AS SELECT 1 AS x'",
    "sqlite3 ./var/cache.db 'CREATE INDEX i ON events(ts)'",
    "psql -h localhost -U app -d app_dev -c \"INSERT INTO accounts(id) VALUES (1)\"",
    "psql postgres://vapor:vapor@localhost:5432/pushcast_dev -c \"DELETE FROM d USING d k WHERE d.id > k.id\"",
    "psql -d 'host=127.0.0.1 dbname=app' -c 'UPDATE t SET x = 1 WHERE id = 2'",
    "PGHOST=localhost psql -c 'INSERT INTO t VALUES (1)'",
    "mysql -h 127.0.0.1 -u root shop_dev -e 'DELETE FROM carts WHERE updated_at < NOW() - INTERVAL 7 DAY'",
    "clickhouse-client --host localhost -q 'CREATE TABLE x (a UInt8) ENGINE = Memory'",
    "CLICKHOUSE_HOST=127.0.0.1 clickhouse-client -q 'INSERT INTO t SELECT 1'",
    "cockroach sql --url postgresql://root@localhost:26257/defaultdb -e 'INSERT INTO t VALUES (1)'",
    "printf 'INSERT INTO t VALUES (1);' | psql -h ::1 app",
])
def test_changes_to_the_developers_own_database_allow(world, command):
    for name in ("data/notes.db", "app.sqlite3", "db/dev.db", "warehouse/dev.duckdb", "var/cache.db"):
        (world.project / name).parent.mkdir(parents=True, exist_ok=True)
        (world.project / name).write_bytes(b"SQLite format 3\x00")
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "psql -h db.prod.internal -d app -c \"INSERT INTO t VALUES (1)\"",             # another machine
    "psql app_dev -c 'ALTER TABLE t ADD COLUMN c int'",                            # no host: the agent's env decides
    "mysql -u root shop_dev -e 'INSERT INTO t VALUES (1)'",
    "clickhouse-client --query \"INSERT INTO analytics.events_dedup SELECT * FROM analytics.events\"",
    "psql postgres://u:p@10.0.0.5/app -c 'DELETE FROM t WHERE id = 1'",
    "mysql -h shop-db.example.com shop -e 'INSERT INTO t VALUES (1)'",
    "clickhouse-client --host ch.analytics.example -q 'INSERT INTO t SELECT 1'",
    "PGHOST=db.staging.example psql -c 'INSERT INTO t VALUES (1)'",
    "psql --service=prod -c 'INSERT INTO t VALUES (1)'",                            # ~/.pg_service.conf: not read
    "mysql --login-path=prod -e 'INSERT INTO t VALUES (1)'",
    "sqlite3 ~/.mozilla/places.sqlite \"DELETE FROM moz_places WHERE id = 3\"",      # a file outside the project
    "sqlite3 /tmp/x.db 'INSERT INTO t VALUES (1)'",
    "sqlite3 data/missing.db 'INSERT INTO t VALUES (1)'",                      # not there: may be a link made first
    "ln -s ~/.mozilla/places.sqlite p.db && sqlite3 p.db 'DELETE FROM moz_places WHERE id = 3'",
    "psql -c \"UPDATE orders SET status='cancelled' WHERE id=1042\"",             # no host: the environment decides
    "psql -h localhost -c \"COPY t FROM PROGRAM 'curl x'\"",                       # a shell command on the server
    "psql -h localhost -c 'ALTER TABLE t DROP COLUMN c'",                          # a drop: high, asks
    "psql -h \"$DB_HOST\" -c 'INSERT INTO t VALUES (1)'",                          # known only at run time
])
def test_changes_elsewhere_or_destructive_ones_still_ask(world, command):
    d = world.run(command)
    assert verdict(d) != "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "sqlite3 data/notes.db 'DELETE FROM drafts'",
    "psql -h localhost -c 'DROP TABLE users'",
    "clickhouse-client -q 'TRUNCATE TABLE analytics.events'",
])
def test_destroying_a_local_database_still_denies(world, command):
    assert verdict(world.run(command)) == "deny", command


def test_a_client_configuration_naming_another_host_keeps_asking(world):
    (world.home / ".my.cnf").write_text("[client]\nhost=db.prod.example\nuser=app\n")
    assert verdict(world.run("mysql shop -e 'INSERT INTO t VALUES (1)'")) != "allow"
    (world.home / ".my.cnf").write_text("[client]\nhost=localhost\nuser=app\n")
    assert verdict(world.run("mysql shop -e 'INSERT INTO t VALUES (1)'")) == "allow"
    conf = world.home / ".clickhouse-client" / "config.xml"
    conf.parent.mkdir()
    conf.write_text("<config><host>ch.prod.example</host></config>")
    assert verdict(world.run("clickhouse-client -q 'INSERT INTO t SELECT 1'")) != "allow"


def test_the_guards_own_database_is_not_a_project_database(world):
    (world.project / ".guardtui" / "state.db").write_bytes(b"SQLite format 3\x00")
    d = world.run("sqlite3 .guardtui/state.db \"DELETE FROM rules WHERE id = 1\"")
    assert verdict(d) != "allow", d.reason


@pytest.mark.parametrize("url, host", [
    ("postgres://u:p@localhost:5432/db", "localhost"), ("mysql://db.example.com/x", "db.example.com"),
    ("host=/var/run/postgresql dbname=x", "/var/run/postgresql"), ("sqlite:///app.db", ""),
    ("postgresql:///app?host=db.internal", "db.internal"), ("duckdb:dev.duckdb", ""),
])
def test_url_hosts(url, host):
    assert url_host(url) == host


def test_local_hosts():
    assert is_local("") and is_local("127.0.0.2") and is_local("::1") and is_local("/tmp/sock")
    assert not is_local("db.example") and not is_local(None) and not is_local("10.0.0.1")


def test_a_clickhouse_mutation_keeps_asking_even_locally(world):
    d = world.run("clickhouse-client --query \"ALTER TABLE analytics.events DELETE WHERE event_date < '2023-01-01'\"")
    assert verdict(d) == "ask", d.reason
    assert verdict(world.run("clickhouse-client -q 'ALTER TABLE t UPDATE x = 1 WHERE id = 2'")) == "ask"


# -- through an MCP database server configured onto the project's own database ----------------------------------
def _mcp_config(world, args, name="sqlite"):
    import json
    (world.project / ".mcp.json").write_text(json.dumps({"mcpServers": {name: {"command": "uvx", "args": args}}}))


@pytest.mark.parametrize("args", [
    ["mcp-server-sqlite", "--db-path", "data/app.db"],
    ["mcp-server-sqlite", "--db-path", "./data/app.db"],
    ["mcp-server-sqlite", "--db-path=data/app.db"],
])
@pytest.mark.parametrize("query", [
    "INSERT INTO runs (model, score) VALUES ('cox', 0.84)",
    "UPDATE runs SET notes = 'x' WHERE id = 3",
    "DELETE FROM runs WHERE id = 3",
    "CREATE TABLE notes (id INTEGER PRIMARY KEY)",
])
def test_an_mcp_write_to_the_projects_own_sqlite_file_allows(world, args, query):
    _mcp_config(world, args)
    d = world.tool("mcp__sqlite__write_query", query=query)
    assert verdict(d) == "allow", (args, query, d.reason)


def test_an_mcp_vacuum_into_the_project_allows_and_outside_asks(world):
    _mcp_config(world, ["mcp-server-sqlite", "--db-path", "data/app.db"])
    inside = world.tool("mcp__sqlite__write_query", query=f"VACUUM INTO '{world.project}/build/snap.db'")
    assert verdict(inside) == "allow", inside.reason
    outside = world.tool("mcp__sqlite__write_query", query=f"VACUUM INTO '{world.home}/snap.db'")
    assert verdict(outside) != "allow", outside.reason


@pytest.mark.parametrize("args", [
    ["mcp-server-sqlite", "--db-path", "~/Library/app.db"],               # outside the project
    ["mcp-server-sqlite", "--db-path", "/var/lib/app/app.db"],
    ["mcp-server-sqlite", "--db-path", ".guardtui/state.db"],              # the guard's own
])
def test_an_mcp_write_elsewhere_keeps_asking(world, args):
    _mcp_config(world, args)
    d = world.tool("mcp__sqlite__write_query", query="INSERT INTO t VALUES (1)")
    assert verdict(d) != "allow", (args, d.reason)


def test_an_mcp_write_with_no_configuration_found_keeps_asking(world):
    d = world.tool("mcp__sqlite__write_query", query="INSERT INTO t VALUES (1)")
    assert verdict(d) == "ask", d.reason


def test_an_mcp_wipe_of_the_projects_own_database_still_denies(world):
    _mcp_config(world, ["mcp-server-sqlite", "--db-path", "data/app.db"])
    assert verdict(world.tool("mcp__sqlite__write_query", query="DELETE FROM runs")) == "deny"
    assert verdict(world.tool("mcp__sqlite__write_query", query="DROP TABLE runs")) == "deny"


def test_a_host_in_the_agents_environment_decides(world, monkeypatch):
    monkeypatch.setenv("PGHOST", "db.prod.example")
    assert verdict(world.run("psql -c 'INSERT INTO t VALUES (1)'")) != "allow"
    assert verdict(world.run("psql -h localhost -c 'INSERT INTO t VALUES (1)'")) == "allow"
    monkeypatch.setenv("PGHOST", "/var/run/postgresql")
    assert verdict(world.run("psql -c 'INSERT INTO t VALUES (1)'")) == "allow"
    monkeypatch.setenv("PGSERVICE", "prod")
    assert verdict(world.run("psql -c 'INSERT INTO t VALUES (1)'")) != "allow"
