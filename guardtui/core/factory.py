"""Build an Engine from the user's configuration: the one place the rule order is written.

    protect (the guard itself) → guardian → dangerous shell → working directory → sensitive files
    → secret reads → web → MCP
    → plugins → default
"""
from __future__ import annotations

from .audit import AuditLog
from .config import Locations, account_home
from .engine import Engine, EventSink
from .model import BlastRadius, Decision, ToolCall, Verdict
from .plugins.rule import PluginRule
from .policy import Policy, load_policy
from .protect import Protection
from .rules import (DangerousShellRule, DefaultPolicyRule, GuardianRule, McpRule, ProtectRule, SecretReadRule,
                    SensitiveFileRule, WebRule, WorkingDirRule)
from .rules.base import EvalContext, Rule
from .rules.filetools import FileToolRule
from .rules.later import LaterRule
from .rules.secretflow import SecretFlowRule
from .yamlfile import DataError


class BrokenConfigRule:
    """Stands in for a rule whose configuration failed to load: every call asks, saying why."""

    def __init__(self, rule_id: str, error: str):
        self.id = rule_id
        self.error = error

    def evaluate(self, call: ToolCall, ctx: EvalContext) -> Decision:
        return Decision(Verdict.ASK, f"{self.error} (fix it; until then every call asks)", self.id,
                        BlastRadius.UNKNOWN, "config-error")


def guardian_rule(locations: Locations) -> Rule:
    try:
        policy = load_policy(locations.policy_file)
    except DataError as exc:
        return BrokenConfigRule("guardian", str(exc))
    return GuardianRule(policy)


def build_engine(locations: Locations, *, record: bool = True,
                 on_event: EventSink | None = None, plugin_rule: Rule | None = None,
                 path_env: str | None = None, policy: Policy | None = None) -> Engine:
    # the guard's own files first: a broken policy file (which asks for everything) never softens their deny
    # first: every call's reads of secrets are remembered, whatever rule decides it
    rules: list[Rule] = [SecretFlowRule(), FileToolRule(), ProtectRule(), GuardianRule(policy) if policy is not None else guardian_rule(locations),
                         LaterRule(), DangerousShellRule(), WorkingDirRule(), SensitiveFileRule()]
    rules += [SecretReadRule(), WebRule(), McpRule()]  # every tool, not only the shell: secrets, the web, MCP
    # the plugins slot is always there, so a hot reload (engine.replace_rule("plugins", …)) has a place
    rules.append(plugin_rule if plugin_rule is not None else PluginRule())
    rules.append(DefaultPolicyRule())
    audit = AuditLog(locations.audit_db) if record else None
    home = account_home(locations.home)
    return Engine(rules, audit=audit, home=home, protection=Protection(locations, homes=(home,)),
                  on_event=on_event, path_env=path_env)
