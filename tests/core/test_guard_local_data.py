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
    "psql app_dev -c 'ALTER TABLE t ADD COLUMN c int'",
    "PGHOST=localhost psql -c 'INSERT INTO t VALUES (1)'",
    "mysql -h 127.0.0.1 -u root shop_dev -e 'DELETE FROM carts WHERE updated_at < NOW() - INTERVAL 7 DAY'",
    "mysql -u root shop_dev -e 'INSERT INTO t VALUES (1)'",
    "clickhouse-client --query \"INSERT INTO analytics.events_dedup SELECT * FROM analytics.events\"",
    "clickhouse-client --host localhost -q 'CREATE TABLE x (a UInt8) ENGINE = Memory'",
    "printf 'INSERT INTO t VALUES (1);' | psql -h ::1 app",
])
def test_changes_to_the_developers_own_database_allow(world, command):
    (world.project / "data").mkdir(exist_ok=True)
    d = world.run(command)
    assert verdict(d) == "allow", (command, d.reason)


@pytest.mark.parametrize("command", [
    "psql -h db.prod.internal -d app -c \"INSERT INTO t VALUES (1)\"",             # another machine
    "psql postgres://u:p@10.0.0.5/app -c 'DELETE FROM t WHERE id = 1'",
    "mysql -h shop-db.example.com shop -e 'INSERT INTO t VALUES (1)'",
    "clickhouse-client --host ch.analytics.example -q 'INSERT INTO t SELECT 1'",
    "PGHOST=db.staging.example psql -c 'INSERT INTO t VALUES (1)'",
    "psql --service=prod -c 'INSERT INTO t VALUES (1)'",                            # ~/.pg_service.conf: not read
    "mysql --login-path=prod -e 'INSERT INTO t VALUES (1)'",
    "sqlite3 ~/.mozilla/places.sqlite \"DELETE FROM moz_places WHERE id = 3\"",      # a file outside the project
    "sqlite3 /tmp/x.db 'INSERT INTO t VALUES (1)'",
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
