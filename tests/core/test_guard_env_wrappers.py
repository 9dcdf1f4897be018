"""Node's environment setters run the command after them: `pnpm dotenv -e F -- CMD`, `cross-env X=1 CMD`,
`env-cmd -f F CMD` are judged as CMD (they were taken for a routine project binary)."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)

SCRIPTS = '{"scripts": {"db:fresh": "prisma migrate reset --force && prisma db seed", "build": "vite build"}}'


@pytest.mark.parametrize("command,expected", [
    ("pnpm dotenv -e .env.production -- pnpm db:fresh", "ask"),
    ("yarn dotenv -e .env.staging -- yarn db:fresh", "ask"),
    ("pnpm env-cmd -f .env.production pnpm db:fresh", "ask"),
    ("cross-env NODE_ENV=production rm -rf ~", "deny"),
    ("yarn cross-env X=1 rm -rf /", "deny"),
    ("pnpm dotenv -e .env -- pnpm build", "allow"),
    ("pnpm env-cmd -f .env.test pnpm build", "allow"),
    ("cross-env NODE_ENV=test pnpm build", "allow"),
])
def test_environment_setters_are_judged_as_the_command_they_run(world, command, expected):
    (world.project / "package.json").write_text(SCRIPTS)
    assert verdict(world.run(command)) == expected, command
