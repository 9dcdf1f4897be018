"""logrotate judged by its configuration (shell/cmd_logrotate.py): the files it rotates are written, its scripts
run. The world is the real one of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


@pytest.mark.parametrize("config", [
    "{audit} {{\n    size 1\n    rotate 0\n    missingok\n    nocreate\n}}\n",
    "{state}/*.db {{\n    rotate 0\n}}\n",
    "{project}/logs/*.log {{\n    weekly\n    postrotate\n        rm -rf ~/.config/guardtui\n    endscript\n}}\n",
    "include {project}/tools/more.d\n",
])
def test_logrotate_rotating_the_guard_away_denies(world, config):
    audit = str(world.locations.audit_db)
    put(world, "tools/more.d/x.conf", f"{audit} {{\n    copytruncate\n}}\n")
    (world.project / "logs").mkdir(exist_ok=True)
    (world.project / "logs" / "app.log").write_text("x\n")
    put(world, "tools/lr.conf", config.format(audit=audit, state=str(world.locations.state_dir),
                                              project=str(world.project)))
    assert verdict(world.run("logrotate -f -s /tmp/lr.state tools/lr.conf")) == "deny", config


def test_logrotate_of_project_logs_and_its_dry_run_are_not_denied(world):
    audit = str(world.locations.audit_db)
    put(world, "tools/app.conf", f"{world.project}/logs/*.log {{\n    weekly\n    rotate 4\n    compress\n}}\n")
    assert verdict(world.run("logrotate -f -s /tmp/lr.state tools/app.conf")) != "deny"
    put(world, "tools/lr.conf", f"{audit} {{\n    rotate 0\n}}\n")
    assert verdict(world.run("logrotate -d tools/lr.conf")) != "deny"
