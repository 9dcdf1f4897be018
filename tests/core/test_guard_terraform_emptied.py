"""terraform apply after the command empties or removes every .tf file of the configuration: with no resources
left in it, apply destroys every resource the state holds (shell/cmd_exec.terraform). The world is the real
one of test_guard_holds."""
from __future__ import annotations

import pytest

from .test_guard_holds import world, verdict  # noqa: F401  (the fixture)
from .test_guard_tool_code import put


@pytest.fixture
def stack(world):
    put(world, "infra/prod/main.tf", 'resource "aws_s3_bucket" "archive" { bucket = "ledger-archive" }\n')
    put(world, "infra/prod/db.tf", 'resource "aws_db_instance" "ledger" { identifier = "ledger" }\n')
    return world


@pytest.mark.parametrize("command", [
    ": > infra/prod/main.tf && : > infra/prod/db.tf && terraform -chdir=infra/prod apply -auto-approve",
    "rm infra/prod/*.tf; terraform -chdir=infra/prod apply",
    "rm -rf infra/prod && mkdir -p infra/prod && terraform -chdir=infra/prod apply -auto-approve",
    "mv infra/prod/main.tf infra/prod/db.tf /tmp/ && terraform -chdir=infra/prod apply -auto-approve",
    "cp /dev/null infra/prod/main.tf && cp /dev/null infra/prod/db.tf && cd infra/prod && tofu apply -auto-approve",
])
def test_apply_after_emptying_the_configuration_denies(stack, command):
    assert verdict(stack.run(command)) == "deny", command


@pytest.mark.parametrize("command", [
    "terraform -chdir=infra/prod apply -auto-approve",
    ": > infra/prod/db.tf && terraform -chdir=infra/prod apply",  # main.tf's resources stay
])
def test_apply_with_resources_left_asks(stack, command):
    assert verdict(stack.run(command)) == "ask", command


def test_a_plan_after_emptying_is_only_a_plan(stack):
    assert verdict(stack.run(": > infra/prod/main.tf && : > infra/prod/db.tf && terraform -chdir=infra/prod plan")) \
        != "deny"
