"""An MCP server bound by its configuration to the guard's own files (mcp/bound.py): its tools that change
something deny, its reads stay reads. The world is the real one of test_guard_holds."""
from __future__ import annotations

import json

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put

DELETE = {"query": "DELETE FROM decisions WHERE ts > datetime('now', '-1 hour')"}


def sqlite_server(db: str) -> dict:
    return {"mcpServers": {"sqlite": {"command": "uvx", "args": ["mcp-server-sqlite", "--db-path", db]}}}


@pytest.mark.parametrize("db", ["~/.local/state/guardtui/audit.db", "{state}/audit.db", "--db-path={state}/audit.db"])
def test_a_sqlite_server_on_the_audit_log_may_not_write(world, db):
    state = str(world.locations.state_dir)
    config = sqlite_server(db.format(state=state))
    if db.startswith("--db-path="):
        config["mcpServers"]["sqlite"]["args"] = ["mcp-server-sqlite", db.format(state=state)]
    put(world, ".mcp.json", json.dumps(config))
    assert verdict(world.tool("mcp__sqlite__write_query", **DELETE)) == "deny", db
    assert verdict(world.tool("mcp__sqlite__read_query", query="SELECT count(*) FROM decisions")) == "allow"


def test_user_level_configurations_bind_too(world):
    state = str(world.locations.state_dir)
    (world.home / ".claude.json").write_text(json.dumps(
        {"projects": {str(world.project): sqlite_server(f"{state}/audit.db")}}))
    assert verdict(world.tool("mcp__sqlite__write_query", **DELETE)) == "deny"
    (world.home / ".claude.json").unlink()
    (world.home / ".codex").mkdir(exist_ok=True)
    (world.home / ".codex" / "config.toml").write_text(
        f'[mcp_servers.evidence]\ncommand = "uvx"\nargs = ["mcp-server-sqlite", "--db-path", "{state}/audit.db"]\n')
    assert verdict(world.tool("mcp__evidence__write_query", **DELETE)) == "deny"
    assert verdict(world.tool("mcp__evidence__list_tables")) == "allow"


def test_a_server_on_project_files_is_the_projects_own_database(world):
    put(world, ".mcp.json", json.dumps(sqlite_server("./data/app.db")))  # a scoped change of it: routine local work
    assert verdict(world.tool("mcp__sqlite__write_query", query="DELETE FROM sessions WHERE id = 3")) == "allow"
    assert verdict(world.tool("mcp__sqlite__write_query", **DELETE)) == "allow"
    assert verdict(world.tool("mcp__sqlite__write_query", query="DELETE FROM sessions")) == "deny"
